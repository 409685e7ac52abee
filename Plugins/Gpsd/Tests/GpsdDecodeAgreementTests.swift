import Foundation
import LocusCore
import LocusFormats
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// The requirement: gpsfake plays an NMEA log to a real gpsd, and the gpsd source
/// receives the same fixes as `locus decode` gives for that log.
///
/// Logs: two of gpsd's regression logs on which Locus's NMEA decoder and gpsd 3.22 agree on
/// every epoch (docs/nmea-agreement.md), with dates gpsd keeps as they are (it moves dates it
/// takes for a GPS week rollover 1024 weeks on, which older logs would hit):
/// - `nmea-rtk.log`: Trimble, 10 Hz (times to the 0.1 s), GGA + RMC, DGPS and RTK fixes, 122 epochs.
/// - `sirfstarv-nmea.log`: SiRFstarV, 1 Hz, GPS+GLONASS GGA, GNGSA pairs, GSV, RMC, 59 epochs.
extension GpsdLiveTests {
    /// What `locus decode LOG` writes for the log's fixes: the decoder the command runs
    /// (`RecordingDecoder`, format detected, the command's default options), each fix through the
    /// envelope codec as the command's output and the source's messages are.
    static func decodedFixes(_ log: URL) throws -> [(fix: Fix, time: EventTime)] {
        let (observations, _) = try RecordingDecoder.observations(path: log.path, options: DecodeOptions(source: "gps0"))
        return try observations.compactMap { o in
            guard let fix = o.fix else { return nil }
            let body = EnvelopeCodec.encode(Envelope(producer: "gps0", seq: 1, time: o.time, payload: fix))
            let decoded = try EnvelopeCodec.decode(body, registry: .core)
            return (try #require(decoded.payload.as(Fix.self)), decoded.time)
        }
    }

    /// gpsd may write a TPV after each sentence that changes the fix (3.27 does; 3.22 writes
    /// one per epoch for these logs), so an epoch can arrive as several fixes with the same
    /// time, each more complete; the last is gpsd's view of the epoch, which is what Locus's
    /// one fix per epoch is compared with.
    static func lastFixPerEpoch(_ fixes: [(fix: Fix, time: EventTime)]) -> [(fix: Fix, time: EventTime)] {
        var out: [(fix: Fix, time: EventTime)] = []
        for f in fixes {
            if let last = out.last, last.time == f.time { out[out.count - 1] = f } else { out.append(f) }
        }
        return out
    }

    @Test(.timeLimit(.minutes(1)), arguments: ["nmea-rtk.log", "sirfstarv-nmea.log"])
    func sourceReceivesTheFixesLocusDecodeGives(log name: String) async throws {
        let log = Fixtures.url(name)
        let expected = try Self.decodedFixes(log)
        try #require(expected.count >= 50, "locus decode gave \(expected.count) fixes")
        let lastTime = expected.last!.time
        guard let run = try await run(log, complete: { h in try h.fixes().contains { $0.time == lastTime } })
        else { return }
        // gpsd's first TPVs, before any sentence with a time, have none: the source publishes
        // no fix for them, and Locus decodes no epoch there either.
        let received = Self.lastFixPerEpoch(try run.harness.fixes())

        #expect(received.count == expected.count, "\(name): gpsd gave \(received.count) epochs, locus decode \(expected.count)")
        for (i, (g, l)) in zip(received, expected).enumerated() {
            let at = "\(name) epoch \(i) (\(l.time.iso8601))"
            // Both take the time from the sentences, to the millisecond: exact.
            #expect(g.time == l.time, "\(at): time \(g.time.iso8601)")
            #expect(g.fix.mode == l.fix.mode, "\(at): mode \(g.fix.mode) vs \(l.fix.mode)")
            // 1e-6° (about 0.1 m), the agreement report's tolerance: far above the rounding
            // of either side (gpsd and the wire write 9 decimals), far below a real difference
            // such as a position from another sentence or epoch.
            #expect(near(g.fix.latitude, l.fix.latitude, 1e-6) && near(g.fix.longitude, l.fix.longitude, 1e-6),
                    "\(at): position \(String(describing: g.fix.latitude)),\(String(describing: g.fix.longitude)) vs \(String(describing: l.fix.latitude)),\(String(describing: l.fix.longitude))")
            // gpsd 3.22 reports the GGA altitude as altMSL unchanged (4 decimals; the wire
            // keeps 3): 0.01 m.
            #expect(near(g.fix.altitudeMSL, l.fix.altitudeMSL, 0.01), "\(at): alt MSL \(String(describing: g.fix.altitudeMSL)) vs \(String(describing: l.fix.altitudeMSL))")
            // altHAE: gpsd fills it from its own geoid model when the GGA has no separation,
            // Locus leaves it empty then; both logs have the separation, so both have it.
            #expect(near(g.fix.altitudeHAE, l.fix.altitudeHAE, 0.01), "\(at): alt HAE \(String(describing: g.fix.altitudeHAE)) vs \(String(describing: l.fix.altitudeHAE))")
            // Knots to m/s on both sides, written with 3 decimals by gpsd and by the wire:
            // one unit of the last digit for the two roundings.
            #expect(near(g.fix.speed, l.fix.speed, 0.001), "\(at): speed \(String(describing: g.fix.speed)) vs \(String(describing: l.fix.speed))")
            // RMC's track as sent; the wire keeps 2 decimals: 0.01°.
            #expect(near(g.fix.course, l.fix.course, 0.01), "\(at): course \(String(describing: g.fix.course)) vs \(String(describing: l.fix.course))")
            // Quality: gpsd's TPV status (from GGA's quality field) through the source's
            // mapping, Locus's straight from GGA (nmea-rtk has DGPS and RTK fixed epochs).
            #expect(g.fix.quality == l.fix.quality, "\(at): quality \(String(describing: g.fix.quality)) vs \(String(describing: l.fix.quality))")
            // Not compared, on purpose:
            // - horizontal/vertical/speed/course accuracy: gpsd's eph/epv/eps/epd come from its
            //   own error model (DOP × a fixed UERE, 95 %), Locus's from DOP × 4 m or GST
            //   (1-sigma); they are different estimates, not one value decoded twice.
            // - hdop/vdop/pdop and satellites used: gpsd reports them in SKY, not TPV, and
            //   3.22 sends a SKY with its sky view (after GSV), so the source's fix carries the
            //   latest SKY's values, which can lag the epoch's GSA (sirfstarv) or be absent for
            //   a log without GSV (nmea-rtk: no SKY at all); Locus takes the epoch's own
            //   GGA/GSA. The used counts differ too: gpsd's SKY counts its sky view, Locus
            //   takes the last GGA's field (the GLONASS-only $GLGGA in sirfstarv).
            // - heading: gpsd puts HDT into ATT reports, not TPV (and neither log has one).
        }
    }
}
