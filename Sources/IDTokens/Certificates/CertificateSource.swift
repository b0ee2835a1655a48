/// One response from a certificate endpoint: the body and how long it may be cached.
public struct CertificateDocument: Sendable {
    /// Google's x509 JSON (`{"<kid>": "<PEM certificate>", ...}`).
    public var body: [UInt8]
    /// Seconds the document stays fresh (`Cache-Control: max-age` less `Age`), or nil when the response said nothing.
    public var maxAge: Double?

    public init(body: [UInt8], maxAge: Double?) {
        self.body = body
        self.maxAge = maxAge
    }
}

/// Where a project's signing certificates come from: Google's HTTPS endpoint in production, a file in dev.
///
/// The gateway fills this with a libcurl-backed fetcher, so the rules here test without a network.
public protocol CertificateSource: Sendable {
    /// A name for logs (a URL or a path; never a secret).
    var description: String { get }
    func fetch() async throws -> CertificateDocument
}

/// Certificates from a file in Google's x509 JSON shape (`certs/dev/certs.json`). Never expires.
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
