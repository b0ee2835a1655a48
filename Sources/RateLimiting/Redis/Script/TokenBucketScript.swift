import NIOCore

/// The Lua script that applies `TokenBucket`'s rules atomically inside Redis, with Redis's own clock.
///
/// One hash per bucket holds `tokens` and `ts` (Redis `TIME` in seconds, with microseconds); it expires when the
/// bucket would be full again, so idle users cost nothing. The reply is
/// `[allowed, shadowLimited, remaining, retryAfter, secondsToNextToken]`: the decimals travel as strings because
/// Redis truncates Lua numbers to integers in replies.
enum TokenBucketScript {
    static let source = """
        -- StoryGate token bucket. KEYS[1]: the bucket's hash. ARGV: capacity, period (s), cost, shadow ("1"/"0").
        -- Keep in step with TokenBucket.swift.
        redis.replicate_commands()
        local capacity = tonumber(ARGV[1])
        local period = tonumber(ARGV[2])
        local cost = tonumber(ARGV[3])
        local shadow = ARGV[4] == "1"
        local tolerance = 1e-9
        local clock = redis.call("TIME")
        local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
        local state = redis.call("HMGET", KEYS[1], "tokens", "ts")
        local tokens = tonumber(state[1])
        local updated = tonumber(state[2])
        if tokens == nil or updated == nil then
          tokens = capacity
          updated = now
        end
        if now > updated then
          tokens = tokens + (now - updated) * capacity / period
          updated = now
        end
        tokens = math.min(capacity, tokens)
        local allowed, limited, retry = 1, 0, 0
        if cost <= tokens + tolerance then
          tokens = math.max(0, tokens - cost)
        else
          retry = (cost - tokens) * period / capacity
          if shadow then
            limited = 1
            tokens = 0
          else
            allowed = 0
          end
        end
        local whole = math.floor(tokens + tolerance)
        local nextToken = 0
        if tokens < capacity - tolerance then
          nextToken = (math.min(whole + 1, capacity) - tokens) * period / capacity
        end
        if allowed == 1 then
          local ttl = math.ceil((capacity - tokens) * period / capacity * 1000)
          if ttl > 0 then
            redis.call("HSET", KEYS[1], "tokens", tokens, "ts", updated)
            redis.call("PEXPIRE", KEYS[1], ttl)
          else
            redis.call("DEL", KEYS[1])
          end
        end
        return {allowed, limited, whole, string.format("%.17g", retry), string.format("%.17g", nextToken)}
        """

    /// The script's SHA-1, as `SCRIPT LOAD` returns it and `EVALSHA` takes it.
    static let sha1 = SHA1.hexDigest(source)

    /// The hash that holds a user's bucket for `limit`: `storygate:rl:<limit>:{<tag>}`, where `tag` is the user's
    /// pseudonym. The tag is the hash tag: a user's keys share a slot, and users spread over a cluster's slots.
    static func redisKey(limit: RateLimit, tag: String) -> String {
        "storygate:rl:\(limit.name):{\(tag)}"
    }

    /// `EVALSHA` of the script for the bucket `storygate:rl:<limit>:{<tag>}`, written straight as RESP: the same
    /// bytes as `evalSHA(key:limit:cost:)`, without the key's String or an array of arguments.
    struct Check: RESPEncodable {
        let limit: RateLimit
        let tag: String
        let cost: Double

        /// `*8`, `EVALSHA`, the script's SHA-1 and the key count, 1.
        private static let head: [UInt8] = {
            var buffer = ByteBuffer()
            buffer.writeRESPArrayHeader(count: 8)
            buffer.writeRESPBulkString("EVALSHA")
            buffer.writeRESPBulkString(TokenBucketScript.sha1)
            buffer.writeRESPBulkString("1")
            return Array(buffer.readableBytesView)
        }()

        func encode(into buffer: inout ByteBuffer) {
            buffer.writeBytes(Self.head)
            let name = self.limit.name.utf8.count
            buffer.writeInteger(UInt8(ascii: "$"))
            buffer.writeRESPDecimal("storygate:rl:".utf8.count + name + ":{".utf8.count + self.tag.utf8.count + "}".utf8.count)
            buffer.writeRESPLineEnd()
            buffer.writeStaticString("storygate:rl:")
            buffer.writeString(self.limit.name)
            buffer.writeStaticString(":{")
            buffer.writeString(self.tag)
            buffer.writeStaticString("}")
            buffer.writeRESPLineEnd()
            buffer.writeRESPBulkNumber(self.limit.capacity)
            buffer.writeRESPBulkNumber(self.limit.period)
            buffer.writeRESPBulkNumber(self.cost)
            buffer.writeRESPBulkString(self.limit.shadow ? "1" : "0")
        }
    }

    static func evalSHA(key: String, limit: RateLimit, cost: Double) -> RedisCommand {
        RedisCommand(["EVALSHA", self.sha1] + self.keysAndArguments(key: key, limit: limit, cost: cost))
    }

    /// `EVAL` with the source: runs the script and caches it again (after `NOSCRIPT`).
    static func eval(key: String, limit: RateLimit, cost: Double) -> RedisCommand {
        RedisCommand(["EVAL", self.source] + self.keysAndArguments(key: key, limit: limit, cost: cost))
    }

    static let load = RedisCommand("SCRIPT", "LOAD", source)

    /// The script touches one key, so in a cluster it runs on that key's primary.
    private static func keysAndArguments(key: String, limit: RateLimit, cost: Double) -> [String] {
        ["1", key, self.argument(limit.capacity), self.argument(limit.period), self.argument(cost), limit.shadow ? "1" : "0"]
    }

    /// A number as the script reads it (`tonumber`): a whole one without a fraction (`60`), others as Swift prints
    /// them (`0.5`).
    static func argument(_ value: Double) -> String {
        self.wholeNumber(value).map { String($0) } ?? "\(value)"
    }

    /// `value` as an integer when it is a whole number from 0 to 10^15 (exact in a Double), else nil.
    static func wholeNumber(_ value: Double) -> Int? {
        guard value >= 0, value <= 1e15, value == value.rounded(.towardZero) else { return nil }
        return Int(value)
    }

    /// True for Redis's reply to `EVALSHA` of a script it does not have cached.
    static func isNoScript(_ reply: RESPValue) -> Bool {
        if case .error(let message) = reply { return message.hasPrefix("NOSCRIPT") }
        return false
    }

    /// Reads the script's reply.
    static func decision(from reply: RESPValue) throws(RateLimitStoreError) -> RateLimitDecision {
        if case .error(let message) = reply {
            if message.hasPrefix("CLUSTERDOWN") { throw .unavailable.with(detail: message) }
            if message.hasPrefix("MOVED ") || message.hasPrefix("ASK ") {
                throw .scriptError.with(detail: "Redis answered \(message.prefix { $0 != " " }): it is a cluster node; turn cluster mode on")
            }
            throw .scriptError.with(detail: message)
        }
        guard case .array(let elements?) = reply, elements.count == 5,
            let allowed = elements[0].integer,
            let shadowLimited = elements[1].integer,
            let remaining = elements[2].integer,
            let retryAfter = elements[3].string.flatMap(Double.init),
            let secondsToNextToken = elements[4].string.flatMap(Double.init)
        else {
            throw .protocolError.with(detail: "unexpected token bucket script reply")
        }
        return RateLimitDecision(
            allowed: allowed == 1,
            shadowLimited: shadowLimited == 1,
            remaining: Int(remaining),
            retryAfter: retryAfter,
            secondsToNextToken: secondsToNextToken
        )
    }
}
