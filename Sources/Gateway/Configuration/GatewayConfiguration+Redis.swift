import RateLimiting

extension GatewayConfiguration {
    /// The forms `REDIS_URL` takes, for error messages.
    static let redisURLForms = "redis://[:password@]host:port[/db], or with REDIS_CLUSTER=on redis://[:password@]host:port[,host:port...]"

    /// `REDIS_URL` parses and fits `REDIS_CLUSTER`: several seed nodes only in cluster mode, a database only
    /// outside it. The URL is not echoed (it may hold a password).
    func validateRedis() throws(ConfigurationError) {
        guard let url = self.redisURL, let problem = RedisRateLimitStore.problem(withURL: url, cluster: self.redisCluster) else { return }
        let mode = self.redisCluster ? " (REDIS_CLUSTER is on)" : ""
        throw ConfigurationError(
            variable: "REDIS_URL",
            message: "cannot be used\(mode) (value not shown: it may hold a credential): \(problem); expected \(Self.redisURLForms)"
        )
    }
}
