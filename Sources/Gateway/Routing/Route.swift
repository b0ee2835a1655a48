public import GatewayConfig
public import HTTPTypes
public import HummingbirdCore
import NIOCore

/// What a handler gets besides the request: the request id, the authenticated caller, the connection.
public struct RequestContext: Sendable {
    public let requestID: String
    /// Set when the route's auth policy found credentials (always set for `.required`).
    public let identity: Identity?
    let channel: any Channel
    /// Where an upstream route's proxy records how long the upstream took (nil on other routes).
    let upstream: UpstreamTiming?
    /// The connection's close watcher when its handler keeps one itself (nil: the one in the channel pipeline).
    let watcher: ClientCloseWatcher?

    init(requestID: String, identity: Identity?, channel: any Channel, upstream: UpstreamTiming? = nil, watcher: ClientCloseWatcher? = nil) {
        self.requestID = requestID
        self.identity = identity
        self.channel = channel
        self.upstream = upstream
        self.watcher = watcher
    }

    /// Runs `operation` off the event loop (on Swift's global executor: the AI functions' work is long and CPU-bound),
    /// cancelling it if the client goes away meanwhile (for expensive work nobody would receive).
    func cancellingWhenClientLeaves<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task(executorPreference: globalConcurrentExecutor) { try await operation() }
        let watcher = await self.closeWatcher()
        watcher?.watch { task.cancel() }
        defer { watcher?.unwatch() }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// The connection's close watcher: looked up synchronously on the connection's event loop (where requests run).
    /// A connection already closed has no handlers left to find: it gets a watcher that reports the client gone.
    func closeWatcher() async -> ClientCloseWatcher? {
        if let watcher = self.watcher { return watcher }
        let watcher: ClientCloseWatcher?
        if self.channel.eventLoop.inEventLoop {
            watcher = try? self.channel.pipeline.syncOperations.handler(type: ClientCloseWatcher.self)
        } else {
            watcher = try? await self.channel.pipeline.handler(type: ClientCloseWatcher.self).get()
        }
        if watcher == nil, !self.channel.isActive { return ClientCloseWatcher(alreadyClosed: true) }
        return watcher
    }
}

public typealias RouteHandler = @Sendable (Request, RequestContext) async throws -> Response

/// One entry of the route table: which paths and methods, which auth policy, which handler. A class: every request
/// looks one up, and a reference is one retain where a copy of the fields was a dozen.
public final class Route: Sendable {
    public typealias PathMatch = RouteConfiguration.PathMatch
    public typealias AuthPolicy = RouteConfiguration.AuthPolicy

    /// A stable name for logs and metrics.
    public let name: String
    public let path: PathMatch
    public let methods: [HTTPRequest.Method]
    public let auth: AuthPolicy
    /// The per-caller bucket this route draws from (needs `auth: .required`).
    public let rateLimit: RouteRateLimit?
    /// The request body limit: a declared `Content-Length` above it is a 413 before the handler runs (nil: none).
    public let maxBodyBytes: Int?
    /// Whether the handler forwards to an upstream (its timing goes to the access log).
    public let forwardsUpstream: Bool
    public let handler: RouteHandler
    /// How this route's requests are forwarded (upstream routes; nil for the others).
    let upstream: UpstreamRoute?
    /// The App Check step, when App Check is on for this route.
    let appCheck: AppCheckStep?
    /// The function a function route calls (``FunctionCalls`` answers it; nil for the other routes).
    let function: FunctionRoute?
    /// Whether the route keeps answers under an `Idempotency-Key` (functions; upstream routes' POST and PATCH).
    let idempotency: IdempotencyMode

    public convenience init(
        name: String, path: PathMatch, methods: [HTTPRequest.Method], auth: AuthPolicy, rateLimit: RouteRateLimit? = nil,
        maxBodyBytes: Int? = nil, forwardsUpstream: Bool = false, handler: @escaping RouteHandler
    ) {
        self.init(
            name: name, path: path, methods: methods, auth: auth, rateLimit: rateLimit, maxBodyBytes: maxBodyBytes,
            forwardsUpstream: forwardsUpstream, upstream: nil, handler: handler
        )
    }

    init(
        name: String, path: PathMatch, methods: [HTTPRequest.Method], auth: AuthPolicy, rateLimit: RouteRateLimit?,
        maxBodyBytes: Int?, forwardsUpstream: Bool, upstream: UpstreamRoute?, appCheck: AppCheckStep? = nil, function: FunctionRoute? = nil,
        idempotency: IdempotencyMode = .off, handler: @escaping RouteHandler
    ) {
        self.name = name
        self.path = path
        // A GET route answers HEAD too (RFC 9110 §9.3.2).
        self.methods = methods.contains(.get) && !methods.contains(.head) ? methods + [.head] : methods
        self.auth = auth
        self.rateLimit = rateLimit
        self.maxBodyBytes = maxBodyBytes
        self.forwardsUpstream = forwardsUpstream
        self.upstream = upstream
        self.appCheck = appCheck
        self.function = function
        self.idempotency = idempotency
        self.handler = handler
    }

    /// The part of `path` under a prefix route's prefix ("" for an exact route).
    public func remainder(of path: String) -> Substring {
        guard case .prefix(let prefix) = self.path, path.hasPrefix(prefix) else { return "" }
        return path.dropFirst(prefix.count)
    }

    /// Whether a request to this upstream route goes to ``FunctionCalls`` to have its answer kept: a POST or PATCH
    /// with an `Idempotency-Key` (or without one where the route requires one, to be refused).
    func keepsAnswer(_ head: HTTPRequest) -> Bool {
        guard self.idempotency != .off, head.method == .post || head.method == .patch else { return false }
        return self.idempotency == .required || head.headerFields[FunctionCalls.idempotencyKeyField] != nil
    }

    func allows(_ method: HTTPRequest.Method) -> Bool {
        self.methods.contains(method)
    }
}
