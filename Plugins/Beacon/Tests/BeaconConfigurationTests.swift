import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

@Suite struct BeaconConfigurationTests {
    @Test func defaultsAreTheDocumentedOnes() throws {
        let c = try decodeConfiguration(BeaconConfiguration.self, "{}")
        #expect(c.exitTimeout == 30 && c.rangeInterval == 1 && c.rangeTimeout == 5)
        #expect(c.proximity == ProximityModel(pathLossExponent: 2, immediateLimit: 0.5, nearLimit: 3, hysteresis: 0.2))
        #expect(c.filter == RSSIFilter.Parameters(processNoise: 2, measurementNoise: 36, gate: 3))
        #expect(c.defaultMeasuredPower == -59 && c.persist && c.sources.isEmpty && c.conditions.isEmpty)
        #expect(BeaconConfiguration.keys.map(\.name) == ["conditions", "exit_timeout", "range_interval", "range_timeout", "path_loss_exponent",
                                                         "immediate_distance", "near_distance", "proximity_hysteresis", "rssi_process_noise",
                                                         "rssi_measurement_noise", "rssi_gate", "default_measured_power", "sources", "persist", "database"])
    }

    @Test func conditionsOfEveryKindDecode() throws {
        let c = try decodeConfiguration(BeaconConfiguration.self, """
        {"conditions": [
          {"id": "a", "uuid": "426C7565436861726D426561636F6E73", "major": 1, "minor": 2, "ranging": true, "properties": {"x": 1}},
          {"id": "b", "altbeacon": "2f23-4454"},
          {"id": "c", "namespace": "626c7565636861726d31", "instance": "000000000001", "notify_on_exit": false}
        ]}
        """)
        #expect(c.conditions.map(\.match) == [
            .iBeacon(uuid: "426c7565-4368-6172-6d42-6561636f6e73", major: 1, minor: 2),
            .altBeacon(prefix: "2f234454"),
            .eddystone(namespace: "626c7565636861726d31", instance: "000000000001"),
        ])
        #expect(c.conditions[0].ranging && !c.conditions[1].ranging && !c.conditions[2].notifyOnExit)
        #expect(c.conditions[0].properties == ["x": .number(1)])
    }

    @Test(arguments: [
        (#"{"exit_timeout": 0}"#, "exit_timeout"),
        (#"{"range_interval": 0.01}"#, "range_interval"),
        (#"{"path_loss_exponent": 0.5}"#, "path_loss_exponent"),
        (#"{"near_distance": 0.4}"#, "near_distance"),
        (#"{"proximity_hysteresis": 1}"#, "proximity_hysteresis"),
        (#"{"rssi_measurement_noise": -1}"#, "rssi_measurement_noise"),
        (#"{"default_measured_power": 50}"#, "default_measured_power"),
        (#"{"sources": ["BLE 0"]}"#, "sources"),
        (#"{"conditions": [{"id": "a"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "uuid": "1234"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "uuid": "426c7565436861726d426561636f6e73", "minor": 1}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "uuid": "426c7565436861726d426561636f6e73", "major": 70000}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "uuid": "426c7565436861726d426561636f6e73", "namespace": "626c7565636861726d31"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "altbeacon": "2f2"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "namespace": "626c7565636861726d31", "major": 1}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "altbeacon": "2f23", "colour": "red"}]}"#, "conditions.0"),
        (#"{"conditions": [{"id": "A b", "altbeacon": "2f23"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "altbeacon": "2f23", "origin": "runtime"}]}"#, "conditions"),
        (#"{"conditions": [{"id": "a", "altbeacon": "2f23"}, {"id": "a", "altbeacon": "2f24"}]}"#, "conditions"),
    ])
    func badValuesAreRefusedNamingTheKey(json: String, key: String) {
        #expect(configErrorKey(BeaconConfiguration.self, json) == key, "\(json)")
    }

    @Test func conditionErrorsSayWhatToDo() {
        do {
            _ = try decodeConfiguration(BeaconConfiguration.self, #"{"conditions": [{"id": "a", "uuid": "426c7565436861726d426561636f6e73", "minor": 1}]}"#)
            Issue.record("decoded")
        } catch {
            #expect("\(error)".contains("conditions[0]") && "\(error)".contains("minor needs major"), "\(error)")
        }
    }
}
