@testable import MockOpenAI
import Testing

@Suite("MultipartParser")
struct MultipartParserTests {
    @Test(arguments: [
        ("multipart/form-data; boundary=abc", "abc"),
        ("Multipart/Form-Data;boundary=\"a b;c\"", "a b;c"),
        ("multipart/form-data; charset=utf-8; boundary=xyz", "xyz"),
    ])
    func boundaryFromContentType(contentType: String, boundary: String) {
        #expect(MultipartParser.boundary(contentType: contentType) == boundary)
    }

    @Test(arguments: ["application/json", "multipart/form-data", "multipart/form-data; boundary=", "multipart/mixed; boundary=a"])
    func noBoundary(contentType: String) {
        #expect(MultipartParser.boundary(contentType: contentType) == nil)
    }

    /// Content that contains CRLF followed by the delimiter is the delimiter (RFC 2046 §5.1.1): senders pick a boundary that does not occur.
    @Test func partsWithNamesFilenamesTypesAndExactBytes() throws {
        let body = Array("preamble\r\n--B\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nhello\r\n--B\r\n".utf8)
            + Array("Content-Disposition: form-data; name=\"image[]\"; filename=\"a;b.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            + [0, 13, 10, 45, 45, 67, 255] + Array("\r\n--B\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--B--\r\nepilogue".utf8)
        let parts = try MultipartParser.parse(body, boundary: "B")
        #expect(parts == [
            MultipartPart(name: "prompt", filename: nil, contentType: nil, body: Array("hello".utf8)),
            MultipartPart(name: "image[]", filename: "a;b.png", contentType: "image/png", body: [0, 13, 10, 45, 45, 67, 255]),
            MultipartPart(name: "empty", filename: nil, contentType: nil, body: []),
        ])
        #expect(RecordFile.summary(of: parts) == .object([
            "prompt": .string("hello"), "image": .array([.string("<binary 7 bytes>")]), "empty": .string(""),
        ]))
    }

    @Test(arguments: [
        "no boundary at all",
        "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated",
        "--B\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--B--",
        "--B\r\nno colon here\r\n\r\nx\r\n--B--",
        "--B\r\n\r\nno headers\r\n--B--",
    ])
    func malformedBodiesFail(text: String) {
        #expect(throws: MultipartParser.Failure.self) { try MultipartParser.parse(Array(text.utf8), boundary: "B") }
    }
}
