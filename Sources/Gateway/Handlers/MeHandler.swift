import HTTPTypes
import HummingbirdCore
import IDTokens

/// `GET /v1/me`: who the gateway thinks the caller is.
///
/// `{"uid": "...", "source": "firebase"|"dev", "claims": {...}, "expiresAt": 1700000000}`; for the dev header,
/// `claims` is `{}` and `expiresAt` is null.
enum MeHandler {
    static func handler() -> RouteHandler {
        { _, context in
            guard let identity = context.identity else { throw GatewayError.internalError() }
            var json = "{\"uid\":\(JSONWriter.quoted(identity.uid)),\"source\":\"\(identity.source.rawValue)\""
            if let token = identity.token {
                json += ",\"claims\":\(token.claimsJSON),\"expiresAt\":\(JSONWriter.number(token.expiresAt))}"
            } else {
                json += ",\"claims\":{},\"expiresAt\":null}"
            }
            return JSONResponse.make(status: .ok, json: json)
        }
    }
}
