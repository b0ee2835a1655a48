import Generations
import Logging
import ServiceLifecycle
import Synchronization

/// The function runs that go on whatever their requests do (a run under an Idempotency-Key, a job): started here,
/// counted, and waited for at shutdown. A Service: on graceful shutdown it returns once the last run has ended,
/// so the ServiceGroup stops the stores and the HTTP client they use only after them (within the grace period).
final class GenerationRuns: Service, Sendable {
    private struct State {
        var running = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Runs now.
    var count: Int { self.state.withLock { $0.running } }

    /// Starts `work` off the event loops, to its end whatever the caller does; `renew`, when given, is called every
    /// `every` while it runs (to keep a lease).
    func start(
        renewing renew: (@Sendable () async -> Void)? = nil, every: Duration = .seconds(10),
        _ work: @escaping @Sendable () async -> StoredAnswer
    ) -> RunOutcome {
        let outcome = RunOutcome()
        self.state.withLock { $0.running += 1 }
        Task(executorPreference: globalConcurrentExecutor) {
            let answer =
                if let renew {
                    await whileRenewing(every: every, { await renew(); return true }) { await work() }
                } else {
                    await work()
                }
            outcome.deliver(answer)
            self.ended()
        }
        return outcome
    }

    private func ended() {
        self.state.withLock { $0.running -= 1 }
    }

    func run() async throws {
        // Nothing to do until shutdown; then the runs under way finish (until the grace period's cancellation).
        try? await gracefulShutdown()
        while self.count > 0, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(50)) }
    }
}

/// Runs `work`, calling `renew` every `every` meanwhile (to keep a lease); when `renew` answers false, `stop` is called
/// (to cancel what `work` waits for) and renewing ends.
func whileRenewing<Result: Sendable>(
    every: Duration, _ renew: @escaping @Sendable () async -> Bool, stop: @escaping @Sendable () -> Void = {}, _ work: () async -> Result
) async -> Result {
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            while (try? await Task.sleep(for: every)) != nil {
                guard await renew() else { return stop() }
            }
        }
        let result = await work()
        group.cancelAll()
        return result
    }
}
