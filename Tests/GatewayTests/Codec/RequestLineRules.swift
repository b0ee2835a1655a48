import NIOCore
import NIOHTTP1

/// Part of the fuzz's reference stack: the request rules that need the request line as received — its HTTP version
/// and its raw target — applied between SwiftNIO's HTTP/1 decoder and the conversion to HTTP types, which drops both.
///
/// Refused (``FaultyFraming``), nothing of the request passed on:
/// - an HTTP/1.0 request with `Transfer-Encoding`: faulty framing (RFC 9112 §6.1: the sender may have kept part of
///   the message, and whatever follows could be read as another request — a smuggling vector);
/// - an HTTP/1.1 request without `Host` (RFC 9112 §3.2: a server MUST answer 400). An HTTP/1.0 one may have none
///   (health checks often send none). A second `Host` line is refused by ``RequestFraming``, for every version;
/// - a request target with a fragment (`#`): no form of request-target has one (RFC 9112 §3.2), and left in, the
///   gateway and an upstream could read the path two ways — `/open/x#/../admin` routed on one reading and served on
///   another (HAProxy's CVE-2023-45539; Envoy and HAProxy refuse it too).
///
/// Rewritten:
/// - an absolute-form target (`GET http://host/path`) names the host itself, and the server must use it instead of
///   `Host` (RFC 9112 §3.2.2), so its authority replaces `Host` (the conversion keeps only the path);
/// - an HTTP/1.0 request without the `keep-alive` option gets `Connection: close`: such a connection closes after
///   the answer (RFC 9112 §9.3), and once the version is gone only that field can say so.
final class RequestLineRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Set once a request is refused: nothing more of the connection is passed on.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refused else { return }
        guard case .head(var head) = self.unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        guard Self.isAcceptable(head) else {
            self.refused = true
            context.fireErrorCaught(FaultyFraming())
            return
        }
        if let authority = Self.absoluteFormAuthority(head.uri) {
            head.headers.replaceOrAdd(name: "Host", value: authority)
        }
        if Self.closesAfterAnswer(head) {
            // Said the way an HTTP/1.1 request says it: the answer carries `Connection: close`, and the connection
            // closes once it is written.
            head.headers.add(name: "Connection", value: "close")
        }
        context.fireChannelRead(self.wrapInboundOut(.head(head)))
    }

    static func isAcceptable(_ head: HTTPRequestHead) -> Bool {
        guard !head.uri.utf8.contains(UInt8(ascii: "#")) else { return false }
        return switch head.version {
        case .http1_0: !head.headers.contains(name: "transfer-encoding")
        case .http1_1: head.headers.contains(name: "host")
        default: true
        }
    }

    /// An HTTP/1.0 request without the `keep-alive` option: the connection closes after its answer (RFC 9112 §9.3).
    static func closesAfterAnswer(_ head: HTTPRequestHead) -> Bool {
        head.version == .http1_0 && !head.isKeepAlive
    }

    /// The authority of an absolute-form `http` or `https` target, without userinfo (RFC 9110 §4.2.4); nil for
    /// any other form (`/path`, `*`, `host:port`).
    static func absoluteFormAuthority(_ target: String) -> String? {
        guard let first = target.utf8.first, first != UInt8(ascii: "/") else { return nil }
        let scheme = target.prefix(8).lowercased()
        let schemeLength = scheme.hasPrefix("http://") ? 7 : scheme.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return nil }
        let authority = target.dropFirst(schemeLength).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority)
    }
}

/// A request whose framing cannot be trusted, refused as a parser error is.
struct FaultyFraming: Error {}
