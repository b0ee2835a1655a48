/// A strict RFC 8259 parser over UTF-8 bytes that validates a whole document in one pass and returns the
/// members of its top-level object as byte ranges (no Foundation, no per-value allocation).
///
/// Refuses: anything but an object at the top, trailing commas, comments, `NaN`/`Infinity`, leading zeros,
/// control characters or invalid UTF-8 in strings, bad escapes, unpaired surrogates, nesting deeper than
/// `maximumDepth`, trailing garbage, and duplicate member names in any object (compared after unescaping).
struct JSONParser {
    /// The deepest nesting of objects and arrays accepted; the top-level object is depth 1.
    static let maximumDepth = 32

    /// A member name of an object being parsed, for the duplicate check.
    struct KeyRef {
        var start: Int32
        var end: Int32
        /// The length and first 7 bytes of an unescaped name, 0 for escaped names: equal names have equal
        /// fingerprints, so most pairs are told apart by one comparison.
        var fingerprint: UInt64

        var hasEscapes: Bool { fingerprint == 0 }
    }

    /// The names of the objects open at a time are kept in a fixed buffer on the caller's stack; only
    /// documents with more names open at once than this move them to the heap.
    static let inlineKeyCapacity = 64

    private let base: UnsafePointer<UInt8>
    private var position: Int
    private let end: Int
    private var depth = 0
    private var keys: KeyStack
    private var members: [JSONMember] = []

    private init(base: UnsafePointer<UInt8>, range: Range<Int>, keys: KeyStack) {
        self.base = base
        self.position = range.lowerBound
        self.end = range.upperBound
        self.keys = keys
    }

    /// Parses `buffer[range]`, which must be exactly one JSON object, and returns its members in order.
    /// Offsets in the members are relative to `buffer`.
    static func parseObject(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>) throws(JSONError) -> [JSONMember] {
        var members: [JSONMember] = []
        try parseObject(buffer, range: range, appendingTo: &members)
        return members
    }

    /// Parses `buffer[range]`, which must be exactly one JSON object, and appends its members in order to
    /// `members` (so one array can hold the members of several documents). Offsets are relative to `buffer`.
    /// On error `members` is left in an unspecified state.
    static func parseObject(
        _ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>, appendingTo members: inout [JSONMember]
    ) throws(JSONError) {
        guard let base = buffer.baseAddress, !range.isEmpty else { throw JSONError("it is empty") }
        let failure = withUnsafeTemporaryAllocation(of: KeyRef.self, capacity: inlineKeyCapacity) { inlineKeys -> JSONError? in
            var parser = JSONParser(base: base, range: range, keys: KeyStack(inline: inlineKeys))
            defer { parser.keys.deallocateHeapStorage() }
            swap(&parser.members, &members)
            defer { swap(&parser.members, &members) }
            do throws(JSONError) {
                try parser.parseDocument()
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Parses `buffer[range]`, which must be exactly one JSON array, and returns its elements in order, with the
    /// same strictness as ``parseObject(_:range:)``. Offsets are relative to `buffer`.
    static func parseArray(_ buffer: UnsafeBufferPointer<UInt8>, range: Range<Int>) throws(JSONError) -> [JSONElement] {
        guard let base = buffer.baseAddress, !range.isEmpty else { throw JSONError("it is empty") }
        return try withUnsafeTemporaryAllocation(of: KeyRef.self, capacity: inlineKeyCapacity) { inlineKeys throws(JSONError) -> [JSONElement] in
            var parser = JSONParser(base: base, range: range, keys: KeyStack(inline: inlineKeys))
            defer { parser.keys.deallocateHeapStorage() }
            return try parser.parseArrayDocument()
        }
    }

    private mutating func parseArrayDocument() throws(JSONError) -> [JSONElement] {
        skipWhitespace()
        guard position < end, base[position] == UInt8(ascii: "[") else { throw JSONError("it is not a JSON array") }
        var elements: [JSONElement] = []
        depth = 1
        position += 1
        skipWhitespace()
        if position < end, base[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                skipWhitespace()
                let valueStart = position
                let kind = try parseValue()
                let isString = kind == .string
                elements.append(JSONElement(
                    valueStart: Int32(isString ? valueStart + 1 : valueStart), valueEnd: Int32(isString ? position - 1 : position),
                    kind: kind, valueHasEscapes: isString && lastStringHadEscapes
                ))
                skipWhitespace()
                guard position < end else { throw JSONError("it ends inside an array") }
                let byte = base[position]
                position += 1
                if byte == UInt8(ascii: "]") { break }
                guard byte == UInt8(ascii: ",") else { throw JSONError("array elements are not separated by commas") }
            }
        }
        skipWhitespace()
        guard position == end else { throw JSONError("it has text after the JSON array") }
        return elements
    }

    private mutating func parseDocument() throws(JSONError) {
        skipWhitespace()
        guard position < end, base[position] == UInt8(ascii: "{") else {
            throw JSONError("it is not a JSON object")
        }
        try parseObject(topLevel: true)
        skipWhitespace()
        guard position == end else { throw JSONError("it has text after the JSON object") }
    }

    // MARK: Structure

    @inline(__always)
    private mutating func skipWhitespace() {
        // Tokens rarely contain whitespace: one comparison settles the common case.
        guard position < end, base[position] <= 0x20 else { return }
        while position < end {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONKind {
        guard position < end else { throw JSONError("it ends inside a value") }
        switch base[position] {
        case UInt8(ascii: "\""):
            _ = try parseString()
            return .string
        case UInt8(ascii: "{"):
            try parseObject(topLevel: false)
            return .object
        case UInt8(ascii: "["):
            try parseArray()
            return .array
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .false
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            try parseNumber()
            return .number
        }
    }

    private mutating func parseObject(topLevel: Bool) throws(JSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw JSONError("it is nested too deeply") }
        position += 1  // {
        let firstKey = keys.count
        skipWhitespace()
        if position < end, base[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard position < end, base[position] == UInt8(ascii: "\"") else {
                throw JSONError("an object member does not start with a string name")
            }
            let keyStart = position + 1
            let keyHasEscapes = try parseString()
            let key = KeyRef(
                start: Int32(keyStart), end: Int32(position - 1),
                fingerprint: keyHasEscapes ? 0 : fingerprint(start: keyStart, end: position - 1)
            )
            skipWhitespace()
            guard position < end, base[position] == UInt8(ascii: ":") else { throw JSONError("a member name is not followed by a colon") }
            position += 1
            skipWhitespace()
            let valueStart = position
            let kind = try parseValue()
            if topLevel {
                let isString = kind == .string
                members.append(JSONMember(
                    keyStart: key.start, keyEnd: key.end,
                    valueStart: Int32(isString ? valueStart + 1 : valueStart),
                    valueEnd: Int32(isString ? position - 1 : position),
                    kind: kind, keyHasEscapes: keyHasEscapes,
                    valueHasEscapes: isString && lastStringHadEscapes
                ))
            }
            keys.append(key)
            skipWhitespace()
            guard position < end else { throw JSONError("it ends inside an object") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { throw JSONError("object members are not separated by commas") }
        }
        try checkDuplicates(from: firstKey)
        keys.removeLast(keys.count - firstKey)
        depth -= 1
    }

    private mutating func parseArray() throws(JSONError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw JSONError("it is nested too deeply") }
        position += 1  // [
        skipWhitespace()
        if position < end, base[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            _ = try parseValue()
            skipWhitespace()
            guard position < end else { throw JSONError("it ends inside an array") }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: "]") { break }
            guard byte == UInt8(ascii: ",") else { throw JSONError("array elements are not separated by commas") }
        }
        depth -= 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard end - position >= count else { throw JSONError("it has an invalid literal") }
        let bytes = literal.utf8Start
        for offset in 0..<count where base[position + offset] != bytes[offset] {
            throw JSONError("it has an invalid literal")
        }
        position += count
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONError) {
        if base[position] == UInt8(ascii: "-") { position += 1 }
        guard position < end else { throw JSONError("it has an invalid number") }
        let first = base[position]
        if first == UInt8(ascii: "0") {
            position += 1
        } else if first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9") {
            position += 1
            skipDigits()
        } else {
            throw JSONError("it has an invalid value")
        }
        if position < end, base[position] == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw JSONError("it has an invalid number") }
        }
        if position < end, base[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < end, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard skipDigits() > 0 else { throw JSONError("it has an invalid number") }
        }
    }

    @discardableResult @inline(__always)
    private mutating func skipDigits() -> Int {
        let start = position
        while position < end, base[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - start
    }

    // MARK: Strings

    private var lastStringHadEscapes = false

    /// Parses a string starting at its opening quote; leaves `position` after the closing quote.
    /// Returns whether it contained escapes.
    private mutating func parseString() throws(JSONError) -> Bool {
        var cursor = position + 1  // after "
        var hasEscapes = false
        while true {
            // Jump over plain ASCII eight bytes at a time to the first byte that needs a look.
            while end - cursor >= 8 {
                let special = Self.specialBytes(UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
                if special != 0 {
                    cursor += special.trailingZeroBitCount >> 3
                    break
                }
                cursor += 8
            }
            guard cursor < end else { throw JSONError("a string is not terminated") }
            let byte = base[cursor]
            if byte == UInt8(ascii: "\"") {
                position = cursor + 1
                lastStringHadEscapes = hasEscapes
                return hasEscapes
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                position = cursor
                try parseEscape()
                cursor = position
            } else if byte < 0x20 {
                throw JSONError("a string contains a control character")
            } else if byte >= 0x80 {
                position = cursor
                try skipUTF8Sequence(lead: byte)
                cursor = position
            } else {
                cursor += 1  // plain ASCII within the last seven bytes
            }
        }
    }

    /// The high bit of each byte of `word` (little-endian) that is a control character, `"`, `\\` or
    /// non-ASCII (SWAR). Bytes above the first such byte may be flagged falsely; the lowest flag is exact.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let below20 = (word &- ones &* 0x20) & ~word
        let isQuote = (quote &- ones) & ~quote
        let isBackslash = (backslash &- ones) & ~backslash
        return (below20 | isQuote | isBackslash | word) & highs
    }

    private mutating func parseEscape() throws(JSONError) {
        guard position + 1 < end else { throw JSONError("a string has an invalid escape") }
        switch base[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            position += 2
            let unit = try hex4()
            if unit >= 0xDC00, unit < 0xE000 { throw JSONError("a string has an unpaired surrogate") }
            if unit >= 0xD800, unit < 0xDC00 {
                guard end - position >= 2, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else {
                    throw JSONError("a string has an unpaired surrogate")
                }
                position += 2
                let low = try hex4()
                guard low >= 0xDC00, low < 0xE000 else { throw JSONError("a string has an unpaired surrogate") }
            }
        default:
            throw JSONError("a string has an invalid escape")
        }
    }

    private mutating func hex4() throws(JSONError) -> UInt16 {
        guard end - position >= 4 else { throw JSONError("a string has an invalid escape") }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let digit = JSONString.hexDigit(base[position + offset])
            guard digit != 0xFF else { throw JSONError("a string has an invalid escape") }
            value = value << 4 | UInt16(digit)
        }
        position += 4
        return value
    }

    /// Skips one well-formed UTF-8 sequence (no overlong forms, no surrogates, at most U+10FFFF).
    private mutating func skipUTF8Sequence(lead: UInt8) throws(JSONError) {
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw JSONError("a string is not valid UTF-8")
        }
        guard end - position >= length else { throw JSONError("a string is not valid UTF-8") }
        let second = base[position + 1]
        guard second >= low, second <= high else { throw JSONError("a string is not valid UTF-8") }
        for offset in 2..<max(2, length) where base[position + offset] & 0xC0 != 0x80 {
            throw JSONError("a string is not valid UTF-8")
        }
        position += length
    }

    // MARK: Duplicate names

    private func checkDuplicates(from first: Int) throws(JSONError) {
        let count = keys.count - first
        guard count > 1 else { return }
        if count <= 16 {
            for i in first..<(keys.count - 1) {
                for j in (i + 1)..<keys.count where sameName(keys[i], keys[j]) {
                    throw JSONError("an object has a duplicate member name")
                }
            }
            return
        }
        let names = (first..<keys.count).map { name(of: keys[$0]) }.sorted { $0.lexicographicallyPrecedes($1) }
        for index in 1..<names.count where names[index] == names[index - 1] {
            throw JSONError("an object has a duplicate member name")
        }
    }

    @inline(__always)
    private func fingerprint(start: Int, end nameEnd: Int) -> UInt64 {
        let length = nameEnd - start
        var value = UInt64(truncatingIfNeeded: length) << 56 | 1
        if end - start >= 8 {
            // One load; the bytes past the name (its closing quote and beyond, inside the document) are masked off.
            let word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            let mask: UInt64 = length >= 7 ? 0x00FF_FFFF_FFFF_FFFF : (1 &<< UInt64(length &* 8)) &- 1
            return value | UInt64(littleEndian: word) & mask
        }
        var offset = 0
        while offset < 7, start + offset < nameEnd {
            value |= UInt64(base[start + offset]) << (offset * 8)
            offset += 1
        }
        return value
    }

    private func sameName(_ a: KeyRef, _ b: KeyRef) -> Bool {
        if !a.hasEscapes, !b.hasEscapes {
            guard a.fingerprint == b.fingerprint else { return false }
            let length = Int(a.end - a.start)
            guard length == Int(b.end - b.start) else { return false }
            return memoryEqual(base + Int(a.start), base + Int(b.start), length)
        }
        return name(of: a) == name(of: b)
    }

    private func name(of key: KeyRef) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: base + Int(key.start), count: Int(key.end - key.start))
        return key.hasEscapes ? JSONString.unescape(raw) : Array(raw)
    }
}

/// Whether `count` bytes at `a` and `b` are equal.
@inline(__always)
func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    while index + 8 <= count {
        let x = UnsafeRawPointer(a + index).loadUnaligned(as: UInt64.self)
        let y = UnsafeRawPointer(b + index).loadUnaligned(as: UInt64.self)
        if x != y { return false }
        index += 8
    }
    while index < count {
        if a[index] != b[index] { return false }
        index += 1
    }
    return true
}
