import StoryFunctions
import Yams

/// The media settings (`MediaConfiguration`) from the environment, the config file's `media` section, and back to YAML.
extension GatewayConfiguration {
    mutating func applyMedia(_ reader: EnvironmentReader) throws(ConfigurationError) {
        self.media.store = try reader.choice("MEDIA_STORE", default: self.media.store)
        self.media.delivery = try reader.choice("MEDIA_DELIVERY", default: self.media.delivery)
        self.media.urlTTLSeconds = try reader.integer("MEDIA_URL_TTL_SECONDS", default: self.media.urlTTLSeconds, in: ConfigurationBounds.mediaURLTTLSeconds)
        if let endpoint = reader.raw("S3_ENDPOINT") {
            guard MediaConfiguration.isValidEndpoint(endpoint) else {
                let shown = endpoint.contains("@") ? "" : ", not '\(endpoint.prefix(200))'"
                throw ConfigurationError(variable: "S3_ENDPOINT", message: "must be https://host[:port] with no path (plain http only to a loopback host)\(shown)")
            }
            self.media.s3Endpoint = endpoint
        }
        self.media.s3Bucket = try reader.optionalString("S3_BUCKET", expected: Expected.s3Bucket, validate: S3Settings.isValidBucket) ?? self.media.s3Bucket
        self.media.s3Region = try reader.string("S3_REGION", default: self.media.s3Region, expected: Expected.s3Region, validate: S3Settings.isValidRegion)
        self.media.s3Prefix = try reader.string("S3_PREFIX", default: self.media.s3Prefix, expected: Expected.s3Prefix, validate: S3Settings.isValidPrefix)
        self.media.s3Addressing = try reader.choice("S3_ADDRESSING", default: self.media.s3Addressing)
        if let path = reader.raw("S3_CREDENTIALS_FILE") {
            do {
                self.media.s3Credentials = try MediaConfiguration.readCredentials(path: path)
                self.media.s3CredentialsFile = path
            } catch {
                throw ConfigurationError(variable: "S3_CREDENTIALS_FILE", message: error.message)
            }
        }
        let keyID = reader.raw("AWS_ACCESS_KEY_ID"), secret = reader.raw("AWS_SECRET_ACCESS_KEY")
        switch (keyID, secret) {
        case (let keyID?, let secret?):
            self.media.s3Credentials = S3Credentials(accessKeyID: keyID, secretAccessKey: secret)
            self.media.s3CredentialsFile = nil
        case (nil, nil):
            break
        default:
            throw ConfigurationError(variable: keyID == nil ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY", message: "is required with the other half of the key pair")
        }
    }

    /// `media: {store, dir, delivery, url_ttl_seconds, s3: {endpoint, bucket, region, prefix, addressing, credentials_file}}`.
    var mediaNode: Node {
        typealias Y = YAMLNode
        let s3: [(String, Node)] = [
            ("endpoint", Y.optional(self.media.s3Endpoint.map(Y.string))),
            ("bucket", Y.optional(self.media.s3Bucket.map(Y.string))),
            ("region", Y.string(self.media.s3Region)),
            ("prefix", Y.string(self.media.s3Prefix)),
            ("addressing", Y.string(self.media.s3Addressing.rawValue)),
            ("credentials_file", self.media.s3CredentialsFile.map(Y.string) ?? Y.string(self.media.s3Credentials == nil ? "unset" : "<redacted>")),
        ]
        return Y.mapping([
            ("store", Y.string(self.media.store.rawValue)),
            ("delivery", Y.string(self.media.delivery.rawValue)),
            ("url_ttl_seconds", Y.int(self.media.urlTTLSeconds)),
            ("s3", Y.mapping(s3)),
        ])
    }
}

extension ConfigFile {
    static func applyMedia(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let media = try value.mapping(["store", "dir", "delivery", "url_ttl_seconds", "s3"])
        try media.assign(&configuration.media.store, "store") { value throws(ConfigurationError) in try value.choice(MediaConfiguration.Store.self) }
        try media.assign(&configuration.mediaDirectory, "dir") { value throws(ConfigurationError) in
            try value.string("a directory path", isValid: { !$0.isEmpty })
        }
        try media.assign(&configuration.media.delivery, "delivery") { value throws(ConfigurationError) in
            try value.choice(MediaConfiguration.Delivery.self)
        }
        try media.assign(&configuration.media.urlTTLSeconds, "url_ttl_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.mediaURLTTLSeconds)
        }
        guard let s3Value = media["s3"] else { return }
        let s3 = try s3Value.mapping(["endpoint", "bucket", "region", "prefix", "addressing", "credentials_file", "access_key_id", "secret_access_key"])
        try s3.assign(&configuration.media.s3Endpoint, "endpoint") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.url("an https URL with no path (http only to a loopback address)", isValid: MediaConfiguration.isValidEndpoint)
        }
        try s3.assign(&configuration.media.s3Bucket, "bucket") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.string("a bucket name (3 to 63 lowercase letters, digits, dots, hyphens)", isValid: S3Settings.isValidBucket)
        }
        try s3.assign(&configuration.media.s3Region, "region") { value throws(ConfigurationError) in
            try value.string("a region (letters, digits, hyphens; auto for R2)", isValid: S3Settings.isValidRegion)
        }
        try s3.assign(&configuration.media.s3Prefix, "prefix") { value throws(ConfigurationError) in
            try value.string("a prefix ending in / (letters, digits, - _ . /)", isValid: S3Settings.isValidPrefix)
        }
        try s3.assign(&configuration.media.s3Addressing, "addressing") { value throws(ConfigurationError) in
            try value.choice(S3Settings.Addressing.self)
        }
        for inline in ["access_key_id", "secret_access_key"] {
            try s3[inline]?.redactionPlaceholder(
                instead: "put the keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or in a file named by media.s3.credentials_file"
            )
        }
        guard let file = s3["credentials_file"], !file.isNull else { return }
        if let text = file.node.scalar?.string, ConfigValue.redactionPlaceholders.contains(text) { return }
        let path = try file.string("a file path", isValid: { !$0.isEmpty })
        do {
            configuration.media.s3Credentials = try MediaConfiguration.readCredentials(path: path)
            configuration.media.s3CredentialsFile = path
        } catch {
            throw file.error(error.message)
        }
    }
}
