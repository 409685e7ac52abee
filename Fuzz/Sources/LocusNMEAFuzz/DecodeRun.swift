import LocusNMEA

/// One decode of an input under one option set: everything emitted, and the final counters.
///
/// While feeding it checks what holds after every `feed` call: no counter ever goes down, and
/// `fixes` / `skyViews` match what was emitted. With a `ChunkPlan` it also copies the decoder
/// midway and feeds the rest to both: a copy is a value (the framer copies its shared line
/// buffer before writing), so both must go on to emit the same things.
struct DecodeRun {
    private(set) var observations: [NMEAObservation] = []
    private(set) var statistics = NMEAStatistics()

    init(input: UnsafeRawBufferPointer, options: NMEADecoderOptions, plan: ChunkPlan?) {
        let ranges = plan?.ranges ?? [0..<input.count]
        var decoder = NMEADecoder(options: options)
        var twin: NMEADecoder?
        var twinObservations: [NMEAObservation] = []
        var emitted: [NMEAObservation] = []
        var tally = Tally()
        for (k, range) in ranges.enumerated() {
            let piece = UnsafeRawBufferPointer(rebasing: input[range])
            let before = decoder.statistics
            decoder.feed(piece) { emitted.append($0); tally.add($0) }
            Self.checkProgress(from: before, to: decoder.statistics, tally: tally)
            if twin != nil {
                twin!.feed(piece) { twinObservations.append($0) }
            } else if let plan, k == plan.copyAfter {
                twin = decoder
                twinObservations = emitted
            }
        }
        let before = decoder.statistics
        decoder.finish { emitted.append($0); tally.add($0) }
        Self.checkProgress(from: before, to: decoder.statistics, tally: tally)
        if var t = twin {
            t.finish { twinObservations.append($0) }
            require(t.statistics == decoder.statistics, "a copied decoder counted differently")
            require(twinObservations == emitted, "a copied decoder emitted differently")
        }
        observations = emitted
        statistics = decoder.statistics
    }

    /// Observations emitted so far, by kind (kept as they come: counting `emitted` after every
    /// feed would make a run quadratic in the input).
    private struct Tally {
        var fixes = 0, skyViews = 0
        mutating func add(_ o: NMEAObservation) {
            if case .fix = o { fixes += 1 } else { skyViews += 1 }
        }
    }

    private static func checkProgress(from a: NMEAStatistics, to b: NMEAStatistics, tally: Tally) {
        b.checkNoCounterBelow(a)
        require(b.fixes == tally.fixes, "statistics.fixes \(b.fixes) but \(tally.fixes) fixes emitted")
        require(b.skyViews == tally.skyViews, "statistics.skyViews \(b.skyViews) but \(tally.skyViews) sky views emitted")
    }
}
