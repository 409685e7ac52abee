import LocusCore

/// NMEA 0183 bytes in, `Fix` and `SkyView` observations out. Usable without the bus:
///
/// ```swift
/// var d = NMEADecoder(options: .init(source: "gps0"))
/// d.feed(chunk) { obs in … }      // any chunking
/// d.finish { obs in … }           // end of input: flushes the last epoch
/// ```
///
/// A value type; it never reads the wall clock. Framing and the position sentences do not
/// allocate; GSA/GSV fill small arrays for the sky view.
public struct NMEADecoder {
    private var framer: NMEAFramer
    private var assembler: NMEAEpochAssembler

    /// A decoder with an empty line buffer and no date yet.
    public init(options: NMEADecoderOptions = .init()) {
        framer = NMEAFramer(options: options.framing)
        assembler = NMEAEpochAssembler(options: options)
    }

    /// Test hook, see `NMEAEpochAssembler.gsaFixTypeObserver`.
    var gsaFixTypeObserver: ((Int64, Int?) -> Void)? {
        get { assembler.gsaFixTypeObserver }
        set { assembler.gsaFixTypeObserver = newValue }
    }

    /// The options it was made with.
    public var options: NMEADecoderOptions { assembler.options }

    /// Framing and decoding counters so far.
    public var statistics: NMEAStatistics {
        var s = assembler.statistics
        s.framing = framer.statistics
        return s
    }

    /// The current time, for `NMEADecoderOptions.dateFromClock` (a live source passes its wall
    /// clock before each chunk; the decoder itself never reads one).
    public mutating func setClock(_ now: EventTime) { assembler.clock = now }

    /// Decodes a chunk of bytes; observations of epochs that close are passed to `emit`.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (NMEAObservation) -> Void) {
        var offset = 0
        while let s = framer.next(in: bytes, offset: &offset) {
            assembler.handle(s, emit: emit)
        }
    }

    /// `feed(_:emit:)`, also handing each valid sentence as received to `sentence` (before the
    /// observations it completes): NMEA pass-through. The bytes are valid during the call only.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, sentence: (UnsafeBufferPointer<UInt8>) -> Void,
                              emit: (NMEAObservation) -> Void) {
        var offset = 0
        while let s = framer.next(in: bytes, offset: &offset) {
            sentence(s.sentence)
            assembler.handle(s, emit: emit)
        }
    }

    /// `feed(_:emit:)` for an array.
    public mutating func feed(_ bytes: [UInt8], emit: (NMEAObservation) -> Void) {
        bytes.withUnsafeBytes { feed($0, emit: emit) }
    }

    /// End of input: drops an unterminated last line and emits the open epoch.
    public mutating func finish(emit: (NMEAObservation) -> Void) {
        framer.finish()
        assembler.flush(emit: emit)
    }
}
