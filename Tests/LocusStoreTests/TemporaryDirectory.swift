import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it
/// when the value is deinitialised (tests hold it for their whole run).
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "locus-store-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
