import Foundation

/// Starts a named thread that becomes the only user of `owned`: a value that is not `Sendable`
/// (a libmosquitto client and its buffers, a reader's state) crosses to the thread once.
/// `sending` makes the compiler prove the caller keeps no reference to it, which is what makes
/// the hand-over safe without a lock.
public func startThread<Owned>(named name: String, owning owned: sending Owned, _ body: @escaping @Sendable (Owned) -> Void) {
    // The compiler checked the hand-over at the call (`sending`); a Thread's block is
    // `@Sendable`, so the value crosses in a box the thread alone opens.
    nonisolated(unsafe) let value = owned
    let thread = Thread { body(value) }
    thread.name = name
    thread.start()
}
