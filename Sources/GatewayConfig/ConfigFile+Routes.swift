import RateLimiting
import Yams

/// `routes` and `builtin_routes`: the route table.
///
/// Without `routes:` the table is the built-in one (`RouteConfiguration.defaults`). With `routes:` the table is
/// exactly the listed routes, unless `builtin_routes: true`, which keeps the built-in routes and adds the listed
/// ones (a listed route on a built-in route's path replaces that route).
extension ConfigFile {
    /// Records every bad route (and table-wide clash) in `problems`; the table is set only when all are valid.
    ///
    /// - Returns: whether the route keys were valid (so the table is the one the file asks for).
    @discardableResult
    static func applyRoutes(
        _ top: ConfigMapping, to configuration: inout GatewayConfiguration, environmentLimits: [String] = [], problems: inout ConfigurationProblems
    ) -> Bool {
        let builtinValue = top["builtin_routes"]
        var keepBuiltins: Bool?
        if let builtinValue {
            guard let keep = problems.value({ () throws(ConfigurationError) in try builtinValue.boolean() }) else { return false }
            keepBuiltins = keep
        }
        guard let routesValue = top["routes"] else {
            if let builtinValue, keepBuiltins == false {
                problems.record(builtinValue.error("false leaves no routes: list the routes under routes:"))
                return false
            }
            return true
        }
        guard let entries = problems.value({ () throws(ConfigurationError) in try routesValue.list() }) else { return false }
        guard !entries.isEmpty else {
            problems.record(routesValue.error("is empty: list at least one route, or leave routes: out to keep the built-in table"))
            return false
        }
        let reader = RouteReader(limits: configuration.rateLimits.map(\.name) + environmentLimits.filter { !configuration.rateLimits.map(\.name).contains($0) })
        var listed: [(route: RouteConfiguration, value: ConfigValue)] = []
        var valid = true
        for entry in entries {
            guard let route = problems.value({ () throws(ConfigurationError) in try reader.route(entry) }) else {
                valid = false
                continue
            }
            if let earlier = listed.first(where: { $0.route.path == route.path }) {
                let earlierLine = earlier.value.line.map { " (line \($0))" } ?? ""
                problems.record(
                    entry.pathError(
                        "'\(route.path.text)' is already routed by \(earlier.value.path)\(earlierLine): one path takes one route, so list all its methods there"
                    )
                )
                valid = false
                continue
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
            problems.record(
                value.nameError("'\(route.name)' is also the name of the route for \(other.path.text); names label logs and metrics, so give each route its own name:")
            )
            valid = false
        }
        if valid { configuration.routes = table }
        return valid
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

extension RouteConfiguration.PathMatch {
    /// The path as the config file writes it.
    var text: String {
        switch self {
        case .exact(let text), .prefix(let text): return text
        }
    }
}
