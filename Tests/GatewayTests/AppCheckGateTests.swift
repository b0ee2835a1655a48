import CurlHTTP
import HTTPTypes
import Prometheus
import Foundation
import IDTokens
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

@testable import Gateway
@testable import GatewayConfig

/// A stand-in for Google's `verifyAppCheckToken`: checks the method, path, bearer, content type and body strictly,
/// and remembers the tokens it has consumed.
final class AppCheckAPIStandIn: Sendable {
    static let accessToken = "test-access-token-0123"
    static let path = "/v1beta/projects/\(TestKeys.projectID):verifyAppCheckToken"

    let consumed = Mutex<Set<String>>([])
    let calls = Mutex(0)
    /// Answer every call with 503.
    let failing = Mutex(false)
    /// Whether a bearer token is Google's (default: ``accessToken``).
    let accepts: @Sendable (String) -> Bool

    init(accepts: @escaping @Sendable (String) -> Bool = { $0 == AppCheckAPIStandIn.accessToken }) {
        self.accepts = accepts
    }

    func respond(to request: LocalRequest) -> LocalResponse {
        self.calls.withLock { $0 += 1 }
        if self.failing.withLock({ $0 }) { return .json(#"{"error":{"code":503}}"#, status: 503) }
        guard request.method == "POST", request.path == Self.path else { return .json(#"{"error":{"code":404}}"#, status: 404) }
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer "),
              self.accepts(String(authorization.dropFirst("Bearer ".count)))
        else { return .json(#"{"error":{"code":401}}"#, status: 401) }
        guard request.header("Content-Type") == "application/json",
              let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], body.count == 1,
              let token = body["app_check_token"] as? String, !token.isEmpty
        else { return .json(#"{"error":{"code":400}}"#, status: 400) }
        let replay = !self.consumed.withLock { $0.insert(token).inserted }
        return .json(replay ? #"{"ttl":"3600s","alreadyConsumed":true}"# : #"{"ttl":"3600s"}"#)
    }
}

/// A key source that always serves one JWKS.
struct FixedJWKSSource: CertificateSource {
    let body: [UInt8]
    var description: String { "fixed" }
    func fetch() async throws -> CertificateDocument { CertificateDocument(body: self.body, maxAge: 3600) }
}

@Suite("App Check: the request step (modes, header, consume) and the consume client")
struct AppCheckGateTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` with a gate whose keys trust TestKeys.primary and whose consumer calls the stand-in.
    func withGate(
        accessToken: String = AppCheckAPIStandIn.accessToken, withConsumer: Bool = true,
        _ body: (AppCheckGate, AppCheckAPIStandIn, GatewayMetrics) async throws -> Void
    ) async throws {
        let standIn = AppCheckAPIStandIn()
        try await withLocalHTTPServer({ standIn.respond(to: $0) }) { server in
            let client = CurlClient(logger: Self.logger)
            let clientGroup = ServiceGroup(services: [client], logger: Self.logger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await clientGroup.run() }
                let store = CertificateStore(
                    projectID: "app-check", source: FixedJWKSSource(body: TestKeys.appCheckJWKS([(TestKeys.primaryKeyID, TestKeys.primary)])),
                    format: .jwks, logger: Self.logger
                )
                await store.refresh()
                let authenticator = AppCheckAuthenticator(
                    rules: AppCheckClaimRules(projectNumber: TestKeys.projectNumber, projectID: TestKeys.projectID, clockSkew: 0),
                    keys: store, cache: TokenCache(capacity: 100)
                )
                let consumer = AppCheckConsumer(apiURL: server.baseURL + "/", projectID: TestKeys.projectID, client: client) { accessToken }
                let metrics = GatewayMetrics()
                let gate = AppCheckGate(
                    authenticator: authenticator, consumer: withConsumer ? consumer : nil, metrics: metrics.appCheck, logger: Self.logger
                )
                do {
                    try await body(gate, standIn, metrics)
                } catch {
                    await clientGroup.triggerGracefulShutdown()
                    throw error
                }
                await clientGroup.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    static func policy(_ mode: AppCheckSettings.Mode, consume: Bool = false) -> AppCheckGate.Policy {
        AppCheckGate.Policy(route: "story-generation", mode: mode, consume: consume)
    }

    static func token(setting: [String: String] = [:]) -> Substring {
        Substring(TokenFactory().appCheckToken(now: WallClock.now(), setting: setting))
    }

    static func code(_ verdict: AppCheckGate.Verdict?) -> String? {
        guard let error = verdict?.refusal else { return nil }
        return "\(error.status.code) \(error.code)"
    }

    /// Whether the step let the request on.
    static func passes(_ verdict: AppCheckGate.Verdict?) -> Bool {
        verdict != nil && verdict?.refusal == nil
    }

    @Test("off never reads the header; monitor lets every request through; enforce refuses missing and bad tokens")
    func modes() async throws {
        try await self.withGate { gate, _, metrics in
            let good = [Self.token()]
            let expired = [Self.token(setting: ["exp": "1000", "iat": "900"])]
            let missing: [Substring] = []
            for values in [good, expired, missing] {
                #expect(Self.passes(gate.checkNow(values, policy: Self.policy(.off))))
                #expect(Self.passes(gate.checkNow(values, policy: Self.policy(.monitor))))
                #expect(Self.passes(await gate.check(values, policy: Self.policy(.monitor))))
            }
            #expect(Self.passes(gate.checkNow(good, policy: Self.policy(.enforce))))
            #expect(Self.code(gate.checkNow(missing, policy: Self.policy(.enforce))) == "401 APP_CHECK_FAILED")
            #expect(Self.code(gate.checkNow([""], policy: Self.policy(.enforce))) == "401 APP_CHECK_FAILED")
            let refused = gate.checkNow(expired, policy: Self.policy(.enforce))
            #expect(Self.code(refused) == "401 APP_CHECK_FAILED")
            #expect(refused?.refusal?.message == "The App Check token has expired.")
            #expect(refused?.refusal?.reason == "app_check_expired")
            #expect(refused?.outcome == "expired")
            #expect(gate.checkNow(good, policy: Self.policy(.monitor))?.outcome == "valid")
            #expect(gate.checkNow(missing, policy: Self.policy(.monitor))?.outcome == "missing")
            #expect(gate.checkNow(good, policy: Self.policy(.off))?.outcome == "off")
            #expect(Self.code(gate.checkNow(good + good, policy: Self.policy(.enforce))) == "401 APP_CHECK_FAILED")
            #expect(Self.code(await gate.check(missing, policy: Self.policy(.enforce))) == "401 APP_CHECK_FAILED")
            let text = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="monitor",outcome="valid"} 3"#))
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="monitor",outcome="expired"} 2"#))
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="monitor",outcome="missing"} 3"#))
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="enforce",outcome="missing"} 3"#))
            #expect(!text.contains(#"mode="off""#))
        }
    }

    @Test("an unknown kid cannot be settled without suspending; the full check refetches and refuses")
    func unknownKey() async throws {
        try await self.withGate { gate, _, _ in
            let stranger = [Substring(TokenFactory(key: TestKeys.other, keyID: "stranger").appCheckToken(now: WallClock.now()))]
            #expect(gate.checkNow(stranger, policy: Self.policy(.enforce)) == nil)
            #expect(Self.code(await gate.check(stranger, policy: Self.policy(.enforce))) == "401 APP_CHECK_FAILED")
        }
    }

    @Test("consume: the first use passes, a replay is 401 APP_CHECK_REPLAYED in enforce and counted in monitor")
    func consume() async throws {
        try await self.withGate { gate, standIn, metrics in
            let token = [Self.token()]
            #expect(gate.checkNow(token, policy: Self.policy(.enforce, consume: true)) == nil)
            #expect(Self.passes(await gate.check(token, policy: Self.policy(.enforce, consume: true))))
            #expect(Self.code(await gate.check(token, policy: Self.policy(.enforce, consume: true))) == "401 APP_CHECK_REPLAYED")
            #expect(Self.passes(await gate.check(token, policy: Self.policy(.monitor, consume: true))))
            #expect(standIn.calls.withLock { $0 } == 3)
            // A token refused by the rules is never sent to Google.
            #expect(Self.code(await gate.check([Self.token(setting: ["aud": "[]"])], policy: Self.policy(.enforce, consume: true))) == "401 APP_CHECK_FAILED")
            #expect(standIn.calls.withLock { $0 } == 3)
            let text = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="monitor",outcome="replayed"} 1"#))
            #expect(text.contains(#"storygate_app_check_results_total{route="story-generation",mode="enforce",outcome="replayed"} 1"#))
        }
    }

    @Test("consume when Google cannot answer: 503 UNAVAILABLE in enforce, let through in monitor")
    func consumeUnavailable() async throws {
        try await self.withGate { gate, standIn, _ in
            standIn.failing.withLock { $0 = true }
            #expect(Self.code(await gate.check([Self.token()], policy: Self.policy(.enforce, consume: true))) == "503 UNAVAILABLE")
            #expect(Self.passes(await gate.check([Self.token()], policy: Self.policy(.monitor, consume: true))))
        }
        try await self.withGate(withConsumer: false) { gate, _, _ in
            #expect(Self.code(await gate.check([Self.token()], policy: Self.policy(.enforce, consume: true))) == "503 UNAVAILABLE")
        }
    }

    @Test("the consume client sends the bearer, path and body the API expects; a wrong bearer is a failure")
    func consumerWire() async throws {
        try await self.withGate { gate, standIn, _ in
            let consumer = try #require(gate.consumer)
            let token = Self.token()
            #expect(try await consumer.consume(token) == false)
            #expect(try await consumer.consume(token) == true)
            #expect(standIn.consumed.withLock { $0 } == [String(token)])
        }
        try await self.withGate(accessToken: "wrong") { gate, standIn, _ in
            let consumer = try #require(gate.consumer)
            await #expect(throws: AppCheckConsumer.Failure.self) { try await consumer.consume(Self.token()) }
            #expect(standIn.consumed.withLock { $0 }.isEmpty)
        }
    }

    @Test("the answer's alreadyConsumed is read strictly")
    func answerParsing() {
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array(#"{"alreadyConsumed":true}"#.utf8)) == true)
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array(#"{"ttl":"3600s","alreadyConsumed":false}"#.utf8)) == false)
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array(#"{"ttl":"3600s"}"#.utf8)) == false)
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array(#"{"alreadyConsumed":"true"}"#.utf8)) == nil)
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array("[]".utf8)) == nil)
        #expect(AppCheckConsumption.alreadyConsumed(responseBody: Array(#"{"alreadyConsumed":true,"alreadyConsumed":false}"#.utf8)) == nil)
        #expect(AppCheckConsumption.requestBody(token: "a.b.c") == Array(#"{"app_check_token":"a.b.c"}"#.utf8))
    }
}
