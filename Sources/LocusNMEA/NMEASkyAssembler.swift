import LocusCore

/// Collects GSV message sequences (1 of N … N of N) per talker and signal into satellite lists.
/// A sequence is committed only when complete; a new message 1 restarts it. Bounded: at most
/// `maxSatellitesPerGroup` satellites per sequence.
struct NMEASkyAssembler {
    static let maxSatellitesPerGroup = 64

    private struct Key: Hashable {
        var talker: UInt16
        var signal: Int
    }
    private struct Pending {
        var next = 1
        var satellites: [(NMEAConstellation, SkyView.Satellite)] = []
    }

    private var pending: [Key: Pending] = [:]
    /// Sequences completed since the last `take()`, in completion order.
    private var complete: [(Key, [(NMEAConstellation, SkyView.Satellite)])] = []

    var hasComplete: Bool { !complete.isEmpty }

    mutating func add(_ s: NMEASentenceView, talker: UInt16) {
        let g = GSV(s)
        guard let total = g.messages, let number = g.number, total >= 1, number >= 1, number <= total else { return }
        let key = Key(talker: talker, signal: g.signalId ?? 0)
        var p = pending[key] ?? Pending()
        if number == 1 { p = Pending() }
        guard number == p.next else {
            pending[key] = nil // a message was lost: drop the sequence
            return
        }
        for k in 0..<min(g.groups, 4) {
            guard let e = GSV.entry(s, k), e.prn > 0, p.satellites.count < Self.maxSatellitesPerGroup else { continue }
            let c = NMEAConstellation.of(prn: e.prn, talker: talker)
            p.satellites.append((c, SkyView.Satellite(
                constellation: c.name, prn: e.prn, elevation: e.elevation, azimuth: e.azimuth,
                snr: e.snr, used: false, signal: c.signalName(g.signalId))))
        }
        p.next += 1
        if number == total {
            pending[key] = nil
            complete.removeAll { $0.0 == key }
            complete.append((key, p.satellites))
        } else {
            pending[key] = p
        }
    }

    /// The satellites of the sequences completed since the last call, flagged `used` when
    /// `used` (GSA keys `constellation << 16 | prn`) lists them.
    mutating func take(used: [UInt32]) -> [SkyView.Satellite] {
        var out: [SkyView.Satellite] = []
        for (_, sats) in complete {
            for (c, var s) in sats {
                s.used = used.contains(UInt32(c.rawValue) << 16 | UInt32(truncatingIfNeeded: s.prn))
                out.append(s)
            }
        }
        complete.removeAll(keepingCapacity: true)
        return out
    }
}
