#if canImport(Glibc)
import Glibc
#endif

/// A blocking RESP2 connection for test set-up and inspection of a local redis-server (not for the gateway:
/// the gateway's client is RateLimiting's, on SwiftNIO).
final class RESPTestConnection: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeoutSeconds: Int) throws {
        self.fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard self.fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(self.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(self.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(self.fd)
            throw Failure(description: "cannot connect to redis on port \(port)")
        }
    }

    func close() {
        Glibc.close(self.fd)
    }

    /// Sends `arguments` as one command and returns the reply as text.
    func command(_ arguments: [String]) throws -> String {
        try self.send(arguments)
        return try self.readReply()
    }

    func send(_ arguments: [String]) throws {
        var request = "*\(arguments.count)\r\n"
        for argument in arguments { request += "$\(argument.utf8.count)\r\n\(argument)\r\n" }
        let bytes = Array(request.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed") }
            offset += sent
        }
    }

    /// One reply: `+OK` → "OK", `:1` → "1", `$n` → the string ("" for nil), `-ERR x` → "ERR x",
    /// arrays → elements one a line.
    func readReply() throws -> String {
        let line = try self.readLine()
        guard let kind = line.first else { throw Failure(description: "empty reply") }
        let rest = String(line.dropFirst())
        switch kind {
        case "+", "-", ":":
            return rest
        case "$":
            guard let length = Int(rest) else { throw Failure(description: "bad bulk length") }
            if length < 0 { return "" }
            let bytes = try self.readBytes(length + 2)
            return String(decoding: bytes.prefix(length), as: UTF8.self)
        case "*":
            guard let count = Int(rest) else { throw Failure(description: "bad array length") }
            if count < 0 { return "" }
            var elements: [String] = []
            for _ in 0..<count { elements.append(try self.readReply()) }
            return elements.joined(separator: "\n")
        default:
            throw Failure(description: "unknown reply type")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let index = self.buffer.firstIndex(of: UInt8(ascii: "\n")), index > 0, self.buffer[index - 1] == UInt8(ascii: "\r") {
                let line = String(decoding: self.buffer[..<(index - 1)], as: UTF8.self)
                self.buffer.removeFirst(index + 1)
                return line
            }
            try self.fill()
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while self.buffer.count < count { try self.fill() }
        let bytes = Array(self.buffer[..<count])
        self.buffer.removeFirst(count)
        return bytes
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw Failure(description: "connection closed") }
        self.buffer.append(contentsOf: chunk[..<count])
    }
}
