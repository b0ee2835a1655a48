extension KeySet {
    /// A JSON Web Key Set (RFC 7517 §5) of RSA signing keys, as Firebase App Check serves it:
    /// `{"keys":[{"kty":"RSA","kid":"…","n":"…","e":"…","alg":"RS256","use":"sig"}, …]}`.
    ///
    /// A key is used when `kty` is `"RSA"`, `kid` a non-empty string, `n` and `e` strict unpadded base64url of an
    /// RSA key of at least 2048 bits, and `alg` and `use`, when present, `"RS256"` and `"sig"`. Other keys are
    /// skipped and listed in `skippedKeyIDs` (by `kid`, or `#<index>` without one), and so is every key of a `kid`
    /// that appears twice. A document that is not a strict JSON object with a `keys` array of objects, or that holds
    /// no usable key, throws.
    public init(jwks bytes: some Collection<UInt8>) throws(KeySetError) {
        let document = Array(bytes)
        let parsed = document.withUnsafeBufferPointer { buffer -> (keys: [String: RSAPublicKey], skipped: [String])? in
            guard let members = try? JSONParser.parseObject(buffer, range: 0..<buffer.count),
                  let keysMember = members.first(where: { Self.name(of: $0, in: buffer) == "keys" }), keysMember.kind == .array,
                  let elements = try? JSONParser.parseArray(buffer, range: Int(keysMember.valueStart)..<Int(keysMember.valueEnd))
            else { return nil }
            var keys: [String: RSAPublicKey] = [:]
            var skipped: Set<String> = []
            var seen: Set<String> = []
            for (index, element) in elements.enumerated() {
                guard element.kind == .object,
                      let fields = try? JSONParser.parseObject(buffer, range: Int(element.valueStart)..<Int(element.valueEnd))
                else { return nil }
                let strings = Self.stringMembers(fields, in: buffer)
                guard let keyID = strings["kid"], !keyID.isEmpty else {
                    skipped.insert("#\(index)")
                    continue
                }
                guard seen.insert(keyID).inserted else {
                    keys[keyID] = nil
                    skipped.insert(keyID)
                    continue
                }
                guard let key = Self.rsaKey(strings, fields: fields, in: buffer) else {
                    skipped.insert(keyID)
                    continue
                }
                keys[keyID] = key
            }
            return (keys, skipped.sorted())
        }
        guard let parsed else { throw .invalidJWKS }
        guard !parsed.keys.isEmpty else { throw .noUsableKeys }
        self.init(keys: parsed.keys, skippedKeyIDs: parsed.skipped)
    }

    /// The key a JWK's string members describe, or nil when it is not a usable RS256 signing key. Every member the
    /// rules read must be a string: `stringMembers` leaves out the others, and `fields` tells a non-string apart.
    private static func rsaKey(_ strings: [String: String], fields: [JSONMember], in buffer: UnsafeBufferPointer<UInt8>) -> RSAPublicKey? {
        for name in ["alg", "use"] where strings[name] == nil {
            guard !fields.contains(where: { Self.name(of: $0, in: buffer) == name }) else { return nil }
        }
        guard strings["kty"] == "RSA", strings["alg"].map({ $0 == "RS256" }) ?? true, strings["use"].map({ $0 == "sig" }) ?? true,
              let modulus = strings["n"].flatMap(Base64URL.decode), let exponent = strings["e"].flatMap(Base64URL.decode)
        else { return nil }
        return try? RSAPublicKey(modulus: modulus, exponent: exponent)
    }

    private static func name(of member: JSONMember, in buffer: UnsafeBufferPointer<UInt8>) -> String {
        KnownMemberSlots.withName(of: member, in: buffer) { String(decoding: $0, as: UTF8.self) }
    }

    /// The object's string members by name (the parser refused duplicate names).
    private static func stringMembers(_ fields: [JSONMember], in buffer: UnsafeBufferPointer<UInt8>) -> [String: String] {
        var strings: [String: String] = [:]
        for field in fields where field.kind == .string {
            let raw = UnsafeBufferPointer(rebasing: buffer[Int(field.valueStart)..<Int(field.valueEnd)])
            strings[Self.name(of: field, in: buffer)] = JSONString.string(raw, hasEscapes: field.valueHasEscapes)
        }
        return strings
    }
}
