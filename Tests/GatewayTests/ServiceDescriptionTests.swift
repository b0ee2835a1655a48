import Gateway
import Testing

/// The service group logs each service at debug by its description: a short name, never a dump of its fields.
@Suite("service descriptions")
struct ServiceDescriptionTests {
    @Test("every service of the application describes itself in a few words, with no logger or closure in it")
    func shortDescriptions() async throws {
        try await GatewayHarness.run { gateway in
            for service in gateway.application.services {
                let text = "\(service)"
                #expect(!text.contains("Logger"), "\(text)")
                #expect(!text.contains("_storage"), "\(text)")
                #expect(text.count < 80, "\(text)")
            }
        }
    }
}
