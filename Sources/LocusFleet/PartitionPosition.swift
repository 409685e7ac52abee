import LocusCore

/// How far a partition's fixes were read, as the group's bucket keeps it (`position.<n>`): the
/// stream sequence of the last message handled, the epoch of the owner that wrote it, and the
/// services' state of the partition's devices after exactly that message (`state`, when services
/// move device state). A new owner puts the state into its services and starts after
/// `sequence`; it rewrites the key with its own epoch when it takes the partition, so a
/// zombie's next write (at the revision it last saw) conflicts.
public struct PartitionPosition: Equatable, Sendable {
    public var sequence: UInt64
    public var epoch: UInt64
    /// Per service, per device: the device's state as JSON; nil when none was written.
    public var state: DeviceStateBundle?

    public var bytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("epoch"); w.uint64(epoch)
        w.key("sequence"); w.uint64(sequence)
        if let state {
            w.key("state")
            w.beginObject()
            for (service, devices) in state.services.sorted(by: { $0.key < $1.key }) {
                w.key(service)
                w.beginObject()
                for (device, json) in devices.sorted(by: { $0.key < $1.key }) {
                    w.key(device)
                    w.rawValue(json)
                }
                w.endObject()
            }
            w.endObject()
        }
        w.endObject()
        return w.bytes
    }

    /// Nil for anything that is not a position (a key written by something else reads as "from the start").
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.decode(bytes), let sequence = value["sequence"]?.doubleValue,
              let epoch = value["epoch"]?.doubleValue, sequence >= 0, sequence < 9e15, epoch >= 0, epoch < 9e15 else { return nil }
        var state: DeviceStateBundle?
        if let s = value["state"] {
            guard case .object(let services) = s else { return nil }
            var bundle = DeviceStateBundle()
            for (service, devicesValue) in services {
                guard case .object(let devices) = devicesValue else { return nil }
                bundle.services[service] = devices.mapValues { $0.encoded() }
            }
            state = bundle
        }
        self.init(sequence: UInt64(sequence), epoch: UInt64(epoch), state: state)
    }

    public init(sequence: UInt64, epoch: UInt64, state: DeviceStateBundle? = nil) {
        self.sequence = sequence
        self.epoch = epoch
        self.state = state
    }
}
