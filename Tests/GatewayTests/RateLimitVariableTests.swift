import GatewayConfig
import RateLimiting
import Testing

/// `RATE_LIMIT_<NAME>` variables: one naming a configured limit replaces it, a new name adds a limit that routes may
/// name, and a new name no route uses is a misspelling, reported with the variable it was probably meant to be.
@Suite("Rate-limit variables")
struct RateLimitVariableTests {
    @Test("a misspelt RATE_LIMIT_ variable is an error with a did-you-mean, not silently ignored")
    func misspelt() {
        do {
            _ = try GatewayConfiguration(environment: ["ENV": "dev", "RATE_LIMIT_STORY_GENERATON": "5/60"])
            Issue.record("RATE_LIMIT_STORY_GENERATON was accepted")
        } catch {
            #expect(error.variable == "RATE_LIMIT_STORY_GENERATON")
            #expect(error.description.contains("did you mean RATE_LIMIT_STORY_GENERATION?"), "\(error.description)")
        }
    }

    @Test("RATE_LIMIT_FOO adds the limit foo, which a route of the file may name")
    func addsLimit() throws {
        let yaml = "env: dev\nroutes:\n  - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: foo}\n"
        let configuration = try GatewayConfiguration(yaml: yaml, environment: ["RATE_LIMIT_FOO": "5/60"])
        let foo = try #require(configuration.rateLimits.first { $0.name == "foo" })
        #expect(foo.capacity == 5)
        #expect(foo.period == 60)
        // A name with `_` reads as `-`, as the file's names are written.
        let dashed = "env: dev\nroutes:\n  - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: api-writes}\n"
        let withDash = try GatewayConfiguration(yaml: dashed, environment: ["RATE_LIMIT_API_WRITES": "2/10 shadow"])
        #expect(withDash.rateLimits.first { $0.name == "api-writes" }?.shadow == true)
        // The file's own limits and the other RATE_LIMIT_ settings are not new limits.
        _ = try GatewayConfiguration(environment: ["ENV": "dev", "RATE_LIMIT_SHADOW": "all", "RATE_LIMIT_FAILURE_POLICY": "open"])
    }

    @Test("a new limit's value is checked like any other")
    func malformedNewLimit() {
        let yaml = "env: dev\nroutes:\n  - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: foo}\n"
        do {
            _ = try GatewayConfiguration(yaml: yaml, environment: ["RATE_LIMIT_FOO": "lots"])
            Issue.record("RATE_LIMIT_FOO=lots was accepted")
        } catch {
            #expect(error.all.contains { $0.variable == "RATE_LIMIT_FOO" }, "\(error.description)")
        }
    }
}
