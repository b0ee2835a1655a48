/// A JSON request body's top-level object, with accessors that fail as OpenAI does: `400
/// invalid_request_error` naming the parameter.
struct JSONRequestBody: Sendable {
    let members: [String: JSONValue]

    init(_ bytes: [UInt8]) throws(MockAPIError) {
        guard let value = JSONValue.parse(bytes), case .object(let members) = value else {
            throw .invalidRequest(
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)"
            )
        }
        self.members = members
    }

    subscript(key: String) -> JSONValue? {
        guard let value = self.members[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(MockAPIError) -> String {
        guard let value = self[key] else { throw .invalidRequest("Missing required parameter: '\(key)'.", param: key) }
        guard let text = value.stringValue else { throw .invalidRequest("Invalid type for '\(key)': expected a string.", param: key) }
        guard !text.isEmpty else { throw .invalidRequest("Invalid '\(key)': empty string.", param: key) }
        return text
    }

    func optionalString(_ key: String) throws(MockAPIError) -> String? {
        guard self[key] != nil else { return nil }
        return try self.string(key)
    }

    func optionalNumber(_ key: String) throws(MockAPIError) -> Double? {
        guard let value = self[key] else { return nil }
        guard let number = value.numberValue else { throw .invalidRequest("Invalid type for '\(key)': expected a number.", param: key) }
        return number
    }

    func optionalInteger(_ key: String) throws(MockAPIError) -> Int? {
        guard let number = try self.optionalNumber(key) else { return nil }
        guard number == number.rounded(), abs(number) < 1e15 else {
            throw .invalidRequest("Invalid type for '\(key)': expected an integer.", param: key)
        }
        return Int(number)
    }
}
