import Testing

@testable import Generations

@Suite("WakeupRegistry")
struct WakeupRegistryTests {
    @Test("a signal wakes the waiters of its key only, and forgets them")
    func signalsItsKey() async {
        let registry = WakeupRegistry<String>()
        let mine = registry.register("a")
        let other = registry.register("b")
        #expect(registry.count == 2)
        registry.signal("a")
        #expect(registry.count == 1)
        // Already signalled: returns at once, long before the deadline.
        await mine.wait(until: .now + .seconds(60))
        registry.remove(other, for: "b")
        #expect(registry.count == 0)
    }

    @Test("a waiter that stops waiting leaves nothing behind")
    func removeForgets() {
        let registry = WakeupRegistry<Int>()
        let wakeups = (0..<3).map { _ in registry.register(1) }
        for wakeup in wakeups { registry.remove(wakeup, for: 1) }
        #expect(registry.count == 0)
        registry.signal(1)
    }
}
