// TEMPORARY: signatures of the OpenAI client being built on branch wt-openai; deleted at merge.
public import CurlHTTP
public import Logging
public struct APIKey: Sendable, CustomStringConvertible { public init(_ value: String) {}; public var description: String { "<redacted>" } }
public struct OpenAIConfiguration: Sendable {
    public var baseURL = "https://api.openai.com/v1"
    public var apiKey: APIKey
    public var deadlines = Deadlines()
    public init(apiKey: APIKey, baseURL: String) { self.apiKey = apiKey; self.baseURL = baseURL }
    public struct Deadlines: Sendable { public init() {}; public static func all(_ deadline: Duration) -> Deadlines { Deadlines() } }
}
public final class OpenAIClient: AIProvider {
    public init(configuration: OpenAIConfiguration, http: CurlClient, logger: Logger) {}
    public func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult { fatalError() }
    public func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8] { [] }
    public func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult { fatalError() }
    public func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult { fatalError() }
    public func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult { fatalError() }
}
