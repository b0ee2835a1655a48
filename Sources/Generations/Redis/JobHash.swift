import RateLimiting

/// A `JobRecord` as the fields of a Redis hash: times as Swift writes a `Double` (read back exactly), the request
/// body as its bytes, the answer as `StoredAnswer.encoded()`, so both are binary-safe. No Lua script does
/// arithmetic on a time: the scripts store the strings given.
enum JobHash {
    /// The fields and values to `HSET` for `job`; absent optionals are left out.
    static func fields(of job: JobRecord) -> [RedisArgument] {
        var fields: [RedisArgument] = [
            "id", RedisArgument(job.id), "user", RedisArgument(job.userHash), "uid", RedisArgument(job.uid),
            "function", RedisArgument(job.function), "status", RedisArgument(job.status.rawValue),
            "created_at", RedisArgument(Self.time(job.createdAt)), "request", RedisArgument(bytes: job.request),
            "attempts", RedisArgument(job.attempts),
        ]
        if let startedAt = job.startedAt { fields += ["started_at", RedisArgument(Self.time(startedAt))] }
        if let finishedAt = job.finishedAt { fields += ["finished_at", RedisArgument(Self.time(finishedAt))] }
        if let answer = job.answer { fields += ["answer", RedisArgument(bytes: answer.encoded())] }
        return fields
    }

    /// Seconds since 1970 as stored: the shortest text that reads back as the same `Double`.
    static func time(_ seconds: Double) -> String {
        "\(seconds)"
    }

    /// The record in an `HGETALL` reply (`[field, value, …]`); nil for an empty one (no such hash).
    static func record(_ reply: RESPValue) throws(GenerationStoreError) -> JobRecord? {
        guard let elements = reply.array, elements.count.isMultiple(of: 2) else {
            throw .corrupt.with(detail: "a job record is not a hash")
        }
        guard !elements.isEmpty else { return nil }
        var fields: [String: [UInt8]] = [:]
        for index in stride(from: 0, to: elements.count, by: 2) {
            guard let name = elements[index].string, let value = elements[index + 1].bytes else {
                throw .corrupt.with(detail: "a job record holds a field that is not a string")
            }
            fields[name] = value
        }
        func text(_ name: String) -> String? { fields[name].map { String(decoding: $0, as: UTF8.self) } }
        func time(_ name: String) throws(GenerationStoreError) -> Double? {
            guard let value = text(name) else { return nil }
            guard let seconds = Double(value) else { throw .corrupt.with(detail: "a job record's \(name) is not a time") }
            return seconds
        }
        guard let id = text("id"), let userHash = text("user"), let uid = text("uid"), let function = text("function"),
            let status = text("status").flatMap(JobStatus.init(rawValue:)), let createdAt = try time("created_at"),
            let request = fields["request"], let attempts = text("attempts").flatMap({ Int($0) })
        else { throw .corrupt.with(detail: "a job record lacks a field or holds a malformed one") }
        var answer: StoredAnswer?
        if let encoded = fields["answer"] {
            guard let decoded = StoredAnswer(encoded: encoded) else { throw .corrupt.with(detail: "a job record's answer is unreadable") }
            answer = decoded
        }
        return JobRecord(
            id: id, userHash: userHash, uid: uid, function: function, status: status, createdAt: createdAt,
            startedAt: try time("started_at"), finishedAt: try time("finished_at"), request: request, answer: answer, attempts: attempts
        )
    }
}
