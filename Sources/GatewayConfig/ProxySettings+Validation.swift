/// The checks on `proxy:` that do not depend on where a value came from (file, variable or code), run when the
/// configuration is loaded, so `check-config` reports them rather than the first start.
extension ProxySettings {
    /// - Throws: for an identity header or assertion header that is not an HTTP field name, an assertion header the
    ///   gateway uses for something else, a key shorter than 32 bytes, or a duration out of its range.
    func validate() throws(ConfigurationError) {
        for name in self.identityHeaders where !GatewayConfiguration.isHeaderName(name) {
            throw ConfigurationError(variable: "proxy.identity_headers", message: "has an entry that is not an HTTP header name: '\(name.prefix(60))'")
        }
        guard GatewayConfiguration.isHeaderName(self.assertionHeader) else {
            throw ConfigurationError(variable: "proxy.identity_assertion.header", message: "must be an HTTP header name, not '\(self.assertionHeader.prefix(60))'")
        }
        if let reason = Self.reservedAssertionHeaderReason(self.assertionHeader) {
            throw ConfigurationError(variable: "proxy.identity_assertion.header", message: reason)
        }
        if let secret = self.assertionSecret, secret.value.utf8.count < ConfigurationBounds.assertionSecretMinimumBytes {
            throw ConfigurationError(
                variable: "proxy.identity_assertion.secret_file",
                message: "must hold at least \(ConfigurationBounds.assertionSecretMinimumBytes) bytes (for example `openssl rand -base64 48`)"
            )
        }
        try Self.check(self.assertionMaxAgeSeconds, in: ConfigurationBounds.assertionMaxAgeSeconds, "proxy.identity_assertion.max_age_seconds")
        try Self.check(self.idleTimeoutSeconds, in: ConfigurationBounds.timeoutSeconds, "proxy.idle_timeout_seconds")
        try Self.check(self.connectTimeoutSeconds, in: ConfigurationBounds.connectTimeoutSeconds, "proxy.connect_timeout_seconds")
        guard ConfigurationBounds.maxConnectionsPerUpstream.contains(self.maxConnectionsPerUpstream) else {
            let range = ConfigurationBounds.maxConnectionsPerUpstream
            throw ConfigurationError(
                variable: "proxy.max_connections_per_upstream", message: "must be from \(range.lowerBound) to \(range.upperBound), not \(self.maxConnectionsPerUpstream)"
            )
        }
    }

    /// Fields the gateway sets, strips or reads for a purpose of their own, in either direction: an assertion carried
    /// in one would be dropped, doubled or taken for something else.
    static let reservedAssertionHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "expect",
        "authorization", "cookie", "x-user-id", "x-request-id", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "forwarded",
    ]

    /// Why `name` cannot carry the identity assertion, or nil when it can.
    static func reservedAssertionHeaderReason(_ name: String) -> String? {
        let lowercased = name.lowercased()
        guard Self.reservedAssertionHeaders.contains(lowercased) || lowercased.hasPrefix("proxy-") else { return nil }
        return "must not be '\(name)': the gateway sets, removes or reads that header for another purpose (the default is X-StoryGate-Identity)"
    }

    private static func check(_ value: Double, in range: ClosedRange<Double>, _ key: String) throws(ConfigurationError) {
        guard range.contains(value) else {
            throw ConfigurationError(variable: key, message: "must be a number from \(range.lowerBound.plainText) to \(range.upperBound.plainText), not \(value.plainText)")
        }
    }
}
