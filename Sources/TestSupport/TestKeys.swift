public import IDTokens

/// Keys and certificates for tests, made once per test process (2048-bit generation is slow: use these
/// rather than generating more).
public enum TestKeys {
    /// The project id the test tokens are for (`aud`; `iss` is `https://securetoken.google.com/storygate-test`).
    public static let projectID = "storygate-test"

    /// The project number App Check test tokens are for (`iss`, `aud`).
    public static let projectNumber = "123456789012"

    /// The app id (`sub`) of App Check test tokens.
    public static let appCheckAppID = "1:123456789012:web:0a1b2c3d4e5f6a7b"

    /// A JWKS (`{"keys":[…]}`) trusting the public halves of `keys`, by key id, in the order given.
    public static func appCheckJWKS(_ keys: [(keyID: String, key: RSAPrivateKey)]) -> [UInt8] {
        do {
            return Array(AppCheckTokenMinter.jwks(try keys.map { ($0.keyID, try $0.key.publicKey()) }).utf8)
        } catch {
            fatalError("test key unusable: \(error)")
        }
    }

    /// The key id of `primary` in `keySet` and in tokens from `TokenFactory()`.
    public static let primaryKeyID = "test-primary-2048"

    /// An RSA-2048 key, trusted by `keySet` as `primaryKeyID`.
    public static let primary: RSAPrivateKey = .generate(bits: 2048)

    /// A second RSA-2048 key that `keySet` does NOT trust (for "signed by another key" cases).
    public static let other: RSAPrivateKey = .generate(bits: 2048)

    /// A self-signed certificate for `primary`.
    public static let primaryCertificatePEM: String = primary.selfSignedCertificatePEM(commonName: "storygate test primary")

    /// The public half of `primary`, read from its certificate.
    public static let primaryPublicKey: RSAPublicKey = {
        do {
            return try RSAPublicKey(x509PEM: primaryCertificatePEM)
        } catch {
            fatalError("test key certificate unreadable: \(error)")
        }
    }()

    /// The trusted keys: only `primary`, as `primaryKeyID`.
    public static let keySet = KeySet(keys: [primaryKeyID: primaryPublicKey])

    /// Google's x509 JSON shape (`{"<kid>": "<PEM>"}`) for `entries`, sorted by kid.
    public static func googleX509JSON(_ entries: [String: String]) -> [UInt8] {
        let members = entries.sorted { $0.key < $1.key }.map { kid, pem in
            TokenFactory.quoted(kid) + ": " + TokenFactory.quoted(pem)
        }
        return Array(("{\n  " + members.joined(separator: ",\n  ") + "\n}").utf8)
    }

    /// A self-signed certificate whose key is EC P-256 (not RSA), made with
    /// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=storygate test EC P-256"`.
    public static let ecCertificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBmjCCAUGgAwIBAgIUTtWw5RmOhs+bMU4eP9ZdqCNuNJAwCgYIKoZIzj0EAwIw
        IjEgMB4GA1UEAwwXc3RvcnlnYXRlIHRlc3QgRUMgUC0yNTYwIBcNMjYxMTIyMDgw
        MzUyWhgPMjEyNjEwMjkwODAzNTJaMCIxIDAeBgNVBAMMF3N0b3J5Z2F0ZSB0ZXN0
        IEVDIFAtMjU2MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEyOzv4A+jMK29/7gb
        POzNdifZtbBvmcmZAzSY3ibw0/BhK8RyGVaAhmONecl5K4y5nU7+3zyWSbo24vXV
        l44B5qNTMFEwHQYDVR0OBBYEFAzTa0FL1TfhL79eB5G53nV66HOyMB8GA1UdIwQY
        MBaAFAzTa0FL1TfhL79eB5G53nV66HOyMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZI
        zj0EAwIDRwAwRAIgGPE05YWOr54O18PtgDG/sCnhig1tjFXdOOjPy61icwECIFdW
        DJpgPWAZngsRcqW3O1H+3A+JVR/eXmwMtglrh2iW
        -----END CERTIFICATE-----

        """

    /// A self-signed certificate whose key is RSA-1024 (too small), made with
    /// `openssl req -x509 -newkey rsa:1024 -subj "/CN=storygate test RSA-1024"`.
    public static let rsa1024CertificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIICIjCCAYugAwIBAgIUXqWDMXRKFHJ+B+es7XzSMqCFEugwDQYJKoZIhvcNAQEL
        BQAwIjEgMB4GA1UEAwwXc3RvcnlnYXRlIHRlc3QgUlNBLTEwMjQwIBcNMjYxMTIy
        MDgwMzUyWhgPMjEyNjEwMjkwODAzNTJaMCIxIDAeBgNVBAMMF3N0b3J5Z2F0ZSB0
        ZXN0IFJTQS0xMDI0MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC2UcAbCVPT
        y5X1TMc1lpzZCtAKXRfAdZGexddjWQG67lpg9Z8z5V3avUJCZA3dAB20uVJOjywD
        b5R3C3ESRC6ah9r34nplo5NAfR9Tfl0voxHxE74RvAFqm9xoF+dGLN/leE5qtfLI
        0OEK2vc+mV4EQZ+VpR1LTORK4AILnNv0eQIDAQABo1MwUTAdBgNVHQ4EFgQUEngL
        pjhLE4Hj1QQtt4YkJD9Ohj4wHwYDVR0jBBgwFoAUEngLpjhLE4Hj1QQtt4YkJD9O
        hj4wDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOBgQBUPkKfvm2Dotut
        JGRFILVE+/jEqLbdSq3AffACG8XE8EnrKfMtwcem8Zji/2L1gTtQgHIQ3neJ/xWx
        bZR4vQ/LYS1y19KupGg6qHLN/kCY1pHxgsrnRs1EnT9oMP2bp/DJlgI5LiqdhHv/
        sAqAFJxiH2ypaJLQ9Cb9RFugXYT0fg==
        -----END CERTIFICATE-----

        """
}
