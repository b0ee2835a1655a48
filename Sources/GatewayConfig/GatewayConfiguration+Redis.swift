import RateLimiting

extension GatewayConfiguration {
    /// The forms `REDIS_URL` takes, for error messages.
    static let redisURLForm = "redis://[:password@]host:port[/db]"
    static let redisClusterURLForm = "redis://[:password@]host:port[,host:port...]"
    static let redisURLForms = "\(redisURLForm), or with REDIS_CLUSTER=on \(redisClusterURLForm)"

    /// `REDIS_URL` parses and fits `REDIS_CLUSTER`: several seed nodes only in cluster mode, a database only
    /// outside it. The URL is not echoed (it may hold a password).
    func validateRedis() throws(ConfigurationError) {
        guard let url = self.redisURL, let problem = RedisRateLimitStore.problem(withURL: url, cluster: self.redisCluster) else { return }
        let hidden = "(the value is not shown: it may hold a credential)"
        guard url.hasPrefix("redis") else {
            // Not a Redis URL at all: the form it must have is the whole answer.
            let form = self.redisCluster ? Self.redisClusterURLForm : Self.redisURLForm
            throw ConfigurationError(variable: "REDIS_URL", message: "must look like \(form) \(hidden)")
        }
        let mode = self.redisCluster ? " with REDIS_CLUSTER=on" : ""
        throw ConfigurationError(variable: "REDIS_URL", message: "cannot be used\(mode) \(hidden): \(problem); it must look like \(Self.redisURLForms)")
    }
}
