#!/usr/bin/env bash
# Runs the Swift tests serially and, when any fail, repeats the failing tests' lines at the end:
# CI keeps only the tail of a long log, and a failure 400 lines up is otherwise invisible there.
set -uo pipefail
SWIFT="${SWIFT:-swift}"
log="$(mktemp "${TMPDIR:-/tmp}/locus-swift-test.XXXXXX")"
# Daemons the tests start keep their journal in the state directory: a fresh one per run, not ~/.local/state.
export LOCUS_STATE_DIR="${LOCUS_STATE_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/locus-test-state.XXXXXX")}"
# Swift Testing records a backtrace for every Swift error thrown while a test runs, even one
# caught at once (decoders throw on each wrong guess): debug tests spent a fifth of their time in
# the unwinder. A failing test still names its error and its line.
export SWT_SWIFT_ERROR_BACKTRACING_ENABLED="${SWT_SWIFT_ERROR_BACKTRACING_ENABLED:-0}"
trap 'rm -f "$log"; rm -rf "$LOCUS_STATE_DIR"' EXIT
"$SWIFT" test --skip-build --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "=== failing tests (repeated from above) ==="
    # A recorded issue is followed by its indented detail lines; keep a few of them.
    grep -A4 -E '✘|error:|Fatal error|Crash|signal [0-9]+' "$log" | grep -v '^--$' | tail -n 80
    echo "=== swift test exited with status $status ==="
fi
exit "$status"
