import ArgumentParser
import Gateway
import GatewayConfig
import IDTokens

/// Dev only: prints an App Check token signed with the dev key in `certs/dev/`, which a dev gateway verifies against
/// the dev JWKS (`certs/dev/app-check-jwks.json`) through the real verification path.
struct MintAppCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint-app-check",
        abstract: "Mint a dev Firebase App Check token signed with the dev key (ENV=dev only)."
    )

    @Option(help: "The Firebase app id (sub), such as 1:100000000000:web:0123abcd.")
    var appID: String

    @Option(help: "Seconds until the token expires.")
    var ttl: Int = 3600

    @Option(help: "The project number (iss, aud). Default: FIREBASE_PROJECT_NUMBER, else the dev project's.")
    var projectNumber: String?

    @Option(help: "The project id (aud). Default: FIREBASE_PROJECT_ID, else the dev project's.")
    var project: String?

    @Option(help: "Directory with signing-key.pem and app-check-jwks.json (default: DEV_CERTS_DIR, or certs/dev in the working directory or the checkout the binary is in).")
    var certsDir: String?

    func validate() throws {
        guard (1...86_400 * 365).contains(self.ttl) else { throw ValidationError("--ttl must be from 1 to 31536000 seconds") }
        guard (1...128).contains(self.appID.utf8.count), self.appID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }) else {
            throw ValidationError("--app-id must be 1 to 128 visible ASCII characters without commas")
        }
        if let projectNumber, !((1...20).contains(projectNumber.utf8.count) && projectNumber.allSatisfy(\.isASCII) && projectNumber.allSatisfy(\.isNumber)) {
            throw ValidationError("--project-number must be 1 to 20 digits")
        }
    }

    func run() async throws {
        let environment = ProcessEnvironment.current
        guard environment["ENV"] == "dev" else {
            ProcessEnvironment.printError("storygate mint-app-check: dev only; run it with ENV=dev (dev tokens are never trusted in prod)")
            throw ExitCode(2)
        }
        let minter: AppCheckTokenMinter
        do {
            let directory = try self.certsDir ?? DevCertificates.locate(configured: environment["DEV_CERTS_DIR"] ?? "certs/dev")
            minter = try DevSigningKey.loadAppCheck(directory: directory)
        } catch {
            ProcessEnvironment.printError("storygate mint-app-check: \(error)")
            throw ExitCode(1)
        }
        let token = minter.mint(
            appID: self.appID,
            projectNumber: self.projectNumber ?? environment["FIREBASE_PROJECT_NUMBER"] ?? AppCheckSettings.devProjectNumber,
            projectID: self.project ?? environment["FIREBASE_PROJECT_ID"] ?? GatewayConfiguration.devProjectID,
            now: WallClock.now(), ttl: Double(self.ttl)
        )
        print(token)
    }
}
