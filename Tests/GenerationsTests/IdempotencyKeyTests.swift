import Generations
import Testing

@Suite("Idempotency-Key field")
struct IdempotencyKeyTests {
    @Test("a structured-field string is a key; its parameters are ignored")
    func accepted() throws {
        #expect(try IdempotencyKey(fieldValue: #""8e03978e-40d5-43e8-bc93-6894a57f9324""#).value == "8e03978e-40d5-43e8-bc93-6894a57f9324")
        #expect(try IdempotencyKey(fieldValue: #""a \"quoted\" key";p=1"#).value == #"a "quoted" key"#)
        #expect(try IdempotencyKey(fieldValue: "\"" + String(repeating: "k", count: 255) + "\"").value.count == 255)
        #expect(try IdempotencyKey.parse([#""once""#])?.value == "once")
        #expect(try IdempotencyKey.parse([]) == nil)
    }

    @Test(
        "a token, an integer, a boolean, unquoted text, a list, nothing or an unterminated string is not a string",
        arguments: ["abc", "42", "4.5", "?1", "not a key", #""a", "b""#, "", #""unterminated"#]
    )
    func notAString(_ value: String) {
        #expect(throws: IdempotencyKey.Problem.notAString) { try IdempotencyKey(fieldValue: value) }
    }

    @Test("an empty string, or one longer than 255 characters, has a bad length")
    func badLength() {
        #expect(throws: IdempotencyKey.Problem.badLength) { try IdempotencyKey(fieldValue: #""""#) }
        #expect(throws: IdempotencyKey.Problem.badLength) { try IdempotencyKey(fieldValue: "\"" + String(repeating: "k", count: 256) + "\"") }
    }

    @Test("the field given twice is refused, even with the same value")
    func repeated() {
        #expect(throws: IdempotencyKey.Problem.repeated) { try IdempotencyKey.parse([#""a""#, #""a""#]) }
    }
}
