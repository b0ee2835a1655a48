/// Writes JSON string literals (RFC 8259 escaping) and numbers: for the token minter and the gateway's fixed-shape answers (errors, /v1/me).
public enum JSONWriter {
    /// `text` as a quoted JSON string.
    public static func quoted(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 2)
        Self.appendQuoted(text, to: &output)
        return output
    }

    /// Appends `text` as a JSON string. Text with nothing to escape (the usual case: ids, codes, paths) is copied
    /// whole after one pass over its bytes; anything else is escaped scalar by scalar.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        defer { output += "\"" }
        let needsEscaping = text.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscaping else {
            output += text
            return
        }
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
    }

    /// A JSON number for a time: an integer when `value` is whole, otherwise its shortest decimal form.
    public static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9e15 {
            return String(Int64(value))
        }
        return value.isFinite ? "\(value)" : "0"
    }
}
