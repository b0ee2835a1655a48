import NIOCore
import Testing

@testable import Generations
@testable import RateLimiting

@Suite("JobRecord as a Redis hash")
struct JobHashTests {
    /// The `HGETALL` reply Redis would give for the record's fields: each argument encoded as RESP and decoded back.
    static func reply(_ record: JobRecord) throws -> RESPValue {
        .array(try JobHash.fields(of: record).map { argument in
            var buffer = ByteBuffer()
            argument.encode(into: &buffer)
            return try #require(try RESPDecoder.parse(&buffer))
        })
    }

    @Test("every field read back exactly: times, a binary request, an answer, absent optionals")
    func roundTrip() throws {
        var job = JobRecord(
            id: JobRecord.newID(), userHash: "0123456789abcdef", uid: "uid-ü", function: "story-generation", createdAt: 1_764_000_000.123456,
            request: Array(0...255)
        )
        #expect(try JobHash.record(Self.reply(job)) == job)
        job.status = .succeeded
        job.startedAt = 1_764_000_001.000001
        job.finishedAt = 0.1 + 0.2
        job.answer = .binaryOK
        job.attempts = 3
        #expect(try JobHash.record(Self.reply(job)) == job)
    }

    @Test("no hash is no record; a hash without its fields is corrupt")
    func missingAndCorrupt() throws {
        #expect(try JobHash.record(.array([])) == nil)
        #expect(throws: GenerationStoreError.corrupt) { try JobHash.record(.array([.bulkString(ByteBuffer(string: "id"))])) }
        #expect(throws: GenerationStoreError.corrupt) {
            try JobHash.record(.array([.bulkString(ByteBuffer(string: "status")), .bulkString(ByteBuffer(string: "lost"))]))
        }
        #expect(throws: GenerationStoreError.corrupt) { try JobHash.record(.integer(1)) }
    }
}
