/// The three base64url parts of a compact JWS exactly as they appear in the token, free to tamper with.
public struct TokenParts: Sendable, Equatable {
    /// The encoded header (first part).
    public var header: String
    /// The encoded payload (second part).
    public var payload: String
    /// The encoded signature (third part).
    public var signature: String

    public init(header: String, payload: String, signature: String) {
        self.header = header
        self.payload = payload
        self.signature = signature
    }

    /// Splits a token with exactly two dots.
    public init?(compact: String) {
        let pieces = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        self.init(header: String(pieces[0]), payload: String(pieces[1]), signature: String(pieces[2]))
    }

    /// `header.payload.signature`.
    public var compact: String { header + "." + payload + "." + signature }

    /// The bytes RS256 signs: `header.payload`.
    public var signingInput: [UInt8] { Array((header + "." + payload).utf8) }
}
