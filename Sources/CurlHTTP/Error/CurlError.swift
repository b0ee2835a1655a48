/// Why a ``CurlClient`` call failed.
///
/// Compare errors with `==` (which looks only at the kind, never at ``curlCode`` or ``detail``)
/// or `switch` over the static members. ``shortDescription`` is a stable snake_case label,
/// safe to use as a metric label or log key.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case timeout
        case connectFailed
        case connectionReset
        case responseTooLarge
        case invalidResponse
        case cancelled
        case shutdown
        case invalidRequest
        case other
    }

    private let code: Code

    /// libcurl's `CURLcode` when the failure came from libcurl, else `nil`.
    public let curlCode: Int?

    /// Human-readable detail: libcurl's `CURLOPT_ERRORBUFFER` text or a validation message.
    ///
    /// Never contains request headers or bodies, but may contain the URL's host.
    public let detail: String?

    private init(_ code: Code, curlCode: Int? = nil, detail: String? = nil) {
        self.code = code
        self.curlCode = curlCode
        self.detail = detail
    }

    /// The total timeout (``CurlRequest/timeout``) or the connect timeout passed.
    public static let timeout = CurlError(.timeout)
    /// No connection could be made (refused, unreachable, DNS failure, TLS handshake failure).
    public static let connectFailed = CurlError(.connectFailed)
    /// The connection broke while sending or receiving (reset, closed without an answer, cut short).
    public static let connectionReset = CurlError(.connectionReset)
    /// The response body exceeded ``CurlRequest/maxResponseBytes``; the transfer was aborted.
    public static let responseTooLarge = CurlError(.responseTooLarge)
    /// The server's answer was not valid HTTP.
    public static let invalidResponse = CurlError(.invalidResponse)
    /// The calling task was cancelled; the transfer was removed.
    public static let cancelled = CurlError(.cancelled)
    /// The client is shutting down or has stopped.
    public static let shutdown = CurlError(.shutdown)
    /// The request could not be sent as given (bad URL, scheme, method or header).
    public static let invalidRequest = CurlError(.invalidRequest)
    /// Any other libcurl failure; see ``curlCode`` and ``detail``.
    public static let other = CurlError(.other)

    /// An ``invalidRequest`` error explaining what was wrong.
    static func invalidRequest(_ detail: String) -> CurlError {
        CurlError(.invalidRequest, detail: detail)
    }

    /// The same kind of error, carrying libcurl's code and error text.
    func with(curlCode: Int, detail: String?) -> CurlError {
        CurlError(self.code, curlCode: curlCode, detail: detail)
    }

    /// A stable snake_case label, safe for metric labels: `timeout`, `connect_failed`, `connection_reset`,
    /// `response_too_large`, `invalid_response`, `cancelled`, `shutdown`, `invalid_request`, `other`.
    public var shortDescription: String {
        switch self.code {
        case .timeout: "timeout"
        case .connectFailed: "connect_failed"
        case .connectionReset: "connection_reset"
        case .responseTooLarge: "response_too_large"
        case .invalidResponse: "invalid_response"
        case .cancelled: "cancelled"
        case .shutdown: "shutdown"
        case .invalidRequest: "invalid_request"
        case .other: "other"
        }
    }

    /// Whether the failure was at the connection level (``connectFailed`` or ``connectionReset``),
    /// where a retry on a fresh connection may succeed.
    public var isConnectionError: Bool {
        self.code == .connectFailed || self.code == .connectionReset
    }

    public var description: String {
        var text = "CurlError.\(self.shortDescription)"
        if let curlCode { text += " (CURLcode \(curlCode))" }
        if let detail, !detail.isEmpty { text += ": \(detail)" }
        return text
    }

    public static func == (lhs: CurlError, rhs: CurlError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }
}
