public import GatewayConfig
import Logging
import Synchronization

/// Applies a configuration read again (SIGHUP, ``GatewayApplication/reload()``) without dropping a connection:
/// builds a new ``RequestPath`` and publishes its responder, which each connection takes up at its next request.
/// Settings that need a restart are reported and left as they were; a configuration that does not load, or does
/// not build, is refused and the running one keeps serving.
final class GatewayReloader: Sendable {
    private let source: ConfigurationSource?
    private let builder: RequestPathBuilder
    private let live: LiveResponder
    private let logLevel: LogLevelSetting?
    /// The request path running now; held through a whole reload, so reloads happen one at a time.
    private let running: Mutex<RequestPath>
    private let logger: Logger

    init(source: ConfigurationSource?, builder: RequestPathBuilder, initial: RequestPath, live: LiveResponder, logLevel: LogLevelSetting?, logger: Logger) {
        self.source = source
        self.builder = builder
        self.running = Mutex(initial)
        self.live = live
        self.logLevel = logLevel
        self.logger = logger
    }

    /// The configuration in effect (what `/config` prints).
    var configuration: GatewayConfiguration {
        self.running.withLock { $0.configuration }
    }

    func reload() -> ReloadOutcome {
        self.running.withLock { running in
            guard let source = self.source else {
                let error = ConfigurationError(variable: "SIGHUP", message: "cannot reload: this gateway was not started from a configuration source")
                self.logger.error("reload refused; the running configuration is unchanged", metadata: ["error": "\(error)"])
                return .refused(error)
            }
            let next: RequestPath
            let changes: ConfigurationChanges
            do throws(ConfigurationError) {
                let loaded = try source.load()
                let applicable = ConfigurationChanges.applicable(loaded, running: running.configuration)
                changes = ConfigurationChanges(from: running.configuration, to: loaded)
                next = try self.builder.build(applicable, previous: running)
            } catch {
                // The lines `check-config` prints, one per problem.
                for problem in error.all {
                    self.logger.error("reload: configuration error", metadata: ["error": "\(problem)"])
                }
                self.logger.error("reload refused; the running configuration is unchanged", metadata: ["errors": .stringConvertible(error.all.count)])
                return .refused(error)
            }
            for change in changes.applied {
                self.logger.notice("reload: changed", metadata: ConfigurationChanges.metadata(change))
            }
            for key in changes.needsRestart {
                self.logger.warning("reload: changed, needs a restart; left as it was", metadata: ["key": .string(key)])
            }
            self.logLevel?.level = next.configuration.logLevel
            self.live.publish(next.responder)
            next.proxy.retire(keeping: next.configuration.routes.compactMap(\.upstream))
            running = next
            self.logger.notice(
                "reload done",
                metadata: [
                    "applied": .array(changes.applied.map { .string($0.key) }), "needs_restart": .array(changes.needsRestart.map { .string($0) }),
                ]
            )
            return .applied(changes)
        }
    }
}

/// What a reload did.
public enum ReloadOutcome: Sendable {
    /// The configuration was read and is in effect (the changes may be none).
    case applied(ConfigurationChanges)
    /// The configuration did not load or build: nothing changed.
    case refused(ConfigurationError)
}

extension RouteConfiguration {
    /// The upstream of an upstream route.
    var upstream: UpstreamURL? {
        if case .upstream(let url) = self.target { return url }
        return nil
    }
}
