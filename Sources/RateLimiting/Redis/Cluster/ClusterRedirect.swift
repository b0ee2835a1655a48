/// A `MOVED` or `ASK` error reply: the slot now (or for this one command) served by another node.
///
/// `MOVED 3999 127.0.0.1:6381` means the slot has moved for good (update the map); `ASK 3999 127.0.0.1:6381`
/// means this one command goes to that node after `ASKING` (a migration is under way; the map stays).
struct ClusterRedirect: Equatable, Sendable {
    enum Kind: Sendable {
        case moved, ask
    }

    let kind: Kind
    let slot: Int
    let node: ClusterNodeAddress

    /// Parses `reply` when it is a redirection. An empty host (Redis's "unknown endpoint") means the host of the node
    /// that answered, `answeredBy`.
    init?(_ reply: RESPValue, answeredBy: ClusterNodeAddress) {
        guard case .error(let message) = reply else { return nil }
        let kind: Kind
        if message.hasPrefix("MOVED ") {
            kind = .moved
        } else if message.hasPrefix("ASK ") {
            kind = .ask
        } else {
            return nil
        }
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), (0..<ClusterKeySlot.count).contains(slot),
            let colon = parts[2].lastIndex(of: ":"), let port = Int(parts[2][parts[2].index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        var host = parts[2][..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.kind = kind
        self.slot = slot
        self.node = ClusterNodeAddress(host: host.isEmpty ? answeredBy.host : String(host), port: port)
    }
}
