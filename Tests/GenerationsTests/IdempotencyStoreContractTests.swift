import Testing

@testable import Generations

/// The `IdempotencyStore` contract, for every store: in memory, on one Redis, on a Redis Cluster. Each test has a
/// user of its own, so the Redis ones share the suite's servers and still run in parallel.
@Suite("IdempotencyStore contract", .sharedRedis)
struct IdempotencyStoreContractTests {
    static let route = "story-generation"
    static let mine = RequestFingerprint(method: "POST", route: route, body: Array(#"{"prompt":"a fox"}"#.utf8))
    static let other = RequestFingerprint(method: "POST", route: route, body: Array(#"{"prompt":"a hen"}"#.utf8))

    /// A scope of a user no other test has.
    static func scope(key: String = "key-1", route: String = route, uid: String = uniqueName("user")) throws -> IdempotencyScope {
        IdempotencyScope(uid: uid, route: route, key: try IdempotencyKey(fieldValue: "\"\(key)\""))
    }

    @Test("begin: started, then in flight for the same request, a mismatch for another", arguments: Backend.allCases)
    func beginOutcomes(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .inFlight)
            #expect(try await store.begin(scope, fingerprint: Self.other, owner: "run-3", lease: .seconds(30)) == .mismatch)
        }
    }

    @Test("a 2xx end is replayed byte for byte to the same request; another request is a mismatch", arguments: Backend.allCases)
    func replay(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            try await store.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(60))
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .replay(.binaryOK))
            #expect(try await store.begin(scope, fingerprint: Self.other, owner: "run-3", lease: .seconds(30)) == .mismatch)
        }
    }

    @Test("a non-2xx end frees the key: begin again starts; a joined request still gets the answer", arguments: Backend.allCases)
    func nonSuccessReleases(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            try await store.end(scope, owner: "run-1", answer: .unavailable, keepFor: .seconds(60))
            #expect(try await store.wait(scope, fingerprint: Self.mine, until: .now + .seconds(5)) == .answered(.unavailable))
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .started)
        }
    }

    @Test("a lapsed lease frees the key; its run can then neither renew nor end it", arguments: Backend.allCases)
    func leaseLapse(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "stalled", lease: .milliseconds(200)) == .started)
            let taken = try await eventually {
                try await store.begin(scope, fingerprint: Self.other, owner: "next", lease: .seconds(30)) == .started
            }
            #expect(taken)
            #expect(try await !store.renew(scope, owner: "stalled", lease: .seconds(30)))
            try await store.end(scope, owner: "stalled", answer: .binaryOK, keepFor: .seconds(60))
            // Still the next run's: in flight for its request, not the stalled run's answer.
            #expect(try await store.begin(scope, fingerprint: Self.other, owner: "third", lease: .seconds(30)) == .inFlight)
        }
    }

    @Test("a lapsed lease with no run after it: a joined request is told the key is free", arguments: Backend.allCases)
    func lapsedLeaseIsFreeForWaiters(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "stalled", lease: .milliseconds(200)) == .started)
            #expect(try await store.wait(scope, fingerprint: Self.mine, until: .now + .seconds(20)) == .free)
            #expect(try await !store.renew(scope, owner: "stalled", lease: .seconds(30)))
        }
    }

    @Test("renew: true for the run that holds the key, false for any other", arguments: Backend.allCases)
    func renewByOwnerOnly(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await !store.renew(scope, owner: "run-1", lease: .seconds(30)))
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            #expect(try await !store.renew(scope, owner: "intruder", lease: .seconds(30)))
            #expect(try await store.renew(scope, owner: "run-1", lease: .seconds(30)))
            try await store.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(60))
            #expect(try await !store.renew(scope, owner: "run-1", lease: .seconds(30)))
        }
    }

    @Test("an end by a run that does not hold the key changes nothing", arguments: Backend.allCases)
    func endByAnotherRun(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            try await store.end(scope, owner: "intruder", answer: .binaryOK, keepFor: .seconds(60))
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .inFlight)
        }
    }

    @Test("a request on another replica joins the run and gets its answer", arguments: Backend.allCases)
    func joinAcrossReplicas(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend, replicas: 2) { stores in
            let (first, second) = (stores[0], stores[1])
            let scope = try Self.scope()
            #expect(try await first.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            #expect(try await second.begin(scope, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .inFlight)
            async let joined = second.wait(scope, fingerprint: Self.mine, until: .now + .seconds(20))
            try await first.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(60))
            #expect(try await joined == .answered(.binaryOK))
            #expect(try await second.begin(scope, fingerprint: Self.mine, owner: "run-3", lease: .seconds(30)) == .replay(.binaryOK))
        }
    }

    @Test("a waiter in the process that ends the run is woken at once, not at its next poll", arguments: Backend.allCases)
    func wokenAtOnce(_ backend: Backend) async throws {
        // Polls a minute apart: only the wake-up can answer before the deadline.
        try await withIdempotencyStores(backend, configure: { $0.pollInterval = .seconds(60) }) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(60)) == .started)
            async let joined = store.wait(scope, fingerprint: Self.mine, until: .now + .seconds(30))
            if let redis = store as? RedisIdempotencyStore {
                #expect(try await eventually { redis.waiterCount == 1 })
            }
            try await store.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(60))
            #expect(try await joined == .answered(.binaryOK))
        }
    }

    @Test("wait: the key is free when there is no record; timed out when the run has not ended", arguments: Backend.allCases)
    func waitOutcomes(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let scope = try Self.scope()
            #expect(try await store.wait(scope, fingerprint: Self.mine, until: .now + .seconds(5)) == .free)
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            #expect(try await store.wait(scope, fingerprint: Self.mine, until: .now) == .timedOut)
            #expect(try await store.wait(scope, fingerprint: Self.mine, until: .now + .milliseconds(150)) == .timedOut)
        }
    }

    @Test("another user's identical key, and the same key on another route, are records of their own", arguments: Backend.allCases)
    func scopesAreIndependent(_ backend: Backend) async throws {
        try await withIdempotencyStores(backend) { stores in
            let store = stores[0]
            let uid = uniqueName("user")
            let scope = try Self.scope(uid: uid)
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-1", lease: .seconds(30)) == .started)
            try await store.end(scope, owner: "run-1", answer: .binaryOK, keepFor: .seconds(60))
            let otherUser = try Self.scope(uid: uniqueName("user"))
            #expect(try await store.begin(otherUser, fingerprint: Self.mine, owner: "run-2", lease: .seconds(30)) == .started)
            let otherRoute = try Self.scope(route: "scene-generation", uid: uid)
            #expect(try await store.begin(otherRoute, fingerprint: Self.other, owner: "run-3", lease: .seconds(30)) == .started)
            let otherKey = try Self.scope(key: "key-2", uid: uid)
            #expect(try await store.begin(otherKey, fingerprint: Self.other, owner: "run-4", lease: .seconds(30)) == .started)
            #expect(try await store.begin(scope, fingerprint: Self.mine, owner: "run-5", lease: .seconds(30)) == .replay(.binaryOK))
        }
    }
}
