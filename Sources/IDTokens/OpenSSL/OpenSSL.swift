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
/// Verification is RSASSA-PKCS1-v1_5 as RFC 8017 §8.2.2 writes it, on libcrypto's big-number arithmetic: the
/// signature must be exactly the modulus length and below the modulus (RSAVP1), `s^e mod n` is computed with
/// libcrypto's Montgomery multiplication and a context made once per key (`power`), and the result must equal,
/// byte for byte, the EMSA-PKCS1-v1_5 encoding of the message's SHA-256 (`00 01 FF…FF 00`, the SHA-256
/// `DigestInfo`, the hash). Comparing the whole encoding, rather than parsing the recovered block, is the RFC's own
/// method and leaves no room for lenient parsing.
///
/// The EVP route (`EVP_PKEY_verify`) does the same arithmetic but, per call, allocates and frees a `BN_CTX`,
/// takes the key's lock to find its cached Montgomery context, and goes through the provider: about 2 µs of a
/// 2048-bit verification's 17.5 on the benchmark machine (`bench/rsa/floor.c`). Here the immutable modulus,
/// exponent and Montgomery context are shared (libcrypto only reads them), and each thread borrows a `BN_CTX`
/// and three scratch numbers from a small pool. SHA-256 runs on a stack context. A call fetches nothing.
final class OpenSSLPublicKey: @unchecked Sendable {
    /// Scratch space for one verification; only used by one thread at a time.
    private struct VerifyContext: @unchecked Sendable {
        let numbers: OpaquePointer
        let signature: OpaquePointer
        let recovered: OpaquePointer
        /// The signature in Montgomery form.
        let montgomerySignature: OpaquePointer
    }

    private static let poolLimit = 8
    /// The largest modulus OpenSSL's own RSA code accepts (`OPENSSL_RSA_MAX_MODULUS_BITS`).
    private static let maxModulusBits = 16_384
    private let pkey: OpaquePointer
    private let modulus: OpaquePointer
    private let exponent: OpaquePointer
    private let montgomery: OpaquePointer
    /// The exponent when it fits in 32 bits (65537 for Google's keys), for `power`'s own chain.
    private let smallExponent: UInt32?
    private let pool = Mutex<[VerifyContext]>([])
    let bits: Int
    let modulusByteCount: Int
    /// The encoded message up to the hash, the same for every signature under this key: `00 01 FF…FF 00` and the
    /// SHA-256 `DigestInfo` (RFC 8017 §9.2).
    private let encodingPrefix: [UInt8]

    /// Takes ownership of all four.
    private init(owning pkey: OpaquePointer, modulus: OpaquePointer, exponent: OpaquePointer, montgomery: OpaquePointer) {
        self.pkey = pkey
        self.modulus = modulus
        self.exponent = exponent
        self.montgomery = montgomery
        self.smallExponent = BN_num_bits(exponent) <= 32 ? UInt32(BN_get_word(exponent)) : nil
        self.bits = Int(BN_num_bits(modulus))
        self.modulusByteCount = (Int(BN_num_bits(modulus)) + 7) / 8
        let padding = self.modulusByteCount - 3 - Self.sha256DigestInfoPrefix.count - 32
        self.encodingPrefix = [0x00, 0x01] + [UInt8](repeating: 0xFF, count: padding) + [0x00] + Self.sha256DigestInfoPrefix
    }

    deinit {
        for context in pool.withLock({ $0 }) {
            Self.free(context)
        }
        BN_MONT_CTX_free(montgomery)
        BN_free(exponent)
        BN_free(modulus)
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

    /// An RSA key from its big-endian modulus and public exponent (a JWK's `n` and `e`, RFC 7518 §6.3.1).
    static func fromRSAComponents(modulus: [UInt8], exponent: [UInt8]) throws(KeySetError) -> OpenSSLPublicKey {
        guard !modulus.isEmpty, !exponent.isEmpty, modulus.count <= Self.maxModulusBits / 8, exponent.count <= Self.maxModulusBits / 8,
              let builder = OSSL_PARAM_BLD_new()
        else { throw .unusableKey }
        defer { OSSL_PARAM_BLD_free(builder) }
        let n = BN_bin2bn(modulus, Int32(modulus.count), nil)
        let e = BN_bin2bn(exponent, Int32(exponent.count), nil)
        defer {
            BN_free(n)
            BN_free(e)
        }
        guard let n, let e, storygate_OSSL_PARAM_BLD_push_RSA_public(builder, n, e) == 1,
              let parameters = OSSL_PARAM_BLD_to_param(builder)
        else {
            ERR_clear_error()
            throw .unusableKey
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            ERR_clear_error()
            throw .unusableKey
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
              EVP_PKEY_fromdata(context, &pkey, storygate_EVP_PKEY_PUBLIC_KEY(), parameters) == 1, let pkey
        else {
            ERR_clear_error()
            throw .unusableKey
        }
        return try checked(pkey)
    }

    /// Takes ownership of `pkey` and frees it when it is refused: an RSA key of 2048 to 16,384 bits whose public
    /// exponent is odd, at least 3 and below the modulus (and at most 64 bits past 3,072-bit moduli, as OpenSSL's
    /// RSA code requires). An exponent of 1 would make every message its own signature.
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
        var modulus: OpaquePointer?
        var exponent: OpaquePointer?
        let montgomery = BN_MONT_CTX_new()
        let numbers = BN_CTX_new()
        defer { BN_CTX_free(numbers) }
        guard EVP_PKEY_get_bn_param(pkey, "n", &modulus) == 1, EVP_PKEY_get_bn_param(pkey, "e", &exponent) == 1,
              let modulus, let exponent, let montgomery, let numbers,
              BN_num_bits(modulus) <= Int32(Self.maxModulusBits), BN_is_odd(modulus) == 1,
              BN_is_odd(exponent) == 1, BN_num_bits(exponent) >= 2, BN_ucmp(exponent, modulus) < 0,
              BN_num_bits(modulus) <= 3072 || BN_num_bits(exponent) <= 64,
              BN_MONT_CTX_set(montgomery, modulus, numbers) == 1
        else {
            ERR_clear_error()
            BN_MONT_CTX_free(montgomery)
            BN_free(exponent)
            BN_free(modulus)
            EVP_PKEY_free(pkey)
            throw .unusableKey
        }
        return OpenSSLPublicKey(owning: pkey, modulus: modulus, exponent: exponent, montgomery: montgomery)
    }

    /// The SubjectPublicKeyInfo PEM of this key.
    var publicKeyPEM: String {
        withOutputBIO { PEM_write_bio_PUBKEY($0, pkey) == 1 } ?? ""
    }

    /// The modulus, big-endian, `modulusByteCount` bytes.
    var modulusBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: modulusByteCount)
        _ = BN_bn2binpad(modulus, &bytes, Int32(bytes.count))
        return bytes
    }

    /// The public exponent, big-endian, without leading zero bytes.
    var exponentBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(exponent)) + 7) / 8)
        _ = BN_bn2bin(exponent, &bytes)
        return bytes
    }

    /// The DER `DigestInfo` prefix for SHA-256 (RFC 8017 §9.2, note 1): the 32-byte hash follows it.
    private static let sha256DigestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message`. Fails closed on any OpenSSL error.
    func verifyRS256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        let length = modulusByteCount
        guard signature.count == length, let signatureBase = signature.baseAddress else { return false }
        guard let context = pool.withLock({ $0.popLast() }) ?? makeContext() else { return false }
        defer {
            let spare = pool.withLock { pool -> VerifyContext? in
                guard pool.count < Self.poolLimit else { return context }
                pool.append(context)
                return nil
            }
            if let spare { Self.free(spare) }
        }
        // RSAVP1: s below n, then s^e mod n.
        guard BN_bin2bn(signatureBase.assumingMemoryBound(to: UInt8.self), Int32(length), context.signature) != nil,
              BN_ucmp(context.signature, modulus) < 0,
              power(context)
        else {
            ERR_clear_error()
            return false
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 32) { buffer -> Bool in
            let recovered = buffer.baseAddress!
            let hash = recovered + length
            guard BN_bn2binpad(context.recovered, recovered, Int32(length)) == Int32(length) else {
                ERR_clear_error()
                return false
            }
            var digest = SHA256_CTX()
            guard SHA256_Init(&digest) == 1,
                  SHA256_Update(&digest, message.baseAddress, message.count) == 1,
                  SHA256_Final(hash, &digest) == 1
            else { return false }
            // EMSA-PKCS1-v1_5: the key's fixed prefix, then SHA-256(message); every byte compared.
            let prefixLength = encodingPrefix.count
            let prefixMatches = encodingPrefix.withUnsafeBytes {
                ConstantTime.equals(UnsafeRawBufferPointer(start: recovered, count: prefixLength), $0)
            }
            let hashMatches = ConstantTime.equals(
                UnsafeRawBufferPointer(start: recovered + prefixLength, count: 32), UnsafeRawBufferPointer(start: hash, count: 32)
            )
            return prefixMatches && hashMatches
        }
    }

    /// `context.recovered = s^e mod n` for `s = context.signature`, below the modulus.
    ///
    /// For an exponent of up to 32 bits this is left-to-right square-and-multiply on libcrypto's Montgomery
    /// multiplication, `MM(a, b) = a·b·R⁻¹ mod n`: `s̄ = MM(s, R²) = s·R`, then one squaring per exponent bit below
    /// the top and a multiplication by `s̄` for each set bit but the last. The exponent is odd (the key was refused
    /// otherwise), so the chain ends with a squaring and a multiplication, and that multiplication takes `s` itself:
    /// `MM(x·R, s) = x·s`, the result, already out of Montgomery form. For 65537 that is sixteen squarings and two
    /// multiplications; `BN_mod_exp_mont` does nineteen operations and a conversion back, 13.4 µs against 15.4 on the
    /// benchmark machine (`bench/rsa/floor.c`). Longer exponents go to `BN_mod_exp_mont`, whose windows pay off.
    private func power(_ context: VerifyContext) -> Bool {
        guard let exponent = smallExponent else {
            return BN_mod_exp_mont(context.recovered, context.signature, self.exponent, modulus, context.numbers, montgomery) == 1
        }
        let s = context.signature, sBar = context.montgomerySignature, result = context.recovered
        guard BN_to_montgomery(sBar, s, montgomery, context.numbers) == 1 else { return false }
        var accumulator = sBar
        let top = 31 - exponent.leadingZeroBitCount
        for bit in stride(from: top - 1, to: 0, by: -1) {
            guard BN_mod_mul_montgomery(result, accumulator, accumulator, montgomery, context.numbers) == 1 else { return false }
            accumulator = result
            if exponent >> bit & 1 == 1 {
                guard BN_mod_mul_montgomery(result, result, sBar, montgomery, context.numbers) == 1 else { return false }
            }
        }
        return BN_mod_mul_montgomery(result, accumulator, accumulator, montgomery, context.numbers) == 1
            && BN_mod_mul_montgomery(result, result, s, montgomery, context.numbers) == 1
    }

    private func makeContext() -> VerifyContext? {
        let numbers = BN_CTX_new(), signature = BN_new(), recovered = BN_new(), montgomerySignature = BN_new()
        guard let numbers, let signature, let recovered, let montgomerySignature else {
            BN_free(montgomerySignature)
            BN_free(recovered)
            BN_free(signature)
            BN_CTX_free(numbers)
            return nil
        }
        return VerifyContext(numbers: numbers, signature: signature, recovered: recovered, montgomerySignature: montgomerySignature)
    }

    private static func free(_ context: VerifyContext) {
        BN_free(context.montgomerySignature)
        BN_free(context.recovered)
        BN_free(context.signature)
        BN_CTX_free(context.numbers)
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

    /// A fresh RSA key with this public exponent (big-endian).
    static func generate(bits: Int, publicExponent: [UInt8]) -> OpenSSLPrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else { fatalError("OpenSSL: no RSA") }
        defer { EVP_PKEY_CTX_free(context) }
        guard let exponent = BN_bin2bn(publicExponent, Int32(publicExponent.count), nil) else { fatalError("OpenSSL: BN_bin2bn failed") }
        defer { BN_free(exponent) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
              EVP_PKEY_CTX_set1_rsa_keygen_pubexp(context, exponent) == 1,
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
