import GatewayConfig
import Generations
import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore

/// What outlives a reload for the generations: the idempotency records, the jobs and the runs under way.
final class GenerationStores: Sendable {
    let idempotency: any IdempotencyStore
    let jobs: any JobQueue
    let runs: GenerationRuns
    let metrics: GenerationMetrics
    /// The wall clock, seconds since 1970.
    let now: @Sendable () -> Double

    init(idempotency: any IdempotencyStore, jobs: any JobQueue, runs: GenerationRuns, metrics: GenerationMetrics, now: @escaping @Sendable () -> Double) {
        self.idempotency = idempotency
        self.jobs = jobs
        self.runs = runs
        self.metrics = metrics
        self.now = now
    }
}

extension StoredAnswer {
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    /// A handler's answer as a store keeps it (its body read whole: a function's JSON).
    init(status: HTTPResponse.Status, fields: HTTPFields, body: [UInt8]) {
        self.init(
            status: Int(status.code), fields: fields.map { Field(name: $0.name.rawName, value: $0.value) }, body: body
        )
    }

    /// An error's answer, as ``ErrorResponse`` writes it.
    init(_ error: GatewayError, requestID: String, now: Double) {
        self.init(status: error.status, fields: ErrorResponse.fields(error), body: Array(ErrorResponse.json(error, requestID: requestID, now: now).utf8))
    }

    /// The answer to send; `replayed` marks one this request did not run (`Idempotent-Replayed: true`, as Stripe and
    /// others name it; the draft defines no such field).
    func response(replayed: Bool) -> Response {
        var fields = HTTPFields()
        for field in self.fields {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        if replayed { fields[Self.replayedHeader] = "true" }
        return Response(status: Self.status(self.status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.body)))
    }

    /// The status with its reason phrase, for the codes a function or the gateway answers.
    private static func status(_ code: Int) -> HTTPResponse.Status {
        let known: [HTTPResponse.Status] = [
            .ok, .accepted, .badRequest, .unauthorized, .forbidden, .notFound, .requestTimeout, .conflict, .contentTooLarge,
            .unprocessableContent, .tooManyRequests, .internalServerError, .badGateway, .serviceUnavailable, .gatewayTimeout,
        ]
        return known.first { $0.code == code } ?? HTTPResponse.Status(code: code)
    }
}
