import Foundation
import LocusCore
import Logging

/// Where a looping replay (`loop: true`) continues after a restart: the event-time offset of
/// the pass after the one playing, in `<state directory>/replay/<id>.loop`.
///
/// Services keep their state across restarts, and they ignore what is older than what they
/// have seen; a looping demo starting again at the recording's own times would be silent until
/// it caught up. So each pass, once it starts, records the offset of the next one: stopped at
/// any point, the replay resumes with that pass, later than anything it published. Before the
/// first pass has ended there is no file, and a restart starts the recording over (services skip
/// what they already processed).
struct LoopPositionFile: Sendable {
    let path: String

    /// The saved offset, 0 if none; a damaged file is reported and ignored.
    func read(logger: Logger) -> Int64 {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        guard let text = String(data: data, encoding: .utf8), let offset = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              offset >= 0 else {
            logger.warning("ignoring a damaged loop position file; the replay starts at the recording's own times", metadata: ["file": "\(path)"])
            return 0
        }
        return offset
    }

    /// Saves `offset` (write to a temporary file, then rename: a crash leaves the old or the new).
    func write(_ offset: Int64, logger: Logger) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = path + ".tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: Data("\(offset)\n".utf8), attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            logger.warning("cannot save where the loop continues after a restart", metadata: ["file": "\(path)", "reason": "\(error)"])
        }
    }
}
