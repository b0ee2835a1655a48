public import Logging
import IDTokens

/// A swift-log handler that writes one JSON object per line: `time`, `level`, `logger`, `message`, then the
/// metadata as members (numbers stay numbers). The executable bootstraps it for every logger, so the access log
/// and the gateway's own warnings are one machine-readable stream on standard error, written through
/// ``LogLineWriter`` (off the event loops; warnings and errors at once).
public struct JSONLogHandler: LogHandler {
    /// Where finished lines go (each ends with a newline).
    public typealias Sink = @Sendable (String) -> Void

    public var metadata: Logger.Metadata = [:]
    /// The setting's level, until this handler's own is set (``Logger/atLeast(_:)`` pins one logger's).
    public var logLevel: Logger.Level {
        get { self.ownLevel ?? self.setting.level }
        set { self.ownLevel = newValue }
    }
    private var ownLevel: Logger.Level?
    private let setting: LogLevelSetting
    private let label: String
    /// nil: standard error, through ``LogLineWriter/standardError``.
    private let sink: Sink?

    public init(label: String, level: Logger.Level = .info, sink: Sink? = nil) {
        self.init(label: label, setting: LogLevelSetting(level), sink: sink)
    }

    /// A handler whose level follows `setting` (a reload changes it for every logger at once).
    public init(label: String, setting: LogLevelSetting, sink: Sink? = nil) {
        self.label = label
        self.setting = setting
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged: Logger.Metadata
        switch (event.metadata, self.metadata.isEmpty) {
        case (nil, _): merged = self.metadata
        case (let event?, true): merged = event
        case (let event?, false): merged = self.metadata.merging(event) { _, new in new }
        }
        let line = Self.line(label: self.label, level: event.level, message: event.message.description, metadata: merged)
        if let sink = self.sink {
            sink(line)
        } else {
            LogLineWriter.standardError.append(line, urgent: event.level >= .warning)
        }
    }

    /// One line: the fixed members, then the metadata sorted by key (`time`, `level` and `message` keys skipped).
    static func line(
        label: String, level: Logger.Level, message: String, metadata: Logger.Metadata, time: String = HTTPDate.rfc3339(WallClock.now())
    ) -> String {
        var line = Self.start(label: label, level: level, message: message, time: time)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where key != "time" && key != "level" && key != "message" {
            line += ","
            JSONWriter.appendQuoted(key, to: &line)
            line += ":"
            Self.append(value, to: &line)
        }
        line += "}\n"
        return line
    }

    /// The fixed members every line starts with (`{"time":…,"level":…,"logger":…,"message":…`), unclosed.
    static func start(label: String, level: Logger.Level, message: String, time: String) -> String {
        var line = ""
        line.reserveCapacity(512)
        line += "{\"time\":\""
        line += time
        line += "\",\"level\":\""
        line += level.rawValue
        line += "\",\"logger\":"
        JSONWriter.appendQuoted(label, to: &line)
        line += ",\"message\":"
        JSONWriter.appendQuoted(message, to: &line)
        return line
    }

    private static func append(_ value: Logger.MetadataValue, to line: inout String) {
        switch value {
        case .string(let text):
            JSONWriter.appendQuoted(text, to: &line)
        case .stringConvertible(let convertible):
            switch convertible {
            case let number as Int: line += String(number)
            case let number as Double where number.isFinite: line += JSONWriter.number(number)
            case let flag as Bool: line += flag ? "true" : "false"
            default: JSONWriter.appendQuoted(convertible.description, to: &line)
            }
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                Self.append(element, to: &line)
            }
            line += "]"
        case .dictionary(let members):
            line += "{"
            for (index, (key, element)) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line += "," }
                JSONWriter.appendQuoted(key, to: &line)
                line += ":"
                Self.append(element, to: &line)
            }
            line += "}"
        }
    }
}
