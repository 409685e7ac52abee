import Foundation
import LocusCore

/// Reads and watches the files of a `FileFedService` for the runtime.
public enum WatchedFileReader {
    /// What tells a changed file from an unchanged one without reading it: size, modification
    /// time and inode (an editor's save-by-rename changes the inode).
    public struct Signature: Equatable, Sendable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    /// The file's signature now; nil when it cannot be stat'ed (gone, no permission).
    public static func signature(of path: String) -> Signature? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Signature(size: Int64(st.st_size), seconds: st.st_mtim.tv_sec, nanoseconds: st.st_mtim.tv_nsec,
                         inode: UInt64(st.st_ino))
    }

    /// The file's bytes, at most `file.maxBytes` of them, or why not.
    public static func read(_ file: WatchedFile) -> Result<[UInt8], WatchedFileError> {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(WatchedFileError(String(cString: strerror(errno)))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(WatchedFileError(String(cString: strerror(errno)))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(WatchedFileError("not a regular file")) }
        guard st.st_size <= file.maxBytes else { return tooLarge(file) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(WatchedFileError(String(cString: strerror(errno))))
            }
            if n == 0 { break }
            // The file may grow while it is read: the bound holds for what is read, too.
            guard bytes.count + n <= file.maxBytes else { return tooLarge(file) }
            bytes += chunk[0..<n]
        }
        return .success(bytes)
    }

    private static func tooLarge(_ file: WatchedFile) -> Result<[UInt8], WatchedFileError> {
        .failure(WatchedFileError("larger than \(file.maxBytes) bytes; not read"))
    }

    /// Gives each of the service's files to a freshly built instance (`FileFedService.loadFile`),
    /// as the runtime does before restoring its state; returns the signatures read, for the
    /// watch that follows. Errors are `ConfigValueError`s naming the file's config key.
    @discardableResult
    public static func load(into service: inout any FileFedService) throws -> [String: Signature] {
        var signatures: [String: Signature] = [:]
        for file in service.watchedFiles {
            let signature = self.signature(of: file.path)
            let contents: [UInt8]
            switch read(file) {
            case .success(let bytes): contents = bytes
            case .failure(let error): throw ConfigValueError(key: file.configKey, "\(file.path): \(error)")
            }
            do {
                try service.loadFile(file, contents: contents)
            } catch let e as ConfigValueError {
                throw e
            } catch {
                throw ConfigValueError(key: file.configKey, "\(file.path): \(error)")
            }
            if let signature { signatures[file.path] = signature }
        }
        return signatures
    }
}
