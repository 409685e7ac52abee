import Foundation
import LocusCore
import LocusPlugins
@testable import LocusRuntime
import Logging
import Testing

/// `PluginSetup.sourceIds`: every plugin learns the config's enabled source ids, even a sink
/// written before the sources (the gpsd-server serves only these devices by default).
struct ConfiguredSourceIdsTests {
    @Test func aSinkBeforeTheSourcesLearnsTheirIds() throws {
        let log = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../LocusFormatsTests/Fixtures/bu353s4.log").standardized.path
        let loader = ConfigLoader(factories: BuiltinPlugins.all, environment: ["LOCUS_RUNTIME_DIR": "/tmp/locus-t", "GPS": "gps1"],
                                  logger: Logger(label: "t"))
        let config = try loader.load(text: """
            sinks:
              - {type: gpsd-server, id: gpsd, listen: "127.0.0.1:47321"}
            sources:
              - {type: replay, id: gps0, file: \(log)}
              - {type: replay, id: "${GPS}", file: \(log)}
              - {type: replay, id: off, file: \(log), enabled: false}
            """, file: "t.yaml", directory: "/tmp", mode: .full)
        let gpsd = try #require(config.plugins.first { $0.id == "gpsd" })
        #expect(gpsd.setup.sourceIds == ["gps0", "gps1"])
    }
}
