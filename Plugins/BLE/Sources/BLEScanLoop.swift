import Foundation
import LocusCore
import Logging

/// Set from the task that is cancelled, read by the scanning thread.
final class StopFlag: @unchecked Sendable {
    /// Guards `stopped`.
    private let lock = NSLock()
    private var stopped = false
    func stop() { lock.withLock { stopped = true } }
    var isStopped: Bool { lock.withLock { stopped } }
}

/// Why scanning is not running right now; the text goes into the `disconnected` status.
struct ScanUnavailable: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// The scanning loop. It runs on a thread of its own because the sd-bus connection must stay on
/// one thread and its calls block (each for at most `callTimeout`); it waits for bus traffic at
/// most `waitSlice` at a time and checks `stop` in between.
struct BLEScanLoop {
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let waitSlice = 0.1
    static let callTimeout = 3.0

    let configuration: BLEConfiguration
    let context: PluginContext
    let statistics: BLEStatistics
    let stop: StopFlag

    private var topic: String { "obs.ble.\(context.id)" }
    private var busName: String { configuration.busAddress ?? "system bus" }

    /// Connects, scans, and recovers until `stop` is set.
    func run() {
        var status = BLEStatusReporter(context: context)
        var session = BLEScanSession(source: context.id, rssiThreshold: configuration.rssiThreshold,
                                     minInterval: configuration.minInterval)
        var backoff = BLESource.initialBackoff
        while !stop.isStopped {
            let reason: String
            var scanned = false
            do {
                let bus = try DBusConnection(address: configuration.busAddress)
                defer { bus.close() }
                for rule in BlueZSignal.matchRules { try bus.addMatch(rule) }
                context.logger.info("connected to D-Bus", metadata: ["bus": "\(busName)"])
                reason = try serve(bus, session: &session, status: &status, scanned: &scanned)
            } catch {
                reason = "\(error)"
            }
            session.use(adapter: nil)
            statistics.update(session.counters)
            if stop.isStopped { break }
            if scanned { backoff = BLESource.initialBackoff }
            let level: Logger.Level = status.current == .disconnected ? .debug : .info
            status.set(.disconnected, reason)
            context.logger.log(level: level, "D-Bus unavailable; retrying", metadata: [
                "bus": "\(busName)", "reason": "\(reason)", "retry_in": "\(backoff)"])
            sleep(seconds: backoff)
            backoff = min(backoff * 2, configuration.reconnectMax)
        }
        statistics.update(session.counters)
        let c = session.counters
        context.logger.info("ble source stopped", metadata: [
            "advertisements": "\(c.advertisements)", "devices": "\(c.devicesSeen)", "malformed": "\(c.malformedValues)",
            "rate_limited": "\(c.rateLimited)", "below_threshold": "\(c.belowThreshold)", "discovery_starts": "\(c.discoveryStarts)"])
    }

    private func sleep(seconds: Double) {
        let until = Date().addingTimeInterval(seconds)
        while !stop.isStopped && Date() < until { usleep(useconds_t(Self.waitSlice * 1_000_000)) }
    }

    private func monotonic() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Handles one bus connection until it fails; returns why. `scanned` tells whether discovery
    /// ran on it (the reconnect backoff then starts again from the beginning).
    private func serve(_ bus: DBusConnection, session: inout BLEScanSession, status: inout BLEStatusReporter,
                       scanned: inout Bool) throws -> String {
        var setupAt: Double? = monotonic()
        var setupBackoff = BLESource.initialBackoff
        var malformedSignals = 0
        while !stop.isStopped {
            if let t = setupAt, monotonic() >= t {
                do {
                    try setUp(bus, session: &session)
                    setupAt = nil
                    setupBackoff = BLESource.initialBackoff
                    scanned = true
                    status.set(.connected, nil)
                } catch let e as ScanUnavailable {
                    session.use(adapter: nil)
                    status.set(.disconnected, e.description)
                    setupAt = monotonic() + setupBackoff
                    setupBackoff = min(setupBackoff * 2, configuration.reconnectMax)
                }
                statistics.update(session.counters)
            }
            // Drain what sd-bus has queued, then wait for more.
            var drained = false
            while !drained && !stop.isStopped {
                switch try bus.process() {
                case .idle: drained = true
                case .busy: continue
                case .message(let m):
                    guard m.isSignal else { continue }
                    let signal: BlueZSignal?
                    do {
                        signal = try BlueZSignal.decode(interface: m.interface, member: m.member, path: m.path, arguments: m.readAll())
                    } catch {
                        malformedSignals += 1
                        session.counters.malformedValues += 1
                        if malformedSignals <= 5 {
                            context.logger.warning("skipping malformed D-Bus signal", metadata: ["reason": "\(error)"])
                        }
                        continue
                    }
                    if let signal {
                        handle(signal, session: &session, status: &status, setupAt: &setupAt)
                    }
                }
            }
            statistics.update(session.counters)
            var wait = Self.waitSlice
            if let t = setupAt { wait = max(0, min(wait, t - monotonic())) }
            try bus.wait(timeout: wait)
        }
        return "stopped"
    }

    private func handle(_ signal: BlueZSignal, session: inout BLEScanSession, status: inout BLEStatusReporter,
                        setupAt: inout Double?) {
        let now = monotonic()
        switch signal {
        case .bluezOwnerChanged(let owner):
            if owner.isEmpty {
                session.use(adapter: nil)
                status.set(.disconnected, "bluetoothd left the bus")
                context.logger.info("bluetoothd left the bus; waiting for it to return")
                setupAt = nil // NameOwnerChanged says when it is back

            } else {
                context.logger.info("bluetoothd is on the bus")
                setupAt = now
            }
        case .interfacesAdded(let path, let ifaces):
            if ifaces[Self.adapterInterface] != nil && session.adapterPath == nil {
                setupAt = now
            }
            if let props = ifaces[Self.deviceInterface],
               let adv = session.deviceAdded(path: path, properties: props, now: now) {
                publish(adv)
            }
        case .interfacesRemoved(let path, let ifaces):
            if ifaces.contains(Self.adapterInterface) && path == session.adapterPath {
                session.use(adapter: nil)
                status.set(.disconnected, "adapter \(adapterName(path)) was removed")
                setupAt = nil // InterfacesAdded says when it is back
            } else if ifaces.contains(Self.deviceInterface) {
                session.deviceRemoved(path: path)
            }
        case .propertiesChanged(let path, let iface, let changed, let invalidated):
            if iface == Self.deviceInterface {
                if let adv = session.deviceChanged(path: path, changed: changed, invalidated: invalidated, now: now) {
                    publish(adv)
                }
            } else if iface == Self.adapterInterface, let powered = changed["Powered"]?.boolean {
                if path == session.adapterPath && !powered {
                    session.use(adapter: nil)
                    status.set(.disconnected, "adapter \(adapterName(path)) is powered off")
                    setupAt = nil // it is started again when Powered becomes true
                } else if powered && (session.adapterPath == nil) {
                    setupAt = now
                }
            }
        }
    }

    private func publish(_ adv: BLEAdvertisement) {
        // Sources stamp observations with the wall clock at reception; services run on that time.
        context.publish(adv, topic: topic, time: EventTime(seconds: Date().timeIntervalSince1970))
    }

    private func adapterName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }

    /// Finds the adapter, checks it is powered, seeds the known devices and starts discovery.
    /// Throws `ScanUnavailable` while bluetoothd, the adapter or its power is missing; other
    /// errors (the bus connection failed) end the connection.
    private func setUp(_ bus: DBusConnection, session: inout BLEScanSession) throws {
        let reply: DBusMessage
        do {
            reply = try bus.call(destination: BlueZSignal.bluezName, path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                                 member: "GetManagedObjects", timeout: Self.callTimeout)
        } catch let e as DBusError where e.name != nil {
            if e.name == "org.freedesktop.DBus.Error.ServiceUnknown" || e.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                throw ScanUnavailable("bluetoothd is not running (org.bluez is not on the bus)")
            }
            if e.name == "org.freedesktop.DBus.Error.AccessDenied" {
                throw ScanUnavailable("access to bluetoothd denied (run as root or in the bluetooth group): \(e.message)")
            }
            throw ScanUnavailable("GetManagedObjects failed: \(e)")
        }
        guard let value = try reply.readValue(), let objects = BlueZSignal.managedObjects(value) else {
            throw ScanUnavailable("GetManagedObjects returned an unexpected reply")
        }
        let adapters = objects.filter { $0.value[Self.adapterInterface] != nil }.keys.sorted()
        let path: String
        if let name = configuration.adapter {
            path = "/org/bluez/\(name)"
            guard adapters.contains(path) else { throw ScanUnavailable("adapter \(name) not found") }
        } else {
            guard let first = adapters.first else { throw ScanUnavailable("no Bluetooth adapter") }
            path = first
        }
        // Locus does not power adapters on: that is the administrator's (or rfkill's) decision.
        guard objects[path]?[Self.adapterInterface]?["Powered"]?.boolean == true else {
            throw ScanUnavailable("adapter \(adapterName(path)) is powered off")
        }
        session.use(adapter: path)
        let now = monotonic()
        for (p, ifaces) in objects {
            if let props = ifaces[Self.deviceInterface] {
                _ = session.deviceAdded(path: p, properties: props, now: now, seed: true)
            }
        }
        var filter: [DBusValue.DictEntry] = [
            .init(key: .string("Transport"), value: .variant(.string("le"))),
            .init(key: .string("DuplicateData"), value: .variant(.bool(configuration.duplicateData))),
        ]
        if let r = configuration.rssiThreshold {
            filter.append(.init(key: .string("RSSI"), value: .variant(.int16(Int16(r)))))
        }
        do {
            try bus.call(destination: BlueZSignal.bluezName, path: path, interface: Self.adapterInterface,
                         member: "SetDiscoveryFilter", timeout: Self.callTimeout, arguments: [.dict(filter)])
            try bus.call(destination: BlueZSignal.bluezName, path: path, interface: Self.adapterInterface,
                         member: "StartDiscovery", timeout: Self.callTimeout)
        } catch let e as DBusError where e.name != nil {
            // InProgress: this connection's discovery session is already running.
            if e.name != "org.bluez.Error.InProgress" {
                throw ScanUnavailable("cannot start discovery on \(adapterName(path)): \(e)")
            }
        }
        session.counters.discoveryStarts += 1
        context.logger.info("scanning for Bluetooth LE advertisements", metadata: [
            "adapter": "\(adapterName(path))", "devices_known": "\(session.devices.count)"])
    }
}

/// Reports status changes only (the runtime does not de-duplicate).
struct BLEStatusReporter {
    let context: PluginContext
    private(set) var current: PluginStatus.State?
    private var reason: String?

    init(context: PluginContext) { self.context = context }

    /// A new reason while still disconnected is reported too: it says what to fix next.
    mutating func set(_ state: PluginStatus.State, _ reason: String?) {
        guard state != current || reason != self.reason else { return }
        current = state
        self.reason = reason
        context.reportStatus(state, reason: reason)
    }
}
