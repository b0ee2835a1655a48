import RateLimiting

/// The Lua scripts of `RedisJobQueue`. Each touches the keys of one slot only: the user's (a job's record, the
/// user's index) or the queue's (the stream, the waiting jobs), so they run in Redis Cluster.
///
/// The queue's keys: the stream `storygate:jobs:{<queue>}` with the consumer group `storygate-workers`, and the hash
/// `storygate:jobs:{<queue>}:waiting` of the jobs not taken yet (job id → entry id): its length is the queue's depth,
/// and removing a job from it (taken, or cancelled while queued) happens once, with the entry's delivery or removal.
enum JobScripts {
    // MARK: The user's slot

    /// KEYS: the record, the user's index. ARGV: retention (ms), the creation time (the index's score), the scores
    /// below which ids are past their retention, the job id, then the record's fields and values.
    static let create = RedisScript(
        """
        redis.call('DEL', KEYS[1])
        redis.call('HSET', KEYS[1], unpack(ARGV, 5))
        redis.call('PEXPIRE', KEYS[1], ARGV[1])
        redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
        redis.call('PEXPIRE', KEYS[2], ARGV[1])
        return 1
        """
    )

    /// KEYS: the record, the user's index. ARGV: the job id. Removes a job the queue refused.
    static let remove = RedisScript(
        """
        redis.call('DEL', KEYS[1])
        redis.call('ZREM', KEYS[2], ARGV[1])
        return 1
        """
    )

    /// KEYS: the record. ARGV: the start time. Marks a queued (or reclaimed running) job running and counts the
    /// attempt; replies the record, or false when it is gone or has ended (cancelled): the entry is then skipped.
    static let start = RedisScript(
        """
        local status = redis.call('HGET', KEYS[1], 'status')
        if status ~= 'queued' and status ~= 'running' then return false end
        redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[1])
        redis.call('HINCRBY', KEYS[1], 'attempts', 1)
        return redis.call('HGETALL', KEYS[1])
        """
    )

    /// KEYS: the record. ARGV: the status, the answer, the finish time. Ends a running job; anything else (cancelled,
    /// ended by another worker, gone) is left as it is. Replies 1 when written.
    static let finish = RedisScript(
        """
        if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
        redis.call('HSET', KEYS[1], 'status', ARGV[1], 'answer', ARGV[2], 'finished_at', ARGV[3])
        return 1
        """
    )

    /// KEYS: the record. ARGV: the cancel time. Cancels a queued or running job. Replies `{status before, record
    /// after}`, or false when there is no such job.
    static let cancel = RedisScript(
        """
        local status = redis.call('HGET', KEYS[1], 'status')
        if not status then return false end
        if status == 'queued' or status == 'running' then
          redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', ARGV[1])
        end
        return {status, redis.call('HGETALL', KEYS[1])}
        """
    )

    /// KEYS: the user's index. ARGV: the cursor (an id, or empty for the first page), how many. Replies the ids after
    /// the cursor, newest first; none when the cursor is not in the index.
    static let page = RedisScript(
        """
        local start = 0
        if ARGV[1] ~= '' then
          local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
          if not rank then return {} end
          start = rank + 1
        end
        return redis.call('ZREVRANGE', KEYS[1], start, start + tonumber(ARGV[2]) - 1)
        """
    )

    /// KEYS: records of one user. Replies each one's `HGETALL` (empty for a record gone).
    static let records = RedisScript(
        """
        local records = {}
        for index, key in ipairs(KEYS) do records[index] = redis.call('HGETALL', key) end
        return records
        """
    )

    // MARK: The queue's slot

    /// KEYS: the stream, the waiting jobs. ARGV: the group, the most jobs waiting, the job id, the user hash. Creates
    /// the group with the stream if need be. Replies the entry id, or false when the queue is full.
    static let enqueue = RedisScript(
        """
        redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
        if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[2]) then return false end
        local entry = redis.call('XADD', KEYS[1], '*', 'job', ARGV[3], 'user', ARGV[4])
        redis.call('HSET', KEYS[2], ARGV[3], entry)
        return entry
        """
    )

    /// KEYS: the stream, the waiting jobs. ARGV: the group, the consumer, the lease (ms). An entry whose worker has
    /// been idle longer than the lease first (`XAUTOCLAIM`, following its cursor through the pending entries, 10 a
    /// step), else a new one (`XREADGROUP >`, never blocking). Replies `{entry id, job id, user hash, reclaimed}`,
    /// or false when none waits.
    static let take = RedisScript(
        """
        if redis.call('EXISTS', KEYS[1]) == 0 then return false end
        local function field(values, name)
          for index = 1, #values, 2 do
            if values[index] == name then return values[index + 1] end
          end
          return ''
        end
        local cursor = '0-0'
        for _ = 1, 1000 do
          local claimed = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', 1)
          local entry = claimed[2][1]
          if entry then return {entry[1], field(entry[2], 'job'), field(entry[2], 'user'), 1} end
          cursor = claimed[1]
          if cursor == '0-0' then break end
        end
        local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', 1, 'STREAMS', KEYS[1], '>')
        if not read then return false end
        local entry = read[1][2][1]
        local job = field(entry[2], 'job')
        redis.call('HDEL', KEYS[2], job)
        return {entry[1], job, field(entry[2], 'user'), 0}
        """
    )

    /// KEYS: the stream. ARGV: the group, the consumer, the entry id. Renews the entry's lease (resets its idle time)
    /// when `consumer` still owns it. Replies 1 when renewed.
    static let keep = RedisScript(
        """
        local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
        if pending.err or #pending == 0 or pending[1][2] ~= ARGV[2] then return 0 end
        redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
        return 1
        """
    )

    /// KEYS: the stream. ARGV: the group, the entry id. Acknowledges and deletes a finished or skipped entry.
    static let acknowledge = RedisScript(
        """
        redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
        redis.call('XDEL', KEYS[1], ARGV[2])
        return 1
        """
    )

    /// KEYS: the stream, the waiting jobs. ARGV: the job id. Removes a cancelled job that no worker has taken yet.
    /// Replies 1 when it was waiting.
    static let withdraw = RedisScript(
        """
        local entry = redis.call('HGET', KEYS[2], ARGV[1])
        if not entry then return 0 end
        redis.call('HDEL', KEYS[2], ARGV[1])
        redis.call('XDEL', KEYS[1], entry)
        return 1
        """
    )
}
