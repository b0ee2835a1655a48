/// A request as ``LocalHTTPServer`` received it, body collected.
public struct LocalRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The request target: path with query, e.g. `/certs?x=1`.
    public var path: String
    /// The header fields, names as received, in order.
    public var headers: [(name: String, value: String)]
    /// The body (empty when none was sent).
    public var body: [UInt8]

    /// A request; public so tests can build one to call a handler directly.
    public init(method: String, path: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The last value of the header called `name` (compared case-insensitively), or `nil`.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return self.headers.last { $0.name.lowercased() == wanted }?.value
    }

    /// The body decoded as UTF-8.
    public var bodyText: String { String(decoding: self.body, as: UTF8.self) }
}
