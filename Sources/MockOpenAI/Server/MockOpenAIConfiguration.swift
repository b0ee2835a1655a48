/// Settings for one ``MockOpenAIServer``; every key has a default.
public struct MockOpenAIConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// The port; `0` picks a free one (reported through `onServerRunning`). Default `0`.
    public var port = 0
    /// Added before every endpoint's answer, errors included (an async sleep); not before `GET /__mock/calls`.
    /// Default `.zero`.
    public var latency: Duration = .zero
    /// The API key every request must send as `Authorization: Bearer <key>`; `nil` accepts any non-empty
    /// bearer token. Default `nil`.
    public var requiredAPIKey: String?
    /// When set, every request to an endpoint is also written to this existing directory as
    /// `<n>-<endpoint>.json`. Default `nil`.
    public var recordDirectory: String?
    /// How many requests ``MockOpenAIServer/requests`` keeps (the newest). Default 1000.
    public var recordLimit = 1000
    /// The largest request body accepted; a larger one gets `413`. Default 50 MiB.
    public var maxRequestBodyBytes = 50 * 1024 * 1024

    /// The defaults.
    public init() {}
}
