/// A parsed `multipart/form-data` body, for assertions on what the client sent.
struct MultipartParts {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var data: [UInt8]
        var text: String { String(decoding: self.data, as: UTF8.self) }
    }

    var parts: [Part]
    /// Whether the body ended with the closing delimiter `--boundary--`.
    var closed: Bool

    /// The first part called `name`.
    subscript(name: String) -> Part? { self.parts.first { $0.name == name } }

    /// Parses `body` split by `boundary`; `nil` if it is not well formed.
    init?(body: [UInt8], boundary: String) {
        let delimiter = Array("--\(boundary)".utf8)
        var chunks: [[UInt8]] = []
        var start: Int?
        var index = 0
        var closed = false
        while index <= body.count - delimiter.count {
            if body[index..<(index + delimiter.count)].elementsEqual(delimiter) {
                if let start {
                    // a part ends with CRLF before the delimiter
                    guard index - start >= 2, body[index - 2] == 13, body[index - 1] == 10 else { return nil }
                    chunks.append(Array(body[start..<(index - 2)]))
                }
                let after = index + delimiter.count
                if body.count >= after + 2, body[after] == UInt8(ascii: "-"), body[after + 1] == UInt8(ascii: "-") {
                    closed = true
                    break
                }
                guard body.count >= after + 2, body[after] == 13, body[after + 1] == 10 else { return nil }
                start = after + 2
                index = after + 2
                continue
            }
            index += 1
        }
        var parts: [Part] = []
        for chunk in chunks {
            guard let split = Self.headerEnd(chunk) else { return nil }
            let headerText = String(decoding: chunk[..<split], as: UTF8.self)
            var part = Part(name: "", filename: nil, contentType: nil, data: Array(chunk[(split + 4)...]))
            for line in headerText.split(separator: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = Self.parameter("name", in: String(line)) ?? ""
                    part.filename = Self.parameter("filename", in: String(line))
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: " ")
                }
            }
            parts.append(part)
        }
        self.parts = parts
        self.closed = closed
    }

    private static func headerEnd(_ chunk: [UInt8]) -> Int? {
        guard chunk.count >= 4 else { return nil }
        for i in 0...(chunk.count - 4) where chunk[i] == 13 && chunk[i + 1] == 10 && chunk[i + 2] == 13 && chunk[i + 3] == 10 {
            return i
        }
        return nil
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        for piece in line.split(separator: ";") {
            let trimmed = piece.trimmingCharacters(in: " ")
            guard trimmed.hasPrefix("\(name)=\"") else { continue }
            return String(trimmed.dropFirst(name.count + 2).dropLast())
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return String(text)
    }
}
