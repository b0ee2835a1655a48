import Generations
import Testing

@Suite("Prefer field")
struct PreferencesTests {
    @Test("respond-async and wait, in one field or several, names in any case")
    func honoured() {
        #expect(Preferences(["respond-async, wait=10"]) == Preferences(respondAsync: true, wait: 10))
        #expect(Preferences(["RESPOND-ASYNC", "Wait = \"7\""]) == Preferences(respondAsync: true, wait: 7))
        #expect(Preferences(["wait=0"]) == Preferences(wait: 0))
        #expect(Preferences([]) == Preferences())
    }

    @Test("a wait longer than 60 seconds is clamped to 60, however long")
    func clamped() {
        #expect(Preferences(["wait=61"]).wait == 60)
        #expect(Preferences(["wait=99999999999999999999999"]).wait == 60)
    }

    @Test("unknown preferences and parameters are ignored")
    func unknownIgnored() {
        #expect(Preferences(["return=minimal, handling=strict"]) == Preferences())
        #expect(Preferences(["respond-async; foo=\"a,b\", wait=5;bar"]) == Preferences(respondAsync: true, wait: 5))
    }

    @Test("a malformed wait is ignored", arguments: ["wait", "wait=", "wait=abc", "wait=-1", "wait=1.5", "wait=\"\"", "wait=5s"])
    func malformedWait(_ value: String) {
        #expect(Preferences([value + ", respond-async"]) == Preferences(respondAsync: true, wait: nil))
    }

    @Test("of a preference given twice the first counts")
    func firstCounts() {
        #expect(Preferences(["wait=3", "wait=9"]).wait == 3)
    }
}
