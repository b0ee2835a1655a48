import FoundationEssentials
import Logging
import Synchronization

/// Keeps the newest requests in memory (at most `limit`) and, with a directory, writes each to
/// `<n>-<endpoint>.json` there (see ``RecordFile``); counts every request per endpoint, without a limit.
final class RequestRecorder: Sendable {
    private struct State {
        var nextSequence = 1
        var requests: [RecordedRequest] = []
        var counts: [MockEndpoint: Int] = [:]
    }

    private let state = Mutex(State())
    private let limit: Int
    private let directory: String?
    private let logger: Logger

    init(limit: Int, directory: String?, logger: Logger) {
        self.limit = max(limit, 1)
        self.directory = directory
        self.logger = logger
    }

    /// The requests kept, oldest first.
    var requests: [RecordedRequest] { self.state.withLock { $0.requests } }

    /// How many requests each endpoint has received, every endpoint present.
    var counts: [MockEndpoint: Int] {
        let counts = self.state.withLock { $0.counts }
        return Dictionary(uniqueKeysWithValues: MockEndpoint.allCases.map { ($0, counts[$0] ?? 0) })
    }

    /// Records a request and returns it with its sequence number.
    @discardableResult
    func record(endpoint: MockEndpoint, method: String, path: String, contentType: String?, body: [UInt8]) -> RecordedRequest {
        let recorded = self.state.withLock { state in
            let recorded = RecordedRequest(
                sequence: state.nextSequence, endpoint: endpoint, method: method, path: path, contentType: contentType, body: body
            )
            state.nextSequence += 1
            state.counts[endpoint, default: 0] += 1
            state.requests.append(recorded)
            if state.requests.count > self.limit { state.requests.removeFirst(state.requests.count - self.limit) }
            return recorded
        }
        if let directory = self.directory { self.write(recorded, to: directory) }
        return recorded
    }

    private func write(_ recorded: RecordedRequest, to directory: String) {
        let path = directory + "/" + RecordFile.name(for: recorded)
        do {
            try Data(RecordFile.contents(for: recorded)).write(to: URL(fileURLWithPath: path))
        } catch {
            self.logger.error("could not write a recorded request", metadata: ["file": "\(path)", "error_type": "\(type(of: error))"])
        }
    }
}
