import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The journal index up to which an `mqtt` sink has delivered, kept in
/// `<state directory>/<id>.mqtt-position` (mode 0600) so a restart continues where it stopped:
/// the next record to send, as decimal text. Written to a temporary file and renamed, so a
/// kill leaves the old position or the new one, never half of one.
struct ForwardPositionFile {
    let path: String

    /// The saved index; nil if there is none yet.
    /// - Throws: `MQTTError` if the file exists but does not hold an index (never guessed: the
    ///   user decides whether to delete it, which starts from `start`).
    func load() throws -> UInt64? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64,
              let text = String(data: data, encoding: .utf8),
              let index = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw MQTTError("\(path) does not hold a journal position (a decimal number); delete it to start from the sink's 'start' setting")
        }
        return index
    }

    /// Saves `index`.
    /// - Returns: nil, or why it could not be saved.
    func save(_ index: UInt64) -> String? {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        let bytes = Array("\(index)\n".utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        guard rename(temporary, path) == 0 else { return "cannot rename \(temporary): \(String(cString: strerror(errno)))" }
        return nil
    }
}
