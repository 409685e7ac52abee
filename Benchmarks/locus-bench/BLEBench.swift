import Foundation
import LocusBLE
import LocusCore

/// `ble FILE [N] [REPEATS]`: AD payload decoding — `AdvertisingData` including beacon
/// detection, no JSON and no I/O. FILE holds one AD payload per line as hex (`bench/ble-decode-bench.sh`
/// extracts the test vectors' payloads). The payloads are decoded round-robin N times (default
/// 5M) per set: all of them, only those that are beacons, only those that are not, and a
/// "scanner mix" weighted as a busy room (mostly non-beacon phones and gadgets, a third
/// beacons). Best of REPEATS (default 3), this thread's CPU time; also the rate of building the
/// `obs.ble` payload (hex strings, beacon wire form) on top, for comparison.
enum BLEBench {
    static func run(path: String, count: Int, repeats: Int) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let payloads = text.split(whereSeparator: \.isNewline).compactMap { Hex.bytes($0.trimmingCharacters(in: .whitespaces)) }
        guard !payloads.isEmpty else { throw BenchError.usage }
        let beacons = payloads.filter { AdvertisingData($0).beacon != nil }
        let others = payloads.filter { AdvertisingData($0).beacon == nil }
        // Two non-beacons for each beacon, like a room of phones, watches and a few tags.
        var mix: [[UInt8]] = []
        for i in 0..<max(beacons.count, others.count) {
            mix.append(others[i % others.count]); mix.append(others[(i + 7) % others.count]); mix.append(beacons[i % beacons.count])
        }
        print("ble payloads: \(payloads.count) (\(beacons.count) beacons), mean \(payloads.map(\.count).reduce(0, +) / payloads.count) B")
        for (name, set) in [("all vectors", payloads), ("beacons", beacons), ("non-beacons", others), ("scanner mix", mix)] {
            let (cpu, wall, found) = best(repeats) { decode(set, count) }
            print("ble decode \(name): \(rate(count, cpu)) ads/s cpu, \(rate(count, wall)) ads/s wall (\(count) ads, \(found) beacons, best of \(repeats))")
        }
        let n = count / 10
        let (cpu, wall, _) = best(repeats) { observations(payloads, n) }
        print("ble decode + obs.ble payload: \(rate(n, cpu)) ads/s cpu, \(rate(n, wall)) ads/s wall (\(n) ads, best of \(repeats))")
    }

    static func best(_ repeats: Int, _ body: () -> Int) -> (cpu: Double, wall: Double, result: Int) {
        var bestCPU = Double.infinity, bestWall = Double.infinity, result = 0
        for _ in 0..<repeats {
            let w0 = Date(), c0 = NMEABench.threadCPU()
            result = body()
            bestCPU = min(bestCPU, NMEABench.threadCPU() - c0)
            bestWall = min(bestWall, Date().timeIntervalSince(w0))
        }
        return (bestCPU, bestWall, result)
    }

    /// Decodes `count` payloads round-robin; returns how many were beacons (so nothing is optimised away).
    @inline(never) static func decode(_ set: [[UInt8]], _ count: Int) -> Int {
        var found = 0, i = 0
        for _ in 0..<count {
            let ad = AdvertisingData(set[i])
            if ad.beacon != nil { found += 1 }
            found &+= ad.structureCount & 0
            i += 1; if i == set.count { i = 0 }
        }
        return found
    }

    @inline(never) static func observations(_ set: [[UInt8]], _ count: Int) -> Int {
        var total = 0, i = 0
        for _ in 0..<count {
            let obs = BLEAdvertisement(advertisingData: AdvertisingData(set[i]), address: BLEAddress(value: 0xC0FFEE001122),
                                       addressType: "random", rssi: -67, source: "hci0")
            total &+= obs.manufacturerData.count + (obs.beacon == nil ? 0 : 1)
            i += 1; if i == set.count { i = 0 }
        }
        return total
    }
}
