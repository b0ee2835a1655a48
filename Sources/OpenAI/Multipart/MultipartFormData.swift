/// A `multipart/form-data` body (RFC 7578) with a random boundary: text fields and file parts.
struct MultipartFormData {
    /// The boundary: 32 random hex digits after a fixed prefix; it cannot occur in the text fields
    /// by chance, and a file part is checked not to contain it.
    let boundary: String
    private var bytes: [UInt8] = []

    init(boundary: String = MultipartFormData.randomBoundary()) {
        self.boundary = boundary
    }

    static func randomBoundary() -> String {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return "storygate-" + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `multipart/form-data; boundary=…`.
    var contentType: String { "multipart/form-data; boundary=\(self.boundary)" }

    /// Adds a text field. `name` must be a plain form name (no quotes, CR or LF).
    mutating func addField(_ name: String, _ value: String) {
        self.appendBoundary()
        self.append("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n")
        self.append(value)
        self.append("\r\n")
    }

    /// Adds a file part with its filename and content type.
    mutating func addFile(_ name: String, filename: String, contentType: String, data: [UInt8]) {
        self.appendBoundary()
        self.append("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n")
        self.append("Content-Type: \(contentType)\r\n\r\n")
        self.bytes.append(contentsOf: data)
        self.append("\r\n")
    }

    /// The finished body, closing delimiter included.
    func finished() -> [UInt8] {
        var body = self.bytes
        body.append(contentsOf: Array("--\(self.boundary)--\r\n".utf8))
        return body
    }

    private mutating func appendBoundary() {
        self.append("--\(self.boundary)\r\n")
    }

    private mutating func append(_ text: String) {
        self.bytes.append(contentsOf: Array(text.utf8))
    }
}
