import LocusCore
import Logging

/// The conditions a service keeps from `locus ctl <kind> add`, as the runtime gives them back
/// after a restart: `condition/<id>` records holding each definition.
public enum RuntimeConditions {
    public static let keyPrefix = "condition/"

    public static func key(_ id: String) -> String { keyPrefix + id }

    /// Where a `kind` service (`region`, `beacon`) kept its runtime conditions before the
    /// runtime kept service state: its `database:` path, or `<state_directory>/<kind>-<id>.sqlite`;
    /// its `condition` collection (one definition per id) becomes the `condition/<id>` records,
    /// and each of `stateCollections` (collection → record prefix) the kind's own records of
    /// the conditions' states, which it converts at restore.
    public static func earlierStore(kind: String, id: String, database: String?, setup: PluginSetup?,
                                    stateCollections: [String: String] = [:]) -> EarlierStateStore? {
        guard let path = database.map({ setup?.resolvePath($0) ?? $0 })
                ?? setup?.stateDirectory.map({ $0 + "/" + kind + "-" + id + ".sqlite" }) else { return nil }
        return EarlierStateStore(path: path, kind: kind, collections: stateCollections.merging(["condition": keyPrefix]) { _, c in c })
    }

    /// The runtime conditions in `records`, in id order, read with `read`. Config wins for its
    /// own ids: those are dropped with one warning. A record that does not read, or whose
    /// definition names another id, is dropped with an error. Returns the conditions kept and
    /// the keys to delete. Throws only `CancellationError` (many large definitions take a while;
    /// a stop asked meanwhile is not kept waiting).
    public static func restore<C: MonitoredCondition>(
        _ records: [String: [UInt8]], configuredIDs: Set<String>, kind: String, logger: Logger,
        read: (JSONValue) throws -> C
    ) throws -> (kept: [C], deleted: [String]) {
        var kept: [C] = []
        var deleted: [String] = []
        var replacedByConfig: [String] = []
        for (key, bytes) in records.sorted(by: { $0.key < $1.key }) where key.hasPrefix(keyPrefix) {
            let id = String(key.dropFirst(keyPrefix.count))
            if configuredIDs.contains(id) {
                replacedByConfig.append(id)
                deleted.append(key)
                continue
            }
            do {
                if Task.isCancelled { throw CancellationError() }
                let c = try read(try JSONValue.read(bytes))
                guard c.id == id else { throw ServiceStateError("the definition's id is \"\(c.id)\"") }
                kept.append(c)
            } catch let e as CancellationError {
                throw e
            } catch {
                logger.error("a saved \(kind) condition cannot be read; dropped", metadata: ["condition": "\(id)", "error": "\(error)"])
                deleted.append(key)
            }
        }
        if !replacedByConfig.isEmpty {
            logger.warning("config now defines ids that were added at runtime; the config's definitions are used", metadata: [
                "conditions": "\(replacedByConfig.joined(separator: ","))"])
        }
        return (kept, deleted)
    }
}
