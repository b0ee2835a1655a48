/// One response from a key endpoint: the body and how long it may be cached.
public struct CertificateDocument: Sendable {
    /// The key set document, in the `KeySetFormat` of the store that fetched it.
    public var body: [UInt8]
    /// Seconds the document stays fresh (`Cache-Control: max-age` less `Age`), or nil when the response said nothing.
    public var maxAge: Double?

    public init(body: [UInt8], maxAge: Double?) {
        self.body = body
        self.maxAge = maxAge
    }
}

/// Where an issuer's signing keys come from: Google's HTTPS endpoint in production, a file in dev.
///
/// The gateway fills this with a libcurl-backed fetcher, so the rules here test without a network.
public protocol CertificateSource: Sendable {
    /// A name for logs (a URL or a path; never a secret).
    var description: String { get }
    func fetch() async throws -> CertificateDocument
}

/// A key set from a file (`certs/dev/certs.json`, `certs/dev/app-check-jwks.json`). Never expires.
public struct FileCertificateSource: CertificateSource {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var description: String { "file \(self.path)" }

    public func fetch() async throws -> CertificateDocument {
        CertificateDocument(body: try FileBytes.read(path: self.path), maxAge: .infinity)
    }
}
