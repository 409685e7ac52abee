import Foundation
import LocusBus

/// Whether `locus run` is there for the commands that connect to its sockets (`sub`, `record`,
/// the catch-up). An ipc endpoint without its socket file has nobody listening, and libzmq would
/// retry the connection silently forever; `ctl` says it at once, and these say the same.
/// A tcp endpoint cannot be told apart from a slow one without connecting: it is not checked.
struct HubPresence {
    /// The publish endpoint, then the catch-up one when there is a catch-up.
    var publish: String
    var catchup: String?

    /// The first endpoint whose socket file is missing, with what to say about it.
    func firstMissing() -> NotListeningError? {
        if Self.lacksSocketFile(publish) { return NotListeningError(endpoint: publish) }
        if let catchup, Self.lacksSocketFile(catchup) {
            // The publish socket is there, so the daemon most likely is too, without a journal.
            return NotListeningError(endpoint: catchup, note: " (The catch-up socket is there only with hub.journal on.)")
        }
        return nil
    }

    static func lacksSocketFile(_ endpoint: String) -> Bool {
        guard let path = (try? Endpoint.validate(endpoint))?.ipcFilePath else { return false }
        return !FileManager.default.fileExists(atPath: path)
    }
}

/// Nothing listens at an ipc endpoint: the words of `locus ctl` (`ControlClientError.notListening`).
struct NotListeningError: Error, CustomStringConvertible {
    var endpoint: String
    var note = ""

    var description: String {
        ControlClientError(kind: .notListening, endpoint: endpoint, timeout: 0).description + note
    }

    /// What `--wait` says once before it waits.
    var waitingDescription: String {
        "nothing is listening at \(endpoint) yet (no socket file); waiting for `locus run` (--wait)"
    }
}
