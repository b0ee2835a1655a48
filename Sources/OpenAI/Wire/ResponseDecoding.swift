import Foundation

/// Decoding response bodies with `JSONDecoder` (wire names in each type's `CodingKeys`).
enum ResponseDecoding {
    /// `body` as `T`, or an `invalidResponse` error.
    static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(AIError) -> T {
        guard let value = Self.decodeIfPossible(type, from: body) else {
            throw AIError(.invalidResponse, "The provider's answer could not be read.")
        }
        return value
    }

    /// `body` as `T`, or `nil`.
    static func decodeIfPossible<T: Decodable>(_ type: T.Type, from body: [UInt8]) -> T? {
        try? JSONDecoder().decode(type, from: Data(body))
    }

    /// Whether `bytes` is a JSON object.
    static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }

    /// Standard base64 (as `b64_json` is), or `nil`.
    static func base64(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { Array($0) }
    }
}
