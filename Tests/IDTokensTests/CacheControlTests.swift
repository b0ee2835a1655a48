import Testing

@testable import IDTokens

@Suite("Cache-Control freshness (RFC 9111)")
struct CacheControlTests {
    @Test("Google's header")
    func google() {
        #expect(CacheControl.freshness(cacheControl: "public, max-age=19845, must-revalidate, no-transform", age: nil) == 19845)
    }

    @Test("Age is subtracted, never below zero")
    func age() {
        #expect(CacheControl.freshness(cacheControl: "max-age=600", age: "100") == 500)
        #expect(CacheControl.freshness(cacheControl: "max-age=600", age: "900") == 0)
        #expect(CacheControl.freshness(cacheControl: "max-age=600", age: "junk") == 600)
    }

    @Test("no-store and no-cache mean no freshness; a bad max-age is stale")
    func noCache() {
        #expect(CacheControl.freshness(cacheControl: "no-store", age: nil) == 0)
        #expect(CacheControl.freshness(cacheControl: "max-age=60, no-cache", age: nil) == 0)
        #expect(CacheControl.freshness(cacheControl: "max-age=-5", age: nil) == 0)
        #expect(CacheControl.freshness(cacheControl: "max-age=abc", age: nil) == 0)
    }

    @Test("no lifetime given")
    func none() {
        #expect(CacheControl.freshness(cacheControl: nil, age: nil) == nil)
        #expect(CacheControl.freshness(cacheControl: "public", age: nil) == nil)
    }

    @Test("case, spaces and quotes")
    func lenient() {
        #expect(CacheControl.freshness(cacheControl: " Max-Age = 30 ", age: nil) == 30)
        #expect(CacheControl.freshness(cacheControl: "max-age=\"45\"", age: nil) == 45)
    }
}
