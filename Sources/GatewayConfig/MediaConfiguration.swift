public import StoryFunctions

/// Where generated media is kept and how `/media/<key>` hands it out. Every key, its variable and default:
///
/// | file key | variable | type | default |
/// |---|---|---|---|
/// | `media.store` | `MEDIA_STORE` | `file` or `s3` | `file` |
/// | `media.dir` (or `media_dir`) | `MEDIA_DIR` | the file store's directory | `./data/media` |
/// | `media.delivery` | `MEDIA_DELIVERY` | `proxy` (the gateway streams) or `redirect` (302 to a presigned store URL; s3 only) | `proxy` |
/// | `media.url_ttl_seconds` | `MEDIA_URL_TTL_SECONDS` | 1...604800: how long a presigned URL is valid | `900` |
/// | `media.s3.endpoint` | `S3_ENDPOINT` | https URL (http only to loopback) of the S3 API | none; required for s3 |
/// | `media.s3.bucket` | `S3_BUCKET` | bucket name | none; required for s3 |
/// | `media.s3.region` | `S3_REGION` | signing region (`auto` for R2) | `us-east-1` |
/// | `media.s3.prefix` | `S3_PREFIX` | object-name prefix ending in `/` | empty |
/// | `media.s3.addressing` | `S3_ADDRESSING` | `path` or `virtual` | `virtual` |
/// | `media.s3.credentials_file` | `S3_CREDENTIALS_FILE` | a file with the key pair (`S3Credentials.parse`) | none |
/// | | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` | the key pair (over the file) | none; required for s3 |
public struct MediaConfiguration: Sendable, Equatable {
    public enum Store: String, Sendable, Equatable, CaseIterable {
        case file, s3
    }

    public enum Delivery: String, Sendable, Equatable, CaseIterable {
        case proxy, redirect
    }

    public var store = Store.file
    public var delivery = Delivery.proxy
    public var urlTTLSeconds = 900
    public var s3Endpoint: String?
    public var s3Bucket: String?
    public var s3Region = "us-east-1"
    public var s3Prefix = ""
    public var s3Addressing = S3Settings.Addressing.virtual
    /// The file the key pair was read from, if it came from one (what `check-config` prints).
    public var s3CredentialsFile: String?
    /// The key pair; never printed.
    public var s3Credentials: S3Credentials?

    public init() {}

    /// The S3 store's settings, or an error naming what is missing; nil for the file store.
    public func s3Settings() throws(ConfigurationError) -> S3Settings? {
        guard self.store == .s3 else {
            guard self.delivery == .proxy else {
                throw ConfigurationError(variable: "MEDIA_DELIVERY", message: "redirect needs MEDIA_STORE=s3 (the file store has no URL to redirect to)")
            }
            return nil
        }
        guard let endpoint = self.s3Endpoint else {
            throw ConfigurationError(variable: "S3_ENDPOINT", message: "is required when MEDIA_STORE=s3 (e.g. https://s3.us-east-1.amazonaws.com)")
        }
        guard let bucket = self.s3Bucket else {
            throw ConfigurationError(variable: "S3_BUCKET", message: "is required when MEDIA_STORE=s3")
        }
        guard let credentials = self.s3Credentials else {
            throw ConfigurationError(
                variable: "AWS_ACCESS_KEY_ID",
                message: "and AWS_SECRET_ACCESS_KEY (or S3_CREDENTIALS_FILE) are required when MEDIA_STORE=s3"
            )
        }
        return S3Settings(
            endpoint: endpoint, bucket: bucket, region: self.s3Region, prefix: self.s3Prefix, addressing: self.s3Addressing,
            credentials: credentials
        )
    }

    /// An S3 endpoint: `scheme://host[:port]` with nothing after it, https (http only to loopback, as certificates).
    static func isValidEndpoint(_ url: String) -> Bool {
        guard GatewayConfiguration.isAllowedCertsURL(url) else { return false }
        let authority = url.dropFirst(url.hasPrefix("https://") ? 8 : 7)
        let trimmed = authority.hasSuffix("/") ? authority.dropLast() : authority
        return !trimmed.isEmpty && !trimmed.contains("/") && !trimmed.contains("?") && !trimmed.contains("#")
    }

    /// The key pair in the file at `path`, or an error naming the file (never its content).
    static func readCredentials(path: String) throws(SecretFileError) -> S3Credentials {
        let secret = try Secret.read(path: path, minimumBytes: 1)
        guard let credentials = S3Credentials.parse(secret.value) else {
            throw SecretFileError(
                message: "does not hold an S3 key pair (AWS_ACCESS_KEY_ID=… and AWS_SECRET_ACCESS_KEY=… lines, or the key id and the secret on two lines)"
            )
        }
        return credentials
    }
}

extension MediaConfiguration.Store: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}

extension MediaConfiguration.Delivery: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}

extension S3Settings.Addressing: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}
