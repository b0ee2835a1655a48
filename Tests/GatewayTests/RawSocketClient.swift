import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends arbitrary bytes to a local port and reads what comes back until the peer closes or a timeout:
/// for requests no HTTP client library would send (malformed heads, floods, slow clients).
enum RawSocketClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `bytes`, then reads until EOF or `timeoutSeconds` of silence. Runs off the cooperative pool.
    static func exchange(port: Int, bytes: [UInt8], timeoutSeconds: Int = 5) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try Self.blockingExchange(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds) })
            }
            thread.start()
        }
    }

    static func exchange(port: Int, text: String, timeoutSeconds: Int = 5) async throws -> String {
        try await self.exchange(port: port, bytes: Array(text.utf8), timeoutSeconds: timeoutSeconds)
    }

    private static func blockingExchange(port: Int, bytes: [UInt8], timeoutSeconds: Int) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect failed") }
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
