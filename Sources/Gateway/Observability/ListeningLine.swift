import Logging
import NIOCore

/// The one "listening" line each listener logs at start, with the bound `host` and `port` as separate fields and
/// which listener it is (`public` or `admin`).
enum ListeningLine {
    static func metadata(_ address: SocketAddress?, listener: String = "public") -> Logger.Metadata {
        ["listener": .string(listener), "host": .string(address?.ipAddress ?? "?"), "port": .stringConvertible(address?.port ?? 0)]
    }

    /// The logger HummingbirdCore's server gets: its own "Server started and listening" line at info would repeat
    /// the gateway's.
    static func serverLogger(_ logger: Logger) -> Logger {
        logger.atLeast(.notice)
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
