import LocusFormats
import LocusReaderFuzzSupport

/// libFuzzer's per-input callback: `GpsdJSONReader` on the input (see `fuzzRecordingReader`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzRecordingReader(data, size) { input, emit in
        var reader = GpsdJSONReader(options: .init(source: "fuzz", includeSky: true))
        try reader.read(input, emit: emit)
        return reader.statistics
    }
}
