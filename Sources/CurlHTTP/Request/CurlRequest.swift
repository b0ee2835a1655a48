/// One outbound HTTP request for ``CurlClient/execute(_:)``.
///
/// Only `http` and `https` URLs are accepted. Redirects are not followed unless ``maxRedirects`` is above zero.
public struct CurlRequest: Sendable {
    /// The absolute URL, `http://` or `https://`.
    public var url: String
    /// The method token, e.g. `GET`, `POST`. Default `GET`.
    public var method: String
    /// Header fields to send, in order. libcurl adds `Host`, `Content-Length` and `Accept: */*` itself.
    /// A body is sent without `Content-Type` unless one is given here (not libcurl's form default), and
    /// `Expect: 100-continue` is never sent unless given here. An empty value sends the header empty.
    public var headers: [CurlHeader]
    /// The request body, or `nil` for none. Default `nil`.
    public var body: [UInt8]?
    /// How long connecting (TCP and TLS) may take. Default 5 s.
    public var connectTimeout: Duration
    /// How long the whole transfer may take, connecting included. Default 30 s.
    public var timeout: Duration
    /// The largest response body accepted; a larger one aborts the transfer with
    /// ``CurlError/responseTooLarge``. Default 10 MiB.
    public var maxResponseBytes: Int
    /// How many redirects to follow (to http/https only). Default 0: a 3xx is returned as the response.
    public var maxRedirects: Int
    /// Signs the request with AWS Signature Version 4 (libcurl's `CURLOPT_AWS_SIGV4`), or `nil`. Default `nil`.
    public var awsSigV4: AWSSigV4?

    /// A request; every parameter but `url` has a default.
    public init(
        url: String,
        method: String = "GET",
        headers: [CurlHeader] = [],
        body: [UInt8]? = nil,
        connectTimeout: Duration = .seconds(5),
        timeout: Duration = .seconds(30),
        maxResponseBytes: Int = 10 * 1024 * 1024,
        maxRedirects: Int = 0,
        awsSigV4: AWSSigV4? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
        self.awsSigV4 = awsSigV4
    }
}
