#if canImport(Glibc)
import Glibc
#endif

/// An append-only file that rotates by size: `path` → `path.1` → … → `path.keep` (dropped).
/// Every `write` goes to the kernel at once (no user-space buffer), so a crash or SIGKILL loses
/// nothing that `write` returned for.
final class RotatingFile {
    let path: String
    let maxBytes: Int
    let keep: Int
    private var fd: Int32 = -1
    private var size = 0

    struct IOError: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String, maxBytes: Int, keep: Int) throws {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        try open()
    }

    deinit { if fd >= 0 { close(fd) } }

    private func open() throws {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        var st = stat()
        fstat(fd, &st)
        size = Int(st.st_size)
    }

    func write(_ bytes: [UInt8]) throws {
        if maxBytes > 0, size > 0, size + bytes.count > maxBytes { try rotate() }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        size += bytes.count
    }

    func sync() { fsync(fd) }

    private func rotate() throws {
        close(fd)
        fd = -1
        unlink("\(path).\(keep)")
        if keep > 1 {
            for i in stride(from: keep - 1, through: 1, by: -1) { rename("\(path).\(i)", "\(path).\(i + 1)") }
        }
        rename(path, "\(path).1")
        try open()
    }
}
