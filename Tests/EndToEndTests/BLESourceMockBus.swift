import Foundation

/// A private D-Bus daemon with python-dbusmock's BlueZ template on it, for the `ble` source's
/// end-to-end tests: no Bluetooth hardware and no system bus needed.
final class BLESourceMockBus {
    static let dbusDaemon = "/usr/bin/dbus-daemon"

    /// dbus-daemon and python3-dbusmock are installed (Debian packages dbus-daemon, python3-dbusmock).
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: dbusDaemon) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.python)
        p.arguments = ["-c", "import dbus, dbusmock, zmq"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    let directory: String
    let address: String
    private var daemon: ChildProcess?
    private(set) var mock: ChildProcess?

    init(directory: String) {
        self.directory = directory
        address = "unix:path=\(directory)/bus.sock"
    }

    /// Starts the bus daemon and the mock, and waits until `org.bluez` is on the bus.
    /// `policy`: extra `<policy context="default">` rules (after allowing everything), as a
    /// system bus restricts who may talk to bluetoothd.
    func start(policy: String? = nil) async throws {
        var configArgument = "--session"
        if let policy {
            let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <policy context="default">
                <allow send_destination="*"/>
                <allow own="*"/>
                <allow receive_sender="*"/>
                \(policy)
              </policy>
            </busconfig>
            """
            try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
            configArgument = "--config-file=\(directory)/bus.conf"
        }
        daemon = try ChildProcess(Self.dbusDaemon, [configArgument, "--nofork", "--nopidfile", "--address=\(address)"],
                                  directory: directory)
        let up = await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: self.directory + "/bus.sock") }
        guard up else { throw MockBusError("dbus-daemon did not start: \(daemon?.stderr ?? "")") }
        try await startMock()
    }

    /// Starts (or restarts, after `killMock`) bluetoothd's stand-in.
    func startMock() async throws {
        mock = try ChildProcess(E2E.python, ["-m", "dbusmock", "--session", "-t", "bluez5"], directory: directory,
                                environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        let r = try await ctl(["wait-bluez", "--timeout", "20"])
        guard r.status == 0 else { throw MockBusError("dbusmock did not come up: \(mock?.stderr ?? "") \(r.stderr)") }
    }

    /// Stops the mock the way bluetoothd crashes or restarts: it leaves the bus at once.
    func killMock() async {
        guard let m = mock else { return }
        m.kill9()
        _ = await m.wait(timeout: 5)
        mock = nil
    }

    /// Runs `Scripts/ble_mock_ctl.py` against the bus.
    @discardableResult
    func ctl(_ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runToEnd(E2E.python, [E2E.script("ble_mock_ctl.py"), "--bus", address] + args, directory: directory, timeout: 30)
    }

    /// Like `ctl`, but a failure is an error.
    func run(_ args: [String]) async throws {
        let r = try await ctl(args)
        guard r.status == 0 else { throw MockBusError("ble_mock_ctl.py \(args.joined(separator: " ")) failed: \(r.stderr)") }
    }

    /// Kills the bus daemon (and the mock, which cannot live without it), as when dbus-daemon restarts.
    func killDaemon() async {
        daemon?.kill9()
        _ = await daemon?.wait(timeout: 5)
        daemon = nil
        await killMock()
        try? FileManager.default.removeItem(atPath: directory + "/bus.sock")
    }

    func stop() {
        mock?.kill9()
        daemon?.kill9()
    }

    deinit { stop() }
}

struct MockBusError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A `locus run` with one `ble` source on the mock bus, and a collector of what it publishes.
final class BLESourceRun {
    let directory: String
    /// What a ZeroMQ subscriber (collect.py) received.
    let eventsPath: String
    /// What the runtime's file sink wrote: subscribed in-process before the source starts, so it
    /// also holds the first statuses, which an outside subscriber may connect too late for.
    let sinkPath: String
    private(set) var locus: ChildProcess?
    private var collector: ChildProcess?

    init(directory: String) {
        self.directory = directory
        eventsPath = directory + "/events.jsonl"
        sinkPath = directory + "/sink.jsonl"
    }

    /// `options`: more keys of the source, one YAML line each.
    /// `adapter` nil leaves the key out (the source takes the first adapter).
    func start(bus: String, adapter: String? = "hci0", options: [String] = []) async throws {
        let keys = (adapter.map { ["adapter: \($0)"] } ?? []) + options
        let config = """
        sources:
          - type: ble
            id: ble0
            bus: "\(bus)"
        \(keys.map { "    " + $0 + "\n" }.joined())sinks:
          - type: file
            id: record
            path: \(sinkPath)
            topics: ["obs.ble.", "status.ble0"]
        """
        try config.write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        collector = try ChildProcess(E2E.python, [E2E.script("collect.py"), "--endpoint", "ipc://\(directory)/publish.sock",
                                                  "--prefix", "obs.ble.", "--prefix", "status.ble0", "--max-wait", "120",
                                                  "--ready-file", directory + "/ready", "--out", eventsPath],
                                     directory: directory)
        locus = try ChildProcess(E2E.binary, ["run", directory + "/config.yaml"], directory: directory,
                                 environment: ["LOCUS_RUNTIME_DIR": directory])
        // collect.py connects before the hub binds its ipc socket; ZeroMQ reconnects on its own.
        let ready = await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: self.directory + "/ready") }
        guard ready else { throw MockBusError("collector not ready: \(collector?.stderr ?? "")") }
    }

    var messages: [RecordedMessage] { RecordedMessage.read(eventsPath) }
    var advertisements: [[String: Any]] { messages.filter { $0.type == "obs.ble" }.map(\.payload) }
    var statuses: [(state: String, reason: String)] {
        RecordedMessage.read(sinkPath).filter { $0.type == "status.plugin" }.map { ($0.payload["state"] as? String ?? "", $0.payload["reason"] as? String ?? "") }
    }

    /// Waits until `condition` holds for what was collected so far.
    func waitFor(_ what: String, timeout: Double = 20, _ condition: @escaping (BLESourceRun) -> Bool) async throws {
        let ok = await waitUntil(timeout: timeout) { condition(self) }
        guard ok else {
            throw MockBusError("timed out waiting for \(what); collected:\n\((try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? "")\nlocus stderr:\n\(locus?.stderr.suffix(3000) ?? "")")
        }
    }

    /// Stops locus (SIGTERM), then the collector; returns locus' exit status.
    func stop() async -> Int32? {
        let status = await locus?.terminate(timeout: 10).status
        try? await Task.sleep(nanoseconds: 300_000_000)
        _ = await collector?.terminate(timeout: 5)
        return status
    }

    deinit {
        locus?.kill9()
        collector?.kill9()
    }
}

/// `Fixtures/ble-source/vectors.json`: advertisements split into BlueZ's properties.
struct BLEVector {
    var id: String
    var manufacturerData: [String: String]
    var serviceData: [String: String]
    var beacon: [String: Any]

    static func load() throws -> [String: BLEVector] {
        let data = try Data(contentsOf: URL(fileURLWithPath: E2E.fixture("ble-source/vectors.json")))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        var out: [String: BLEVector] = [:]
        for v in root?["vectors"] as? [[String: Any]] ?? [] {
            let id = v["id"] as? String ?? ""
            out[id] = BLEVector(id: id, manufacturerData: v["manufacturer_data"] as? [String: String] ?? [:],
                                serviceData: v["service_data"] as? [String: String] ?? [:], beacon: v["beacon"] as? [String: Any] ?? [:])
        }
        return out
    }

    /// `ble_mock_ctl.py update` arguments that put this advertisement on a device.
    var updateArguments: [String] {
        manufacturerData.sorted { $0.key < $1.key }.flatMap { ["--mfr", "\($0.key):\($0.value)"] }
            + serviceData.sorted { $0.key < $1.key }.flatMap { ["--svc", "\($0.key):\($0.value)"] }
    }
}
