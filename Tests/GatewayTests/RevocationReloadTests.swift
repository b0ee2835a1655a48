import CurlHTTP
import Foundation
@testable import Gateway
@testable import GatewayConfig
import TestSupport
import Testing

/// The revocation check across `reload()` (SIGHUP): the admin secret file is rotated live; the check's own settings
/// need a restart and are kept.
@Suite struct RevocationReloadTests {
    static func config(folder: ReloadTests.ConfigFolder, toolkit: String, maxAge: Int = 300) -> String {
        """
        env: dev
        access_log: false
        listen: {host: 127.0.0.1, port: 0}
        admin: {port: 0, token_file: '\(folder.path)/admin-token'}
        firebase:
          project_id: storygate-test
          certs_url: http://127.0.0.1:9/certs
          identity_toolkit_url: \(toolkit)
          revocation: {check: "on", max_age_seconds: \(maxAge)}
        google: {credentials_file: '\(folder.path)/service-account.json'}

        """
    }

    static func drop(_ gateway: GatewayHarness, secret: String) async throws -> Int {
        try await gateway.request(
            "POST", "/admin/v1/revocations", headers: [("Authorization", "Bearer " + secret), ("Content-Type", "application/json")],
            body: Array(#"{"uid":"someone"}"#.utf8)
        ).status
    }

    @Test func aRotatedAdminSecretAppliesAndTheCheckSettingsNeedARestart() async throws {
        try await withShutdown(try await LocalOAuthServer.start()) { oauth in
            let folder = try ReloadTests.ConfigFolder()
            try folder.write("first-admin-secret-0123456789", to: "admin-token")
            try folder.write(TestServiceAccount.json(tokenURI: oauth.tokenURI), to: "service-account.json")
            try folder.write(Self.config(folder: folder, toolkit: "http://127.0.0.1:9"))
            try await GatewayHarness.run(waitUntilReady: false, source: folder.source) { gateway in
                let checker = try #require(gateway.application.revocation?.checker)
                #expect(try await Self.drop(gateway, secret: "first-admin-secret-0123456789") == 200)
                try folder.write("second-admin-secret-0123456789", to: "admin-token")
                try folder.write(Self.config(folder: folder, toolkit: "http://127.0.0.1:9", maxAge: 60))
                guard case .applied(let changes) = gateway.application.reload() else {
                    Issue.record("the reload was refused")
                    return
                }
                #expect(changes.applied.map(\.key) == ["admin.token_file"])
                #expect(changes.needsRestart == ["firebase.revocation"])
                #expect(gateway.application.currentConfiguration.revocation.maxAgeSeconds == 300)
                #expect(gateway.application.revocation?.checker === checker)
                #expect(try await Self.drop(gateway, secret: "first-admin-secret-0123456789") == 401)
                #expect(try await Self.drop(gateway, secret: "second-admin-secret-0123456789") == 200)
            }
        }
    }
}
