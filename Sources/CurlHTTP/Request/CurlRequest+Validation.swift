extension CurlRequest {
    /// Checks what libcurl would otherwise send verbatim: scheme, method token, header names and values
    /// (no CR, LF or NUL, so no header injection), and the numeric limits.
    func validate() throws(CurlError) {
        let lowercasedURL = self.url.lowercased()
        guard lowercasedURL.hasPrefix("http://") || lowercasedURL.hasPrefix("https://") else {
            throw .invalidRequest("URL scheme must be http or https")
        }
        guard !self.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidRequest("URL contains whitespace or control characters")
        }
        guard Self.isToken(self.method) else {
            throw .invalidRequest("method is not an HTTP token")
        }
        for header in self.headers {
            guard Self.isToken(header.name) else {
                throw .invalidRequest("header name is not an HTTP token")
            }
            guard !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw .invalidRequest("header value contains CR, LF or NUL")
            }
        }
        if let signing = self.awsSigV4 {
            let parts = [signing.provider, signing.accessKeyID, signing.secretAccessKey]
            guard parts.allSatisfy({ !$0.isEmpty && !$0.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) }) else {
                throw .invalidRequest("AWS SigV4 provider and keys must be non-empty and printable")
            }
        }
        guard self.maxResponseBytes >= 0, self.maxRedirects >= 0 else {
            throw .invalidRequest("maxResponseBytes and maxRedirects must not be negative")
        }
        guard self.timeout > .zero, self.connectTimeout > .zero else {
            throw .invalidRequest("timeouts must be positive")
        }
    }

    /// RFC 9110 `token`: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
