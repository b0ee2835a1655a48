import CurlHTTP
import FoundationEssentials
@testable import MockOpenAI
import Testing

@Suite("Recording")
struct RecordingTests {
    @Test func requestsAreKeptInMemoryAsSent() async throws {
        try await withMockServer { mock in
            _ = try await mock.post("/chat/completions", json: chatBody())
            _ = try await mock.post("/moderations", json: #"{"input":"x"}"#, key: nil)  // refused, still recorded
            let requests = mock.server.requests
            #expect(requests.count == 2)
            #expect(requests.map(\.sequence) == [1, 2])
            #expect(requests.first?.endpoint == .chatCompletions)
            #expect(requests.first?.method == "POST")
            #expect(requests.first?.path == "/v1/chat/completions")
            #expect(requests.first?.contentType == "application/json")
            #expect(requests.first?.bodyText == chatBody())
            #expect(requests.last?.endpoint == .moderations)
        }
    }

    @Test func memoryIsBoundedToTheNewest() async throws {
        try await withMockServer({ $0.recordLimit = 3 }) { mock in
            for index in 1...5 {
                _ = try await mock.post("/moderations", json: #"{"input":"\#(index)"}"#)
            }
            #expect(mock.server.requests.map(\.sequence) == [3, 4, 5])
            #expect(mock.server.requests.last?.bodyText == #"{"input":"5"}"#)
        }
    }

    @Test func requestsAreWrittenToTheDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mockopenai-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        try await withMockServer({ $0.recordDirectory = directory }) { mock in
            _ = try await mock.post("/chat/completions", json: chatBody())
            _ = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#)
            _ = try await mock.post("/images/generations", json: #"{"prompt":"fox"}"#)
            var form = MultipartBody()
            form.field("prompt", "The hero")
            form.field("model", "gpt-image-1")
            form.file("image", filename: "hero.png", contentType: "image/png", CannedProvider.png)
            _ = try await mock.post("/images/edits", body: form.finished(), contentType: form.contentType)
            _ = try await mock.post("/moderations", json: #"{"input":"x"}"#)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files == [
            "0001-chat.completions.json", "0002-audio.speech.json", "0003-images.generations.json", "0004-images.edits.json",
            "0005-moderations.json",
        ])
        let chat = try Data(contentsOf: URL(fileURLWithPath: directory + "/0001-chat.completions.json"))
        #expect(String(decoding: chat, as: UTF8.self) == chatBody())
        let edit = try Data(contentsOf: URL(fileURLWithPath: directory + "/0004-images.edits.json"))
        #expect(JSONValue.parse(Array(edit)) == .object([
            "prompt": .string("The hero"), "model": .string("gpt-image-1"), "image": .string("<binary 70 bytes>"),
        ]))
    }
}
