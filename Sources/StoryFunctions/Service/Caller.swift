/// Who is calling: the verified uid (to own stored media) and its hash (for the provider's end-user field).
public struct Caller: Sendable {
    /// The verified Firebase uid; stored as the owner of media the call creates.
    public let uid: String
    /// A hash of the uid, sent to the provider as the end-user identifier (never the raw uid).
    public let safetyIdentifier: String

    public init(uid: String, safetyIdentifier: String) {
        self.uid = uid
        self.safetyIdentifier = safetyIdentifier
    }
}
