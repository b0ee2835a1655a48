import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on every SIGHUP, until graceful shutdown.
struct ReloadSignalService: Service {
    /// Trapped before the listeners open (``trapping()``): a SIGHUP from then on reloads, never ends the process.
    let signals: UnixSignalsSequence
    let reload: @Sendable () -> Void

    static func trapping(reload: @escaping @Sendable () -> Void) async -> ReloadSignalService {
        ReloadSignalService(signals: await UnixSignalsSequence(trapping: .sighup), reload: reload)
    }

    func run() async throws {
        for await _ in self.signals.cancelOnGracefulShutdown() {
            self.reload()
        }
    }
}
