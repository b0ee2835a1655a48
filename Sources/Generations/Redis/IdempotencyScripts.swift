import RateLimiting

/// The Lua scripts of `RedisIdempotencyStore`: one per operation, each `IdempotencyRecord`'s rule applied atomically
/// with Redis's clock (`TIME`, in milliseconds), so the replicas' clocks do not matter.
///
/// A record is a hash at `IdempotencyScope.storageKey`: `state` (`running`, `completed`, `released`),
/// `fingerprint`, and `owner` and `lease_ends` (ms since 1970) while running, `answer` (`StoredAnswer.encoded()`)
/// once ended. A running record expires at its lease's end, so a lapsed lease is a missing record.
enum IdempotencyScripts {
    /// Redis's clock in milliseconds, and the record's fields.
    private static let prologue = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
        local state, fingerprint, owner, lease_ends, answer =
          unpack(redis.call('HMGET', KEYS[1], 'state', 'fingerprint', 'owner', 'lease_ends', 'answer'))
        local live = state == 'running' and (tonumber(lease_ends) or 0) > now

        """

    /// `IdempotencyRecord.begin`. ARGV: fingerprint, owner, lease (ms). Replies `{'started'}`, `{'in_flight'}`,
    /// `{'mismatch'}` or `{'replay', answer}`.
    static let begin = RedisScript(
        prologue + """
            if live then
              if fingerprint == ARGV[1] then return {'in_flight'} end
              return {'mismatch'}
            end
            if state == 'completed' then
              if fingerprint == ARGV[1] then return {'replay', answer} end
              return {'mismatch'}
            end
            -- No record, a released one, or a run whose lease lapsed: this run holds the key now.
            local ends = now + tonumber(ARGV[3])
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], 'state', 'running', 'fingerprint', ARGV[1], 'owner', ARGV[2], 'lease_ends', ends)
            redis.call('PEXPIREAT', KEYS[1], ends)
            return {'started'}
            """
    )

    /// `IdempotencyRecord.renew`. ARGV: owner, lease (ms). Replies 1 when renewed, 0 when `owner` no longer holds it.
    static let renew = RedisScript(
        prologue + """
            if not live or owner ~= ARGV[1] then return 0 end
            local ends = now + tonumber(ARGV[2])
            redis.call('HSET', KEYS[1], 'lease_ends', ends)
            redis.call('PEXPIREAT', KEYS[1], ends)
            return 1
            """
    )

    /// `IdempotencyRecord.end`. ARGV: owner, the state after (`completed` for a 2xx, else `released`), the answer,
    /// how long the record then stays (ms). Replies 1 when written, 0 when `owner` no longer holds the key.
    static let end = RedisScript(
        prologue + """
            if not live or owner ~= ARGV[1] then return 0 end
            redis.call('HDEL', KEYS[1], 'owner', 'lease_ends')
            redis.call('HSET', KEYS[1], 'state', ARGV[2], 'answer', ARGV[3])
            redis.call('PEXPIRE', KEYS[1], ARGV[4])
            return 1
            """
    )

    /// `IdempotencyRecord.joined`. ARGV: fingerprint. Replies `{'free'}`, `{'running'}` or `{'answered', answer}`;
    /// writes nothing.
    static let joined = RedisScript(
        prologue + """
            if live then return {'running'} end
            if (state == 'completed' or state == 'released') and fingerprint == ARGV[1] then return {'answered', answer} end
            return {'free'}
            """
    )
}
