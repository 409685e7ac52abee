/// A service whose state is kept per device and can move, device by device, to another server:
/// the runtime takes it out of one server's instance and puts it into another's when a fleet's
/// partition changes owner (a `nats` source in a group, Plugins/NATS/README.md).
///
/// A device's state is everything `receive` reads that came from that device's earlier
/// messages, so that an instance given a device's state goes on exactly as the instance it was
/// taken from would (services are deterministic on event time). State shared by all devices
/// (conditions, commands) does not move: every server builds it from the same configuration.
///
/// An implementer must:
/// - in `deviceStates`, return the state of each device `isIncluded` selects that has one,
///   encoded as one JSON value (it travels inside a JSON document) that its own
///   `replaceDeviceStates` reads back;
/// - in `replaceDeviceStates`, give each device in `states` that state and every other device
///   `isIncluded` selects none (as if it had sent nothing yet), and report every record this
///   changes to the runtime's state tracking (the next commit writes them). It throws, having
///   changed nothing, when any state does not decode.
public protocol DeviceStateTransfer: ServicePlugin {
    /// False when this instance keeps no per-device state (not `per_device`, or no state kept):
    /// the runtime then moves nothing of it.
    var movesDeviceState: Bool { get }
    /// The state of each device `isIncluded` selects that has one, each a JSON value.
    func deviceStates(where isIncluded: (String) -> Bool) throws -> [String: [UInt8]]
    /// Replaces the state of the devices `isIncluded` selects with `states` (devices not in it
    /// are forgotten). Throws, changing nothing, when a state does not decode.
    mutating func replaceDeviceStates(where isIncluded: (String) -> Bool, with states: [String: [UInt8]]) throws
}

/// The state of devices on its way between servers: per service id, per device, the bytes
/// `DeviceStateTransfer.deviceStates` gave.
public struct DeviceStateBundle: Equatable, Sendable {
    public var services: [String: [String: [UInt8]]]

    public init(services: [String: [String: [UInt8]]] = [:]) { self.services = services }

    /// Every device with a state in any service.
    public var devices: Set<String> { Set(services.values.flatMap(\.keys)) }

    /// The part of the bundle for the devices `isIncluded` selects.
    public func filter(_ isIncluded: (String) -> Bool) -> DeviceStateBundle {
        DeviceStateBundle(services: services.mapValues { $0.filter { isIncluded($0.key) } })
    }
}

/// What a source that hands a fleet's devices between servers (a `nats` source in a group) sees
/// of the runtime's services (`PluginContext.deviceStates`). Blocking: call it from the source's
/// own thread, never from the cooperative pool.
public protocol DeviceStateExchange: Sendable {
    /// The services' state of the devices `isIncluded` selects, taken once every message this
    /// source published before the call has been processed (and committed) by every service
    /// that moves device state, and every event those services published in turn by the others.
    /// The caller publishes nothing meanwhile, so the state is exactly that of its messages so
    /// far. Throws when a service does not get there within `timeout` seconds (it is behind, or
    /// restarting): then nothing is known of the state, and the caller must not claim any.
    func export(where isIncluded: @escaping @Sendable (String) -> Bool, timeout: Double) throws -> DeviceStateBundle
    /// Gives the devices `isIncluded` selects the state in `bundle` (the others of them none), in
    /// every service that moves device state, after the messages this source published before
    /// the call; returns once all have it (and committed it). Throws when a service refuses a
    /// state or does not get there within `timeout` seconds.
    func replace(where isIncluded: @escaping @Sendable (String) -> Bool, with bundle: DeviceStateBundle, timeout: Double) throws
}

/// A sink that forwards events off the server and learns when they arrived (a `nats` sink: the
/// stream acknowledged them). A device state exchange waits for it before it claims a position:
/// a position checkpointed while events it caused were still only in this server's memory would
/// lose them if the server died then (the next owner derives only what follows the position).
public protocol AcknowledgingSink: SinkPlugin {
    /// True when every message the sink has taken so far (asked the next one after) has been
    /// acknowledged by its destination, or dropped and counted.
    var isSettled: Bool { get }
}
