import Foundation
import Synchronization
import TestSupport

/// Writes every request body the fake OpenAI received to `<package root>/.build/openai-requests/<endpoint>-<n>.json`
/// (endpoint path with `.` for `/`, e.g. `chat.completions-3.json`), for a separate validator that checks them
/// against openapi.yaml. A multipart body is written as a JSON object of its text fields plus `"image": "<binary>"`.
/// Failures to write are ignored.
enum RequestArchive {
    private static let counters = Mutex<[String: Int]>([:])

    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // OpenAITests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent(".build/openai-requests", isDirectory: true)

    /// `/v1/images/edits` → `images.edits`.
    static func endpointName(_ path: String) -> String {
        var trimmed = path.split(separator: "?").first.map(String.init) ?? path
        if trimmed.hasPrefix("/v1/") { trimmed.removeFirst(4) }
        return trimmed.split(separator: "/").joined(separator: ".")
    }

    /// Creates the directory once per test process. It is not emptied: other suites in the same test
    /// process may write there too; numbering restarts at 1 each run, so files are overwritten.
    private static let prepared: Bool = {
        (try? FileManager.default.createDirectory(at: RequestArchive.directory, withIntermediateDirectories: true)) != nil
    }()

    static func record(_ request: LocalRequest) {
        guard Self.prepared else { return }
        let name = Self.endpointName(request.path)
        guard !name.isEmpty else { return }
        let bytes: Data
        let contentType = request.header("Content-Type") ?? ""
        if contentType.hasPrefix("multipart/form-data"),
            let boundary = contentType.components(separatedBy: "boundary=").last,
            let form = MultipartParts(body: request.body, boundary: boundary)
        {
            var object: [String: Any] = [:]
            for part in form.parts {
                object[part.name] = part.filename == nil ? part.text : "<binary>"
            }
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]) else { return }
            bytes = data
        } else {
            bytes = Data(request.body)
        }
        let n = Self.counters.withLock { counters in
            counters[name, default: 0] += 1
            return counters[name]!
        }
        try? bytes.write(to: Self.directory.appendingPathComponent("\(name)-\(n).json"))
    }
}
