import LocusCore

/// The states an earlier version's own region store held (`region-<id>.sqlite`, before the
/// runtime kept service state), imported with its conditions at the first start after the
/// upgrade, so that a device inside a fence then is not told it entered it again:
///
/// - `state`, by condition id: with one device, the condition's record; per device, a record
///   holding only the fingerprint (nothing to carry over);
/// - `device_state`, by `<device>/<condition id>`: per device, the records;
/// - `device`, by device: per device, its first and last fix times.
///
/// The records are `ConditionRecord`'s JSON without device and region, which it still reads.
struct EarlierRegionRecords {
    /// Collection of the earlier store → prefix of the records the runtime imports its rows as.
    static let collections = ["state": prefix + "state/", "device_state": prefix + "device_state/", "device": prefix + "device/"]
    static let prefix = "earlier/"

    private(set) var records: [String: [String: ConditionRecord]] = [:]
    /// The fingerprint of each condition's shape as the earlier store knew it (its `state`
    /// rows): what the current `fence/` records tell, so that a condition whose shape did not
    /// change keeps its records.
    private(set) var fingerprints: [String: String] = [:]
    private(set) var times: [String: RegionDeviceState.Times] = [:]
    /// Rows that did not read, or name a condition that no longer exists.
    private(set) var unusable = 0
    private var deviceStates: [(key: Substring, value: JSONValue)] = []

    /// Takes one imported record (key with `prefix`); false for a key of another kind.
    mutating func take(_ key: String, _ value: JSONValue, perDevice: Bool) -> Bool {
        guard key.hasPrefix(Self.prefix) else { return false }
        let rest = key.dropFirst(Self.prefix.count)
        if rest.hasPrefix("state/") {
            guard let r = ConditionRecord(json: value) else {
                unusable += 1
                return true
            }
            let rid = String(rest.dropFirst("state/".count))
            fingerprints[rid] = r.fingerprint
            // Per device, these rows held only fingerprints: the records are in `device_state`.
            if !perDevice { records["", default: [:]][rid] = r }
        } else if rest.hasPrefix("device_state/") {
            deviceStates.append((rest.dropFirst("device_state/".count), value))
        } else if rest.hasPrefix("device/") {
            times[String(rest.dropFirst("device/".count))] = RegionDeviceState.Times(json: value)
        } else {
            unusable += 1
        }
        return true
    }

    /// Places the `device_state` rows, once the conditions are known: their key joins device
    /// and condition id with a `/`. Both are topic segments, which hold none, but the split is
    /// made where the rest is a known condition (the longest such id) rather than trusted.
    mutating func resolve(conditionIDs: Set<String>, perDevice: Bool) {
        defer { deviceStates = [] }
        guard perDevice else { return }
        for (key, value) in deviceStates {
            var split: (device: String, rid: String)?
            var i = key.startIndex
            while let slash = key[i...].firstIndex(of: "/") {
                let rid = String(key[key.index(after: slash)...])
                if conditionIDs.contains(rid) {
                    split = (String(key[..<slash]), rid)
                    break
                }
                i = key.index(after: slash)
            }
            guard let split, let r = ConditionRecord(json: value) else {
                unusable += 1
                continue
            }
            records[split.device, default: [:]][split.rid] = r
        }
    }
}

extension RegionService {
    /// What the restore took from an earlier version's store: devices and the conditions whose
    /// records came from it, and the devices whose times did.
    struct ImportedEarlier {
        var records: [String: Set<String>] = [:]
        var times: Set<String> = []
    }

    /// Adds the earlier store's records and times to those being restored, where the current
    /// form holds none.
    mutating func importEarlier(_ earlier: inout EarlierRegionRecords, into byDevice: inout [String: [String: ConditionRecord]],
                                times: inout [String: RegionDeviceState.Times]) -> ImportedEarlier {
        earlier.resolve(conditionIDs: Set(monitor.ids), perDevice: monitor.perDevice)
        var imported = ImportedEarlier()
        for (device, records) in earlier.records {
            for (rid, r) in records where byDevice[device]?[rid] == nil {
                byDevice[device, default: [:]][rid] = r
                imported.records[device, default: []].insert(rid)
            }
        }
        for (device, t) in earlier.times where times[device] == nil {
            times[device] = t
            imported.times.insert(device)
        }
        if earlier.unusable > 0 {
            logger.warning("some states of the earlier region store could not be used (unreadable, or of a condition that no longer exists); those conditions start undecided", metadata: [
                "plugin": "\(id)", "rows": "\(earlier.unusable)"])
        }
        return imported
    }

    /// Writes what was imported and restored in the current form (the earlier rows are deleted).
    mutating func keepImported(_ imported: ImportedEarlier, devices: Set<String>) {
        for (device, rids) in imported.records where devices.contains(device) {
            for rid in rids.sorted() {
                guard let r = monitor.record(rid, device: device) else { continue }
                pendingRecords[Self.recordKey(device: device, rid)] = .some(try? JSONValue.read(r.encoded(device: device, region: rid)))
            }
        }
        for device in imported.times.union(imported.records.keys) where devices.contains(device) {
            pendingRecords[Self.deviceKey(device)] = .some(try? JSONValue.read(monitor.times(device: device).encoded))
        }
    }
}
