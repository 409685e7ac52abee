import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives memory back to the system once a flood has ended. glibc keeps what a burst allocated
/// (libzmq's queues of a client that sent a million messages, a subscription flood's tries) in
/// its arenas after it is freed: the daemon measured 40 MB before a 20 s ingest flood and 142 MB
/// long after it, 41 MB after one `malloc_trim(0)`.
///
/// Decided per status interval: an interval in which something was dropped (or a client cut
/// off) marks a flood, and the first quiet interval after it trims. So does a quiet interval
/// that ends with the daemon `growthKilobytes` above the least it was resident (at its start,
/// at an interval's end or after a trim): floods that count no drop (500 web clients that never
/// read, closing after a while) leave memory behind too. A trim that gives nothing back (the
/// daemon simply uses more now) doubles the intervals before the next such trim, up to
/// `maximumWait`; one that gives back memory resets them.
struct FloodMemoryTrim {
    /// How far above its baseline the daemon may stay without a trim.
    static let growthKilobytes = 16 * 1024
    /// At most this many intervals between two trims of a daemon above its baseline.
    static let maximumWait = 64
    /// A trim that gives back less than this gave back nothing.
    static let usefulKilobytes = 1024

    private var flooded = false
    /// The least resident size seen (kB).
    private var baseline: Int?
    private var wait = 1
    private var skip = 0

    /// The resident size (kB) when the daemon started reporting.
    mutating func started(residentKilobytes: Int) {
        lower(to: residentKilobytes)
    }

    /// Called once per interval with whether any drop counter moved in it and the resident
    /// size now (kB); true when to trim now.
    mutating func intervalEnded(dropsMoved: Bool, residentKilobytes: Int = 0) -> Bool {
        lower(to: residentKilobytes)
        if dropsMoved {
            flooded = true
            return false
        }
        if flooded {
            flooded = false
            return true
        }
        guard let baseline, residentKilobytes >= baseline + Self.growthKilobytes else { return false }
        if skip > 0 {
            skip -= 1
            return false
        }
        return true
    }

    /// Tells what a trim left resident (kB) and what it gave back.
    mutating func trimmed(before: Int, after: Int) {
        lower(to: after)
        wait = before - after >= Self.usefulKilobytes ? 1 : min(wait * 2, Self.maximumWait)
        skip = wait - 1
    }

    private mutating func lower(to residentKilobytes: Int) {
        guard residentKilobytes > 0 else { return }
        baseline = min(baseline ?? residentKilobytes, residentKilobytes)
    }

    /// Returns freed memory of every malloc arena to the system; the resident size before and after (kB).
    static func trim() -> (before: Int, after: Int) {
        let before = residentKilobytes()
        if let mallocTrim { _ = mallocTrim(0) }
        return (before, residentKilobytes())
    }

    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not declare it
    /// (malloc.h), and another C library may not have it.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// VmRSS of this process, from /proc/self/status; 0 where it cannot be read.
    static func residentKilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
