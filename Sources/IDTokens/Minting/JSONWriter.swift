/// Writes JSON string literals (RFC 8259 escaping) and numbers: for the token minter and the gateway's fixed-shape answers (errors, /v1/me).
public enum JSONWriter {
    /// `text` as a quoted JSON string.
    public static func quoted(_ text: String) -> String {
        var output = "\""
        output.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
        return output
    }

    /// A JSON number for a time: an integer when `value` is whole, otherwise its shortest decimal form.
    public static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9e15 {
            return String(Int64(value))
        }
        return value.isFinite ? "\(value)" : "0"
    }
}
