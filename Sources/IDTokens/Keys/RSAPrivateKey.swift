/// An RSA private key, for `storygate mint-token` (development tokens) and for tests. Never on a hot path.
public struct RSAPrivateKey: Sendable {
    let key: OpenSSLPrivateKey

    /// A PEM-encoded RSA private key, PKCS#8 or PKCS#1; must be RSA.
    public init(pem: String) throws(KeySetError) {
        self.key = try OpenSSLPrivateKey.fromPEM(pem)
    }

    private init(key: OpenSSLPrivateKey) {
        self.key = key
    }

    /// A fresh key, by default with public exponent 65537 (`publicExponent` is big-endian and must be odd and
    /// above 1). Slow (tens of milliseconds for 2048 bits).
    public static func generate(bits: Int = 2048, publicExponent: [UInt8] = [0x01, 0x00, 0x01]) -> RSAPrivateKey {
        RSAPrivateKey(key: .generate(bits: bits, publicExponent: publicExponent))
    }

    /// The unencrypted PKCS#8 PEM.
    public var pem: String { key.pkcs8PEM }

    /// The key size in bits.
    public var bits: Int { key.bits }

    /// The SubjectPublicKeyInfo PEM of the public half.
    public var publicKeyPEM: String { key.publicKeyPEM }

    /// The public half, for verification. Throws `keyTooSmall` for keys under 2048 bits.
    public func publicKey() throws(KeySetError) -> RSAPublicKey {
        try RSAPublicKey(publicKeyPEM: key.publicKeyPEM)
    }

    /// A self-signed X.509 v3 certificate (SHA-256) for the public half, valid from now for `validDays`.
    public func selfSignedCertificatePEM(commonName: String, validDays: Int = 3650) -> String {
        key.selfSignedCertificatePEM(commonName: commonName, validDays: validDays)
    }

    /// An RS256 (RSASSA-PKCS1-v1_5, SHA-256) signature of `message`.
    public func signRS256(_ message: some Collection<UInt8>) -> [UInt8] {
        key.signRS256(Array(message))
    }

    /// `block^d mod n` with no padding. `block` must be exactly the modulus length and numerically below the
    /// modulus (start it with 0x00). Lets tests craft defective PKCS#1 v1.5 encodings.
    public func rawPrivateOperation(_ block: [UInt8]) -> [UInt8] {
        key.rawPrivateOperation(block)
    }

    /// The modulus length in bytes.
    public var modulusByteCount: Int { key.modulusByteCount }
}
