import Testing

@testable import CurlHTTP

@Suite("ClientStateMachine")
struct ClientStateMachineTests {
    typealias Machine = ClientStateMachine<String, Int>

    private func id(_ value: UInt64) -> TransferID { TransferID(rawValue: value) }

    @Test func callsBeforeRunAreQueuedAndTakenOnTheFirstPass() {
        var machine = Machine()
        guard case .queued(wakeDriver: false) = machine.execute(id(1), "a", 1, taskIsCancelled: false),
            case .queued(wakeDriver: false) = machine.execute(id(2), "b", 2, taskIsCancelled: false)
        else {
            Issue.record("calls before run must queue without waking anyone")
            return
        }
        let r1 = machine.run()
        #expect(r1)
        let work = machine.takeDriverWork()
        #expect(work.starts.map(\.1) == ["a", "b"])
        #expect(!work.stop)
        let r2 = machine.takeDriverWork()
        #expect(r2.starts.isEmpty, "taken once")
    }

    @Test func onlyTheFirstCallSinceTheLastPassWakesTheDriver() {
        var machine = Machine()
        _ = machine.run()
        _ = machine.takeDriverWork()
        guard case .queued(wakeDriver: true) = machine.execute(id(1), "a", 1, taskIsCancelled: false),
            case .queued(wakeDriver: false) = machine.execute(id(2), "b", 2, taskIsCancelled: false)
        else {
            Issue.record("expected one wakeup")
            return
        }
        _ = machine.takeDriverWork()
        guard case .queued(wakeDriver: true) = machine.execute(id(3), "c", 3, taskIsCancelled: false) else {
            Issue.record("after the driver took its work, the next call wakes it again")
            return
        }
    }

    @Test func aCallFromACancelledTaskFailsAtOnce() {
        var machine = Machine()
        _ = machine.run()
        guard case .fail(9, .cancelled) = machine.execute(id(1), "a", 9, taskIsCancelled: true) else {
            Issue.record("expected cancelled")
            return
        }
        #expect(machine.unfinishedCount == 0)
    }

    @Test func cancellingAQueuedCallResumesItWithoutTheDriver() {
        var machine = Machine()
        _ = machine.run()
        _ = machine.execute(id(1), "a", 1, taskIsCancelled: false)
        _ = machine.execute(id(2), "b", 2, taskIsCancelled: false)
        guard case .resumeCancelled(1) = machine.cancel(id(1)) else {
            Issue.record("expected resumeCancelled")
            return
        }
        let work = machine.takeDriverWork()
        #expect(work.starts.map(\.1) == ["b"], "the cancelled call never reaches libcurl")
        #expect(work.removals.isEmpty)
    }

    @Test func cancellingARunningCallGoesThroughTheDriver() throws {
        var machine = Machine()
        _ = machine.run()
        _ = machine.execute(id(1), "a", 1, taskIsCancelled: false)
        _ = machine.takeDriverWork()
        guard case .driverRemoves(wakeDriver: true) = machine.cancel(id(1)) else {
            Issue.record("expected driverRemoves")
            return
        }
        let r3 = machine.takeDriverWork()
        #expect(r3.removals == [id(1)])
        let r4 = machine.transferCompleted(id(1))
        let completed = try #require(r4)
        #expect(completed.continuation == 1)
        #expect(completed.wasCancelled)
        #expect(machine.unfinishedCount == 0)
    }

    @Test func cancelAfterCompletionAndUnknownIDsAreIgnored() {
        var machine = Machine()
        _ = machine.run()
        _ = machine.execute(id(1), "a", 1, taskIsCancelled: false)
        _ = machine.takeDriverWork()
        let r5 = machine.transferCompleted(id(1))
        #expect(r5?.wasCancelled == false)
        guard case .none = machine.cancel(id(1)), case .none = machine.cancel(id(42)) else {
            Issue.record("expected nothing to do")
            return
        }
        let r6 = machine.transferCompleted(id(1))
        #expect(r6 == nil, "resumed exactly once")
    }

    @Test func shutdownFailsQueuedCallsAndStopsTheDriver() {
        var machine = Machine()
        _ = machine.run()
        _ = machine.execute(id(1), "running", 1, taskIsCancelled: false)
        _ = machine.takeDriverWork()
        _ = machine.execute(id(2), "queued", 2, taskIsCancelled: false)

        let shutdown = machine.shutdown()
        #expect(shutdown.fail.map(\.0) == [2])
        #expect(shutdown.fail.allSatisfy { $0.1 == .shutdown })
        #expect(shutdown.wakeDriver)
        #expect(machine.lifecycle == .shuttingDown)

        guard case .fail(3, .shutdown) = machine.execute(id(3), "late", 3, taskIsCancelled: false) else {
            Issue.record("calls during shutdown fail")
            return
        }
        let work = machine.takeDriverWork()
        #expect(work.stop)
        #expect(work.starts.isEmpty)

        let remaining = machine.driverStopped()
        #expect(remaining.map(\.0) == [1])
        #expect(remaining.first?.1 == .shutdown)
        #expect(machine.lifecycle == .stopped)
        #expect(machine.unfinishedCount == 0)
        let r7 = machine.shutdown()
        #expect(r7.fail.isEmpty, "shutting down twice does nothing")
    }

    @Test func aTransferBeingCancelledAtShutdownFailsAsCancelled() {
        var machine = Machine()
        _ = machine.run()
        _ = machine.execute(id(1), "a", 1, taskIsCancelled: false)
        _ = machine.takeDriverWork()
        _ = machine.cancel(id(1))
        _ = machine.shutdown()
        let remaining = machine.driverStopped()
        #expect(remaining.count == 1)
        #expect(remaining.first?.1 == .cancelled)
    }

    @Test func shutdownBeforeRunStopsAndFailsQueuedCalls() {
        var machine = Machine()
        _ = machine.execute(id(1), "a", 1, taskIsCancelled: false)
        let shutdown = machine.shutdown()
        #expect(shutdown.fail.map(\.0) == [1])
        #expect(!shutdown.wakeDriver)
        #expect(machine.lifecycle == .stopped)
        let ranAgain = machine.run()
        #expect(!ranAgain, "a stopped client does not run again")
    }

    @Test func runStartsOnlyOnce() {
        var machine = Machine()
        let r8 = machine.run()
        #expect(r8)
        let second = machine.run()
        #expect(!second)
        #expect(machine.lifecycle == .running)
    }
}
