import GatewayConfig
import IDTokens

#if canImport(Glibc)
import Glibc
import HTTPWire
#endif

/// What this binary is: the package's version, and the git commit of the checkout it runs from when there is one.
///
/// The commit is read at run time from the `.git` of the nearest folder above the executable (a `swift build`
/// binary sits in `<checkout>/.build/…`), by reading `HEAD` and its ref as git stores them, so neither git nor a
/// build plugin is needed; an installed binary or a container image has no checkout above it: `commit` is nil.
public struct BuildInfo: Sendable, Equatable {
    /// The package's version (also the OpenAPI document's `info.version`).
    public static let packageVersion = "1.0.0"

    /// This process's build: the package version, and the commit above the running executable.
    public static let current = BuildInfo(
        version: Self.packageVersion, commit: Executable.path.flatMap { GitCheckout.commit(above: Executable.folder(of: $0)) }
    )

    public let version: String
    /// The abbreviated commit hash (7 hex digits), nil when not known.
    public let commit: String?

    public init(version: String, commit: String?) {
        self.version = version
        self.commit = commit
    }

    /// `storygate 1.0.0 (commit 1a2b3c4)`, or `storygate 1.0.0` when the commit is not known.
    public var line: String {
        "storygate \(self.version)" + (self.commit.map { " (commit \($0))" } ?? "")
    }
}

/// Reads the commit a git checkout is at from its files: `.git/HEAD`, then the ref it names (loose, or in
/// `packed-refs`); a worktree's `.git` file points at its own git folder, whose `commondir` holds the refs.
enum GitCheckout {
    /// The commit of the nearest checkout at or above `folder`, nil when there is none or it cannot be read.
    static func commit(above folder: String) -> String? {
        for candidate in Executable.foldersUp(from: folder) {
            let dotGit = (candidate == "/" ? "" : candidate) + "/.git"
            if let gitFolder = self.gitFolder(dotGit: dotGit, checkout: candidate) { return self.head(gitFolder: gitFolder) }
        }
        return nil
    }

    /// `.git` itself when it holds a HEAD; the folder a `.git` file's `gitdir:` line names (a worktree).
    private static func gitFolder(dotGit: String, checkout: String) -> String? {
        if self.text(dotGit + "/HEAD") != nil { return dotGit }
        guard let pointer = self.text(dotGit), pointer.hasPrefix("gitdir: ") else { return nil }
        let path = String(pointer.dropFirst("gitdir: ".count))
        return path.hasPrefix("/") ? path : checkout + "/" + path
    }

    /// The commit HEAD resolves to, abbreviated to 7 hex digits.
    private static func head(gitFolder: String) -> String? {
        guard let head = self.text(gitFolder + "/HEAD") else { return nil }
        guard head.hasPrefix("ref: ") else { return self.abbreviated(head) }
        let ref = String(head.dropFirst("ref: ".count))
        let common = self.text(gitFolder + "/commondir").map { $0.hasPrefix("/") ? $0 : gitFolder + "/" + $0 } ?? gitFolder
        for folder in [gitFolder, common] {
            if let hash = self.text(folder + "/" + ref) { return self.abbreviated(hash) }
        }
        // `<hash> <ref>` lines; `#` comments and `^<hash>` peeled-tag lines are skipped.
        let packed = self.text(common + "/packed-refs") ?? ""
        for line in packed.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[1] == ref { return self.abbreviated(String(fields[0])) }
        }
        return nil
    }

    /// The first 7 characters of a full hex hash, nil when `hash` is not one.
    private static func abbreviated(_ hash: String) -> String? {
        guard hash.utf8.count >= 40, hash.utf8.allSatisfy({ HexDigit.value($0) != nil }) else { return nil }
        return String(hash.prefix(7))
    }

    /// A small file's text without its trailing newline, nil when it cannot be read.
    private static func text(_ path: String) -> String? {
        guard let bytes = try? FileBytes.read(path: path, limit: 1 << 20) else { return nil }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\r\n")
    }
}
