internal import IDTokens
#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Decodes a request body strictly into a typed Codable request, turning every `DecodingError` into a
/// 400 `INVALID_ARGUMENT` that names the offending field as a dotted path (`hero.name`, `event.data.keywords[2]`).
enum RequestDecoder {
    static func decode<Request: Decodable>(_ type: Request.Type, from body: [UInt8]) throws(FunctionError) -> Request {
        if body.count > StoryFunctionsService.maximumBodyBytes { throw .payloadTooLarge }
        do {
            let request = try JSONDecoder().decode(Request.self, from: Data(body))
            // A member given twice means two things to two parsers: refused, whichever the decoder kept.
            if let problem = StrictJSON.problem(inObject: body), problem.contains("duplicate") {
                throw FunctionError.invalidArgument(field: nil, "The request body has a member given twice.")
            }
            return request
        } catch let error as DecodingError {
            throw self.map(error)
        } catch let error as FunctionError {
            throw error
        } catch {
            throw .invalidJSON
        }
    }

    /// Plain decoding, errors untouched (for the model's answers).
    static func decodeJSON<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(bytes))
    }

    static func map(_ error: DecodingError) -> FunctionError {
        switch error {
        case .keyNotFound(let key, let context):
            let path = self.path(context.codingPath + [key])
            return .invalidArgument(field: path, "`\(path)` is required.")
        case .valueNotFound(_, let context):
            let path = self.path(context.codingPath)
            if path.isEmpty { return .invalidArgument(field: nil, "The request body must be a JSON object.") }
            return .invalidArgument(field: path, "`\(path)` is required and must not be null.")
        case .typeMismatch(let type, let context):
            let path = self.path(context.codingPath)
            if path.isEmpty { return .invalidArgument(field: nil, "The request body must be a JSON object.") }
            return .invalidArgument(field: path, "`\(path)` must be \(self.describe(type)).")
        case .dataCorrupted(let context):
            let path = self.path(context.codingPath)
            if path.isEmpty { return .invalidJSON }
            return .invalidArgument(field: path, "`\(path)` has an invalid value.")
        @unknown default:
            return .invalidJSON
        }
    }

    /// `[hero, name]` → `hero.name`; array indices become `[i]`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                result += "[\(index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
            if name.hasPrefix("Dictionary") || name.hasPrefix("KeyedDecodingContainer") { return "an object" }
            return "an object"
        }
    }
}
