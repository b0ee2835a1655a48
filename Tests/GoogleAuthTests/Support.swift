import CurlHTTP
import GoogleAuth
import IDTokens
import Logging
import Synchronization
import TestSupport
import Testing

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let seconds: Mutex<Double>
    init(_ start: Double = 1_800_000_000) { self.seconds = Mutex(start) }
    var now: Double { self.seconds.withLock { $0 } }
    func advance(by delta: Double) { self.seconds.withLock { $0 += delta } }
}

extension Logger {
    static var googleAuthTests: Logger {
        var logger = Logger(label: "GoogleAuthTests")
        logger.logLevel = .critical
        return logger
    }
}

/// Runs `body` with a local OAuth endpoint and a running ``CurlClient``; stops both afterwards.
func withTokenEndpoint<Result: Sendable>(_ body: (LocalOAuthServer, CurlClient) async throws -> Result) async throws -> Result {
    let client = CurlClient(logger: .googleAuthTests)
    let run = Task { try await client.run() }
    defer { run.cancel() }
    return try await withShutdown(try await LocalOAuthServer.start()) { server in
        try await body(server, client)
    }
}

func testAccount(tokenURI: String, key: RSAPrivateKey = TestServiceAccount.key) throws -> ServiceAccount {
    try ServiceAccount(
        projectID: TestServiceAccount.projectID, clientEmail: TestServiceAccount.clientEmail, privateKeyID: TestServiceAccount.keyID,
        tokenURI: tokenURI, privateKey: key
    )
}

/// The error `operation` throws, or nil (recorded as an issue) when it returns.
func thrownError(_ operation: () async throws -> String) async -> (any Error)? {
    do {
        let value = try await operation()
        Issue.record("expected an error, got \(value)")
        return nil
    } catch {
        return error
    }
}
