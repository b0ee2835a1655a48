/// Where and how to connect, parsed from `redis://[[user]:password@]host[:port][/db]`.
struct RedisEndpoint: Sendable, Equatable {
    var host: String
    var port: Int
    var username: String?
    var password: String?
    var database: Int

    init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses a Redis URL. The scheme must be `redis`; the port defaults to 6379 and the database to 0;
    /// user and password may be percent-encoded; an IPv6 host is written in brackets.
    init(url: String) throws(RateLimitStoreError) {
        let invalid = RateLimitStoreError.invalidConfiguration
        guard url.hasPrefix("redis://") else { throw invalid.with(detail: "Redis URL must start with redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        guard !rest.contains("?"), !rest.contains("#") else { throw invalid.with(detail: "Redis URL takes no query or fragment") }

        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw invalid.with(detail: "Redis URL user info needs a password: [user]:password@")
            }
            let user = userInfo[..<colon]
            guard let decodedUser = Self.percentDecoded(user),
                let decodedPassword = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            else { throw invalid.with(detail: "Redis URL has a malformed percent escape") }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = decodedPassword
        }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid.with(detail: "Redis URL has an unclosed [") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid.with(detail: "Redis URL has text after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw invalid.with(detail: "Redis URL has no host") }
        var port = 6379
        if let portText {
            guard let parsed = Int(portText), (1...65535).contains(parsed) else { throw invalid.with(detail: "Redis URL has a bad port") }
            port = parsed
        }
        var database = 0
        if !path.isEmpty {
            guard let parsed = Int(path), parsed >= 0 else { throw invalid.with(detail: "Redis URL has a bad database number") }
            database = parsed
        }
        self.host = String(host)
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// The commands that prepare a new connection: AUTH when a password is set, SELECT when the database is not 0.
    var setupCommands: [RedisCommand] {
        var commands: [RedisCommand] = []
        if let password {
            if let username {
                commands.append(RedisCommand("AUTH", username, password))
            } else {
                commands.append(RedisCommand("AUTH", password))
            }
        }
        if self.database != 0 {
            commands.append(RedisCommand("SELECT", String(self.database)))
        }
        return commands
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
