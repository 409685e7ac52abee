import LocusCore

/// What a condition-monitoring service (region, beacon) stored before a restart, reconciled with
/// the conditions its config defines now. Config wins for its own ids; a stored state goes with
/// its condition only while the condition's definition is unchanged.
public struct RestoredConditions<Condition, Record> {
    /// The configured conditions, then the runtime ones read back, each with the state stored
    /// for its id (nil when none). The caller applies a record only if it still matches.
    public var conditions: [(condition: Condition, record: Record?)] = []
    /// Runtime ids that config now defines: their stored definitions were dropped.
    public var replacedByConfig: [String] = []
    /// States whose condition is unchanged (the ones that carry over).
    public var restoredStates = 0
    /// Deletions to commit: replaced or unreadable definitions, and the states of conditions
    /// that are gone or changed.
    public var changes = StateChanges()
}

extension ServiceStateStore {
    /// Reads the `condition` and `state` collections back and reconciles them with `configured`.
    ///
    /// - Parameters:
    ///   - id: a condition's id (the key of its records).
    ///   - runtime: decodes a stored runtime condition; throwing drops it (reported to `unreadable`).
    ///   - record: decodes a stored state; nil drops it.
    ///   - unchanged: whether a stored state was made for this definition of the condition.
    public func restoreConditions<Condition, Record>(
        configured: [Condition], id: (Condition) -> String,
        runtime: (JSONValue) throws -> Condition, record: (JSONValue) -> Record?,
        unchanged: (Record, Condition) -> Bool,
        unreadable: (String, any Error) -> Void
    ) throws -> RestoredConditions<Condition, Record> {
        var result = RestoredConditions<Condition, Record>()
        var all = configured
        let configuredIDs = Set(configured.map(id))
        for (key, value) in try records(in: "condition") {
            if configuredIDs.contains(key) {
                result.replacedByConfig.append(key)
                result.changes.delete("condition", key: key)
                continue
            }
            do {
                all.append(try runtime(value))
            } catch {
                unreadable(key, error)
                result.changes.delete("condition", key: key)
            }
        }
        var stored: [String: Record] = [:]
        for (key, value) in try records(in: "state") { if let r = record(value) { stored[key] = r } }
        for c in all {
            let r = stored.removeValue(forKey: id(c))
            if let r {
                if unchanged(r, c) { result.restoredStates += 1 } else { result.changes.delete("state", key: id(c)) }
            }
            result.conditions.append((c, r))
        }
        // States of conditions that are gone start over.
        for key in stored.keys.sorted() { result.changes.delete("state", key: key) }
        return result
    }
}
