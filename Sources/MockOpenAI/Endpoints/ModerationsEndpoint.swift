import OpenAI

/// `POST /v1/moderations`: `input` (a string, or an array of strings, joined) and `model` (default
/// `omni-moderation-latest`) go to ``AIProvider/moderate(_:)``; one result with every category.
enum ModerationsEndpoint {
    /// The categories of `omni-moderation-latest`.
    static let categories = [
        "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent",
        "self-harm", "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic",
    ]

    static func answer(_ bytes: [UInt8], _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        let request = try self.request(bytes)
        do throws(AIError) {
            let result = try await context.provider.moderate(request)
            return self.result(model: request.model, flagged: result.flagged, categories: Set(result.categories), context)
        } catch {
            throw error.kind == .contentPolicy ? .contentPolicy : .provider(error.kind.rawValue)
        }
    }

    /// A flagged result (the `.refusal` fault).
    static func flagged(_ bytes: [UInt8], _ context: EndpointContext) throws(MockAPIError) -> MockAnswer {
        let request = try self.request(bytes)
        return self.result(model: request.model, flagged: true, categories: ["violence"], context)
    }

    static func request(_ bytes: [UInt8]) throws(MockAPIError) -> ModerationRequest {
        let body = try JSONRequestBody(bytes)
        let input: String
        switch body["input"] {
        case .string(let text)?: input = text
        case .array(let items)? where !items.isEmpty && items.allSatisfy({ $0.stringValue != nil }):
            input = items.compactMap(\.stringValue).joined(separator: "\n")
        case nil: throw .invalidRequest("Missing required parameter: 'input'.", param: "input")
        default: throw .invalidRequest("Invalid 'input': expected a string or an array of strings.", param: "input")
        }
        return ModerationRequest(model: try body.optionalString("model") ?? "omni-moderation-latest", input: input)
    }

    private static func result(model: String, flagged: Bool, categories: Set<String>, _ context: EndpointContext) -> MockAnswer {
        var flags: [String: JSONValue] = [:]
        var scores: [String: JSONValue] = [:]
        for category in Self.categories {
            flags[category] = .bool(categories.contains(category))
            scores[category] = .number(categories.contains(category) ? 0.91 : 0.0001)
        }
        return .json(.object([
            "id": .string("modr-mock\(context.sequence)"),
            "model": .string(model),
            "results": .array([.object(["flagged": .bool(flagged), "categories": .object(flags), "category_scores": .object(scores)])]),
        ]))
    }
}
