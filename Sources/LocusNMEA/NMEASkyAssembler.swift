import LocusCore

/// Collects GSV message sequences (1 of N … N of N) per talker and signal into satellite lists.
/// A sequence is committed only when complete; a new message 1 restarts it. Bounded: at most
/// `maxSatellitesPerGroup` satellites per sequence, and at most `maxSequences` talker/signal
/// pairs in progress.
///
/// Satellites are kept as plain values (no strings) until `take`, and the few sequences live
/// in small arrays updated in place: a receiver sends several GSVs every second, and
/// dictionary copies of string-carrying satellites were a large part of decoding time.
struct NMEASkyAssembler {
    static let maxSatellitesPerGroup = 64
    static let maxSequences = 64

    private struct Key: Equatable {
        var talker: UInt16
        var signal: Int
    }

    private struct Entry {
        var constellation: NMEAConstellation
        var signalId: Int?
        var prn: Int
        var elevation: Double?
        var azimuth: Double?
        var snr: Double?
    }

    private struct Sequence {
        var key: Key
        var next = 1
        var entries: [Entry] = []
    }

    /// Sequences still waiting for their last message.
    private var pending: [Sequence] = []
    /// Sequences completed since the last `take()`, in completion order.
    private var complete: [Sequence] = []

    var hasComplete: Bool { !complete.isEmpty }

    mutating func add(_ s: NMEASentenceView, talker: UInt16) {
        let g = GSV(s)
        guard let total = g.messages, let number = g.number, total >= 1, number >= 1, number <= total else { return }
        let key = Key(talker: talker, signal: g.signalId ?? 0)
        var index = pending.firstIndex { $0.key == key }
        if number == 1 {
            if let i = index {
                pending[i].next = 1
                pending[i].entries.removeAll(keepingCapacity: true)
            } else if pending.count < Self.maxSequences {
                var fresh = Sequence(key: key)
                fresh.entries.reserveCapacity(16) // four GSVs' worth: no regrowth in the usual case
                pending.append(fresh)
                index = pending.count - 1
            }
        }
        guard let i = index else { return } // a sequence whose first message was lost
        guard number == pending[i].next else {
            pending.remove(at: i) // a message was lost: drop the sequence
            return
        }
        for k in 0..<min(g.groups, 4) {
            guard pending[i].entries.count < Self.maxSatellitesPerGroup, let e = GSV.entry(s, k), e.prn > 0 else { continue }
            pending[i].entries.append(Entry(
                constellation: NMEAConstellation.of(prn: e.prn, talker: talker), signalId: g.signalId,
                prn: e.prn, elevation: e.elevation, azimuth: e.azimuth, snr: e.snr))
        }
        pending[i].next += 1
        if number == total {
            let done = pending.remove(at: i)
            complete.removeAll { $0.key == key }
            complete.append(done)
        }
    }

    /// The satellites of the sequences completed since the last call, flagged `used` when
    /// `used` (GSA keys `constellation << 16 | prn`) lists them.
    mutating func take(used: [UInt32]) -> [SkyView.Satellite] {
        var count = 0
        for c in complete { count += c.entries.count }
        var out: [SkyView.Satellite] = []
        out.reserveCapacity(count)
        for c in complete {
            for e in c.entries {
                out.append(SkyView.Satellite(
                    constellation: e.constellation.name, prn: e.prn, elevation: e.elevation, azimuth: e.azimuth,
                    snr: e.snr, used: used.contains(UInt32(e.constellation.rawValue) << 16 | UInt32(truncatingIfNeeded: e.prn)),
                    signal: e.constellation.signalName(e.signalId)))
            }
        }
        complete.removeAll(keepingCapacity: true)
        return out
    }
}
