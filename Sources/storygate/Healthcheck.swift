import ArgumentParser
import CurlHTTP
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `storygate healthcheck`: GETs the gateway's `/readyz` and exits 0 on a 2xx answer, 1 otherwise. For container
/// `HEALTHCHECK`s: the runtime image carries no curl, so the binary checks itself, over the same libcurl client
/// the gateway uses. It asks the admin listener, as the kubelet does, and the public one only with `ADMIN_PORT=off`.
struct Healthcheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the gateway answers its health URL with 2xx, 1 otherwise (for container health checks)."
    )

    @Option(
        help: """
            The URL to GET (default: the admin listener's /readyz, http://127.0.0.1:$ADMIN_PORT/readyz with ADMIN_PORT \
            from the environment or 9901; with ADMIN_PORT=off or 0, the public listener's http://127.0.0.1:$PORT/readyz).
            """
    )
    var url: String?

    @Option(name: .customLong("timeout-seconds"), help: "How long the check may take, connecting included.")
    var timeoutSeconds: Int = 3

    func validate() throws {
        guard (1...300).contains(self.timeoutSeconds) else { throw ValidationError("--timeout-seconds must be from 1 to 300") }
        if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw ValidationError("--url must be an http:// or https:// URL")
        }
    }

    func run() async throws {
        let url = self.url ?? Self.defaultURL(environment: Self.listenerEnvironment())
        let client = CurlClient(logger: Logger(label: "storygate.healthcheck", factory: { _ in SwiftLogNoOpLogHandler() }))
        let driver = Task { try await client.run() }
        let request = CurlRequest(
            url: url, connectTimeout: .seconds(self.timeoutSeconds), timeout: .seconds(self.timeoutSeconds), maxResponseBytes: 64 * 1024
        )
        let outcome: Result<Int, any Error>
        do {
            outcome = .success(try await client.execute(request).status)
        } catch {
            outcome = .failure(error)
        }
        driver.cancel()
        _ = await driver.result
        switch outcome {
        case .success(let status) where (200..<300).contains(status):
            print("healthy: \(url) answered \(status)")
        case .success(let status):
            print("unhealthy: \(url) answered \(status)")
            throw ExitCode(1)
        case .failure(let error):
            print("unhealthy: \(url): \(error)")
            throw ExitCode(1)
        }
    }

    /// The `/readyz` of the listener `serve` would start with `environment`: the admin listener (`ADMIN_HOST`,
    /// `ADMIN_PORT`, default 9901), or the public one (`HOST`, `PORT`, default 8080) when `ADMIN_PORT` is `off`, or `0`
    /// (a port only the running gateway knows). A wildcard host is probed on loopback; a port that is not a port
    /// number falls back to the default.
    static func defaultURL(environment: [String: String]) -> String {
        let adminPort = environment["ADMIN_PORT"]
        if adminPort?.lowercased() != "off", adminPort != "0" {
            let port = Self.port(adminPort) ?? 9901
            return "http://\(Self.probeHost(environment["ADMIN_HOST"])):\(port)/readyz"
        }
        let port = Self.port(environment["PORT"]) ?? 8080
        return "http://\(Self.probeHost(environment["HOST"])):\(port)/readyz"
    }

    /// The variables `defaultURL` reads, from this process's environment.
    private static func listenerEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["ADMIN_HOST", "ADMIN_PORT", "HOST", "PORT"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    private static func port(_ text: String?) -> Int? {
        text.flatMap(Int.init).flatMap { (1...65535).contains($0) ? $0 : nil }
    }

    /// Where to reach a listener bound to `host`: loopback for a wildcard or no host, IPv6 literals in brackets.
    private static func probeHost(_ host: String?) -> String {
        switch host {
        case nil, "", "0.0.0.0", "localhost": "127.0.0.1"
        case "::", "[::]": "[::1]"
        case let host? where host.contains(":") && !host.hasPrefix("["): "[\(host)]"
        case let host?: host
        }
    }
}
