#!/usr/bin/env bash
# Regenerates Tests/Golden/<case>/expected.jsonl with `locus replay` (all cases, or those named).
# Review the diff before committing: the golden files are the specification of the services.
#
# usage: tools/update-golden.sh [CASE...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
swift build --product locus 2>&1 | tail -1
LOCUS="$(swift build --show-bin-path)/locus"
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
    for d in Tests/Golden/*/; do cases+=("$(basename "$d")"); done
fi
for c in "${cases[@]}"; do
    dir="Tests/Golden/$c"
    [[ -f "$dir/config.yaml" && -f "$dir/input.jsonl" ]] || { echo "$dir: needs config.yaml and input.jsonl" >&2; exit 1; }
    (cd "$dir" && "$LOCUS" replay input.jsonl --config config.yaml > expected.jsonl.new)
    mv "$dir/expected.jsonl.new" "$dir/expected.jsonl"
    echo "$c: $(wc -l < "$dir/expected.jsonl") events"
done
git --no-pager diff --stat -- Tests/Golden || true
