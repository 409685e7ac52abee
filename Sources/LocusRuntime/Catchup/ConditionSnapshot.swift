import Foundation
import LocusCore
import LocusStore

/// The current state of every region and beacon condition, for `catchup.snapshot`
/// (docs/protocol.md 13.2): the latest `region.enter|exit|dwell|state` per producer and region
/// (and device, per device), the latest `region.condition` (definition) per producer and
/// region, and `beacon.enter|exit|state` per producer and beacon condition, as journaled. Fed by
/// reading the journal as it grows; kept in `journal/snapshot.jsonl` so it outlives the
/// journal's retention and restarts. Used from one thread.
final class ConditionSnapshot {
    let path: String
    /// Key → (journal index, topic, body).
    private(set) var entries: [String: (index: UInt64, topic: [UInt8], body: [UInt8])] = [:]
    /// The next journal index to read.
    private(set) var position = JournalPosition.oldest
    private var changedSinceSave = false
    /// True if the last `follow` stopped at its budget with more of the journal to read.
    private(set) var behind = false
    private var lastSave = ContinuousClock.now
    /// Lines of the saved file that could not be read at load (a damaged file is replaced).
    private(set) var unreadableLines = 0

    init(path: String) {
        self.path = path
        load()
    }

    /// The snapshot key of a topic, or nil if it is not a condition's state.
    static func key(topic: UnsafeRawBufferPointer, producer: String) -> String? {
        let text = String(decoding: topic, as: UTF8.self)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        // The condition, and the device for a per-device service (`region.enter.<id>.<device>`).
        let id = parts[2...].joined(separator: ".")
        switch (parts[0], parts[1]) {
        case ("region", "enter"), ("region", "exit"), ("region", "dwell"), ("region", "state"):
            return "region\u{0}\(producer)\u{0}\(id)"
        case ("region", "condition"):
            return "region-condition\u{0}\(producer)\u{0}\(id)"
        case ("beacon", "enter"), ("beacon", "exit"), ("beacon", "state"):
            return "beacon\u{0}\(producer)\u{0}\(id)"
        default:
            return nil
        }
    }

    /// Reads what the journal gained since the last call.
    func follow(_ reader: JournalReader, newest: UInt64?) {
        // A journal that started again (deleted, or older than what was saved): read it all.
        if let newest, position.index > newest + 1 { position = .oldest }
        var budget = 100_000
        let outcome = reader.read(from: position) { entry in
            budget -= 1
            if budget < 0 { return false }
            let t = entry.topic
            guard t.count > 7, t[0] == 0x72 || t[0] == 0x62 else { return true } // r(egion) or b(eacon)
            guard let origin = EnvelopeOrigin.read(entry.body),
                  let key = Self.key(topic: t, producer: origin.producer) else { return true }
            entries[key] = (entry.index, Array(t), Array(entry.body))
            changedSinceSave = true
            return true
        }
        behind = !outcome.reachedEnd
        position = outcome.next
        saveIfDue()
    }

    /// Saves at most every 5 s, and only what changed.
    func saveIfDue() {
        if changedSinceSave, ContinuousClock.now - lastSave > .seconds(5) { save() }
    }

    /// Entries whose topic starts with one of `topics` (all if empty), oldest first.
    func events(topics: [String]) -> [(topic: [UInt8], body: [UInt8])] {
        let prefixes = topics.map { Array($0.utf8) }
        return entries.values.sorted { $0.index < $1.index }.filter { e in
            prefixes.isEmpty || prefixes.contains { e.topic.starts(with: $0) }
        }.map { ($0.topic, $0.body) }
    }

    /// Writes the file (temporary file, then rename: a kill leaves the old one or the new one).
    func save() {
        var text = "{\"next\":\(position.index)}\n"
        for e in entries.values.sorted(by: { $0.index < $1.index }) {
            text += "{\"index\":\(e.index),\"topic\":\"\(String(decoding: e.topic, as: UTF8.self))\",\"envelope\":"
            text += String(decoding: e.body, as: UTF8.self) + "}\n"
        }
        let temporary = path + ".tmp"
        if FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
           rename(temporary, path) == 0 {
            changedSinceSave = false
        }
        lastSave = ContinuousClock.now
    }

    /// A saved snapshot larger than this is not read (it is rebuilt from the journal).
    static let maxFileBytes = 256 << 20

    private func load() {
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maxFileBytes else { unreadableLines += 1; return }
        guard let data = FileManager.default.contents(atPath: path) else { return }
        for (k, line) in data.split(separator: 0x0A).enumerated() {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { unreadableLines += 1; continue }
            if k == 0, let next = o["next"] as? Int, next >= 0 {
                position = JournalPosition(index: UInt64(next))
                continue
            }
            guard let index = o["index"] as? Int, index > 0, let topic = o["topic"] as? String,
                  let envelope = o["envelope"], JSONSerialization.isValidJSONObject(envelope),
                  let body = try? JSONSerialization.data(withJSONObject: envelope) else { unreadableLines += 1; continue }
            // The body as published: cut it out of the line rather than re-encoding it.
            let raw = Self.envelopeText(line) ?? Array(body)
            guard let origin = raw.withUnsafeBytes({ EnvelopeOrigin.read($0) }),
                  let key = Array(topic.utf8).withUnsafeBytes({ Self.key(topic: $0, producer: origin.producer) }) else {
                unreadableLines += 1
                continue
            }
            entries[key] = (UInt64(index), Array(topic.utf8), raw)
        }
    }

    /// The bytes of `"envelope":{…}` in a line written by `save` (the envelope is its last field).
    static func envelopeText(_ line: Data) -> [UInt8]? {
        let bytes = Array(line)
        let marker = Array(",\"envelope\":".utf8)
        guard bytes.count > marker.count + 2, bytes.last == 0x7D else { return nil }
        var k = 0
        while k + marker.count <= bytes.count {
            if bytes[k] == marker[0], Array(bytes[k..<(k + marker.count)]) == marker { break }
            k += 1
        }
        guard k + marker.count < bytes.count - 1 else { return nil }
        return Array(bytes[(k + marker.count)..<(bytes.count - 1)])
    }
}
