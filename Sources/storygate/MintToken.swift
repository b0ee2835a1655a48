import ArgumentParser
import Gateway
import GatewayConfig
import IDTokens

#if canImport(Glibc)
import Glibc
#endif

/// Dev only: prints RS256 tokens signed with the dev key in `certs/dev/`, which a dev gateway verifies through
/// the real verification path.
struct MintToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint-token",
        abstract: "Mint dev Firebase ID tokens signed with the dev key (ENV=dev only).",
        discussion: "With --count N, mints N tokens for the users <uid>-1 ... <uid>-N, one per line (for load tests)."
    )

    @Option(help: "The user id (sub). With --count, the prefix of the user ids.")
    var uid: String = "dev-user"

    @Option(help: "Seconds until the token expires.")
    var ttl: Int = 3600

    @Option(help: "The project id (aud) the token is for.")
    var project: String = GatewayConfiguration.devProjectID

    @Option(help: "How many tokens, for distinct users.")
    var count: Int?

    @Option(help: "Write the tokens to this file instead of standard output.")
    var out: String?

    @Option(help: "Directory with signing-key.pem and certs.json (default: DEV_CERTS_DIR, or certs/dev in the working directory or the checkout the binary is in).")
    var certsDir: String?

    func validate() throws {
        guard (1...86_400 * 365).contains(self.ttl) else { throw ValidationError("--ttl must be from 1 to 31536000 seconds") }
        if let count, !(1...1_000_000).contains(count) { throw ValidationError("--count must be from 1 to 1000000") }
        guard (1...128).contains(self.uid.unicodeScalars.count) else { throw ValidationError("--uid must be 1 to 128 characters") }
    }

    func run() async throws {
        let environment = ProcessEnvironment.current
        guard environment["ENV"] == "dev" else {
            ProcessEnvironment.printError("storygate mint-token: dev only; run it with ENV=dev (dev tokens are never trusted in prod)")
            throw ExitCode(2)
        }
        let minter: TokenMinter
        do {
            let directory = try self.certsDir ?? DevCertificates.locate(configured: environment["DEV_CERTS_DIR"] ?? "certs/dev")
            minter = try DevSigningKey.load(directory: directory)
        } catch {
            ProcessEnvironment.printError("storygate mint-token: \(error)")
            throw ExitCode(1)
        }
        let now = WallClock.now()
        let uids = self.count.map { count in (1...count).map { "\(self.uid)-\($0)" } } ?? [self.uid]
        var output = ""
        output.reserveCapacity(uids.count * 1000)
        for uid in uids {
            output += minter.mint(uid: uid, projectID: self.project, now: now, ttl: Double(self.ttl))
            output += "\n"
        }
        if let out {
            guard let file = fopen(out, "w") else {
                ProcessEnvironment.printError("storygate mint-token: cannot write \(out)")
                throw ExitCode(1)
            }
            fputs(output, file)
            fclose(file)
            ProcessEnvironment.printError("wrote \(uids.count) token(s) to \(out)")
        } else {
            print(output, terminator: "")
        }
    }
}
