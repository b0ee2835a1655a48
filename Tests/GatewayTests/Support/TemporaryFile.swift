import Foundation

/// A file with `contents` in the temporary directory, removed after `body`.
func withTemporaryFile<T>(_ contents: String, _ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-\(UUID().uuidString)").path
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The same, for an async `body`.
func withTemporaryFile<T>(_ contents: String, _ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-\(UUID().uuidString)").path
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
