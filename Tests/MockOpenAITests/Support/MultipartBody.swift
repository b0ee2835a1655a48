/// Builds a `multipart/form-data` body the way HTTP clients do: text fields, then file parts.
struct MultipartBody {
    let boundary: String
    private(set) var bytes: [UInt8] = []

    init(boundary: String = "----storygate-test-boundary-7MA4YWxkTrZu0gW") {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(self.boundary)" }

    mutating func field(_ name: String, _ value: String) {
        self.bytes += Array("--\(self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    mutating func file(_ name: String, filename: String, contentType: String, _ content: [UInt8]) {
        self.bytes += Array(
            "--\(self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8
        )
        self.bytes += content + Array("\r\n".utf8)
    }

    func finished() -> [UInt8] {
        self.bytes + Array("--\(self.boundary)--\r\n".utf8)
    }
}
