import HTTPTypes

/// Where a request's credentials are: the extractor of Envoy's jwt_authn. Only the `Authorization` header is
/// read (RFC 6750 §2.1); tokens in query strings or cookies are never looked at.
enum Credentials: Equatable {
    case none
    case bearer(Substring)
    /// A malformed `Authorization: Bearer` value; the reason is client-safe.
    case malformedBearer(String)
    case devUserID(String)
    /// A signed identity assertion (only looked for when the gateway has an assertion key).
    case assertion(String)

    static let maximumAuthorizationLength = 16 * 1024
    static let userIDHeader = HTTPField.Name("X-User-Id")!

    /// Reads the credentials of a request, in order: the `Authorization` header (a bearer token always wins);
    /// the identity assertion header, when `assertionHeader` is set (an assertion key is configured); then
    /// `X-User-Id`, when `trustUserIDHeader` (dev mode). `authorization` is the `Authorization` value when the
    /// caller kept it apart from `headers` (which then hold none).
    /// - Parameter checkingToken68: false leaves a bearer token's characters to the caller (``isToken68(_:)``): the
    ///   authenticator checks them only when the verified-token cache does not hold the token, since a token it holds
    ///   was verified, and verification reads only base64url and dots.
    static func extract(
        from headers: HTTPFields, authorization kept: String? = nil, trustUserIDHeader: Bool, assertionHeader: HTTPField.Name? = nil,
        checkingToken68: Bool = true
    ) throws(GatewayError) -> Credentials {
        if let kept { return Self.parseAuthorization(kept, checkingToken68: checkingToken68) }
        switch headers.sole(.authorization) {
        case .one(let value): return Self.parseAuthorization(value, checkingToken68: checkingToken68)
        case .several: throw .multipleAuthorizationHeaders()
        case .absent: break
        }
        if let assertionHeader {
            switch headers.sole(assertionHeader) {
            case .one(let assertion): return .assertion(assertion)
            case .several: throw .invalidToken("Send at most one identity assertion.", reason: "assertion_multiple")
            case .absent: break
            }
        }
        guard trustUserIDHeader else { return .none }
        switch headers.sole(Self.userIDHeader) {
        case .absent:
            return .none
        case .one(let userID) where Self.isAcceptableUserID(userID):
            return .devUserID(userID)
        case .one, .several:
            throw .invalidArgument(
                "X-User-Id must be one header of 1 to 128 characters from A-Z a-z 0-9 - _ . : @", reason: "invalid_user_id"
            )
        }
    }

    /// `credentials = auth-scheme 1*SP token68` with a case-insensitive `Bearer` scheme (RFC 9110 §11.4, RFC 6750 §2.1).
    /// Another scheme counts as no bearer credentials.
    static func parseAuthorization(_ value: String, checkingToken68: Bool = true) -> Credentials {
        let utf8 = value.utf8
        guard utf8.count <= Self.maximumAuthorizationLength else { return .malformedBearer("The bearer token is too large.") }
        guard utf8.count >= 6,
            utf8.prefix(6).elementsEqual("bearer".utf8, by: { ($0 | 0x20) == $1 })
        else { return .none }
        var index = utf8.index(utf8.startIndex, offsetBy: 6)
        guard index < utf8.endIndex, utf8[index] == UInt8(ascii: " ") else {
            // `Bearer` alone, or a longer scheme name such as `Bearerx`.
            return index == utf8.endIndex ? .malformedBearer("The bearer token is missing.") : .none
        }
        while index < utf8.endIndex, utf8[index] == UInt8(ascii: " ") { index = utf8.index(after: index) }
        let token = Substring(value.utf8[index...])
        guard !token.isEmpty else { return .malformedBearer("The bearer token is missing.") }
        guard !checkingToken68 || Self.isToken68(token) else { return .malformedBearer(Self.notToken68) }
        return .bearer(token)
    }

    /// token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" (RFC 9110 §11.2). Runs on every
    /// authenticated request over ~1 KB, so it reads contiguous bytes against a table.
    static func isToken68(_ token: Substring) -> Bool {
        token.utf8.withContiguousStorageIfAvailable(Self.isToken68) ?? Array(token.utf8).withUnsafeBufferPointer(Self.isToken68)
    }

    /// Why a bearer token that is not token68 is refused.
    static let notToken68 = "The bearer token has characters a token cannot have."

    private static func isToken68(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.token68Bytes.withUnsafeBufferPointer { table in
            // One load per byte, no branch on the byte's range (a 256-entry table, indexed by any byte).
            guard let table = table.baseAddress, let start = bytes.baseAddress else { return bytes.isEmpty }
            let count = bytes.count
            var index = 0
            while index < count, table[Int(start[index])] { index += 1 }
            // Then only `=` padding, to the end.
            while index < count, start[index] == UInt8(ascii: "=") { index += 1 }
            return index == count
        }
    }

    /// Whether each byte is a token68 character (`=` padding apart).
    private static let token68Bytes: [Bool] = (0...255).map { (byte: UInt8) in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// 1 to 128 characters of `A-Z a-z 0-9 - _ . : @` (Firebase uids are at most 128 characters).
    static func isAcceptableUserID(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard (1...128).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }
}
