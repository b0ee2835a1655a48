import TestSupport
import Testing

@testable import Generations

/// What the Redis stores leave in Redis: the keys their doc comments name, their expiries, and slots that let every
/// script run in Redis Cluster.
@Suite("Redis stores' keys and expiries", .sharedRedis)
struct RedisLayoutTests {
    @Test("an idempotency record expires at its lease's end, keepFor after a 2xx, 10 s after anything else")
    func idempotencyExpiries() async throws {
        let redis = try SharedRedis.current().server
        try await withIdempotencyStores(.redis) { stores in
            let store = stores[0]
            let uid = uniqueName("user")
            let scope = try IdempotencyStoreContractTests.scope(uid: uid)
            let fingerprint = IdempotencyStoreContractTests.mine
            #expect(scope.storageKey.hasPrefix("storygate:idem:{\(scope.userHash)}:story-generation:"))

            #expect(try await store.begin(scope, fingerprint: fingerprint, owner: "run-1", lease: .seconds(30)) == .started)
            #expect(try redis.cli("HGET", scope.storageKey, "state") == "running")
            #expect(try (1...30_000).contains(Int(redis.cli("PTTL", scope.storageKey)) ?? 0))
            #expect(try await store.renew(scope, owner: "run-1", lease: .seconds(90)))
            #expect(try (30_001...90_000).contains(Int(redis.cli("PTTL", scope.storageKey)) ?? 0))

            try await store.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(3600))
            #expect(try redis.cli("HGET", scope.storageKey, "state") == "completed")
            #expect(try redis.cli("HEXISTS", scope.storageKey, "owner") == "0")
            #expect(try (3_590_000...3_600_000).contains(Int(redis.cli("PTTL", scope.storageKey)) ?? 0))

            let released = try IdempotencyStoreContractTests.scope(key: "key-2", uid: uid)
            #expect(try await store.begin(released, fingerprint: fingerprint, owner: "run-2", lease: .seconds(30)) == .started)
            try await store.end(released, owner: "run-2", answer: .unavailable, keepFor: .seconds(3600))
            #expect(try redis.cli("HGET", released.storageKey, "state") == "released")
            #expect(try (1...10_000).contains(Int(redis.cli("PTTL", released.storageKey)) ?? 0))
            #expect(try !redis.cli("KEYS", "*").contains(uid))
        }
    }

    @Test("a job: its record and the user's index expire with the retention; the stream entry goes when it finishes")
    func jobKeys() async throws {
        let redis = try SharedRedis.current().server
        let queueName = uniqueName("queue")
        try await withJobQueues(.redis, retention: .seconds(600), configure: { $0.queue = queueName }) { queues in
            let queue = queues[0]
            let job = JobQueueContractTests.job(JobQueueContractTests.user(), createdAt: 1_764_000_000.25)
            let record = "storygate:job:{\(job.userHash)}:\(job.id)"
            let index = "storygate:jobs:{\(job.userHash)}"
            let stream = "storygate:jobs:{\(queueName)}"
            try await queue.create(job, maxQueued: 10)
            #expect(try redis.cli("HGET", record, "status") == "queued")
            #expect(try (590_000...600_000).contains(Int(redis.cli("PTTL", record)) ?? 0))
            #expect(try redis.cli("ZSCORE", index, job.id) == "1764000000.25")
            #expect(try (590_000...600_000).contains(Int(redis.cli("PTTL", index)) ?? 0))
            #expect(try redis.cli("XLEN", stream) == "1")
            #expect(try redis.cli("XINFO", "GROUPS", stream).contains("storygate-workers"))
            #expect(try redis.cli("HLEN", stream + ":waiting") == "1")

            let taken = try #require(try await queue.take(consumer: "worker-1", lease: .seconds(30), wait: .zero, now: 1_764_000_001))
            #expect(try redis.cli("HLEN", stream + ":waiting") == "0")
            #expect(try redis.cli("XPENDING", stream, "storygate-workers").hasPrefix("1"))
            try await queue.finish(taken, status: .succeeded, answer: .binaryOK, now: 1_764_000_002)
            #expect(try redis.cli("XLEN", stream) == "0")
            #expect(try redis.cli("XPENDING", stream, "storygate-workers").hasPrefix("0"))
            #expect(try redis.cli("HGET", record, "status") == "succeeded")
        }
    }

    @Test("a listing drops the ids whose record has gone")
    func listingTrimsIndex() async throws {
        let redis = try SharedRedis.current().server
        try await withJobQueues(.redis) { queues in
            let queue = queues[0]
            let user = JobQueueContractTests.user()
            let kept = JobQueueContractTests.job(user, createdAt: 1_764_000_000)
            let lost = JobQueueContractTests.job(user, createdAt: 1_764_000_001)
            try await queue.create(kept, maxQueued: 10)
            try await queue.create(lost, maxQueued: 10)
            // As when the record's expiry comes first.
            try redis.cli("DEL", "storygate:job:{\(user)}:\(lost.id)")
            let page = try await queue.jobs(userHash: user, after: nil, limit: 1)
            #expect(page.jobs.map(\.id) == [kept.id] && page.next == nil)
            #expect(try redis.cli("ZCARD", "storygate:jobs:{\(user)}") == "1")
        }
    }

    @Test("in a cluster, each script's keys share a slot: the queue's keys, and a user's record and index")
    func clusterSlots() async throws {
        let cluster = try SharedRedis.current().cluster
        let user = JobQueueContractTests.user()
        let stream = "storygate:jobs:{queue}"
        #expect(try cluster.slot(of: stream) == cluster.slot(of: stream + ":waiting"))
        let record = RedisJobQueue.recordKey(id: JobRecord.newID(), userHash: user)
        #expect(try cluster.slot(of: record) == cluster.slot(of: RedisJobQueue.indexKey(userHash: user)))
        let scope = try IdempotencyStoreContractTests.scope()
        #expect(try cluster.slot(of: scope.storageKey) == cluster.slot(of: "storygate:rl:story-generation:{\(scope.userHash)}"))
    }
}
