import LocusCore

// The states an earlier version's own beacon store held (`beacon-<id>.sqlite`, before the
// runtime kept service state): its `state` rows, one `BeaconRecord` per condition id (it had
// one device), imported with its conditions at the first start after the upgrade. Without them
// a beacon heard before the upgrade would start undecided, and going out of range would publish
// no `beacon.exit` (an undecided condition becomes unsatisfied silently).

extension BeaconService {
    /// The prefix the runtime imports the earlier `state` rows under.
    static let earlierStatePrefix = "earlier/state/"

    /// One device's memory from the earlier records, as the earlier version resumed them: each
    /// condition not known to be out of range is looked at with the next message (its exit
    /// deadline is worked out from `last_heard` then), an undecided one starts its timeout then.
    /// Records whose condition is gone or has another match are dropped by the restore.
    static func snapshot(ofEarlier records: [String: BeaconRecord]) -> BeaconDeviceState.Snapshot {
        var entries: [String: BeaconDeviceState.Snapshot.EntryState] = [:]
        for (id, r) in records {
            entries[id] = .init(record: r, start: nil, nextRange: nil,
                                scheduled: r.state == .unsatisfied ? nil : EventTime(milliseconds: .min))
        }
        return .init(entries: entries, trackers: [], pendingStart: records.filter { $0.value.state == .unknown }.keys.sorted(),
                     nextTrackerSweep: nil, lastTime: nil)
    }
}
