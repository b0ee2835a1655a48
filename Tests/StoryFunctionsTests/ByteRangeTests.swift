import StoryFunctions
import Testing

/// RFC 9110 §14 single byte ranges.
@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-0", 10, ByteRange.partial(0..<1)),
        ("bytes=0-", 10, .partial(0..<10)),
        ("bytes=-5", 10, .partial(5..<10)),
        ("bytes=-50", 10, .partial(0..<10)),
        ("bytes=2-4", 10, .partial(2..<5)),
        ("bytes=9-9", 10, .partial(9..<10)),
        ("bytes=5-100", 10, .partial(5..<10)),
        ("bytes=5-99999999999999999999999", 10, .partial(5..<10)),
        ("BYTES=1-2", 10, .partial(1..<3)),
        ("  bytes=1-2  ", 10, .partial(1..<3)),
        ("bytes=10-", 10, .unsatisfiable),
        ("bytes=10-20", 10, .unsatisfiable),
        ("bytes=99999999999999999999999-", 10, .unsatisfiable),
        ("bytes=-0", 10, .unsatisfiable),
        ("bytes=0-", 0, .unsatisfiable),
        ("bytes=-5", 0, .full),
        ("bytes=5-2", 10, .full),
        ("bytes=0-1,4-5", 10, .full),
        ("bytes=-", 10, .full),
        ("bytes=a-b", 10, .full),
        ("bytes=1-2-3", 10, .full),
        ("bytes=+1-2", 10, .full),
        ("bytes= 1-2", 10, .full),
        ("items=0-1", 10, .full),
        ("bytes=", 10, .full),
        ("", 10, .full),
    ])
    func parse(header: String, length: Int, expected: ByteRange) {
        #expect(ByteRange.parse(header, length: length) == expected)
    }

    @Test func absentHeaderIsFull() {
        #expect(ByteRange.parse(nil, length: 10) == .full)
    }
}
