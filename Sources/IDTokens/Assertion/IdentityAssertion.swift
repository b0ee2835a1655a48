/// A gateway's signed statement "this request comes from user `uid`", for upstreams behind it: a header value
/// that only holders of the shared key can produce, so nobody who reaches an upstream directly can spoof it.
///
/// Format (version 1), all ASCII:
///
///     v1.<ts>.<uid>.<rid>.<mac>
///
/// - `ts`: the issue time, Unix seconds in decimal (1 to 12 digits, no sign, no leading zero);
/// - `uid`, `rid`: base64url without padding (RFC 4648 §5) of the UTF-8 uid (1 to 512 bytes) and request id
///   (1 to 128 bytes);
/// - `mac`: base64url without padding of HMAC-SHA256(key, `v1.<ts>.<uid>.<rid>`), the 32-byte MAC over every
///   character before the last `.`.
///
/// Verification is strict (one accepted encoding per value, like `Base64URL`), compares the MAC in constant
/// time, and then checks the age: at most `maxAge` seconds old and at most `futureSkew` seconds ahead.
/// An assertion can be replayed within `maxAge`, so keep it short and keep the hop private.
public struct IdentityAssertion: Sendable, Equatable {
    /// The user the gateway verified.
    public let uid: String
    /// The gateway's request id (for correlating logs across hops).
    public let requestID: String
    /// Unix seconds when the assertion was made.
    public let issuedAt: Int

    public init(uid: String, requestID: String, issuedAt: Int) {
        self.uid = uid
        self.requestID = requestID
        self.issuedAt = issuedAt
    }

    /// The version prefix this type writes and reads.
    public static let version = "v1"
    /// Default accepted age in seconds.
    public static let defaultMaxAge: Double = 60
    /// Default tolerance for an issuer's clock running ahead, in seconds.
    public static let defaultFutureSkew: Double = 5
    /// The longest header value read (a 128-character uid of 4-byte characters and a 128-byte id fit).
    public static let maximumLength = 1024
    static let maximumUIDBytes = 512
    static let maximumRequestIDBytes = 128

    /// The header value asserting `uid` for `requestID` at `now` (Unix seconds; the fraction is dropped).
    public static func sign(uid: String, requestID: String, now: Double, key: IdentityAssertionKey) -> String {
        var text = Self.version
        text += "."
        text += String(Int(now.rounded(.down)))
        text += "."
        text += Base64URL.encode(uid.utf8)
        text += "."
        text += Base64URL.encode(requestID.utf8)
        guard let mac = Self.mac(of: text, key: key) else { fatalError("OpenSSL: HMAC-SHA256 failed") }
        text += "."
        text += Base64URL.encode(mac)
        return text
    }

    /// The assertion in `header`, if it is well formed, made with `key`, and fresh at `now`.
    public static func verify(
        header: some StringProtocol, key: IdentityAssertionKey, now: Double,
        maxAge: Double = Self.defaultMaxAge, futureSkew: Double = Self.defaultFutureSkew
    ) throws(IdentityAssertionError) -> IdentityAssertion {
        let text = Substring(header)
        let utf8 = text.utf8
        guard utf8.count <= Self.maximumLength else { throw .init(.malformed, "The identity assertion is too long.") }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 5 else { throw .init(.malformed, "The identity assertion does not have five parts.") }
        guard parts[0].elementsEqual(Self.version.utf8) else {
            throw .init(.unsupportedVersion, "The identity assertion's version is not supported.")
        }
        guard let issuedAt = Self.timestamp(parts[1]) else {
            throw .init(.malformed, "The identity assertion's time is not a canonical decimal number.")
        }
        guard let uidBytes = Base64URL.decode(Substring(parts[2])), (1...Self.maximumUIDBytes).contains(uidBytes.count),
            let uid = String(validating: uidBytes, as: UTF8.self)
        else { throw .init(.malformed, "The identity assertion's uid is not valid base64url UTF-8 of 1 to 512 bytes.") }
        guard let idBytes = Base64URL.decode(Substring(parts[3])), (1...Self.maximumRequestIDBytes).contains(idBytes.count),
            let requestID = String(validating: idBytes, as: UTF8.self)
        else { throw .init(.malformed, "The identity assertion's request id is not valid base64url UTF-8 of 1 to 128 bytes.") }
        guard let presented = Base64URL.decode(Substring(parts[4])), presented.count == OpenSSLHMAC.sha256Length else {
            throw .init(.malformed, "The identity assertion's MAC is not 32 bytes of base64url.")
        }
        // The MAC covers every byte before the last dot.
        let signed = Substring(utf8[utf8.startIndex..<utf8.index(before: parts[4].startIndex)])
        guard let expected = Self.mac(of: signed, key: key) else {
            throw .init(.badSignature, "The identity assertion's MAC could not be computed.")
        }
        let matches = expected.withUnsafeBytes { expected in
            presented.withUnsafeBytes { presented in ConstantTime.equals(expected, presented) }
        }
        guard matches else { throw .init(.badSignature, "The identity assertion's MAC does not match.") }
        guard Double(issuedAt) <= now + futureSkew else {
            throw .init(.issuedInFuture, "The identity assertion was issued in the future.")
        }
        guard now - Double(issuedAt) <= maxAge else { throw .init(.expired, "The identity assertion has expired.") }
        return IdentityAssertion(uid: uid, requestID: requestID, issuedAt: issuedAt)
    }

    /// 1 to 12 decimal digits without a leading zero ("0" itself is allowed).
    private static func timestamp(_ digits: Substring.UTF8View) -> Int? {
        guard (1...12).contains(digits.count), digits.count == 1 || digits.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// HMAC-SHA256 of the UTF-8 of `text`; nil only when OpenSSL fails.
    private static func mac(of text: some StringProtocol, key: IdentityAssertionKey) -> [UInt8]? {
        var message = String(text)
        var mac = [UInt8](repeating: 0, count: OpenSSLHMAC.sha256Length)
        let ok = message.withUTF8 { message in
            key.bytes.withUnsafeBytes { key in
                mac.withUnsafeMutableBytes { output in
                    OpenSSLHMAC.sha256(key: key, message: UnsafeRawBufferPointer(message), into: output)
                }
            }
        }
        return ok ? mac : nil
    }
}
