import Foundation
import Testing

/// The error codes agree in three places: what the gateway's sources can produce, the error table of docs/functions.md, and the
/// document (`x-error-codes`, and each response's `error.code` enum under its status).
@Suite struct OpenAPIErrorCodeTests {
    let document: OpenAPIDescription

    init() throws {
        self.document = try OpenAPIDescription()
    }

    /// Every `code: "…"` literal in the gateway's and the functions' sources: the codes a client can receive.
    static func sourceCodes() throws -> Set<String> {
        let pattern = try NSRegularExpression(pattern: #"code: "([A-Z][A-Z_]*)""#)
        var codes: Set<String> = []
        for file in Repository.swiftFiles(under: "Sources/Gateway") + Repository.swiftFiles(under: "Sources/StoryFunctions") {
            let text = try Repository.text(file)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { codes.insert(String(text[range])) }
            }
        }
        return codes
    }

    /// The "Errors" table of docs/functions.md: `| 401 | `UNAUTHENTICATED` | … |`.
    static func docsCodes() throws -> [(status: Int, code: String)] {
        let pattern = try NSRegularExpression(pattern: #"^\| (\d{3}) \| `([A-Z_]+)` \|"#, options: .anchorsMatchLines)
        let text = try Repository.text("docs/functions.md")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            guard let status = Range(match.range(at: 1), in: text), let code = Range(match.range(at: 2), in: text) else { return nil }
            return (Int(text[status]) ?? 0, String(text[code]))
        }
    }

    @Test func theDocumentListsExactlyTheCodesTheSourcesProduce() throws {
        let sources = try Self.sourceCodes()
        let documented = Set(self.document.errorTable.map(\.code))
        #expect(sources.count >= 10, "the scan found \(sources.sorted())")
        #expect(documented == sources, "only in the sources: \(sources.subtracting(documented).sorted()); only documented: \(documented.subtracting(sources).sorted())")
    }

    @Test func everyDocsCodeIsDocumentedWithItsStatus() throws {
        let documentedHere = try Self.docsCodes()
        #expect(documentedHere.count >= 13, "the error table of docs/functions.md was not found")
        let table = Set(self.document.errorTable.map { "\($0.status) \($0.code)" })
        for entry in documentedHere {
            #expect(table.contains("\(entry.status) \(entry.code)"), "docs/functions.md's \(entry.status) \(entry.code) is not in x-error-codes")
        }
    }

    /// Each response's codes are listed under that status; each listed code is answered somewhere (or is marked
    /// `proxiedRoutesOnly`: the proxied routes are configured, not described in the document) (405, 400
    /// `MALFORMED_REQUEST` and 431, which any path can answer, are the reusable responses `MethodNotAllowed`,
    /// `MalformedRequest` and `HeadersTooLarge`).
    @Test func responsesUseOnlyListedCodesAndEveryListedCodeIsUsed() {
        let table = Set(self.document.errorTable.map { "\($0.status) \($0.code)" })
        var used: Set<String> = []
        for operation in self.document.operations {
            for (status, response) in self.document.responses(operation) {
                for code in self.document.errorCodes(response) ?? [] {
                    #expect(table.contains("\(status) \(code)"), "\(operation.method) \(operation.path) answers \(status) \(code), not in x-error-codes")
                    used.insert("\(status) \(code)")
                }
            }
        }
        // Codes only the configured proxied routes answer: they have no operation here.
        for entry in self.document.root["x-error-codes"].array where entry["proxiedRoutesOnly"].bool == true {
            if let status = entry["status"].int, let code = entry["code"].string { used.insert("\(status) \(code)") }
        }
        let methodNotAllowed = self.document.root["components"]["responses"]["MethodNotAllowed"]
        if self.document.errorCodes(methodNotAllowed) == ["METHOD_NOT_ALLOWED"] { used.insert("405 METHOD_NOT_ALLOWED") }
        for (name, status, code) in [("MalformedRequest", 400, "MALFORMED_REQUEST"), ("HeadersTooLarge", 431, "HEADERS_TOO_LARGE")]
        where self.document.errorCodes(self.document.root["components"]["responses"][name]) == [code] {
            used.insert("\(status) \(code)")
        }
        #expect(self.document.headers(methodNotAllowed)["Allow"]?["required"].bool == true)
        #expect(used == table, "listed but never answered: \(table.subtracting(used).sorted())")
    }
}
