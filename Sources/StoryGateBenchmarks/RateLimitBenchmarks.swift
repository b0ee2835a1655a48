import Foundation
import IDTokens
import Logging
import RateLimiting
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `StoryGateBenchmarks ratelimit`: in-memory check cost on one and two threads, memory for 1,000,000 users'
/// buckets, and Redis check latency and throughput over one pool (against a redis-server started here).
/// Each figure takes a few seconds at most. Build with `-c release` for meaningful numbers.
func runRateLimitBenchmarks() async throws {
    print("RateLimiting benchmarks")
    inMemoryCheckCost(threads: 1)
    inMemoryCheckCost(threads: 2)
    inMemoryResidentMemory(users: 1_000_000)
    try await redisCheckLatencyAndThroughput()
}

// MARK: In memory

/// Checks per thread for about a second, each thread on its own 10,000 users (a Firebase-sized uid, 28 bytes).
private func inMemoryCheckCost(threads: Int) {
    let store = InMemoryRateLimitStore()
    // Generous enough that no bucket runs dry: every check takes the same path as an allowed request.
    let limit = RateLimit(name: "story-generation", capacity: 1_000_000_000, period: 3600)
    let keys = (0..<threads).map { thread in (0..<10_000).map { uid(thread * 10_000 + $0) } }
    let iterations = 2_000_000
    let elapsed = Mutex<[Double]>([])
    let allowed = Atomic<Int>(0)
    let workers = (0..<threads).map { thread in
        Thread {
            let keys = keys[thread]
            var count = 0
            let start = MonotonicClock.now()
            for index in 0..<iterations {
                if store.checkNow(limit, key: keys[index % keys.count], cost: 1, now: start).allowed { count += 1 }
            }
            let seconds = MonotonicClock.now() - start
            allowed.add(count, ordering: .relaxed)
            elapsed.withLock { $0.append(seconds) }
        }
    }
    for worker in workers { worker.start() }
    while elapsed.withLock({ $0.count }) < threads { usleep(1_000) }
    let slowest = elapsed.withLock { $0.max()! }
    let nanosecondsPerCheck = slowest * 1e9 / Double(iterations)
    let total = Double(iterations * threads) / slowest
    print(
        "  in-memory check, \(threads) thread\(threads == 1 ? "" : "s"): \(format(nanosecondsPerCheck)) ns/op per thread, "
            + "\(format(total / 1e6)) M checks/s in total (\(allowed.load(ordering: .relaxed)) allowed)"
    )
}

/// VmRSS before and after one check each for `users` distinct users.
private func inMemoryResidentMemory(users: Int) {
    let store = InMemoryRateLimitStore()
    let before = residentKilobytes()
    let start = MonotonicClock.now()
    for index in 0..<users {
        _ = store.checkNow(.storyGeneration, key: uid(index), cost: 1, now: 0)
    }
    let seconds = MonotonicClock.now() - start
    let after = residentKilobytes()
    let megabytes = Double(after - before) / 1024
    print(
        "  in-memory, \(users) users: RSS +\(format(megabytes)) MB (\(format(Double(after - before) * 1024 / Double(users))) B/user), "
            + "\(store.bucketCount) buckets, inserted in \(format(seconds)) s"
    )
    withExtendedLifetime(store) {}
}

/// A 28-character uid like Firebase's, distinct per index.
private func uid(_ index: Int) -> String {
    let digits = String(index, radix: 36)
    return "uid" + String(repeating: "0", count: 25 - digits.count) + digits
}

private func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
    return 0
}

// MARK: Redis

private func redisCheckLatencyAndThroughput() async throws {
    guard let server = try BenchmarkRedisServer.start() else {
        print("  redis: skipped (redis-server not found; run scripts/setup.sh)")
        return
    }
    defer { server.stop() }

    var configuration = RedisRateLimitStore.Configuration(url: "redis://127.0.0.1:\(server.port)")
    configuration.timeout = .seconds(1)
    configuration.keyHash = UserHash.logIdentifier  // as the gateway sets it
    var logger = Logger(label: "benchmark.ratelimit")
    logger.logLevel = .error
    let store = try RedisRateLimitStore(configuration: configuration, logger: logger)
    let limit = RateLimit(name: "story-generation", capacity: 1_000_000_000, period: 3600)
    let keys = (0..<10_000).map(uid)

    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await store.run() }
        defer { group.cancelAll() }
        let clock = ContinuousClock()
        let ready = clock.now + .seconds(10)
        while store.liveConnectionCount < configuration.poolSize && clock.now < ready {
            try await Task.sleep(for: .milliseconds(10))
        }

        // Latency: one check at a time for about two seconds.
        var latencies: [Double] = []
        let latencyEnd = clock.now + .seconds(2)
        var index = 0
        while clock.now < latencyEnd {
            let start = MonotonicClock.now()
            _ = try await store.check(limit, key: keys[index % keys.count], cost: 1)
            latencies.append(MonotonicClock.now() - start)
            index += 1
        }
        latencies.sort()
        let p50 = latencies[latencies.count / 2] * 1e6
        let p99 = latencies[latencies.count * 99 / 100] * 1e6
        print("  redis check, sequential: p50 \(format(p50)) µs, p99 \(format(p99)) µs (\(latencies.count) checks)")

        // Throughput: 64 checks in flight over the pool's pipelined connections, about two seconds.
        let concurrency = 64
        let throughputStart = clock.now
        let throughputEnd = throughputStart + .seconds(2)
        let completed = try await withThrowingTaskGroup(of: Int.self) { workers in
            for worker in 0..<concurrency {
                workers.addTask {
                    var count = 0
                    while clock.now < throughputEnd {
                        _ = try await store.check(limit, key: keys[(worker * 131 + count) % keys.count], cost: 1)
                        count += 1
                    }
                    return count
                }
            }
            return try await workers.reduce(0, +)
        }
        let seconds = Double((clock.now - throughputStart).components.seconds) + Double((clock.now - throughputStart).components.attoseconds) / 1e18
        print(
            "  redis check, \(concurrency) in flight over \(configuration.poolSize) connections: "
                + "\(format(Double(completed) / seconds)) checks/s"
        )
    }
}

/// A redis-server on a free loopback port for the benchmark, killed at the end.
private final class BenchmarkRedisServer {
    let port: Int
    private let process: Process
    private let directory: URL

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static func start() throws -> BenchmarkRedisServer? {
        guard let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redis-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--logfile", "", "--loglevel", "warning",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The store's own first check waits for it to listen (bounded by the caller's readiness loop).
        return BenchmarkRedisServer(port: port, process: process, directory: directory)
    }

    func stop() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: self.directory)
    }

    private static func freePort() -> Int {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(socket, $0, length)
                _ = getsockname(socket, $0, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

private func format(_ value: Double) -> String {
    String(format: value >= 100 ? "%.0f" : "%.1f", value)
}
