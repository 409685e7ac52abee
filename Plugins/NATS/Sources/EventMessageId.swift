import LocusCore
import LocusFleet

/// The `Nats-Msg-Id` of an event: its topic and a hash of everything in its envelope but the
/// producer's sequence numbers. Services are deterministic on event time, so two servers that
/// derive the same event from the same fixes (a new owner re-running a partition after a
/// takeover) give it the same id, and JetStream stores it once; the sequence numbers, which each
/// process counts for itself, are left out for that reason.
public enum EventMessageId {
    public static func of(topic: String, envelope: Envelope) -> String {
        var stable = envelope
        stable.seq = 0
        stable.topicSeq = nil
        let bytes = EnvelopeCodec.encode(stable)
        // Two FNV-1a hashes over the bytes forwards and backwards: 64 bits, enough that two
        // different events of one topic within the duplicate window do not meet by chance.
        let forwards = PartitionHash.fnv1a(bytes)
        let backwards = PartitionHash.fnv1a(bytes.reversed())
        return topic + "/" + hex(forwards) + hex(backwards)
    }

    private static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
