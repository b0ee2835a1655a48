import Testing

@testable import CurlHTTP

@Suite("TransferStateMachine")
struct TransferStateMachineTests {
    typealias Machine = TransferStateMachine<String, Int>

    @Test func queuedStartsThenCompletes() throws {
        var machine = Machine(request: "GET /", continuation: 7)
        let r1 = machine.start()
        #expect(r1 == "GET /")
        let r2 = machine.start()
        #expect(r2 == nil, "starts once")
        let r3 = machine.complete()
        let completed = try #require(r3)
        #expect(completed.continuation == 7)
        #expect(!completed.wasCancelled)
        let r4 = machine.complete()
        #expect(r4 == nil, "the continuation is handed out once")
        let r5 = machine.abandon()
        #expect(r5 == nil)
    }

    @Test func cancelWhileQueuedResumesAtOnce() {
        var machine = Machine(request: "GET /", continuation: 7)
        guard case .resumeCancelled(7) = machine.cancel() else {
            Issue.record("expected resumeCancelled")
            return
        }
        let r6 = machine.start()
        #expect(r6 == nil, "a cancelled transfer never starts")
        let r7 = machine.complete()
        #expect(r7 == nil)
        guard case .none = machine.cancel() else {
            Issue.record("second cancel must do nothing")
            return
        }
    }

    @Test func cancelWhileRunningAsksTheDriverThenResumesAsCancelled() throws {
        var machine = Machine(request: "GET /", continuation: 7)
        _ = machine.start()
        guard case .removeFromMulti = machine.cancel() else {
            Issue.record("expected removeFromMulti")
            return
        }
        guard case .none = machine.cancel() else {
            Issue.record("cancelling twice asks once")
            return
        }
        // The driver removes it, or it completed at the same moment: either way the caller sees cancelled.
        let r8 = machine.complete()
        let completed = try #require(r8)
        #expect(completed.continuation == 7)
        #expect(completed.wasCancelled)
        let r9 = machine.complete()
        #expect(r9 == nil)
    }

    @Test func cancelAfterCompletionDoesNothing() {
        var machine = Machine(request: "GET /", continuation: 7)
        _ = machine.start()
        _ = machine.complete()
        guard case .none = machine.cancel() else {
            Issue.record("cancel after completion must do nothing")
            return
        }
    }

    @Test func abandonHandsOutUnfinishedContinuations() throws {
        var queued = Machine(request: "a", continuation: 1)
        let r10 = queued.abandon()
        #expect(try #require(r10).wasCancelled == false)

        var running = Machine(request: "b", continuation: 2)
        _ = running.start()
        let r11 = running.abandon()
        #expect(try #require(r11).continuation == 2)

        var cancelling = Machine(request: "c", continuation: 3)
        _ = cancelling.start()
        _ = cancelling.cancel()
        let r12 = cancelling.abandon()
        #expect(try #require(r12).wasCancelled)
        let r13 = cancelling.abandon()
        #expect(r13 == nil)
    }
}
