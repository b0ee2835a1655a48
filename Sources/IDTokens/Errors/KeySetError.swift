/// Why a key, or a set of keys, could not be read. Carries no key material and no secrets.
public struct KeySetError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Equatable, Sendable {
        case invalidJSON
        case invalidJWKS
        case noUsableKeys
        case invalidPEM
        case notRSA
        case keyTooSmall(bits: Int)
        case unusableKey
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The key set document is not a strict JSON object of strings.
    public static let invalidJSON = KeySetError(.invalidJSON)
    /// The key set document is not a strict JSON object whose `keys` member is an array of objects (RFC 7517 §5).
    public static let invalidJWKS = KeySetError(.invalidJWKS)
    /// The key set held no usable RSA key.
    public static let noUsableKeys = KeySetError(.noUsableKeys)
    /// The text is not a PEM certificate or key OpenSSL can read.
    public static let invalidPEM = KeySetError(.invalidPEM)
    /// The key is not an RSA key.
    public static let notRSA = KeySetError(.notRSA)
    /// The RSA key is shorter than 2048 bits.
    public static func keyTooSmall(bits: Int) -> KeySetError { KeySetError(.keyTooSmall(bits: bits)) }
    /// The RSA key cannot verify: its modulus is over 16,384 bits or even, or its public exponent is even, below
    /// 3, not below the modulus, or over 64 bits with a modulus over 3,072 bits.
    public static let unusableKey = KeySetError(.unusableKey)

    /// A stable snake_case label, safe for metrics.
    public var shortDescription: String {
        switch code {
        case .invalidJSON: "invalid_json"
        case .invalidJWKS: "invalid_jwks"
        case .noUsableKeys: "no_usable_keys"
        case .invalidPEM: "invalid_pem"
        case .notRSA: "not_rsa"
        case .keyTooSmall: "key_too_small"
        case .unusableKey: "unusable_key"
        }
    }

    public var description: String {
        switch code {
        case .invalidJSON: "The key set is not a JSON object mapping key ids to PEM certificates."
        case .invalidJWKS: "The key set is not a JSON Web Key Set (an object whose keys member is an array of objects)."
        case .noUsableKeys: "The key set holds no usable RSA key."
        case .invalidPEM: "The PEM text could not be read."
        case .notRSA: "The key is not an RSA key."
        case .keyTooSmall(let bits): "The RSA key has \(bits) bits; at least 2048 are required."
        case .unusableKey: "The RSA key's modulus or public exponent is out of range for verification."
        }
    }
}
