import Foundation

/// The client keys a CURVE endpoint accepts: every public certificate (`NAME.key`) in one
/// directory, as pyzmq's `zmq.auth.load_certificates` and czmq's `zcertstore` read it. The
/// file's name without `.key` is the client's identity in logs and metrics.
///
/// Reloaded whenever the directory changes (a key added, removed or renamed), so a key is
/// revoked by deleting its file, without a restart.
/// Not locked: its `var`s are used by one thread only, the `ZAPHandler`'s it is handed to
/// (`check`, called before, reads none of them).
public final class AuthorizedKeys: @unchecked Sendable {
    public let directory: String
    /// Most certificate files read from one directory.
    public static let maxFiles = 10_000

    private var names: [CurveKey: String] = [:]
    private var loadedStamp: timespec?
    /// Files that could not be read at the last load, with why (for the log).
    public private(set) var problems: [String] = []

    public init(directory: String) {
        self.directory = directory
    }

    /// Checks that the directory can be read now, for a config error at start rather than a
    /// refused client later.
    public func check() throws {
        var st = stat()
        guard stat(directory, &st) == 0 else {
            throw LocusBusError("authorized_keys directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw LocusBusError("authorized_keys \(directory) is not a directory") }
        guard opendir(directory).map({ closedir($0); return true }) ?? false else {
            throw LocusBusError("authorized_keys directory \(directory) cannot be read: \(String(cString: strerror(errno)))")
        }
    }

    /// The name of `key` if it is authorized, reloading the directory first if it changed.
    /// Returns nil for a key not listed (or when the directory cannot be read: refuse).
    public func name(of key: CurveKey) -> String? {
        reloadIfChanged()
        return names[key]
    }

    /// Number of keys loaded.
    public var count: Int {
        reloadIfChanged()
        return names.count
    }

    /// True if the last reload found changes; `problems` then lists unreadable files.
    @discardableResult
    public func reloadIfChanged() -> Bool {
        var st = stat()
        guard stat(directory, &st) == 0 else {
            if loadedStamp != nil || !names.isEmpty { names = [:]; loadedStamp = nil; problems = ["\(directory): \(String(cString: strerror(errno)))"] }
            return false
        }
        if let stamp = loadedStamp, stamp.tv_sec == st.st_mtim.tv_sec, stamp.tv_nsec == st.st_mtim.tv_nsec { return false }
        loadedStamp = st.st_mtim
        load()
        return true
    }

    private func load() {
        var found: [CurveKey: String] = [:]
        var problems: [String] = []
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".key") && $0.count > 4 }.sorted()
        if files.count > Self.maxFiles { problems.append("\(files.count) key files; only the first \(Self.maxFiles) were read") }
        for file in files.prefix(Self.maxFiles) {
            switch CurveCertificate.read(path: directory + "/" + file) {
            case .success(let cert):
                let name = String(file.dropLast(4))
                if let other = found[cert.publicKey] {
                    problems.append("\(file) holds the same key as \(other).key; it is known as \(min(name, other))")
                    found[cert.publicKey] = min(name, other)
                } else {
                    found[cert.publicKey] = name
                }
            case .failure(let e):
                problems.append(e.description)
            }
        }
        names = found
        self.problems = problems
    }
}
