import Foundation
@testable import StoryFunctions
import Testing

/// The file store: round trips, ranges, metadata, key checks before any path is built, atomic writes.
@Suite struct FileMediaStoreTests {
    @Test func putReadAndMetadataRoundTrip() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory))  // created on the first put
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        let object = try await fixture.store.put(bytes, contentType: "audio/mpeg", owner: "uid-1")
        #expect(MediaKey.isWellFormed(object.key))
        #expect(object.byteCount == 1000)
        #expect(object.contentType == "audio/mpeg")
        #expect(object.owner == "uid-1")
        #expect(object.etag.hasPrefix("\"") && object.etag.hasSuffix("\""))
        #expect(try await fixture.store.metadata(object.key) == object)
        #expect(try await fixture.store.read(object.key, range: nil) == bytes)
        #expect(try await fixture.store.read(object.key, range: 10..<20) == Array(bytes[10..<20]))
        #expect(try await fixture.store.read(object.key, range: 990..<5000) == Array(bytes[990...]))
        #expect(try await fixture.store.read(object.key, range: 2000..<3000) == [])
        let empty = try await fixture.store.put([], contentType: "image/png", owner: "uid-2")
        #expect(try await fixture.store.read(empty.key, range: nil) == [])
        #expect(try await fixture.store.metadata(empty.key)?.byteCount == 0)
    }

    @Test func missingKeyIsNil() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        _ = try await fixture.store.put([1], contentType: "image/png", owner: "u")
        let missing = "0123456789abcdef0123456789abcdef"
        #expect(try await fixture.store.metadata(missing) == nil)
        #expect(try await fixture.store.read(missing, range: nil) == nil)
    }

    @Test(arguments: [
        "../secret", "..%2Fsecret", "/etc/passwd", "", String(repeating: "a", count: 1000), String(repeating: "a", count: 31),
        String(repeating: "a", count: 33), "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcdeg",
        "0123456789abcdef/123456789abcdef", "0123456789abcdef0123456789abcdé", "./0123456789abcdef0123456789abcde",
    ])
    func malformedKeysNeverReachTheFilesystem(key: String) async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        // A readable object right outside the media directory, and one named like the malformed key inside it:
        // only a store that built a path from the key could find them.
        let parent = (fixture.directory as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: fixture.directory, withIntermediateDirectories: true)
        var bases = [parent + "/secret"]
        if !key.isEmpty, !key.contains("/"), key.utf8.count < 200 { bases.append(fixture.directory + "/" + key) }
        for base in bases {
            try Data("x".utf8).write(to: URL(fileURLWithPath: base + ".bin"))
            try Data("{\"content_type\":\"image/png\",\"byte_count\":1,\"etag\":\"\\\"e\\\"\",\"owner\":\"u\"}".utf8)
                .write(to: URL(fileURLWithPath: base + ".json"))
        }
        #expect(!MediaKey.isWellFormed(key))
        #expect(try await fixture.store.metadata(key) == nil)
        #expect(try await fixture.store.read(key, range: nil) == nil)
        #expect(try await fixture.store.read(key, range: 0..<1) == nil)
    }

    @Test func writesAreAtomicAndLeaveNoTemporaryFiles() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        let objects = try await withThrowingTaskGroup(of: MediaObject.self) { group in
            for index in 0..<24 {
                group.addTask { try await fixture.store.put([UInt8](repeating: UInt8(index), count: 10_000 + index), contentType: "image/png", owner: "u\(index)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(objects.map(\.key)).count == 24)
        for object in objects {
            let index = Int(object.owner.dropFirst())!
            #expect(try await fixture.store.read(object.key, range: nil) == [UInt8](repeating: UInt8(index), count: 10_000 + index))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
        #expect(files.count == 48)
        #expect(files.allSatisfy { $0.hasSuffix(".bin") || $0.hasSuffix(".json") })
        #expect(!files.contains { $0.hasPrefix(".tmp") })
    }

    @Test func keysAreRandomAndWellFormed() {
        let keys = (0..<1000).map { _ in MediaKey.make() }
        #expect(Set(keys).count == 1000)
        #expect(keys.allSatisfy(MediaKey.isWellFormed))
    }

    @Test func unwritableDirectoryIsAStorageError() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        // A regular file where the directory should be.
        let parent = (fixture.directory as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: fixture.directory))
        await #expect(throws: FunctionError.storage) {
            _ = try await fixture.store.put([1, 2, 3], contentType: "image/png", owner: "u")
        }
        let service = fixture.service
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice)
        }
        #expect(error?.status == 500)
        #expect(error?.code == "STORAGE_ERROR")
    }
}
