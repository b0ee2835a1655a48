import Foundation
import Logging
import OpenAI
import StoryFunctions

/// A service over a provider and a `FileMediaStore` in its own temporary directory (removed by `close()`).
struct TestFixture {
    let service: StoryFunctionsService
    let store: FileMediaStore
    let directory: String

    static let alice = Caller(uid: "uid-alice", safetyIdentifier: "hash-alice")
    static let bob = Caller(uid: "uid-bob", safetyIdentifier: "hash-bob")

    init(provider: any AIProvider = OfflineProvider(), models: AIModels = .init()) {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("storyfunctions-\(UUID().uuidString)/media").path
        self.store = FileMediaStore(directory: self.directory)
        self.service = StoryFunctionsService(
            provider: provider, media: self.store, models: models,
            logger: Logger(label: "StoryFunctionsTests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
    }

    func close() {
        try? FileManager.default.removeItem(atPath: (self.directory as NSString).deletingLastPathComponent)
    }

    /// The key of a `/media/<key>` URL.
    static func key(ofURL url: String) -> String {
        String(url.dropFirst("/media/".count))
    }
}

/// Bytes of a JSON value written as a Swift dictionary.
func body(_ object: Any) -> [UInt8] {
    [UInt8](try! JSONSerialization.data(withJSONObject: object))
}

func body(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A response body as a dictionary.
func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

import Testing

/// Runs `call` and returns the `FunctionError` it throws (a test failure if it succeeds).
func expectFunctionError(
    _ call: () async throws(FunctionError) -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation
) async -> FunctionError? {
    do {
        _ = try await call()
        Issue.record("expected a FunctionError", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

enum Bodies {
    static var hero: [String: Any] { [
        "name": "Mila", "primary_trait": "brave", "secondary_trait": "curious",
        "appearance": "red boots and a yellow raincoat", "special_ability": "talks to birds", "age": 7,
    ] }

    static func story(duration: Int = 300, language: String = "en", custom: Bool = false) -> [String: Any] {
        let event: [String: Any] = custom
            ? ["type": "custom", "data": ["title": "Lost kite", "description": "The kite flies away over the hill.",
                                          "tone": "gentle", "keywords": ["kite", "wind"]]]
            : ["type": "built_in", "data": ["name": "First day of school"]]
        return ["hero": hero, "hero_id": "hero-1", "event": event, "target_duration": duration, "language": language]
    }

    static var scenes: [String: Any] { [
        "story_content": "Mila woke up early. She saw a bird. The bird sang a song. They flew to the hill. "
            + "The kite was there. Everyone went home happy.",
        "target_scene_count": 3,
    ] }

    static func audio(_ text: String = "Once upon a time there was a brave girl. She loved birds.", speed: Double? = nil) -> [String: Any] {
        var body: [String: Any] = ["text": text, "language": "en", "voice": "coral"]
        if let speed { body["speed"] = speed }
        return body
    }

    static var avatar: [String: Any] { [
        "hero_id": "hero-1", "prompt": "A brave girl with red boots", "style": "vivid", "quality": "hd", "size": "1792x1024",
    ] }

    static func illustration(hero: String? = nil) -> [String: Any] {
        var body: [String: Any] = ["story_id": "story-1", "scene_number": 2, "prompt": "Mila on the hill with her kite", "style": "natural"]
        if let hero { body["hero_generation_id"] = hero }
        return body
    }
}
