/// `GET /__mock/calls`: how many requests each endpoint has received, for a script in another process, e.g.
/// `{"chat.completions": 3, "audio.speech": 0, "images.generations": 0, "images.edits": 0, "moderations": 3, "total": 6}`
/// (the endpoints named as in recorded files). It needs no API key, waits no latency, and is neither counted nor
/// recorded itself.
enum CallCountsEndpoint {
    static let path = "/__mock/calls"

    /// Whether `path` (query string removed, one trailing slash tolerated) is this endpoint's.
    static func matches(_ path: String) -> Bool {
        var path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path == Self.path
    }

    /// The counts as JSON, every endpoint in ``MockEndpoint/allCases`` order (zeros included), then `total`.
    static func answer(_ counts: [MockEndpoint: Int]) -> MockAnswer {
        let members = MockEndpoint.allCases.map { "\"\($0.rawValue)\": \(counts[$0] ?? 0)" }
        let total = counts.values.reduce(0, +)
        let json = "{" + (members + ["\"total\": \(total)"]).joined(separator: ", ") + "}"
        return MockAnswer(contentType: "application/json", body: Array(json.utf8))
    }
}
