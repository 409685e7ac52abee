import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Housekeeping for the files behind `ipc://` endpoints.
public enum IPCSocketFile {
    /// Makes `path` ready for a bind: creates missing parent directories with mode 0700 (the
    /// socket carries location data, so only its owner may reach it), removes a stale socket
    /// file left by a process that died, and refuses — with a `ZMQError` naming `endpoint`,
    /// code EADDRINUSE — if another process is still listening there. Never deletes a file that
    /// is not a socket.
    public static func prepareForBind(path: String, endpoint: String) throws {
        try createParentDirectories(of: path, endpoint: endpoint)
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw ZMQError(code: EEXIST, operation: "bind", endpoint: endpoint,
                           message: "\(path) exists and is not a socket; refusing to replace it")
        }
        if isListening(path: path) {
            throw ZMQError(code: EADDRINUSE, operation: "bind", endpoint: endpoint,
                           message: "\(String(cString: strerror(EADDRINUSE))) (another process is listening on \(path))")
        }
        unlink(path)
    }

    /// Removes the socket file at `path` if it is one. libzmq leaves them behind when a socket closes.
    public static func remove(path: String) {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK else { return }
        unlink(path)
    }

    /// True if something accepts connections on the Unix socket at `path`.
    public static func isListening(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return rc == 0
    }

    static func createParentDirectories(of path: String, endpoint: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != "/" else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw ZMQError(code: ENOTDIR, operation: "bind", endpoint: endpoint, message: "\(parent) is not a directory")
            }
            return
        }
        try createParentDirectories(of: parent, endpoint: endpoint)
        if mkdir(parent, 0o700) != 0 && errno != EEXIST {
            let e = errno
            throw ZMQError(code: e, operation: "bind", endpoint: endpoint,
                           message: "cannot create directory \(parent): \(String(cString: strerror(e)))")
        }
    }
}
