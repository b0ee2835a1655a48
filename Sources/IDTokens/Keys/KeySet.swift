/// The signing keys of a token issuer, by key id (`kid`).
public struct KeySet: Sendable {
    private let keys: [String: RSAPublicKey]
    /// Key ids whose entries were skipped while reading Google's JSON (not RSA certificates, or too small).
    public let skippedKeyIDs: [String]

    /// Google's x509 JSON: `{"<kid>": "-----BEGIN CERTIFICATE-----\n...", ...}`.
    ///
    /// Entries that are not RSA certificates of at least 2048 bits (including non-string values) are skipped
    /// and listed in `skippedKeyIDs`; zero usable keys, or a document that is not a strict JSON object, throws.
    public init(googleX509JSON bytes: some Collection<UInt8>) throws(KeySetError) {
        let document = Array(bytes)
        let parsed = document.withUnsafeBufferPointer { buffer -> (keys: [String: RSAPublicKey], skipped: [String])? in
            guard let members = try? JSONParser.parseObject(buffer, range: 0..<buffer.count) else { return nil }
            var keys: [String: RSAPublicKey] = [:]
            var skipped: [String] = []
            for member in members {
                let keyID = KnownMemberSlots.withName(of: member, in: buffer) { String(decoding: $0, as: UTF8.self) }
                guard member.kind == .string else {
                    skipped.append(keyID)
                    continue
                }
                let raw = UnsafeBufferPointer(rebasing: buffer[Int(member.valueStart)..<Int(member.valueEnd)])
                let pem = JSONString.string(raw, hasEscapes: member.valueHasEscapes)
                if let key = try? RSAPublicKey(x509PEM: pem) {
                    keys[keyID] = key
                } else {
                    skipped.append(keyID)
                }
            }
            return (keys, skipped.sorted())
        }
        guard let parsed else { throw .invalidJSON }
        guard !parsed.keys.isEmpty else { throw .noUsableKeys }
        self.keys = parsed.keys
        self.skippedKeyIDs = parsed.skipped
    }

    /// A key set from keys already loaded.
    public init(keys: [String: RSAPublicKey]) {
        self.keys = keys
        self.skippedKeyIDs = []
    }

    /// The key with id `keyID`, if any.
    public subscript(keyID: String) -> RSAPublicKey? { keys[keyID] }

    /// All key ids, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// The number of keys.
    public var count: Int { keys.count }
}
