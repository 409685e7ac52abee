import LocusCore

/// How far a partition's fixes were read, as the group's bucket keeps it (`position.<n>`): the
/// stream sequence of the last message handled, and the epoch of the owner that wrote it. A new
/// owner starts after `sequence`; it rewrites the key with its own epoch when it takes the
/// partition, so a zombie's next write (at the revision it last saw) conflicts.
public struct PartitionPosition: Equatable, Sendable {
    public var sequence: UInt64
    public var epoch: UInt64

    public var bytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("sequence"); w.uint64(sequence)
        w.key("epoch"); w.uint64(epoch)
        w.endObject()
        return w.bytes
    }

    /// Nil for anything that is not a position (a key written by something else reads as "from the start").
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.decode(bytes), let sequence = value["sequence"]?.doubleValue,
              let epoch = value["epoch"]?.doubleValue, sequence >= 0, sequence < 9e15, epoch >= 0, epoch < 9e15 else { return nil }
        self.init(sequence: UInt64(sequence), epoch: UInt64(epoch))
    }

    public init(sequence: UInt64, epoch: UInt64) {
        self.sequence = sequence
        self.epoch = epoch
    }
}
