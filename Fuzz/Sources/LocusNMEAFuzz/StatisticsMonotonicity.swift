import LocusNMEA

extension NMEAStatistics {
    /// Traps unless every counter is at least its value in `earlier` and not negative: the
    /// counters only ever count up. Written out field by field (no key paths or arrays) because
    /// it runs after every `feed`. A counter added to `NMEAStatistics` belongs here too.
    func checkNoCounterBelow(_ earlier: NMEAStatistics) {
        func counter(_ name: StaticString, _ before: Int, _ now: Int) {
            require(now >= before && now >= 0, "counter \(name) went from \(before) to \(now)")
        }
        let f = framing, e = earlier.framing
        counter("framing.sentences", e.sentences, f.sentences)
        counter("framing.badChecksum", e.badChecksum, f.badChecksum)
        counter("framing.missingChecksum", e.missingChecksum, f.missingChecksum)
        counter("framing.acceptedWithoutChecksum", e.acceptedWithoutChecksum, f.acceptedWithoutChecksum)
        counter("framing.overlong", e.overlong, f.overlong)
        counter("framing.invalidCharacters", e.invalidCharacters, f.invalidCharacters)
        counter("framing.truncated", e.truncated, f.truncated)
        counter("framing.encapsulated", e.encapsulated, f.encapsulated)
        counter("framing.comments", e.comments, f.comments)
        counter("framing.noise", e.noise, f.noise)
        counter("decoded", earlier.decoded, decoded)
        counter("proprietary", earlier.proprietary, proprietary)
        counter("unsupported", earlier.unsupported, unsupported)
        counter("outsideEpoch", earlier.outsideEpoch, outsideEpoch)
        counter("fixes", earlier.fixes, fixes)
        counter("skyViews", earlier.skyViews, skyViews)
        counter("fixesWithFallbackDate", earlier.fixesWithFallbackDate, fixesWithFallbackDate)
        counter("fixesWithoutDate", earlier.fixesWithoutDate, fixesWithoutDate)
        counter("midnightRollovers", earlier.midnightRollovers, midnightRollovers)
    }
}
