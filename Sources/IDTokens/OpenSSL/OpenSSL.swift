// The only Swift file that imports COpenSSL: a thin layer that turns libcrypto's
// pointers into Swift types. Everything else in IDTokens uses these types.
internal import COpenSSL
import Synchronization

/// Algorithms fetched once per process (OpenSSL 3 fetches are costly; the objects are immutable and thread-safe).
enum OpenSSLAlgorithms {
    nonisolated(unsafe) static let sha256: OpaquePointer = {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("OpenSSL has no SHA256") }
        return md
    }()
}

// MARK: - Public keys

/// An RSA public key (an `EVP_PKEY`) that verifies RS256 signatures on any thread.
///
/// Verification hashes with libcrypto's low-level SHA-256 on a stack context (the EVP digest API allocates,
/// cleanses and frees a provider context on every init), then reuses a pre-initialised `EVP_PKEY_CTX` from a
/// small pool, set up for PKCS#1 v1.5 verification without a digest: it recovers the signed block, checks
/// the type 1 padding and compares what is left with the `DigestInfo` for SHA-256 followed by the hash,
/// exactly as `RSA_verify` does with SHA-256 set, minus its two buffer allocations. A call fetches nothing.
final class OpenSSLPublicKey: @unchecked Sendable {
    /// A verification context; only used by one thread at a time.
    private struct VerifyContext: @unchecked Sendable {
        let pkeyContext: OpaquePointer
    }

    private static let poolLimit = 8
    private let pkey: OpaquePointer
    private let pool = Mutex<[VerifyContext]>([])
    let bits: Int
    let modulusByteCount: Int

    /// Takes ownership of `pkey`; it must be an RSA key.
    private init(owning pkey: OpaquePointer) {
        self.pkey = pkey
        self.bits = Int(EVP_PKEY_get_bits(pkey))
        self.modulusByteCount = Int(EVP_PKEY_get_size(pkey))
    }

    deinit {
        for context in pool.withLock({ $0 }) {
            Self.free(context)
        }
        EVP_PKEY_free(pkey)
    }

    /// The public key of the first certificate in a PEM text.
    static func fromCertificatePEM(_ pem: String) throws(KeySetError) -> OpenSSLPublicKey {
        guard let certificate = withMemoryBIO(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            ERR_clear_error()
            throw .invalidPEM
        }
        defer { X509_free(certificate) }
        guard let pkey = X509_get_pubkey(certificate) else {
            ERR_clear_error()
            throw .invalidPEM
        }
        return try checked(pkey)
    }

    /// A `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) PEM text.
    static func fromPublicKeyPEM(_ pem: String) throws(KeySetError) -> OpenSSLPublicKey {
        guard let pkey = withMemoryBIO(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            ERR_clear_error()
            throw .invalidPEM
        }
        return try checked(pkey)
    }

    private static func checked(_ pkey: OpaquePointer) throws(KeySetError) -> OpenSSLPublicKey {
        guard EVP_PKEY_get_base_id(pkey) == storygate_EVP_PKEY_RSA() else {
            EVP_PKEY_free(pkey)
            throw .notRSA
        }
        let bits = Int(EVP_PKEY_get_bits(pkey))
        guard bits >= 2048 else {
            EVP_PKEY_free(pkey)
            throw .keyTooSmall(bits: bits)
        }
        return OpenSSLPublicKey(owning: pkey)
    }

    /// The SubjectPublicKeyInfo PEM of this key.
    var publicKeyPEM: String {
        withOutputBIO { PEM_write_bio_PUBKEY($0, pkey) == 1 } ?? ""
    }

    /// The DER `DigestInfo` prefix for SHA-256 (RFC 8017 §9.2, note 1): the 32-byte hash follows it.
    private static let sha256DigestInfoPrefix: (UInt64, UInt64, UInt64) = {
        var prefix: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let bytes: [UInt8] = [
            0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
        ]
        withUnsafeMutableBytes(of: &prefix) { $0.copyBytes(from: bytes) }
        return prefix
    }()
    private static let sha256DigestInfoPrefixCount = 19
    private static let sha256DigestInfoCount = 19 + 32

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message`. Fails closed on any OpenSSL error.
    func verifyRS256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == modulusByteCount, let signatureBase = signature.baseAddress else { return false }
        guard let context = pool.withLock({ $0.popLast() }) ?? makeContext() else { return false }
        // The expected recovered block: DigestInfo prefix, then SHA-256(message).
        var expected: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)
        let prefix = Self.sha256DigestInfoPrefix
        expected.0 = prefix.0
        expected.1 = prefix.1
        expected.2 = prefix.2
        let verified = withUnsafeMutableBytes(of: &expected) { expectedBytes -> Int32 in
            let block = expectedBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var hash = SHA256_CTX()
            guard SHA256_Init(&hash) == 1,
                  SHA256_Update(&hash, message.baseAddress, message.count) == 1,
                  SHA256_Final(block + Self.sha256DigestInfoPrefixCount, &hash) == 1
            else { return -1 }
            return EVP_PKEY_verify(
                context.pkeyContext,
                signatureBase.assumingMemoryBound(to: UInt8.self), signature.count,
                block, Self.sha256DigestInfoCount
            )
        }
        if verified != 1 { ERR_clear_error() }
        if verified >= 0 {
            let spare = pool.withLock { pool -> VerifyContext? in
                guard pool.count < Self.poolLimit else { return context }
                pool.append(context)
                return nil
            }
            if let spare { Self.free(spare) }
        } else {
            Self.free(context)
        }
        return verified == 1
    }

    private func makeContext() -> VerifyContext? {
        guard let pkeyContext = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        guard EVP_PKEY_verify_init(pkeyContext) == 1,
              EVP_PKEY_CTX_set_rsa_padding(pkeyContext, storygate_RSA_PKCS1_PADDING()) == 1
        else {
            ERR_clear_error()
            EVP_PKEY_CTX_free(pkeyContext)
            return nil
        }
        return VerifyContext(pkeyContext: pkeyContext)
    }

    private static func free(_ context: VerifyContext) {
        EVP_PKEY_CTX_free(context.pkeyContext)
    }
}

// MARK: - Private keys

/// An RSA private key, for minting development tokens and for tests. Not on any hot path.
final class OpenSSLPrivateKey: @unchecked Sendable {
    private let pkey: OpaquePointer

    private init(owning pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// A PEM private key (PKCS#8 or traditional RSA). Must be RSA.
    static func fromPEM(_ pem: String) throws(KeySetError) -> OpenSSLPrivateKey {
        guard let pkey = withMemoryBIO(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            ERR_clear_error()
            throw .invalidPEM
        }
        guard EVP_PKEY_get_base_id(pkey) == storygate_EVP_PKEY_RSA() else {
            EVP_PKEY_free(pkey)
            throw .notRSA
        }
        return OpenSSLPrivateKey(owning: pkey)
    }

    /// A fresh RSA key with public exponent 65537.
    static func generate(bits: Int) -> OpenSSLPrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { fatalError("OpenSSL: no RSA") }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
              EVP_PKEY_generate(context, &pkey) == 1, let pkey
        else { fatalError("OpenSSL: RSA key generation failed") }
        return OpenSSLPrivateKey(owning: pkey)
    }

    var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }
    var modulusByteCount: Int { Int(EVP_PKEY_get_size(pkey)) }

    /// PKCS#8 PEM, unencrypted.
    var pkcs8PEM: String {
        withOutputBIO { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) == 1 } ?? ""
    }

    /// The SubjectPublicKeyInfo PEM of the public half.
    var publicKeyPEM: String {
        withOutputBIO { PEM_write_bio_PUBKEY($0, pkey) == 1 } ?? ""
    }

    /// A self-signed X.509 v3 certificate for the public half, signed with SHA-256.
    func selfSignedCertificatePEM(commonName: String, validDays: Int) -> String {
        guard let certificate = X509_new() else { fatalError("OpenSSL: X509_new failed") }
        defer { X509_free(certificate) }
        let name = X509_get_subject_name(certificate)
        guard X509_set_version(certificate, 2) == 1,
              ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int(Int32.max))) == 1,
              X509_gmtime_adj(X509_getm_notBefore(certificate), 0) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 86_400) != nil,
              X509_set_pubkey(certificate, pkey) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", storygate_MBSTRING_ASC(), commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1,
              X509_sign(certificate, pkey, OpenSSLAlgorithms.sha256) > 0
        else { fatalError("OpenSSL: could not build a certificate") }
        return withOutputBIO { PEM_write_bio_X509($0, certificate) == 1 } ?? ""
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    func signRS256(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { fatalError("OpenSSL: EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: modulusByteCount)
        var length = signature.count
        let ok = message.withUnsafeBufferPointer { input in
            EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, pkey, nil) == 1
                && EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count) == 1
        }
        guard ok else { fatalError("OpenSSL: RS256 signing failed") }
        return Array(signature.prefix(length))
    }

    /// `block^d mod n` with no padding; `block` must be exactly the modulus length and below the modulus.
    func rawPrivateOperation(_ block: [UInt8]) -> [UInt8] {
        precondition(block.count == modulusByteCount, "the block must be as long as the modulus")
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { fatalError("OpenSSL: no context") }
        defer { EVP_PKEY_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: modulusByteCount)
        var length = output.count
        guard EVP_PKEY_decrypt_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, storygate_RSA_NO_PADDING()) == 1,
              EVP_PKEY_decrypt(context, &output, &length, block, block.count) == 1
        else { fatalError("OpenSSL: raw RSA private operation failed (is the block below the modulus?)") }
        return Array(output.prefix(length))
    }
}

// MARK: - BIO helpers

/// Runs `body` with a read-only memory BIO over `text`.
private func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T?) -> T? {
    var text = text
    return text.withUTF8 { bytes -> T? in
        guard bytes.count < Int(Int32.max), let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else {
            return nil
        }
        defer { BIO_free(bio) }
        return body(bio)
    }
}

/// Runs `write` against a fresh memory BIO and returns what it wrote, or nil when it failed.
private func withOutputBIO(_ write: (OpaquePointer) -> Bool) -> String? {
    guard let bio = BIO_new(BIO_s_mem()) else { return nil }
    defer { BIO_free(bio) }
    guard write(bio) else {
        ERR_clear_error()
        return nil
    }
    var data: UnsafeMutablePointer<CChar>?
    let length = storygate_BIO_get_mem_data(bio, &data)
    guard let data, length > 0 else { return nil }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
}

/// One-shot SHA-256 (user-id hashing; not on the token hot path).
enum OpenSSLDigest {
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, OpenSSLAlgorithms.sha256, nil)
        }
        precondition(ok == 1 && length == 32, "SHA-256 failed")
        return digest
    }
}

/// HMAC-SHA256 and a constant-time comparison, for identity assertions.
enum OpenSSLHMAC {
    static let sha256Length = 32

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`, written to `output` (32 bytes). False when OpenSSL fails.
    static func sha256(
        key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        guard output.count >= Self.sha256Length, key.count < Int(Int32.max), let outputBase = output.baseAddress else { return false }
        var length: UInt32 = 0
        // HMAC tolerates NULL for an empty message, not for the key: pass a valid pointer either way.
        let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) { spare in
            HMAC(
                OpenSSLAlgorithms.sha256, key.baseAddress ?? UnsafeRawPointer(spare.baseAddress!), Int32(key.count),
                message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(spare.baseAddress!), message.count,
                outputBase.assumingMemoryBound(to: UInt8.self), &length
            )
        }
        guard result != nil, length == UInt32(Self.sha256Length) else {
            ERR_clear_error()
            return false
        }
        return true
    }
}
