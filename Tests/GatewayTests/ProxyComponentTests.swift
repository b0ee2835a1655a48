import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing
import UpstreamClient

@testable import Gateway
@testable import GatewayConfig

/// The proxy's pure parts: path mapping, header rules both ways, the body relay.
@Suite("Proxy components")
struct ProxyComponentTests {
    // MARK: Path mapping

    @Test("the route's prefix is replaced by the base path and the query kept")
    func prefixMapping() {
        let target = UpstreamTarget(upstream: UpstreamURL("http://h:81/base")!, path: .prefix("/api/"))
        #expect(target.url(path: "/api/hello", query: "x=1") == "http://h:81/base/hello?x=1")
        #expect(target.url(path: "/api/a/b%2Fc", query: nil) == "http://h:81/base/a/b%2Fc")
        #expect(target.url(path: "/api/", query: nil) == "http://h:81/base/")
        #expect(target.url(path: "/api/x", query: "") == "http://h:81/base/x?")
        let root = UpstreamTarget(upstream: UpstreamURL("https://[::1]/")!, path: .prefix("/v2/"))
        #expect(root.url(path: "/v2/items/7", query: "a=b&c") == "https://[::1]:443/items/7?a=b&c")
    }

    @Test("an exact route maps to the base path itself")
    func exactMapping() {
        #expect(UpstreamTarget(upstream: UpstreamURL("http://h/fn")!, path: .exact("/hook")).url(path: "/hook", query: "q=1") == "http://h:80/fn?q=1")
        #expect(UpstreamTarget(upstream: UpstreamURL("http://h")!, path: .exact("/hook")).url(path: "/hook", query: nil) == "http://h:80/")
    }

    @Test("dot segments are refused, however encoded", arguments: [
        "/api/..", "/api/../admin", "/api/a/../../x", "/api/.", "/api/./x", "/api/%2e%2e/x", "/api/%2E%2e", "/api/.%2E/x",
        "/api/%2e/x",
        // Split where an upstream splits: at an escaped slash (nginx decodes it first), a backslash, escaped or not.
        "/api/..%2fadmin", "/api/..%2Fadmin", "/api/%2e%2e%2fadmin", "/api/a%2F..%2F..%2Fx", "/api/x/..%2F", "/api/..\\admin",
        "/api/..%5cadmin", "/api/a%5C.%5Cx",
        // A name ends at `;` (Tomcat resolves `..;x` as `..`).
        "/api/..;/admin", "/api/..;x=1/admin", "/api/.;/x", "/api/..%3b/admin", "/api/a/..;", "/api/%2e%2e;v%2fadmin",
    ])
    func dotSegments(path: String) {
        let target = UpstreamTarget(upstream: UpstreamURL("http://h/base")!, path: .prefix("/api/"))
        #expect(target.url(path: path, query: nil) == nil)
    }

    @Test("names with dots are not dot segments", arguments: [
        "/api/a.b", "/api/...", "/api/.hidden", "/api/x./y", "/api/%2e%2e%2e", "/api/%2ex", "/api/a..%2fb", "/api/a%2F.b",
        "/api/;../x", "/api/x;..", "/api/..x;", "/api/%2e%2", "/api/.%2", "/api/%zz/..x",
    ])
    func notDotSegments(path: String) {
        let target = UpstreamTarget(upstream: UpstreamURL("http://h/base")!, path: .prefix("/api/"))
        #expect(target.url(path: path, query: nil) != nil)
    }

    // MARK: Request headers

    static let assertionKey = IdentityAssertionKey(Array("0123456789abcdef0123456789abcdef".utf8))!

    static func rules(forwardAuthorization: Bool = false, trusted: [String] = [], key: IdentityAssertionKey? = nil) -> UpstreamRequestHeaders {
        UpstreamRequestHeaders(
            identityHeaders: [HTTPField.Name("X-User-Id")!, HTTPField.Name("X-Forwarded-User")!],
            assertionHeader: HTTPField.Name("X-StoryGate-Identity")!, assertionKey: key,
            forwardAuthorization: forwardAuthorization, trustedProxies: trusted.compactMap(IPAddressRange.init)
        )
    }

    static func request(_ fields: [(String, String)]) -> Request {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "gateway.example", path: "/api/x", headerFields: headerFields),
            body: RequestBody(buffer: ByteBuffer())
        )
    }

    static let hostile: [(String, String)] = [
        ("Connection", "keep-alive, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"), ("TE", "trailers"), ("Trailer", "X-Sum"),
        ("Transfer-Encoding", "chunked"), ("Upgrade", "websocket"), ("Proxy-Connection", "keep-alive"), ("Proxy-Authorization", "Basic eA=="),
        ("Proxy-Anything", "x"), ("Host", "second-host"), ("Content-Length", "5"), ("Expect", "100-continue"),
        ("X-User-Id", "mallory"), ("x-user-id", "eve"), ("X-Forwarded-User", "mallory"), ("X-StoryGate-Identity", "v1.forged"),
        ("Authorization", "Bearer abc"), ("X-Request-ID", "client-id"), ("X-Forwarded-For", "6.6.6.6, 7.7.7.7"),
        ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "evil.example"), ("Forwarded", "for=6.6.6.6"),
        ("Content-Type", "application/json"), ("Cookie", "a=b"), ("X-End-To-End", "kept"),
    ]

    @Test("hop-by-hop, identity, framing and forwarding fields from an untrusted peer are replaced")
    func untrustedPeer() throws {
        let headers = try Self.rules().fields(
            for: Self.request(Self.hostile).head, requestID: "gw-1", identity: Identity(uid: "alice", source: .firebase, token: nil),
            peer: "10.0.0.9", now: 1_700_000_000
        )
        let expected: [(String, String)] = [
            ("Content-Type", "application/json"), ("Cookie", "a=b"), ("X-End-To-End", "kept"), ("X-Forwarded-For", "10.0.0.9"),
            ("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "gateway.example"), ("X-Request-ID", "gw-1"), ("Via", "1.1 storygate"),
            ("X-User-Id", "alice"),
        ]
        #expect(headers.map { "\($0.name): \($0.value)" } == expected.map { "\($0.0): \($0.1)" })
    }

    @Test("the upstream request head, written as bytes, carries exactly these fields; several Cookie fields as one")
    func headBytes() throws {
        let request = Self.request(Self.hostile + [("cookie", "c=d")]).head
        let identity = Identity(uid: "alice", source: .firebase, token: nil)
        let fields = try Self.rules().fields(for: request, requestID: "gw-1", identity: identity, peer: "10.0.0.9", now: 1_700_000_000)
        var head = UpstreamRequestHead(method: .post, path: "/base/x?y=1", authority: "127.0.0.1:9000", allocator: ByteBufferAllocator())
        try Self.rules().write(for: request, requestID: "gw-1", identity: identity, peer: "10.0.0.9", now: 1_700_000_000, into: &head)
        head.end(clientSentLength: false)
        let expected =
            "POST /base/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n"
            + fields.map { "\($0.name.rawName): \($0.value)\r\n" }.joined() + "content-length: 0\r\n\r\n"
        #expect(String(buffer: head.bytes) == expected)
        #expect(fields[values: .cookie] == ["a=b; c=d"])
    }

    @Test("a field that may come once: absent, its value, or several (names compared without case)")
    func soleField() {
        var fields = HTTPFields()
        #expect(fields.sole(.authorization) == .absent)
        fields.append(HTTPField(name: HTTPField.Name("authorization")!, value: "Bearer a"))
        #expect(fields.sole(.authorization) == .one("Bearer a"))
        fields.append(HTTPField(name: .authorization, value: "Bearer a"))
        #expect(fields.sole(.authorization) == .several)
        #expect(fields.sole(.contentLength) == .absent)
    }

    @Test("X-User-Id carries a uid only as it is: none with a control character or a space at either end")
    func carriedUIDs() throws {
        for uid in ["alice", "a b", "élodie", "用户", "a:b@c", String(repeating: "z", count: 128)] {
            #expect(UpstreamRequestHeaders.canCarry(uid), "\(uid)")
        }
        for uid in ["alice ", " alice", "\talice", "a\u{0}b", "a\u{1F}b", "a\u{7F}b", "a\nb"] {
            #expect(!UpstreamRequestHeaders.canCarry(uid), "\(uid.debugDescription)")
            #expect(throws: GatewayError.uidNotForwardable()) {
                try Self.rules().fields(
                    for: Self.request([]).head, requestID: "r", identity: Identity(uid: uid, source: .firebase, token: nil), peer: nil, now: 0
                )
            }
        }
    }

    @Test("Via: the gateway's hop after those the client's request passed (RFC 9110 §7.6.3)")
    func via() throws {
        let rules = Self.rules()
        let plain = try rules.fields(for: Self.request([]).head, requestID: "gw-1", identity: nil, peer: "10.0.0.9", now: 1_700_000_000)
        #expect(plain["Via"] == ["1.1 storygate"])
        let relayed = try rules.fields(
            for: Self.request([("Via", "1.1 cdn-edge, 1.0 corp-proxy"), ("Via", "1.1 lb")]).head, requestID: "gw-1", identity: nil,
            peer: "10.0.0.9", now: 1_700_000_000
        )
        #expect(relayed["Via"] == ["1.1 cdn-edge, 1.0 corp-proxy", "1.1 lb", "1.1 storygate"])
    }

    @Test("from a trusted proxy: X-Forwarded-For appended to, -Proto, -Host and Forwarded believed")
    func trustedPeer() throws {
        let headers = try Self.rules(trusted: ["10.0.0.0/8"]).fields(
            for: Self.request(Self.hostile + [("X-Forwarded-For", "8.8.8.8")]).head, requestID: "gw-1", identity: nil, peer: "10.0.0.9",
            now: 1_700_000_000
        )
        #expect(headers["X-Forwarded-For"] == ["6.6.6.6, 7.7.7.7, 8.8.8.8, 10.0.0.9"])
        #expect(headers["X-Forwarded-Proto"] == ["https"])
        #expect(headers["X-Forwarded-Host"] == ["evil.example"])
        #expect(headers["Forwarded"] == ["for=6.6.6.6"])
        #expect(headers["X-User-Id"].isEmpty)
        #expect(headers["X-Forwarded-User"].isEmpty)
        #expect(headers["X-StoryGate-Identity"].isEmpty)
    }

    @Test("Authorization is forwarded only where the route says so")
    func authorization() throws {
        let request = Self.request([("Authorization", "Bearer abc")])
        #expect(try Self.rules().fields(for: request.head, requestID: "r", identity: nil, peer: nil, now: 0)["Authorization"].isEmpty)
        #expect(try Self.rules(forwardAuthorization: true).fields(for: request.head, requestID: "r", identity: nil, peer: nil, now: 0)["Authorization"] == ["Bearer abc"])
        // Kept apart from the fields (as the request head reader does): the same rule.
        for forward in [false, true] {
            var fields = HTTPFields()
            try Self.rules(forwardAuthorization: forward).write(
                for: Self.request([]).head, authorization: "Bearer abc", requestID: "r", identity: nil, peer: nil, now: 0, into: &fields
            )
            #expect(fields[values: .authorization] == (forward ? ["Bearer abc"] : []))
        }
    }

    @Test("with a key, a verified caller gets a fresh assertion that verifies with it (and not with another)")
    func assertion() throws {
        let headers = try Self.rules(key: Self.assertionKey).fields(
            for: Self.request([("X-StoryGate-Identity", "v1.forged")]).head, requestID: "gw-7",
            identity: Identity(uid: "alice", source: .firebase, token: nil), peer: "127.0.0.1", now: 1_700_000_000
        )
        let values = headers["X-StoryGate-Identity"]
        #expect(values.count == 1)
        let assertion = try IdentityAssertion.verify(header: values[0], key: Self.assertionKey, now: 1_700_000_001)
        #expect(assertion == IdentityAssertion(uid: "alice", requestID: "gw-7", issuedAt: 1_700_000_000))
        let other = IdentityAssertionKey(Array("another key of at least 32 bytes!!".utf8))!
        #expect(throws: IdentityAssertionError.self) { try IdentityAssertion.verify(header: values[0], key: other, now: 1_700_000_001) }
        // No caller: no identity, no assertion.
        let anonymous = try Self.rules(key: Self.assertionKey).fields(
            for: Self.request([]).head, requestID: "gw-8", identity: nil, peer: nil, now: 1_700_000_000
        )
        #expect(anonymous["X-StoryGate-Identity"].isEmpty)
        #expect(anonymous["X-User-Id"].isEmpty)
    }

    // MARK: Response headers

    @Test("Connection: close is a token, in any case, among others", arguments: [
        ("close", true), ("Close", true), ("keep-alive, CLOSE", true), (" close ,x", true), ("\tclose", true),
        ("keep-alive", false), ("closed", false), ("x-close", false), ("", false), (",", false),
        ("close,", true), (",close", true), ("a, b ,CLOSE", true), ("clos", false), ("c lose", false), ("close-x", false),
    ])
    func connectionClose(_ value: String, closes: Bool) {
        #expect(HopByHopHeaders.listsClose(value) == closes)
    }

    @Test("the fields Connection names: keep-alive names none, several Connection fields are one list", arguments: [
        (["keep-alive"], []), (["Keep-Alive"], []), ([" keep-alive\t"], []), (["keep-alive, X-Hop"], ["x-hop"]),
        (["X-A ,x-b"], ["x-a", "x-b"]), (["keep-alive", "X-C"], ["x-c"]), (["keep-alivex"], ["keep-alivex"]),
        (["close"], ["close"]), ([",,"], []), ([String]() , []),
    ] as [([String], [String])])
    func connectionOptions(_ values: [String], named: [String]) {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .connection, value: value)) }
        #expect(Set(HopByHopHeaders.connectionOptions(fields).map(\.canonicalName)) == Set(named))
    }

    @Test("hop-by-hop response fields are removed, end-to-end ones and Content-Length kept")
    func responseFields() {
        var upstream = HTTPFields()
        for (name, value) in [
            ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"), ("Transfer-Encoding", "chunked"),
            ("Upgrade", "h2c"), ("Trailer", "X-Sum"), ("TE", "trailers"), ("Proxy-Authenticate", "Basic"), ("Proxy-Status", "up"),
            ("Content-Length", "12"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("X-End-To-End", "kept"),
        ] {
            upstream.append(HTTPField(name: HTTPField.Name(name)!, value: value))
        }
        let fields = HopByHopHeaders.responseFields(upstream)
        #expect(fields.map { "\($0.name): \($0.value)" } == [
            "Proxy-Status: up", "Content-Length: 12", "Set-Cookie: a=1", "Set-Cookie: b=2", "X-End-To-End: kept",
        ])
    }
}

extension HTTPFields {
    /// Every value of the field called `name` (test shorthand).
    fileprivate subscript(_ name: String) -> [String] {
        self[values: HTTPField.Name(name)!]
    }
}
