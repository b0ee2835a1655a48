import Gateway
import IDTokens

/// The dev signing key and its `kid`, checked against each other before any token is minted.
enum DevSigningKey {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    static func load(directory: String) throws -> TokenMinter {
        let keyPath = directory + "/signing-key.pem"
        let certsPath = directory + "/certs.json"
        let key: RSAPrivateKey
        let keys: KeySet
        do {
            key = try RSAPrivateKey(pem: String(decoding: try FileBytes.read(path: keyPath), as: UTF8.self))
        } catch { throw LoadError(description: "cannot load \(keyPath): \(error)") }
        do {
            keys = try KeySet(googleX509JSON: try FileBytes.read(path: certsPath))
        } catch { throw LoadError(description: "cannot load \(certsPath): \(error)") }
        guard keys.keyIDs.count == 1, let keyID = keys.keyIDs.first else {
            throw LoadError(description: "\(certsPath) must hold exactly one certificate")
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
        let keyPath = directory + "/signing-key.pem"
        let jwksPath = directory + "/" + DevCertificates.appCheckJWKSFile
        let key: RSAPrivateKey
        let keys: KeySet
        do {
            key = try RSAPrivateKey(pem: String(decoding: try FileBytes.read(path: keyPath), as: UTF8.self))
        } catch { throw LoadError(description: "cannot load \(keyPath): \(error)") }
        do {
            keys = try KeySet(jwks: try FileBytes.read(path: jwksPath))
        } catch { throw LoadError(description: "cannot load \(jwksPath): \(error)") }
        guard keys.keyIDs.count == 1, let keyID = keys.keyIDs.first else {
            throw LoadError(description: "\(jwksPath) must hold exactly one key")
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
}
