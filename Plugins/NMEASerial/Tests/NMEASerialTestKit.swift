import Foundation
import LocusCore
import LocusNMEA
import Logging
#if canImport(Glibc)
import Glibc
import LocusTestKit
#endif

@_exported import LocusTestKit

/// The shared in-memory harness (LocusTestKit).
typealias Harness = PluginHarness

extension PluginHarness {
    /// The published fixes and sky views, in order, as the decoder's observations.
    func observations() throws -> [NMEAObservation] {
        try messages().compactMap { m in
            if m.topic == "obs.fix.\(context.id)", let f = m.payload(Fix.self) { return .fix(f, m.envelope.time) }
            if m.topic == "obs.sky.\(context.id)", let s = m.payload(SkyView.self) { return .sky(s, m.envelope.time) }
            return nil
        }
    }

    func fixCount() throws -> Int {
        try observations().filter { if case .fix = $0 { true } else { false } }.count
    }
}

enum Fixtures {
    static func url(_ name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(name)")
    }

    static func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: url(name))) }

    /// The file's lines, each with its line ending (so pacing line by line sends the same bytes).
    static func lines(_ name: String) throws -> [[UInt8]] {
        var out: [[UInt8]] = [], cur: [UInt8] = []
        for b in try bytes(name) {
            cur.append(b)
            if b == 0x0A { out.append(cur); cur = [] }
        }
        if !cur.isEmpty { out.append(cur) }
        return out
    }

    /// `observations` as they come back from the bus: published through an in-memory context and
    /// decoded (the wire format rounds coordinates to 1e-9 degree).
    static func viaWire(_ observations: [NMEAObservation], id: String = "gps0") throws -> [NMEAObservation] {
        let h = Harness(id: id)
        for o in observations {
            switch o {
            case .fix(let f, let t): h.context.publish(f, topic: "obs.fix.\(id)", time: t)
            case .sky(let s, let t): h.context.publish(s, topic: "obs.sky.\(id)", time: t)
            }
        }
        return try h.observations()
    }

    /// What `NMEADecoder` gives for the bytes decoded in one go (`finish`: also the open last epoch).
    static func decoded(_ bytes: [UInt8], source: String = "gps0", finish: Bool) -> [NMEAObservation] {
        // As the source decodes by default: undated epochs wait up to 10 s for a date.
        var options = NMEADecoderOptions(source: source)
        options.holdUndatedEpochs = 10_000   // NMEASerialSource.undatedEpochsHeld
        options.holdUndatedSeconds = 10
        var d = NMEADecoder(options: options)
        var out: [NMEAObservation] = []
        d.feed(bytes) { out.append($0) }
        if finish { d.finish { out.append($0) } }
        return out
    }
}


/// A fresh empty directory under /tmp.
func temporaryDirectory() -> String {
    var template = Array("/tmp/locus-nmea-serial-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}

/// A pair of pseudo-terminals joined by socat (Debian package socat): what is written to `feed`
/// comes out of `gps` and back. The links disappear when socat is stopped.
/// Used by one test at a time, step by step: `feedFD` and `exited` are never touched concurrently.
final class PtyPair: @unchecked Sendable {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let p = "\(dir)/socat"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }()
    static var isInstalled: Bool { executable != nil }

    let pid: pid_t
    let gps: String
    let feed: String
    private var feedFD: Int32 = -1
    private var exited = false

    /// Starts socat with links `dir/gps` and `dir/feed`. Spawned with an empty signal mask and
    /// default dispositions: the test process blocks SIGTERM in its threads, and a socat that
    /// inherited that would not exit (and remove its links) on SIGTERM.
    init(directory dir: String) throws {
        gps = dir + "/gps"
        feed = dir + "/feed"
        let args = [PtyPair.executable!, "-d", "-d", "pty,raw,echo=0,link=\(gps)", "pty,raw,echo=0,link=\(feed)"]
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let cargs = args.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, args[0], &actions, &attr, cargs, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
    }

    /// Reaps socat if it has exited; true once it has.
    func hasExited() -> Bool {
        if exited { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return exited
    }

    /// Waits until both links exist.
    func waitReady(timeout: Double = 5) async -> Bool {
        await waitUntil(timeout: timeout) {
            FileManager.default.fileExists(atPath: gps) && FileManager.default.fileExists(atPath: feed)
        }
    }

    /// Opens the feed end (kept open until `stop`).
    func openFeed() throws {
        guard feedFD < 0 else { return }
        let fd = open(feed, O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        feedFD = fd
    }

    /// Writes `lines` into the feed end, pausing `pause` seconds after each.
    func write(lines: [[UInt8]], pause: Double = 0.003) async throws {
        try openFeed()
        for line in lines {
            var off = 0
            while off < line.count {
                let n = line.withUnsafeBytes { Glibc.write(feedFD, $0.baseAddress! + off, line.count - off) }
                guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                off += n
            }
            try await Task.sleep(nanoseconds: UInt64(pause * 1e9))
        }
    }

    /// Reads what the source wrote to the device (its init commands), waiting up to `timeout` s for `count` bytes.
    func readBack(count: Int, timeout: Double = 2) throws -> [UInt8] {
        try openFeed()
        var out: [UInt8] = []
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        var buf = [UInt8](repeating: 0, count: 256)
        while out.count < count && ContinuousClock.now < deadline {
            var p = pollfd(fd: feedFD, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = buf.withUnsafeMutableBytes { Glibc.read(feedFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return out
    }

    /// Stops socat (SIGTERM; it removes its links), then SIGKILL if it lingers. Returns whether SIGTERM sufficed.
    @discardableResult
    func stop() async -> Bool {
        if feedFD >= 0 { close(feedFD); feedFD = -1 }
        guard !hasExited() else { return true }
        kill(pid, SIGTERM)
        if await waitUntil(timeout: 3, { hasExited() }) { return true }
        kill(pid, SIGKILL)
        _ = await waitUntil(timeout: 2) { hasExited() }
        return false
    }
}

/// `$body*hh\r\n` with the right checksum.
func nmea(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
}
