import LocusFleet
import Testing

@Suite struct PartitionHashTests {
    /// The published FNV-1a 32-bit test vectors (Fowler, Noll, Vo), so the hash a client
    /// computes from the README's description is this one.
    @Test func fnv1aGivesThePublishedValues() {
        #expect(PartitionHash.fnv1a("".utf8) == 0x811C_9DC5)
        #expect(PartitionHash.fnv1a("a".utf8) == 0xE40C_292C)
        #expect(PartitionHash.fnv1a("foobar".utf8) == 0xBF9C_F968)
    }

    @Test func devicesSpreadOverThePartitions() {
        var counts = [Int](repeating: 0, count: 64)
        for i in 0..<6400 { counts[PartitionHash.partition(of: "device-\(i)", count: 64)] += 1 }
        // 100 expected per partition; a uniform hash stays well within half of that.
        #expect(counts.min()! > 50 && counts.max()! < 150, "\(counts)")
        #expect(PartitionHash.partition(of: "phone-7", count: 64) == PartitionHash.partition(of: "phone-7", count: 64))
    }
}
