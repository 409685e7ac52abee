import CLibFuzzer

/// The process entry point: SwiftPM links executables with `--defsym main=<Module>_main`,
/// which hides libFuzzer's `main`; this hands over to libFuzzer's driver (see
/// `LocusNMEAFuzz/FuzzerMain.swift`).
@_cdecl("LocusGpsdServerFuzz_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data, size) }
}
