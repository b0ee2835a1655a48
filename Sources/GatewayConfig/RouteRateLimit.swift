/// The bucket a route draws from: a named limit, per caller, and what one request costs.
public struct RouteRateLimit: Sendable, Equatable {
    public let name: String
    public let cost: Double

    public init(name: String, cost: Double = 1) {
        self.name = name
        self.cost = cost
    }
}
