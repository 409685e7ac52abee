#if canImport(Glibc)
import Glibc
#endif
import CProcessControl
import Foundation
import LocusCore

/// A program started with `posix_spawn` in a process group of its own, with the signal state a
/// freshly started program expects, and its standard output and error on pipes.
///
/// Why not Foundation's `Process`: the child inherits the daemon's blocked-signal mask (the
/// runtime blocks SIGTERM and SIGINT to receive them through a dispatch source) and ignored
/// SIGPIPE, so a plugin's SIGTERM handler never ran and it was always SIGKILLed; and `Process`
/// reports termination only once the pipes close, which a background grandchild holding them
/// never does. Here the mask is emptied and every catchable signal set to its default in the
/// child, the direct child is waited for by pid, and the whole group can be signalled.
/// `exitStatus` is written and read only by its `ProcessGroupSupervision` thread; the rest is immutable.
final class SpawnedProcessGroup: @unchecked Sendable {
    let pid: pid_t
    /// Read ends of the child's standard output and error (non-blocking, close-on-exec).
    let stdoutFD: Int32
    let stderrFD: Int32
    /// Set once the direct child has been reaped: its `waitpid` status.
    private(set) var exitStatus: Int32?

    /// posix_spawn failed: the same will happen at the next start (`endedAtStart`).
    struct SpawnError: StartupFailure {
        var program: String
        var code: Int32
        /// The working directory asked for, named when it is what failed.
        var directory: String?
        /// Out of descriptors, processes or memory may pass; the rest fails again the same way.
        var endedAtStart: Bool { ![EMFILE, ENFILE, EAGAIN, ENOMEM].contains(code) }
        var description: String {
            let text = "cannot start \(program): \(String(cString: strerror(code)))"
            guard let directory, code == ENOENT, FileManager.default.fileExists(atPath: program) else { return text }
            return text + " (working directory \(directory))"
        }
    }

    /// Starts `executable` with `arguments` (without argv[0], which is the executable's path)
    /// and exactly `environment`, in `directory` (nil: the daemon's); standard input is /dev/null.
    init(executable: String, arguments: [String], environment: [String: String], directory: String? = nil) throws {
        Self.becomeSubreaperOnce
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard locus_pipe_cloexec(&outPipe) == 0 else { throw SpawnError(program: executable, code: errno) }
        guard locus_pipe_cloexec(&errPipe) == 0 else {
            let e = errno
            close(outPipe[0]); close(outPipe[1])
            throw SpawnError(program: executable, code: e)
        }
        defer { close(outPipe[1]); close(errPipe[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 clears close-on-exec on the target descriptor; the pipes' own ends close at exec.
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        if let directory { _ = locus_spawn_chdir(&actions, directory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var child: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { a in
            (envp + [nil]).withUnsafeBufferPointer { e in
                posix_spawn(&child, executable, &actions, &attributes,
                            UnsafeMutablePointer(mutating: a.baseAddress!), UnsafeMutablePointer(mutating: e.baseAddress!))
            }
        }
        guard status == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw SpawnError(program: executable, code: status)
        }
        pid = child
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        for fd in [stdoutFD, stderrFD] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    /// Orphaned grandchildren (a plugin's own background processes) become the daemon's
    /// children instead of init's, so they can be reaped once killed and never linger as
    /// zombies that keep their process group "alive".
    private static let becomeSubreaperOnce: Void = {
        _ = locus_become_child_subreaper()
    }()

    /// Sends `signal` to every process in the child's group (the child is its group's leader).
    func signalGroup(_ signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// Reaps what has exited in the group without blocking; records the direct child's status.
    func reap() {
        while true {
            var status: Int32 = 0
            let reaped = waitpid(-pid, &status, WNOHANG)
            if reaped <= 0 { return }
            if reaped == pid { exitStatus = status }
        }
    }

    var childExited: Bool { exitStatus != nil }

    /// True while any process is left in the group (after `reap`, zombies of ours are gone).
    var groupAlive: Bool { kill(-pid, 0) == 0 }

    func closePipes() {
        close(stdoutFD)
        close(stderrFD)
    }
}
