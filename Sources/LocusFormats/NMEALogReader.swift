import LocusCore
import LocusNMEA

/// NMEA 0183 logs, through `NMEADecoder`. Epochs before the first date (RMC/ZDA) are dated with
/// `DecodeOptions.fallbackDate`, else held (up to `undatedEpochsHeld`) and dated backwards from
/// the first date, counting the midnights between; a log without any date and no fallback gives
/// a warning.
public struct NMEALogReader {
    /// Undated epochs a log may start with and still be dated by a later RMC/ZDA (about 28 hours
    /// at 1 Hz; a held fix takes a few hundred bytes).
    public static let undatedEpochsHeld = 100_000

    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var nmeaStatistics = NMEAStatistics()
    /// Problems worth telling the user (no date, nothing decoded).
    public private(set) var warnings: [String] = []

    public init(options: DecodeOptions = .init()) { self.options = options }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        var nmeaOptions = NMEADecoderOptions(source: options.source, fallbackDate: options.fallbackDate)
        nmeaOptions.skyViews = options.includeSky
        nmeaOptions.holdUndatedEpochs = Self.undatedEpochsHeld
        var decoder = NMEADecoder(options: nmeaOptions)
        let includeSky = options.includeSky
        var fixes = 0, skies = 0
        var thrown: Error?
        // The decoder's callback cannot throw: remember the first error and stop emitting.
        func handle(_ o: NMEAObservation) {
            guard thrown == nil else { return }
            do {
                switch o {
                case .fix(let f, let t):
                    fixes += 1
                    try emit(.fix(f, at: t))
                case .sky(let s, let t):
                    guard includeSky else { return }
                    skies += 1
                    try emit(.sky(s, at: t))
                }
            } catch { thrown = error }
        }
        while try input.read({ chunk in decoder.feed(chunk, emit: handle) }) {
            if let thrown { throw thrown }
        }
        decoder.finish(emit: handle)
        if let thrown { throw thrown }
        let s = decoder.statistics
        nmeaStatistics = s
        statistics.bytes = input.bytesRead
        statistics.fixes = fixes
        statistics.skyViews = skies
        statistics.count("sentences", s.framing.sentences)
        statistics.count("bad_checksum", s.framing.badChecksum)
        statistics.count("unsupported_sentences", s.unsupported + s.proprietary)
        statistics.count("fallback_dated_epochs", s.fixesWithFallbackDate)
        statistics.count("undated_epochs_dropped", s.fixesWithoutDate)
        statistics.count("backdated_epochs", s.fixesDatedBackwards)
        if s.fixesWithoutDate > 0 && options.fallbackDate == nil {
            // Say what was found: no dated sentence at all, or more undated epochs than are held.
            warnings.append(s.datesSeen == 0
                ? "the log has no date (no RMC or ZDA sentence with a date): \(s.fixesWithoutDate) epoch(s) dropped; give the day with --date YYYY-MM-DD"
                : "\(s.fixesWithoutDate) epoch(s) dropped: more than \(Self.undatedEpochsHeld) epochs came before the first RMC/ZDA date (--date YYYY-MM-DD dates them)")
        }
    }
}
