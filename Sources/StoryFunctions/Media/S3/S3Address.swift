/// Where an object of the bucket is on the wire: its URL, and the `Host` value signatures cover, in the settings'
/// addressing style. Path style: `https://host/bucket/name`; virtual-host style: `https://bucket.host/name`.
struct S3Address: Sendable, Equatable {
    /// `http` or `https`.
    let scheme: String
    /// `host[:port]` as the request's `Host` field carries it.
    let authority: String
    /// The URI-encoded path, from the first `/`.
    let path: String

    var url: String { "\(self.scheme)://\(self.authority)\(self.path)" }

    /// The address of object `name` (a full name, the prefix included) in `settings`' bucket; nil for an endpoint
    /// that is not `scheme://authority`.
    init?(name: String, settings: S3Settings) {
        let endpoint = settings.endpoint
        let scheme: String
        if endpoint.hasPrefix("https://") { scheme = "https" } else if endpoint.hasPrefix("http://") { scheme = "http" } else { return nil }
        let authority = String(endpoint.dropFirst(scheme.count + 3))
        guard !authority.isEmpty, !authority.contains("/") else { return nil }
        self.scheme = scheme
        let encodedName = S3URIEncoding.path(name)
        switch settings.addressing {
        case .path:
            self.authority = authority
            self.path = "/\(settings.bucket)/\(encodedName)"
        case .virtual:
            self.authority = "\(settings.bucket).\(authority)"
            self.path = "/\(encodedName)"
        }
    }
}

/// SigV4's URI encoding (RFC 3986 unreserved characters kept, everything else `%XX` in uppercase hex).
enum S3URIEncoding {
    /// Encodes one query value or path segment; `keepSlash` keeps `/` (object names in paths).
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            let unreserved = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved || (keepSlash && byte == 0x2F) {
                output.append(byte)
            } else {
                output.append(contentsOf: [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// An object name as a path: each segment encoded, `/` kept.
    static func path(_ name: String) -> String { self.encode(name, keepSlash: true) }
}
