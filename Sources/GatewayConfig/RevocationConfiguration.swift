public import Revocation

/// The revocation check's settings (`firebase.revocation`, `firebase.identity_toolkit_url`), the service account it
/// looks users up with (`google.credentials_file`) and the admin route's bearer secret (`admin.token_file`).
///
/// | Key | Variable | Values | Default |
/// |---|---|---|---|
/// | `firebase.revocation.check` | `REVOCATION_CHECK` | `off`, `on` | `off` |
/// | `firebase.revocation.max_age_seconds` | `REVOCATION_MAX_AGE_SECONDS` | 1 to 86400 | `300` |
/// | `firebase.revocation.failure_policy` | `REVOCATION_FAILURE_POLICY` | `open`, `closed` | `open` |
/// | `firebase.identity_toolkit_url` | `IDENTITY_TOOLKIT_URL` | https URL (http to loopback) | Google's |
/// | `google.credentials_file` | `GOOGLE_APPLICATION_CREDENTIALS` | a service-account JSON file | none |
/// | `admin.token_file` | `ADMIN_TOKEN_FILE` | a file holding at least 16 bytes | none: no admin route |
public struct RevocationConfiguration: Sendable, Equatable {
    public enum Check: String, Sendable, Equatable {
        case off, on
    }

    public static let defaultIdentityToolkitURL = "https://identitytoolkit.googleapis.com"

    public var check = Check.off
    public var maxAgeSeconds = Int(RevocationSettings.defaultMaxAge)
    public var failurePolicy = RevocationFailurePolicy.open
    public var identityToolkitURL = Self.defaultIdentityToolkitURL

    public init() {}

    /// The checker's settings.
    public var settings: RevocationSettings {
        RevocationSettings(maxAge: Double(self.maxAgeSeconds), failurePolicy: self.failurePolicy)
    }
}

extension RevocationConfiguration.Check: CaseNamed {
    static var names: [String] { ["off", "on"] }
}

extension RevocationFailurePolicy: CaseNamed {
    static var names: [String] { ["open", "closed"] }
}
