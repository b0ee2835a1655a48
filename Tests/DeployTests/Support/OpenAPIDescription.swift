import Foundation

/// openapi.yaml, read for the tests: operations, `$ref`s resolved, error codes per response.
struct OpenAPIDescription {
    let root: YAMLValue

    init() throws {
        self.root = try Repository.yaml("openapi.yaml")
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    struct Operation {
        let path: String
        let method: String
        let value: YAMLValue
    }

    var paths: [String] { self.root["paths"].keys }

    var operations: [Operation] {
        self.paths.flatMap { path in
            Self.methods.compactMap { method in
                let operation = self.root["paths"][path][method]
                return operation.exists ? Operation(path: path, method: method, value: operation) : nil
            }
        }
    }

    func methods(of path: String) -> Set<String> {
        Set(Self.methods.filter { self.root["paths"][path][$0].exists })
    }

    /// Follows `$ref: '#/...'` (chains too); anything else is returned as it is.
    func resolve(_ value: YAMLValue) -> YAMLValue {
        var current = value
        for _ in 0..<10 {
            guard let reference = current["$ref"].string, reference.hasPrefix("#/") else { return current }
            current = reference.dropFirst(2).split(separator: "/").reduce(self.root) { node, key in
                node[String(key).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")]
            }
        }
        return current
    }

    /// An operation's responses by status, resolved.
    func responses(_ operation: Operation) -> [(status: String, response: YAMLValue)] {
        operation.value["responses"].keys.map { ($0, self.resolve(operation.value["responses"][$0])) }
    }

    /// A response's headers by name, resolved.
    func headers(_ response: YAMLValue) -> [String: YAMLValue] {
        Dictionary(uniqueKeysWithValues: response["headers"].keys.map { ($0, self.resolve(response["headers"][$0])) })
    }

    /// The `error.code` values an error response allows (its `enum`), or nil when it is not the error envelope.
    func errorCodes(_ response: YAMLValue) -> [String]? {
        let schema = self.resolve(response["content"]["application/json"]["schema"])
        let parts = schema["allOf"].array.map { self.resolve($0) }
        guard parts.contains(where: { $0["properties"]["error"].exists && $0["required"].strings.contains("requestId") }) else {
            return nil
        }
        return parts.flatMap { $0["properties"]["error"]["properties"]["code"]["enum"].strings }
    }

    /// `x-error-codes`: every code the gateway produces, with its status.
    var errorTable: [(status: Int, code: String)] {
        self.root["x-error-codes"].array.compactMap { entry in
            guard let status = entry["status"].int, let code = entry["code"].string else { return nil }
            return (status, code)
        }
    }

    /// A schema's `type` as a set (`type: [string, 'null']` or `type: string`).
    static func types(_ schema: YAMLValue) -> Set<String> {
        if let type = schema["type"].string { return [type] }
        return Set(schema["type"].strings)
    }
}
