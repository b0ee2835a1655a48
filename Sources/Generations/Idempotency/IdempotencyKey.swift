import RawStructuredFieldValues

/// The `Idempotency-Key` field (draft-ietf-httpapi-idempotency-key-header-07): one structured-field string
/// (RFC 8941 §3.3.3) of 1 to 255 characters, parameters ignored.
public struct IdempotencyKey: Sendable, Hashable {
    public static let fieldName = "Idempotency-Key"
    public static let maximumLength = 255

    public let value: String

    /// Why a field value is not a key.
    public enum Problem: Error, Sendable, Equatable {
        /// The field appears more than once.
        case repeated
        /// Not a structured-field string (a token, a number, unquoted text, a list).
        case notAString
        /// Empty, or longer than ``maximumLength``.
        case badLength
    }

    /// The key in the field's values (nil when there are none).
    public static func parse(_ values: [String]) throws(Problem) -> IdempotencyKey? {
        guard let first = values.first else { return nil }
        guard values.count == 1 else { throw .repeated }
        return try Self(fieldValue: first)
    }

    public init(fieldValue: String) throws(Problem) {
        var parser = StructuredFieldValueParser(Array(fieldValue.utf8))
        let item: Item
        do {
            item = try parser.parseItemFieldValue()
        } catch {
            throw .notAString
        }
        guard case .string(let text) = item.rfc9651BareItem else { throw .notAString }
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else { throw .badLength }
        self.value = text
    }
}
