import Foundation
import LocusCore
@testable import LocusNMEA

/// Compares Locus's fixes for one gpsd log with gpsd's TPV reports.
///
/// How it counts: gpsd writes several incremental TPVs per epoch (one after each sentence);
/// the last TPV with a given time is gpsd's complete view of that epoch. Every such epoch with
/// `mode` ≥ 2 is one report. It agrees when Locus emitted a fix with the same time (to the
/// millisecond), the same mode, and every one of lat, lon, altMSL, altHAE, speed, track that
/// gpsd reports is also in the Locus fix and within `Tolerance`. Exception, counted separately:
/// gpsd reports `altHAE` from its own geoid model when the receiver sends no separation; Locus
/// does not invent one, so a missing Locus HAE is not compared then. TPVs without time cannot be
/// matched; they are listed as `untimed` and left out of the percentage. Times are matched
/// modulo 1024 GPS weeks (gpsd's rollover repair, see `run`).
struct GpsdAgreement {
    enum Tolerance {
        static let degrees = 1e-6
        static let metres = 0.01
        static let speed = 0.01
        static let track = 0.01
    }

    var log: String
    var reports = 0
    var agreed = 0
    var untimed = 0
    var missing = 0
    /// gpsd TPVs whose speed gpsd computed itself (not compared).
    var derivedSpeed = 0
    /// Epochs gpsd calls 3D whose GSA said 2D (counted as agreeing if all else agrees).
    var receiver2D = 0
    /// Of `agreed`, those that agree only by that rule.
    var agreedAsReceiver2D = 0
    /// Disagreements by field name.
    var differences: [String: Int] = [:]
    var firstDifference: String?
    var locusFixes = 0
    var seconds = 0.0
    var statistics = NMEAStatistics()

    /// 1024 weeks in milliseconds.
    static let gpsEra: Int64 = 1024 * 7 * 86_400_000

    static func run(log: String, bytes: [UInt8], chk: String, options: NMEADecoderOptions) -> GpsdAgreement {
        var a = GpsdAgreement(log: log)
        var decoder = NMEADecoder(options: options)
        var fixes: [Int64: Fix] = [:]
        var gsaFixType: [Int64: Int] = [:]
        decoder.gsaFixTypeObserver = { t, g in gsaFixType[t] = g }
        let start = ContinuousClock.now
        // Feed in odd-sized chunks so framing across chunk borders is exercised too.
        var i = 0
        while i < bytes.count {
            let n = min(97, bytes.count - i)
            bytes[i..<(i + n)].withUnsafeBytes { raw in
                decoder.feed(raw) { if case let .fix(f, t) = $0 { fixes[t.milliseconds] = f } }
            }
            i += n
        }
        decoder.finish { if case let .fix(f, t) = $0 { fixes[t.milliseconds] = f } }
        let d = ContinuousClock.now - start
        a.seconds = Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        a.locusFixes = fixes.count
        a.statistics = decoder.statistics

        var lastByTime: [Int64: GpsdTPV] = [:]
        var order: [Int64] = []
        for t in GpsdTPV.all(in: chk) where t.mode >= 2 {
            guard let time = t.time else { a.untimed += 1; continue }
            if lastByTime[time.milliseconds] == nil { order.append(time.milliseconds) }
            lastByTime[time.milliseconds] = t
        }
        for ms in order {
            let g = lastByTime[ms]!
            a.reports += 1
            // gpsd moves dates before its build date forward by whole 1024-week GPS eras (its
            // week-rollover repair); the logs' dates are genuine, so match across eras too.
            guard let era = (0...2).first(where: { fixes[ms - Int64($0) * gpsEra] != nil }) else {
                a.missing += 1
                a.note("no fix", "no Locus fix at \(EventTime(milliseconds: ms))")
                continue
            }
            let f = fixes[ms - Int64(era) * gpsEra]!
            var ok = true
            func check(_ name: String, _ gv: Double?, _ lv: Double?, _ tol: Double, optional: Bool = false) {
                guard let gv else { return }
                guard let lv else {
                    if !optional { ok = false; a.note(name, "\(name) missing at \(EventTime(milliseconds: ms))") }
                    return
                }
                var diff = abs(gv - lv)
                if name == "track" { diff = min(diff, 360 - diff) }
                if diff > tol { ok = false; a.note(name, "\(name) differs by \(diff) at \(EventTime(milliseconds: ms))") }
            }
            let mode = f.mode == .threeD ? 3 : f.mode == .twoD ? 2 : 1
            // gpsd lets a later GGA with an altitude turn the receiver's GSA "2D" into 3D; Locus
            // keeps the receiver's fix type (a 2D solution's altitude is an assumed one).
            let receiverSaid2D = mode == 2 && g.mode == 3 && gsaFixType[ms - Int64(era) * gpsEra] == 2
            if receiverSaid2D { a.receiver2D += 1 }
            else if mode != g.mode { ok = false; a.note("mode", "mode \(mode) vs gpsd \(g.mode) at \(EventTime(milliseconds: ms))") }
            check("lat", g.lat, f.latitude, Tolerance.degrees)
            check("lon", g.lon, f.longitude, Tolerance.degrees)
            if mode == 3 {
                check("altMSL", g.altMSL, f.altitudeMSL, Tolerance.metres)
                check("altHAE", g.altHAE, f.altitudeHAE, Tolerance.metres, optional: true)
            }
            // gpsd 3.22 derives speed (and climb) from successive positions when the receiver
            // sent no velocity for the epoch; such TPVs have `speed` without `track`. Locus
            // reports only what the receiver said, so those are not compared.
            if g.track != nil { check("speed", g.speed, f.speed, Tolerance.speed) } else if g.speed != nil { a.derivedSpeed += 1 }
            check("track", g.track, f.course, Tolerance.track)
            if ok { a.agreed += 1; if receiverSaid2D { a.agreedAsReceiver2D += 1 } }
        }
        return a
    }

    private mutating func note(_ field: String, _ text: String) {
        differences[field, default: 0] += 1
        if firstDifference == nil { firstDifference = text }
    }
}
