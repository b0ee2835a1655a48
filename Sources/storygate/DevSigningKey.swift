import Gateway
import GatewayConfig
import IDTokens

/// The dev signing key and its `kid`, checked against each other before any token is minted.
enum DevSigningKey {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(directory: String) throws -> TokenMinter {
        let (key, keyID, keys, keyPath, certsPath) = try Self.keyAndSet(directory: directory, file: "certs.json", holding: "certificate") {
            try KeySet(googleX509JSON: $0)
        }
        let minter = TokenMinter(key: key, keyID: keyID)
        // The key must match the certificate the gateway trusts: verify a token before handing out any.
        let now = WallClock.now()
        let probe = minter.mint(uid: "probe", projectID: GatewayConfiguration.devProjectID, now: now, ttl: 60)
        let verifier = TokenVerifier(projects: [FirebaseClaimRules(projectID: GatewayConfiguration.devProjectID, clockSkew: 0)])
        do {
            _ = try verifier.verify(probe, now: now, keys: { _ in keys })
        } catch {
            throw LoadError(description: "\(keyPath) does not match the certificate in \(certsPath) (\(error))")
        }
        return minter
    }

    /// The dev key as an App Check minter, checked against the dev JWKS (`app-check-jwks.json`, one key).
    static func loadAppCheck(directory: String) throws -> AppCheckTokenMinter {
        let (key, keyID, keys, keyPath, jwksPath) = try Self.keyAndSet(directory: directory, file: DevCertificates.appCheckJWKSFile, holding: "key") {
            try KeySet(jwks: $0)
        }
        let minter = AppCheckTokenMinter(key: key, keyID: keyID)
        // The key must match the JWKS the gateway trusts: verify a token before handing out any.
        let now = WallClock.now()
        let probe = minter.mint(appID: "probe", projectNumber: "1", projectID: "probe", now: now, ttl: 60)
        let verifier = AppCheckTokenVerifier(rules: AppCheckClaimRules(projectNumber: "1", projectID: "probe", clockSkew: 0))
        do {
            _ = try verifier.verify(probe, now: now, keys: keys)
        } catch {
            throw LoadError(description: "\(keyPath) does not match the key in \(jwksPath) (\(error))")
        }
        return minter
    }

    /// The dev key, and the one key of `file` in `directory` as `read` parses it, with both paths for messages.
    private static func keyAndSet(
        directory: String, file: String, holding what: String, read: ([UInt8]) throws -> KeySet
    ) throws -> (key: RSAPrivateKey, keyID: String, keys: KeySet, keyPath: String, setPath: String) {
        let keyPath = directory + "/signing-key.pem"
        let setPath = directory + "/" + file
        let key: RSAPrivateKey
        let keys: KeySet
        do {
            key = try RSAPrivateKey(pem: String(decoding: try FileBytes.read(path: keyPath), as: UTF8.self))
        } catch { throw LoadError(description: "cannot load \(keyPath): \(error)") }
        do {
            keys = try read(try FileBytes.read(path: setPath))
        } catch { throw LoadError(description: "cannot load \(setPath): \(error)") }
        guard keys.keyIDs.count == 1, let keyID = keys.keyIDs.first else {
            throw LoadError(description: "\(setPath) must hold exactly one \(what)")
        }
        return (key, keyID, keys, keyPath, setPath)
    }
}
