/// The bookkeeping of a ``CurlClient``, apart from any I/O: its lifecycle and every transfer's
/// ``TransferStateMachine``, plus the queue of work for the driver thread.
///
/// Client lifecycle: `idle ──run──▶ running ──shutdown──▶ shuttingDown ──driverStopped──▶ stopped`
/// (`idle ──shutdown──▶ stopped` if it never ran). Calls made while `idle` wait in the queue.
///
/// Generic over the request and continuation types so its tests need no libcurl and no tasks.
/// Every method returns what the caller must do, after releasing the lock it holds this in.
struct ClientStateMachine<Request, Continuation> {
    enum Lifecycle: Equatable {
        case idle, running, shuttingDown, stopped
    }

    private(set) var lifecycle: Lifecycle = .idle
    private var transfers: [TransferID: TransferStateMachine<Request, Continuation>] = [:]
    /// Transfers to hand to the driver, in call order (ids of cancelled ones are skipped when taken).
    private var pendingStarts: [TransferID] = []
    /// Running transfers whose easy handles the driver must remove.
    private var pendingRemovals: [TransferID] = []
    /// Whether the driver has been woken and has not yet taken its work.
    private var wakeupPending = false

    /// Transfers not yet finished (queued, running or cancelling).
    var unfinishedCount: Int { self.transfers.count }

    // MARK: Callers

    enum ExecuteAction {
        /// Resume the continuation with this error now.
        case fail(Continuation, CurlError)
        /// Queued; wake the driver if asked.
        case queued(wakeDriver: Bool)
    }

    /// A new call. `taskIsCancelled` is `Task.isCancelled` read while holding the lock, which covers
    /// a cancellation handler that ran before the transfer was known.
    mutating func execute(_ id: TransferID, _ request: Request, _ continuation: Continuation, taskIsCancelled: Bool) -> ExecuteAction {
        switch self.lifecycle {
        case .shuttingDown, .stopped:
            return .fail(continuation, .shutdown)
        case .idle, .running:
            if taskIsCancelled {
                return .fail(continuation, .cancelled)
            }
            self.transfers[id] = TransferStateMachine(request: request, continuation: continuation)
            self.pendingStarts.append(id)
            return .queued(wakeDriver: self.claimWakeup())
        }
    }

    enum CancelAction {
        /// Resume the continuation with ``CurlError/cancelled`` now.
        case resumeCancelled(Continuation)
        /// The driver must remove the transfer; wake it if asked.
        case driverRemoves(wakeDriver: Bool)
        /// Unknown or already finished: nothing to do.
        case none
    }

    /// The task behind a call was cancelled.
    mutating func cancel(_ id: TransferID) -> CancelAction {
        guard var transfer = self.transfers[id] else { return .none }
        switch transfer.cancel() {
        case .resumeCancelled(let continuation):
            self.transfers[id] = nil
            return .resumeCancelled(continuation)
        case .removeFromMulti:
            self.transfers[id] = transfer
            self.pendingRemovals.append(id)
            return .driverRemoves(wakeDriver: self.claimWakeup())
        case .none:
            return .none
        }
    }

    // MARK: Lifecycle

    /// `run()` was called. Returns `true` if the driver should start (only from `idle`).
    mutating func run() -> Bool {
        guard self.lifecycle == .idle else { return false }
        self.lifecycle = .running
        // Calls queued while idle are waiting: the driver takes them on its first pass.
        self.wakeupPending = false
        return true
    }

    struct ShutdownAction {
        /// Queued transfers that never reached libcurl: resume each with its error now.
        var fail: [(Continuation, CurlError)]
        /// Whether to wake the driver so it stops.
        var wakeDriver: Bool
    }

    /// Graceful shutdown or cancellation of `run()`.
    mutating func shutdown() -> ShutdownAction {
        switch self.lifecycle {
        case .idle:
            self.lifecycle = .stopped
            return ShutdownAction(fail: self.abandonAll(), wakeDriver: false)
        case .running:
            self.lifecycle = .shuttingDown
            var failed: [(Continuation, CurlError)] = []
            for id in self.pendingStarts {
                guard var transfer = self.transfers[id], case .queued = transfer.state else { continue }
                if let (continuation, _) = transfer.abandon() {
                    failed.append((continuation, .shutdown))
                }
                self.transfers[id] = nil
            }
            self.pendingStarts.removeAll()
            self.wakeupPending = true
            return ShutdownAction(fail: failed, wakeDriver: true)
        case .shuttingDown, .stopped:
            return ShutdownAction(fail: [], wakeDriver: false)
        }
    }

    // MARK: Driver

    struct DriverWork {
        /// Transfers to add to the multi handle, in call order.
        var starts: [(TransferID, Request)] = []
        /// Transfers to remove from the multi handle (cancelled).
        var removals: [TransferID] = []
        /// Whether to remove everything, resume with ``driverStopped()`` and exit.
        var stop = false
    }

    /// The driver takes everything queued for it (moving those transfers to running).
    mutating func takeDriverWork() -> DriverWork {
        self.wakeupPending = false
        var work = DriverWork()
        work.stop = self.lifecycle == .shuttingDown || self.lifecycle == .stopped
        work.removals = self.pendingRemovals
        self.pendingRemovals.removeAll(keepingCapacity: true)
        if !work.stop {
            work.starts.reserveCapacity(self.pendingStarts.count)
            for id in self.pendingStarts {
                guard var transfer = self.transfers[id], let request = transfer.start() else { continue }
                self.transfers[id] = transfer
                work.starts.append((id, request))
            }
            self.pendingStarts.removeAll(keepingCapacity: true)
        }
        return work
    }

    /// A transfer ended (its easy handle is already removed). Returns its continuation and whether it must
    /// be resumed with ``CurlError/cancelled`` instead of its result; `nil` if it was already resumed.
    mutating func transferCompleted(_ id: TransferID) -> (continuation: Continuation, wasCancelled: Bool)? {
        guard var transfer = self.transfers.removeValue(forKey: id) else { return nil }
        return transfer.complete()
    }

    /// The driver stopped and removed every easy handle: the client is `stopped`. Returns every
    /// unfinished transfer's continuation with the error to resume it with.
    mutating func driverStopped() -> [(Continuation, CurlError)] {
        self.lifecycle = .stopped
        return self.abandonAll()
    }

    // MARK: Helpers

    private mutating func abandonAll() -> [(Continuation, CurlError)] {
        var failed: [(Continuation, CurlError)] = []
        for (_, var transfer) in self.transfers {
            if let (continuation, wasCancelled) = transfer.abandon() {
                failed.append((continuation, wasCancelled ? .cancelled : .shutdown))
            }
        }
        self.transfers.removeAll()
        self.pendingStarts.removeAll()
        self.pendingRemovals.removeAll()
        return failed
    }

    /// Whether this caller should wake the driver (only the first since the driver last took its work).
    private mutating func claimWakeup() -> Bool {
        guard self.lifecycle == .running, !self.wakeupPending else { return false }
        self.wakeupPending = true
        return true
    }
}
