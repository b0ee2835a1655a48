/// Base64url (RFC 4648 §5) without padding, as JWS compact serialization uses it.
///
/// Decoding is strict: it refuses `=`, `+`, `/`, whitespace, any byte outside the alphabet, a length that
/// leaves one dangling character, and a final character whose unused low bits are not zero (so every byte
/// string has exactly one accepted encoding).
public enum Base64URL {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the alphabet.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Four tables of 256 entries, one per position of a character in a 4-character group: the character's
    /// 6-bit value already shifted into place in a 24-bit group (by 18, 12, 6 or 0 bits), or `invalidBits`
    /// when it is not in the alphabet. OR-ing a group's four entries gives its three bytes, or sets an
    /// invalid bit.
    static let groupTables: [UInt32] = {
        var tables = [UInt32](repeating: invalidBits, count: 4 * 256)
        for position in 0..<4 {
            for (value, character) in alphabet.enumerated() {
                tables[position * 256 + Int(character)] = UInt32(value) << (18 - 6 * position)
            }
        }
        return tables
    }()

    /// Set in a group's value when one of its characters is not in the alphabet.
    static let invalidBits: UInt32 = 0xFF00_0000

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let outputCount = (input.count / 3) * 4 + [0, 2, 3][input.count % 3]
        return String(unsafeUninitializedCapacity: outputCount) { output in
            alphabet.withUnsafeBufferPointer { alphabet in
                var out = 0
                var index = 0
                while index + 3 <= input.count {
                    let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    output[out] = alphabet[Int(value >> 18)]
                    output[out + 1] = alphabet[Int(value >> 12 & 63)]
                    output[out + 2] = alphabet[Int(value >> 6 & 63)]
                    output[out + 3] = alphabet[Int(value & 63)]
                    out += 4
                    index += 3
                }
                switch input.count - index {
                case 1:
                    let value = UInt32(input[index]) << 16
                    output[out] = alphabet[Int(value >> 18)]
                    output[out + 1] = alphabet[Int(value >> 12 & 63)]
                    out += 2
                case 2:
                    let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    output[out] = alphabet[Int(value >> 18)]
                    output[out + 1] = alphabet[Int(value >> 12 & 63)]
                    output[out + 2] = alphabet[Int(value >> 6 & 63)]
                    out += 3
                default:
                    break
                }
                return out
            }
        }
    }

    /// The bytes of strict unpadded base64url `text`, or nil when it is not exactly that.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { input -> [UInt8]? in
            guard let count = decodedCount(encodedCount: input.count) else { return nil }
            var failed = false
            let result = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
                if decode(UnsafeBufferPointer(input), into: output.baseAddress!) == nil {
                    failed = true
                    output.initialize(repeating: 0)
                }
                initialized = count
            }
            return failed ? nil : result
        }
    }

    /// How many bytes `encodedCount` characters decode to, or nil for an impossible length.
    @inline(__always)
    static func decodedCount(encodedCount: Int) -> Int? {
        let remainder = encodedCount & 3
        guard remainder != 1 else { return nil }
        return (encodedCount >> 2) * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decodes `input` into `output`, which must have room for `decodedCount(encodedCount:)` bytes.
    /// Returns the number of bytes written, or nil when `input` is not strict base64url.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        guard let count = decodedCount(encodedCount: input.count), let base = input.baseAddress ?? (input.isEmpty ? UnsafePointer(output) : nil)
        else { return nil }
        if input.isEmpty { return 0 }
        let groupsValid = groupTables.withUnsafeBufferPointer { tables -> Bool in
            let t = tables.baseAddress!
            var source = base
            var target = output
            let fullGroupsEnd = base + (input.count & ~3)
            var invalid: UInt32 = 0
            @inline(__always) func group(_ s: UnsafePointer<UInt8>) -> UInt32 {
                t[Int(s[0])] | t[256 + Int(s[1])] | t[512 + Int(s[2])] | t[768 + Int(s[3])]
            }
            // Two groups (eight characters, six bytes) with one 8-byte store; the two extra bytes it writes
            // are overwritten by the next group, which the loop condition guarantees exists.
            if input.count >= 12 {
                let wideEnd = fullGroupsEnd - 12
                while source <= wideEnd {
                    let first = group(source), second = group(source + 4)
                    invalid |= first | second
                    let value = UInt64(first) << 40 | UInt64(second) << 16
                    UnsafeMutableRawPointer(target).storeBytes(of: value.bigEndian, as: UInt64.self)
                    source += 8
                    target += 6
                }
            }
            while source < fullGroupsEnd {
                let value = group(source)
                invalid |= value
                target[0] = UInt8(truncatingIfNeeded: value >> 16)
                target[1] = UInt8(truncatingIfNeeded: value >> 8)
                target[2] = UInt8(truncatingIfNeeded: value)
                source += 4
                target += 3
            }
            return invalid & invalidBits == 0
        }
        guard groupsValid else { return nil }
        return decodeTable.withUnsafeBufferPointer { table -> Int? in
            let table = table.baseAddress!
            let source = base + (input.count & ~3)
            let target = output + (input.count >> 2) * 3
            // The last 2 or 3 characters: their unused low bits must be zero.
            switch input.count & 3 {
            case 2:
                let a = table[Int(source[0])], b = table[Int(source[1])]
                guard (a | b) & 0x80 == 0, b & 0x0F == 0 else { return nil }
                target[0] = a << 2 | b >> 4
            case 3:
                let a = table[Int(source[0])], b = table[Int(source[1])], c = table[Int(source[2])]
                guard (a | b | c) & 0x80 == 0, c & 0x03 == 0 else { return nil }
                target[0] = a << 2 | b >> 4
                target[1] = b << 4 | c >> 2
            default:
                break
            }
            return count
        }
    }
}
