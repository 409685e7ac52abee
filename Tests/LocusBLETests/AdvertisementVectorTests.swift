import LocusBLE
import LocusCore
import Testing

/// Every vector of `Fixtures/ble-advertisement-vectors.json`, decoded according to its format,
/// against every value its source asserts.
@Suite struct AdvertisementVectorTests {
    @Test func theFixtureHoldsAllVectors() {
        #expect(Vector.all.count == 134)
        #expect(Set(Vector.all.map(\.id)).count == 134)
    }

    @Test(arguments: Vector.all)
    func vector(_ v: Vector) throws {
        let d = Decoded(v)
        #expect(!v.expected.isEmpty)
        for (key, want) in v.expected.sorted(by: { $0.key < $1.key }) {
            if let problem = VectorExpectations.check(key, want, d) {
                Issue.record("\(v.id): \(problem)")
            }
        }
        if let chunks = v.chunks { #expect(chunks.joined() == v.rawHex) }
        // Whatever was decoded survives the obs.ble wire form.
        if let a = d.advertisement {
            var w = JSONWriter()
            a.write(to: &w)
            let back = try w.withUnsafeBytes { buf in try JSONReader.read(buf) { try BLEAdvertisement(from: &$0) } }
            #expect(back == a, "\(v.id)")
        }
    }

    /// The README's quirks: the loose H4 packet and WinBeacon's short length byte are read, and
    /// what was overlooked is reported.
    @Test func hciQuirksAreReported() throws {
        let loose = try #require(Vector.all.first { $0.id == "beacontools-hci-01" })
        let e = try HCIEventParser.parse(loose.bytes).get()
        #expect(e.quirks.contains(.wrongH4Type) && e.quirks.contains(.lengthMismatch))
        let win = try #require(Vector.all.first { $0.id == "winbeacon-hci-01" })
        #expect(try HCIEventParser.parse(win.bytes).get().quirks == .lengthMismatch)
        let clean = try #require(Vector.all.first { $0.id == "aioblescan-01" })
        #expect(try HCIEventParser.parse(clean.bytes).get().quirks == [])
        // The same event without its H4 byte reads the same.
        #expect(try HCIEventParser.parse(Array(clean.bytes.dropFirst())).get().reports == (try HCIEventParser.parse(clean.bytes).get().reports))
    }

    /// Vectors whose source expects a rejection decode to no beacon (and do not trap).
    @Test func rejectedVectorsHaveNoBeacon() {
        let rejected = Vector.all.filter { v in
            (v.expected["beacon_type"] ?? v.expected["frame"]).map { $0.isNull } ?? false
        }
        #expect(rejected.count == 7)
        for v in rejected { #expect(Decoded(v).beacon == nil, "\(v.id)") }
    }
}
