import Logging
import NIOConcurrencyHelpers
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Log lines to a file descriptor (standard error) without a `write(2)` per line on the caller's thread: the access
/// log writes a line for every request, from the event loops, and a slow reader of standard error (a full pipe to
/// journald or a container runtime) must not stall them. Lines are appended to a buffer that a thread of its own
/// writes out every 100 ms, or as soon as 64 KiB wait; `urgent` lines (warnings and errors) and `flush()` write at
/// once, in order with everything before them. Past 4 MiB waiting besides a write-out under way (the reader has
/// stopped), lines are dropped and counted, and a warning line says how many when writing resumes (as HAProxy drops
/// log lines it cannot send).
public final class LogLineWriter: @unchecked Sendable {
    /// Standard error's writer, started on first use.
    public static let standardError = LogLineWriter(fileDescriptor: 2)

    static let flushBytes = 64 * 1024
    static let maxBytes = 4 * 1024 * 1024
    static let intervalSeconds = 0.1

    private let fileDescriptor: Int32
    /// Value 1: a flush is wanted now. Also guards `buffer` and `dropped`.
    private let condition = ConditionLock<Int>(value: 0)
    private var buffer: [UInt8] = []
    private var dropped = 0
    /// One write-out at a time, so lines leave in the order they were appended.
    private let writing = NIOLock()
    private let thread = NIOThreadPool(numberOfThreads: 1)

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        self.buffer.reserveCapacity(Self.flushBytes)
        self.thread.start()
        self.thread.submit { [self] _ in self.run() }
    }

    /// Appends a line (ending with a newline); an urgent one is written out at once, with what waits before it.
    public func append(_ line: String, urgent: Bool = false) {
        self.condition.lock()
        guard self.buffer.count + line.utf8.count <= Self.maxBytes else {
            self.dropped += 1
            self.condition.unlock()
            return
        }
        self.buffer.append(contentsOf: line.utf8)
        if self.buffer.count >= Self.flushBytes {
            self.condition.unlock(withValue: 1)
        } else {
            self.condition.unlock()
        }
        if urgent { self.flush() }
    }

    /// Writes out everything appended so far (blocking until it is written).
    public func flush() {
        self.writing.withLock {
            self.condition.lock()
            var pending: [UInt8] = []
            pending.reserveCapacity(Self.flushBytes)
            swap(&pending, &self.buffer)
            let dropped = self.dropped
            self.dropped = 0
            self.condition.unlock(withValue: 0)
            self.write(pending)
            if dropped > 0 {
                let line = JSONLogHandler.line(
                    label: "storygate", level: .warning, message: "log lines dropped: standard error is not keeping up",
                    metadata: ["dropped": .stringConvertible(dropped)]
                )
                self.write(Array(line.utf8))
            }
        }
    }

    /// The writer thread: a flush every interval, or sooner when a buffer fills.
    private func run() {
        while true {
            if self.condition.lock(whenValue: 1, timeoutSeconds: Self.intervalSeconds) { self.condition.unlock() }
            self.flush()
        }
    }

    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(self.fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
