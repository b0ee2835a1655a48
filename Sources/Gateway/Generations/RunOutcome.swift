import Generations
import Synchronization

/// The answer of a run that goes on without the request that started it: every request awaiting it gets it, and a
/// request that is cancelled (its client left) stops waiting without stopping the run.
final class RunOutcome: Sendable {
    private struct State {
        var answer: StoredAnswer?
        var waiters: [Int: CheckedContinuation<StoredAnswer, any Error>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Hands `answer` to every request waiting, and to every one that asks later.
    func deliver(_ answer: StoredAnswer) {
        let waiters = self.state.withLock { state -> [CheckedContinuation<StoredAnswer, any Error>] in
            state.answer = answer
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: answer) }
    }

    /// The run's answer; throws `CancellationError` when the calling task is cancelled first.
    func value() async throws -> StoredAnswer {
        let id = self.state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                enum Now { case answer(StoredAnswer), cancelled, later }
                let now = self.state.withLock { state -> Now in
                    if let answer = state.answer { return .answer(answer) }
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    state.waiters[id] = continuation
                    return .later
                }
                switch now {
                case .answer(let answer): continuation.resume(returning: answer)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .later: break
                }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<StoredAnswer, any Error>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    if state.answer == nil { state.cancelled.insert(id) }
                    return nil
                }
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
