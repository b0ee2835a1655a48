import CurlHTTP
import GoogleAuth
import Logging
import MetricsTestKit
import Revocation
import Synchronization
import TestSupport

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let seconds: Mutex<Double>
    init(_ start: Double = 1_800_000_000) { self.seconds = Mutex(start) }
    var now: Double { self.seconds.withLock { $0 } }
    func advance(by delta: Double) { self.seconds.withLock { $0 += delta } }
}

extension Logger {
    static var revocationTests: Logger {
        var logger = Logger(label: "RevocationTests")
        logger.logLevel = .critical
        return logger
    }
}

/// Local Google stand-ins (token endpoint, Identity Toolkit), a running client, and a checker wired to them.
struct RevocationHarness: Sendable {
    let oauth: LocalOAuthServer
    let toolkit: LocalIdentityToolkit
    let client: CurlClient
    let clock: ManualClock
    let metrics: TestMetrics

    func checker(_ settings: RevocationSettings = RevocationSettings(), toolkitURL: String? = nil) throws -> RevocationChecker {
        let account = try ServiceAccount(
            projectID: TestServiceAccount.projectID, clientEmail: TestServiceAccount.clientEmail, privateKeyID: TestServiceAccount.keyID,
            tokenURI: self.oauth.tokenURI, privateKey: TestServiceAccount.key
        )
        let clock = self.clock
        let tokens = ServiceAccountTokenSource(account: account, client: self.client, logger: .revocationTests, now: { clock.now })
        let lookup = IdentityToolkitLookup(
            baseURL: toolkitURL ?? self.toolkit.baseURL, projectID: TestServiceAccount.projectID, client: self.client, tokens: tokens
        )
        return RevocationChecker(
            settings: settings, lookup: lookup, metrics: RevocationMetrics(factory: self.metrics, policy: settings.failurePolicy),
            logger: .revocationTests, now: { clock.now }
        )
    }

    /// Runs `body` with fresh stand-ins; stops everything afterwards.
    static func with<Result: Sendable>(_ body: (RevocationHarness) async throws -> Result) async throws -> Result {
        let client = CurlClient(logger: .revocationTests)
        let run = Task { try await client.run() }
        defer { run.cancel() }
        return try await withShutdown(try await LocalOAuthServer.start()) { oauth in
            try await withShutdown(try await LocalIdentityToolkit.start(oauth: oauth)) { toolkit in
                try await body(RevocationHarness(oauth: oauth, toolkit: toolkit, client: client, clock: ManualClock(), metrics: TestMetrics()))
            }
        }
    }
}
