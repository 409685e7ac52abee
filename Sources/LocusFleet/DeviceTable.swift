import Foundation

/// The devices a fleet source (`mqtt`, `nats`) has seen: the bus id each topic or subject maps
/// to, and a token bucket per device so one flooding its topic cannot crowd out the others.
/// Bounded by `maxDevices`.
///
/// The bucket refills by the time that passed on the wall clock or between the fixes' own
/// times, whichever is more: a backlog a device (or the broker, for this source's session)
/// sends at once after an outage carries fixes seconds or minutes apart and passes, while a
/// device sending many fixes for the same moments is held to `maxRate`. Fix time refills from an
/// allowance of `backlogSeconds` that itself refills with the wall clock, so invented times buy
/// at most that much at once.
public struct DeviceTable {
    private struct Device {
        var id: String
        var tokens: Double
        var refilled: Double
        /// The latest fix time seen (seconds), nil before the first.
        var newestFix: Double?
        /// Seconds of fixes' own time that may still refill the bucket (`backlogSeconds` at most).
        var backlogCredit = DeviceTable.backlogSeconds
    }

    let levels: [Int]
    /// What separates the levels: '/' in MQTT topics, '.' in NATS subjects.
    let separator: Character
    let maxDevices: Int
    let maxRate: Double
    /// Only devices of this partition are admitted (`partition: "i/n"`).
    let partition: (index: Int, count: Int)?
    private var devices: [String: Device] = [:]

    public init(levels: [Int], separator: Character = "/", maxDevices: Int, maxRate: Double, partition: (index: Int, count: Int)? = nil) {
        self.levels = levels
        self.separator = separator
        self.maxDevices = maxDevices
        self.maxRate = maxRate
        self.partition = partition
    }

    public var count: Int { devices.count }

    /// How much of its fixes' own time a device may spend at once to refill its bucket: an
    /// hour of fixes may arrive together after an outage.
    public static let backlogSeconds = 3600.0

    public enum Admission: Equatable, Sendable { case publish(String), badDevice, tooManyDevices, rateLimited, otherPartition }

    /// Whether a message on `topic` at wall-clock `now` (seconds), whose fix is of time
    /// `fixTime` (seconds, event time), may be published, and as which device.
    public mutating func admit(topic: String, now: Double, fixTime: Double? = nil) -> Admission {
        let parts = topic.split(separator: separator, omittingEmptySubsequences: false)
        guard levels.allSatisfy({ $0 < parts.count }) else { return .badDevice }
        let key = levels.map { String(parts[$0]) }.joined(separator: "-")
        if devices[key] == nil {
            guard let id = Self.busId(key) else { return .badDevice }
            // Another server's device: not kept, so the table holds this partition only.
            if let partition, PartitionHash.partition(of: id, count: partition.count) != partition.index { return .otherPartition }
            guard devices.count < maxDevices else { return .tooManyDevices }
            devices[key] = Device(id: id, tokens: max(1, maxRate), refilled: now)
        }
        guard maxRate > 0 else { return .publish(devices[key]!.id) }
        var d = devices[key]!
        // A burst of one second's worth is allowed; then max_rate per second, of the wall
        // clock or of the fixes' own time (a backlog), whichever passed more. A fix older than
        // the newest seen adds nothing.
        // The fixes' own time is spent from an allowance of `backlogSeconds` that refills with
        // the wall clock: a device that invents times a second apart gets at most that much
        // extra at once, and twice `maxRate` in the long run, not an unlimited rate.
        let wall = now - d.refilled
        var elapsed = wall
        d.backlogCredit = min(Self.backlogSeconds, d.backlogCredit + max(0, wall))
        if let fixTime {
            if let newest = d.newestFix, fixTime > newest {
                let gain = min(fixTime - newest, d.backlogCredit)
                d.backlogCredit -= gain
                elapsed = max(elapsed, gain)
            }
            d.newestFix = max(d.newestFix ?? fixTime, fixTime)
        }
        d.tokens = min(max(1, maxRate), d.tokens + elapsed * maxRate)
        d.refilled = now
        guard d.tokens >= 1 else { devices[key] = d; return .rateLimited }
        d.tokens -= 1
        devices[key] = d
        return .publish(d.id)
    }

    /// A topic segment (docs/protocol.md 3.2: a-z 0-9 _ -, at most 64 bytes) for a device key:
    /// lower-cased, other characters as '-'. Nil when nothing usable is left.
    public static func busId(_ key: String) -> String? {
        var out = ""
        for c in key.lowercased().unicodeScalars {
            let ok = ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
            out.unicodeScalars.append(ok ? c : "-")
        }
        out = String(out.prefix(64))
        return out.contains(where: { $0 != "-" && $0 != "_" }) ? out : nil
    }
}
