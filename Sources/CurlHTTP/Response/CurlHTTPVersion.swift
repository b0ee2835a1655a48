/// The HTTP version a response was received over.
public struct CurlHTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version: 1, 2 or 3 (0 when unknown).
    public var major: Int
    /// The minor version: 0 or 1 for HTTP/1.x, else 0.
    public var minor: Int

    /// A version `major.minor`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0
    public static let http1_0 = CurlHTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1
    public static let http1_1 = CurlHTTPVersion(major: 1, minor: 1)
    /// HTTP/2
    public static let http2 = CurlHTTPVersion(major: 2, minor: 0)
    /// HTTP/3
    public static let http3 = CurlHTTPVersion(major: 3, minor: 0)
    /// Unknown (no response was parsed).
    public static let unknown = CurlHTTPVersion(major: 0, minor: 0)

    /// `HTTP/1.1`, `HTTP/2`, …
    public var description: String {
        self.major >= 2 ? "HTTP/\(self.major)" : "HTTP/\(self.major).\(self.minor)"
    }
}
