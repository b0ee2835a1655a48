import RateLimiting
import Yams

/// `routes` and `builtin_routes`: the route table.
///
/// Without `routes:` the table is the built-in one (`RouteConfiguration.defaults`). With `routes:` the table is
/// exactly the listed routes, unless `builtin_routes: true`, which keeps the built-in routes and adds the listed
/// ones (a listed route on a built-in route's path replaces that route).
extension ConfigFile {
    static func applyRoutes(_ top: ConfigMapping, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let builtinValue = top["builtin_routes"]
        let keepBuiltins = try builtinValue.map { value throws(ConfigurationError) in try value.boolean() }
        guard let routesValue = top["routes"] else {
            if let builtinValue, keepBuiltins == false {
                throw builtinValue.error("false leaves no routes: list the routes under routes:")
            }
            return
        }
        let entries = try routesValue.list()
        guard !entries.isEmpty else {
            throw routesValue.error("is empty: list at least one route, or leave routes: out to keep the built-in table")
        }
        let reader = RouteReader(limits: configuration.rateLimits.map(\.name))
        var listed: [(route: RouteConfiguration, value: ConfigValue)] = []
        for entry in entries {
            let route = try reader.route(entry)
            if let earlier = listed.first(where: { $0.route.path == route.path }) {
                let earlierLine = earlier.value.line.map { " (line \($0))" } ?? ""
                throw entry.pathError(
                    "'\(route.path.text)' is already routed by \(earlier.value.path)\(earlierLine): one path takes one route, so list all its methods there"
                )
            }
            listed.append((route, entry))
        }
        var table = listed.map(\.route)
        if keepBuiltins == true {
            table = RouteConfiguration.defaults.filter { builtin in !listed.contains { $0.route.path == builtin.path } } + table
        }
        for (route, value) in listed {
            // The table holds each listed route once (paths are unique); an earlier one with its name is the clash.
            guard let position = table.firstIndex(where: { $0.path == route.path }),
                let other = table[..<position].first(where: { $0.name == route.name })
            else { continue }
            throw value.nameError("'\(route.name)' is also the name of the route for \(other.path.text); names label logs and metrics, so give each route its own name:")
        }
        configuration.routes = table
    }
}

extension ConfigValue {
    /// An error about this route's `path` (or `name`), at that key's line when it is there.
    fileprivate func pathError(_ message: String) -> ConfigurationError {
        self.keyError("path", message)
    }

    fileprivate func nameError(_ message: String) -> ConfigurationError {
        self.keyError("name", message)
    }

    private func keyError(_ key: String, _ message: String) -> ConfigurationError {
        if let node = self.node.mapping?[key] { return self.child(node, key: key).error(message) }
        return self.child(self.node, key: key).error(message)
    }
}

extension Route.PathMatch {
    /// The path as the config file writes it.
    var text: String {
        switch self {
        case .exact(let text), .prefix(let text): return text
        }
    }
}
