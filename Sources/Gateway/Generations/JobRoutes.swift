public import GatewayConfig
import Generations
public import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore

/// `GET /v1/jobs` (the caller's recent jobs, newest first, a page at a time), `GET /v1/jobs/<id>` (one job; with
/// `Prefer: wait=N` held until it ends or N seconds pass; with `Accept: text/event-stream` its status changes as
/// Server-Sent Events until it ends) and `DELETE /v1/jobs/<id>` (cancels a queued or running job).
public enum JobRoutes {
    static let prefix = "/v1/jobs"

    /// The two routes' names, paths and methods (both `auth: required`), for the route table and for the checks of
    /// the API description against it.
    public static let table: [(name: String, path: Route.PathMatch, methods: [HTTPRequest.Method])] = [
        ("jobs", .exact(Self.prefix), [.get]),
        ("job", .prefix(Self.prefix + "/"), [.get, .delete]),
    ]
    static let pageLimit = 100
    static let defaultPageSize = 20

    static func path(_ id: String) -> String { Self.prefix + "/" + id }

    /// The two routes: the list, and one job.
    static func routes(stores: GenerationStores, running: RunningJobs) -> [Route] {
        let (list, one) = (Self.table[0], Self.table[1])
        return [
            Route(name: list.name, path: list.path, methods: list.methods, auth: .required) { request, context in
                guard let identity = context.identity else { throw GatewayError.internalError() }
                return try await Self.list(request, userHash: UserHash.logIdentifier(identity.uid), stores: stores)
            },
            Route(name: one.name, path: one.path, methods: one.methods, auth: .required) { request, context in
                guard let identity = context.identity else { throw GatewayError.internalError() }
                let id = String(URI(request.head.path ?? "").path.dropFirst(Self.prefix.count + 1))
                guard JobRecord.isJobID(id) else { throw GatewayError.jobNotFound() }
                let userHash = UserHash.logIdentifier(identity.uid)
                if request.method == .delete { return try await Self.cancel(id, userHash: userHash, stores: stores, running: running) }
                return try await Self.show(request, id: id, userHash: userHash, stores: stores)
            },
        ]
    }

    private static func list(_ request: Request, userHash: String, stores: GenerationStores) async throws -> Response {
        let query = URI(request.head.path ?? "").queryParameters
        let cursor = query["cursor"].map(String.init)
        if let cursor, !JobRecord.isJobID(cursor) { throw GatewayError.invalidArgument("cursor is not one this gateway gave.") }
        var limit = Self.defaultPageSize
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.pageLimit).contains(value) else {
                throw GatewayError.invalidArgument("limit must be a whole number from 1 to \(Self.pageLimit).")
            }
            limit = value
        }
        let page: JobPage
        do {
            page = try await stores.jobs.jobs(userHash: userHash, after: cursor, limit: limit)
        } catch {
            throw GatewayError.jobsUnavailable()
        }
        var json = "{\"jobs\":["
        for (index, job) in page.jobs.enumerated() {
            if index > 0 { json += "," }
            Self.append(job, withAnswer: false, to: &json)
        }
        json += "],\"next_cursor\":" + (page.next.map(JSONWriter.quoted) ?? "null") + "}"
        return JSONResponse.make(status: .ok, json: json)
    }

    private static func show(_ request: Request, id: String, userHash: String, stores: GenerationStores) async throws -> Response {
        guard var job = try await Self.job(id, userHash: userHash, stores: stores) else { throw GatewayError.jobNotFound() }
        let streams = request.headers[values: .accept].contains { $0.lowercased().contains("text/event-stream") }
        if streams, request.method != .head {
            return Self.events(job, stores: stores)
        }
        if request.method != .head, let wait = Preferences(request.headers[values: FunctionCalls.preferField]).wait, wait > 0, !job.status.isFinal {
            let deadline = ContinuousClock.now + .seconds(wait)
            while !job.status.isFinal, ContinuousClock.now < deadline {
                guard let next = try? await stores.jobs.wait(id: id, userHash: userHash, seen: job.status, until: deadline) else { break }
                job = next
            }
        }
        return JSONResponse.make(status: .ok, json: Self.json(job, withAnswer: true))
    }

    /// The job's status now and at each change, as `event: status` with the job's JSON, until it ends.
    private static func events(_ first: JobRecord, stores: GenerationStores) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "text/event-stream"
        fields[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            var job = first
            while true {
                try await writer.write(ByteBuffer(string: "event: status\ndata: " + Self.json(job, withAnswer: true) + "\n\n"))
                if job.status.isFinal { return }
                var next: JobRecord?
                // A comment every 15 s keeps intermediaries from closing an idle stream.
                while next == nil || next?.status == job.status {
                    try Task.checkCancellation()
                    next = try? await stores.jobs.wait(id: job.id, userHash: job.userHash, seen: job.status, until: .now + .seconds(15))
                    guard next != nil else { return }
                    if next?.status == job.status { try await writer.write(ByteBuffer(string: ": waiting\n\n")) }
                }
                job = next ?? job
            }
        }
        return Response(status: .ok, headers: fields, body: body)
    }

    private static func cancel(_ id: String, userHash: String, stores: GenerationStores, running: RunningJobs) async throws -> Response {
        guard let before = try await Self.job(id, userHash: userHash, stores: stores) else { throw GatewayError.jobNotFound() }
        guard !before.status.isFinal else { return JSONResponse.make(status: .ok, json: Self.json(before, withAnswer: true)) }
        let job: JobRecord?
        do {
            job = try await stores.jobs.cancel(id: id, userHash: userHash, now: stores.now())
        } catch {
            throw GatewayError.jobsUnavailable()
        }
        guard let job else { throw GatewayError.jobNotFound() }
        if job.status == .cancelled {
            stores.metrics.job("cancelled")
            // A job running here stops now; one running on another replica at its next lease renewal.
            _ = running.cancel(id)
        }
        return JSONResponse.make(status: .ok, json: Self.json(job, withAnswer: true))
    }

    private static func job(_ id: String, userHash: String, stores: GenerationStores) async throws(GatewayError) -> JobRecord? {
        do {
            return try await stores.jobs.job(id: id, userHash: userHash)
        } catch {
            throw GatewayError.jobsUnavailable()
        }
    }

    /// `{job_id, function, status, created_at, started_at?, finished_at?, result?, error?}`: `result` is the function's
    /// answer, `error` the error envelope it answered.
    static func json(_ job: JobRecord, withAnswer: Bool) -> String {
        var json = ""
        Self.append(job, withAnswer: withAnswer, to: &json)
        return json
    }

    private static func append(_ job: JobRecord, withAnswer: Bool, to json: inout String) {
        json += "{\"job_id\":\"\(job.id)\",\"function\":" + JSONWriter.quoted(job.function) + ",\"status\":\"\(job.status.rawValue)\""
        json += ",\"created_at\":" + JSONWriter.quoted(HTTPDate.rfc3339(job.createdAt))
        if let started = job.startedAt { json += ",\"started_at\":" + JSONWriter.quoted(HTTPDate.rfc3339(started)) }
        if let finished = job.finishedAt { json += ",\"finished_at\":" + JSONWriter.quoted(HTTPDate.rfc3339(finished)) }
        if withAnswer, let answer = job.answer, !answer.body.isEmpty {
            json += answer.isSuccess ? ",\"result\":" : ",\"error\":"
            json += String(decoding: answer.body, as: UTF8.self)
        }
        json += "}"
    }
}
