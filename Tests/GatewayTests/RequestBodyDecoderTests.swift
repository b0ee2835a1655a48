import NIOCore
import Testing

@testable import HTTPWire

/// The request body reader: bodies by length and chunked, whole and a byte at a time, the pipelined request after
/// them left in the bytes, and the chunked framing it refuses.
@Suite("Request body decoder")
struct RequestBodyDecoderTests {
    /// Feeds `input` in pieces of `step` bytes; returns the body, whether it ended, and the bytes left after it.
    static func read(
        _ framing: RequestBodyFraming, _ input: String, step: Int = .max, maxTrailerBytes: Int = 1024
    ) throws(RequestBodyError) -> (body: String, ended: Bool, rest: String) {
        var decoder = RequestBodyDecoder(framing, maxTrailerBytes: maxTrailerBytes)
        let bytes = Array(input.utf8)
        var pending = ByteBuffer()
        var body: [UInt8] = []
        var offset = 0
        var ended = false
        while !ended {
            if offset < bytes.count {
                let end = min(bytes.count, offset + step)
                pending.writeBytes(bytes[offset..<end])
                offset = end
            }
            guard let part = try decoder.next(&pending) else {
                if offset >= bytes.count { break }
                continue
            }
            switch part {
            case .data(let slice): body += slice.readableBytesView
            case .end: ended = true
            }
        }
        pending.writeBytes(bytes[offset...])
        return (String(decoding: body, as: UTF8.self), ended, String(buffer: pending))
    }

    static let bodies: [(RequestBodyFraming, String, body: String)] = [
        (.none, "GET / HTTP/1.1\r\n", ""),
        (.length(5), "helloGET", "hello"),
        (.chunked, "5\r\nhello\r\n0\r\n\r\nGET", "hello"),
        (.chunked, "5;a=b;c=\"d e\"\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\nX-U: v w\r\n\r\nGET", "hello world"),
        (.chunked, "A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
        (.chunked, "005\r\nhello\r\n0\r\n\r\n", "hello"),
        (.chunked, "0\r\n\r\n", ""),
    ]

    @Test("a body is read to its end, whole or a byte at a time; what follows stays", arguments: Self.bodies)
    func reads(_ framing: RequestBodyFraming, _ input: String, body: String) throws {
        for step in [Int.max, 1, 3] {
            let read = try Self.read(framing, input, step: step)
            #expect(read.body == body, "step \(step)")
            #expect(read.ended, "step \(step)")
            let rest = input.hasSuffix("GET") ? "GET" : input.hasSuffix("HTTP/1.1\r\n") ? input : ""
            #expect(read.rest == rest, "step \(step)")
        }
    }

    static let refused: [(String, String)] = [
        ("g\r\n", "invalid_chunk_size"),
        ("5\r\nhelloX\r\n", "missing_crlf_after_chunk_data"),
        ("5\nhello\r\n", "invalid_chunk_size"),
        ("fffffffffffffffff\r\n", "chunk_size_too_large"),
        ("5;a\u{1}\r\n", "invalid_byte_in_chunk_extension"),
        ("0\r\nBad Name: v\r\n\r\n", "invalid_trailer_field_name"),
        ("0\r\nX: v\n\r\n", "invalid_byte_in_trailer_field_value"),
        ("0\r\nX-Long: \(String(repeating: "v", count: 100))\r\n\r\n", "trailers_too_large"),
    ]

    @Test("a chunked body that cannot be read is refused with its reason", arguments: Self.refused)
    func refuses(_ input: String, _ reason: String) {
        for step in [Int.max, 1] {
            #expect(throws: RequestBodyError.self, "step \(step)") {
                do throws(RequestBodyError) {
                    _ = try Self.read(.chunked, input, step: step, maxTrailerBytes: 64)
                } catch {
                    #expect(error.reason == reason, "\(input.debugDescription) step \(step)")
                    throw error
                }
            }
        }
    }
}
