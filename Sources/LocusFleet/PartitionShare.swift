/// How many of a group's partitions each live member should hold: the members sorted by id, the
/// first `count % n` of them one more than the others. Every member computes the same from the
/// same member list, so no coordinator is needed.
public enum PartitionShare {
    public static func target(for member: String, among members: [String], partitions count: Int) -> Int {
        let sorted = members.sorted()
        guard let rank = sorted.firstIndex(of: member) else { return 0 }
        let n = sorted.count
        return count / n + (rank < count % n ? 1 : 0)
    }

    /// The order in which `member` tries free partitions: its own stripe first (p % n == rank),
    /// so that members starting together mostly ask for different keys.
    public static func preference(for member: String, among members: [String], partitions count: Int) -> [Int] {
        let sorted = members.sorted()
        let n = max(sorted.count, 1)
        let rank = sorted.firstIndex(of: member) ?? 0
        return (0..<count).sorted { a, b in
            let (da, db) = ((a - rank % n + n) % n, (b - rank % n + n) % n)
            return da != db ? da < db : a < b
        }
    }
}
