#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A short pause a socket thread takes after handling a burst that emptied its input, before
/// it waits again: what arrives meanwhile is handled as one batch.
///
/// Under a steady stream (tens of thousands of messages a second) each stage of the pipeline
/// would otherwise wake for every message or two, and the wake-ups (futex, poll, a thread
/// switch each) cost more CPU than the messages. Pausing bounds a thread's wake-ups to a few
/// thousand a second, for at most `microseconds` of added latency per hop; idle, it costs
/// nothing (the thread then waits as before).
enum BurstPause {
    static let microseconds: UInt32 = 200

    @inline(__always)
    static func afterPartialBurst() { usleep(microseconds) }
}
