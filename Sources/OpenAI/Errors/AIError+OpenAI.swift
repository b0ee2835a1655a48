extension AIError {
    /// The message of the error ``OpenAIClient`` throws when the calling task is cancelled.
    public static let cancelledMessage = "The call was cancelled."

    /// What ``OpenAIClient`` throws when the calling task is cancelled: `unavailable` with
    /// ``cancelledMessage``. The transfer is aborted and nothing is retried.
    public static var cancelled: AIError { AIError(.unavailable, Self.cancelledMessage) }

    /// Whether this is ``cancelled``.
    public var isCancellation: Bool { self.kind == .unavailable && self.message == Self.cancelledMessage }
}
