import Foundation
import IDTokens
import Testing

/// JSON string literals as RFC 8259 §7 requires them: `"`, `\` and control characters escaped, everything else
/// (non-ASCII included) as it is; plain text takes the fast path, and both paths read back as the same text.
@Suite("JSON writer")
struct JSONWriterTests {
    @Test("escaped exactly where RFC 8259 requires, read back unchanged", arguments: [
        ("", #""""#),
        ("plain-ascii_id.123", #""plain-ascii_id.123""#),
        ("a \"quote\" and a \\", #""a \"quote\" and a \\""#),
        ("line\nfeed\r\ttab", #""line\nfeed\r\ttab""#),
        ("\u{08}\u{0C}\u{01}\u{1F}", #""\b\f\u0001\u001f""#),
        ("héros ✨ 物語 \u{7F}", "\"héros ✨ 物語 \u{7F}\""),
        ("/api/x?y=</script>", #""/api/x?y=</script>""#),
    ])
    func quoted(_ text: String, expected: String) throws {
        #expect(JSONWriter.quoted(text) == expected)
        var appended = "["
        JSONWriter.appendQuoted(text, to: &appended)
        appended += "]"
        #expect(appended == "[" + expected + "]")
        let decoded = try JSONSerialization.jsonObject(with: Data(appended.utf8)) as? [String]
        #expect(decoded == [text])
    }
}
