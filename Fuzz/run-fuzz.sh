#!/usr/bin/env bash
# Builds the NMEA decoder's libFuzzer target (Fuzz/Package.swift) with AddressSanitizer and
# fuzzes it for SECONDS (default 60) on a copy of Fuzz/corpus, with leak detection on.
# Prints libFuzzer's final stats; exits non-zero on a crash, broken invariant, leak, timeout
# or out-of-memory, leaving the input that caused it under the printed work directory.
#
#   Fuzz/run-fuzz.sh [SECONDS]
#
# Environment: FUZZ_CONFIG=release|debug (default release: ~4x the executions of debug),
# FUZZ_SCRATCH=DIR (build directory, default <repo>/.build-fuzz), FUZZ_KEEP=1 (keep the grown
# corpus after a clean run; libFuzzer's full log is always kept in the work directory).
set -euo pipefail

seconds="${1:-60}"
# (0 would mean "no limit" to libFuzzer.)
case "$seconds" in ''|*[!0-9]*|0) echo "usage: $0 [SECONDS], SECONDS >= 1" >&2; exit 2 ;; esac

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$fuzz_dir")"
config="${FUZZ_CONFIG:-release}"
scratch="${FUZZ_SCRATCH:-$root/.build-fuzz}"
max_len=8192  # the largest seed is ~5 KB; longer inputs only repeat lines and slow each run

build=(swift build -c "$config" --package-path "$fuzz_dir" --scratch-path "$scratch"
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
echo "+ ${build[*]}"
started=$(date +%s)
# ld.gold prints one "Cannot export local symbol '__asan_…'" warning per ASan helper: noise.
set +e
"${build[@]}" 2>&1 | grep -v "Cannot export local symbol"
build_status=${PIPESTATUS[0]}
set -e
[ "$build_status" = 0 ] || { echo "run-fuzz: build failed ($build_status)" >&2; exit "$build_status"; }
echo "run-fuzz: built in $(( $(date +%s) - started )) s"
binary="$("${build[@]}" --show-bin-path)/locus-nmea-fuzz"

work="$(mktemp -d "${TMPDIR:-/tmp}/locus-nmea-fuzz.XXXXXX")"
mkdir "$work/corpus" "$work/artifacts"
cp "$fuzz_dir"/corpus/* "$work/corpus/"

export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
# Swift's own crash backtracer fights ASan (it reads memory ASan guards, and reports its own
# error instead of the real one); without it a failed check is a plain trap that libFuzzer
# reports as a "deadly signal" with a symbolised stack, and saves as crash-*.
export SWIFT_BACKTRACE="enable=no"
command=("$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
         -dict="$fuzz_dir/nmea.dict" -print_final_stats=1 -artifact_prefix="$work/artifacts/"
         "$work/corpus")
echo "+ ASAN_OPTIONS=$ASAN_OPTIONS SWIFT_BACKTRACE=$SWIFT_BACKTRACE ${command[*]}"
set +e
"${command[@]}" > "$work/fuzz.log" 2>&1
status=$?
set -e

echo "run-fuzz: libFuzzer exited with $status; full log $work/fuzz.log"
# The last status line (#runs DONE cov ft corp exec/s rss) and the final stats.
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/fuzz.log" | tail -n 1 || true
grep -E '^stat::' "$work/fuzz.log" || true
echo "run-fuzz: corpus now $(find "$work/corpus" -type f | wc -l) inputs"

artifacts=$(find "$work/artifacts" -type f | wc -l)
if [ "$status" != 0 ] || [ "$artifacts" != 0 ]; then
    grep -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|invariant broken|Fatal error|SUMMARY' "$work/fuzz.log" | head -n 20 || true
    echo "run-fuzz: FAILED; inputs in $work/artifacts:" >&2
    ls -l "$work/artifacts" >&2
    echo "run-fuzz: reproduce with: $binary <artifact>; minimise with: $binary -minimize_crash=1 -runs=100000 <artifact>" >&2
    [ "$status" != 0 ] && exit "$status"
    exit 1
fi
# The log stays; the grown corpus (megabytes) only with FUZZ_KEEP=1.
if [ "${FUZZ_KEEP:-0}" = 1 ]; then echo "run-fuzz: OK; corpus kept in $work/corpus"; else rm -rf "$work/corpus"; echo "run-fuzz: OK"; fi
