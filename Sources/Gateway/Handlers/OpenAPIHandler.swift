import HTTPTypes
import HummingbirdCore
import NIOCore

/// `GET /openapi.yaml`: the OpenAPI description of the built-in routes, compiled into the binary
/// (`OpenAPIDocument`, generated from the repository's `openapi.yaml`).
enum OpenAPIHandler {
    /// The media type of YAML (RFC 9512); YAML is UTF-8, so there is no charset parameter.
    static let contentType = "application/yaml"

    static func handler() -> RouteHandler {
        let body = ByteBuffer(string: OpenAPIDocument.yaml)
        return { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = Self.contentType
            // The document changes only with the binary; clients revalidate rather than keep a stale copy.
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
        }
    }
}
