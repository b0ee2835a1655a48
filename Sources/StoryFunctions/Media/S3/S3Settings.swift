public import OpenAI

/// Where and how the S3 media store reaches its bucket; every key but the endpoint, bucket and credentials has a default.
///
/// | key | what | default |
/// |---|---|---|
/// | ``endpoint`` | `https://host[:port]` of the S3 API (http only to loopback, checked by the gateway's configuration) | none |
/// | ``bucket`` | the bucket name | none |
/// | ``region`` | the signing region (`auto` for Cloudflare R2) | `us-east-1` |
/// | ``prefix`` | prepended to every object name, e.g. `media/` | empty |
/// | ``addressing`` | `path` (`endpoint/bucket/name`) or `virtual` (`bucket.host/name`) | `virtual` |
/// | ``credentials`` | the access key pair | none |
/// | ``deadline`` | one deadline for an operation, retries included | 10 s |
/// | ``attemptTimeout`` | the longest one attempt may take | 5 s |
/// | ``retryPolicy`` | the OpenAI client's policy: 3 attempts, backoff 0.5 s to 8 s | |
/// | ``chunkBytes`` | the largest piece one GET reads (a proxied download holds at most this much) | 256 KiB |
public struct S3Settings: Sendable, Equatable {
    public enum Addressing: String, Sendable, Equatable, CaseIterable {
        case path, virtual
    }

    public var endpoint: String
    public var bucket: String
    public var region: String
    public var prefix: String
    public var addressing: Addressing
    public var credentials: S3Credentials
    public var deadline: Duration
    public var attemptTimeout: Duration
    public var retryPolicy: RetryPolicy
    public var chunkBytes: Int

    public init(
        endpoint: String, bucket: String, region: String = "us-east-1", prefix: String = "", addressing: Addressing = .virtual,
        credentials: S3Credentials, deadline: Duration = .seconds(10), attemptTimeout: Duration = .seconds(5),
        retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 3, backoffBase: .milliseconds(500), backoffCap: .seconds(8)),
        chunkBytes: Int = 256 * 1024
    ) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.bucket = bucket
        self.region = region
        self.prefix = prefix
        self.addressing = addressing
        self.credentials = credentials
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
        self.chunkBytes = chunkBytes
    }

    /// A bucket name S3 accepts for both addressing styles: 3 to 63 lowercase letters, digits, `.` and `-`,
    /// starting and ending with a letter or digit.
    public static func isValidBucket(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        let isAlphanumeric = { (byte: UInt8) in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
        return isAlphanumeric(first) && isAlphanumeric(last) && bytes.allSatisfy { isAlphanumeric($0) || $0 == 0x2E || $0 == 0x2D }
    }

    /// An object-name prefix: empty, or up to 200 of `A-Z a-z 0-9 - _ . /` ending in `/`, with no empty, `.` or `..`
    /// segment (so names need no escaping and sign the same everywhere).
    public static func isValidPrefix(_ prefix: String) -> Bool {
        if prefix.isEmpty { return true }
        guard prefix.utf8.count <= 200, prefix.hasSuffix("/") else { return false }
        let allowed = prefix.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x2F
        }
        let segments = prefix.dropLast().split(separator: "/", omittingEmptySubsequences: false)
        return allowed && segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// A signing region: `auto` or letters, digits and `-` (1 to 32).
    public static func isValidRegion(_ region: String) -> Bool {
        (1...32).contains(region.utf8.count) && region.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D
        }
    }
}

/// An S3 access key pair. Printed with the secret redacted; never logged, never in a config file.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String

    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "S3Credentials(\(self.accessKeyID), secret: <redacted>)" }

    /// The pair from a credentials file: `AWS_ACCESS_KEY_ID=…` and `AWS_SECRET_ACCESS_KEY=…` lines (also the
    /// `aws_access_key_id = …` spelling of `~/.aws/credentials`), or two lines, the key id then the secret.
    /// Blank lines, `#` comments and `[section]` headers are skipped. Nil when either half is missing.
    public static func parse(_ text: String) -> S3Credentials? {
        var named: [String: String] = [:]
        var bare: [String] = []
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("[") { continue }
            if let equals = line.firstIndex(of: "=") {
                let name = line[..<equals].trimmingSpaces.lowercased()
                named[name] = String(line[line.index(after: equals)...].trimmingSpaces)
            } else {
                bare.append(String(line))
            }
        }
        let id = named["aws_access_key_id"] ?? (bare.count == 2 ? bare[0] : nil)
        let secret = named["aws_secret_access_key"] ?? (bare.count == 2 ? bare[1] : nil)
        guard let id, let secret, !id.isEmpty, !secret.isEmpty else { return nil }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret)
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: Substring {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let start = self.firstIndex(where: { !isSpace($0) }) else { return Substring() }
        let end = self.lastIndex(where: { !isSpace($0) })!
        return Substring(self[start...end])
    }
}
