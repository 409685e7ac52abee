import Foundation
import Testing

/// Issue 16's "Done when": `examples/fleet/device.yaml` and `server.yaml` work as the README's
/// "Fleets" section says, through a real Mosquitto: the device's location updates reach the
/// server's bus as `obs.fix.<device>`, its per-device services keep the device's own state, and its OwnTracks messages are on the broker for Home Assistant.
@Suite(.serialized) struct FleetExampleTests {
    @Test func aDeviceFeedsTheServerThroughTheBroker() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MQTTBroker(directory: dir + "/broker")
        try await broker.start()
        for name in ["device", "server"] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(name)", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let ready = dir + "/ready"
        let collector = try ChildProcess(E2E.python, [E2E.script("mqtt_collect.py"), "--port", "\(broker.port)", "--topic", "owntracks/#",
                                                      "--out", dir + "/owntracks.jsonl", "--ready-file", ready, "--max-wait", "60"],
                                         directory: dir)
        defer { collector.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: ready) })
        let common = ["LOCUS_BROKER_PORT": "\(broker.port)"]
        let server = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/examples/fleet/server.yaml"], directory: dir,
                                      environment: common.merging(["LOCUS_RUNTIME_DIR": dir + "/server", "LOCUS_STATE_DIR": dir + "/server"]) { a, _ in a })
        defer { server.kill9() }
        #expect(await waitUntil(timeout: 20) { server.stderr.components(separatedBy: "connected to the MQTT broker").count == 3 }, "\(server.stderr)")
        // Subscribed before the device starts: its walk reaches the depot within seconds.
        let fenceEvents = try ChildProcess(E2E.binary, ["sub", "region.enter.depot.van7", "-c", "1", "--json"], directory: dir,
                                           environment: ["LOCUS_RUNTIME_DIR": dir + "/server"])
        defer { fenceEvents.kill9() }
        try await Task.sleep(for: .milliseconds(500))
        let device = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/examples/fleet/device.yaml"], directory: dir,
                                      environment: common.merging(["LOCUS_RUNTIME_DIR": dir + "/device", "LOCUS_STATE_DIR": dir + "/device",
                                                                   "LOCUS_DEVICE": "van7"]) { a, _ in a })
        defer { device.kill9() }
        // The server's bus gets the device's updates as obs.fix.van7 (read with locus sub).
        let sub = try await runToEnd(E2E.binary, ["sub", "obs.fix.van7", "-c", "3", "--json"], directory: dir,
                                     environment: ["LOCUS_RUNTIME_DIR": dir + "/server"], timeout: 30)
        #expect(sub.status == 0 && sub.stdout.split(separator: "\n").count == 3, "\(sub.stderr)\n\(device.stderr.suffix(2000))")
        #expect(sub.stdout.contains("\"source\":\"van7\""))
        // The server's per-device standard service keeps the device's own state.
        let own = try await runToEnd(E2E.binary, ["sub", "location.update.here.van7", "-c", "1", "--json"], directory: dir,
                                     environment: ["LOCUS_RUNTIME_DIR": dir + "/server"], timeout: 30)
        #expect(own.status == 0 && own.stdout.contains("\"source\":\"van7\""), "\(own.stderr)")
        // Its per-device region service: the depot fence, van7's own state, valid events.
        #expect(await fenceEvents.wait(timeout: 60) == 0, "\(fenceEvents.stderr)")
        #expect(fenceEvents.stdout.contains("\"device\":\"van7\""), "\(fenceEvents.stdout)")
        try fenceEvents.stdout.write(toFile: dir + "/fences.jsonl", atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", dir + "/fences.jsonl"], directory: dir)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let devices = try await runToEnd(E2E.binary, ["ctl", "region", "devices"], directory: dir,
                                         environment: ["LOCUS_RUNTIME_DIR": dir + "/server"], timeout: 20)
        #expect(devices.status == 0 && devices.stdout.contains("van7"), "\(devices.stdout)\(devices.stderr)")
        // And the broker has its OwnTracks locations for Home Assistant.
        #expect(await waitUntil(timeout: 10) {
            CollectedMQTTMessage.read(dir + "/owntracks.jsonl").contains { $0.topic == "owntracks/fleet/van7" && $0.payload.contains("\"_type\":\"location\"") }
        })
        // And the depot fence as a waypoint Home Assistant can import as a zone.
        #expect(CollectedMQTTMessage.read(dir + "/owntracks.jsonl").contains {
            $0.topic == "owntracks/fleet/van7/waypoint" && $0.payload.contains("\"desc\":\"Depot\"") && $0.payload.contains("\"rad\":150")
        })
    }
}
