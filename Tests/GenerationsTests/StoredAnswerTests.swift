import Generations
import Testing

@Suite("StoredAnswer encoding")
struct StoredAnswerTests {
    @Test("encoded and read back: status, fields in order, a body of any bytes")
    func roundTrip() throws {
        for answer in [StoredAnswer.binaryOK, .unavailable, StoredAnswer(status: 204, fields: [], body: [])] {
            #expect(StoredAnswer(encoded: answer.encoded()) == answer)
        }
        // A body that looks like more fields stays a body.
        let tricky = StoredAnswer(status: 200, fields: [.init(name: "a", value: "")], body: Array("b\nc\n\n".utf8))
        #expect(StoredAnswer(encoded: tricky.encoded()) == tricky)
    }

    @Test("the documented form: a1, status, field count, name and value lines, then the body")
    func form() {
        let answer = StoredAnswer(status: 200, fields: [.init(name: "content-type", value: "text/plain")], body: Array("hi".utf8))
        #expect(answer.encoded() == Array("a1\n200\n1\ncontent-type\ntext/plain\nhi".utf8))
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "a1", "a1\n", "a2\n200\n0\n", "a1\n200\n", "a1\n99\n0\n", "a1\n600\n0\n", "a1\nok\n0\n", "a1\n200\n-1\n",
            "a1\n200\n257\n", "a1\n200\n1\nname-only\n", "a1\n200\n2\na\nb\n", "a1\n200\nx\n",
        ]
    )
    func malformed(_ text: String) {
        #expect(StoredAnswer(encoded: Array(text.utf8)) == nil)
    }

    @Test("only a 2xx is a success")
    func success() {
        #expect(StoredAnswer(status: 200, fields: [], body: []).isSuccess)
        #expect(StoredAnswer(status: 299, fields: [], body: []).isSuccess)
        #expect(!StoredAnswer(status: 199, fields: [], body: []).isSuccess)
        #expect(!StoredAnswer(status: 300, fields: [], body: []).isSuccess)
        #expect(!StoredAnswer.unavailable.isSuccess)
    }
}
