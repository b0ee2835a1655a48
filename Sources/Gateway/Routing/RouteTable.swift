import GatewayConfig

/// Finds the route for a path: an exact match first, then the longest prefix.
struct RouteTable: Sendable {
    private let exact: [String: Route]
    private let prefixes: [(prefix: String, route: Route)]

    init(_ routes: [Route]) {
        var exact: [String: Route] = [:]
        var prefixes: [(prefix: String, route: Route)] = []
        for route in routes {
            switch route.path {
            case .exact(let path): exact[path] = exact[path] ?? route
            case .prefix(let prefix): prefixes.append((prefix, route))
            }
        }
        self.exact = exact
        self.prefixes = prefixes.sorted { $0.prefix.utf8.count > $1.prefix.utf8.count }
    }

    var routes: [Route] { Array(self.exact.values) + self.prefixes.map(\.route) }

    func route(for path: String) -> Route? {
        if let route = self.exact[path] { return route }
        return self.prefixes.first { path.hasPrefix($0.prefix) }?.route
    }
}
