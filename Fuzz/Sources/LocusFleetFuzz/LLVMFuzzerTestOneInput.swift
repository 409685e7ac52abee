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
/// (a-z 0-9 _ -, 1 to 64 bytes, not only - and _).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if let lease = Lease(bytes: bytes) {
        precondition(Lease(bytes: lease.bytes) == lease, "invariant broken: a lease does not read back as itself: \(lease)")
    }
    if let position = PartitionPosition(bytes: bytes) {
        precondition(PartitionPosition(bytes: position.bytes) == position, "invariant broken: a position does not read back: \(position)")
    }

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
