/// The kind of a JSON value.
enum JSONKind: UInt8, Sendable {
    case string, number, object, array, `true`, `false`, null
}

/// One member of a parsed top-level JSON object, as byte offsets into the parsed buffer.
///
/// For strings the value range is the text between the quotes (still escaped when `valueHasEscapes`);
/// for every other kind it is the value's whole JSON text.
struct JSONMember: Sendable {
    var keyStart: Int32
    var keyEnd: Int32
    var valueStart: Int32
    var valueEnd: Int32
    var kind: JSONKind
    var keyHasEscapes: Bool
    var valueHasEscapes: Bool
}

/// One element of a parsed JSON array, as byte offsets into the parsed buffer (strings without their quotes).
struct JSONElement: Sendable {
    var valueStart: Int32
    var valueEnd: Int32
    var kind: JSONKind
    var valueHasEscapes: Bool
}

/// Why a JSON text was refused; `message` is safe to show (it quotes nothing from the input).
struct JSONError: Error, Sendable, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
