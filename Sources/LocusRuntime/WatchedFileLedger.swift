import Foundation
import LocusCore

/// The signatures of a plugin's watched files as its last built instance read them: the
/// runner's watch compares against these, so a change made between the build and the start of
/// the watch is delivered, and an unchanged file is not read twice.
public final class WatchedFileLedger: @unchecked Sendable {
    /// Guards `signatures`.
    private let lock = NSLock()
    private var signatures: [String: WatchedFileReader.Signature] = [:]

    public init() {}

    func record(_ read: [String: WatchedFileReader.Signature]) {
        lock.withLock { signatures = read }
    }

    func signature(_ path: String) -> WatchedFileReader.Signature? {
        lock.withLock { signatures[path] }
    }
}
