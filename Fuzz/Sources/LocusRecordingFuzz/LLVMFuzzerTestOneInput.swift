import LocusFormats
import LocusReaderFuzzSupport

/// libFuzzer's per-input callback: format detection, then `LocusRecordingReader` on the input
/// (see `fuzzRecordingReader`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // Format detection reads the same bytes first (`locus decode` without --format).
    if let data {
        let detected = RecordingFormat.detectSkippingText(UnsafeBufferPointer(start: data, count: size))
        precondition(detected.textLines <= RecordingFormat.maxTextLines + 1, "invariant broken: detection read past its line bound")
    }
    return fuzzRecordingReader(data, size) { input, emit in
        var reader = LocusRecordingReader(options: .init(source: "fuzz"))
        try reader.read(input, emit: emit)
        return reader.statistics
    }
}
