import LocusCore
import LocusFleet
import LocusFormats

/// libFuzzer's per-input callback: what a fleet server reads from NATS that anyone with access to
/// the stream or the group's bucket could have written. The input as a lease value
/// (`Lease(bytes:)`) and a partition position (`PartitionPosition(bytes:)`), as read from the
/// bucket; then as a message of the `nats` source's stream: its payload read in both formats
/// (`IncomingLocation.read`) and, split at its first newline, its subject mapped to a device
/// (`DeviceTable.admit`, as the source does with '.' between tokens).
/// Invariants: nothing traps; a value that reads as a lease or position writes back to bytes that
/// read as the same; an accepted position is in range; an admitted device is a topic segment
/// (a-z 0-9 _ -, 1 to 64 bytes, not only - and _). The input as a foreign `member.` key and a
/// `partition.` lease holds no partition past a lease of the reader's clock (issue 49: far-future,
/// negative and huge numbers); a position resumes within what the stream holds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if let lease = Lease(bytes: bytes) {
        precondition(Lease(bytes: lease.bytes) == lease, "invariant broken: a lease does not read back as itself: \(lease)")
    }
    if let position = PartitionPosition(bytes: bytes) {
        precondition(PartitionPosition(bytes: position.bytes) == position, "invariant broken: a position does not read back: \(position)")
        checkResume(position.sequence, bytes)
    }
    checkLeaseExpiry(bytes)

    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let subject = String(decoding: bytes[..<newline], as: UTF8.self)
    let payload = Array(bytes[min(newline + 1, bytes.count)...])
    for format in IncomingLocation.Format.allCases {
        guard case .success(let location) = payload.withUnsafeBytes({ IncomingLocation.read($0, format: format) }) else { continue }
        precondition((-90...90).contains(location.latitude) && (-180...180).contains(location.longitude),
                     "invariant broken: an accepted position is out of range: \(location)")
    }
    var table = DeviceTable(levels: [1, 2], separator: ".", maxDevices: 4, maxRate: 1, partition: (0, 2))
    if case .publish(let device) = table.admit(topic: subject, now: 0, fixTime: 0) {
        let ok = device.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
        precondition(ok && (1...64).contains(device.utf8.count) && device.contains { $0 != "-" && $0 != "_" },
                     "invariant broken: '\(device)' is not a topic segment")
    }
    return 0
}

/// The input as another member's key and as partition 0's lease in a group of one member with a
/// 3 s lease (a wall clock in 2025): whatever it says, after three leases of the member's own
/// clock the member holds both partitions.
func checkLeaseExpiry(_ bytes: [UInt8]) {
    let store = MemoryLeaseStore()
    _ = try? store.create("member.other", bytes)
    _ = try? store.create("partition.0", bytes)
    let member = PartitionMember(id: "fuzz", partitions: 2, leaseMs: 3_000, store: store, wallClockMs: { 1_760_000_000_000 })
    var now: Int64 = 0
    var bad = 0
    for _ in 0..<10 {
        guard let changes = try? member.step(now: now) else { preconditionFailure("invariant broken: a memory store threw") }
        bad += changes.badValues
        now += 1_000
    }
    precondition(member.owns(0, now: now - 1_000) && member.owns(1, now: now - 1_000),
                 "invariant broken: a value in the bucket stranded a partition: \(String(decoding: bytes, as: UTF8.self))")
    precondition(bad <= 2, "invariant broken: one value counted \(bad) times")
}

/// A position against a stream whose first and last sequences the input's hash picks (around
/// the position, or anywhere): reading resumes at a sequence the stream holds, and a position
/// within it is kept.
func checkResume(_ position: UInt64, _ bytes: [UInt8]) {
    let h = UInt64(PartitionHash.fnv1a(bytes))
    // Near the position (two below to two above it) or anywhere; the first at most one past the last.
    let last: UInt64 = h & 1 == 0 ? (position >= 2 ? position - 2 : 0) &+ (h >> 8) % 5 : h >> 4
    let candidate: UInt64 = (h >> 16) % 4 == 0 ? (h >> 20) % 16 : position &- (h >> 24) % 3 &+ 1
    let first = min(last == UInt64.max ? last : last + 1, candidate)
    let resume = StreamResume.resume(after: position, first: first, last: last)
    precondition(resume.readAfter <= last, "invariant broken: \(resume) reads past the stream's last \(last)")
    if position <= last, first <= 1 || position >= first - 1 {
        precondition(resume == .after(position), "invariant broken: \(resume) for a position within \(first)...\(last)")
    }
}
