@testable import Revocation
import Testing

/// Identity Toolkit's `accounts:lookup` answers, read as the Admin SDK reads them.
@Suite struct LookupResponseTests {
    @Test(arguments: [
        (#"{"kind":"identitytoolkit#GetAccountInfoResponse"}"#, UserAccountState.deleted),
        (#"{"users":[]}"#, .deleted),
        (#"{"users":[{"localId":"u"}]}"#, .active(disabled: false, validSince: nil)),
        (#"{"users":[{"localId":"u","disabled":true}]}"#, .active(disabled: true, validSince: nil)),
        (#"{"users":[{"localId":"u","disabled":false,"validSince":"1700000000"}]}"#, .active(disabled: false, validSince: 1_700_000_000)),
        // Only the first user counts.
        (#"{"users":[{"localId":"u"},{"localId":"v","disabled":true}]}"#, .active(disabled: false, validSince: nil)),
    ])
    func reads(body: String, expected: UserAccountState) throws {
        #expect(try LookupResponse.state(from: Array(body.utf8)) == expected)
    }

    @Test(arguments: ["", "[]", #"{"users":{}}"#, #"{"users":[{"validSince":1700000000}]}"#, #"{"users":[{"validSince":"17e8"}]}"#, #"{"users":[{"validSince":"-1"}]}"#, #"{"users":[{"disabled":"yes"}]}"#])
    func refuses(body: String) {
        #expect(throws: AccountLookupError.invalidResponse) { try LookupResponse.state(from: Array(body.utf8)) }
    }
}

/// The admin route's body: exactly one of the two shapes.
@Suite struct RevocationDropRequestTests {
    @Test func readsBothShapesInOrderWithoutDuplicates() throws {
        #expect(try RevocationDropRequest.uids(from: Array(#"{"uid":"a"}"#.utf8)) == ["a"])
        #expect(try RevocationDropRequest.uids(from: Array(#"{"uids":["b","a","b"]}"#.utf8)) == ["b", "a"])
        #expect(try RevocationDropRequest.uids(from: Array(#"{"uid":"\u00e9t\u00e9"}"#.utf8)) == ["été"])
    }

    @Test func boundsTheCountAndLength() {
        let thousand = "{\"uids\":[" + (0..<1000).map { "\"u\($0)\"" }.joined(separator: ",") + "]}"
        #expect((try? RevocationDropRequest.uids(from: Array(thousand.utf8)))?.count == 1000)
        let tooMany = "{\"uids\":[" + (0...1000).map { "\"u\($0)\"" }.joined(separator: ",") + "]}"
        #expect(throws: RevocationDropRequest.Problem.self) { try RevocationDropRequest.uids(from: Array(tooMany.utf8)) }
        let long = "{\"uid\":\"" + String(repeating: "x", count: 129) + "\"}"
        #expect(throws: RevocationDropRequest.Problem.self) { try RevocationDropRequest.uids(from: Array(long.utf8)) }
    }
}
