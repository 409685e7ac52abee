import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the state directory can take writes at boot: a file of `bytes` written, synced and
/// removed. On a full disk, a read-only file system or a directory this user may not write,
/// the daemon runs without the journal and the state stores (`StateStoreHealth`) rather than
/// not at all: a device still gets its live positions.
///
/// A few KiB free is as good as full: the journal's segment and each service's SQLite file
/// (with its write-ahead log and shared-memory index) need more than that to start.
enum StateDirectoryProbe {
    static let bytes = 16 << 10
    static let fileName = ".locus-write-check"

    /// Why `directory` cannot be written (the system's words), or nil when it can.
    static func problem(in directory: String) -> String? {
        let path = directory + "/" + fileName
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot create a file in it: \(String(cString: strerror(errno)))" }
        defer { unlink(path) }
        let chunk = [UInt8](repeating: 0, count: bytes)
        var written = 0
        var failure: String?
        while written < chunk.count {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = String(cString: strerror(errno))
                break
            }
            written += n
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        return failure.map { "cannot write \(bytes / 1024) KiB to it: \($0)" }
    }
}
