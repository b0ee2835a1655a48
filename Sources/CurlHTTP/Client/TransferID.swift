/// Identifies one call to ``CurlClient/execute(_:)`` for its whole life.
struct TransferID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    var description: String { "transfer-\(self.rawValue)" }
}
