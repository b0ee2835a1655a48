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
            let answer = await withTaskGroup(of: StoredAnswer?.self) { group in
                group.addTask { await work() }
                if let renew {
                    group.addTask {
                        while (try? await Task.sleep(for: every)) != nil { await renew() }
                        return nil
                    }
                }
                var answer: StoredAnswer?
                while let next = await group.next() {
                    if let next {
                        answer = next
                        group.cancelAll()
                    }
                }
                return answer ?? StoredAnswer(status: 500, fields: [], body: [])
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
