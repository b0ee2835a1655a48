extension Double {
    /// Parses a plain decimal: digits with at most one `.` (`30`, `0.5`); no sign, exponent, `inf` or `nan`.
    init?(plainDecimal text: String) {
        var digits = 0
        var dots = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): dots += 1
            default: return nil
            }
        }
        guard digits > 0, digits <= 24, dots <= 1, let value = Double(text), value.isFinite else { return nil }
        self = value
    }

    /// The number as a config file writes it: `30` for whole numbers, `0.5` otherwise.
    var plainText: String {
        if self == self.rounded(), abs(self) < 1e15 { return String(Int(self)) }
        return String(self)
    }
}

extension Int {
    /// Parses plain decimal digits (`8080`); no sign, `_`, hex or octal.
    init?(plainDigits text: String) {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(text)
        else { return nil }
        self = value
    }
}
