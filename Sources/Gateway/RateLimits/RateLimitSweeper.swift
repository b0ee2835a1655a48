import RateLimiting
import ServiceLifecycle

/// Drops idle buckets that would be full again, once a minute, so memory follows active users only.
struct RateLimitSweeper: Service {
    let stores: [InMemoryRateLimitStore]
    var interval: Duration = .seconds(60)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: self.interval) } catch { return }
                for store in self.stores { _ = store.sweep() }
            }
        }
    }
}
