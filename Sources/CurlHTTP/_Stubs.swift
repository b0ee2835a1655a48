// TEMPORARY: signatures of the CurlHTTP client being built on branch wt-curl; deleted at merge.
public import Logging
public import ServiceLifecycle
public struct CurlRequest: Sendable {
    public var url: String
    public var method: String = "GET"
    public var headers: [(name: String, value: String)] = []
    public var body: [UInt8]? = nil
    public var connectTimeout: Duration = .seconds(5)
    public var timeout: Duration = .seconds(30)
    public var maxResponseBytes: Int = 10 << 20
    public init(url: String) { self.url = url }
}
public struct CurlResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    public func header(_ name: String) -> String? { nil }
}
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public var shortDescription: String { "" }
    public var description: String { "" }
}
public final class CurlClient: Service, Sendable {
    public struct Configuration: Sendable { public init() {} }
    public init(configuration: Configuration = .init(), logger: Logger) {}
    public func run() async throws {}
    public func execute(_ request: CurlRequest) async throws -> CurlResponse { fatalError() }
}
