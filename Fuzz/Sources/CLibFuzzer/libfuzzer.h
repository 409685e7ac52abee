// libFuzzer's driver entry point (compiler-rt FuzzerInterface.h / FuzzerDriver.cpp), declared
// here because the toolchain ships libFuzzer's archive but no header for it. The archive is
// linked by `-sanitize=fuzzer`.
#include <stddef.h>
#include <stdint.h>

/// Parses libFuzzer's flags from argc/argv and runs the fuzzing loop (or the given inputs),
/// calling `callback` once per input. Returns the process exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
