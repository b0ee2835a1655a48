import Testing

@testable import Generations

/// The `JobQueue` contract, for every queue: in memory, on one Redis, on a Redis Cluster. Each Redis test has a
/// queue and users of its own, so they share the suite's servers and still run in parallel.
@Suite("JobQueue contract", .sharedRedis)
struct JobQueueContractTests {
    /// A queued job of `userHash`, created at `createdAt` (by default now: the memory queue's retention runs on the
    /// wall clock), whose request body holds every byte value.
    static func job(_ userHash: String, createdAt: Double = wallClock(), uid: String = "uid-1") -> JobRecord {
        JobRecord(
            id: JobRecord.newID(), userHash: userHash, uid: uid, function: "audio-generation", createdAt: createdAt,
            request: Array(#"{"text":"\#u{0}"}"#.utf8) + Array(0...255)
        )
    }

    /// A user pseudonym no other test has (16 hex digits, as `UserHash.logIdentifier` makes them).
    static func user() -> String {
        let value = UInt64.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    @Test("create, take, finish, get: the record's life, binary-safe", arguments: Backend.allCases)
    func lifecycle(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            try await queue.create(job, maxQueued: 10)
            #expect(try await queue.job(id: job.id, userHash: job.userHash) == job)
            #expect(try await queue.depth() == 1)

            let taken = try #require(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_001.5))
            #expect(!taken.reclaimed)
            #expect(taken.job.id == job.id && taken.job.request == job.request)
            #expect(taken.job.status == .running && taken.job.attempts == 1 && taken.job.startedAt == 1_764_000_001.5)
            #expect(try await queue.depth() == 0)
            #expect(try await queue.job(id: job.id, userHash: job.userHash)?.status == .running)
            #expect(try await queue.keepRunning(taken, consumer: "worker-1", lease: .seconds(30)))

            try await queue.finish(taken, status: .succeeded, answer: .binaryOK, now: 1_764_000_009.75)
            let done = try #require(try await queue.job(id: job.id, userHash: job.userHash))
            #expect(done.status == .succeeded && done.answer == .binaryOK && done.finishedAt == 1_764_000_009.75)
            #expect(done.request == job.request && done.createdAt == job.createdAt && done.uid == "uid-1" && done.function == "audio-generation")
            #expect(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_010) == nil)
            #expect(try await queue.depth() == 0)
        }
    }

    @Test("a user's jobs, newest first, a page at a time", arguments: Backend.allCases)
    func listing(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let user = Self.user()
            var jobs: [JobRecord] = []
            let start = wallClock()
            for index in 0..<5 {
                let job = Self.job(user, createdAt: start + Double(index))
                try await queue.create(job, maxQueued: 10)
                jobs.append(job)
            }
            try await queue.create(Self.job(Self.user()), maxQueued: 10)
            let newestFirst = jobs.reversed().map(\.id)

            let first = try await queue.jobs(userHash: user, after: nil, limit: 2)
            #expect(first.jobs.map(\.id) == Array(newestFirst[0..<2]))
            #expect(first.next == newestFirst[1])
            let second = try await queue.jobs(userHash: user, after: first.next, limit: 2)
            #expect(second.jobs.map(\.id) == Array(newestFirst[2..<4]))
            #expect(second.next == newestFirst[3])
            let last = try await queue.jobs(userHash: user, after: second.next, limit: 2)
            #expect(last.jobs.map(\.id) == [newestFirst[4]])
            #expect(last.next == nil)
            // A page that ends exactly at the last job has no next page.
            let whole = try await queue.jobs(userHash: user, after: nil, limit: 5)
            #expect(whole.jobs.map(\.id) == newestFirst && whole.next == nil)
            #expect(try await queue.jobs(userHash: Self.user(), after: nil, limit: 5) == JobPage(jobs: [], next: nil))
        }
    }

    @Test("another user's job is not found, not listed, not cancelled", arguments: Backend.allCases)
    func otherUsersJob(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            try await queue.create(job, maxQueued: 10)
            let stranger = Self.user()
            #expect(try await queue.job(id: job.id, userHash: stranger) == nil)
            #expect(try await queue.jobs(userHash: stranger, after: nil, limit: 10).jobs.isEmpty)
            #expect(try await queue.cancel(id: job.id, userHash: stranger, now: 1_764_000_005) == nil)
            #expect(try await queue.job(id: job.id, userHash: job.userHash)?.status == .queued)
            #expect(try await queue.job(id: JobRecord.newID(), userHash: job.userHash) == nil)
        }
    }

    @Test("a job cancelled while queued is never taken and leaves the queue", arguments: Backend.allCases)
    func cancelQueued(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            try await queue.create(job, maxQueued: 10)
            let cancelled = try #require(try await queue.cancel(id: job.id, userHash: job.userHash, now: 1_764_000_005))
            #expect(cancelled.status == .cancelled && cancelled.finishedAt == 1_764_000_005)
            #expect(try await queue.depth() == 0)
            #expect(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_006) == nil)
            // An ended job is left as it is.
            #expect(try await queue.cancel(id: job.id, userHash: job.userHash, now: 1_764_000_007)?.finishedAt == 1_764_000_005)
        }
    }

    @Test("a job cancelled while running: its worker's keepRunning is false and its finish changes nothing", arguments: Backend.allCases)
    func cancelRunning(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            try await queue.create(job, maxQueued: 10)
            let taken = try #require(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_001))
            #expect(try await queue.cancel(id: job.id, userHash: job.userHash, now: 1_764_000_002)?.status == .cancelled)
            #expect(try await !queue.keepRunning(taken, consumer: "worker-1", lease: .seconds(30)))
            try await queue.finish(taken, status: .succeeded, answer: .binaryOK, now: 1_764_000_003)
            let after = try #require(try await queue.job(id: job.id, userHash: job.userHash))
            #expect(after.status == .cancelled && after.answer == nil && after.finishedAt == 1_764_000_002)
            #expect(try await queue.depth() == 0)
        }
    }

    @Test("a full queue refuses a job and keeps no record of it", arguments: Backend.allCases)
    func full(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let user = Self.user()
            try await queue.create(Self.job(user), maxQueued: 2)
            try await queue.create(Self.job(user), maxQueued: 2)
            let refused = Self.job(user)
            await #expect(throws: GenerationStoreError.full) { try await queue.create(refused, maxQueued: 2) }
            #expect(try await queue.job(id: refused.id, userHash: user) == nil)
            #expect(try await queue.jobs(userHash: user, after: nil, limit: 10).jobs.count == 2)
            #expect(try await queue.depth() == 2)
            // A taken job no longer counts.
            _ = try #require(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_001))
            try await queue.create(Self.job(user), maxQueued: 2)
        }
    }

    @Test("a job whose worker's lease lapsed is reclaimed by another replica; the first worker is told to stop", arguments: Backend.allCases)
    func reclaim(_ backend: Backend) async throws {
        try await withJobQueues(backend, replicas: 2) { queues in
            let (first, second) = (queues[0], queues[1])
            let job = Self.job(Self.user())
            try await first.create(job, maxQueued: 10)
            let stalled = try #require(try await first.take(consumer: "worker-a", lease: .milliseconds(200), wait: .zero, now: 1_764_000_001))
            var reclaimed: TakenJob?
            let found = try await eventually {
                reclaimed = try await second.take(consumer: "worker-b", lease: .milliseconds(200), wait: .zero, now: 1_764_000_002)
                return reclaimed != nil
            }
            #expect(found)
            let taken = try #require(reclaimed)
            #expect(taken.reclaimed && taken.job.id == job.id && taken.job.attempts == 2 && taken.job.startedAt == 1_764_000_002)
            #expect(try await !first.keepRunning(stalled, consumer: "worker-a", lease: .seconds(30)))
            #expect(try await second.keepRunning(taken, consumer: "worker-b", lease: .seconds(30)))
            try await second.finish(taken, status: .failed, answer: .unavailable, now: 1_764_000_003)
            let done = try #require(try await first.job(id: job.id, userHash: job.userHash))
            #expect(done.status == .failed && done.answer == .unavailable && done.attempts == 2)
            #expect(try await first.depth() == 0)
            #expect(try await second.depth() == 0)
            #expect(try await first.take(consumer: "worker-a", lease: .milliseconds(200), wait: .zero, now: 1_764_000_004) == nil)
        }
    }

    @Test("an idle worker is woken at once by a create in its process, not at its next poll", arguments: Backend.allCases)
    func workerWokenAtOnce(_ backend: Backend) async throws {
        try await withJobQueues(backend, configure: { $0.pollInterval = .seconds(60) }) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            async let taken = queue.take(consumer: "worker-1", lease: .seconds(30), wait: .seconds(30), now: 1_764_000_001)
            if let redis = queue as? RedisJobQueue {
                #expect(try await eventually { redis.waiterCount == 1 })
            }
            try await queue.create(job, maxQueued: 10)
            #expect(try await taken?.job.id == job.id)
        }
    }

    @Test("wait returns when the status changes: at once in this process, by polling from another replica", arguments: Backend.allCases)
    func waitForStatus(_ backend: Backend) async throws {
        try await withJobQueues(backend, replicas: 2) { queues in
            let (first, second) = (queues[0], queues[1])
            let job = Self.job(Self.user())
            try await first.create(job, maxQueued: 10)
            async let local = first.wait(id: job.id, userHash: job.userHash, seen: .queued, until: .now + .seconds(30))
            async let remote = second.wait(id: job.id, userHash: job.userHash, seen: .queued, until: .now + .seconds(30))
            let taken = try #require(try await first.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_001))
            #expect(try await local?.status == .running)
            #expect(try await remote?.status == .running)
            async let finished = first.wait(id: job.id, userHash: job.userHash, seen: .running, until: .now + .seconds(30))
            try await first.finish(taken, status: .succeeded, answer: .binaryOK, now: 1_764_000_002)
            #expect(try await finished?.answer == .binaryOK)
        }
    }

    @Test("wait: nil for no such job, the record as it is at the deadline", arguments: Backend.allCases)
    func waitOutcomes(_ backend: Backend) async throws {
        try await withJobQueues(backend) { queues in
            let queue = queues[0]
            let job = Self.job(Self.user())
            #expect(try await queue.wait(id: job.id, userHash: job.userHash, seen: .queued, until: .now + .seconds(5)) == nil)
            try await queue.create(job, maxQueued: 10)
            #expect(try await queue.wait(id: job.id, userHash: job.userHash, seen: .queued, until: .now + .milliseconds(150))?.status == .queued)
        }
    }
}
