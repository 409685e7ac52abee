import Foundation

/// The directories that hold Locus's sockets (the runtime directory) and its state: created
/// private, and refused when they exist but others could use them.
///
/// A socket file's own mode is not enough: whoever may write to its directory may replace the
/// socket with one of their own (and read what clients send, or feed them forged events), and
/// a directory another user created in advance (in `/tmp`, say) is theirs to change at will.
enum PrivateDirectory {
    /// Who besides the owner may use the directory.
    enum Access {
        /// Nobody (mode 0700).
        case ownerOnly
        /// Others may pass through to sockets whose own mode and group admit them, but not
        /// list or change the directory (mode 0711): for sockets given to a group (`group:`).
        case traverse
    }

    /// Creates `path` (and missing parents, 0700) with the mode for `access`, or checks the
    /// existing one: it must be a directory owned by this user, and give others nothing beyond
    /// `access`. `what` names it in errors ("runtime directory", "state directory").
    /// `dryRun` (`locus check`) checks an existing directory the same way and creates nothing.
    static func prepare(_ path: String, what: String, access: Access, dryRun: Bool = false) throws {
        let mode: mode_t = access == .ownerOnly ? 0o700 : 0o711
        var st = stat()
        if stat(path, &st) != 0 {
            guard errno == ENOENT else { throw SecurityError("\(what) \(path): \(String(cString: strerror(errno)))") }
            if dryRun { return }
            try createParents(of: path, what: what)
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw SecurityError("cannot create the \(what) \(path): \(String(cString: strerror(errno)))")
            }
            // mkdir's mode passes through the umask; chmod's does not.
            guard chmod(path, mode) == 0, stat(path, &st) == 0 else {
                throw SecurityError("cannot set the mode of the \(what) \(path): \(String(cString: strerror(errno)))")
            }
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw SecurityError("the \(what) \(path) is not a directory") }
        if st.st_uid != geteuid() {
            throw SecurityError("the \(what) \(path) belongs to \(userName(st.st_uid)), not to this user (\(userName(geteuid()))): another user may have created it to read or replace Locus's files. Remove it, or choose another (LOCUS_RUNTIME_DIR, LOCUS_STATE_DIR)")
        }
        let allowed: mode_t = access == .ownerOnly ? 0o700 : 0o711
        let extra = st.st_mode & 0o777 & ~allowed
        if extra != 0 {
            let octal = String(st.st_mode & 0o777, radix: 8)
            let fix = String(allowed & st.st_mode & 0o777 | 0o700, radix: 8)
            let risk = extra & 0o022 != 0 ? "others may replace its files" : "others may list or reach its files"
            throw SecurityError("the \(what) \(path) has mode \(octal): \(risk). chmod \(fix) \(path) (Locus creates it \(String(mode, radix: 8)))")
        }
    }

    private static func createParents(of path: String, what: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != "/", parent != path else { return }
        var st = stat()
        if stat(parent, &st) == 0 { return }
        try createParents(of: parent, what: what)
        if mkdir(parent, 0o700) != 0, errno != EEXIST {
            throw SecurityError("cannot create \(parent) for the \(what): \(String(cString: strerror(errno)))")
        }
    }

    static func userName(_ uid: uid_t) -> String {
        if let pw = getpwuid(uid), let name = pw.pointee.pw_name { return "\(String(cString: name)) (uid \(uid))" }
        return "uid \(uid)"
    }
}

/// Socket files given to a group (`group:` on an ipc endpoint): mode 0660 and that group, so
/// its members may connect and nobody else.
enum SocketGroup {
    /// The group id of `name` (a group name or a number).
    static func gid(_ name: String) throws -> gid_t {
        if let n = UInt32(name) { return gid_t(n) }
        guard let g = getgrnam(name) else { throw SecurityError("group '\(name)' does not exist (getent group \(name))") }
        return g.pointee.gr_gid
    }

    /// Gives the socket file at `path` to `group`, mode 0660; without a group, mode 0600 (libzmq
    /// creates it 0777 less the umask).
    static func apply(path: String, group: gid_t?) throws {
        guard let group else {
            guard chmod(path, 0o600) == 0 else { throw SecurityError("cannot chmod 600 \(path): \(String(cString: strerror(errno)))") }
            return
        }
        guard chown(path, uid_t.max, group) == 0 else {
            throw SecurityError("cannot give \(path) to group \(group): \(String(cString: strerror(errno))) (the daemon's user must be a member of it)")
        }
        guard chmod(path, 0o660) == 0 else { throw SecurityError("cannot chmod 660 \(path): \(String(cString: strerror(errno)))") }
    }
}
