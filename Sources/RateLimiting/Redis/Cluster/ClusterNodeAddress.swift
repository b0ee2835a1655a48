/// A cluster node as `CLUSTER SLOTS` and redirections name it: host (or IP) and port.
struct ClusterNodeAddress: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    /// `host:port`, an IPv6 address in brackets.
    var description: String { self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)" }
}
