// Temporary stand-in until the configuration branch lands; removed at its merge.
public enum IdempotencyMode: String, Sendable, CaseIterable { case off, optional, required }
public enum IdempotencyFailurePolicy: String, Sendable, CaseIterable { case open, closed }
public struct IdempotencySettings: Sendable, Equatable {
    public var ttlSeconds = 86_400
    public var failurePolicy = IdempotencyFailurePolicy.open
    public init() {}
}
public struct JobSettings: Sendable, Equatable {
    public var workers = 4
    public var queueMax = 1_000
    public var retentionSeconds = 86_400
    public var leaseSeconds = 30
    public init() {}
}
extension GatewayConfiguration {
    public var idempotency: IdempotencySettings { IdempotencySettings() }
    public var jobs: JobSettings { JobSettings() }
}
extension RouteConfiguration {
    public var idempotencyMode: IdempotencyMode {
        if case .builtin(let handler) = self.target, BuiltinHandler.functions.contains(handler) { return .optional }
        return .off
    }
}
