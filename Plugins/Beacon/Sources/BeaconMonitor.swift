import LocusConditions
import LocusCore

/// The settings of one monitor (see `BeaconConfiguration`).
public struct BeaconSettings: Sendable, Equatable {
    public var exitTimeout: Double
    public var rangeInterval: Double
    public var rangeTimeout: Double
    public var proximity: ProximityModel
    public var filter: RSSIFilter.Parameters
    public var defaultMeasuredPower: Int

    public init(exitTimeout: Double = 30, rangeInterval: Double = 1, rangeTimeout: Double = 5,
                proximity: ProximityModel = .init(), filter: RSSIFilter.Parameters = .init(), defaultMeasuredPower: Int = -59) {
        self.exitTimeout = exitTimeout
        self.rangeInterval = rangeInterval
        self.rangeTimeout = rangeTimeout
        self.proximity = proximity
        self.filter = filter
        self.defaultMeasuredPower = defaultMeasuredPower
    }

    init(_ c: BeaconConfiguration) {
        self.init(exitTimeout: c.exitTimeout, rangeInterval: c.rangeInterval, rangeTimeout: c.rangeTimeout,
                  proximity: c.proximity, filter: c.filter, defaultMeasuredPower: c.defaultMeasuredPower)
    }
}

/// One advertisement as the monitor uses it: the decoded identity, never the MAC address.
public struct BeaconObservation: Sendable, Equatable {
    public var identity: BeaconIdentity
    public var rssi: Int
    /// Calibrated power at 1 m from the frame, dBm; nil uses `default_measured_power`.
    public var measuredPower: Int?
    public var source: String
    public var time: EventTime

    public init(identity: BeaconIdentity, rssi: Int, measuredPower: Int?, source: String, time: EventTime) {
        self.identity = identity
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.source = source
        self.time = time
    }
}

/// An event a beacon monitor decides.
enum BeaconMonitorEvent: Sendable, Equatable {
    case enter(BeaconEventBody)
    case exit(BeaconEventBody)
    case range(BeaconRange)
}

/// The beacon service without I/O: the shared condition monitor (`ConditionMonitor`) with the
/// beacon kind's way of deciding from advertisements and event time.
///
/// Rules (reasons in Plugins/Beacon/README.md):
/// - A matching advertisement makes a condition satisfied at once (`beacon.enter` unless it
///   already was); its identity is the event's refinement.
/// - A satisfied condition becomes unsatisfied (`beacon.exit`) on the first message (an
///   advertisement or a clock tick) at or after `last heard + exit_timeout`.
/// - An unknown condition becomes unsatisfied silently `exit_timeout` after monitoring began
///   with nothing heard: a device starts out of range of almost all its beacons.
/// - Ranging: while satisfied, every `range_interval`, the stay's beacons heard within
///   `range_timeout`, with the smoothed RSSI of one `RSSIFilter` per identity (shared by every
///   condition it matches), the distance and the band with hysteresis, nearest first.
/// - Each device's whole memory is a `BeaconDeviceState.Snapshot` the runtime keeps
///   (`BeaconService.state`): after a restart the monitor continues exactly where it was, so the
///   output is the one an uninterrupted run gives. A restart after more than `exit_timeout` is
///   like any other gap in the input: the first message exits what was not heard since.
///
/// Devices: by default every advertisement is the one device's (key `""`). With `perDevice`
/// each device (the caller names it) has its own records, deadlines and filters against the
/// shared conditions and index, from its first advertisement.
typealias BeaconMonitor = ConditionMonitor<BeaconDeviceState>

extension ConditionMonitor where Device == BeaconDeviceState {
    init(monitorID: String, settings: BeaconSettings, perDevice: Bool = false) {
        self.init(monitorID: monitorID, kind: BeaconKind(settings: settings), perDevice: perDevice)
    }

    var settings: BeaconSettings { kind.settings }

    /// Ids of the conditions `identity` satisfies, sorted.
    mutating func matching(_ identity: BeaconIdentity) -> [String] { withKind { $0.index.matches(identity) } }

    /// Applies one advertisement heard by `device`: first its deadlines up to the
    /// advertisement's time, then the advertisement. Returns the events: those of deadlines
    /// first (by due time, then id), then enters by id.
    mutating func receive(_ o: BeaconObservation, device: String = "") -> [BeaconMonitorEvent] {
        let monitorID = self.monitorID
        return withDevice(device) { d, conditions, kind in
            d.receive(o, matching: kind.index.matches(o.identity), conditions: conditions, settings: kind.settings,
                      monitorID: monitorID)
        }
    }

    /// A message without an advertisement for `device` (a clock tick): its deadlines up to `time`.
    mutating func tick(at time: EventTime, device: String = "") -> [BeaconMonitorEvent] {
        let monitorID = self.monitorID
        return withDevice(device) { d, conditions, kind in
            d.advance(to: time, conditions: conditions, settings: kind.settings, monitorID: monitorID)
        }
    }

    /// After a restart: `device`'s memory as committed, over the conditions as they are now.
    /// `toCommit`: a memory not committed in this form (imported from an earlier version's
    /// store), so the next `takeChanges` includes the device.
    mutating func restore(device: String, _ s: BeaconDeviceState.Snapshot, toCommit: Bool = false) {
        withDevice(device) { d, _, _ in d.restore(s, changed: toCommit) }
    }

    /// A snapshot of `id`'s state for `device` (`beacon.state`).
    func snapshot(_ id: String, device: String = "") -> BeaconEventBody? {
        guard let c = conditions[id], let r = record(id, device: device) else { return nil }
        var b = BeaconDeviceState.body(c, r, previous: r.state, monitorID: monitorID)
        if perDevice { b.device = device }
        return b
    }
}
