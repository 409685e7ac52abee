import Foundation

/// The segment files of a journal directory: `<first index, 20 digits>.journal`.
public enum JournalSegments {
    public static let suffix = ".journal"

    public static func fileName(first: UInt64) -> String {
        let digits = String(first)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + suffix
    }

    public static func path(_ directory: String, first: UInt64) -> String { directory + "/" + fileName(first: first) }

    /// First indices of the segments present, ascending. Other files are ignored.
    public static func list(_ directory: String) -> [UInt64] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> UInt64? in
            guard name.hasSuffix(suffix), name.count == 20 + suffix.count else { return nil }
            return UInt64(name.dropLast(suffix.count))
        }.sorted()
    }
}
