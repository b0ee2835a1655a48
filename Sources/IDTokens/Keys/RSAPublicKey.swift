/// An RSA public key (at least 2048 bits) that verifies RS256 signatures; safe to share across threads.
public final class RSAPublicKey: Sendable {
    let key: OpenSSLPublicKey

    init(key: OpenSSLPublicKey) {
        self.key = key
    }

    /// The public key of an X.509 certificate in PEM form. Throws for non-RSA keys and keys under 2048 bits.
    public convenience init(x509PEM: String) throws(KeySetError) {
        self.init(key: try OpenSSLPublicKey.fromCertificatePEM(x509PEM))
    }

    /// A `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) PEM. Throws for non-RSA keys and keys under 2048 bits.
    public convenience init(publicKeyPEM: String) throws(KeySetError) {
        self.init(key: try OpenSSLPublicKey.fromPublicKeyPEM(publicKeyPEM))
    }

    /// A JWK's RSA components (RFC 7518 §6.3.1): the modulus `n` and public exponent `e`, big-endian. Throws for
    /// keys under 2048 bits and exponents that cannot verify.
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws(KeySetError) {
        self.init(key: try OpenSSLPublicKey.fromRSAComponents(modulus: modulus, exponent: exponent))
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256. False unless `signature` is exactly `modulusByteCount` bytes and valid.
    public func verifyRS256(signature: some Collection<UInt8>, signedBytes: some Collection<UInt8>) -> Bool {
        let verify = { (signature: UnsafeBufferPointer<UInt8>) -> Bool in
            signedBytes.withContiguousStorageIfAvailable {
                self.key.verifyRS256(signature: UnsafeRawBufferPointer(signature), message: UnsafeRawBufferPointer($0))
            } ?? Array(signedBytes).withUnsafeBufferPointer {
                self.key.verifyRS256(signature: UnsafeRawBufferPointer(signature), message: UnsafeRawBufferPointer($0))
            }
        }
        return signature.withContiguousStorageIfAvailable(verify) ?? Array(signature).withUnsafeBufferPointer(verify)
    }

    /// The modulus length in bytes, which is also the length of every valid signature.
    public var modulusByteCount: Int { key.modulusByteCount }

    /// The modulus `n`, big-endian, `modulusByteCount` bytes (public, as in a JWK's `n`).
    public var modulus: [UInt8] { key.modulusBytes }

    /// The public exponent `e`, big-endian, without leading zero bytes (as in a JWK's `e`).
    public var exponent: [UInt8] { key.exponentBytes }

    /// The key size in bits.
    public var bits: Int { key.bits }

    /// The SubjectPublicKeyInfo PEM of this key.
    public var publicKeyPEM: String { key.publicKeyPEM }
}
