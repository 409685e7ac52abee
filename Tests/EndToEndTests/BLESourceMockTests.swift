import Foundation
import Testing

/// The `ble` source in `locus run` against python-dbusmock's BlueZ template on a private bus:
/// real sd-bus, real D-Bus daemon, the real BlueZ D-Bus API shape (ObjectManager signals,
/// PropertiesChanged, Adapter1 methods), and what reaches a ZeroMQ subscriber.
@Suite(.serialized, .enabled(if: BLESourceMockBus.isAvailable,
                             "dbus-daemon or python3-dbusmock is not installed (Debian packages dbus-daemon, python3-dbusmock)"))
struct BLESourceMockTests {
    static let iBeaconA = "AA:BB:CC:00:00:01"
    static let eddystoneUID = "AA:BB:CC:00:00:02"
    static let eddystoneURL = "AA:BB:CC:00:00:03"
    static let randomOne = "5A:11:22:33:44:55"
    static let randomTwo = "7B:66:77:88:99:00"
    static let afterRestart = "AA:BB:CC:00:00:04"

    static func advertisements(_ run: BLESourceRun, _ address: String) -> [[String: Any]] {
        run.advertisements.filter { $0["address"] as? String == address }
    }

    /// True when every key of `expected` is in `beacon` with an equal value.
    static func matches(_ beacon: Any?, _ expected: [String: Any]) -> Bool {
        guard let b = beacon as? [String: Any] else { return false }
        return expected.allSatisfy { k, v in "\(b[k] ?? "nil")" == "\(v)" }
    }

    @Test func publishesAdvertisementsAndRecoversFromABluetoothdRestart() async throws {
        let vectors = try BLEVector.load()
        let iBeacon = try #require(vectors["aosp-04"]), uid = try #require(vectors["aosp-02"]), url = try #require(vectors["beacontools-02"])
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bus = BLESourceMockBus(directory: dir)
        defer { bus.stop() }
        try await bus.start()
        try await bus.run(["add-adapter", "hci0"])
        #expect(try await bus.ctl(["discovering", "hci0"]).stdout == "false\n")

        let run = BLESourceRun(directory: dir)
        try await run.start(bus: bus.address)
        try await run.waitFor("status connected") { $0.statuses.contains { $0.state == "connected" } }
        // SetDiscoveryFilter + StartDiscovery reached the adapter.
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "10"]).stdout == "true\n")
        #expect(try await bus.ctl(["discovery-filter", "hci0"]).stdout == #"{"DuplicateData": true, "Transport": "le"}"# + "\n")
        let startedAt = Date().timeIntervalSince1970

        // An iBeacon: appears (the template's RSSI -79, no data yet), advertises, RSSI changes.
        try await bus.run(["add-device", "hci0", Self.iBeaconA, "BlueCharm_169685"])
        try await bus.run(["update", "hci0", Self.iBeaconA, "--rssi", "-60", "--tx-power", "-4"] + iBeacon.updateArguments)
        // An RSSI of the wrong type is skipped (and counted), not published, and breaks nothing.
        try await bus.run(["update", "hci0", Self.iBeaconA, "--rssi-as-text", "loud"])
        try await bus.run(["update", "hci0", Self.iBeaconA, "--rssi", "-62"])
        try await bus.run(["update", "hci0", Self.iBeaconA, "--rssi", "-58"])
        // Eddystone UID and URL.
        try await bus.run(["add-device", "hci0", Self.eddystoneUID, "uid"])
        try await bus.run(["update", "hci0", Self.eddystoneUID, "--rssi", "-70"] + uid.updateArguments)
        try await bus.run(["add-device", "hci0", Self.eddystoneURL, "url"])
        try await bus.run(["update", "hci0", Self.eddystoneURL, "--rssi", "-71"] + url.updateArguments)
        // One beacon seen through two random (rotating) addresses.
        for mac in [Self.randomOne, Self.randomTwo] {
            try await bus.run(["add-device", "hci0", mac, "phone"])
            try await bus.run(["update", "hci0", mac, "--rssi", "-80", "--address-type", "random"] + iBeacon.updateArguments)
        }
        // Removed, then found again: the source starts afresh (no manufacturer data kept).
        try await bus.run(["remove-device", "hci0", Self.iBeaconA])
        try await bus.run(["add-device", "hci0", Self.iBeaconA, "again"])
        try await run.waitFor("the first advertisements") { Self.advertisements($0, Self.iBeaconA).count == 5 && Self.advertisements($0, Self.randomTwo).count == 2 }

        // bluetoothd crashes and comes back (the adapter with it).
        await bus.killMock()
        try await run.waitFor("status disconnected") { r in r.statuses.contains { $0.state == "disconnected" && $0.reason.contains("bluetoothd left the bus") } }
        try await bus.startMock()
        try await bus.run(["add-adapter", "hci0"])
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "10"]).stdout == "true\n", "StartDiscovery not called after the restart")
        try await run.waitFor("status connected again") { r in
            let s = r.statuses.map(\.state)
            guard let gone = s.firstIndex(of: "disconnected") else { return false }
            return s[gone...].contains("connected")
        }
        try await bus.run(["add-device", "hci0", Self.afterRestart, "late"])
        try await bus.run(["update", "hci0", Self.afterRestart, "--rssi", "-66"] + uid.updateArguments)
        try await run.waitFor("an advertisement after the restart") { Self.advertisements($0, Self.afterRestart).count == 2 }
        let stopStatus = await run.stop()
        #expect(stopStatus == 0, "\(run.locus?.stderr ?? "")")

        // The iBeacon: RSSI sequence, then the re-appeared device without the old data.
        let a = Self.advertisements(run, Self.iBeaconA)
        #expect(a.map { $0["rssi"] as? Int } == [-79, -60, -62, -58, -79])
        try #require(a.count == 5)
        #expect(a[0]["beacon"] == nil && a[0]["manufacturer_data"] == nil && a[4]["manufacturer_data"] == nil && a[4]["beacon"] == nil)
        for adv in a[1...3] {
            #expect(Self.matches(adv["beacon"], iBeacon.beacon), "\(adv)")
            #expect(adv["address_type"] as? String == "public")
            #expect(adv["tx_power"] as? Int == -4)
            let mfr = adv["manufacturer_data"] as? [[String: Any]]
            #expect(mfr?.count == 1 && mfr?[0]["company_id"] as? Int == 76 && mfr?[0]["data"] as? String == iBeacon.manufacturerData["76"])
            let svc = adv["service_data"] as? [[String: Any]]
            #expect(svc?.count == 1 && svc?[0]["uuid"] as? String == "2080" && svc?[0]["data"] as? String == "691e0efe1355", "\(adv)")
        }
        #expect(a[1]["name"] as? String == "BlueCharm_169685")

        // Eddystone.
        let u = Self.advertisements(run, Self.eddystoneUID)
        #expect(u.map { $0["rssi"] as? Int } == [-79, -70])
        #expect(Self.matches(u.last?["beacon"], uid.beacon), "\(u)")
        let l = Self.advertisements(run, Self.eddystoneURL)
        #expect(Self.matches(l.last?["beacon"], url.beacon), "\(l)")
        let feaa = (l.last?["service_data"] as? [[String: Any]])?.first { $0["uuid"] as? String == "feaa" }
        #expect(feaa?["data"] as? String == url.serviceData["0000feaa-0000-1000-8000-00805f9b34fb"])

        // Two random addresses, one beacon identity.
        let r1 = try #require(Self.advertisements(run, Self.randomOne).last), r2 = try #require(Self.advertisements(run, Self.randomTwo).last)
        #expect(r1["address_type"] as? String == "random" && r2["address_type"] as? String == "random")
        let b1 = try #require(r1["beacon"] as? [String: Any]), b2 = try #require(r2["beacon"] as? [String: Any])
        #expect(NSDictionary(dictionary: b1) == NSDictionary(dictionary: b2))
        #expect(Self.matches(b1, iBeacon.beacon))

        // After the restart.
        let late = Self.advertisements(run, Self.afterRestart)
        #expect(Self.matches(late.last?["beacon"], uid.beacon))

        // Sources stamp with the wall clock at reception.
        let stamped = try Self.eventTimes(run.eventsPath)
        #expect(!stamped.isEmpty && stamped.allSatisfy { $0 >= startedAt - 1 && $0 <= Date().timeIntervalSince1970 + 1 }, "\(stamped)")

        // Status: connected; disconnected because bluetoothd left (then, depending on timing, because
        // the restarted mock had no adapter yet); connected. Runtime states (starting, running, …) aside.
        let states = run.statuses.filter { ["connected", "disconnected", "no_data"].contains($0.state) }
        #expect(states.first?.state == "connected" && states.last?.state == "connected", "\(states)")
        let middle = states.dropFirst().dropLast()
        #expect(middle.first?.reason == "bluetoothd left the bus" && middle.allSatisfy { $0.state == "disconnected" }, "\(states)")
        #expect(middle.dropFirst().allSatisfy { $0.reason == "adapter hci0 not found" }, "\(states)")
        // The file sink and the ZeroMQ subscriber saw the same advertisements.
        let sunk = RecordedMessage.read(run.sinkPath).filter { $0.type == "obs.ble" }
        #expect(sunk.map(\.seq) == run.messages.filter { $0.type == "obs.ble" }.map(\.seq))
        let stderr = run.locus?.stderr ?? ""
        #expect(stderr.contains("malformed=1 "), "the skipped RSSI is counted: \(stderr.suffix(2000))")
        for mac in [Self.iBeaconA, Self.randomOne] {
            #expect(!stderr.contains(mac), "an address reached the log")
        }
    }

    /// Envelope times (seconds since 1970) of the obs.ble lines in a recording file.
    static func eventTimes(_ path: String) throws -> [Double] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.split(separator: "\n").compactMap { line -> Double? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let e = o["envelope"] as? [String: Any], e["type"] as? String == "obs.ble",
                  let t = e["time"] as? String, let d = f.date(from: t) else { return nil }
            return d.timeIntervalSince1970
        }
    }

    @Test func waitsForTheAdapterAndRestartsDiscoveryWhenItIsPoweredBackOn() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bus = BLESourceMockBus(directory: dir)
        defer { bus.stop() }
        try await bus.start()
        let run = BLESourceRun(directory: dir)
        try await run.start(bus: bus.address)
        try await run.waitFor("adapter not found") { r in r.statuses.contains { $0.state == "disconnected" && $0.reason == "adapter hci0 not found" } }

        try await bus.run(["add-adapter", "hci0"])
        try await run.waitFor("connected") { $0.statuses.last?.state == "connected" }
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "10"]).stdout == "true\n")

        try await bus.run(["power", "hci0", "off"])
        try await run.waitFor("powered off") { r in r.statuses.last.map { $0.state == "disconnected" && $0.reason == "adapter hci0 is powered off" } ?? false }
        // A powered-off adapter stops discovering; the source must start it again, not assume it.
        try await bus.run(["stop-discovering", "hci0"])
        try await bus.run(["power", "hci0", "on"])
        try await run.waitFor("connected after power on") { $0.statuses.last?.state == "connected" }
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "10"]).stdout == "true\n", "StartDiscovery not called again")

        try await bus.run(["add-device", "hci0", "AA:BB:CC:00:00:09", "x"])
        try await run.waitFor("an advertisement") { !$0.advertisements.isEmpty }
        let stopStatus = await run.stop()
        #expect(stopStatus == 0)
        let states = run.statuses.filter { ["connected", "disconnected", "no_data"].contains($0.state) }
        #expect(states.map(\.state) == ["disconnected", "connected", "disconnected", "connected"], "\(states)")
        #expect(run.advertisements.map { $0["rssi"] as? Int } == [-79])
    }

    @Test func reconnectsWhenTheBusDaemonRestartsAndAppliesTheRSSIThreshold() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bus = BLESourceMockBus(directory: dir)
        defer { bus.stop() }
        try await bus.start()
        try await bus.run(["add-adapter", "hci1"])
        try await bus.run(["add-adapter", "hci0"])
        let run = BLESourceRun(directory: dir)
        // No `adapter`: the first BlueZ lists (by object path) is used, the other left alone.
        try await run.start(bus: bus.address, adapter: nil, options: ["rssi_threshold: -90", "duplicate_data: false"])
        try await run.waitFor("connected") { $0.statuses.last?.state == "connected" }
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "10"]).stdout == "true\n")
        #expect(try await bus.ctl(["discovering", "hci1"]).stdout == "false\n")
        #expect(try await bus.ctl(["discovery-filter", "hci0"]).stdout == #"{"DuplicateData": false, "RSSI": -90, "Transport": "le"}"# + "\n")
        let mac = "AA:BB:CC:00:00:07"
        try await bus.run(["add-device", "hci0", mac, "d"])
        try await bus.run(["update", "hci0", mac, "--rssi", "-95"])
        try await bus.run(["update", "hci0", mac, "--rssi", "-85"])
        try await run.waitFor("two advertisements") { $0.advertisements.count == 2 }

        await bus.killDaemon()
        try await run.waitFor("disconnected") { $0.statuses.last?.state == "disconnected" }
        try await bus.start()
        try await bus.run(["add-adapter", "hci0"])
        #expect(try await bus.ctl(["wait-discovering", "hci0", "--timeout", "20"]).stdout == "true\n", "no StartDiscovery on the new bus")
        try await run.waitFor("connected again") { $0.statuses.last?.state == "connected" }
        try await bus.run(["add-device", "hci0", mac, "d"])
        try await bus.run(["update", "hci0", mac, "--rssi", "-60"])
        // collect.py's subscription reconnects on its own; the file sink is in-process.
        let sunk = { RecordedMessage.read(run.sinkPath).filter { $0.type == "obs.ble" }.map { $0.payload["rssi"] as? Int } }
        try await run.waitFor("advertisements after the bus restart") { _ in sunk().count == 4 }
        let stopStatus = await run.stop()
        #expect(stopStatus == 0)
        #expect(sunk() == [-79, -85, -79, -60])
        let states = run.statuses.filter { ["connected", "disconnected", "no_data"].contains($0.state) }
        // The reason changes as the bus, then bluetoothd, then the adapter come back (timing decides
        // which of these it sees); the first names the lost connection.
        #expect(states.first?.state == "connected" && states.last?.state == "connected", "\(states)")
        let middle = states.dropFirst().dropLast()
        #expect(!middle.isEmpty && middle.allSatisfy { $0.state == "disconnected" }, "\(states)")
        #expect(middle.first?.reason.contains("D-Bus connection lost") == true, "\(states)")
    }

    @Test func reportsWhenTheBusPolicyDeniesAccessToBluetoothd() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bus = BLESourceMockBus(directory: dir)
        defer { bus.stop() }
        // Like a system bus whose bluetooth.conf lets only root and the bluetooth group in (the
        // mock's own test interface stays reachable so the test can drive it).
        try await bus.start(policy: #"<deny send_destination="org.bluez" send_interface="org.freedesktop.DBus.ObjectManager"/>"#)
        try await bus.run(["add-adapter", "hci0"])
        let run = BLESourceRun(directory: dir)
        try await run.start(bus: bus.address)
        try await run.waitFor("access denied") { r in r.statuses.contains { $0.state == "disconnected" && $0.reason.hasPrefix("access to bluetoothd denied (run as root or in the bluetooth group)") } }
        #expect(try await bus.ctl(["discovering", "hci0"]).stdout == "false\n")
        let stopStatus = await run.stop()
        #expect(stopStatus == 0)
        #expect(!run.statuses.contains { $0.state == "connected" })
    }
}
