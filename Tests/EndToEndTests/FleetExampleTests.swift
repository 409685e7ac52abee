import Foundation
import LocusTestKit
import Testing

/// The fleet's broker as the README starts it, `eval "$(examples/fleet/start-broker.sh)"`:
/// `mosquitto.conf` on a free port, its files in FLEET_DIR (here the test's directory). The port
/// is what the script exports; stopping is what the README says, SIGTERM to the pid in its file.
final class FleetScriptBroker {
    let directory: String
    private(set) var port = 0

    init(directory: String) { self.directory = directory }

    /// Runs the script (again: the same broker, port and sessions) and reads its `export` line.
    func start() async throws {
        // The test process blocks SIGTERM in its threads and a child inherits that: the broker
        // starts with an empty signal mask, or stop() could not stop it cleanly.
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv(sys.argv[1], sys.argv[1:])"
        let script = try ChildProcess(E2E.python, ["-c", unblocked, "/bin/sh", E2E.repoRoot + "/examples/fleet/start-broker.sh"],
                                      directory: directory, environment: ["FLEET_DIR": directory])
        // Its last line, once the broker accepts connections. (Not its exit: Foundation sees a
        // child as running while the broker it left behind holds a descriptor of it.)
        _ = await waitUntil(timeout: 30) { script.stdout.hasSuffix("\n") || !script.process.isRunning }
        let exported = script.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("LOCUS_BROKER_PORT=") }
        guard let p = exported.flatMap({ Int($0.dropFirst("LOCUS_BROKER_PORT=".count)) }) else {
            throw MQTTBrokerError(text: "start-broker.sh: \(script.stdout) \(script.stderr)")
        }
        #expect(script.stdout.hasPrefix("export FLEET_DIR=\(directory) "), "\(script.stdout)")
        port = p
    }

    var pid: pid_t? { (try? String(contentsOfFile: directory + "/broker/mosquitto.pid", encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) } }

    /// `kill "$(cat "$FLEET_DIR/broker/mosquitto.pid")"`, and waits until it has saved its sessions and gone.
    func stop() async {
        guard let pid else { return }
        kill(pid, SIGTERM)
        _ = await waitUntil(timeout: 10) { Self.gone(pid) }
    }

    /// Not running (or a zombie nobody reaps: the daemon's parent has exited).
    static func gone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    deinit { if let pid, !Self.gone(pid) { kill(pid, SIGKILL) } }
}

/// `examples/fleet` on one machine, as its README runs it: the broker from `start-broker.sh`
/// (`mosquitto.conf` on a free port), a server with `server.yaml` and a device with
/// `device.yaml`, each a real `locus run` with a private runtime and state directory — while
/// something else (a system Mosquitto, or this test) holds port 1883.
final class FleetExample {
    enum Side: String { case server, device }

    let dir: String
    let broker: FleetScriptBroker
    /// Port 1883, held unless another program (the system's broker) already holds it.
    let held1883 = try? HeldPort(port: 1883)
    private(set) var server: ChildProcess?
    private(set) var device: ChildProcess?

    init() throws {
        dir = E2E.temporaryDirectory()
        broker = FleetScriptBroker(directory: dir)
        #expect(LoopbackPort.accepts(1883), "port 1883 should be held, as a system broker holds it")
    }

    func environment(_ side: Side) -> [String: String] {
        ["LOCUS_RUNTIME_DIR": "\(dir)/\(side.rawValue)"]
    }

    /// Starts the server and waits until both its `mqtt` sources are connected.
    func startServer() async throws {
        let env = environment(.server).merging(["LOCUS_STATE_DIR": dir + "/server", "LOCUS_BROKER_PORT": "\(broker.port)"]) { a, _ in a }
        let s = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/examples/fleet/server.yaml"], directory: dir, environment: env)
        server = s
        #expect(await waitUntil(timeout: 20) { s.stderr.components(separatedBy: "connected to the MQTT broker").count == 3 }, "\(s.stderr)")
    }

    /// Starts the device `van7`.
    func startDevice() throws {
        let env = environment(.device).merging(["LOCUS_STATE_DIR": dir + "/device", "LOCUS_BROKER_PORT": "\(broker.port)",
                                                "LOCUS_DEVICE": "van7"]) { a, _ in a }
        device = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/examples/fleet/device.yaml"], directory: dir, environment: env)
    }

    /// `locus sub --json` on one side's bus, waiting for its daemon if it has not started yet.
    func subscribe(_ side: Side, _ prefixes: [String]) throws -> ChildProcess {
        try ChildProcess(E2E.binary, ["sub", "--wait", "--json"] + prefixes, directory: dir, environment: environment(side))
    }

    /// Every MQTT message on the broker, from now on, in `<dir>/<name>.jsonl`.
    func collect(_ topics: [String], into name: String) async throws -> ChildProcess {
        let ready = "\(dir)/\(name).ready"
        let c = try ChildProcess(E2E.python, [E2E.script("mqtt_collect.py"), "--port", "\(broker.port)"] + topics.flatMap { ["--topic", $0] }
                                 + ["--client-id", "fleet-test-\(name)", "--out", "\(dir)/\(name).jsonl", "--ready-file", ready, "--max-wait", "120"],
                                 directory: dir)
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: ready) })
        return c
    }

    /// `locus ctl status --json` of one side: its `result`.
    func status(_ side: Side) async throws -> [String: Any] {
        let r = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: environment(side), timeout: 20)
        let o = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return o?["result"] as? [String: Any] ?? [:]
    }

    /// Every counter of one side's status that counts something not delivered — the hub's
    /// `dropped`, each plugin's `dropped` and `dropped_*` — that is not 0, by its path.
    func drops(_ side: Side) async throws -> [String: Int] {
        var found: [String: Int] = [:]
        func walk(_ value: Any, _ path: String, counting: Bool) {
            if let d = value as? [String: Any] {
                for (k, v) in d { walk(v, path.isEmpty ? k : "\(path).\(k)", counting: counting || k.hasPrefix("dropped")) }
            } else if let a = value as? [Any] {
                for v in a { walk(v, path + "." + ((v as? [String: Any])?["plugin"] as? String ?? "?"), counting: counting) }
            } else if counting, let n = value as? Int, n != 0 {
                found[path] = n
            }
        }
        walk(try await status(side), "", counting: false)
        return found
    }

    deinit {
        server?.kill9()
        device?.kill9()
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// The envelopes of `locus sub --json` output.
func subscribedEnvelopes(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { line in
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return o["envelope"] as? [String: Any] ?? o
    }
}

/// Issue 16's "Done when": `examples/fleet/device.yaml` and `server.yaml` work as the README's
/// "Fleets" section says, through a real Mosquitto: the device's location updates reach the
/// server's bus as `obs.fix.<device>`, its per-device services keep the device's own state, and its OwnTracks messages are on the broker for Home Assistant.
/// Issue 30, items 7 and 8: the device is one device on the server (not also
/// `fleet-van7` from its own OwnTracks output), and it does not flood the broker with
/// `location.status` flaps.
@Suite(.serialized) struct FleetExampleTests {
    @Test func aDeviceFeedsTheServerThroughTheBroker() async throws {
        let fleet = try FleetExample()
        let dir = fleet.dir
        try await fleet.broker.start()
        let collector = try await fleet.collect(["owntracks/#", "locus/#"], into: "broker")
        defer { collector.kill9() }
        try await fleet.startServer()
        let serverFixes = try fleet.subscribe(.server, ["obs.fix."])
        defer { serverFixes.kill9() }
        let deviceLocation = try fleet.subscribe(.device, ["location."])
        defer { deviceLocation.kill9() }
        // Subscribed before the device starts: its walk reaches the depot within seconds.
        let fenceEvents = try ChildProcess(E2E.binary, ["sub", "region.enter.depot.van7", "-c", "1", "--json"], directory: dir,
                                           environment: fleet.environment(.server))
        defer { fenceEvents.kill9() }
        try await Task.sleep(for: .milliseconds(500))
        try fleet.startDevice()
        // The server's bus gets the device's updates as obs.fix.van7 (read with locus sub).
        let sub = try await runToEnd(E2E.binary, ["sub", "obs.fix.van7", "-c", "3", "--json"], directory: dir,
                                     environment: fleet.environment(.server), timeout: 30)
        #expect(sub.status == 0 && sub.stdout.split(separator: "\n").count == 3, "\(sub.stderr)\n\(fleet.device?.stderr.suffix(2000) ?? "")")
        #expect(sub.stdout.contains("\"source\":\"van7\""))
        // The server's per-device standard service keeps the device's own state.
        let own = try await runToEnd(E2E.binary, ["sub", "location.update.here.van7", "-c", "1", "--json"], directory: dir,
                                     environment: fleet.environment(.server), timeout: 30)
        #expect(own.status == 0 && own.stdout.contains("\"source\":\"van7\""), "\(own.stderr)")
        // Its per-device region service: the depot fence, van7's own state, valid events.
        #expect(await fenceEvents.wait(timeout: 60) == 0, "\(fenceEvents.stderr)")
        #expect(fenceEvents.stdout.contains("\"device\":\"van7\""), "\(fenceEvents.stdout)")
        try fenceEvents.stdout.write(toFile: dir + "/fences.jsonl", atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", dir + "/fences.jsonl"], directory: dir)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let devices = try await runToEnd(E2E.binary, ["ctl", "region", "devices"], directory: dir,
                                         environment: fleet.environment(.server), timeout: 20)
        #expect(devices.status == 0 && devices.stdout.contains("van7"), "\(devices.stdout)\(devices.stderr)")
        // And the broker has its OwnTracks locations for Home Assistant.
        #expect(await waitUntil(timeout: 10) {
            CollectedMQTTMessage.read(dir + "/broker.jsonl").contains { $0.topic == "owntracks/fleet/van7" && $0.payload.contains("\"_type\":\"location\"") }
        })
        // And the depot fence as a waypoint Home Assistant can import as a zone.
        #expect(CollectedMQTTMessage.read(dir + "/broker.jsonl").contains {
            $0.topic == "owntracks/fleet/van7/waypoint" && $0.payload.contains("\"desc\":\"Depot\"") && $0.payload.contains("\"rad\":150")
        })

        // Item 7: one device, one device on the server: its own OwnTracks output (for Home
        // Assistant) is not taken for a phone called fleet-van7.
        func types(_ p: ChildProcess, _ type: String) -> Int { subscribedEnvelopes(p.stdout).filter { $0["type"] as? String == type }.count }
        #expect(await waitUntil(timeout: 30) { types(deviceLocation, "location.update") >= 8 }, "\(deviceLocation.stderr)")
        let fixSources = Set(subscribedEnvelopes(serverFixes.stdout).compactMap { ($0["payload"] as? [String: Any])?["source"] as? String })
        #expect(fixSources == ["van7"], "the server's obs.fix sources: \(fixSources.sorted())")
        let phones = (try await fleet.status(.server)["plugins"] as? [[String: Any]])?.first { $0["plugin"] as? String == "phones" }
        let phoneCounters = phones?["counters"] as? [String: Any] ?? [:]
        #expect(phoneCounters["devices"] as? Int == 0 && (phoneCounters["ignored_topic"] as? Int ?? 0) > 0, "phones: \(phoneCounters)")
        // Item 8: the device's diagnostics do not flap on the sparse recording, and they stay
        // on the device: none on the broker.
        let updates = types(deviceLocation, "location.update"), statuses = types(deviceLocation, "location.status")
        #expect(statuses * 2 < updates, "\(statuses) location.status for \(updates) location.update on the device's bus")
        let uplinked = CollectedMQTTMessage.read(dir + "/broker.jsonl").filter { $0.topic.hasPrefix("locus/van7/") }
        let flaps = uplinked.filter { $0.topic.hasPrefix("locus/van7/location/status/") }.count
        #expect(flaps == 0, "\(flaps) of \(uplinked.count) messages the device sent to the broker are location.status")
    }

    /// Issue 30, item 9: the broker restarts (SIGTERM, 10 s away, started again with the same
    /// mosquitto.conf) while the device keeps moving. Every location update the device made —
    /// before, during and after the outage — reaches the server's bus, and nothing is counted
    /// as dropped on either side.
    @Test func aBrokerRestartLosesNoUpdate() async throws {
        let fleet = try FleetExample()
        try await fleet.broker.start()
        try await fleet.startServer()
        let made = try fleet.subscribe(.device, ["location.update.here"])
        defer { made.kill9() }
        let arrived = try fleet.subscribe(.server, ["obs.fix.van7"])
        defer { arrived.kill9() }
        try await Task.sleep(for: .milliseconds(500))
        try fleet.startDevice()
        /// Updates by their event time (the server's obs.fix carries the update's time).
        func times(_ p: ChildProcess) -> Set<String> { Set(subscribedEnvelopes(p.stdout).compactMap { $0["time"] as? String }) }
        #expect(await waitUntil(timeout: 30) { times(arrived).count >= 3 }, "\(arrived.stderr)\n\(fleet.device?.stderr.suffix(2000) ?? "")")
        await fleet.broker.stop()
        try await Task.sleep(for: .seconds(10))
        try await fleet.broker.start()
        try await Task.sleep(for: .seconds(5))
        let sent = times(made)
        #expect(await waitUntil(timeout: 45) { sent.isSubset(of: times(arrived)) })
        let lost = sent.subtracting(times(arrived))
        #expect(lost.isEmpty, "\(lost.count) of \(sent.count) updates the device made never reached the server: \(lost.sorted())")
        for side in [FleetExample.Side.server, .device] {
            let drops = try await fleet.drops(side)
            #expect(drops.isEmpty, "\(side): \(drops)")
        }
    }
}
