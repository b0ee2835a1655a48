extension JSONValue {
    /// Compact JSON text, object keys sorted, integral numbers without a fraction.
    var text: String {
        var output = ""
        self.write(to: &output)
        return output
    }

    /// ``text`` as UTF-8.
    var bytes: [UInt8] { Array(self.text.utf8) }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += Self.number(value)
        case .string(let value): Self.string(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                Self.string(key, to: &output)
                output += ":"
                members[key]!.write(to: &output)
            }
            output += "}"
        }
    }

    private static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return value.isFinite ? String(value) : "null"
    }

    private static func string(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let scalar where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
