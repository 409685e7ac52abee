import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives memory back to the system once a flood has ended. glibc keeps what a burst allocated
/// (libzmq's queues of a client that sent a million messages, a subscription flood's tries) in
/// its arenas after it is freed: the daemon measured 40 MB before a 20 s ingest flood and 142 MB
/// long after it, 41 MB after one `malloc_trim(0)`.
///
/// Decided per status interval from the drop counters: an interval in which something was
/// dropped (or a client cut off) marks a flood; the first quiet interval after it trims.
struct FloodMemoryTrim {
    private var flooded = false

    /// Called once per interval with whether any drop counter moved in it; true when to trim now.
    mutating func intervalEnded(dropsMoved: Bool) -> Bool {
        if dropsMoved {
            flooded = true
            return false
        }
        defer { flooded = false }
        return flooded
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
