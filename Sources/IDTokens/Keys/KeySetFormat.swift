/// The document shape a key source serves: one `CertificateStore` keeps either fresh.
public enum KeySetFormat: String, Sendable {
    /// Google's x509 JSON (`{"<kid>": "<PEM certificate>", ...}`): Firebase ID tokens.
    case googleX509JSON = "x509"
    /// A JSON Web Key Set of RSA keys (`{"keys":[{"kty":"RSA","kid","n","e"}]}`): Firebase App Check.
    case jwks

    /// The key set a fetched document holds.
    public func keySet(from bytes: [UInt8]) throws(KeySetError) -> KeySet {
        switch self {
        case .googleX509JSON: try KeySet(googleX509JSON: bytes)
        case .jwks: try KeySet(jwks: bytes)
        }
    }
}
