import GatewayConfig
import Testing

/// One run names every start-up problem: the file's, the variables' and the mode's, not only the first.
@Suite("Start-up problems, all at once")
struct StartProblemsTests {
    static func problems(_ environment: [String: String]) -> [String] {
        do {
            _ = try GatewayConfiguration.loadForStart(configPath: nil, environment: environment)
            return []
        } catch {
            return error.all.map(\.variable)
        }
    }

    @Test("prod without FIREBASE_PROJECT_ID and OPENAI_API_KEY names both")
    func prodNamesBoth() {
        let named = Self.problems(["ENV": "prod"])
        #expect(named.contains("FIREBASE_PROJECT_ID"), "\(named)")
        #expect(named.contains("OPENAI_API_KEY"), "\(named)")
    }

    @Test("a bad REDIS_URL is named beside other bad variables, and so are prod's requirements")
    func redisBesideOthers() {
        let named = Self.problems(["ENV": "prod", "REDIS_URL": "http://x", "PORT": "99999", "LOG_LEVEL": "loud", "TOKEN_CACHE_SIZE": "many"])
        for variable in ["REDIS_URL", "PORT", "LOG_LEVEL", "TOKEN_CACHE_SIZE", "FIREBASE_PROJECT_ID", "OPENAI_API_KEY"] {
            #expect(named.contains(variable), "\(variable) not in \(named)")
        }
        // A problem of ENV itself leaves the mode's rules unsaid: they would guess at the mode.
        #expect(!Self.problems(["ENV": "production", "PORT": "x"]).contains("OPENAI_API_KEY"))
    }
}
