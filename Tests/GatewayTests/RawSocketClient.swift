import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CNIOLinux)
// `sockaddr_in` is defined by whichever C module included it first: NIO's, once any file of the target imports NIO.
import CNIOLinux
#endif

/// Sends arbitrary bytes to a local port and reads what comes back until the peer closes or a timeout:
/// for requests no HTTP client library would send (malformed heads, floods, slow clients).
enum RawSocketClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs blocking work (socket calls, pipes) on a thread of its own, never on the cooperative pool that the
    /// servers' tasks in the same process need.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await offCooperativePool(work)
    }

    /// ``onThread(_:)`` for work that cannot fail.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// Writes `bytes`, then reads until EOF or `timeoutSeconds` of silence. Runs off the cooperative pool.
    static func exchange(port: Int, bytes: [UInt8], timeoutSeconds: Int = 5) async throws -> String {
        try await Self.onThread { try Self.blockingExchange(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds) }
    }

    static func exchange(port: Int, text: String, timeoutSeconds: Int = 5) async throws -> String {
        try await self.exchange(port: port, bytes: Array(text.utf8), timeoutSeconds: timeoutSeconds)
    }

    /// Connects, writes `prefix`, then one byte of `dribble` every `interval` until the server closes the
    /// connection or `maxSeconds` pass. Returns whether the server closed it (a slow client was cut off).
    static func dribble(port: Int, prefix: String, dribble: String, interval: Duration, maxSeconds: Int) async throws -> Bool {
        try await Self.onThread {
            let fd = try Self.connected(port: port, timeoutSeconds: 1)
            defer { close(fd) }
            _ = Array(prefix.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let clock = ContinuousClock()
            let end = clock.now.advanced(by: .seconds(maxSeconds))
            var bytes = Array(dribble.utf8)[...]
            while clock.now < end {
                if bytes.isEmpty { bytes = Array(dribble.utf8)[...] }
                var byte = bytes.removeFirst()
                if send(fd, &byte, 1, Int32(MSG_NOSIGNAL)) <= 0 { return true }
                // A closed connection shows as EOF (0) on a non-blocking peek.
                var probe: UInt8 = 0
                if recv(fd, &probe, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0 { return true }
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
            }
            return false
        }
    }

    /// A blocking TCP socket connected to `127.0.0.1:port`, with receive and send timeouts; the caller closes it.
    static func connected(port: Int, receiveTimeout: Duration, sendTimeout: Duration) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        for (option, duration) in [(SO_RCVTIMEO, receiveTimeout), (SO_SNDTIMEO, sendTimeout)] {
            let (seconds, attoseconds) = duration.components
            var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect failed")
        }
        return fd
    }

    private static func connected(port: Int, timeoutSeconds: Int) throws -> Int32 {
        try Self.connected(port: port, receiveTimeout: .seconds(timeoutSeconds), sendTimeout: .seconds(timeoutSeconds))
    }

    /// Whether a TCP connection to the port is accepted (false once the listener is closed).
    static func canConnect(port: Int) -> Bool {
        guard let fd = try? Self.connected(port: port, timeoutSeconds: 1) else { return false }
        close(fd)
        return true
    }

    private static func blockingExchange(port: Int, bytes: [UInt8], timeoutSeconds: Int) throws -> String {
        let fd = try Self.connected(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer and close before reading everything (e.g. 431): stop sending, read the answer.
            if sent <= 0 { break }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }
}
