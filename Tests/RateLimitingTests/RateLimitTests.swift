import RateLimiting
import Testing

@Suite("RateLimit: defaults and specs")
struct RateLimitTests {
    @Test func defaults() {
        let byName = Dictionary(uniqueKeysWithValues: RateLimit.defaults.map { ($0.name, $0) })
        #expect(byName.count == 5)
        #expect(byName["story-generation"]?.capacity == 10)
        #expect(byName["audio-synthesis"]?.capacity == 15)
        #expect(byName["avatar-generation"]?.capacity == 8)
        #expect(byName["scene-illustration"]?.capacity == 25)
        #expect(byName["extract-scenes"]?.capacity == 30)
        #expect(RateLimit.defaults.allSatisfy { $0.period == 3600 && !$0.shadow })
        #expect(abs(RateLimit.storyGeneration.refillPerSecond - 10.0 / 3600) < 1e-15)
    }

    @Test(arguments: [
        ("10/3600", 10.0, 3600.0),
        (" 5 / 60 ", 5, 60),
        ("2.5/1", 2.5, 1),
        ("1/0.5", 1, 0.5),
        ("1000000000/31622400", 1_000_000_000, 31_622_400),
    ])
    func parsesSpecs(spec: String, capacity: Double, period: Double) throws {
        let limit = try #require(RateLimit(name: "x", spec: spec))
        #expect(limit.capacity == capacity)
        #expect(limit.period == period)
        #expect(limit.name == "x")
        #expect(!limit.shadow)
    }

    @Test(arguments: [
        "", "10", "10/", "/3600", "10/3600/1", "0/3600", "10/0", "-1/3600", "10/-5", "inf/3600", "10/nan",
        "1e3/60", "0x10/60", "10/3600s", "ten/3600", "1..5/60", "./60", "1000000001/60", "10/31622401", "10 3600",
    ])
    func rejectsMalformedSpecs(spec: String) {
        #expect(RateLimit(name: "x", spec: spec) == nil)
    }

    @Test func shadowFromSpec() {
        #expect(RateLimit(name: "x", spec: "1/1", shadow: true)?.shadow == true)
    }
}
