/// The lifecycle of one transfer, apart from any I/O:
///
/// ```
/// queued ──start──▶ running ──complete──▶ finished
///   │                  │
///   │ cancel           │ cancel
///   ▼                  ▼
/// finished         cancelling ──removed / complete──▶ finished (as cancelled)
/// ```
///
/// The continuation is handed out exactly once: whichever event finishes the transfer returns it,
/// and every later event finds `finished` and returns nothing.
struct TransferStateMachine<Request, Continuation> {
    enum State {
        /// Waiting for the driver to pick it up.
        case queued(Request, Continuation)
        /// The driver has it (its easy handle is in the multi handle, or about to be).
        case running(Continuation)
        /// Cancelled while running: the driver must remove its easy handle, then resume it.
        case cancelling(Continuation)
        /// Its continuation has been handed out.
        case finished
    }

    private(set) var state: State

    init(request: Request, continuation: Continuation) {
        self.state = .queued(request, continuation)
    }

    /// The driver picks the transfer up: queued → running. Returns the request, or `nil` if not queued.
    mutating func start() -> Request? {
        guard case .queued(let request, let continuation) = self.state else { return nil }
        self.state = .running(continuation)
        return request
    }

    enum CancelAction {
        /// Resume the continuation with ``CurlError/cancelled`` now; nothing reached libcurl.
        case resumeCancelled(Continuation)
        /// Ask the driver to remove the easy handle; it resumes the continuation afterwards.
        case removeFromMulti
        /// Already cancelling or finished.
        case none
    }

    /// The calling task was cancelled.
    mutating func cancel() -> CancelAction {
        switch self.state {
        case .queued(_, let continuation):
            self.state = .finished
            return .resumeCancelled(continuation)
        case .running(let continuation):
            self.state = .cancelling(continuation)
            return .removeFromMulti
        case .cancelling, .finished:
            return .none
        }
    }

    /// The transfer ended in libcurl (or could not be started). Returns the continuation and whether the
    /// caller had cancelled meanwhile (then it must be resumed with ``CurlError/cancelled``).
    mutating func complete() -> (continuation: Continuation, wasCancelled: Bool)? {
        switch self.state {
        case .running(let continuation):
            self.state = .finished
            return (continuation, false)
        case .cancelling(let continuation):
            self.state = .finished
            return (continuation, true)
        case .queued, .finished:
            return nil
        }
    }

    /// The client is stopping: hands out the continuation of an unfinished transfer, and whether it was
    /// being cancelled (then it is resumed with ``CurlError/cancelled`` rather than ``CurlError/shutdown``).
    mutating func abandon() -> (continuation: Continuation, wasCancelled: Bool)? {
        switch self.state {
        case .queued(_, let continuation), .running(let continuation):
            self.state = .finished
            return (continuation, false)
        case .cancelling(let continuation):
            self.state = .finished
            return (continuation, true)
        case .finished:
            return nil
        }
    }
}
