import ArgumentParser
import CurlHTTP
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `storygate healthcheck`: GETs the gateway's `/healthz` and exits 0 on a 2xx answer, 1 otherwise. For container
/// `HEALTHCHECK`s: the runtime image carries no curl, so the binary checks itself, over the same libcurl client
/// the gateway uses.
struct Healthcheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Exit 0 when the gateway answers its health URL with 2xx, 1 otherwise (for container health checks)."
    )

    @Option(help: "The URL to GET (default: http://127.0.0.1:$PORT/healthz, with PORT from the environment or 8080).")
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
        let url = self.url ?? Self.defaultURL(port: getenv("PORT").map { String(cString: $0) })
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

    /// `http://127.0.0.1:<port>/healthz`; a PORT that is not a port number falls back to 8080.
    static func defaultURL(port: String?) -> String {
        let number = port.flatMap(Int.init).flatMap { (1...65535).contains($0) ? $0 : nil } ?? 8080
        return "http://127.0.0.1:\(number)/healthz"
    }
}
