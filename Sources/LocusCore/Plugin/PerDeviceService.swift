/// One service instance per device, for a server fed by a fleet (`per_device: true` on a service
/// entry): each device's messages go to its own copy of the configured service, which keeps its
/// own state, and each event it emits is published on its topic with the device appended
/// (`location.update.here` → `location.update.here.<device>`). The payload already names the
/// device: it is the fix source (`source`) of location, visit and significant-change events.
///
/// The device of a message is its topic's last segment (`obs.fix.<device>`, or
/// `location.update.<service>.<device>` from another per-device service). `clock.tick` goes to
/// every device's instance, in device order, so timeouts fire per device and a replay gives the
/// same events at any speed. A device's instance is made from the configured one on its first
/// message; past `maxDevices` instances, a new device's messages are dropped and counted
/// (`dropped_too_many_devices`). Services with control commands (beacon) keep one state per service and are
/// refused, unless they are a `DeviceKeyedService` (region), which keys its state by device
/// itself.
///
/// When the configured service is a `StatefulService`, each device's state is a record of its
/// own for the runtime (`ServiceStateTracker`): a batch commits the devices it changed.
public struct PerDeviceService: ServicePlugin {
    private let prototype: any ServicePlugin
    private var instances: [String: any ServicePlugin] = [:]
    private var orderedDevices: [String] = []
    /// Whether the configured service keeps state the runtime commits.
    public let isStateful: Bool
    /// Devices whose state changed since `takeChangedStates`. A box, so that the runtime takes
    /// them from a copy of the service without copying its table of instances.
    private let changed = ChangedDevices()
    /// Devices with an instance at most (`max_devices`).
    public let maxDevices: Int
    public private(set) var counters = Counters()

    public struct Counters: Sendable, Equatable {
        /// Messages of a new device when `max_devices` devices already have an instance.
        public var droppedTooManyDevices = 0
    }

    private final class ChangedDevices {
        var devices: Set<String> = []
    }

    public init(prototype: any ServicePlugin, maxDevices: Int = PluginSetup.defaultMaxDevices) {
        self.prototype = prototype
        self.maxDevices = maxDevices
        isStateful = (prototype as? any StatefulService)?.keepsState ?? false
    }

    public var subscriptions: [String] { prototype.subscriptions }

    /// The configured service's topics, each as a family: `<topic>.<device>`.
    public var produces: [String] { prototype.produces.map { $0.hasSuffix(".") ? $0 : $0 + "." } }

    /// Devices with an instance so far.
    public var deviceCount: Int { instances.count }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
        if message.topic.hasPrefix("clock.") {
            for device in orderedDevices { try deliver(message, to: device, output: &output) }
            return
        }
        guard let dot = message.topic.lastIndex(of: ".") else { return }
        let device = String(message.topic[message.topic.index(after: dot)...])
        if instances[device] == nil {
            guard instances.count < maxDevices else {
                counters.droppedTooManyDevices += 1
                return
            }
            instances[device] = prototype
            // Kept sorted so ticks visit devices in one order whatever order they appeared in.
            let at = orderedDevices.firstIndex { $0 > device } ?? orderedDevices.endIndex
            orderedDevices.insert(device, at: at)
        }
        try deliver(message, to: device, output: &output)
    }

    private mutating func deliver(_ message: BusMessage, to device: String, output: inout ServiceOutput) throws {
        var own = ServiceOutput()
        if isStateful {
            let before = (instances[device] as? any StatefulService)?.anyState
            try instances[device]!.receive(message, output: &own)
            let after = (instances[device] as? any StatefulService)?.anyState
            if let before, let after, !statesEqual(before, after) { changed.devices.insert(device) }
        } else {
            try instances[device]!.receive(message, output: &own)
        }
        for e in own.events { output.append(e, topic: e.topic + "." + device) }
    }

    /// The encoded states of the devices whose state changed since the last call, in device
    /// order; nil for a device forgotten (`replaceDeviceStates`).
    public func takeChangedStates() throws -> [(device: String, state: [UInt8]?)] {
        defer { changed.devices.removeAll(keepingCapacity: true) }
        return try changed.devices.sorted().map { device in
            guard let instance = instances[device] else { return (device, nil) }
            guard let s = instance as? any StatefulService else { return (device, nil) }
            return (device, try s.encodedState())
        }
    }

    /// Gives each device in `states` an instance holding its committed state.
    public mutating func restoreStates(_ states: [String: [UInt8]]) throws {
        for (device, bytes) in states {
            guard var s = prototype as? any StatefulService else { return }
            try s.restoreState(from: bytes)
            place(device, s)
        }
        changed.devices.removeAll()
    }

    private mutating func place(_ device: String, _ instance: any ServicePlugin) {
        if instances[device] == nil {
            let at = orderedDevices.firstIndex { $0 > device } ?? orderedDevices.endIndex
            orderedDevices.insert(device, at: at)
        }
        instances[device] = instance
    }
}

/// A device's state is its instance's (`StatefulService.encodedState`).
extension PerDeviceService: DeviceStateTransfer {
    public var movesDeviceState: Bool { isStateful }

    public func deviceStates(where isIncluded: (String) -> Bool) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for device in orderedDevices where isIncluded(device) {
            if let s = instances[device] as? any StatefulService { out[device] = try s.encodedState() }
        }
        return out
    }

    public mutating func replaceDeviceStates(where isIncluded: (String) -> Bool, with states: [String: [UInt8]]) throws {
        guard isStateful, let prototype = prototype as? any StatefulService else { return }
        // Every state decodes before anything changes.
        var restored: [String: any ServicePlugin] = [:]
        for (device, bytes) in states {
            var s = prototype
            try s.restoreState(from: bytes)
            restored[device] = s
        }
        let forgotten = orderedDevices.filter { isIncluded($0) && restored[$0] == nil }
        for device in forgotten {
            instances[device] = nil
            changed.devices.insert(device)
        }
        if !forgotten.isEmpty { orderedDevices.removeAll { instances[$0] == nil } }
        for (device, s) in restored {
            place(device, s)
            changed.devices.insert(device)
        }
    }
}

extension PerDeviceService: ReportsCounters {
    public var reportedCounters: [String: UInt64] { CounterFields.flatten(counters) }
}

/// A service that keeps one state per device itself when built with `PluginSetup.perDevice`
/// (shared conditions and commands, per-device state and persistence), instead of being
/// wrapped in `PerDeviceService`. An implementer must, with `perDevice`: take the device from
/// the topic's last segment as `PerDeviceService` does, publish each event on its topic with
/// `.<device>` appended, name the device in the payload, and keep at most
/// `PluginSetup.maxDevices` devices, dropping and counting (`dropped_too_many_devices`) the
/// messages of further ones.
public protocol DeviceKeyedService: ServicePlugin {}
