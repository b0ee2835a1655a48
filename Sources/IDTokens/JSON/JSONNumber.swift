/// Conversion of validated JSON number text to `Double`.
enum JSONNumber {
    /// The value of validated number text, or nil when it is not finite (e.g. `1e400`).
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        // Fast path: an integer of at most 15 digits is exact in a Double.
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        if text.count - index <= 15 {
            var value: Int64 = 0
            var simple = true
            while index < text.count {
                let digit = text[index] &- UInt8(ascii: "0")
                if digit > 9 {
                    simple = false
                    break
                }
                value = value &* 10 &+ Int64(digit)
                index += 1
            }
            if simple {
                return negative ? -Double(value) : Double(value)
            }
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
