/// Typed access to the header, claims, signing input and signature.
extension DecodedToken {
    /// The header's `alg` when it is a string.
    public var algorithm: String? { string(slots.alg) }
    /// The header's `kid` when it is a string.
    public var keyID: String? { string(slots.kid) }
    /// Whether the header has a `crit` parameter (whatever its value).
    public var hasCriticalHeader: Bool { slots.crit != nil }

    /// `aud` when it is a string.
    public var audience: String? { string(slots.aud) }
    /// `iss` when it is a string.
    public var issuer: String? { string(slots.iss) }
    /// `sub` when it is a string.
    public var subject: String? { string(slots.sub) }
    /// `exp` when it is a finite number.
    public var expiresAt: Double? { number(slots.exp) }
    /// `iat` when it is a finite number.
    public var issuedAt: Double? { number(slots.iat) }
    /// `auth_time` when it is a finite number.
    public var authTime: Double? { number(slots.authTime) }
    /// `nbf` when it is a finite number.
    public var notBefore: Double? { number(slots.nbf) }

    /// The decoded header JSON text.
    public var headerJSON: String { String(decoding: storage[headerRange], as: UTF8.self) }
    /// The decoded payload JSON text, exactly as signed.
    public var payloadJSON: String { String(decoding: storage[payloadRange], as: UTF8.self) }
    /// The bytes the signature covers: the token's ASCII up to (not including) the second dot.
    public var signingInput: [UInt8] {
        precondition(storesSigningInput, "decoded without its signing input")
        return Array(storage[0..<signingInputCount])
    }
    /// The decoded signature bytes.
    public var signature: [UInt8] { Array(storage[signatureRange]) }

    /// The payload claim `name`, or nil when absent.
    public func claim(_ name: String) -> ClaimValue? { value(named: name, in: payload) }
    /// The header parameter `name`, or nil when absent.
    public func headerParameter(_ name: String) -> ClaimValue? { value(named: name, in: header) }

    /// The names of all payload claims, in order.
    public var claimNames: [String] {
        storage.withUnsafeBufferPointer { buffer in
            payload.map { member in KnownMemberSlots.withName(of: member, in: buffer) { String(decoding: $0, as: UTF8.self) } }
        }
    }

    // MARK: Internal fast access

    /// The kind of member `slot`, or nil when absent.
    func kind(_ slot: Int?) -> JSONKind? {
        slot.map { members[$0].kind }
    }

    /// String member `slot`, unescaped; nil when absent or not a string.
    func string(_ slot: Int?) -> String? {
        guard let slot, members[slot].kind == .string else { return nil }
        let member = members[slot]
        return storage.withUnsafeBufferPointer { buffer in
            JSONString.string(valueBytes(member, buffer), hasEscapes: member.valueHasEscapes)
        }
    }

    func number(_ slot: Int?) -> Double? {
        guard let slot, members[slot].kind == .number else { return nil }
        let member = members[slot]
        return storage.withUnsafeBufferPointer { JSONNumber.double(valueBytes(member, $0)) }
    }

    /// Whether string member `slot` equals `expected` (after unescaping), without allocating
    /// in the common unescaped case. False when absent or not a string.
    func stringEquals(_ slot: Int?, _ expected: [UInt8]) -> Bool {
        guard let slot, members[slot].kind == .string else { return false }
        let member = members[slot]
        return storage.withUnsafeBufferPointer { buffer in
            let raw = valueBytes(member, buffer)
            if member.valueHasEscapes {
                return JSONString.unescape(raw) == expected
            }
            guard raw.count == expected.count else { return false }
            return expected.withUnsafeBufferPointer { memoryEqual(raw.baseAddress!, $0.baseAddress!, raw.count) }
        }
    }

    /// Calls `body` with the unescaped bytes of string member `slot`; nil when absent or not a string.
    func withStringBytes<R>(_ slot: Int?, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let slot, members[slot].kind == .string else { return nil }
        let member = members[slot]
        return storage.withUnsafeBufferPointer { buffer in
            let raw = valueBytes(member, buffer)
            guard member.valueHasEscapes else { return body(raw) }
            return JSONString.unescape(raw).withUnsafeBufferPointer(body)
        }
    }

    /// The byte length of string member `slot` (after unescaping) and its count of Unicode scalars.
    func stringLength(_ slot: Int) -> (bytes: Int, scalars: Int) {
        let member = members[slot]
        return storage.withUnsafeBufferPointer { buffer in
            let raw = valueBytes(member, buffer)
            let count = { (bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int) in
                // Continuation bytes (10xxxxxx) do not start a scalar.
                var scalars = 0
                for byte in bytes where byte & 0xC0 != 0x80 { scalars += 1 }
                return (bytes.count, scalars)
            }
            if member.valueHasEscapes {
                return JSONString.unescape(raw).withUnsafeBufferPointer(count)
            }
            return count(raw)
        }
    }

    @inline(__always)
    func valueBytes(_ member: JSONMember, _ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[Int(member.valueStart)..<Int(member.valueEnd)])
    }

    private func value(named name: String, in members: ArraySlice<JSONMember>) -> ClaimValue? {
        let wanted = Array(name.utf8)
        return storage.withUnsafeBufferPointer { buffer -> ClaimValue? in
            // The parser refused duplicates, so the first match is the only one.
            guard let member = members.first(where: { member in
                KnownMemberSlots.withName(of: member, in: buffer) { $0.elementsEqual(wanted) }
            }) else { return nil }
            let bytes = valueBytes(member, buffer)
            switch member.kind {
            case .string: return .string(JSONString.string(bytes, hasEscapes: member.valueHasEscapes))
            case .number: return .number(JSONNumber.double(bytes) ?? Double(String(decoding: bytes, as: UTF8.self)) ?? .nan)
            case .true: return .bool(true)
            case .false: return .bool(false)
            case .null: return .null
            case .object: return .object(json: String(decoding: bytes, as: UTF8.self))
            case .array: return .array(json: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}
