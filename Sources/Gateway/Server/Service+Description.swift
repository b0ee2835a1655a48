// The service group logs each service at debug as `"\(service)"`: a struct's default description dumps every
// field (its logger's storage, its closures), which is not a log line. Each names itself and its address instead.

extension GatewayServer: CustomStringConvertible {
    public var description: String { "GatewayServer(\(self.host):\(self.port))" }
}

extension AdminServer: CustomStringConvertible {
    public var description: String { "AdminServer(\(self.host):\(self.port))" }
}

extension UpstreamProxy: CustomStringConvertible {
    public var description: String { "UpstreamProxy" }
}

extension RateLimitSweeper: CustomStringConvertible {
    var description: String { "RateLimitSweeper(every \(self.interval))" }
}

extension ReloadSignalService: CustomStringConvertible {
    var description: String { "ReloadSignalService(SIGHUP)" }
}
