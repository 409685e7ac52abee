import Foundation

/// An outlet that keeps messages in memory: for tests and for `locus replay`, which runs
/// services without sockets.
public final class MemoryOutlet: MessageOutlet, @unchecked Sendable {
    /// Guards `stored`.
    private let lock = NSLock()
    private var stored: [(topic: String, body: [UInt8])] = []

    public init() {}

    public func send(topic: String, body: [UInt8]) {
        lock.lock()
        stored.append((topic, body))
        lock.unlock()
    }

    /// Returns and clears what was sent.
    public func take() -> [(topic: String, body: [UInt8])] {
        lock.lock()
        defer { stored.removeAll(); lock.unlock() }
        return stored
    }
}
