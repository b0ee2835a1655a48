/// A complete, buffered HTTP response. Any status code is a response, not an error.
public struct CurlResponse: Sendable {
    /// The status code of the final response (after any `100 Continue` or followed redirect).
    public var status: Int
    /// The header fields of the final response, names as received, in order (trailers appended).
    public var headers: [CurlHeader]
    /// The body, at most ``CurlRequest/maxResponseBytes`` long, decoded only if
    /// ``CurlClient/Configuration/automaticDecompression`` is on.
    public var body: [UInt8]
    /// The HTTP version the response came over.
    public var httpVersion: CurlHTTPVersion

    /// A response; public so that fakes in other modules' tests can build one.
    public init(status: Int, headers: [CurlHeader] = [], body: [UInt8] = [], httpVersion: CurlHTTPVersion = .http1_1) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The values of every header field called `name` (compared case-insensitively), in order: a list field's
    /// lines together (RFC 9110 §5.3).
    public func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return self.headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The value of the last header field called `name` (compared case-insensitively), or `nil`.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return self.headers.last { $0.name.lowercased() == wanted }?.value
    }
}
