/// A small `multipart/form-data` parser (RFC 7578, RFC 2046 §5.1): the boundary from `Content-Type`,
/// each part's `Content-Disposition` name and filename, its `Content-Type`, and its bytes intact.
enum MultipartParser {
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, quotes removed; `nil` otherwise.
    static func boundary(contentType: String) -> String? {
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces.lowercased() }
        guard type == "multipart/form-data", let boundary = Self.parameters(contentType)["boundary"] else { return nil }
        return boundary.isEmpty || boundary.utf8.count > 70 ? nil : boundary
    }

    /// The parts of `body`, in order.
    static func parse(_ body: [UInt8], boundary: String) throws(Failure) -> [MultipartPart] {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else { throw Failure(reason: "no boundary") }
        var parts: [MultipartPart] = []
        while true {
            position += delimiter.count
            if Self.hasPrefix(Array("--".utf8), in: body, at: position) { return parts }  // close delimiter
            // Transport padding, then CRLF.
            while position < body.count, body[position] == UInt8(ascii: " ") || body[position] == UInt8(ascii: "\t") { position += 1 }
            guard Self.hasPrefix(Self.crlf, in: body, at: position) else { throw Failure(reason: "malformed delimiter line") }
            position += 2
            if Self.hasPrefix(Self.crlf, in: body, at: position) { throw Failure(reason: "part without headers") }
            guard let headerEnd = Self.find(Self.crlf + Self.crlf, in: body, from: position) else {
                throw Failure(reason: "unterminated part headers")
            }
            let headerBytes = Array(body[position..<headerEnd])
            let contentStart = headerEnd + 4
            guard let next = Self.find(Self.crlf + delimiter, in: body, from: contentStart) else {
                throw Failure(reason: "no closing boundary")
            }
            let content = next >= contentStart ? Array(body[contentStart..<next]) : []
            parts.append(try Self.part(headers: headerBytes, body: content))
            position = next + 2
        }
    }

    private static let crlf: [UInt8] = [13, 10]

    private static func part(headers: [UInt8], body: [UInt8]) throws(Failure) -> MultipartPart {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in String(decoding: headers, as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(reason: "malformed part header") }
            let field = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch field {
            case "content-disposition":
                let parameters = Self.parameters(value)
                name = parameters["name"]
                filename = parameters["filename"]
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name, !name.isEmpty else { throw Failure(reason: "part without a name") }
        return MultipartPart(name: name, filename: filename, contentType: contentType, body: body)
    }

    /// `form-data; name="a"; filename="b.png"` → `["name": "a", "filename": "b.png"]` (quoted strings may hold `;`).
    static func parameters(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = Substring(value)
        guard let firstSemicolon = scalars.firstIndex(of: ";") else { return result }
        scalars = scalars[scalars.index(after: firstSemicolon)...]
        while !scalars.isEmpty {
            scalars = scalars.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = scalars.firstIndex(of: "=") else { break }
            let key = scalars[..<equals].trimmingSpaces.lowercased()
            scalars = scalars[scalars.index(after: equals)...]
            var parsed = ""
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                var escaped = false
                while let character = scalars.first {
                    scalars = scalars.dropFirst()
                    if escaped { parsed.append(character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { break }
                    else { parsed.append(character) }
                }
                scalars = scalars.drop { $0 != ";" }
            } else {
                let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
                parsed = scalars[..<end].trimmingSpaces
                scalars = scalars[end...]
            }
            result[key] = parsed
        }
        return result
    }

    private static func hasPrefix(_ prefix: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count where bytes[index + offset] != prefix[offset] { return false }
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var index = max(start, 0)
        let first = needle[0]
        while index + needle.count <= bytes.count {
            if bytes[index] == first, Self.hasPrefix(needle, in: bytes, at: index) { return index }
            index += 1
        }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = self.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = self.lastIndex(where: { !isSpace($0) })!
        return String(self[start...end])
    }
}
