import Foundation
import Testing

@testable import Gateway
@testable import GatewayConfig

/// The commit read from a checkout's files, and dev mode's certificate set found from the executable's folder.
@Suite("Build info and dev certificate lookup")
struct BuildInfoTests {
    static let hash = "0123456789abcdef0123456789abcdef01234567"
    static let otherHash = "fedcba9876543210fedcba9876543210fedcba98"

    /// A fresh folder, removed after `body`.
    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-build-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: Executable.folder(of: path), withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("a branch's loose ref, read from a folder below the checkout")
    func looseRef() throws {
        try Self.withFolder { checkout in
            try Self.write("ref: refs/heads/main\n", to: checkout + "/.git/HEAD")
            try Self.write(Self.hash + "\n", to: checkout + "/.git/refs/heads/main")
            try FileManager.default.createDirectory(atPath: checkout + "/.build/debug", withIntermediateDirectories: true)
            #expect(GitCheckout.commit(above: checkout + "/.build/debug") == "0123456")
        }
    }

    @Test("a ref only in packed-refs, and a detached HEAD")
    func packedAndDetached() throws {
        try Self.withFolder { checkout in
            try Self.write("ref: refs/heads/dx\n", to: checkout + "/.git/HEAD")
            try Self.write("# pack-refs with: peeled fully-peeled sorted\n\(Self.otherHash) refs/heads/main\n\(Self.hash) refs/heads/dx\n^\(Self.otherHash)\n", to: checkout + "/.git/packed-refs")
            #expect(GitCheckout.commit(above: checkout) == "0123456")
            try Self.write(Self.otherHash + "\n", to: checkout + "/.git/HEAD")
            #expect(GitCheckout.commit(above: checkout) == "fedcba9")
        }
    }

    @Test("a worktree: .git is a file naming its git folder, whose commondir holds the refs")
    func worktree() throws {
        try Self.withFolder { folder in
            let main = folder + "/main", tree = folder + "/tree"
            try Self.write("ref: refs/heads/main\n", to: main + "/.git/HEAD")
            try Self.write(Self.otherHash + "\n", to: main + "/.git/refs/heads/main")
            try Self.write("ref: refs/heads/feature\n", to: main + "/.git/worktrees/tree/HEAD")
            try Self.write("../..\n", to: main + "/.git/worktrees/tree/commondir")
            try Self.write(Self.hash + "\n", to: main + "/.git/refs/heads/feature")
            try Self.write("gitdir: \(main)/.git/worktrees/tree\n", to: tree + "/.git")
            #expect(GitCheckout.commit(above: tree) == "0123456")
        }
    }

    @Test("no checkout, or a HEAD that names nothing: no commit")
    func none() throws {
        try Self.withFolder { folder in
            #expect(GitCheckout.commit(above: folder) == nil)
            try Self.write("ref: refs/heads/gone\n", to: folder + "/.git/HEAD")
            #expect(GitCheckout.commit(above: folder) == nil)
            try Self.write("not a hash\n", to: folder + "/.git/HEAD")
            #expect(GitCheckout.commit(above: folder) == nil)
        }
    }

    @Test("the package version is the OpenAPI document's")
    func versionMatchesOpenAPI() throws {
        let document = try String(contentsOfFile: GatewayHarness.repositoryRoot + "/openapi.yaml", encoding: .utf8)
        #expect(document.contains("\n  version: \(BuildInfo.packageVersion)\n"))
    }

    // MARK: Dev certificates

    @Test("dev certificates: the configured folder when it holds certs.json, else certs/dev in a folder above the executable")
    func devCertificatesFound() throws {
        try Self.withFolder { checkout in
            try Self.write("{}", to: checkout + "/certs/dev/certs.json")
            try FileManager.default.createDirectory(atPath: checkout + "/.build/debug", withIntermediateDirectories: true)
            #expect(try DevCertificates.locate(configured: checkout + "/certs/dev", executableFolder: nil) == checkout + "/certs/dev")
            #expect(DevCertificates.checkoutFolder(above: checkout + "/.build/debug") == checkout + "/certs/dev")
            #expect(DevCertificates.checkoutFolder(above: checkout + "/certs") == checkout + "/certs/dev")
            #expect(DevCertificates.checkoutFolder(above: "/nonexistent/storygate/.build") == nil)
        }
    }

    @Test("dev certificates: a configured folder without certs.json is an error naming DEV_CERTS_DIR and the path")
    func devCertificatesMissing() throws {
        do {
            _ = try DevCertificates.locate(configured: "/nonexistent/certs", executableFolder: nil)
            Issue.record("a folder without certs.json was accepted")
        } catch {
            #expect(error.variable == "DEV_CERTS_DIR")
            #expect(error.description.contains("cannot read /nonexistent/certs/certs.json"))
        }
    }
}
