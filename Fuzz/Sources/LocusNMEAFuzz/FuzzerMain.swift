import CLibFuzzer

/// The process entry point. On Linux SwiftPM links every executable with
/// `--defsym main=<Module>_main` (so tests can link executables), which also hides libFuzzer's
/// own `main`; so this is that `<Module>_main`, and it hands over to libFuzzer's driver, which
/// takes the usual libFuzzer flags and calls `fuzz` once per input.
@_cdecl("LocusNMEAFuzz_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzz(data, size) }
}
