/// Where the admin listener binds (`admin:` in the config file, `ADMIN_HOST`/`ADMIN_PORT`). It serves `/metrics`,
/// `/healthz`, `/readyz` and `/config` apart from the public port, on loopback by default as Envoy's admin does.
///
/// | key | type | default |
/// |---|---|---|
/// | `host` | a host name or IP address | `127.0.0.1` |
/// | `port` | 0 to 65535 (0: a free port), or `off` | `9901` |
public struct AdminListener: Sendable, Equatable {
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 9901

    public var host: String
    public var port: Int

    public init(host: String = Self.defaultHost, port: Int = Self.defaultPort) {
        self.host = host
        self.port = port
    }
}
