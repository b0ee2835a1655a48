import Synchronization

/// The fault script: per endpoint, a queue of the behaviours of its next requests. Each request to an
/// endpoint takes the first queued fault, if any; once the queue is empty, requests get normal answers.
/// Safe to change from any task while the server runs.
public final class MockFaults: Sendable {
    private let queues = Mutex<[MockEndpoint: [MockFault]]>([:])

    /// An empty script.
    public init() {}

    /// Appends `faults` to `endpoint`'s queue: the next requests to it get them, in order.
    public func enqueue(_ faults: [MockFault], for endpoint: MockEndpoint) {
        self.queues.withLock { $0[endpoint, default: []].append(contentsOf: faults) }
    }

    /// Appends `faults` to `endpoint`'s queue.
    public func enqueue(_ faults: MockFault..., for endpoint: MockEndpoint) {
        self.enqueue(faults, for: endpoint)
    }

    /// The faults still queued for `endpoint`.
    public func pending(for endpoint: MockEndpoint) -> [MockFault] {
        self.queues.withLock { $0[endpoint] ?? [] }
    }

    /// Empties every queue.
    public func removeAll() {
        self.queues.withLock { $0.removeAll() }
    }

    /// Takes the next fault for `endpoint`, or `nil` for a normal answer.
    func next(for endpoint: MockEndpoint) -> MockFault? {
        self.queues.withLock { queues in
            guard var queue = queues[endpoint], !queue.isEmpty else { return nil }
            let fault = queue.removeFirst()
            queues[endpoint] = queue
            return fault
        }
    }
}
