import LocusCore
import LocusNMEA

/// libFuzzer's per-input callback (see `FuzzerMain.swift` for how libFuzzer is started).
///
/// For each `FuzzCase` the input is decoded fed whole, then fed in input-derived chunks with a
/// copy of the decoder taken midway (`ChunkPlan`). Both runs must emit the same observations
/// and counters (the decoder accepts "any chunking"), and every observation must meet
/// `ObservationChecks` and survive the wire codec (`WireRoundTrip`). A broken invariant calls
/// `fatalError`, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
    let repaired = ChecksumRepair.repaired(raw)
    repaired.withUnsafeBytes { fixed in
        let rawPlan = ChunkPlan(raw), fixedPlan = ChunkPlan(fixed)
        for c in FuzzCase.all {
            let input = c.repairChecksums ? fixed : raw
            let plan = c.repairChecksums ? fixedPlan : rawPlan
            let whole = DecodeRun(input: input, options: c.options, plan: nil)
            let chunked = DecodeRun(input: input, options: c.options, plan: plan)
            require(whole.statistics == chunked.statistics,
                    "chunked feeding changed the counters: \(whole.statistics) vs \(chunked.statistics)")
            require(whole.observations == chunked.observations,
                    "chunked feeding changed the observations (\(whole.observations.count) vs \(chunked.observations.count))")
            for o in whole.observations {
                ObservationChecks.check(o, options: c.options)
                WireRoundTrip.check(o)
            }
        }
    }
    return 0
}
