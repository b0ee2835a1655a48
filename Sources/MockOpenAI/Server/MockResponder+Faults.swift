import HTTPTypes
import HummingbirdCore
import NIOCore
import OpenAI
import ServiceLifecycle

extension MockResponder {
    /// Carries out one scripted fault in place of the normal answer.
    func perform(
        _ fault: MockFault, endpoint: MockEndpoint, bytes: [UInt8], contentType: String?, context: EndpointContext,
        writer: consuming ResponseWriter, channel: any Channel
    ) async throws {
        switch fault {
        case .status(let status, let retryAfter):
            try await self.sleepLatency()
            try await Self.write(MockAPIError.scripted(status: status, retryAfter: retryAfter), to: writer)
        case .hang:
            try await Self.hang(channel)
            throw ConnectionDropped()
        case .reset:
            try await self.sleepLatency()
            throw ConnectionDropped()
        case .malformedJSON:
            try await self.sleepLatency()
            let garbage = MockAnswer(contentType: "application/json", body: Array(#"{"choices": [{"index": 0, "message": {"role": "assis\#u{1}\#u{0}<html>garbage"#.utf8))
            try await Self.write(garbage, to: writer)
        case .slowBody(let delay):
            let answer: MockAnswer
            do {
                answer = try await self.answer(endpoint, bytes, contentType, context)
            } catch {
                try await self.sleepLatency()
                return try await Self.write(error, to: writer)
            }
            try await self.sleepLatency()
            let half = answer.body.count / 2
            var body = try await writer.writeHead(Self.head(status: answer.status, contentType: answer.contentType, length: answer.body.count))
            try await body.write(ByteBuffer(bytes: answer.body[..<half]))
            try await Task.sleep(for: delay)
            try await body.write(ByteBuffer(bytes: answer.body[half...]))
            try await body.finish(nil)
        case .refusal:
            try await self.sleepLatency()
            switch Self.refusal(endpoint, bytes, context) {
            case .success(let answer): try await Self.write(answer, to: writer)
            case .failure(let error): try await Self.write(error, to: writer)
            }
        }
    }

    /// The content-policy answer of `endpoint`.
    static func refusal(_ endpoint: MockEndpoint, _ bytes: [UInt8], _ context: EndpointContext) -> Result<MockAnswer, MockAPIError> {
        Result { () throws(MockAPIError) -> MockAnswer in
            switch endpoint {
            case .chatCompletions:
                let model = try ChatCompletionsEndpoint.request(bytes).model
                return ChatCompletionsEndpoint.refusal(model: model, context)
            case .moderations:
                return try ModerationsEndpoint.flagged(bytes, context)
            case .audioSpeech, .imagesGenerations, .imagesEdits:
                throw MockAPIError.contentPolicy
            }
        }
    }

    /// Returns once the client has closed the connection, the server is shutting down, or the task is cancelled.
    static func hang(_ channel: any Channel) async throws {
        try? await channel.pipeline.addHandler(ClientGoneHandler(), position: .first).get()
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                try? await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}
