import Generations
import Testing

/// `IdempotencyRecord`'s rules with the time as an input: no store, no clock, no sleep.
@Suite("IdempotencyRecord rules")
struct IdempotencyRecordTests {
    static let mine = RequestFingerprint(hex: String(repeating: "a", count: 64))
    static let other = RequestFingerprint(hex: String(repeating: "b", count: 64))
    static let ok = StoredAnswer(status: 200, fields: [.init(name: "content-type", value: "application/json")], body: Array("{}".utf8))
    static let refused = StoredAnswer(status: 503, fields: [], body: Array("busy".utf8))

    @Test("begin on nothing starts a run that holds the key for the lease")
    func beginOnNothing() {
        let (outcome, stored) = IdempotencyRecord.begin(nil, fingerprint: Self.mine, owner: "run-1", now: 100, lease: 30)
        #expect(outcome == .started)
        #expect(stored == .running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130))
    }

    @Test("begin on a live run: in flight for the same fingerprint, a mismatch for another; nothing written")
    func beginOnLiveRun() {
        let running = IdempotencyRecord.running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130)
        let same = IdempotencyRecord.begin(running, fingerprint: Self.mine, owner: "run-2", now: 129.9, lease: 30)
        #expect(same.0 == .inFlight)
        #expect(same.store == nil)
        let other = IdempotencyRecord.begin(running, fingerprint: Self.other, owner: "run-2", now: 129.9, lease: 30)
        #expect(other.0 == .mismatch)
        #expect(other.store == nil)
    }

    @Test("begin on a run whose lease lapsed (at its end exactly) starts a new run")
    func beginOnLapsedRun() {
        let running = IdempotencyRecord.running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130)
        let (outcome, stored) = IdempotencyRecord.begin(running, fingerprint: Self.other, owner: "run-2", now: 130, lease: 30)
        #expect(outcome == .started)
        #expect(stored == .running(fingerprint: Self.other, owner: "run-2", leaseEnds: 160))
    }

    @Test("begin on a completed run: its answer for the same fingerprint, a mismatch for another")
    func beginOnCompleted() {
        let completed = IdempotencyRecord.completed(fingerprint: Self.mine, answer: Self.ok)
        #expect(IdempotencyRecord.begin(completed, fingerprint: Self.mine, owner: "x", now: 1e9, lease: 30).0 == .replay(Self.ok))
        #expect(IdempotencyRecord.begin(completed, fingerprint: Self.other, owner: "x", now: 1e9, lease: 30).0 == .mismatch)
        #expect(IdempotencyRecord.begin(completed, fingerprint: Self.mine, owner: "x", now: 1e9, lease: 30).store == nil)
    }

    @Test("begin on a released run starts again, whatever the fingerprint")
    func beginOnReleased() {
        let released = IdempotencyRecord.released(fingerprint: Self.mine, answer: Self.refused)
        #expect(IdempotencyRecord.begin(released, fingerprint: Self.mine, owner: "x", now: 5, lease: 1).0 == .started)
        #expect(IdempotencyRecord.begin(released, fingerprint: Self.other, owner: "x", now: 5, lease: 1).0 == .started)
    }

    @Test("end by the owner: a 2xx completes, anything else releases; by another run, nothing")
    func end() {
        let running = IdempotencyRecord.running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130)
        #expect(IdempotencyRecord.end(running, owner: "run-1", answer: Self.ok) == .completed(fingerprint: Self.mine, answer: Self.ok))
        #expect(IdempotencyRecord.end(running, owner: "run-1", answer: Self.refused) == .released(fingerprint: Self.mine, answer: Self.refused))
        #expect(IdempotencyRecord.end(running, owner: "run-2", answer: Self.ok) == nil)
        #expect(IdempotencyRecord.end(nil, owner: "run-1", answer: Self.ok) == nil)
        #expect(IdempotencyRecord.end(.completed(fingerprint: Self.mine, answer: Self.ok), owner: "run-1", answer: Self.ok) == nil)
    }

    @Test("renew by the owner moves the lease end; by another run or on an ended record, nothing")
    func renew() {
        let running = IdempotencyRecord.running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130)
        #expect(IdempotencyRecord.renew(running, owner: "run-1", leaseEnds: 190) == .running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 190))
        #expect(IdempotencyRecord.renew(running, owner: "run-2", leaseEnds: 190) == nil)
        #expect(IdempotencyRecord.renew(nil, owner: "run-1", leaseEnds: 190) == nil)
        #expect(IdempotencyRecord.renew(.released(fingerprint: Self.mine, answer: Self.refused), owner: "run-1", leaseEnds: 190) == nil)
    }

    @Test("a joined request: waits on a live run, is free on a lapsed one or none, gets an ended run's answer")
    func joined() {
        let running = IdempotencyRecord.running(fingerprint: Self.mine, owner: "run-1", leaseEnds: 130)
        #expect(IdempotencyRecord.joined(running, fingerprint: Self.mine, now: 129) == nil)
        #expect(IdempotencyRecord.joined(running, fingerprint: Self.mine, now: 130) == .free)
        #expect(IdempotencyRecord.joined(nil, fingerprint: Self.mine, now: 0) == .free)
        #expect(IdempotencyRecord.joined(.completed(fingerprint: Self.mine, answer: Self.ok), fingerprint: Self.mine, now: 0) == .answered(Self.ok))
        #expect(IdempotencyRecord.joined(.released(fingerprint: Self.mine, answer: Self.refused), fingerprint: Self.mine, now: 0) == .answered(Self.refused))
        // Another fingerprint's answer is not this request's: begin again (and meet the mismatch there).
        #expect(IdempotencyRecord.joined(.completed(fingerprint: Self.other, answer: Self.ok), fingerprint: Self.mine, now: 0) == .free)
    }
}
