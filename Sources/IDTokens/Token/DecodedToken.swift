#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A compact JWS whose structure, base64url and JSON are valid; its signature and claims are NOT checked.
///
/// Decoding enforces: at most `maximumTokenLength` bytes; exactly three non-empty dot-separated parts of
/// strict unpadded base64url; a header and a payload that are each one strict JSON object with no duplicate
/// member names. Everything else (algorithm, key id, claims, signature) is for `FirebaseClaimRules` and
/// `TokenVerifier`.
public struct DecodedToken: Sendable {
    /// The longest token accepted, in bytes (16 KiB).
    public static let maximumTokenLength = 16 * 1024

    /// The signing input (the token's bytes up to the second dot) unless `storesSigningInput` is false,
    /// then the decoded header JSON, payload JSON and signature, back to back.
    let storage: [UInt8]
    let signingInputCount: Int
    /// False only for the verifier's own decoding, which hashes the signing input from the token it was
    /// given instead of copying it.
    let storesSigningInput: Bool
    let headerRange: Range<Int>
    let payloadRange: Range<Int>
    let signatureRange: Range<Int>
    /// The header's members, then the payload's, in one array.
    let members: [JSONMember]
    /// How many of `members` are the header's.
    let headerMemberCount: Int
    /// Indices into `members` of well-known header parameters and claims, or nil when absent.
    let slots: KnownMemberSlots

    /// The header's members; indices are those of `members`.
    var header: ArraySlice<JSONMember> { members[..<headerMemberCount] }
    /// The payload's members; indices are those of `members`.
    var payload: ArraySlice<JSONMember> { members[headerMemberCount...] }

    /// Decodes a compact JWS: structure, base64url and JSON only.
    public init(compact token: some StringProtocol) throws(TokenVerificationError) {
        let decoded: Result<DecodedToken, TokenVerificationError> =
            token.utf8.withContiguousStorageIfAvailable { Self.decode($0, storingSigningInput: true) }
            ?? Array(token.utf8).withUnsafeBufferPointer { Self.decode($0, storingSigningInput: true) }
        self = try decoded.get()
    }

    /// Decodes the compact JWS `token`; without `storingSigningInput`, `signingInput` is unavailable and the
    /// caller hashes `token[0..<signingInputCount]` itself.
    init(compactUTF8 token: UnsafeBufferPointer<UInt8>, storingSigningInput: Bool) throws(TokenVerificationError) {
        self = try Self.decode(token, storingSigningInput: storingSigningInput).get()
    }

    private init(
        storage: [UInt8], signingInputCount: Int, storesSigningInput: Bool,
        headerRange: Range<Int>, payloadRange: Range<Int>, signatureRange: Range<Int>,
        members: [JSONMember], headerMemberCount: Int
    ) {
        self.storage = storage
        self.signingInputCount = signingInputCount
        self.storesSigningInput = storesSigningInput
        self.headerRange = headerRange
        self.payloadRange = payloadRange
        self.signatureRange = signatureRange
        self.members = members
        self.headerMemberCount = headerMemberCount
        self.slots = storage.withUnsafeBufferPointer {
            KnownMemberSlots(members: members, headerMemberCount: headerMemberCount, in: $0)
        }
    }

    /// The index of the first "." at or after `start` (memchr: vectorised).
    @inline(__always)
    private static func findDot(_ token: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < token.count, let base = token.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: ".")), token.count - start)
        else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    private static func decode(
        _ token: UnsafeBufferPointer<UInt8>, storingSigningInput: Bool
    ) -> Result<DecodedToken, TokenVerificationError> {
        guard token.count <= maximumTokenLength else {
            return .failure(.init(.tokenTooLarge, "The token is longer than \(maximumTokenLength) bytes."))
        }
        guard let base = token.baseAddress, let firstDot = findDot(token, from: 0) else {
            return .failure(.malformed("The token is not three base64url parts separated by dots."))
        }
        guard let secondDot = findDot(token, from: firstDot + 1), findDot(token, from: secondDot + 1) == nil,
              firstDot > 0, secondDot > firstDot + 1, secondDot < token.count - 1
        else {
            return .failure(.malformed("The token is not three non-empty base64url parts separated by dots."))
        }
        let headerPart = UnsafeBufferPointer(start: base, count: firstDot)
        let payloadPart = UnsafeBufferPointer(start: base + firstDot + 1, count: secondDot - firstDot - 1)
        let signaturePart = UnsafeBufferPointer(start: base + secondDot + 1, count: token.count - secondDot - 1)
        guard let headerCount = Base64URL.decodedCount(encodedCount: headerPart.count),
              let payloadCount = Base64URL.decodedCount(encodedCount: payloadPart.count),
              let signatureCount = Base64URL.decodedCount(encodedCount: signaturePart.count)
        else {
            return .failure(.malformed("A token part is not valid base64url."))
        }
        let headerStart = storingSigningInput ? secondDot : 0
        let payloadStart = headerStart + headerCount
        let signatureStart = payloadStart + payloadCount
        let total = signatureStart + signatureCount
        var valid = true
        let storage = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let out = buffer.baseAddress!
            if storingSigningInput { out.initialize(from: base, count: secondDot) }
            valid = Base64URL.decode(headerPart, into: out + headerStart) != nil
                && Base64URL.decode(payloadPart, into: out + payloadStart) != nil
                && Base64URL.decode(signaturePart, into: out + signatureStart) != nil
            if !valid { buffer.initialize(repeating: 0) }
            initialized = total
        }
        guard valid else { return .failure(.malformed("A token part is not valid base64url.")) }
        var members: [JSONMember] = []
        members.reserveCapacity(24)
        var headerMemberCount = 0
        let failure = storage.withUnsafeBufferPointer { buffer -> TokenVerificationError? in
            do throws(JSONError) {
                try JSONParser.parseObject(buffer, range: headerStart..<payloadStart, appendingTo: &members)
            } catch {
                return .malformed("The token header is not valid JSON (\(error.message)).")
            }
            headerMemberCount = members.count
            do throws(JSONError) {
                try JSONParser.parseObject(buffer, range: payloadStart..<signatureStart, appendingTo: &members)
            } catch {
                return .malformed("The token payload is not valid JSON (\(error.message)).")
            }
            return nil
        }
        if let failure { return .failure(failure) }
        return .success(DecodedToken(
            storage: storage, signingInputCount: secondDot, storesSigningInput: storingSigningInput,
            headerRange: headerStart..<payloadStart, payloadRange: payloadStart..<signatureStart,
            signatureRange: signatureStart..<total, members: members, headerMemberCount: headerMemberCount
        ))
    }
}
