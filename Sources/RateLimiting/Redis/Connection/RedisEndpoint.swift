/// Where and how to connect to one server, parsed from `redis://[[user]:password@]host[:port][/db]`.
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

    /// Parses a Redis URL naming one server. The scheme must be `redis`; the port defaults to 6379 and the database
    /// to 0; user and password may be percent-encoded; an IPv6 host is written in brackets.
    init(url: String) throws(RateLimitStoreError) {
        let endpoints = try Self.endpoints(url: url)
        guard endpoints.count == 1 else {
            throw .invalidConfiguration.with(detail: "Redis URL lists several hosts, which only Redis Cluster mode takes")
        }
        self = endpoints[0]
    }

    /// Parses a Redis URL naming one or more servers, `redis://[[user]:password@]host[:port][,host[:port]...][/db]`
    /// (Redis Cluster seed nodes): one endpoint per host, each with the URL's credentials and database.
    static func endpoints(url: String) throws(RateLimitStoreError) -> [RedisEndpoint] {
        func invalid(_ problem: String) -> RateLimitStoreError {
            .invalidConfiguration.with(detail: problem)
        }
        guard url.hasPrefix("redis://") else { throw invalid("Redis URL must start with redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        guard !rest.contains("?"), !rest.contains("#") else { throw invalid("Redis URL takes no query or fragment") }

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
                throw invalid("Redis URL user info needs a password: [user]:password@")
            }
            let user = userInfo[..<colon]
            guard let decodedUser = Self.percentDecoded(user),
                let decodedPassword = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            else { throw invalid("Redis URL has a malformed percent escape") }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = decodedPassword
        }
        var database = 0
        if !path.isEmpty {
            guard let parsed = Int(path), parsed >= 0 else { throw invalid("Redis URL has a bad database number") }
            database = parsed
        }
        var endpoints: [RedisEndpoint] = []
        for hostAndPort in rest.split(separator: ",", omittingEmptySubsequences: false) {
            guard let (host, port) = Self.hostAndPort(hostAndPort) else {
                throw invalid(hostAndPort.isEmpty ? "Redis URL has no host" : "Redis URL has a malformed host or port")
            }
            endpoints.append(RedisEndpoint(host: host, port: port, username: username, password: password, database: database))
        }
        return endpoints
    }

    /// `host`, `host:port`, `[ipv6]` or `[ipv6]:port`; nil when malformed or the port is not 1...65535.
    private static func hostAndPort(_ text: Substring) -> (String, Int)? {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { return nil }
        guard let portText else { return (String(host), 6379) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(host), port)
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
