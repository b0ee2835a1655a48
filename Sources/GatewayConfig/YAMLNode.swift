import HTTPTypes
import RateLimiting
import Yams

/// Building blocks of the effective YAML: scalars quoted only where YAML would read them as another type.
enum YAMLNode {
    static func string(_ text: String) -> Node { .scalar(text.represented()) }
    static func plain(_ text: String) -> Node { Node(text) }
    static func int(_ value: Int) -> Node { Node(String(value)) }
    static func number(_ value: Double) -> Node { Node(value.plainText) }
    static func bool(_ value: Bool) -> Node { Node(value ? "true" : "false") }
    static func optional(_ node: Node?) -> Node { node ?? Node("null") }
    static func list(_ nodes: [Node]) -> Node { Node(nodes) }
    /// A list of scalars on one line: `[GET, POST]`.
    static func inlineList(_ texts: [String]) -> Node { Node(texts.map(self.string), .implicit, .flow) }
    static func mapping(_ pairs: [(String, Node)]) -> Node { Node(pairs.map { (Node($0.0), $0.1) }) }

    static func rateLimit(_ limit: RateLimit) -> Node {
        self.mapping([("capacity", self.number(limit.capacity)), ("period_seconds", self.number(limit.period)), ("shadow", self.bool(limit.shadow))])
    }

    /// Every key of the route, methods and idempotency resolved; `cost` only with a limit, upstream-only keys only on
    /// upstream routes, `idempotency` only where it applies (the functions and upstream routes).
    static func route(_ route: RouteConfiguration) -> Node {
        var pairs: [(String, Node)] = [("path", self.string(route.path.text)), ("name", self.string(route.name))]
        let methods: [HTTPRequest.Method]
        switch route.target {
        case .builtin(let builtin):
            methods = route.methods ?? builtin.methods
            pairs += [("methods", self.inlineList(methods.map(\.rawValue))), ("builtin", self.string(builtin.rawValue))]
        case .upstream(let upstream):
            methods = route.methods ?? RouteConfiguration.allMethods
            pairs += [("methods", self.inlineList(methods.map(\.rawValue))), ("upstream", self.string(upstream.description))]
        }
        pairs.append(("auth", self.string(route.auth.rawValue)))
        if let limit = route.rateLimit {
            pairs += [("rate_limit", self.string(limit.name)), ("cost", self.number(limit.cost))]
        }
        if case .upstream = route.target {
            pairs += [("timeout_seconds", self.number(route.timeoutSeconds)), ("forward_authorization", self.bool(route.forwardAuthorization))]
        }
        if let maxBodyBytes = route.maxBodyBytes { pairs.append(("max_body_bytes", self.int(maxBodyBytes))) }
        if let appCheck = route.appCheck { pairs.append(("app_check", self.string(appCheck.rawValue))) }
        if route.appCheckConsume { pairs.append(("app_check_consume", self.bool(true))) }
        if route.target.takesIdempotencyKeys { pairs.append(("idempotency", self.string(route.idempotencyMode.rawValue))) }
        return self.mapping(pairs)
    }
}
