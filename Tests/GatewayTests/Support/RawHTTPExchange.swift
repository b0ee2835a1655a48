import Foundation

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CNIOLinux)
// Socket constants and types are defined by whichever C module included their headers first: NIO's here.
import CNIOLinux
#endif

/// One raw-socket exchange that reads the answers as HTTP/1.1 responses (status line, fields, a body framed by
/// `Content-Length`, `chunked` or the close), so a kept-alive connection need not be waited out: it ends once the
/// expected number of final answers has arrived, the server closes, or nothing arrives for `stallSeconds` (a hang).
///
/// Unlike ``RawSocketClient/exchange(port:bytes:timeoutSeconds:)`` it tells a close from a timeout, which is what
/// the edge fuzz needs: any bytes must be answered or the connection closed, promptly.
struct RawHTTPExchange: Sendable {
    struct Response: Sendable {
        let status: Int
        let fields: [(name: String, value: String)]
        let body: [UInt8]

        /// The first value of `name`, case-insensitively.
        func field(_ name: String) -> String? {
            self.fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// `error.code` of a JSON error body, or nil.
        var errorCode: String? {
            let json = try? JSONSerialization.jsonObject(with: Data(self.body)) as? [String: Any]
            return (json?["error"] as? [String: Any])?["code"] as? String
        }
    }

    enum Ending: Sendable, Equatable {
        /// Every expected answer arrived (the connection may still be open).
        case answered
        /// The server closed (or reset) the connection.
        case closed
        /// Nothing arrived for `stallSeconds` before the expected answers did: a hang.
        case stalled
        /// The bytes that came back are not HTTP/1.1 responses.
        case malformed(String)
    }

    struct Outcome: Sendable {
        let responses: [Response]
        let ending: Ending
        /// Answer bytes as received, for failure messages.
        let raw: [UInt8]
    }

    /// The requests sent, in order: only whether each is a HEAD matters (its answer has no body).
    let heads: [Bool]
    /// Send the bytes, then shut the write side (for requests that are cut short: the server sees the end).
    let halfClose: Bool
    let stallSeconds: Double

    /// Connects to `127.0.0.1:port`, writes `bytes`, and reads answers on a thread of its own.
    func run(port: Int, bytes: [UInt8]) async -> Outcome {
        await RawSocketClient.onThread { self.blockingRun(port: port, bytes: bytes) }
    }

    private func blockingRun(port: Int, bytes: [UInt8]) -> Outcome {
        // Short receive waits, so the stall clock is checked often; sends never block for long.
        guard let fd = try? RawSocketClient.connected(port: port, receiveTimeout: .milliseconds(100), sendTimeout: .seconds(2)) else {
            return Outcome(responses: [], ending: .malformed("connect() failed"), raw: [])
        }
        defer { close(fd) }

        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer and close before reading everything: stop sending, read what it said.
            if sent <= 0 { break }
            offset += sent
        }
        if self.halfClose { shutdown(fd, Int32(SHUT_WR)) }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var lastProgress = ContinuousClock.now
        let stall = Duration.milliseconds(Int64(self.stallSeconds * 1000))
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
                lastProgress = .now
                switch Self.parse(received, heads: self.heads, closed: false) {
                case .failure(let failure): return Outcome(responses: [], ending: .malformed(failure.reason), raw: received)
                case .success(let responses) where responses.count >= self.heads.count:
                    return Outcome(responses: responses, ending: .answered, raw: received)
                case .success: continue
                }
            }
            let failure = errno
            if count == 0 || (failure != EAGAIN && failure != EWOULDBLOCK && failure != EINTR) {
                // EOF or a reset: whatever was answered, the connection is over.
                switch Self.parse(received, heads: self.heads, closed: true) {
                case .failure(let failure): return Outcome(responses: [], ending: .malformed(failure.reason), raw: received)
                case .success(let responses): return Outcome(responses: responses, ending: .closed, raw: received)
                }
            }
            if lastProgress.duration(to: .now) > stall {
                let responses = (try? Self.parse(received, heads: self.heads, closed: false).get()) ?? []
                return Outcome(responses: responses, ending: .stalled, raw: received)
            }
        }
    }

    struct ParseFailure: Error {
        let reason: String
    }

    /// The complete final responses in `bytes` (1xx answers skipped). With `closed`, a body framed by the close
    /// ends there, and a response cut short is malformed.
    static func parse(_ bytes: [UInt8], heads: [Bool], closed: Bool) -> Result<[Response], ParseFailure> {
        var responses: [Response] = []
        var index = 0
        while index < bytes.count {
            let isHead = responses.count < heads.count ? heads[responses.count] : false
            switch self.parseOne(bytes, from: index, isHead: isHead, closed: closed) {
            case .incomplete:
                return closed ? .failure(ParseFailure(reason: "the connection closed inside a response")) : .success(responses)
            case .invalid(let reason):
                return .failure(ParseFailure(reason: reason))
            case .response(let response, let next):
                if response.status >= 200 { responses.append(response) }
                index = next
            }
        }
        return .success(responses)
    }

    private enum One {
        case incomplete
        case invalid(String)
        case response(Response, next: Int)
    }

    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func parseOne(_ bytes: [UInt8], from start: Int, isHead: Bool, closed: Bool) -> One {
        guard let headEnd = self.find(self.crlfcrlf, in: bytes, from: start) else {
            if bytes.count - start >= 8, !bytes[start..<(start + 8)].elementsEqual("HTTP/1.1".utf8) {
                return .invalid("not an HTTP/1.1 status line")
            }
            return .incomplete
        }
        let headText = String(decoding: bytes[start..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]), (100...599).contains(status) else {
            return .invalid("bad status line '\(statusLine.prefix(60))'")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .invalid("bad field line '\(line.prefix(60))'") }
            fields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let bodyStart = headEnd + 4
        let value = { (name: String) in fields.first { $0.name.lowercased() == name }?.value }
        // The parser-error answer (it closes the connection) has its body even for what was meant as a HEAD when
        // the head itself was unreadable (the method is unknown), and none when the head was read: take either.
        if isHead, value("connection")?.lowercased() == "close", let length = value("content-length").flatMap({ Int($0) }) {
            if bytes.count - bodyStart >= length {
                return .response(Response(status: status, fields: fields, body: Array(bytes[bodyStart..<(bodyStart + length)])), next: bodyStart + length)
            }
            if !closed { return .incomplete }
            guard bytes.count == bodyStart else { return .invalid("a body cut short") }
            return .response(Response(status: status, fields: fields, body: []), next: bodyStart)
        }
        if isHead || status < 200 || status == 204 || status == 304 {
            return .response(Response(status: status, fields: fields, body: []), next: bodyStart)
        }
        if let coding = value("transfer-encoding") {
            guard coding.lowercased() == "chunked" else { return .invalid("transfer-encoding \(coding)") }
            return self.parseChunked(bytes, from: bodyStart, status: status, fields: fields)
        }
        if let lengthText = value("content-length") {
            guard let length = Int(lengthText), length >= 0 else { return .invalid("content-length \(lengthText)") }
            guard bytes.count - bodyStart >= length else { return .incomplete }
            return .response(Response(status: status, fields: fields, body: Array(bytes[bodyStart..<(bodyStart + length)])), next: bodyStart + length)
        }
        // Framed by the close.
        guard closed else { return .incomplete }
        return .response(Response(status: status, fields: fields, body: Array(bytes[bodyStart...])), next: bytes.count)
    }

    private static func parseChunked(_ bytes: [UInt8], from start: Int, status: Int, fields: [(name: String, value: String)]) -> One {
        var body: [UInt8] = []
        var index = start
        while true {
            guard let lineEnd = self.find([13, 10], in: bytes, from: index) else { return .incomplete }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return .invalid("bad chunk size '\(sizeText.prefix(20))'")
            }
            index = lineEnd + 2
            if size == 0 {
                // Trailer fields (none expected), then the final CRLF.
                while true {
                    guard let trailerEnd = self.find([13, 10], in: bytes, from: index) else { return .incomplete }
                    let empty = trailerEnd == index
                    index = trailerEnd + 2
                    if empty { return .response(Response(status: status, fields: fields, body: body), next: index) }
                }
            }
            guard bytes.count - index >= size + 2 else { return .incomplete }
            body.append(contentsOf: bytes[index..<(index + size)])
            guard bytes[index + size] == 13, bytes[index + size + 1] == 10 else { return .invalid("chunk not followed by CRLF") }
            index += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// A raw client connection driven step by step (send, read what arrived, half-close, reset), for exchanges whose
/// timing matters: a malformed chunk sent after the answer began, a reset right after the request.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    /// Set once `reset()` has closed the socket itself.
    private var isClosed = false

    /// Connects to `127.0.0.1:port` (blocking; call from a test, not an event loop).
    init(port: Int) throws {
        let fd = try RawSocketClient.connected(port: port, receiveTimeout: .milliseconds(50), sendTimeout: .seconds(5))
        self.fd = fd
    }

    deinit {
        if !self.isClosed { close(self.fd) }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func halfClose() {
        shutdown(self.fd, Int32(SHUT_WR))
    }

    /// Closes with a TCP reset (SO_LINGER with a zero timeout).
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(self.fd)
        self.isClosed = true
    }

    /// Reads until `until` holds for everything read so far, the peer closes, or `seconds` pass; returns the bytes
    /// and whether the peer closed.
    func read(for seconds: Double, until: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }) async -> (bytes: [UInt8], closed: Bool) {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
                while ContinuousClock.now < end {
                    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count > 0 {
                        received.append(contentsOf: buffer[0..<count])
                        if until(received) { break }
                    } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                        continuation.resume(returning: (received, true))
                        return
                    }
                }
                continuation.resume(returning: (received, false))
            }.start()
        }
    }
}
