/// A claim or header parameter value, typed as JSON types it.
public enum ClaimValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    /// A JSON object, as its JSON text.
    case object(json: String)
    /// A JSON array, as its JSON text.
    case array(json: String)
}
