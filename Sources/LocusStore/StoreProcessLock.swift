import Foundation

/// Keeps a second process from opening a service's state store while one has it open: two
/// `locus run`s with the same state directory and service id would otherwise interleave their
/// states and outboxes in one file, each publishing the other's transitions.
///
/// A POSIX record lock (`fcntl F_SETLK`) on `<store>.lock`, held for the store's life and
/// released by the kernel when the process dies, `kill -9` included — so a crash never leaves a
/// stale lock behind. Record locks never conflict within one process, which keeps a service
/// that is rebuilt in place (or a test reopening a file) working; they conflict between
/// processes, which is what is guarded here. A separate file because closing any descriptor of
/// a file drops the process's record locks on it, and SQLite holds its own on the database.
final class StoreProcessLock {
    private var descriptor: Int32

    /// Takes the lock beside `storePath`. - Throws: `StateStoreError` `.inUse` naming the
    /// process that holds it, or `.cannotOpen` when the lock file cannot be created.
    /// `advice` ends the `.inUse` message: what the user can do about it.
    init(storePath: String, advice: String = "Only one locus may run a service with this id and state directory: "
            + "stop the other one, or give this one another hub.state_directory or service id.") throws {
        let lockPath = storePath + ".lock"
        descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateStoreError(.cannotOpen, path: storePath,
                "cannot open its lock file \(lockPath): \(String(cString: strerror(errno))); check that this user may write there")
        }
        var lock = Self.wholeFile(F_WRLCK)
        guard fcntl(descriptor, F_SETLK, &lock) != 0 else { return }
        let failure = errno
        var holder = Self.wholeFile(F_WRLCK)
        let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK ? " (pid \(holder.l_pid))" : ""
        close(descriptor)
        descriptor = -1
        guard failure == EACCES || failure == EAGAIN else {
            throw StateStoreError(.cannotOpen, path: storePath, "cannot lock \(lockPath): \(String(cString: strerror(failure)))")
        }
        throw StateStoreError(.inUse, path: storePath,
            "is in use by another process\(pid). " + advice)
    }

    /// Releases the lock (closing the descriptor); later calls do nothing.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    private static func wholeFile(_ type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0  // to the end of the file, however it grows
        return lock
    }
}
