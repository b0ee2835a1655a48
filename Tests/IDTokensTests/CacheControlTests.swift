import Testing

@testable import IDTokens

@Suite("Cache-Control freshness (RFC 9111)")
struct CacheControlTests {
    static func freshness(_ cacheControl: String?, age: String? = nil) -> Double? {
        CacheControl.freshness(cacheControl: cacheControl.map { [$0] } ?? [], age: age.map { [$0] } ?? [])
    }

    @Test("Google's header")
    func google() {
        #expect(Self.freshness("public, max-age=19845, must-revalidate, no-transform") == 19845)
    }

    @Test("Age is subtracted, never below zero")
    func age() {
        #expect(Self.freshness("max-age=600", age: "100") == 500)
        #expect(Self.freshness("max-age=600", age: "900") == 0)
        #expect(Self.freshness("max-age=600", age: "junk") == 600)
    }

    @Test("no-store and no-cache mean no freshness; a bad max-age is stale")
    func noCache() {
        #expect(Self.freshness("no-store") == 0)
        #expect(Self.freshness("max-age=60, no-cache") == 0)
        for bad in ["max-age=-5", "max-age=abc", "max-age=", "max-age", "max-age=100.5", "max-age=\"\""] {
            #expect(Self.freshness(bad) == 0, "\(bad)")
        }
    }

    @Test("no lifetime given")
    func none() {
        #expect(Self.freshness(nil) == nil)
        #expect(Self.freshness("public") == nil)
    }

    @Test("case, spaces and quotes")
    func lenient() {
        #expect(Self.freshness(" Max-Age = 30 ") == 30)
        #expect(Self.freshness("max-age=\"45\"") == 45)
    }

    @Test("delta-seconds: leading zeros are digits too; too large to represent is 2^31 (RFC 9111 §1.2.2)")
    func deltaSeconds() {
        #expect(Self.freshness("max-age=0000000000003600") == 3600)
        #expect(Self.freshness("max-age=99999999999999999999") == 2_147_483_648)
        #expect(Self.freshness("max-age=100", age: "0000000000000040") == 60)
    }

    @Test("several field lines are one list; the first max-age counts; commas inside quoted strings split nothing")
    func lists() {
        #expect(CacheControl.freshness(cacheControl: ["max-age=100", "public"], age: []) == 100)
        #expect(CacheControl.freshness(cacheControl: ["public", "max-age=100"], age: []) == 100)
        #expect(CacheControl.freshness(cacheControl: ["max-age=100", "no-cache"], age: []) == 0)
        #expect(Self.freshness("max-age=100, max-age=200") == 100)
        #expect(Self.freshness(#"foo="a,max-age=5", max-age=100"#) == 100)
        #expect(Self.freshness(#"foo="a\",max-age=5", max-age=100"#) == 100)
        #expect(CacheControl.freshness(cacheControl: ["max-age=600"], age: ["100", "500"]) == 500)
    }
}
