import LocusFormats
import LocusReaderFuzzSupport

/// libFuzzer's per-input callback: `GPXReader` on the input (see `fuzzRecordingReader`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzRecordingReader(data, size) { input, emit in
        var reader = GPXReader(options: .init(source: "fuzz"))
        try reader.read(input, emit: emit)
        return reader.statistics
    }
}
