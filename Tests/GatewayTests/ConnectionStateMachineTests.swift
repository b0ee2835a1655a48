import HTTPTypes
import HTTPWire
import NIOCore
import Testing

@testable import Gateway

/// ``ConnectionStateMachine`` on its own: events in, what to do out, time given as a value.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    static let limits = ConnectionStateMachine.Limits(
        maxHeadBytes: 8192, maxFields: 50, headerTimeout: .seconds(10), idleTimeout: .seconds(75), bodyTimeout: .seconds(30)
    )
    static let zero = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// A machine that has read `text`.
    static func machine(reading text: String) -> ConnectionStateMachine {
        var machine = ConnectionStateMachine(limits: Self.limits)
        machine.channelActive(now: Self.zero)
        machine.bytesRead(ByteBuffer(string: text), now: Self.zero)
        return machine
    }

    /// The body parts `machine` gives, as text, until it waits or the body ends (`<end>`) or fails (`<failed>`).
    static func drain(_ machine: inout ConnectionStateMachine) -> [String] {
        var parts: [String] = []
        while true {
            switch machine.next(now: Self.zero) {
            case .body(let buffer): parts.append(String(buffer: buffer))
            case .bodyEnd: return parts + ["<end>"]
            case .bodyFailed: return parts + ["<failed>"]
            default: return parts
            }
        }
    }

    static let chunked = "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test("a head is due within the header timeout of the connection opening")
    func headerTimeout() {
        var machine = ConnectionStateMachine(limits: Self.limits)
        machine.channelActive(now: Self.zero)
        #expect(machine.deadline == Self.zero + .seconds(10))
        guard case .wait = machine.timerFired(now: Self.zero + .seconds(9)) else {
            Issue.record("fired early")
            return
        }
        guard case .close = machine.timerFired(now: Self.zero + .seconds(10)) else {
            Issue.record("not closed at the header timeout")
            return
        }
    }

    @Test("a small body that came whole is taken with its head; the next request waits for the first to finish")
    func inlineBodyAndPipelining() {
        var machine = Self.machine(reading: "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: t\r\n\r\n")
        guard case .start(let head, let body, let streamed) = machine.next(now: Self.zero) else {
            Issue.record("no start")
            return
        }
        #expect(head.request.path == "/a")
        #expect(body.map { String(buffer: $0) } == "hello")
        #expect(!streamed)
        #expect(machine.deadline == nil, "no deadline while the exchange works")
        guard case .wait = machine.next(now: Self.zero) else {
            Issue.record("a second request started while the first was under way")
            return
        }
        let requestFinished1 = machine.requestFinished(now: Self.zero + .seconds(1))
        #expect(!requestFinished1)
        // The next head is here already: its header timeout runs from now.
        #expect(machine.deadline == Self.zero + .seconds(11))
        guard case .start(let second, _, _) = machine.next(now: Self.zero) else {
            Issue.record("the pipelined request did not start")
            return
        }
        #expect(second.request.path == "/b")
    }

    @Test("a chunked body is read only as the exchange wants it, with 100 Continue first; bytes after it stay for the next request")
    func streamedBody() {
        var machine = Self.machine(reading: "POST /a HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n")
        guard case .start(_, nil, true) = machine.next(now: Self.zero) else {
            Issue.record("not streamed")
            return
        }
        machine.bytesRead(ByteBuffer(string: "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\nGET /b HTTP/1.1\r\n"), now: Self.zero)
        #expect(Self.drain(&machine).isEmpty, "read before it was wanted")
        let bodyWanted2 = machine.bodyWanted(true, now: Self.zero)
        #expect(bodyWanted2, "100 Continue is due on the first ask")
        #expect(Self.drain(&machine) == ["hello", "abc", "<end>"])
        let bodyWanted3 = machine.bodyWanted(true, now: Self.zero)
        #expect(!bodyWanted3)
        let answerStarts4 = machine.answerStarts()
        #expect(!answerStarts4, "a body read to its end does not end the connection")
        let requestFinished5 = machine.requestFinished(now: Self.zero)
        #expect(!requestFinished5)
        machine.bytesRead(ByteBuffer(string: "Host: t\r\n\r\n"), now: Self.zero)
        guard case .start(let next, _, _) = machine.next(now: Self.zero) else {
            Issue.record("the next request did not start")
            return
        }
        #expect(next.request.path == "/b")
    }

    @Test("a body that stops coming while wanted fails at the body timeout; the connection closes after the answer")
    func bodyTimeout() {
        var machine = Self.machine(reading: Self.chunked + "5\r\nhel")
        _ = machine.next(now: Self.zero)
        _ = machine.bodyWanted(true, now: Self.zero)
        #expect(Self.drain(&machine) == ["hel"])
        #expect(machine.deadline == Self.zero + .seconds(30))
        guard case .bodyFailed(.timeout) = machine.timerFired(now: Self.zero + .seconds(30)) else {
            Issue.record("no body timeout")
            return
        }
        let answerStarts6 = machine.answerStarts()
        #expect(answerStarts6, "the answer must say Connection: close")
        let requestFinished7 = machine.requestFinished(now: Self.zero + .seconds(31))
        #expect(requestFinished7, "the connection closes")
    }

    @Test("while the exchange wants no more, no body timeout runs and bytes wait; reading stops at 64 KiB")
    func backpressure() {
        var machine = Self.machine(reading: "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n")
        _ = machine.next(now: Self.zero)
        _ = machine.bodyWanted(true, now: Self.zero)
        _ = machine.bodyWanted(false, now: Self.zero)
        #expect(machine.deadline == nil)
        machine.bytesRead(ByteBuffer(repeating: 0x61, count: 70_000), now: Self.zero)
        #expect(Self.drain(&machine).isEmpty)
        let readRequested8 = machine.readRequested()
        #expect(!readRequested8, "too many bytes wait: the read is held")
        _ = machine.bodyWanted(true, now: Self.zero)
        #expect(Self.drain(&machine).map(\.count) == [70_000])
        let releaseHeldRead9 = machine.releaseHeldRead()
        #expect(releaseHeldRead9)
        let readRequested10 = machine.readRequested()
        #expect(readRequested10)
    }

    @Test("broken chunk framing and a half-close in the middle of a body both fail the body", arguments: [
        ("zz\r\n", false), ("5\r\nhelloXY", false), ("5\r\nhel", true),
    ])
    func brokenBodies(_ bytes: String, halfClose: Bool) {
        var machine = Self.machine(reading: Self.chunked + bytes)
        _ = machine.next(now: Self.zero)
        if halfClose { _ = machine.clientHalfClosed() }
        _ = machine.bodyWanted(true, now: Self.zero)
        #expect(Self.drain(&machine).last == "<failed>")
        let requestFinished11 = machine.requestFinished(now: Self.zero)
        #expect(requestFinished11)
    }

    @Test("a graceful shutdown closes an idle connection at once, a busy one after its answer")
    func quiesce() {
        var idle = ConnectionStateMachine(limits: Self.limits)
        idle.channelActive(now: Self.zero)
        let quiesce12 = idle.quiesce()
        #expect(quiesce12)
        var busy = Self.machine(reading: "GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = busy.next(now: Self.zero)
        let quiesce13 = busy.quiesce()
        #expect(!quiesce13)
        let answerEnds14 = busy.answerEnds(closes: false, now: Self.zero)
        #expect(answerEnds14 == .close)
    }

    @Test("a close with bytes still coming lingers: what the client sends is dropped until it closes its side, or the deadline")
    func linger() {
        var machine = Self.machine(reading: Self.chunked + "5\r\nhel")
        _ = machine.next(now: Self.zero)
        let after = machine.answerEnds(closes: true, now: Self.zero)
        #expect(after == .linger)
        #expect(machine.deadline == Self.zero + ConnectionStateMachine.lingerTimeout)
        machine.bytesRead(ByteBuffer(string: "lo\r\n0\r\n\r\nGET / HTTP/1.1\r\n"), now: Self.zero)
        guard case .wait = machine.next(now: Self.zero) else {
            Issue.record("a lingering connection took a request")
            return
        }
        let closes = machine.clientHalfClosed()
        #expect(closes)
        var timedOut = Self.machine(reading: "GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n")
        _ = timedOut.next(now: Self.zero)
        let afterClose = timedOut.answerEnds(closes: true, now: Self.zero)
        #expect(afterClose == .linger, "requests after the last one may still be coming")
        guard case .close = timedOut.timerFired(now: Self.zero + ConnectionStateMachine.lingerTimeout) else {
            Issue.record("not closed at the linger deadline")
            return
        }
    }

    @Test("a client that half-closes after complete requests: each is started, then the connection closes")
    func halfCloseAfterRequests() {
        var machine = Self.machine(reading: "GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = machine.clientHalfClosed()
        guard case .start = machine.next(now: Self.zero) else {
            Issue.record("the request was not started")
            return
        }
        let requestFinished15 = machine.requestFinished(now: Self.zero)
        #expect(!requestFinished15)
        guard case .close = machine.next(now: Self.zero) else {
            Issue.record("not closed once everything was answered")
            return
        }
    }
}
