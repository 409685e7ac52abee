import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// The RSSI filter and the proximity bands on a recorded noisy sequence
/// (`Plugins/Beacon/testdata/noisy-rssi-walk.csv`, made by `tools/beacon_sequence.py rssi`:
/// a walk past a 10 Hz beacon with shadowing, Rician fading and losses; see its ORIGIN.md).
@Suite struct BeaconSmoothingTests {
    struct Sample { var t: Double; var distance: Double; var localMean: Double; var rssi: Int }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testdata/noisy-rssi-walk.csv").path

    static func samples() throws -> [Sample] {
        try String(contentsOfFile: fixture, encoding: .utf8).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 4, let t = Double(f[0]), let d = Double(f[1]), let m = Double(f[2]), let r = Int(f[3]) else { return nil }
            return Sample(t: t, distance: d, localMean: m, rssi: r)
        }
    }

    /// Figures of one pass over the fixture, as the service computes them per advertisement.
    struct Figures {
        var samples = 0
        /// RMS and variance of log10(estimated / true distance): a factor error, fair at 0.3 m and at 20 m alike.
        var rawLogRMS = 0.0, smoothLogRMS = 0.0
        var rawLogVariance = 0.0, smoothLogVariance = 0.0
        /// RMS of the RSSI (raw or smoothed) minus the local mean (path loss + shadowing, no
        /// fading), dB: the part of the noise a filter can remove.
        var rawFadingRMS = 0.0, smoothFadingRMS = 0.0
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
        var rawSq = 0.0, smoothSq = 0.0, rawErr: [Double] = [], smoothErr: [Double] = [], rawFade = 0.0, smoothFade = 0.0
        for s in samples {
            if filter == nil { filter = RSSIFilter(first: Double(s.rssi), parameters: parameters) } else { filter!.update(Double(s.rssi), dt: s.t - last, parameters: parameters) }
            last = s.t
            let raw = model.distance(rssi: Double(s.rssi), measuredPower: -59)
            let smooth = model.distance(rssi: filter!.estimate, measuredPower: -59)
            rawErr.append(log10(raw / s.distance))
            smoothErr.append(log10(smooth / s.distance))
            rawSq += pow(rawErr.last!, 2)
            smoothSq += pow(smoothErr.last!, 2)
            rawFade += pow(Double(s.rssi) - s.localMean, 2)
            smoothFade += pow(filter!.estimate - s.localMean, 2)
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
        func variance(_ v: [Double]) -> Double {
            let m = v.reduce(0, +) / Double(v.count)
            return v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count)
        }
        f.rawLogVariance = variance(rawErr)
        f.smoothLogVariance = variance(smoothErr)
        f.rawFadingRMS = (rawFade / Double(f.samples)).squareRoot()
        f.smoothFadingRMS = (smoothFade / Double(f.samples)).squareRoot()
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
        print(String(format: "beacon smoothing on noisy-rssi-walk.csv (%d samples): log10 distance error RMS raw %.3f smoothed %.3f, variance raw %.4f smoothed %.4f; RSSI minus local mean RMS raw %.2f dB smoothed %.2f dB; median relative distance error raw %.2f smoothed %.2f; band changes true %d raw %d smoothed %d; samples in the wrong band raw %d smoothed %d",
                     f.samples, f.rawLogRMS, f.smoothLogRMS, f.rawLogVariance, f.smoothLogVariance, f.rawFadingRMS, f.smoothFadingRMS,
                     f.rawMedianRelative, f.smoothMedianRelative, f.trueBandChanges, f.rawBandChanges, f.smoothBandChanges,
                     f.rawBandWrong, f.smoothBandWrong))
        // Shadowing (3 dB, correlated over seconds) moves the mean RSSI as a real change of
        // distance would: no filter of one receiver's RSSI can remove it, so the error against
        // the true distance keeps a floor of about 3/20 in log10. The fading on top of it is
        // what smoothing removes: the variance falls by more than half.
        #expect(f.smoothLogVariance < 0.5 * f.rawLogVariance)
        #expect(f.smoothLogRMS < 0.75 * f.rawLogRMS)
        #expect(f.smoothFadingRMS * f.smoothFadingRMS < 0.5 * f.rawFadingRMS * f.rawFadingRMS)
        // The walk crosses bands four times; the raw band flaps over a hundred times, the
        // smoothed one changes about as often as the truth, and is wrong less often.
        #expect(f.rawBandChanges >= 10 * f.smoothBandChanges)
        #expect(f.smoothBandChanges <= 2 * f.trueBandChanges)
        #expect(f.smoothBandWrong < f.rawBandWrong)
    }

    @Test func theGateBoundsWhatOneDeepFadeDoes() {
        let p = RSSIFilter.Parameters()
        var gated = RSSIFilter(first: -60, parameters: p)
        var ungated = gated
        let open = RSSIFilter.Parameters(gate: 1000)
        for _ in 0..<50 { gated.update(-60, dt: 0.1, parameters: p); ungated.update(-60, dt: 0.1, parameters: open) }
        // One advertisement 40 dB down (a null between two reflections).
        gated.update(-100, dt: 0.1, parameters: p)
        ungated.update(-100, dt: 0.1, parameters: open)
        #expect(-60 - gated.estimate < 0.75 * (-60 - ungated.estimate))
        #expect(-60 - gated.estimate > 0)
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
