/// Which primary serves each of the 16384 slots, as `CLUSTER SLOTS` reports it; pure, apart from I/O.
struct ClusterTopology: Equatable, Sendable {
    /// The primaries, in the order first seen.
    private(set) var nodes: [ClusterNodeAddress] = []
    /// Per slot: an index into `nodes` plus one; 0 for a slot no node serves.
    private(set) var owners: [UInt16] = Array(repeating: 0, count: ClusterKeySlot.count)

    init() {}

    /// Reads a `CLUSTER SLOTS` reply: `[[start, end, [host, port, id, …], replicas…], …]`. A host that is empty or
    /// `?` (Redis does not know the node's endpoint) is the host of the node that answered, `answeredBy`.
    init(slotsReply reply: RESPValue, answeredBy: ClusterNodeAddress) throws(RateLimitStoreError) {
        if case .error(let message) = reply {
            throw .unavailable.with(detail: "CLUSTER SLOTS failed: \(message)")
        }
        guard case .array(let ranges?) = reply else { throw .protocolError.with(detail: "CLUSTER SLOTS reply is not an array") }
        for range in ranges {
            guard case .array(let fields?) = range, fields.count >= 3,
                let start = fields[0].integer, let end = fields[1].integer,
                0 <= start, start <= end, end < ClusterKeySlot.count,
                case .array(let primary?) = fields[2], primary.count >= 2,
                let host = primary[0].string, let port = primary[1].integer, (1...65535).contains(port)
            else { throw .protocolError.with(detail: "malformed CLUSTER SLOTS entry") }
            let node = ClusterNodeAddress(host: host.isEmpty || host == "?" ? answeredBy.host : host, port: Int(port))
            for slot in Int(start)...Int(end) { self.assign(slot, to: node) }
        }
        guard !self.nodes.isEmpty else { throw .unavailable.with(detail: "the cluster serves no slots") }
    }

    /// The primary that serves `slot`, if any.
    func owner(of slot: Int) -> ClusterNodeAddress? {
        let index = Int(self.owners[slot])
        return index == 0 ? nil : self.nodes[index - 1]
    }

    /// The index in `nodes` of the primary that serves `slot`, if any.
    func ownerIndex(of slot: Int) -> Int? {
        let index = Int(self.owners[slot])
        return index == 0 ? nil : index - 1
    }

    /// Slots no primary serves (the cluster is down for their keys).
    var unservedSlotCount: Int { self.owners.reduce(0) { $0 + ($1 == 0 ? 1 : 0) } }

    /// Records that `node` serves `slot` (after a `MOVED`), adding the node when it is new.
    mutating func assign(_ slot: Int, to node: ClusterNodeAddress) {
        self.owners[slot] = UInt16(self.index(of: node) + 1)
    }

    /// The index of `node` in `nodes`, appending it when it is new.
    mutating func index(of node: ClusterNodeAddress) -> Int {
        if let index = self.nodes.firstIndex(of: node) { return index }
        self.nodes.append(node)
        return self.nodes.count - 1
    }
}
