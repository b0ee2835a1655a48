/// Where the header parameters and claims that the rules read sit in a decoded token, found in one pass.
struct KnownMemberSlots: Sendable {
    var alg: Int?
    var kid: Int?
    var crit: Int?
    var aud: Int?
    var iss: Int?
    var sub: Int?
    var exp: Int?
    var iat: Int?
    var authTime: Int?
    var nbf: Int?

    // Names of three and four bytes packed little-endian into integers, with the length in the top byte, so matching
    // is one comparison and a name is never taken for a shorter one (`"sub\u0000"`, four bytes once unescaped, is
    // not `sub`: RFC 7515 §4 and RFC 7519 §4 compare names as exact strings).
    private static let algName: UInt64 = 0x0300_0000_0067_6C61  // 3, "alg"
    private static let kidName: UInt64 = 0x0300_0000_0064_696B  // 3, "kid"
    private static let critName: UInt64 = 0x0400_0000_7469_7263 // 4, "crit"
    private static let audName: UInt64 = 0x0300_0000_0064_7561  // 3, "aud"
    private static let issName: UInt64 = 0x0300_0000_0073_7369  // 3, "iss"
    private static let subName: UInt64 = 0x0300_0000_0062_7573  // 3, "sub"
    private static let expName: UInt64 = 0x0300_0000_0070_7865  // 3, "exp"
    private static let iatName: UInt64 = 0x0300_0000_0074_6169  // 3, "iat"
    private static let nbfName: UInt64 = 0x0300_0000_0066_626E  // 3, "nbf"
    /// The first eight bytes of the nine of "auth_time" (whose length is checked apart).
    private static let authTimName: UInt64 = 0x6D69_745F_6874_7561  // "auth_tim" (+ "e")

    init(members: [JSONMember], headerMemberCount: Int, in buffer: UnsafeBufferPointer<UInt8>) {
        for index in members.indices {
            let member = members[index]
            let isHeader = index < headerMemberCount
            if !member.keyHasEscapes {
                let length = Int(member.keyEnd - member.keyStart)
                guard length == 3 || length == 4 || length == 9 else { continue }
                // Every name is followed by at least `"`, `:`, one value byte and `}` or `,` inside the
                // document, so eight bytes from its start are readable; the mask keeps only the name.
                let word = UInt64(littleEndian: UnsafeRawPointer(buffer.baseAddress! + Int(member.keyStart)).loadUnaligned(as: UInt64.self))
                if length == 9 {
                    if !isHeader, word == Self.authTimName, buffer[Int(member.keyStart) + 8] == UInt8(ascii: "e") {
                        authTime = index
                    }
                } else {
                    record(word & (length == 3 ? 0xFF_FFFF : 0xFFFF_FFFF) | UInt64(length) << 56, index: index, isHeader: isHeader)
                }
            } else {
                // Rare: an escaped name is compared after unescaping.
                Self.withName(of: member, in: buffer) { name in
                    if name.count == 3 || name.count == 4 {
                        record(Self.pack(name) | UInt64(name.count) << 56, index: index, isHeader: isHeader)
                    } else if name.count == 9, !isHeader, name[8] == UInt8(ascii: "e"),
                              Self.pack(UnsafeBufferPointer(rebasing: name[0..<8])) == Self.authTimName {
                        authTime = index
                    }
                }
            }
        }
    }

    @inline(__always)
    private mutating func record(_ name: UInt64, index: Int, isHeader: Bool) {
        if isHeader {
            switch name {
            case Self.algName: alg = index
            case Self.kidName: kid = index
            case Self.critName: crit = index
            default: break
            }
        } else {
            switch name {
            case Self.audName: aud = index
            case Self.issName: iss = index
            case Self.subName: sub = index
            case Self.expName: exp = index
            case Self.iatName: iat = index
            case Self.nbfName: nbf = index
            default: break
            }
        }
    }

    /// Up to 8 bytes as a little-endian integer.
    @inline(__always)
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for (offset, byte) in bytes.prefix(8).enumerated() {
            value |= UInt64(byte) << (offset * 8)
        }
        return value
    }

    /// Calls `body` with the unescaped name of `member`.
    @inline(__always)
    static func withName<R>(of member: JSONMember, in buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let raw = UnsafeBufferPointer(start: buffer.baseAddress! + Int(member.keyStart), count: Int(member.keyEnd - member.keyStart))
        guard member.keyHasEscapes else { return body(raw) }
        return JSONString.unescape(raw).withUnsafeBufferPointer(body)
    }
}
