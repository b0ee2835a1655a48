import Foundation
import Synchronization
import Testing

@testable import Gateway

/// `X-Request-ID`: what the gateway generates, and which incoming ids it keeps.
@Suite("Request ids")
struct RequestIDTests {
    @Test("generated ids: 32 lowercase hex digits, one random prefix per thread, then that thread's counter")
    func generated() throws {
        let generator = RequestIDGenerator()
        let ids = (0..<3).map { _ in generator.next() }
        for id in ids {
            #expect(id.utf8.count == 32)
            #expect(id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
            #expect(RequestIDGenerator.isAcceptable(id))
        }
        #expect(Set(ids.map { $0.prefix(16) }).count == 1)
        let counters = try ids.map { try #require(UInt64($0.dropFirst(16), radix: 16)) }
        #expect(counters == [counters[0], counters[0] + 1, counters[0] + 2])
        // Another generator on the same thread goes on with the thread's sequence: ids never repeat in a process.
        #expect(RequestIDGenerator().next() == String(ids[0].prefix(16)) + String(format: "%016llx", counters[0] + 3))
    }

    @Test("threads sharing a generator each count under their own prefix, and no id repeats")
    func threads() throws {
        let generator = RequestIDGenerator()
        let threads = 4
        let perThread = 5_000
        let results = Mutex<[[String]]>([])
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                // A new thread: its stripe starts at 1.
                let ids = (0..<perThread).map { _ in generator.next() }
                results.withLock { $0.append(ids) }
                group.leave()
            }
        }
        group.wait()
        let all = results.withLock { $0 }
        #expect(all.count == threads)
        #expect(Set(all.joined()).count == threads * perThread)
        #expect(Set(all.map { $0[0].prefix(16) }).count == threads)
        for ids in all {
            #expect(Set(ids.map { $0.prefix(16) }).count == 1)
            #expect(try ids.map { try #require(UInt64($0.dropFirst(16), radix: 16)) } == Array(1...UInt64(perThread)))
        }
    }

    @Test("incoming ids are kept only when they are safe to echo", arguments: [
        ("client-trace-7", true), ("a:b=c+d/e@f.g_h", true), (String(repeating: "x", count: 128), true),
        ("", false), (String(repeating: "x", count: 129), false), ("two words", false), ("quote\"", false),
        ("new\nline", false), ("é", false), ("<script>", false),
    ])
    func incoming(id: String, kept: Bool) {
        #expect(RequestIDGenerator.isAcceptable(id) == kept)
    }
}
