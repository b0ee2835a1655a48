import GatewayConfig
import HTTPTypes
import HummingbirdCore
import IDTokens
import Revocation

/// `POST /admin/v1/revocations` with `{"uid": "..."}` or `{"uids": [...]}`: drops the cached session state of those
/// users (on every replica when the states are shared), so a sign-out takes effect at once. Authenticated by the
/// `ADMIN_TOKEN_FILE` bearer secret, compared in constant time; the route exists only when that secret is set.
enum RevocationAdminRoute {
    static let path = "/admin/v1/revocations"
    /// A body naming a thousand 128-character uids fits.
    static let maxBodyBytes = 256 * 1024

    /// The route; `drop` forgets the given users' states.
    static func route(token: Secret, drop: @escaping @Sendable ([String]) async throws -> Void) -> Route {
        Route(
            name: "admin-revocations", path: .exact(Self.path), methods: [.post], auth: .none, maxBodyBytes: Self.maxBodyBytes
        ) { request, _ in
            guard Self.isAuthorized(request.headers, token: token) else { throw GatewayError.adminUnauthenticated() }
            let body = try await RequestBodyReader.collect(request.body, headers: request.headers, limit: Self.maxBodyBytes)
            let uids: [String]
            do throws(RevocationDropRequest.Problem) {
                uids = try RevocationDropRequest.uids(from: body)
            } catch {
                throw GatewayError.invalidArgument(error.message, reason: error.reason)
            }
            do {
                try await drop(uids)
            } catch {
                throw GatewayError(
                    status: .serviceUnavailable, code: "UNAVAILABLE",
                    message: "The drop could not be shared with the other replicas; try again.", reason: "revocation_broadcast", retryAfter: 1
                )
            }
            return JSONResponse.make(status: .ok, json: "{\"dropped\":\(uids.count)}")
        }
    }

    /// Exactly one `Authorization: Bearer <secret>` holding the admin secret.
    static func isAuthorized(_ headers: HTTPFields, token: Secret) -> Bool {
        let values = headers[values: .authorization]
        guard values.count == 1, let value = values.first else { return false }
        let scheme = value.prefix(7)
        guard scheme.lowercased() == "bearer " else { return false }
        return SecretComparison.equals(value.dropFirst(7), token.value)
    }
}
