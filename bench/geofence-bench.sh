#!/usr/bin/env bash
# Issue 5's geofence scale benchmark: shapely 2's STRtree (`geofence_bench.py bulk N within`)
# against `locus-bench geofence` (LocusRegions' RegionShape geometry in a RegionShapeIndex) on
# the same data set (100,000 circles + 10,000 polygons, 1,000,000 points), alternating, RUNS
# times each, in the same run. Prints both rates, the ratios (target >= 10), hit counts and
# peak RSS (target < 200 MB). Locus is measured two ways: one forEachRegion(containing:) per
# point in file order (the per-fix path), and one forEachRegion(containingEachOf:) over all
# points (the batch path, which visits them in grid order; shapely's bulk query is also one
# call per 100,000 points). This machine class is noisy (2 shared cores): compare the ratios;
# shapely is timed in wall time only, so the wall ratios are the like-for-like ones.
#
# Counts differ by design: shapely's "within" tests circles as 32-gons in a planar projection,
# Locus tests exact geodesic circles. locus-bench recomputes shapely's planar model on its own
# candidates (the "shapely model" line) to show both checksums are reproduced, then counts the
# pairs where planar and geodesic disagree and how far from the boundary they lie.
#
# usage: bench/geofence-bench.sh               (needs python3 with shapely and numpy)
# env:   GEOFENCE_DATA=/tmp/locus-geofence    data directory (generated there when missing)
#        SCRATCH=.build-rel                   SwiftPM scratch directory for the release build
#        RUNS=3                               alternating runs of each
set -euo pipefail

RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPT="$ROOT/../shared/bench/geofence_bench.py"
SCRATCH=${SCRATCH:-.build-rel}
export GEOFENCE_DATA=${GEOFENCE_DATA:-/tmp/locus-geofence}
cd "$ROOT"

[[ -f "$SCRIPT" ]] || { echo "no $SCRIPT" >&2; exit 1; }
python3 -c "import shapely, numpy" || { echo "python3 needs shapely and numpy: python3 -m pip install shapely numpy" >&2; exit 1; }
mkdir -p "$GEOFENCE_DATA"
if [[ ! -f "$GEOFENCE_DATA/points.csv" ]]; then
    echo "== generating the data set in $GEOFENCE_DATA"
    python3 "$SCRIPT" gen
fi

echo "== building locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BIN="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)"

WORK=$(mktemp -d /tmp/locus-geofence-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
field() { sed -nE "s|.*[ ]$1=([0-9.]+).*|\1|p" <<<"$2" | head -1; }
shapely_rates=(); locus_rates=(); locus_cpu=(); batch_rates=(); shapely_rss=0; locus_rss=0
for ((run = 1; run <= RUNS; run++)); do
    /usr/bin/time -f "%M" -o "$WORK/ts" python3 "$SCRIPT" bulk 1000000 within >"$WORK/s" 2>"$WORK/se"
    s=$(cat "$WORK/s"); shapely_rss=$(tail -1 "$WORK/ts")
    /usr/bin/time -f "%M" -o "$WORK/tl" "$BIN/locus-bench" geofence "$GEOFENCE_DATA" >"$WORK/l"
    l=$(grep '^locus-geofence ' "$WORK/l"); b=$(grep '^locus-geofence-batch ' "$WORK/l"); locus_rss=$(tail -1 "$WORK/tl")
    shapely_rates+=("$(field 'q/s' "$s")"); locus_rates+=("$(field 'q/s' "$l")"); locus_cpu+=("$(field 'cpu_q/s' "$l")")
    batch_rates+=("$(field 'q/s' "$b")")
    echo "run $run  shapely $(field 'q/s' "$s") q/s   locus $(field 'q/s' "$l") q/s (cpu $(field 'cpu_q/s' "$l"))   locus batch $(field 'q/s' "$b") q/s   ratios $(ratio "$(field 'q/s' "$l")" "$(field 'q/s' "$s")")× / $(ratio "$(field 'q/s' "$b")" "$(field 'q/s' "$s")")×"
done

sm=$(median "${shapely_rates[@]}"); lm=$(median "${locus_rates[@]}"); lc=$(median "${locus_cpu[@]}"); bm=$(median "${batch_rates[@]}")
echo
echo "================ last run in full ================"
cat "$WORK/se" "$WORK/s" "$WORK/l"
echo
echo "================ summary (medians of $RUNS; compare ratios) ================"
printf '%-22s %10.0f q/s                        peak %7d KiB\n' "shapely STRtree bulk" "$sm" "$shapely_rss"
printf '%-22s %10.0f q/s (cpu %10.0f q/s)   peak %7d KiB (target < 200 MB)\n' "locus per point" "$lm" "$lc" "$locus_rss"
printf '%-22s %10.0f q/s\n' "locus batch" "$bm"
printf '%-22s %10s× per point, %s× batch (wall; target >= 10)\n' "locus / shapely" "$(ratio "$lm" "$sm")" "$(ratio "$bm" "$sm")"
echo "shapely counts: hits=$(field hits "$s") circle_hits=$(field circle_hits "$s") poly_hits=$(field poly_hits "$s") points_in_any=$(field points_in_any "$s")  (32-gon circles, planar)"
echo "locus counts:   hits=$(field hits "$l") circle_hits=$(field circle_hits "$l") poly_hits=$(field poly_hits "$l") points_in_any=$(field points_in_any "$l")  (exact geodesic circles)"
