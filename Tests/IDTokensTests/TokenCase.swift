import IDTokens
import TestSupport

/// One corpus entry: how the token is built and what `TokenVerifier` must answer (nil = accepted).
struct TokenCase: Sendable, CustomStringConvertible {
    /// Which keys the verifier is handed for the token's project.
    enum Keys: Sendable {
        /// `TestKeys.keySet` for `TestKeys.projectID`, nothing for other projects.
        case trusted
        /// No key set at all (never loaded).
        case none
    }

    let name: String
    let expected: TokenVerificationError.Reason?
    let keys: Keys
    let build: @Sendable (TokenFactory) -> String

    init(_ name: String, _ expected: TokenVerificationError.Reason?, keys: Keys = .trusted, build: @escaping @Sendable (TokenFactory) -> String) {
        self.name = name
        self.expected = expected
        self.keys = keys
        self.build = build
    }

    var description: String { name }
}

/// The fixed clock and rules the corpus runs under.
enum Corpus {
    /// 2023-11-14T22:13:20Z.
    static let now: Double = 1_700_000_000
    static let skew: Double = 5
    static let rules = FirebaseClaimRules(projectID: TestKeys.projectID, clockSkew: skew)
    /// A second trusted project whose keys were never loaded.
    static let keylessRules = FirebaseClaimRules(projectID: "storygate-keyless", clockSkew: skew)
    static let verifier = TokenVerifier(projects: [rules, keylessRules])
    static let factory = TokenFactory()

    /// A token whose payload is the standard Firebase payload at `now` with these edits.
    static func payload(setting: [String: String] = [:], removing: Set<String> = []) -> @Sendable (TokenFactory) -> String {
        { $0.token(now: now, setting: setting, removing: removing) }
    }

    /// A token with the standard payload and a header with these edits, signed with the primary key.
    static func header(setting: [String: String] = [:], removing: Set<String> = []) -> @Sendable (TokenFactory) -> String {
        { $0.token(headerJSON: $0.headerJSON(setting: setting, removing: removing), payloadJSON: $0.payloadJSON(now: now)) }
    }

    /// A token with exactly this payload text and the standard header.
    static func rawPayload(_ json: String) -> @Sendable (TokenFactory) -> String {
        { $0.token(headerJSON: $0.headerJSON(), payloadJSON: json) }
    }

    /// A valid token whose parts are then edited.
    static func tampered(_ edit: @escaping @Sendable (inout TokenParts) -> Void) -> @Sendable (TokenFactory) -> String {
        { factory in
            var parts = TokenParts(compact: factory.token(now: now))!
            edit(&parts)
            return parts.compact
        }
    }

    /// A token whose signature is the raw RSA private operation over `block(signingInput, modulusLength)`.
    static func crafted(_ block: @escaping @Sendable ([UInt8], Int) -> [UInt8]) -> @Sendable (TokenFactory) -> String {
        { $0.token(headerJSON: $0.headerJSON(), payloadJSON: $0.payloadJSON(now: now), encodedMessage: block) }
    }
}
