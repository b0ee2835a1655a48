public import GatewayConfig

extension GatewayConfiguration {
    /// `validateForStart()` over the configured routes and `extraRoutes`, routes added in code.
    ///
    /// - Throws: every problem found.
    public func validateForStart(extraRoutes: [Route]) throws(ConfigurationError) {
        try self.validateForStart(extraRoutePolicies: extraRoutes.map { ($0.name, $0.rateLimit, $0.auth) })
    }
}
