/// The `server` and `proxy` sections of a config file (`ServerLimits`, `ProxySettings`).
extension ConfigFile {
    static func applyServer(_ value: ConfigValue, to limits: inout ServerLimits) throws(ConfigurationError) {
        let server = try value.mapping(ServerLimits.keys)
        try server.assign(&limits.maxHeaderBytes, "max_header_bytes") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.maxHeaderBytes)
        }
        try server.assign(&limits.maxHeaderCount, "max_header_count") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.maxHeaderCount)
        }
        try server.assign(&limits.maxBodyBytes, "max_body_bytes") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.maxBodyBytes)
        }
        try server.assign(&limits.headerTimeoutSeconds, "header_timeout_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.timeoutSeconds)
        }
        try server.assign(&limits.bodyTimeoutSeconds, "body_timeout_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.timeoutSeconds)
        }
        try server.assign(&limits.idleTimeoutSeconds, "idle_timeout_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.timeoutSeconds)
        }
        try server.assign(&limits.maxConnections, "max_connections") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.maxConnections)
        }
        try server.assign(&limits.shutdownGraceSeconds, "shutdown_grace_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.shutdownGraceSeconds)
        }
        for removed in ConfigurationReference.removed where server[removed.key.dropFirst("server.".count).description] != nil {
            limits.removedSettings.append(removed.key)
        }
    }

    static func applyProxy(_ value: ConfigValue, to settings: inout ProxySettings) throws(ConfigurationError) {
        let proxy = try value.mapping(ProxySettings.keys)
        try proxy.assign(&settings.identityHeaders, "identity_headers") { value throws(ConfigurationError) in
            try value.list().map { entry throws(ConfigurationError) in try entry.headerName() }
        }
        if let assertionValue = proxy["identity_assertion"] {
            let assertion = try assertionValue.mapping(ProxySettings.assertionKeys)
            try assertion.assign(&settings.assertionHeader, "header") { value throws(ConfigurationError) in
                let name = try value.headerName()
                if let reason = ProxySettings.reservedAssertionHeaderReason(name) { throw value.error(reason) }
                return name
            }
            if let inline = assertion["secret"] {
                try inline.redactionPlaceholder(instead: "put the key in a file named by proxy.identity_assertion.secret_file")
            }
            try assertion.assign(&settings.assertionSecret, "secret_file") { value throws(ConfigurationError) in
                try value.secretFile(minimumBytes: ConfigurationBounds.assertionSecretMinimumBytes)
            }
            try assertion.assign(&settings.acceptAssertions, "accept") { value throws(ConfigurationError) in try value.boolean() }
            try assertion.assign(&settings.assertionMaxAgeSeconds, "max_age_seconds") { value throws(ConfigurationError) in
                try value.number(in: ConfigurationBounds.assertionMaxAgeSeconds)
            }
        }
        try proxy.assign(&settings.connectTimeoutSeconds, "connect_timeout_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.connectTimeoutSeconds)
        }
        try proxy.assign(&settings.maxConnectionsPerUpstream, "max_connections_per_upstream") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.maxConnectionsPerUpstream)
        }
        try proxy.assign(&settings.idleTimeoutSeconds, "idle_timeout_seconds") { value throws(ConfigurationError) in
            try value.number(in: ConfigurationBounds.timeoutSeconds)
        }
    }
}

extension ConfigValue {
    /// An HTTP header name (an RFC 9110 token).
    func headerName() throws(ConfigurationError) -> String {
        try self.string("an HTTP header name", isValid: GatewayConfiguration.isHeaderName)
    }
}
