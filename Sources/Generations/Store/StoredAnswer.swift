/// An HTTP answer as a store keeps it: status, end-to-end fields and body. Kept for an idempotent replay, and as a
/// job's result or error.
public struct StoredAnswer: Sendable, Equatable {
    public var status: Int
    /// Field names (lowercase) and values in order; no hop-by-hop or per-exchange field (the gateway adds those).
    public var fields: [Field]
    public var body: [UInt8]

    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, fields: [Field], body: [UInt8]) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// Whether the answer is a success, the only kind an idempotency record keeps.
    public var isSuccess: Bool { (200..<300).contains(self.status) }

    /// `a1\n<status>\n<field count>\n` then `<name>\n<value>\n` per field, then the body's bytes: binary-safe, since
    /// a field can hold no line feed (RFC 9110 §5.5).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(self.body.count + 64 + self.fields.count * 48)
        bytes.append(contentsOf: "a1\n\(self.status)\n\(self.fields.count)\n".utf8)
        for field in self.fields {
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(0x0A)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(0x0A)
        }
        bytes.append(contentsOf: self.body)
        return bytes
    }

    /// Reads ``encoded()``'s form; nil for anything else.
    public init?(encoded bytes: some Collection<UInt8>) {
        var rest = bytes[...]
        func line() -> String? {
            guard let end = rest.firstIndex(of: 0x0A) else { return nil }
            defer { rest = rest[rest.index(after: end)...] }
            return String(decoding: rest[..<end], as: UTF8.self)
        }
        guard line() == "a1", let status = line().flatMap({ Int($0) }), (100...599).contains(status),
            let count = line().flatMap({ Int($0) }), (0...256).contains(count)
        else { return nil }
        var fields: [Field] = []
        for _ in 0..<count {
            guard let name = line(), let value = line() else { return nil }
            fields.append(Field(name: name, value: value))
        }
        self.init(status: status, fields: fields, body: Array(rest))
    }
}
