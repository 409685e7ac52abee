import Foundation
import LocusStore

/// `locus run --fresh` and `locus state reset`: a configuration's services start over (issue 50).
///
/// What goes: each service's saved state (its records, what it had processed of its inputs,
/// events committed but not yet published) and each looping replay's position. What stays: the
/// journal, and each service's sequence numbers (`seq`, `topic_seq`), so the events of the
/// fresh run continue the numbering the journal and subscribers know — unless `journal` is set,
/// which deletes the journal (and the positions of sinks that forward it, `mqtt`) and starts the
/// numbering over too.
///
/// Refused while a daemon runs on the state: every store is locked first (`StoreProcessLock`:
/// a running daemon holds its stores and its journal), and nothing is changed unless all are.
public enum StateReset {
    /// Why nothing was reset.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
        /// The request was wrong (an unknown plugin, one without state), not the moment.
        public var isUsage = false
    }

    /// Resets `configuration`'s state (every service and replay, or only the plugin `only`).
    /// Returns one line per thing discarded, for the user; empty when there was nothing saved.
    /// - Throws: `Refusal` (an unknown plugin, one that keeps no state, a running daemon) or the
    ///   store's own error.
    public static func reset(_ configuration: LocusConfiguration, only: String? = nil, journal: Bool = false) throws -> [String] {
        let directory = configuration.hub.stateDirectory
        var plugins = configuration.plugins
        if let only {
            guard let plugin = plugins.first(where: { $0.id == only }) else {
                let ids = plugins.filter(keepsState).map(\.id)
                throw Refusal(description: "\(configuration.file) has no plugin '\(only)'; plugins with state to reset: "
                    + (ids.isEmpty ? "none" : ids.joined(separator: ", ")), isUsage: true)
            }
            guard keepsState(plugin) else {
                throw Refusal(description: "'\(only)' (\(plugin.type)) keeps no state of its own to reset; services and replay sources do",
                              isUsage: true)
            }
            plugins = [plugin]
        }
        // Lock everything first: a running daemon holds its journal and its stores.
        var heldJournal: AnyObject?
        if FileManager.default.fileExists(atPath: directory + "/journal") {
            do { heldJournal = try EventJournal.holdLock(directory: directory + "/journal") } catch let error as StateStoreError where error.code == .inUse {
                throw running(directory, error, holding: directory + "/journal")
            }
        }
        defer { _ = heldJournal }
        var stores: [(id: String, store: ServiceStateStore)] = []
        defer { for entry in stores { try? entry.store.close() } }
        var lines: [String] = []
        for plugin in plugins where plugin.kind == .service {
            let path = directory + "/services/" + plugin.id + ".sqlite"
            let marker = path + ".created"
            guard FileManager.default.fileExists(atPath: path) else {
                // A store that was lost (its marker is there, its file is not): starting over is what was asked.
                if FileManager.default.fileExists(atPath: marker) {
                    try? FileManager.default.removeItem(atPath: marker)
                    lines.append("\(plugin.id): its state file was missing; it starts from empty state (\(path))")
                }
                continue
            }
            do {
                stores.append((plugin.id, try ServiceStateStore(path: path, kind: "service")))
            } catch let error as StateStoreError where error.code == .inUse {
                throw running(directory, error, holding: path)
            }
        }
        for (id, store) in stores {
            let records = try store.textRecords(in: ServiceStateKeeper.stateCollection).count
            let inputs = try store.meta(ServiceStateKeeper.inputsMeta)
            var changes = StateChanges()
            var collections = [ServiceStateKeeper.stateCollection, ServiceStateKeeper.stateLogCollection,
                               ServiceStateKeeper.legacyStateLogCollection, ServiceStateKeeper.positionCollection,
                               ServiceStateKeeper.legacyPositionCollection]
            if journal { collections += [ServiceStateKeeper.topicSeqCollection, ServiceStateKeeper.legacyTopicSeqCollection] }
            for collection in collections { changes.deleteAll(in: collection) }
            changes.setMeta(ServiceStateKeeper.inputsMeta, nil)
            changes.setMeta(ServiceStateKeeper.configurationMeta, nil)
            if journal { changes.setMeta(ServiceStateKeeper.seqMeta, nil) }
            changes.acknowledge(through: Int64.max)
            try store.commit(changes)
            lines.append("\(id): discarded its saved state (\(records) records) and the inputs it had handled (\(inputs ?? "?")) in \(store.path ?? "")")
        }
        for plugin in plugins where plugin.type == "replay" {
            let loop = directory + "/replay/" + plugin.id + ".loop"
            if FileManager.default.fileExists(atPath: loop) {
                try FileManager.default.removeItem(atPath: loop)
                lines.append("\(plugin.id): discarded where its loop continues (\(loop))")
            }
        }
        if journal {
            lines += try deleteJournal(directory, configuration: configuration)
        }
        return lines
    }

    /// Services keep state (when they keep none, there is no store to reset); replays keep a loop position.
    static func keepsState(_ plugin: ConfiguredPlugin) -> Bool { plugin.kind == .service || plugin.type == "replay" }

    private static func running(_ directory: String, _ error: StateStoreError, holding: String) -> Refusal {
        // The lock's message names the process: "is in use by another process (pid 123). …".
        let pid = error.message.range(of: "(pid ").map { String(error.message[$0.upperBound...].prefix(while: \.isNumber)) }
        return Refusal(description: "a locus is running on the state directory \(directory)"
            + (pid.map { " (pid \($0))" } ?? "") + ": it holds \(holding). Stop it first, then start over; nothing was reset")
    }

    /// Deletes the journal's segments (the lock file stays: it is held while this runs) and
    /// the forward positions of `mqtt` sinks, which point into it.
    private static func deleteJournal(_ directory: String, configuration: LocusConfiguration) throws -> [String] {
        var lines: [String] = []
        let journal = directory + "/journal"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: journal) {
            var removed = 0
            for name in names where !name.hasPrefix("journal.lock") {
                try FileManager.default.removeItem(atPath: journal + "/" + name)
                removed += 1
            }
            if removed > 0 { lines.append("journal: deleted \(removed) files (\(journal))") }
        }
        for plugin in configuration.plugins where plugin.type == "mqtt" && plugin.kind == .sink {
            let position = directory + "/" + plugin.id + ".mqtt-position"
            if FileManager.default.fileExists(atPath: position) {
                try FileManager.default.removeItem(atPath: position)
                lines.append("\(plugin.id): discarded its position in the journal (\(position))")
            }
        }
        return lines
    }
}
