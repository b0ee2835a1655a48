#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import Gateway

/// The buffered log writer on a real pipe: lines leave whole and in order, `flush` writes what waits, an urgent
/// line takes what came before it along, and a reader that stops costs dropped lines (counted and reported), never
/// unbounded memory or a blocked caller.
@Suite("Log line writer")
struct LogLineWriterTests {
    /// A pipe: (read end, write end).
    static func pipeEnds() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// Reads exactly `count` bytes (blocking).
    static func read(_ fd: Int32, count: Int) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count < count {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, count - result.count)) }
            if got <= 0 { break }
            result += buffer[0..<got]
        }
        return result
    }

    @Test("lines leave whole and in order; flush writes what waits; an urgent line takes the earlier ones along")
    func order() throws {
        let (readEnd, writeEnd) = try Self.pipeEnds()
        defer { close(readEnd) }
        let writer = LogLineWriter(fileDescriptor: writeEnd)
        let lines = (0..<1000).map { "{\"n\":\($0)}\n" }
        for line in lines { writer.append(line) }
        writer.flush()
        let expected = lines.joined()
        #expect(String(decoding: Self.read(readEnd, count: expected.utf8.count), as: UTF8.self) == expected)

        writer.append("{\"a\":1}\n")
        writer.append("{\"urgent\":true}\n", urgent: true)
        let urgent = "{\"a\":1}\n{\"urgent\":true}\n"
        #expect(String(decoding: Self.read(readEnd, count: urgent.utf8.count), as: UTF8.self) == urgent)
    }

    @Test("a reader that stops: lines past the bound are dropped and counted, and a warning says how many")
    func dropsWhenTheReaderStops() async throws {
        let (readEnd, writeEnd) = try Self.pipeEnds()
        defer { close(readEnd) }
        let writer = LogLineWriter(fileDescriptor: writeEnd)
        // Nobody reads: the pipe takes 64 KiB, a write-out under way at most 4 MiB and the buffer 4 MiB; 10 MiB of
        // lines cannot all be kept.
        let line = String(repeating: "x", count: 1023) + "\n"
        let count = 10 * 1024
        for _ in 0..<count { writer.append(line) }
        // Now drain the pipe to its end while everything kept (and the warnings) is written out, both on threads of
        // their own: each blocks until the other moves, which must not tie up the tests' cooperative threads.
        async let drained = RawSocketClient.onThread { () -> String in
            var text: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let got = buffer.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
                if got <= 0 { break }
                text += buffer[0..<got]
            }
            return String(decoding: text, as: UTF8.self)
        }
        // Once this flush returns, everything appended before it has been written: the write end can close.
        await RawSocketClient.onThread {
            writer.flush()
            close(writeEnd)
        }
        let lines = await drained.split(separator: "\n")
        let kept = lines.filter { $0.hasPrefix("xxx") }.count
        #expect(kept < count)
        #expect(kept >= LogLineWriter.maxBytes / line.utf8.count)
        // One warning per write-out that found lines dropped; together they count every one.
        let warnings = lines.filter { $0.contains("\"message\":\"log lines dropped: standard error is not keeping up\"") }
        #expect(!warnings.isEmpty)
        let reported = warnings.compactMap { warning -> Int? in
            guard let range = warning.range(of: "\"dropped\":") else { return nil }
            return Int(warning[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(reported.reduce(0, +) == count - kept)
    }
}
