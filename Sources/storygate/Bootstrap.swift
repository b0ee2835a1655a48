import Gateway
import Logging
import Metrics

/// The process-wide logging and metrics backends: only the executable chooses them.
enum Bootstrap {
    /// Every logger writes JSON lines to standard error at the setting's level (a reload may change it).
    static func logging(_ setting: LogLevelSetting) {
        LoggingSystem.bootstrap { label in
            JSONLogHandler(label: label, setting: setting)
        }
    }

    /// swift-metrics users outside the gateway's own instruments count into the application's registry too.
    static func metrics(_ metrics: GatewayMetrics) {
        MetricsSystem.bootstrap(metrics.factory)
    }
}
