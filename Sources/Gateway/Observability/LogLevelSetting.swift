public import Logging
import Synchronization

/// The log level every ``JSONLogHandler`` made with it follows: one value for the process, changed by a reload.
public final class LogLevelSetting: Sendable {
    private let raw: Atomic<Int>

    public init(_ level: Logger.Level) {
        self.raw = Atomic(Self.index(level))
    }

    public var level: Logger.Level {
        get { Logger.Level.allCases[self.raw.load(ordering: .relaxed)] }
        set { self.raw.store(Self.index(newValue), ordering: .relaxed) }
    }

    private static func index(_ level: Logger.Level) -> Int {
        Logger.Level.allCases.firstIndex(of: level) ?? 0
    }
}
