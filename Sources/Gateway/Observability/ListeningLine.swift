import Logging
import NIOCore

/// The one "listening" line each listener logs at start, with the bound `host` and `port` as separate fields and
/// which listener it is (`public` or `admin`).
enum ListeningLine {
    static func metadata(_ address: SocketAddress?, listener: String = "public") -> Logger.Metadata {
        ["listener": .string(listener), "host": .string(address?.ipAddress ?? "?"), "port": .stringConvertible(address?.port ?? 0)]
    }

    /// The logger HummingbirdCore's server gets: its own "Server started and listening" line at info would repeat
    /// the gateway's, and its "Waiting on child channel: CancellationError()" when another listener failed to bind
    /// (and the service group cancelled this one) is noise before the one line that says why.
    static func serverLogger(_ logger: Logger) -> Logger {
        var filtered = Logger(label: logger.label, factory: { _ in CancellationFilter(wrapped: logger.handler) })
        filtered.logLevel = max(logger.logLevel, .notice)
        return filtered
    }
}

/// Passes every line on but one that reports a task's cancellation, which a listener stopped on purpose logs.
struct CancellationFilter: LogHandler {
    var wrapped: any LogHandler

    var logLevel: Logger.Level {
        get { self.wrapped.logLevel }
        set { self.wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { self.wrapped.metadata }
        set { self.wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.wrapped[metadataKey: key] }
        set { self.wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description.hasSuffix("CancellationError()") { return }
        self.wrapped.log(event: event)
    }
}

extension Logger {
    /// This logger, letting through only `level` and above (its own level when that is stricter).
    func atLeast(_ level: Logger.Level) -> Logger {
        var logger = self
        logger.logLevel = max(self.logLevel, level)
        return logger
    }
}
