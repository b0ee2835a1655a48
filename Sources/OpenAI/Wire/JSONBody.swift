import Foundation

/// A value encoded as a unique placeholder string, which ``JSONBody/encode(_:splicing:)`` replaces with
/// raw JSON text: how a JSON Schema given as text is embedded as an object, byte for byte (its key order,
/// which structured outputs follow, and its numbers are kept as written).
struct RawJSONPlaceholder: Encodable {
    let token: String

    /// A token no caller text can contain by accident (128 random bits).
    static func make() -> RawJSONPlaceholder {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return RawJSONPlaceholder(token: "storygate-raw-json-\(String(high, radix: 16))\(String(low, radix: 16))")
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.token)
    }
}

/// Encoding request bodies: `JSONEncoder` with the wire names written out in each type's `CodingKeys`.
enum JSONBody {
    enum Failure: Error {
        /// The raw JSON to embed is not a JSON object.
        case notAnObject
        case encoding
    }

    /// `value` as JSON.
    static func encode(_ value: some Encodable) throws(Failure) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw .encoding
        }
    }

    /// `value` as JSON, with the string `placeholder` replaced by `rawJSON`, which must be a JSON object.
    static func encode(_ value: some Encodable, splicing rawJSON: String, at placeholder: RawJSONPlaceholder) throws(Failure) -> [UInt8] {
        let raw = Array(rawJSON.utf8)
        guard (try? JSONSerialization.jsonObject(with: Data(raw))) is [String: Any] else {
            throw .notAnObject
        }
        let encoded = try Self.encode(value)
        let needle = Array("\"\(placeholder.token)\"".utf8)
        guard let range = Self.firstRange(of: needle, in: encoded) else { throw .encoding }
        var spliced = encoded
        spliced.replaceSubrange(range, with: raw)
        return spliced
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) {
                return start..<(start + needle.count)
            }
        }
        return nil
    }
}
