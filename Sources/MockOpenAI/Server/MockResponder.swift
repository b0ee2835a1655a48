import FoundationEssentials
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import OpenAI

/// Answers one request: route, method, body size, recording, authentication, latency, then the scripted
/// fault or the endpoint's normal answer. Every error goes out in OpenAI's shape from ``write(_:to:)``.
/// The mock's own `GET /__mock/calls` is answered first, at once: no key, no latency, not recorded.
struct MockResponder: Sendable {
    let configuration: MockOpenAIConfiguration
    let provider: any AIProvider
    let faults: MockFaults
    let recorder: RequestRecorder
    let logger: Logger

    /// Thrown to make HummingbirdCore close the connection without an answer (`.reset`, `.hang` ending).
    struct ConnectionDropped: Error {}

    func respond(to request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let path = request.uri.path
        if CallCountsEndpoint.matches(path) {
            guard request.method == .get else {
                return try await Self.write(.methodNotAllowed(request.method.rawValue, path, allowed: "GET"), to: writer)
            }
            return try await Self.write(CallCountsEndpoint.answer(self.recorder.counts), to: writer)
        }
        guard let endpoint = MockEndpoint(path: path) else {
            return try await self.delayed(.notFound(path), writer)
        }
        guard request.method == .post else {
            return try await self.delayed(.methodNotAllowed(request.method.rawValue, path), writer)
        }
        let limit = self.configuration.maxRequestBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return try await self.delayed(.bodyTooLarge(limit: limit), writer)
        }
        let bytes: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: limit)
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch is NIOTooManyBytesError {
            return try await self.delayed(.bodyTooLarge(limit: limit), writer)
        }
        let contentType = request.headers[.contentType]
        let recorded = self.recorder.record(
            endpoint: endpoint, method: request.method.rawValue, path: path, contentType: contentType, body: bytes
        )
        if let failure = self.authenticate(request.headers) {
            return try await self.delayed(failure, writer)
        }
        let context = EndpointContext(provider: self.provider, sequence: recorded.sequence, now: Int(Date().timeIntervalSince1970))
        guard let fault = self.faults.next(for: endpoint) else {
            let answer: MockAnswer
            do {
                answer = try await self.answer(endpoint, bytes, contentType, context)
            } catch {
                return try await self.delayed(error, writer)
            }
            try await self.sleepLatency()
            return try await Self.write(answer, to: writer)
        }
        self.logger.debug("scripted fault", metadata: ["endpoint": "\(endpoint.rawValue)", "fault": "\(fault)"])
        try await self.perform(fault, endpoint: endpoint, bytes: bytes, contentType: contentType, context: context, writer: writer, channel: channel)
    }

    /// The endpoint's normal answer, or its error.
    func answer(_ endpoint: MockEndpoint, _ bytes: [UInt8], _ contentType: String?, _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        switch endpoint {
        case .chatCompletions: try await ChatCompletionsEndpoint.answer(bytes, context)
        case .audioSpeech: try await SpeechEndpoint.answer(bytes, context)
        case .imagesGenerations: try await ImageGenerationsEndpoint.answer(bytes, context)
        case .imagesEdits: try await ImageEditsEndpoint.answer(bytes, contentType: contentType, context)
        case .moderations: try await ModerationsEndpoint.answer(bytes, context)
        }
    }

    /// `nil` when the request carries an acceptable `Authorization: Bearer` key.
    func authenticate(_ headers: HTTPFields) -> MockAPIError? {
        guard let authorization = headers[.authorization] else {
            return .invalidAPIKey("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
        }
        let prefix = "bearer "
        guard authorization.count > prefix.count, authorization.prefix(prefix.count).lowercased() == prefix else {
            return .invalidAPIKey("Incorrect API key provided: the Authorization header must be 'Bearer <key>'.")
        }
        let key = authorization.dropFirst(prefix.count).trimmingSpaces
        guard !key.isEmpty else { return .invalidAPIKey("You didn't provide an API key.") }
        if let required = self.configuration.requiredAPIKey, key != required {
            return .invalidAPIKey("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.")
        }
        return nil
    }

    func sleepLatency() async throws {
        if self.configuration.latency > .zero { try await Task.sleep(for: self.configuration.latency) }
    }

    private func delayed(_ error: MockAPIError, _ writer: consuming ResponseWriter) async throws {
        try await self.sleepLatency()
        try await Self.write(error, to: writer)
    }

    static func write(_ answer: MockAnswer, to writer: consuming ResponseWriter) async throws {
        let head = Self.head(status: answer.status, contentType: answer.contentType, length: answer.body.count)
        try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    static func write(_ error: MockAPIError, to writer: consuming ResponseWriter) async throws {
        let body = error.body.bytes
        var head = Self.head(status: error.status, contentType: "application/json", length: body.count)
        if let retryAfter = error.retryAfter { head.headerFields[.retryAfter] = String(retryAfter) }
        if let allowed = error.allowed { head.headerFields[.allow] = allowed }
        try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func head(status: Int, contentType: String, length: Int) -> HTTPResponse {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.contentLength] = String(length)
        return HTTPResponse(status: .init(code: status), headerFields: fields)
    }
}
