import Yams

/// Firebase App Check at the edge (`APP_CHECK`, `firebase.app_check`): whether the `X-Firebase-AppCheck` header is
/// verified, for which project and apps, and where the keys and the replay-protection API are.
///
/// | key | variable | type | default |
/// |---|---|---|---|
/// | `firebase.project_number` | `FIREBASE_PROJECT_NUMBER` | digits | none; required when App Check is on anywhere (prod) |
/// | `firebase.app_check.mode` | `APP_CHECK` | `off`, `monitor`, `enforce` | `off` |
/// | `firebase.app_check.app_ids` | `APP_CHECK_APP_IDS` | list of Firebase app ids | empty: any app of the project |
/// | `firebase.app_check.jwks_url` | `APP_CHECK_JWKS_URL` | https URL (http only to loopback) | `defaultJWKSURL` |
/// | `firebase.app_check.api_url` | `APP_CHECK_API_URL` | https URL (http only to loopback) | `defaultAPIURL` |
public struct AppCheckSettings: Sendable, Equatable {
    /// What the gateway does with a request's App Check token.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Not read.
        case off
        /// Verified, counted and logged; the request goes on whatever the verdict.
        case monitor
        /// Verified; a missing or invalid token is refused with 401 `APP_CHECK_FAILED`.
        case enforce
    }

    public static let defaultJWKSURL = "https://firebaseappcheck.googleapis.com/v1/jwks"
    public static let defaultAPIURL = "https://firebaseappcheck.googleapis.com"
    /// The project number dev mode's tokens name when none is configured (`storygate mint-app-check`).
    public static let devProjectNumber = "100000000000"

    public var mode = Mode.off
    /// The Firebase project number (`iss` and `aud` of App Check tokens).
    public var projectNumber: String?
    /// The accepted app ids (`sub`); empty accepts every app of the project.
    public var appIDs: [String] = []
    public var jwksURL = Self.defaultJWKSURL
    public var apiURL = Self.defaultAPIURL

    public init() {}

    /// Firebase project numbers: 1 to 20 digits.
    static func isProjectNumber(_ text: String) -> Bool {
        (1...20).contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// A Firebase app id (`1:1234:web:abcd`): 1 to 128 visible ASCII characters, no comma.
    static func isAppID(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }
    }
}

extension AppCheckSettings.Mode: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}

extension GatewayConfiguration {
    /// The App Check mode of `route`: its own `app_check`, else the gateway's, except on `auth: none` routes (health,
    /// readiness, metrics, media), which App Check guards only when they say so themselves.
    public func appCheckMode(of route: RouteConfiguration) -> AppCheckSettings.Mode {
        route.appCheck ?? (route.auth == .none ? .off : self.appCheck.mode)
    }

    /// Whether any route verifies App Check tokens (the JWKS is then fetched, and `/readyz` waits for it).
    public var appCheckIsOn: Bool {
        self.routes.contains { self.appCheckMode(of: $0) != .off }
    }

    /// The project number App Check tokens must name: the configured one, or in dev mode the dev one.
    public var appCheckProjectNumber: String? {
        self.appCheck.projectNumber ?? (self.mode == .dev ? AppCheckSettings.devProjectNumber : nil)
    }

    /// The project id App Check tokens must name: the configured one, or in dev mode the dev one.
    public var appCheckProjectID: String? {
        self.firebaseProjectID ?? (self.mode == .dev ? Self.devProjectID : nil)
    }

    /// App Check needs a project number (prod). (`app_check_consume` on a route where App Check is off does nothing.)
    func validateAppCheck() throws(ConfigurationError) {
        if self.appCheckIsOn, self.appCheckProjectNumber == nil {
            throw ConfigurationError(
                variable: "FIREBASE_PROJECT_NUMBER",
                message: "is required when App Check is on (APP_CHECK=\(self.appCheck.mode.rawValue), or a route's app_check): set it (or firebase.project_number in the config file) to your Firebase project number, from the project settings"
            )
        }
    }

    mutating func applyAppCheck(_ reader: EnvironmentReader, problems: inout ConfigurationProblems) {
        problems.check { self.appCheck.mode = try reader.choice("APP_CHECK", default: self.appCheck.mode) }
        problems.check {
            self.appCheck.projectNumber = try reader.optionalString(
                "FIREBASE_PROJECT_NUMBER", expected: Expected.projectNumber, validate: AppCheckSettings.isProjectNumber
            ) ?? self.appCheck.projectNumber
        }
        if reader.raw("APP_CHECK_APP_IDS") != nil {
            problems.check {
                let ids = try reader.list("APP_CHECK_APP_IDS")
                if let bad = ids.first(where: { !AppCheckSettings.isAppID($0) }) {
                    throw ConfigurationError(variable: "APP_CHECK_APP_IDS", message: "has an entry that is not a Firebase app id: '\(bad.prefix(60))'")
                }
                self.appCheck.appIDs = ids
            }
        }
        problems.check {
            self.appCheck.jwksURL = try reader.url(
                "APP_CHECK_JWKS_URL", default: self.appCheck.jwksURL, expected: Expected.appCheckJWKSURL, validate: Self.isAllowedCertsURL
            )
        }
        problems.check {
            self.appCheck.apiURL = try reader.url(
                "APP_CHECK_API_URL", default: self.appCheck.apiURL, expected: Expected.appCheckAPIURL, validate: Self.isAllowedCertsURL
            )
        }
    }

    var appCheckNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("mode", Y.string(self.appCheck.mode.rawValue)),
            ("app_ids", Y.inlineList(self.appCheck.appIDs)),
            ("jwks_url", Y.string(self.appCheck.jwksURL)),
            ("api_url", Y.string(self.appCheck.apiURL)),
        ])
    }
}

extension ConfigFile {
    static func applyAppCheck(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let appCheck = try value.mapping(["mode", "app_ids", "jwks_url", "api_url"])
        try appCheck.assign(&configuration.appCheck.mode, "mode") { value throws(ConfigurationError) in try value.choice(AppCheckSettings.Mode.self) }
        try appCheck.assign(&configuration.appCheck.appIDs, "app_ids") { value throws(ConfigurationError) in
            try value.list().map { entry throws(ConfigurationError) in try entry.string("a Firebase app id such as 1:1234:web:abcd", isValid: AppCheckSettings.isAppID) }
        }
        try appCheck.assign(&configuration.appCheck.jwksURL, "jwks_url") { value throws(ConfigurationError) in
            try value.url("an https URL (http only to a loopback address)", isValid: GatewayConfiguration.isAllowedCertsURL)
        }
        try appCheck.assign(&configuration.appCheck.apiURL, "api_url") { value throws(ConfigurationError) in
            try value.url("an https URL (http only to a loopback address)", isValid: GatewayConfiguration.isAllowedCertsURL)
        }
    }
}

extension Expected {
    static let projectNumber = "be a Firebase project number (digits), such as 123456789012"
    static let appCheckJWKSURL =
        "be an absolute https URL such as \(AppCheckSettings.defaultJWKSURL) (plain http only to a loopback address, no user info)"
    static let appCheckAPIURL =
        "be an absolute https URL such as \(AppCheckSettings.defaultAPIURL) (plain http only to a loopback address, no user info)"
}
