/// The one error type of the Generations module: why a store of idempotency records or jobs could not answer.
///
/// Compare with the static members (`error == .unavailable`); equality looks at the kind only. `shortDescription`
/// is stable and safe as a metric label; `description` may carry detail for logs, never for responses.
public struct GenerationStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case unavailable
        case timeout
        case corrupt
        case full
    }

    private let code: Code
    /// Extra context for logs only.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The store cannot be reached (Redis down, refused, shut down).
    public static let unavailable = GenerationStoreError(.unavailable)
    /// The store did not answer in time.
    public static let timeout = GenerationStoreError(.timeout)
    /// The store holds something this gateway cannot read.
    public static let corrupt = GenerationStoreError(.corrupt)
    /// The store is at its bound and holds nothing it may evict.
    public static let full = GenerationStoreError(.full)

    /// A copy that carries `detail` for logs.
    public func with(detail: String) -> GenerationStoreError {
        GenerationStoreError(self.code, detail: detail)
    }

    /// `unavailable`, `timeout`, `corrupt` or `full`.
    public var shortDescription: String { self.code.rawValue }

    public var description: String {
        if let detail { return "GenerationStoreError.\(self.code.rawValue): \(detail)" }
        return "GenerationStoreError.\(self.code.rawValue)"
    }

    public static func == (lhs: GenerationStoreError, rhs: GenerationStoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
