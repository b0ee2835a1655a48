import Gateway
import GatewayConfig
import HTTPTypes
import Testing

/// The OpenAPI document and the gateway agree: the embedded copy is the file, every built-in route is documented
/// with its methods and every documented path is a route, and each route's policy (auth, rate limit) shows.
@Suite struct OpenAPIRouteTests {
    let document: OpenAPIDescription

    init() throws {
        self.document = try OpenAPIDescription()
    }

    @Test func theEmbeddedDocumentIsTheFileByteForByte() throws {
        let file = try Repository.bytes("openapi.yaml")
        #expect(Array(OpenAPIDocument.yaml.utf8) == file, "run scripts/embed-openapi.sh after changing openapi.yaml")
    }

    @Test func theDocumentIsOpenAPI31() {
        #expect(self.document.root["openapi"].string == "3.1.0")
        #expect(self.document.root["info"]["title"].string == "StoryGate")
        // Security is per operation: the open routes must not inherit a requirement.
        #expect(!self.document.root["security"].exists)
    }

    /// The table the gateway serves by default, with each route's effective methods (GET routes answer HEAD), and
    /// the job routes it adds to every table.
    static var routes: [Route] {
        let jobs = JobRoutes.table.map { job in
            Route(name: job.name, path: job.path, methods: job.methods, auth: .required) { _, _ in throw GatewayError.notFound() }
        }
        return jobs + RouteConfiguration.defaults.map { configuration in
            guard case .builtin(let handler) = configuration.target else {
                Issue.record("the built-in table has an upstream route \(configuration.name)")
                return Route(name: configuration.name, path: configuration.path, methods: [], auth: .none) { _, _ in throw GatewayError.notFound() }
            }
            return Route(
                name: configuration.name, path: configuration.path, methods: configuration.methods ?? handler.methods,
                auth: configuration.auth, rateLimit: configuration.rateLimit
            ) { _, _ in throw GatewayError.notFound() }
        }
    }

    /// The documented paths a route answers: its exact path, or for a prefix route the templated paths one
    /// segment under it (`/media/` → `/media/{key}`).
    func documentedPaths(_ route: Route) -> [String] {
        switch route.path {
        case .exact(let path):
            return self.document.paths.filter { $0 == path }
        case .prefix(let prefix):
            return self.document.paths.filter { path in
                guard path.hasPrefix(prefix) else { return false }
                let rest = path.dropFirst(prefix.count)
                return rest.hasPrefix("{") && rest.hasSuffix("}") && !rest.contains("/")
            }
        }
    }

    @Test func everyBuiltInRouteIsDocumentedWithItsMethods() {
        for route in Self.routes {
            let paths = self.documentedPaths(route)
            #expect(paths.count == 1, "route \(route.name) is documented at \(paths)")
            let methods = Set(route.methods.map { $0.rawValue.lowercased() })
            for path in paths {
                #expect(self.document.methods(of: path) == methods, "\(path): documented \(self.document.methods(of: path).sorted()), served \(methods.sorted())")
            }
        }
    }

    @Test func everyDocumentedPathIsARoute() {
        let documented = Set(Self.routes.flatMap { self.documentedPaths($0) })
        for path in self.document.paths {
            #expect(documented.contains(path), "\(path) is documented but is no built-in route")
        }
    }

    @Test func operationIDsAreUniqueAndEveryOperationHasResponses() {
        let operations = self.document.operations
        let identifiers = operations.compactMap { $0.value["operationId"].string }
        #expect(identifiers.count == operations.count)
        #expect(Set(identifiers).count == identifiers.count)
        for operation in operations {
            #expect(!operation.value["responses"].keys.isEmpty)
        }
    }

    /// `auth: required` routes take a bearer token (or the dev header) and document 401 with its challenge;
    /// `auth: none` routes name no security at all.
    @Test func authenticationIsDocumentedWhereRoutesRequireIt() {
        for route in Self.routes {
            for path in self.documentedPaths(route) {
                for method in self.document.methods(of: path) {
                    let operation = self.document.root["paths"][path][method]
                    switch route.auth {
                    case .required:
                        let schemes = operation["security"].array.map(\.keys)
                        #expect(schemes == [["firebaseIdToken"], ["devUserId"]], "\(method) \(path) security \(schemes)")
                        let unauthorized = self.document.resolve(operation["responses"]["401"])
                        #expect(self.document.headers(unauthorized)["WWW-Authenticate"]?["required"].bool == true, "\(method) \(path)")
                    case .none:
                        #expect(!operation["security"].exists, "\(method) \(path) needs no credentials")
                    case .optional:
                        #expect(operation["security"].array.contains { $0.keys.isEmpty }, "\(method) \(path) allows anonymous callers")
                    }
                }
            }
        }
        let schemes = self.document.root["components"]["securitySchemes"]
        #expect(schemes["firebaseIdToken"]["scheme"].string == "bearer")
        #expect(schemes["devUserId"]["in"].string == "header" && schemes["devUserId"]["name"].string == "X-User-Id")
    }

    /// A rate-limited route answers 200 with RateLimit and RateLimit-Policy, and documents 429 with Retry-After.
    @Test func rateLimitedRoutesDocumentTheirHeaders() {
        for route in Self.routes where route.rateLimit != nil {
            for path in self.documentedPaths(route) {
                for method in self.document.methods(of: path) {
                    let operation = OpenAPIDescription.Operation(path: path, method: method, value: self.document.root["paths"][path][method])
                    let responses = Dictionary(uniqueKeysWithValues: self.document.responses(operation).map { ($0.status, $0.response) })
                    let ok = self.document.headers(responses["200"] ?? YAMLValue(nil))
                    // A replayed answer (Idempotency-Key) spent no token and carries no limit's fields.
                    let replays = ok["Idempotent-Replayed"] != nil
                    #expect(ok["RateLimit"] != nil && (ok["RateLimit"]?["required"].bool ?? false) == !replays, "\(method) \(path)")
                    #expect(ok["RateLimit-Policy"] != nil && (ok["RateLimit-Policy"]?["required"].bool ?? false) == !replays, "\(method) \(path)")
                    let limited = self.document.headers(responses["429"] ?? YAMLValue(nil))
                    #expect(limited["Retry-After"]?["required"].bool == true, "\(method) \(path)")
                }
            }
        }
    }

    /// Every response, of every operation, carries X-Request-ID.
    @Test func everyResponseCarriesTheRequestID() {
        for operation in self.document.operations {
            for (status, response) in self.document.responses(operation) {
                let header = self.document.headers(response)["X-Request-ID"]
                #expect(header?["required"].bool == true, "\(operation.method) \(operation.path) \(status) lacks X-Request-ID")
            }
        }
    }

    /// GET and POST errors are the JSON envelope; HEAD answers have no body.
    @Test func errorsAreTheJSONEnvelopeAndHeadHasNoBody() {
        for operation in self.document.operations {
            for (status, response) in self.document.responses(operation) {
                if operation.method == "head" {
                    #expect(!response["content"].exists, "HEAD \(operation.path) \(status) documents a body")
                } else if let code = Int(status), code >= 400 {
                    #expect(self.document.errorCodes(response)?.isEmpty == false, "\(operation.method) \(operation.path) \(status) is not the error envelope")
                }
            }
        }
    }
}
