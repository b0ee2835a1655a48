import IDTokens
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    @Test("RFC 4648 vectors, unpadded, url alphabet", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("bytes 0xFB 0xFF use - and _")
    func urlAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("round trip of every length up to 300")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test("strictness", arguments: [
        "Zg==",     // padding
        "Zm8=",     // padding
        "+w",       // standard alphabet
        "/w",       // standard alphabet
        "Zm 9v",    // whitespace
        "Zm9v\n",   // newline
        "Z",        // length % 4 == 1
        "Zh",       // "f" is Zg: unused low bits set in the last char
        "Zm9",      // "fo" is Zm8: unused low bits set
        "Zm9vé",    // non-ASCII
        "Zm\u{0}v", // NUL
    ])
    func refusals(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("decodes a Substring")
    func substring() {
        let text = "xxZm9vxx"
        #expect(Base64URL.decode(text.dropFirst(2).dropLast(2)) == Array("foo".utf8))
    }
}
