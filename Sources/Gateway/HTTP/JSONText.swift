/// Building JSON text by hand for the few fixed shapes the gateway writes (errors, /v1/me), without Foundation.
enum JSONText {
    /// `text` as a JSON string literal, quotes included (RFC 8259 §7).
    static func string(_ text: some StringProtocol) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let scalar where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        result += "\""
        return result
    }

    /// A number: integral values without a fraction, others in Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.isFinite ? String(value) : "null"
    }
}
