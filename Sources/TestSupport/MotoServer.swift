import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real S3 API server for one test: `moto_server` (PyPI `moto[server]`) on 127.0.0.1 and a free port, with
/// signature checking on. The first calls (`INITIAL_NO_AUTH_ACTION_COUNT`) make an IAM user with a key pair
/// and an allow-all policy, and the bucket; from then on every request must be signed with ``accessKeyID`` and
/// ``secretAccessKey``. State is in memory: a restart keeps the port and loses the objects, the user and the bucket,
/// and is bootstrapped again with a new key pair.
///
/// `moto_server` is found at `$MOTO_SERVER`, in `.build/moto-venv` (made by `scripts/moto/install.sh`, which
/// `scripts/test.sh` runs), or on `PATH`; without it the test fails saying so.
///
/// Prefer `withMotoServer { moto in ... }`, which stops it when the body returns or throws.
public final class MotoServer: Sendable {
    public let port: Int
    /// The bucket the bootstrap made.
    public let bucket: String
    private let state = Mutex<(process: Process?, accessKeyID: String, secretAccessKey: String)>((nil, "", ""))

    /// `http://127.0.0.1:<port>`.
    public var endpoint: String { "http://127.0.0.1:\(self.port)" }
    public var accessKeyID: String { self.state.withLock { $0.accessKeyID } }
    public var secretAccessKey: String { self.state.withLock { $0.secretAccessKey } }

    private init(port: Int, bucket: String) {
        self.port = port
        self.bucket = bucket
    }

    /// Starts a server on a free port, waits until it answers, and bootstraps the user, key and bucket.
    public static func start(bucket: String = "storygate-media", startTimeout: Double = 60) async throws -> MotoServer {
        let executable = try Self.executable()
        var lastError: (any Error)?
        for _ in 0..<3 {
            let server = MotoServer(port: try RedisServer.freePort(), bucket: bucket)
            do {
                try await server.launch(executable: executable, startTimeout: startTimeout)
                return server
            } catch {
                try? await offCooperativePool { server.kill() }
                lastError = error
            }
        }
        throw lastError ?? MotoServerError(message: "could not start moto_server")
    }

    /// Kills the server (SIGKILL) and waits for it to exit.
    public func kill() {
        let process = self.state.withLock { state in
            defer { state.process = nil }
            return state.process
        }
        guard let process, process.isRunning else { return }
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #else
        _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
        RedisServer.processLock.withLock { _ in process.waitUntilExit() }
    }

    /// Starts the server again on the same port after ``kill()``, bootstrapped afresh (a new key pair).
    public func restart(startTimeout: Double = 60) async throws {
        try await offCooperativePool { self.kill() }
        try await self.launch(executable: try Self.executable(), startTimeout: startTimeout)
    }

    // MARK: Launch and bootstrap

    private func launch(executable: URL, startTimeout: Double) async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["-H", "127.0.0.1", "-p", String(self.port)]
        var environment = ProcessInfo.processInfo.environment
        // CreateUser, CreateAccessKey, PutUserPolicy and CreateBucket pass unsigned; every later request is checked.
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "4"
        environment["MOTO_ALLOW_NONEXISTENT_REGION"] = "true"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try RedisServer.processLock.withLock { _ in try process.run() }
        self.state.withLock { $0.process = process }

        let deadline = Date().addingTimeInterval(startTimeout)
        while true {
            guard process.isRunning else { throw MotoServerError(message: "moto_server exited on port \(self.port)") }
            // moto answers its first requests slowly: every exchange with it waits on a thread of its own.
            let port = self.port
            let ready = try? await offCooperativePool {
                try Self.exchange(port: port, "GET /moto-api/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            }
            if ready != nil { break }
            guard Date() < deadline else { throw MotoServerError(message: "moto_server did not answer on port \(self.port)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await offCooperativePool { try self.bootstrap() }
    }

    private func bootstrap() throws {
        // The credential scope's service ("iam") routes these to IAM; the signature is not checked yet.
        let iam = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=00"
        func post(_ form: String) throws -> String {
            let request = "POST / HTTP/1.1\r\nHost: 127.0.0.1:\(self.port)\r\nAuthorization: \(iam)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)"
            let answer = try Self.exchange(port: self.port, request)
            guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200") else {
                throw MotoServerError(message: "moto bootstrap failed: \(answer.prefix(300))")
            }
            return answer
        }
        _ = try post("Action=CreateUser&UserName=storygate&Version=2010-05-08")
        let created = try post("Action=CreateAccessKey&UserName=storygate&Version=2010-05-08")
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        _ = try post("Action=PutUserPolicy&UserName=storygate&PolicyName=all&PolicyDocument=\(policy)&Version=2010-05-08")
        guard let keyID = Self.element("AccessKeyId", in: created), let secret = Self.element("SecretAccessKey", in: created) else {
            throw MotoServerError(message: "moto did not return an access key")
        }
        let bucket = try Self.exchange(port: self.port, "PUT /\(self.bucket) HTTP/1.1\r\nHost: 127.0.0.1:\(self.port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        guard bucket.hasPrefix("HTTP/1.1 200") || bucket.hasPrefix("HTTP/1.0 200") else {
            throw MotoServerError(message: "moto did not create the bucket: \(bucket.prefix(300))")
        }
        self.state.withLock { $0.accessKeyID = keyID; $0.secretAccessKey = secret }
    }

    /// Turns signature checking off (moto's `/moto-api/reset-auth`): moto cannot check presigned URLs (with
    /// checking on it fails them with a 500), so a test fetching one turns it off first and checks the signature
    /// against ``botocorePresignedURL(_:accessKeyID:secretAccessKey:region:expiresSeconds:amzDate:)``.
    public func disableSignatureChecks() throws {
        let body = "1000000000"
        let answer = try Self.exchange(
            port: self.port,
            "POST /moto-api/reset-auth HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        )
        guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200") else {
            throw MotoServerError(message: "moto did not turn signature checks off: \(answer.prefix(200))")
        }
    }

    /// The presigned GET URL botocore (the AWS SDK for Python, installed with moto) makes for `url` (no query) with
    /// these inputs: an independent implementation to compare against.
    public static func botocorePresignedURL(
        _ url: String, accessKeyID: String, secretAccessKey: String, region: String, expiresSeconds: Int, amzDate: String
    ) throws -> String {
        let python = try Self.executable().deletingLastPathComponent().appendingPathComponent("python")
        let script = """
            import datetime, json, sys, botocore.auth
            from botocore.auth import S3SigV4QueryAuth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
            a = json.loads(sys.argv[1])
            botocore.auth.get_current_datetime = lambda: datetime.datetime.strptime(a["date"], "%Y%m%dT%H%M%SZ")
            request = AWSRequest(method="GET", url=a["url"])
            S3SigV4QueryAuth(Credentials(a["id"], a["secret"]), "s3", a["region"], expires=a["expires"]).add_auth(request)
            print(request.url)
            """
        let arguments: [String: Any] = [
            "url": url, "id": accessKeyID, "secret": secretAccessKey, "region": region, "expires": expiresSeconds, "date": amzDate,
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script, json]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try RedisServer.processLock.withLock { _ in try process.run() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw MotoServerError(message: "botocore could not presign \(url)") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// Sends `request` on a fresh connection and reads until the server closes it (every request says `Connection: close`).
    private static func exchange(port: Int, _ request: String) throws -> String {
        let socket = RedisServer.tcpSocket()
        guard socket >= 0 else { throw MotoServerError(message: "socket() failed") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = RedisServer.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw MotoServerError(message: "connect() failed") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
            guard result > 0 else { throw MotoServerError(message: "send() failed") }
            sent += result
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 { throw MotoServerError(message: "recv() failed") }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        guard !received.isEmpty else { throw MotoServerError(message: "no answer") }
        return String(decoding: received, as: UTF8.self)
    }

    private static func executable() throws -> URL {
        var candidates: [String] = []
        if let configured = ProcessInfo.processInfo.environment["MOTO_SERVER"], !configured.isEmpty { candidates.append(configured) }
        // Sources/TestSupport/MotoServer.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/moto-venv/bin/moto_server").path)
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/moto_server")
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            return URL(fileURLWithPath: found)
        }
        throw MotoServerError(message: "moto_server not found: run scripts/moto/install.sh (or set MOTO_SERVER to its path)")
    }
}

/// Why `MotoServer` could not start.
public struct MotoServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { self.message }
}

/// Runs `body` with a fresh `moto_server` of its own, and stops it after.
public func withMotoServer<T>(bucket: String = "storygate-media", _ body: (MotoServer) async throws -> T) async throws -> T {
    let server = try await MotoServer.start(bucket: bucket)
    do {
        let result = try await body(server)
        try? await offCooperativePool { server.kill() }
        return result
    } catch {
        try? await offCooperativePool { server.kill() }
        throw error
    }
}
