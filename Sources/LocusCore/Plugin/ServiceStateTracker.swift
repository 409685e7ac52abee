/// What the runtime (and `ServiceDriver`) commits of a service's state: records, each a key and
/// the encoded state it stands for. A `StatefulService` is one record (`service`); a
/// `PerDeviceService` around one is a record per device (`device/<name>`), so a fleet server
/// commits only the devices a batch changed; a `KeyedStatefulService` names its own records.
///
/// Holds the last committed state, so `changes(in:)` returns nothing while the state stays the
/// same: a batch that changed nothing and published nothing needs no commit (processing its
/// messages again after a restart gives the same nothing).
public struct ServiceStateTracker {
    /// The record of a whole-service state.
    public static let serviceKey = "service"
    /// The prefix of a per-device record; the device follows.
    public static let devicePrefix = "device/"

    private enum Shape { case single, perDevice, keyed }
    private let shape: Shape
    private var committed: (any Equatable)?
    /// Key prefixes of the records that change with nearly every message, which the runtime
    /// logs (`KeyedStatefulService.loggedRecordPrefixes`; every device of a per-device service).
    public let loggedPrefixes: [String]

    /// Whether the record `key` is one the runtime logs.
    public func isLogged(_ key: String) -> Bool {
        for p in loggedPrefixes where key.hasPrefix(p) { return true }
        return false
    }

    /// A tracker for `service`, or nil when it keeps no state the runtime knows of.
    public init?(for service: any ServicePlugin) {
        if let k = service as? any KeyedStatefulService {
            guard k.keepsState else { return nil }
            shape = .keyed
            loggedPrefixes = k.loggedRecordPrefixes
        } else if let s = service as? any StatefulService {
            guard s.keepsState else { return nil }
            shape = .single
            committed = s.anyState
            loggedPrefixes = []
        } else if let p = service as? PerDeviceService, p.isStateful {
            shape = .perDevice
            loggedPrefixes = [Self.devicePrefix]
        } else {
            return nil
        }
    }

    /// The records that changed since the last call (or since the tracker was made), encoded;
    /// nil for a record deleted.
    public mutating func changes(in service: inout any ServicePlugin) throws -> [(key: String, value: [UInt8]?)] {
        switch shape {
        case .keyed:
            guard var k = service as? any KeyedStatefulService else { return [] }
            // `k` is a copy: while `service` holds the original too, the service's storage has
            // two owners, and the first change `takeStateChanges` makes copies it whole (copy
            // on write): a fleet's table of 10,000 devices, once per batch.
            service = Vacated()
            defer { service = k }
            return try k.takeStateChanges()
        case .single:
            guard let s = service as? any StatefulService else { return [] }
            let now = s.anyState
            if let committed, statesEqual(committed, now) { return [] }
            let bytes = try s.encodedState()
            committed = now
            return [(Self.serviceKey, bytes)]
        case .perDevice:
            guard let p = service as? PerDeviceService else { return [] }
            return try p.takeChangedStates().map { (key: Self.devicePrefix + $0.device, value: $0.state) }
        }
    }

    /// Puts committed `records` into a fresh `service` (a record of another shape is ignored:
    /// the config changed from or to `per_device`). Throws when a record does not decode.
    public mutating func restore(_ records: [String: [UInt8]], into service: inout any ServicePlugin) throws {
        switch shape {
        case .keyed:
            guard var k = service as? any KeyedStatefulService else { return }
            try k.restoreState(records)
            service = k
        case .single:
            guard var s = service as? any StatefulService, let bytes = records[Self.serviceKey] else { return }
            try s.restoreState(from: bytes)
            committed = s.anyState
            service = s
        case .perDevice:
            guard var p = service as? PerDeviceService else { return }
            var devices: [String: [UInt8]] = [:]
            for (key, value) in records where key.hasPrefix(Self.devicePrefix) {
                devices[String(key.dropFirst(Self.devicePrefix.count))] = value
            }
            try p.restoreStates(devices)
            service = p
        }
    }
}

/// What holds a service's place while the tracker works on it through another protocol.
private struct Vacated: ServicePlugin {
    var subscriptions: [String] { [] }
    var produces: [String] { [] }
    mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}
}
