import Foundation
import LocusCore

public enum BLEPlugin {
    public static let factory = PluginFactory.source(
        "ble",
        summary: "Bluetooth LE scanner through BlueZ (D-Bus): publishes every advertisement heard, with its decoded beacon identity.",
        config: BLEConfiguration.self
    ) { config, setup in
        BLESource(id: setup.id, configuration: config)
    }
}

/// Counters of a running source, readable from any task (tests, diagnostics).
public typealias BLEStatistics = SourceCounters<BLECounters>

/// Scans for Bluetooth LE advertisements through BlueZ's D-Bus API and publishes one
/// `obs.ble.<id>` per advertisement heard, stamped with the wall clock at reception.
/// Reports `connected` while discovery runs and `disconnected` (with the reason: no bus,
/// bluetoothd gone, adapter missing or powered off) otherwise, and recovers on its own.
public struct BLESource: SourcePlugin {
    public let id: String
    public let configuration: BLEConfiguration
    public let statistics: BLEStatistics
    /// First retry delay, seconds; doubles up to `reconnect_max`.
    public static let initialBackoff = 0.25

    public init(id: String, configuration: BLEConfiguration, statistics: BLEStatistics = BLEStatistics()) {
        self.id = id
        self.configuration = configuration
        self.statistics = statistics
    }

    public var produces: [String] { ["obs.ble.\(id)"] }

    public func run(context: PluginContext) async throws {
        let stop = StopFlag()
        let loop = BLEScanLoop(configuration: configuration, context: context, statistics: statistics, stop: stop)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                // The sd-bus connection lives and dies on this one thread.
                let thread = Thread {
                    loop.run()
                    done.resume()
                }
                thread.name = "ble-\(context.id)"
                thread.start()
            }
        } onCancel: {
            stop.stop()
        }
    }
}

extension BLESource: ReportsCounters {
    public var reportedCounters: [String: UInt64] { statistics.counterValues }
}
