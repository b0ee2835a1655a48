import Logging
import Synchronization

/// Log lines a test's `OpenAIClient` wrote, rendered as text (message and metadata), for assertions such
/// as "one warning per attempt" and "the key never appears".
final class CapturedLogs: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]

        /// The message and metadata as one string.
        var text: String {
            ([self.message] + self.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    private let lines = Mutex<[Line]>([])

    /// A logger at `debug` whose lines land here.
    var logger: Logger {
        Logger(label: "OpenAITests", factory: { _ in CapturingLogHandler(logs: self) })
    }

    var all: [Line] { self.lines.withLock { $0 } }

    /// The `warning` lines.
    var warnings: [Line] { self.all.filter { $0.level == .warning } }

    fileprivate func append(_ line: Line) {
        self.lines.withLock { $0.append(line) }
    }
}

private struct CapturingLogHandler: LogHandler {
    let logs: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        self.logs.append(
            CapturedLogs.Line(
                level: event.level,
                message: event.message.description,
                metadata: merged.mapValues { $0.description }
            )
        )
    }
}
