/// What a recorded request looks like on disk: `<n>-<endpoint>.json` (n zero-padded to 4 digits) holding
/// the JSON body as received, or for a multipart body a JSON object of its text fields with each file part as
/// `"<binary N bytes>"` (a repeated name, or
/// one ending in `[]`, which is dropped, becomes an array).
enum RecordFile {
    static func name(for request: RecordedRequest) -> String {
        let number = String(request.sequence)
        return String(repeating: "0", count: max(0, 4 - number.count)) + number + "-" + request.endpoint.rawValue + ".json"
    }

    static func contents(for request: RecordedRequest) -> [UInt8] {
        guard let contentType = request.contentType, let boundary = MultipartParser.boundary(contentType: contentType),
            let parts = try? MultipartParser.parse(request.body, boundary: boundary)
        else { return request.body }
        return Self.summary(of: parts).bytes
    }

    /// Text fields as strings, file parts as `"<binary N bytes>"`.
    static func summary(of parts: [MultipartPart]) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for part in parts {
            let value: JSONValue = part.filename != nil || Self.isBinary(part) ? .string("<binary \(part.body.count) bytes>") : .string(part.text)
            let isArrayField = part.name.hasSuffix("[]")
            let name = isArrayField ? String(part.name.dropLast(2)) : part.name
            switch fields[name] {
            case nil: fields[name] = isArrayField ? .array([value]) : value
            case .array(var values)?: values.append(value); fields[name] = .array(values)
            case let existing?: fields[name] = .array([existing, value])
            }
        }
        return .object(fields)
    }

    private static func isBinary(_ part: MultipartPart) -> Bool {
        guard let type = part.contentType?.lowercased() else { return false }
        return !type.hasPrefix("text/")
    }
}
