import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import MockOpenAI
import Testing
import TestSupport

/// Function calls as jobs (`Prefer: respond-async`) through the real gateway to a local fake OpenAI: creation,
/// polling and waiting, another user's job, the list, cancellation, the event stream.
@Suite("Jobs end to end")
struct JobsEndToEndTests {
    static func create(
        _ gateway: GatewayHarness, _ function: String = "extract-scenes", body: [UInt8] = OpenAIPathEndToEndTests.scenesBody, uid: String = "kid-1",
        key: String? = nil
    ) async throws -> CurlResponse {
        try await IdempotencyEndToEndTests.call(gateway, function, body, key: key, uid: uid, extra: [("Prefer", "respond-async")])
    }

    @Test("202 with Location; a wait ends succeeded with the function's answer; another user or an unknown id: 404")
    func lifecycle() async throws {
        try await IdempotencyEndToEndTests.run(latency: .milliseconds(200)) { gateway, mock in
            let created = try await Self.create(gateway)
            #expect(created.status == 202, "\(created.text.prefix(300))")
            #expect(created.header("Preference-Applied") == "respond-async")
            let id = try #require(created.json["job_id"] as? String)
            #expect(created.header("Location") == "/v1/jobs/\(id)")
            #expect(created.json["status"] as? String == "queued")
            #expect(created.json["created_at"] is String)
            // The rate limit applies at creation.
            #expect(created.header("RateLimit") != nil)

            let done = try await gateway.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1"), ("Prefer", "wait=30")])
            #expect(done.status == 200)
            #expect(done.json["status"] as? String == "succeeded", "\(done.text.prefix(300))")
            #expect(done.json["function"] as? String == "extract-scenes")
            #expect(done.json["started_at"] is String)
            #expect(done.json["finished_at"] is String)
            let result = try #require(done.json["result"] as? [String: Any])
            #expect((result["scenes"] as? [Any])?.count == 2)
            #expect(done.json["error"] == nil)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)

            for (path, uid) in [("/v1/jobs/\(id)", "kid-2"), ("/v1/jobs/0123456789abcdef0123456789abcdef", "kid-1"), ("/v1/jobs/nope", "kid-1")] {
                let missing = try await gateway.get(path, headers: [("X-User-Id", uid)])
                #expect(missing.status == 404, "\(path)")
                #expect(missing.errorCode == "JOB_NOT_FOUND")
            }
            #expect(try await gateway.get("/v1/jobs/\(id)").status == 401)
            #expect(try await gateway.request("DELETE", "/v1/jobs/\(id)", headers: [("X-User-Id", "kid-2")]).status == 404)
        }
    }

    @Test("a failed job keeps the error envelope; the list is newest first with a cursor; an ended job's DELETE changes nothing")
    func failuresAndList() async throws {
        try await IdempotencyEndToEndTests.run { gateway, mock in
            // A request the function refuses is refused at the job's creation, spending no token.
            let refused = try await Self.create(gateway, body: Array("{\"story_content\": 1}".utf8), uid: "kid-3")
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_ARGUMENT")
            #expect(refused.header("RateLimit") == nil)
            // A provider failure fails the job, which keeps the error envelope.
            mock.faults.enqueue(.status(400), for: .chatCompletions)
            let bad = try await Self.create(gateway, uid: "kid-3")
            #expect(bad.status == 202)
            let badID = try #require(bad.json["job_id"] as? String)
            let failed = try await gateway.get("/v1/jobs/\(badID)", headers: [("X-User-Id", "kid-3"), ("Prefer", "wait=30")])
            #expect(failed.json["status"] as? String == "failed")
            let envelope = try #require(failed.json["error"] as? [String: Any])
            #expect((envelope["error"] as? [String: Any])?["code"] as? String == "UPSTREAM_ERROR", "\(failed.text)")
            #expect(failed.json["result"] == nil)

            var ids = [badID]
            for _ in 0..<3 { ids.append(try #require(try await Self.create(gateway, uid: "kid-3").json["job_id"] as? String)) }
            let first = try await gateway.get("/v1/jobs?limit=2", headers: [("X-User-Id", "kid-3")])
            #expect(first.status == 200)
            let page = try #require(first.json["jobs"] as? [[String: Any]])
            #expect(page.map { $0["job_id"] as? String } == [ids[3], ids[2]])
            #expect(page.allSatisfy { $0["result"] == nil })
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await gateway.get("/v1/jobs?limit=2&cursor=\(cursor)", headers: [("X-User-Id", "kid-3")])
            #expect((second.json["jobs"] as? [[String: Any]])?.map { $0["job_id"] as? String } == [ids[1], ids[0]])
            #expect(second.json["next_cursor"] is NSNull)
            #expect(try await gateway.get("/v1/jobs", headers: [("X-User-Id", "kid-4")]).text == "{\"jobs\":[],\"next_cursor\":null}")
            for query in ["limit=0", "limit=101", "limit=x", "cursor=zzz"] {
                #expect(try await gateway.get("/v1/jobs?\(query)", headers: [("X-User-Id", "kid-3")]).status == 400, "\(query)")
            }

            let again = try await gateway.request("DELETE", "/v1/jobs/\(badID)", headers: [("X-User-Id", "kid-3")])
            #expect(again.status == 200)
            #expect(again.json["status"] as? String == "failed")
        }
    }

    @Test("with an Idempotency-Key, creating the job again returns the same job")
    func idempotentCreation() async throws {
        try await IdempotencyEndToEndTests.run { gateway, _ in
            let first = try await Self.create(gateway, key: "\"job-key\"")
            let second = try await Self.create(gateway, key: "\"job-key\"")
            #expect(first.status == 202)
            #expect(second.status == 202)
            #expect(second.header("Idempotent-Replayed") == "true")
            #expect(first.json["job_id"] as? String == second.json["job_id"] as? String)
            #expect(second.header("Location") == first.header("Location"))
            // The same key without respond-async is another request.
            let sync = try await IdempotencyEndToEndTests.call(gateway, "extract-scenes", OpenAIPathEndToEndTests.scenesBody, key: "\"job-key\"")
            #expect(sync.status == 422)
        }
    }

    @Test("the event stream sends the status until the job ends; a running job is cancelled and its OpenAI call stops")
    func streamAndCancel() async throws {
        try await IdempotencyEndToEndTests.run { gateway, mock in
            // The model never answers: the job runs until it is cancelled.
            mock.faults.enqueue(.hang, for: .chatCompletions)
            let id = try #require(try await Self.create(gateway).json["job_id"] as? String)
            for _ in 0..<500 where mock.requests.filter({ $0.endpoint == .chatCompletions }).isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            let running = try await gateway.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1")])
            #expect(running.json["status"] as? String == "running")
            async let stream = gateway.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1"), ("Accept", "text/event-stream")])
            let cancelled = try await gateway.request("DELETE", "/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1")])
            #expect(cancelled.status == 200)
            #expect(cancelled.json["status"] as? String == "cancelled")
            let events = try await stream
            #expect(events.header("Content-Type") == "text/event-stream")
            #expect(events.text.hasPrefix("event: status\ndata: {"))
            #expect(events.text.contains("\"status\":\"cancelled\""))
            let after = try await gateway.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1"), ("Prefer", "wait=1")])
            #expect(after.json["status"] as? String == "cancelled")
            #expect(after.json["result"] == nil)
            let metrics = ObservabilityTests.samples(try await gateway.settledMetrics())
            #expect(metrics["storygate_jobs_total{event=\"cancelled\"}"] == 1)
        }
    }
}
