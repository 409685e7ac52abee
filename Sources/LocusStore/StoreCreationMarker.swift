import Foundation
import LocusCore

/// `<store>.created`: written beside a store file when the store is created (or first opened by
/// a Locus that knows about markers), so that a store file that later goes missing or is emptied
/// — `: > region.sqlite`, a restore that skipped it, a disk cleaner — is noticed instead of being
/// silently recreated empty, which would lose every runtime-added condition and state.
///
/// The operator decides: restore the file, or delete the marker to start that service from empty
/// state on purpose. Mode 0600 like the store (it names the service kind and when it began).
struct StoreCreationMarker {
    let storePath: String

    var path: String { storePath + ".created" }

    var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// The marker's text (kind and creation time), for messages.
    var summary: String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").joined(separator: ", ")
    }

    /// Writes the marker atomically (a temporary file renamed over it).
    func write(kind: String) throws {
        let temporary = path + ".tmp"
        // Written by LocusCore's own ISO 8601 formatter: `ISO8601DateFormatter` loads ICU's
        // locale data, 3 MB resident for the life of the daemon (every stateful service has a
        // store, so every default start created one).
        let text = "kind=\(kind)\ncreated=\(EventTime(seconds: Date().timeIntervalSince1970).iso8601)\n"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StateStoreError(.cannotOpen, path: storePath, "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        let written = Array(text.utf8).withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == text.utf8.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw StateStoreError(.cannotOpen, path: storePath, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The error for a store file that the marker says existed and that is now `state`
    /// ("missing", "empty (0 bytes)", "an empty database").
    func lostError(_ state: String) -> StateStoreError {
        StateStoreError(.lost, path: storePath,
            "is \(state), but this service's state was kept there before (\(path): \(summary)); starting from empty state "
                + "would silently lose it (conditions added at runtime, their states). Restore the file from a backup, "
                + "or delete \(path) to start the service from empty state on purpose.")
    }
}
