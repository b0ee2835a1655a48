import Foundation
import Synchronization

/// A local stand-in for Identity Toolkit's `accounts:lookup`, strict about what the gateway sends:
/// `POST /v1/projects/<project id>/accounts:lookup`, `Authorization: Bearer <a token the given LocalOAuthServer
/// issued>`, `Content-Type: application/json` and a body of exactly `{"localId":["<uid>"]}`. Anything else is a 400
/// (401 for the token) and is recorded in ``rejections``.
///
/// Users are set with ``setUser(_:disabled:validSince:)``; a uid never set is a deleted account (no `users`).
public final class LocalIdentityToolkit: LocalTestServer {
    public struct User: Sendable {
        public var disabled: Bool
        public var validSince: Int?
    }

    private struct State {
        var users: [String: User] = [:]
        var lookups: [String: Int] = [:]
        var rejections: [String] = []
        var failWithStatus: Int?
        var held: [CheckedContinuation<Void, Never>]?
    }

    private let server: LocalHTTPServer
    private let state = Mutex(State())
    public let projectID: String

    private init(server: LocalHTTPServer, projectID: String) {
        self.server = server
        self.projectID = projectID
    }

    /// Starts the stand-in for `projectID`, accepting access tokens that `oauth` issued.
    public static func start(projectID: String = TestServiceAccount.projectID, oauth: LocalOAuthServer) async throws -> LocalIdentityToolkit {
        let box = OwnerBox()
        let server = try await LocalHTTPServer.start { request in
            guard let owner = box.owner else { return .text("starting", status: 503) }
            return await owner.answer(request, oauth: oauth)
        }
        let toolkit = LocalIdentityToolkit(server: server, projectID: projectID)
        box.owner = toolkit
        return toolkit
    }

    /// The base URL (`IDENTITY_TOOLKIT_URL`).
    public var baseURL: String { self.server.baseURL }

    /// Requests received, good or not.
    public var requestCount: Int { self.server.requestCount }

    /// Lookups answered for `uid`.
    public func lookups(of uid: String) -> Int { self.state.withLock { $0.lookups[uid, default: 0] } }

    /// Why requests were refused, in order.
    public var rejections: [String] { self.state.withLock { $0.rejections } }

    /// Creates or replaces `uid`.
    public func setUser(_ uid: String, disabled: Bool = false, validSince: Int? = nil) {
        self.state.withLock { $0.users[uid] = User(disabled: disabled, validSince: validSince) }
    }

    /// Deletes `uid`.
    public func deleteUser(_ uid: String) { self.state.withLock { $0.users[uid] = nil } }

    /// From now on, answer every request with `status` (nil: answer normally).
    public func failWith(status: Int?) { self.state.withLock { $0.failWithStatus = status } }

    /// Holds every answer until ``release()``.
    public func hold() { self.state.withLock { if $0.held == nil { $0.held = [] } } }

    /// Lets held answers (and later ones) go.
    public func release() {
        let waiting = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.held = nil }
            return state.held ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    public func shutdown() async {
        self.release()
        await self.server.shutdown()
    }

    private func answer(_ request: LocalRequest, oauth: LocalOAuthServer) async -> LocalResponse {
        await withCheckedContinuation { continuation in
            let proceed = self.state.withLock { state -> Bool in
                guard state.held != nil else { return true }
                state.held!.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
        if let status = self.state.withLock({ $0.failWithStatus }) {
            return .json("{\"error\":{\"code\":\(status),\"message\":\"BACKEND_ERROR\"}}", status: status)
        }
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer "),
            oauth.issued(String(authorization.dropFirst("Bearer ".count)))
        else {
            return self.refuse("access token", status: 401)
        }
        guard request.method == "POST", request.path == "/v1/projects/\(self.projectID)/accounts:lookup" else {
            return self.refuse("method or path: \(request.method) \(request.path)", status: 404)
        }
        guard request.header("Content-Type") == "application/json" else { return self.refuse("content type") }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], object.count == 1,
            let ids = object["localId"] as? [String], ids.count == 1,
            request.bodyText == "{\"localId\":[" + TokenFactory.quoted(ids[0]) + "]}"
        else {
            return self.refuse("body: \(request.bodyText)")
        }
        let uid = ids[0]
        let user = self.state.withLock { state -> User? in
            state.lookups[uid, default: 0] += 1
            return state.users[uid]
        }
        guard let user else { return .json("{\"kind\":\"identitytoolkit#GetAccountInfoResponse\"}") }
        var fields = [
            "\"localId\":\(TokenFactory.quoted(uid))", "\"email\":\"user@example.com\"", "\"emailVerified\":true",
            "\"passwordUpdatedAt\":1700000000000", "\"providerUserInfo\":[]", "\"createdAt\":\"1700000000000\"",
        ]
        if user.disabled { fields.append("\"disabled\":true") }
        if let validSince = user.validSince { fields.append("\"validSince\":\"\(validSince)\"") }
        return .json("{\"kind\":\"identitytoolkit#GetAccountInfoResponse\",\"users\":[{\(fields.joined(separator: ","))}]}")
    }

    private func refuse(_ reason: String, status: Int = 400) -> LocalResponse {
        self.state.withLock { $0.rejections.append(reason) }
        return .json("{\"error\":{\"code\":\(status),\"message\":\"INVALID_ARGUMENT\"}}", status: status)
    }

    private final class OwnerBox: Sendable {
        private let lock = Mutex<LocalIdentityToolkit?>(nil)
        var owner: LocalIdentityToolkit? {
            get { self.lock.withLock { $0 } }
            set { self.lock.withLock { $0 = newValue } }
        }
    }
}
