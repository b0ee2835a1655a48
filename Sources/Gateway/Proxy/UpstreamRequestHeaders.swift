import GatewayConfig
import HTTPTypes
import HTTPWire
import IDTokens
import NIOHTTP1

/// How a client's request fields become the upstream request's, for one route (built once per route):
///
/// - hop-by-hop fields are removed (``HopByHopHeaders``), and so are `Host` (the client sets the upstream's),
///   `Content-Length` (set from the body being sent) and `Expect` (the body is streamed at once);
/// - identity is the gateway's alone: every client-sent `X-User-Id`, configured identity header and assertion
///   header is removed; with a verified caller, `X-User-Id: <uid>` and (with a key) a signed assertion are set —
///   and a caller whose uid a field cannot carry unchanged is refused (``canCarry(_:)``);
/// - a field whose name, read with `-` for each `_`, is one of the fields these rules remove, set or believe only from
///   a trusted peer, or a hop-by-hop field (`X_User_Id`, `X-Forwarded_For`, `Transfer_Encoding`) is removed: CGI, WSGI, Rack and PHP upstreams see both spellings
///   as one variable (`HTTP_X_USER_ID`), so it would pass for the gateway's own (nginx and Django's server drop
///   every name with `_` for this reason);
/// - `Authorization` is passed on only where the route says so;
/// - `X-Forwarded-For`, `-Proto`, `-Host` and `Forwarded` are believed only from a peer in `TRUSTED_PROXIES`:
///   from one, the client's `X-Forwarded-For` is kept and the peer appended; otherwise they are replaced by the
///   peer's address, `http` and the request's `Host`;
/// - `X-Request-ID` is the gateway's request id;
/// - `Max-Forwards` on OPTIONS and TRACE is forwarded less one (``MaxForwards``; at 0 nothing is forwarded);
/// - `Via: 1.1 storygate` is added after any `Via` the client sent (RFC 9110 §7.6.3: a gateway sends one in every
///   request it forwards; a pseudonym, not the host name). StoryGate speaks HTTP/1.1 to upstreams and names its
///   hop `1.1` (the version of an HTTP/1.0 client's request is not kept past the parser).
struct UpstreamRequestHeaders: Sendable {
    private enum Handling {
        case drop
        case forwardedFor
        case forwardedProto
        case forwardedHost
        case keepFromTrustedPeer
        case maxForwards
    }

    static let userID = HTTPField.Name("X-User-Id")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let requestID = HTTPField.Name("X-Request-ID")!
    static let via = HTTPField(name: HTTPField.Name("Via")!, value: "1.1 storygate")

    /// Fields with a rule of their own; any other field is copied unless it is hop-by-hop.
    private let handling: [HTTPField.Name: Handling]
    private let assertionName: HTTPField.Name
    private let assertionKey: IdentityAssertionKey?
    private let trustedProxies: [IPAddressRange]
    private let forwardAuthorization: Bool

    init(
        identityHeaders: [HTTPField.Name], assertionHeader: HTTPField.Name, assertionKey: IdentityAssertionKey?,
        forwardAuthorization: Bool, trustedProxies: [IPAddressRange]
    ) {
        var handling: [HTTPField.Name: Handling] = [
            HTTPField.Name("Host")!: .drop, .contentLength: .drop, .expect: .drop, Self.requestID: .drop, Self.userID: .drop,
            assertionHeader: .drop,
            Self.forwardedFor: .forwardedFor, Self.forwardedProto: .forwardedProto, Self.forwardedHost: .forwardedHost,
            Self.forwarded: .keepFromTrustedPeer, .maxForwards: .maxForwards,
        ]
        for name in identityHeaders { handling[name] = .drop }
        if !forwardAuthorization { handling[.authorization] = .drop }
        self.handling = handling
        self.assertionName = assertionHeader
        self.assertionKey = assertionKey
        self.trustedProxies = trustedProxies
        self.forwardAuthorization = forwardAuthorization
    }

    /// The upstream request's fields.
    /// - Parameters:
    ///   - peer: the TCP peer's IP address (nil when unknown).
    ///   - now: Unix seconds, for the assertion's timestamp.
    /// - Throws: `uidNotForwardable` for a caller whose uid a field cannot carry unchanged.
    func fields(
        for request: HTTPRequest, requestID: String, identity: Identity?, peer: String?, now: Double
    ) throws(GatewayError) -> HTTPFields {
        var headers = HTTPFields()
        headers.reserveCapacity(request.headerFields.count + 6)
        try self.write(for: request, requestID: requestID, identity: identity, peer: peer, now: now, into: &headers)
        return headers
    }

    /// The upstream request's fields, written to `output` (the fields of ``fields(for:requestID:identity:peer:now:)``,
    /// or the bytes of a request head). Several `Cookie` fields go on as one, joined with `; ` (RFC 9113 §8.2.3).
    /// - Parameters:
    ///   - authorization: the `Authorization` value when the request head reader kept it apart from the fields
    ///     (``RawRequestHead``): passed on after them where the route forwards it.
    ///   - appCheck: the `X-Firebase-AppCheck` value the request head reader kept apart: passed on after them.
    func write(
        for request: HTTPRequest, authorization: String? = nil, appCheck: String? = nil, requestID: String, identity: Identity?, peer: String?, now: Double,
        into output: inout some FieldOutput
    ) throws(GatewayError) {
        if let identity, !Self.canCarry(identity.uid) { throw .uidNotForwardable() }
        let source = request.headerFields
        let listed = HopByHopHeaders.connectionOptions(source)
        let peerTrusted = !self.trustedProxies.isEmpty && peer.map { peer in self.trustedProxies.contains { $0.contains(peer) } } ?? false
        var forwardedFor: String?
        var forwardedProto: String?
        var forwardedHost: String?
        var cookieWritten = false
        for field in source {
            let name = field.name
            if !listed.isEmpty, listed.contains(name) { continue }
            if let handling = self.handling[name] {
                switch handling {
                case .drop:
                    continue
                case .forwardedFor:
                    if peerTrusted { forwardedFor = forwardedFor.map { $0 + ", " + field.value } ?? field.value }
                    continue
                case .forwardedProto:
                    if peerTrusted, forwardedProto == nil { forwardedProto = field.value }
                    continue
                case .forwardedHost:
                    if peerTrusted, forwardedHost == nil { forwardedHost = field.value }
                    continue
                case .keepFromTrustedPeer:
                    if !peerTrusted { continue }
                case .maxForwards:
                    output.append(name, MaxForwards.forwarded(field.value, method: request.method))
                    continue
                }
            } else if HopByHopHeaders.isHopByHop(name) {
                continue
            } else if name == .cookie {
                guard !cookieWritten else { continue }
                cookieWritten = true
                output.append(name, source[.cookie] ?? field.value)
                continue
            } else if self.aliasesRuledField(name) {
                continue
            }
            output.append(field)
        }
        if let authorization, self.forwardAuthorization { output.append(.authorization, authorization) }
        if let appCheck { output.append(RequestRules.appCheckHeader, appCheck) }
        // `forwardedFor` is only set when the peer is known and trusted.
        if let peer {
            output.append(Self.forwardedFor, forwardedFor.map { $0 + ", " + peer } ?? peer)
        }
        output.append(Self.forwardedProto, forwardedProto ?? "http")
        if let host = forwardedHost ?? request.authority {
            output.append(Self.forwardedHost, host)
        }
        output.append(Self.requestID, requestID)
        output.append(Self.via)
        if let identity {
            output.append(Self.userID, identity.uid)
            if let key = self.assertionKey {
                output.append(self.assertionName, IdentityAssertion.sign(uid: identity.uid, requestID: requestID, now: now, key: key))
            }
        }
    }

    /// Whether `name` has a `_` and, read with `-` in its place, names a field with a rule of its own here or a
    /// hop-by-hop field (`Transfer_Encoding`, `Proxy_Authorization`, `Keep_Alive`).
    private func aliasesRuledField(_ name: HTTPField.Name) -> Bool {
        let canonical = name.canonicalName
        guard canonical.utf8.contains(UInt8(ascii: "_")) else { return false }
        return HTTPField.Name(canonical.replacing("_", with: "-")).map { self.handling[$0] != nil || HopByHopHeaders.isHopByHop($0) } ?? false
    }

    /// Whether a field value holds this uid exactly. A Firebase uid is any string of up to 128 characters, but a
    /// field value cannot hold a control character (HTTPTypes writes a space instead), and a space or tab at
    /// either end is not part of the value (RFC 9110 §5.5): `alice ` would reach the upstream as `alice`.
    static func canCarry(_ uid: String) -> Bool {
        let bytes = uid.utf8
        guard bytes.first != UInt8(ascii: " "), bytes.last != UInt8(ascii: " ") else { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
