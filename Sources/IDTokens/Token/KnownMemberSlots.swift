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

    init(header: [JSONMember], payload: [JSONMember], in buffer: UnsafeBufferPointer<UInt8>) {
        for (index, member) in header.enumerated() {
            Self.withName(of: member, in: buffer) { name in
                if name.elementsEqual("alg".utf8) {
                    alg = index
                } else if name.elementsEqual("kid".utf8) {
                    kid = index
                } else if name.elementsEqual("crit".utf8) {
                    crit = index
                }
            }
        }
        for (index, member) in payload.enumerated() {
            Self.withName(of: member, in: buffer) { name in
                switch name.count {
                case 3:
                    if name.elementsEqual("aud".utf8) {
                        aud = index
                    } else if name.elementsEqual("iss".utf8) {
                        iss = index
                    } else if name.elementsEqual("sub".utf8) {
                        sub = index
                    } else if name.elementsEqual("exp".utf8) {
                        exp = index
                    } else if name.elementsEqual("iat".utf8) {
                        iat = index
                    } else if name.elementsEqual("nbf".utf8) {
                        nbf = index
                    }
                case 9:
                    if name.elementsEqual("auth_time".utf8) { authTime = index }
                default:
                    break
                }
            }
        }
    }

    /// Calls `body` with the unescaped name of `member`.
    static func withName<R>(of member: JSONMember, in buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let raw = UnsafeBufferPointer(rebasing: buffer[Int(member.keyStart)..<Int(member.keyEnd)])
        guard member.keyHasEscapes else { return body(raw) }
        return JSONString.unescape(raw).withUnsafeBufferPointer(body)
    }
}
