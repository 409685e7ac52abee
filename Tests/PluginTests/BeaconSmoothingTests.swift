import Foundation
import LocusCore
@testable import LocusBeaconService
import Testing

/// The RSSI filter and the proximity bands on a recorded noisy sequence
/// (`Plugins/Beacon/testdata/noisy-rssi-walk.csv`, made by `tools/beacon_sequence.py rssi`:
/// a walk past a 10 Hz beacon with shadowing, Rician fading and losses; see its ORIGIN.md).
@Suite struct BeaconSmoothingTests {
    struct Sample { var t: Double; var distance: Double; var rssi: Int }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Plugins/Beacon/testdata/noisy-rssi-walk.csv").path

    static func samples() throws -> [Sample] {
        try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 3, let t = Double(f[0]), let d = Double(f[1]), let r = Int(f[2]) else { return nil }
            return Sample(t: t, distance: d, rssi: r)
        }
    }

    /// Figures of one pass over the fixture, as the service computes them per advertisement.
    struct Figures {
        var samples = 0
        /// RMS of log10(estimated / true distance): a factor error, fair at 0.3 m and at 20 m alike.
        var rawLogRMS = 0.0, smoothLogRMS = 0.0
        /// Median of |estimated − true| / true.
        var rawMedianRelative = 0.0, smoothMedianRelative = 0.0
        var trueBandChanges = 0, rawBandChanges = 0, smoothBandChanges = 0
        /// Samples whose band differs from the true distance's band.
        var rawBandWrong = 0, smoothBandWrong = 0
    }

    static func figures(_ samples: [Sample], model: ProximityModel = .init(), parameters: RSSIFilter.Parameters = .init()) -> Figures {
        var f = Figures()
        var filter: RSSIFilter?
        var last = 0.0
        var bands: (true: Proximity, raw: Proximity, smooth: Proximity) = (.unknown, .unknown, .unknown)
        var rawRel: [Double] = [], smoothRel: [Double] = []
        var rawSq = 0.0, smoothSq = 0.0
        for s in samples {
            if filter == nil { filter = RSSIFilter(first: Double(s.rssi), parameters: parameters) } else { filter!.update(Double(s.rssi), dt: s.t - last, parameters: parameters) }
            last = s.t
            let raw = model.distance(rssi: Double(s.rssi), measuredPower: -59)
            let smooth = model.distance(rssi: filter!.estimate, measuredPower: -59)
            rawSq += pow(log10(raw / s.distance), 2)
            smoothSq += pow(log10(smooth / s.distance), 2)
            rawRel.append(abs(raw - s.distance) / s.distance)
            smoothRel.append(abs(smooth - s.distance) / s.distance)
            let b = (model.band(s.distance), model.band(raw), model.band(smooth, from: bands.smooth))
            if f.samples > 0 {
                if b.0 != bands.true { f.trueBandChanges += 1 }
                if b.1 != bands.raw { f.rawBandChanges += 1 }
                if b.2 != bands.smooth { f.smoothBandChanges += 1 }
            }
            if b.1 != b.0 { f.rawBandWrong += 1 }
            if b.2 != b.0 { f.smoothBandWrong += 1 }
            bands = b
            f.samples += 1
        }
        f.rawLogRMS = (rawSq / Double(f.samples)).squareRoot()
        f.smoothLogRMS = (smoothSq / Double(f.samples)).squareRoot()
        f.rawMedianRelative = rawRel.sorted()[rawRel.count / 2]
        f.smoothMedianRelative = smoothRel.sorted()[smoothRel.count / 2]
        return f
    }

    @Test func theFixtureIsTheRecordedNoisyWalk() throws {
        let s = try Self.samples()
        #expect(s.count == 870)
        #expect(s.map(\.rssi).min()! <= -90 && s.map(\.rssi).max()! >= -60)
        // Losses: of 120 s at 10 Hz (about 1190 advertisements) 870 were heard, with gaps of seconds.
        let gaps = zip(s, s.dropFirst()).map { $1.t - $0.t }
        #expect(gaps.max()! > 2)
    }

    @Test func smoothingCutsTheDistanceErrorAndTheBandFlaps() throws {
        let f = Self.figures(try Self.samples())
        print("beacon smoothing on noisy-rssi-walk.csv (\(f.samples) samples): log10 distance error RMS raw \(f.rawLogRMS) smoothed \(f.smoothLogRMS); median relative error raw \(f.rawMedianRelative) smoothed \(f.smoothMedianRelative); band changes true \(f.trueBandChanges) raw \(f.rawBandChanges) smoothed \(f.smoothBandChanges); samples in the wrong band raw \(f.rawBandWrong) smoothed \(f.smoothBandWrong)")
        #expect(f.smoothLogRMS < 0.6 * f.rawLogRMS)
        #expect(f.smoothMedianRelative < 0.6 * f.rawMedianRelative)
        // The walk crosses bands a few times; the raw band flaps tens of times, the smoothed one
        // changes about as often as the truth.
        #expect(f.rawBandChanges >= 5 * f.smoothBandChanges)
        #expect(f.smoothBandChanges <= 2 * f.trueBandChanges)
        #expect(f.smoothBandWrong < f.rawBandWrong)
    }

    @Test func withoutTheGateDeepFadesPullTheEstimateFurther() throws {
        let samples = try Self.samples()
        let gated = Self.figures(samples)
        let ungated = Self.figures(samples, parameters: .init(gate: 1000))
        #expect(gated.smoothLogRMS <= ungated.smoothLogRMS)
    }

    @Test func theFilterFollowsAStepWithinSeconds() {
        let p = RSSIFilter.Parameters()
        var f = RSSIFilter(first: -60, parameters: p)
        for _ in 0..<50 { f.update(-60, dt: 0.1, parameters: p) }
        var t = 0.0
        while f.estimate > -75, t < 30 {
            f.update(-80, dt: 0.1, parameters: p)
            t += 0.1
        }
        // 20 dB away (ten times the distance at n = 2): three quarters of it within a few seconds at 10 Hz.
        #expect(t > 0.3 && t < 5, "took \(t) s")
    }

    @Test(arguments: [
        // (distance, from, expected)
        (2.9, Proximity.near, Proximity.near), (3.5, .near, .near), (3.7, .near, .far),
        (2.5, .far, .far), (2.3, .far, .near), (0.45, .near, .near), (0.39, .near, .immediate),
        (0.55, .immediate, .immediate), (0.61, .immediate, .near), (10, .immediate, .far), (0.1, .far, .immediate),
        (1, .unknown, .near),
    ])
    func bandsHaveHysteresis(distance: Double, from: Proximity, expected: Proximity) {
        #expect(ProximityModel().band(distance, from: from) == expected)
    }

    @Test func distanceIsTheLogDistanceModel() {
        let m = ProximityModel(pathLossExponent: 2.5)
        #expect(abs(m.distance(rssi: -59, measuredPower: -59) - 1) < 1e-12)
        #expect(abs(m.distance(rssi: -84, measuredPower: -59) - 10) < 1e-9)   // 25 dB = 10·2.5·log10(10)
        #expect(ProximityModel().band(.nan) == .unknown)
    }
}
