#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Package.swift) with AddressSanitizer and fuzzes one of them
# (or each in turn) for SECONDS (default 60) on a copy of its seed corpus, with leak detection on.
# Prints libFuzzer's final stats; exits non-zero on a crash, broken invariant, leak, timeout or
# out-of-memory, leaving the input that caused it under the printed work directory.
#
#   Fuzz/run-fuzz.sh [TARGET] [SECONDS]
#
# TARGET: nmea (the default), gpx, gpsd, recording, journal, catchup, control, envelope, certificate, mqtt, web, webhead,
# webframe, state, geojson, fleet, gpsdserver, or all (each for SECONDS). A lone number is
# SECONDS for nmea, as before.
# Environment: FUZZ_CONFIG=release|debug (default release: ~4x the executions of debug),
# FUZZ_SCRATCH=DIR (build directory, default <repo>/.build-fuzz), FUZZ_KEEP=1 (keep the grown
# corpus after a clean run; libFuzzer's full log is always kept in the work directory).
set -euo pipefail

target=nmea
case "${1:-}" in nmea|gpx|gpsd|recording|journal|catchup|control|envelope|certificate|mqtt|web|webhead|webframe|state|geojson|fleet|gpsdserver|all) target="$1"; shift ;; esac
seconds="${1:-60}"
# (0 would mean "no limit" to libFuzzer.)
case "$seconds" in ''|*[!0-9]*|0) echo "usage: $0 [nmea|gpx|gpsd|recording|journal|catchup|control|envelope|certificate|mqtt|web|webhead|webframe|state|geojson|fleet|gpsdserver|all] [SECONDS], SECONDS >= 1" >&2; exit 2 ;; esac

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$fuzz_dir")"
config="${FUZZ_CONFIG:-release}"
scratch="${FUZZ_SCRATCH:-$root/.build-fuzz}"

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
bin_dir="$("${build[@]}" --show-bin-path)"

# Swift's own crash backtracer fights ASan (it reads memory ASan guards, and reports its own
# error instead of the real one); without it a failed check is a plain trap that libFuzzer
# reports as a "deadly signal" with a symbolised stack, and saves as crash-*.
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"
export SWIFT_BACKTRACE="enable=no"

# fuzz NAME: runs one target for $seconds; returns non-zero on any finding.
fuzz() {
    local name="$1" corpus dict max_len
    case "$name" in
        # The largest NMEA seed is ~5 KB; longer inputs only repeat lines and slow each run.
        nmea) corpus="$fuzz_dir/corpus"; dict="$fuzz_dir/nmea.dict"; max_len=8192 ;;
        gpx) corpus="$fuzz_dir/corpus-gpx"; dict="$fuzz_dir/gpx.dict"; max_len=8192 ;;
        gpsd) corpus="$fuzz_dir/corpus-gpsd"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        recording) corpus="$fuzz_dir/corpus-recording"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        journal) corpus="$fuzz_dir/corpus-journal"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        catchup) corpus="$fuzz_dir/corpus-catchup"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        control) corpus="$fuzz_dir/corpus-control"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        envelope) corpus="$fuzz_dir/corpus-envelope"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        certificate) corpus="$fuzz_dir/corpus-certificate"; dict="$fuzz_dir/certificate.dict"; max_len=4096 ;;
        mqtt) corpus="$fuzz_dir/corpus-mqtt"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        web) corpus="$fuzz_dir/corpus-web"; dict="$fuzz_dir/json.dict"; max_len=4096 ;;
        # The head guard's limit there is 1,024 bytes: inputs of a few KB cross it.
        webhead) corpus="$fuzz_dir/corpus-webhead"; dict="$fuzz_dir/http.dict"; max_len=4096 ;;
        webframe) corpus="$fuzz_dir/corpus-webframe"; dict="$fuzz_dir/websocket.dict"; max_len=4096 ;;
        state) corpus="$fuzz_dir/corpus-state"; dict="$fuzz_dir/json.dict"; max_len=8192 ;;
        geojson) corpus="$fuzz_dir/corpus-geojson"; dict="$fuzz_dir/geojson.dict"; max_len=16384 ;;
        fleet) corpus="$fuzz_dir/corpus-fleet"; dict="$fuzz_dir/json.dict"; max_len=4096 ;;
        gpsdserver) corpus="$fuzz_dir/corpus-gpsdserver"; dict="$fuzz_dir/json.dict"; max_len=2048 ;;
    esac
    local binary="$bin_dir/locus-$name-fuzz"
    local work
    work="$(mktemp -d "${TMPDIR:-/tmp}/locus-$name-fuzz.XXXXXX")"
    mkdir "$work/corpus" "$work/artifacts"
    cp "$corpus"/* "$work/corpus/"
    local command=("$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
                   -dict="$dict" -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus")
    echo "+ [$name] ASAN_OPTIONS=$ASAN_OPTIONS SWIFT_BACKTRACE=$SWIFT_BACKTRACE ${command[*]}"
    set +e
    "${command[@]}" > "$work/fuzz.log" 2>&1
    local status=$?
    set -e
    echo "run-fuzz [$name]: libFuzzer exited with $status; full log $work/fuzz.log"
    # The last status line (#runs DONE cov ft corp exec/s rss) and the final stats.
    grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$work/fuzz.log" | tail -n 1 || true
    grep -E '^stat::' "$work/fuzz.log" || true
    echo "run-fuzz [$name]: corpus now $(find "$work/corpus" -type f | wc -l) inputs"
    local artifacts
    artifacts=$(find "$work/artifacts" -type f | wc -l)
    if [ "$status" != 0 ] || [ "$artifacts" != 0 ]; then
        grep -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|invariant broken|Fatal error|SUMMARY' "$work/fuzz.log" | head -n 20 || true
        echo "run-fuzz [$name]: FAILED; inputs in $work/artifacts:" >&2
        ls -l "$work/artifacts" >&2
        echo "run-fuzz [$name]: reproduce with: $binary <artifact>; minimise with: $binary -minimize_crash=1 -runs=100000 <artifact>" >&2
        [ "$status" != 0 ] && return "$status"
        return 1
    fi
    # The log stays; the grown corpus (megabytes) only with FUZZ_KEEP=1.
    if [ "${FUZZ_KEEP:-0}" = 1 ]; then echo "run-fuzz [$name]: OK; corpus kept in $work/corpus"; else rm -rf "$work/corpus"; echo "run-fuzz [$name]: OK"; fi
}

if [ "$target" = all ]; then
    for t in nmea gpx gpsd recording journal catchup control envelope certificate mqtt web webhead webframe state geojson fleet gpsdserver; do fuzz "$t"; done
else
    fuzz "$target"
fi
