public import Logging
public import ServiceLifecycle
import Synchronization

/// One issuer's signing keys, kept fresh from a `CertificateSource`: a Firebase project's x509 certificates for ID
/// tokens, or App Check's JWKS (`format` says which; the refresh rules are the same).
///
/// A `Service`: `run()` loads the set, then refreshes it in the background ahead of expiry and backs off
/// after failures, until graceful shutdown. Readers take the current set without waiting. A token with an
/// unknown `kid` can trigger one single-flight refetch per cooldown, so a real key rotation is picked up
/// within seconds while a flood of random kids causes no flood of fetches.
public final class CertificateStore: Service, Sendable, CustomStringConvertible {
    public let projectID: String
    public let source: any CertificateSource
    /// How the source's documents are read.
    public let format: KeySetFormat
    private let now: @Sendable () -> Double
    private let logger: Logger
    private let state: Mutex<CertificateRefreshState>
    private let inFlight = Mutex<Task<Void, Never>?>(nil)
    private let counters = Mutex<FetchCounters>(.init())
    private let removalObservers = Mutex<[@Sendable () -> Void]>([])

    /// Fetch outcomes since start, for metrics.
    public struct FetchCounters: Sendable, Equatable {
        public var succeeded = 0
        public var failed = 0

        public init(succeeded: Int = 0, failed: Int = 0) {
            self.succeeded = succeeded
            self.failed = failed
        }
    }

    public init(
        projectID: String,
        source: any CertificateSource,
        format: KeySetFormat = .googleX509JSON,
        policy: CertificateRefreshPolicy = .init(),
        now: @escaping @Sendable () -> Double = WallClock.now,
        logger: Logger
    ) {
        self.projectID = projectID
        self.source = source
        self.format = format
        self.now = now
        self.logger = logger
        self.state = Mutex(CertificateRefreshState(policy: policy))
    }

    public var description: String { "CertificateStore(\(self.projectID), \(self.source.description))" }

    /// The set to verify with, or nil when none was ever loaded (or it is past stale-if-error).
    public var keys: KeySet? {
        let now = self.now()
        return self.state.withLock { $0.usableKeys(now: now) }
    }

    /// A snapshot of the refresh state (for readiness, metrics and tests).
    public var refreshState: CertificateRefreshState { self.state.withLock { $0 } }

    public var fetchCounters: FetchCounters { self.counters.withLock { $0 } }

    /// Fetch now, or wait for the fetch already under way (single flight).
    public func refresh() async {
        let task = self.inFlight.withLock { inFlight -> Task<Void, Never> in
            if let inFlight { return inFlight }
            let task = Task { await self.fetchOnce() }
            inFlight = task
            return task
        }
        await task.value
    }

    /// A token named a `kid` the current set lacks. Joins a fetch under way, or starts one unless the cooldown
    /// forbids it. Returns whether a fetch completed (the caller looks the key up again either way: a fetch may
    /// have ended just before this call).
    ///
    /// Joining, the cooldown check and starting are one step under the lock: a request arriving while another
    /// starts the fetch joins it, where it could once find the cooldown begun and no fetch yet to join.
    public func refreshForUnknownKey() async -> Bool {
        let now = self.now()
        let (task, started) = self.inFlight.withLock { inFlight -> (Task<Void, Never>?, Bool) in
            if let inFlight { return (inFlight, false) }
            guard self.state.withLock({ $0.beginUnknownKeyFetch(now: now) }) else { return (nil, false) }
            let task = Task { await self.fetchOnce() }
            inFlight = task
            return (task, true)
        }
        guard let task else { return false }
        if started { self.logger.info("unknown key id: refetching certificates", metadata: ["project": "\(self.projectID)"]) }
        await task.value
        return true
    }

    /// Calls `observer` whenever a fetched set lacks a key the set before it had (a key withdrawn): a verified-token
    /// cache drops what it holds, since some of it may have been verified with that key.
    public func onKeysRemoved(_ observer: @escaping @Sendable () -> Void) {
        self.removalObservers.withLock { $0.append(observer) }
    }

    /// Loads the set, then keeps it fresh until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let wait = self.state.withLock { $0.nextRefreshAt } - self.now()
                if wait > 0 {
                    // Sleep at most an hour at a time: the wall clock may jump.
                    do { try await Task.sleep(for: .seconds(min(wait, 3600))) } catch { return }
                    continue
                }
                await self.refresh()
            }
        }
    }

    private func fetchOnce() async {
        defer { self.inFlight.withLock { $0 = nil } }
        do {
            let document = try await self.source.fetch()
            let keys = try self.format.keySet(from: document.body)
            let now = self.now()
            let previous = self.state.withLock { state in
                let previous = state.keys
                state.recordSuccess(keys: keys, maxAge: document.maxAge, now: now)
                return previous
            }
            self.counters.withLock { $0.succeeded += 1 }
            if let previous, !Set(previous.keyIDs).isSubset(of: keys.keyIDs) {
                for observer in self.removalObservers.withLock({ $0 }) { observer() }
            }
            self.logger.info(
                "certificates loaded",
                metadata: [
                    "project": "\(self.projectID)", "source": "\(self.source.description)", "format": "\(self.format.rawValue)",
                    "kids": "\(keys.keyIDs.joined(separator: ","))", "max_age": "\(document.maxAge.map { "\($0)" } ?? "none")",
                    // Entries that are not usable RSA keys of at least 2048 bits: named, so an operator sees why.
                    "skipped_kids": "\(keys.skippedKeyIDs.joined(separator: ","))",
                ]
            )
        } catch {
            let now = self.now()
            let state = self.state.withLock { state in
                state.recordFailure(now: now, jitter: Double.random(in: 0.5...1))
                return state
            }
            self.counters.withLock { $0.failed += 1 }
            self.logger.warning(
                "certificate fetch failed",
                metadata: [
                    "project": "\(self.projectID)", "source": "\(self.source.description)", "error": "\(error)",
                    "failures": .stringConvertible(state.consecutiveFailures), "serving_stale": .stringConvertible(state.usableKeys(now: now) != nil),
                    "retry_in_s": .stringConvertible(Int((state.nextRefreshAt - now).rounded(.up))),
                ]
            )
        }
    }
}
