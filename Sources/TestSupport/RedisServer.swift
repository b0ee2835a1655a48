import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real `redis-server` for one test: loopback only, a free port, a temporary directory, no persistence
/// (`--save "" --appendonly no`). It can be killed (SIGKILL) and restarted on the same port.
///
/// Prefer `withRedisServer { redis in ... }`, which stops it when the body returns or throws.
public final class RedisServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int
    /// `redis://127.0.0.1:<port>`.
    public var url: String { "redis://127.0.0.1:\(self.port)" }

    private let directory: URL
    private let extraArguments: [String]
    private let password: String?
    private let process = Mutex<Process?>(nil)

    private init(port: Int, directory: URL, extraArguments: [String]) {
        self.port = port
        self.directory = directory
        self.extraArguments = extraArguments
        self.password = extraArguments.firstIndex(of: "--requirepass").map { extraArguments[$0 + 1] }
    }

    /// Starts a server on a free port and waits until it answers PING (at most `startTimeout` seconds).
    ///
    /// - Parameter arguments: extra `redis-server` options, e.g. `["--requirepass", "secret"]`.
    public static func start(arguments: [String] = [], startTimeout: Double = 10) async throws -> RedisServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lastError: (any Error)?
        // Another process may take the port between choosing and binding it: try a few.
        for _ in 0..<5 {
            let server = RedisServer(port: try Self.freePort(), directory: directory, extraArguments: arguments)
            do {
                try await server.launch(startTimeout: startTimeout)
                return server
            } catch {
                try? await offCooperativePool { server.kill() }
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError ?? RedisServerError(message: "could not start redis-server")
    }

    /// Kills the server (SIGKILL) and waits for it to exit; the port is free again afterwards.
    public func kill() {
        let process = self.process.withLock { process in
            defer { process = nil }
            return process
        }
        guard let process, process.isRunning else { return }
        Self.sendKill(to: process.processIdentifier)
        Self.processLock.withLock { _ in process.waitUntilExit() }
    }

    /// Starts the server again on the same port (after `kill()`), and waits until it answers PING.
    public func restart(startTimeout: Double = 10) async throws {
        try await offCooperativePool { self.kill() }
        try await self.launch(startTimeout: startTimeout)
    }

    /// Kills the server and removes its directory.
    public func stop() {
        self.kill()
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// Runs one command against this server and returns the reply as `redis-cli` prints it without a terminal
    /// (integers and strings bare, nil as "", arrays one element a line), e.g. `try redis.cli("PTTL", key)`.
    ///
    /// Speaks RESP over a socket rather than launching `redis-cli`: Foundation's `Process` is not safe to launch
    /// from many test threads at once on Linux.
    @discardableResult
    public func cli(_ arguments: String...) throws -> String {
        try self.cli(arguments: arguments)
    }

    /// Runs one command against database `database` of this server; see `cli(_:)`.
    @discardableResult
    public func cli(database: Int = 0, arguments: [String]) throws -> String {
        let connection = try RESPTestConnection(port: self.port, timeoutSeconds: 10)
        defer { connection.close() }
        if let password { _ = try connection.command(["AUTH", password]) }
        if database != 0 { _ = try connection.command(["SELECT", String(database)]) }
        return try connection.command(arguments)
    }

    /// Sends a command and returns at once, without waiting for the reply (e.g. `DEBUG SLEEP 2`, which would
    /// otherwise hold a thread for as long as the server sleeps).
    public func cliInBackground(_ arguments: String...) throws {
        let connection = try RESPTestConnection(port: self.port, timeoutSeconds: 10)
        if let password { _ = try connection.command(["AUTH", password]) }
        try connection.send(arguments)
        Thread { _ = try? connection.readReply(); connection.close() }.start()
    }

    /// Foundation's `Process` crashes when launched from several threads at once on Linux: one at a time.
    static let processLock = Mutex<Void>(())

    private static func sendKill(to pid: Int32) {
        #if canImport(Glibc)
        _ = Glibc.kill(pid, SIGKILL)
        #else
        _ = Darwin.kill(pid, SIGKILL)
        #endif
    }

    private func launch(startTimeout: Double) async throws {
        let process = Process()
        process.executableURL = try Self.executable("redis-server")
        process.arguments = [
            "--port", String(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", self.directory.path, "--daemonize", "no", "--logfile", "", "--loglevel", "warning",
            // Lets tests stall the server with DEBUG SLEEP, from loopback only.
            "--enable-debug-command", "local",
        ] + self.extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try RedisServer.processLock.withLock { _ in try process.run() }
        self.process.withLock { $0 = process }

        let deadline = Date().addingTimeInterval(startTimeout)
        while Date() < deadline {
            guard process.isRunning else { throw RedisServerError(message: "redis-server exited on port \(self.port)") }
            if Self.ping(port: self.port, password: self.password) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RedisServerError(message: "redis-server did not answer PING on port \(self.port)")
    }

    static func executable(_ name: String) throws -> URL {
        for directory in ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        throw RedisServerError(message: "\(name) not found; run scripts/setup.sh")
    }

    /// A port the kernel just handed out for 127.0.0.1 (bound to 0, read back, closed).
    static func freePort() throws -> Int {
        let socket = Self.tcpSocket()
        guard socket >= 0 else { throw RedisServerError(message: "socket() failed") }
        defer { close(socket) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw RedisServerError(message: "bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends `PING` (after `AUTH` when a password is set) with a short blocking socket and expects `+PONG`.
    private static func ping(port: Int, password: String?) -> Bool {
        let socket = Self.tcpSocket()
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        var commands = "PING\r\n"
        if let password { commands = "AUTH \(password)\r\n" + commands }
        let request = Array(commands.utf8)
        guard send(socket, request, request.count, 0) == request.count else { return false }
        var received = ""
        var reply = [UInt8](repeating: 0, count: 64)
        while !received.contains("+PONG") && !received.hasPrefix("-") {
            let count = recv(socket, &reply, reply.count, 0)
            guard count > 0 else { return false }
            received += String(decoding: reply[0..<count], as: UTF8.self)
        }
        return received.contains("+PONG")
    }

    static func tcpSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

/// Why `RedisServer` could not start.
public struct RedisServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { self.message }
}

/// Runs `body` with a fresh `redis-server` of its own, and stops the server (and removes its directory) after.
public func withRedisServer<T>(arguments: [String] = [], _ body: (RedisServer) async throws -> T) async throws -> T {
    let server = try await RedisServer.start(arguments: arguments)
    do {
        let result = try await body(server)
        try? await offCooperativePool { server.stop() }
        return result
    } catch {
        try? await offCooperativePool { server.stop() }
        throw error
    }
}
