import FoundationEssentials
import OpenAI

/// The images endpoints' answer: `{created, data: [{b64_json, revised_prompt?}]}`.
enum ImageAnswer {
    static func answer(_ result: ImageResult, _ context: EndpointContext) -> MockAnswer {
        var image: [String: JSONValue] = ["b64_json": .string(Data(result.png).base64EncodedString())]
        if let revised = result.revisedPrompt { image["revised_prompt"] = .string(revised) }
        return .json(.object(["created": .number(Double(context.now)), "data": .array([.object(image)])]))
    }

    static func error(_ error: AIError) -> MockAPIError {
        error.kind == .contentPolicy ? .contentPolicy : .provider(error.kind.rawValue)
    }
}
