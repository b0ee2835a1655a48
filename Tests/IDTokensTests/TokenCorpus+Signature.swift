import IDTokens
import TestSupport

// Signature cases: header and payload are the standard ones (see TokenCorpus.swift); only the signature
// differs. "Crafted" signatures are `EM^d mod n` for an encoded message EM built with TokenPKCS1, so the
// RSA operation succeeds and only the PKCS#1 v1.5 checks can refuse them.
extension Corpus {
    static let signatureCases: [TokenCase] = [
        // Signature with its last byte dropped (255 bytes).
        TokenCase("signature one byte short", .badSignature, build: resigned { Array($0.dropLast()) }),
        // Signature with a zero byte appended (257 bytes).
        TokenCase("signature one byte long", .badSignature, build: resigned { $0 + [0] }),
        // Signature with one bit flipped in its last byte.
        TokenCase("signature bit flipped", .badSignature, build: resigned { var s = $0; s[s.count - 1] ^= 1; return s }),
        // 256 zero bytes.
        TokenCase("signature all zeros", .badSignature, build: resigned { Array(repeating: 0, count: $0.count) }),
        // 256 0xFF bytes (above the modulus).
        TokenCase("signature above the modulus", .badSignature, build: resigned { Array(repeating: 0xFF, count: $0.count) }),
        // A valid RS256 signature by TestKeys.other (not trusted) under the trusted kid.
        TokenCase("signed by another key", .badSignature, build: { _ in TokenFactory(key: TestKeys.other).token(now: now) }),
        // The payload swapped for one with sub "admin" after signing.
        TokenCase("payload swapped after signing", .badSignature, build: { f in
            var parts = TokenParts(compact: f.token(now: now))!
            parts.payload = TokenParts(compact: f.token(uid: "admin", now: now))!.payload
            return parts.compact
        }),
        // EM = 00 01 FF… 00 DigestInfo(SHA-256, H): the correct encoding, accepted.
        TokenCase("crafted correct encoding", nil, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length)
        }),
        // DigestInfo with SHA-512's OID over the SHA-256 hash.
        TokenCase("crafted wrong DigestInfo OID", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.wrongOIDPrefix + TokenDigests.sha256(input), length: length)
        }),
        // DigestInfo without the NULL algorithm parameters.
        TokenCase("crafted DigestInfo without NULL", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256PrefixWithoutNull + TokenDigests.sha256(input), length: length)
        }),
        // DigestInfo(SHA-1, SHA-1 of the signing input).
        TokenCase("crafted SHA-1 DigestInfo", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha1Prefix + TokenDigests.sha1(input), length: length)
        }),
        // EM = 00 02 FF… 00 DigestInfo: block type 2 (encryption) instead of 1.
        TokenCase("crafted block type 2", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length, blockType: 0x02)
        }),
        // EM = 00 01 FE… 00 DigestInfo: padding bytes 0xFE.
        TokenCase("crafted padding bytes not FF", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length, paddingByte: 0xFE)
        }),
        // EM = 00 01 FF×7 00 DigestInfo 00…: padding shorter than 8 bytes, garbage after the hash.
        TokenCase("crafted short padding", .badSignature, build: crafted { input, length in
            let digestInfo = TokenPKCS1.sha256Prefix + TokenDigests.sha256(input)
            let fill = [UInt8](repeating: 0xAB, count: length - 2 - 7 - 1 - digestInfo.count)
            return TokenPKCS1.encode(digestInfo: digestInfo, length: length, paddingCount: 7, trailing: fill)
        }),
        // EM = 00 00 … 00 01 FF×8 00 DigestInfo: short padding made up by leading zeros.
        TokenCase("crafted short padding with leading zeros", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length, paddingCount: 8)
        }),
        // EM = 00 01 FF…FF DigestInfo: no 0x00 separator.
        TokenCase("crafted without separator", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length, separator: false)
        }),
        // EM = 00 01 FF… 00 DigestInfo 00 00 00 00: trailing bytes after the hash.
        TokenCase("crafted trailing bytes after hash", .badSignature, build: crafted { input, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(input), length: length, trailing: [0, 0, 0, 0])
        }),
        // EM = 00 01 FF… 00 DigestInfo(SHA-256 of "another message").
        TokenCase("crafted hash of another message", .badSignature, build: crafted { _, length in
            TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(Array("another message".utf8)), length: length)
        }),
    ]

    /// A valid token whose signature bytes are replaced by `edit(signature)`.
    static func resigned(_ edit: @escaping @Sendable ([UInt8]) -> [UInt8]) -> @Sendable (TokenFactory) -> String {
        tampered { parts in
            parts.signature = Base64URL.encode(edit(Base64URL.decode(parts.signature)!))
        }
    }
}
