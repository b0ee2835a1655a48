public import Logging
import IDTokens

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that writes one JSON object per line: `time`, `level`, `logger`, `message`, then the
/// metadata as members (numbers stay numbers). The executable bootstraps it for every logger, so the access log
/// and the gateway's own warnings are one machine-readable stream on standard error.
public struct JSONLogHandler: LogHandler {
    /// Where finished lines go (each ends with a newline).
    public typealias Sink = @Sendable (String) -> Void

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let sink: Sink

    public init(label: String, level: Logger.Level = .info, sink: @escaping Sink = JSONLogHandler.standardError) {
        self.label = label
        self.logLevel = level
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = ""
        line.reserveCapacity(512)
        line += "{\"time\":\""
        line += HTTPDate.rfc3339(WallClock.now())
        line += "\",\"level\":\""
        line += event.level.rawValue
        line += "\",\"logger\":"
        JSONWriter.appendQuoted(self.label, to: &line)
        line += ",\"message\":"
        JSONWriter.appendQuoted(event.message.description, to: &line)
        let merged: Logger.Metadata
        switch (event.metadata, self.metadata.isEmpty) {
        case (nil, _): merged = self.metadata
        case (let event?, true): merged = event
        case (let event?, false): merged = self.metadata.merging(event) { _, new in new }
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) where key != "time" && key != "level" && key != "message" {
            line += ","
            JSONWriter.appendQuoted(key, to: &line)
            line += ":"
            Self.append(value, to: &line)
        }
        line += "}\n"
        self.sink(line)
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

    /// Writes a line to standard error with one `write(2)` (lines from several threads never interleave).
    public static let standardError: Sink = { line in
        var line = line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }
}
