import LocusCore
import LocusNMEA

/// The decoder settings every input is run under, and whether the input's checksums are
/// repaired first (`ChecksumRepair`).
struct FuzzCase {
    var options: NMEADecoderOptions
    var repairChecksums: Bool

    /// 2010-08-05T09:22:40Z: a fallback day given mid-day, so its floor to midnight is exercised.
    static let fallbackDate = EventTime(milliseconds: 1_280_999_760_000)

    /// The defaults (those of the `nmea-serial` source and `locus decode`: checksums required,
    /// 256-byte sentences, no fallback date, so undated epochs are dropped), on the input as it
    /// is (the framer's rejects) and with repaired checksums (the sentence parsers and epoch
    /// assembly). Then lenient settings on repaired input: sentences without `*hh` accepted,
    /// NMEA's own 82-byte limit (more overlong lines), and a fallback date (epochs without
    /// RMC/ZDA still become fixes).
    static let all: [FuzzCase] = [
        FuzzCase(options: NMEADecoderOptions(source: "gps0"), repairChecksums: false),
        FuzzCase(options: NMEADecoderOptions(source: "gps0"), repairChecksums: true),
        FuzzCase(options: NMEADecoderOptions(source: "fuzz",
                                             framing: .init(maxSentenceLength: 82, acceptMissingChecksum: true),
                                             fallbackDate: fallbackDate),
                 repairChecksums: true),
        // Undated epochs held for a later date, with a small bound in epochs and in time so
        // the drops are reached (issue 17): as `locus decode` and `nmea-serial` hold them.
        FuzzCase(options: held, repairChecksums: true),
    ]

    static var held: NMEADecoderOptions {
        var o = NMEADecoderOptions(source: "gps0")
        o.holdUndatedEpochs = 4
        o.holdUndatedSeconds = 2
        return o
    }
}
