import LocusCore
import LocusNMEA

/// What the decoder promises about each observation it emits, read off its code and docs:
/// - coordinates are range-checked when parsed (`NMEANumber.coordinate`): |lat| ≤ 90, |lon| ≤ 180;
/// - a 2D/3D fix has a position, a `none` fix has no position, altitude or quality
///   (`NMEAEpoch.mode`: "never 2D/3D without a position"; `fix` clears them), a 2D fix has no altitude;
/// - heading only comes from HDT, which drops values outside 0…360;
/// - sky views list satellites with a positive PRN (`NMEASkyAssembler.add` skips the rest);
/// - everything carries the configured source.
/// Every field is read, so a NaN or infinity anywhere is at least touched (the wire codec then
/// has to cope with it, see `WireRoundTrip`).
enum ObservationChecks {
    static func check(_ o: NMEAObservation, options: NMEADecoderOptions) {
        switch o {
        case let .fix(f, _): check(f, options: options)
        case let .sky(s, _): check(s, options: options)
        }
    }

    static func check(_ f: Fix, options: NMEADecoderOptions) {
        require(f.source == options.source, "fix source \(f.source)")
        if let lat = f.latitude { require((-90.0...90).contains(lat), "latitude \(lat)") }
        if let lon = f.longitude { require((-180.0...180).contains(lon), "longitude \(lon)") }
        require(f.hasPosition == (f.mode != .none), "mode \(f.mode) with lat \(String(describing: f.latitude)) lon \(String(describing: f.longitude))")
        if f.mode == .none {
            require(f.latitude == nil && f.longitude == nil && f.altitudeMSL == nil && f.altitudeHAE == nil,
                    "a mode-none fix carries a position or altitude")
            require(f.quality == nil, "a mode-none fix has quality \(String(describing: f.quality))")
        }
        if f.mode == .twoD { require(f.altitudeMSL == nil && f.altitudeHAE == nil, "a 2D fix has an altitude") }
        if f.altitudeHAE != nil { require(f.altitudeMSL != nil, "altitude HAE without MSL") }
        if let h = f.heading { require((0.0...360).contains(h), "heading \(h)") }
        // The rest has no promised range; read it so the fuzzer covers reading it.
        let optionals: [Double?] = [f.speed, f.course, f.hdop, f.vdop, f.pdop, f.horizontalAccuracy,
                                    f.verticalAccuracy, f.speedAccuracy, f.courseAccuracy]
        var touched = 0.0
        for v in optionals { if let v { touched += v.isNaN ? 1 : 0 } }
        _ = (touched, f.satellitesUsed, f.quality?.rawValue)
    }

    static func check(_ s: SkyView, options: NMEADecoderOptions) {
        require(s.source == options.source, "sky view source \(s.source)")
        for sat in s.satellites {
            require(sat.prn > 0, "satellite PRN \(sat.prn)")
            require(!sat.constellation.isEmpty, "satellite without constellation")
            _ = (sat.elevation, sat.azimuth, sat.snr, sat.used, sat.signal)
        }
    }
}
