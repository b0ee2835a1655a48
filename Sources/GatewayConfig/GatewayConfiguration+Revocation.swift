import GoogleAuth
import Revocation
import Yams

/// The variables, file keys, start rules and `check-config` output of `RevocationConfiguration`, the service-account
/// file and the admin token.
extension GatewayConfiguration {
    mutating func applyRevocation(_ reader: EnvironmentReader, problems: inout ConfigurationProblems) {
        problems.check { self.revocation.check = try reader.choice("REVOCATION_CHECK", default: self.revocation.check) }
        problems.check {
            self.revocation.maxAgeSeconds = try reader.integer(
                "REVOCATION_MAX_AGE_SECONDS", default: self.revocation.maxAgeSeconds, in: ConfigurationBounds.revocationMaxAgeSeconds
            )
        }
        problems.check { self.revocation.failurePolicy = try reader.choice("REVOCATION_FAILURE_POLICY", default: self.revocation.failurePolicy) }
        problems.check {
            self.revocation.identityToolkitURL = try reader.url(
                "IDENTITY_TOOLKIT_URL", default: self.revocation.identityToolkitURL, expected: Expected.identityToolkitURL,
                validate: GoogleEndpointURL.isAllowed
            )
        }
        problems.check {
            self.googleCredentialsFile = try reader.optionalString(
                "GOOGLE_APPLICATION_CREDENTIALS", expected: Expected.filePath, validate: { !$0.isEmpty }
            ) ?? self.googleCredentialsFile
        }
        problems.check {
            self.adminToken = try reader.secretFile("ADMIN_TOKEN_FILE", minimumBytes: ConfigurationBounds.adminTokenMinimumBytes) ?? self.adminToken
        }
    }

    /// With the revocation check on, the service-account file must be set and usable (read now, as `serve` reads it).
    /// With it off the file is not required: `GOOGLE_APPLICATION_CREDENTIALS` is often set for other Google tools.
    /// What needs the Google service account, named for an error message; nil when nothing does. The revocation
    /// check looks users up with it; a route that consumes App Check tokens (with App Check on) sends them to
    /// Google's App Check API with it.
    package var googleCredentialsUser: String? {
        if self.revocation.check == .on { return "REVOCATION_CHECK=on" }
        if let route = self.routes.first(where: { $0.appCheckConsume && self.appCheckMode(of: $0) != .off }) {
            return "route \(route.name) consumes App Check tokens (app_check_consume with App Check on)"
        }
        return nil
    }

    func validateRevocationForStart() throws(ConfigurationError) {
        guard let user = self.googleCredentialsUser else { return }
        guard let path = self.googleCredentialsFile else {
            throw ConfigurationError(
                variable: "GOOGLE_APPLICATION_CREDENTIALS",
                message: "is required when \(user): set it (or google.credentials_file in the config file) to a service-account JSON key file, whose account may read users (Firebase Authentication Viewer) and verify App Check tokens (Firebase App Check Token Verifier)"
            )
        }
        do {
            _ = try ServiceAccount(contentsOfFile: path)
        } catch {
            throw ConfigurationError(variable: "GOOGLE_APPLICATION_CREDENTIALS", message: "names an unusable service-account file: \(error.detail)")
        }
    }

    var revocationNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("check", Y.string(self.revocation.check.rawValue)),
            ("max_age_seconds", Y.int(self.revocation.maxAgeSeconds)),
            ("failure_policy", Y.string(self.revocation.failurePolicy.rawValue)),
        ])
    }

    var googleNode: Node {
        YAMLNode.mapping([("credentials_file", YAMLNode.optional(self.googleCredentialsFile.map(YAMLNode.string)))])
    }

    /// The admin token prints as the file it was read from (`token_file`), never as itself.
    var adminTokenEntry: (String, Node) {
        ("token_file", YAMLNode.optional(self.adminToken?.path.map(YAMLNode.string)))
    }
}

extension ConfigFile {
    static func applyRevocation(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let revocation = try value.mapping(["check", "max_age_seconds", "failure_policy"])
        try revocation.assign(&configuration.revocation.check, "check") { value throws(ConfigurationError) in
            // YAML reads a bare on/off as a boolean.
            if let flag = try? value.boolean() { return flag ? .on : .off }
            return try value.choice(RevocationConfiguration.Check.self)
        }
        try revocation.assign(&configuration.revocation.maxAgeSeconds, "max_age_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.revocationMaxAgeSeconds)
        }
        try revocation.assign(&configuration.revocation.failurePolicy, "failure_policy") { value throws(ConfigurationError) in
            try value.choice(RevocationFailurePolicy.self)
        }
    }

    static func applyGoogle(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let google = try value.mapping(["credentials_file"])
        try google.assign(&configuration.googleCredentialsFile, "credentials_file") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.string("a file path", isValid: { !$0.isEmpty })
        }
    }

    /// `admin.token_file`, read with the rest of the `admin` section.
    static func applyAdminToken(_ admin: ConfigMapping, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        try admin.assign(&configuration.adminToken, "token_file") { value throws(ConfigurationError) in
            try value.secretFile(minimumBytes: ConfigurationBounds.adminTokenMinimumBytes)
        }
    }
}
