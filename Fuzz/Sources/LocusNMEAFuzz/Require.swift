/// Traps with `message` when `condition` is false. `fatalError` (not `assert`) so the check
/// stays in release builds; libFuzzer reports the trap as a crash and saves the input.
@inline(__always)
func require(_ condition: Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
}
