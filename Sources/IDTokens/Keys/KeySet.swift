/// The signing keys of a token issuer, by key id (`kid`).
public struct KeySet: Sendable {
    private let keys: [String: RSAPublicKey]
    /// The same keys with their ids' UTF-8, for lookups straight from a token's bytes.
    private let keysByUTF8: [(id: [UInt8], key: RSAPublicKey)]
    /// Key ids whose entries were skipped while reading the document (not RSA, too small, malformed, or with an
    /// exponent that cannot verify).
    public let skippedKeyIDs: [String]

    /// Google's x509 JSON: `{"<kid>": "-----BEGIN CERTIFICATE-----\n...", ...}`.
    ///
    /// Entries that are not usable RSA certificates of at least 2048 bits (including non-string values) are skipped
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
        self.init(keys: parsed.keys, skippedKeyIDs: parsed.skipped)
    }

    /// A key set from keys already loaded.
    public init(keys: [String: RSAPublicKey]) {
        self.init(keys: keys, skippedKeyIDs: [])
    }

    init(keys: [String: RSAPublicKey], skippedKeyIDs: [String]) {
        self.keys = keys
        self.keysByUTF8 = keys.map { (Array($0.key.utf8), $0.value) }
        self.skippedKeyIDs = skippedKeyIDs
    }

    /// The key with id `keyID`, if any.
    public subscript(keyID: String) -> RSAPublicKey? { keys[keyID] }

    /// The key whose id is the UTF-8 `keyID`, if any; the same answer as the `String` subscript.
    ///
    /// Compares bytes first (no string, no hashing: key sets hold a handful of keys). Only when no id has
    /// exactly these bytes does it ask the dictionary, which also matches canonically equivalent ids.
    func key(keyID: UnsafeBufferPointer<UInt8>) -> RSAPublicKey? {
        for entry in keysByUTF8 where entry.id.count == keyID.count {
            let equal = entry.id.withUnsafeBufferPointer { id in
                id.isEmpty || memoryEqual(id.baseAddress!, keyID.baseAddress!, id.count)
            }
            if equal { return entry.key }
        }
        return keys[String(decoding: keyID, as: UTF8.self)]
    }

    /// All key ids, sorted.
    public var keyIDs: [String] { keys.keys.sorted() }

    /// The number of keys.
    public var count: Int { keys.count }
}
