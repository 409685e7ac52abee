#!/usr/bin/env bash
# BLE advertisement decoding (issue 6): `locus-bench ble` decodes AD payloads into
# `AdvertisingData`, beacon detection included, on one core, reporting advertisements/s from
# this thread's CPU time (steadier than wall time on the shared 2-core machines) and wall time.
# The payloads are the 134 test vectors' AD data (AD-structure vectors as they are, HCI vectors'
# report data), taken from Tests/LocusBLETests/Fixtures; the bench also runs a beacon-only, a
# non-beacon-only and a weighted "scanner mix" set.
#
# If python3 has beacontools (pip install beacontools; the tests do not need it), its
# parse_packet() rate on the same payloads is printed for comparison, else a note says so.
#
# usage: bench/ble-decode-bench.sh [N]      (ads per set, default 5M)
# env:   SCRATCH=.build-bus   SwiftPM scratch directory for the release build
#        REPEATS=3            best of REPEATS
set -euo pipefail

N=${1:-5M}
REPEATS=${REPEATS:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-.build-bus}
cd "$ROOT"

WORK=$(mktemp -d /tmp/locus-ble-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
PAYLOADS="$WORK/payloads.hex"

python3 - "$ROOT/Tests/LocusBLETests/Fixtures/ble-advertisement-vectors.json" >"$PAYLOADS" <<'PY'
import json, sys
for v in json.load(open(sys.argv[1]))["vectors"]:
    b = bytes.fromhex(v["raw_hex"])
    f = v["format"]
    if f == "ad_structures":
        data = b
    elif f == "le_adv_report_body":
        data = b[9:9 + b[8]]
    elif f.startswith("hci_event"):
        p = (0 if b[0] == 0x3E else 1) + 2          # parameters start after code and length
        data = b[p + 2 + 9:p + 2 + 9 + b[p + 2 + 8]]  # subevent, num_reports, then the report
    else:
        continue
    if data:
        print(data.hex())
PY
echo "== $(wc -l <"$PAYLOADS") AD payloads from the test vectors"

echo "== building locus-bench (release, scratch $SCRATCH)"
swift build --scratch-path "$SCRATCH" -c release --product locus-bench 2>&1 | tail -1
BIN="$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)"
"$BIN/locus-bench" ble "$PAYLOADS" "$N" "$REPEATS"

if python3 -c "import beacontools" 2>/dev/null; then
    python3 - "$PAYLOADS" "$REPEATS" <<'PY'
import sys, time
from beacontools import parse_packet
payloads = [bytes.fromhex(l) for l in open(sys.argv[1]).read().split()]
n = max(20000, len(payloads) * 200)
best = float("inf"); found = 0
for _ in range(int(sys.argv[2])):
    t0 = time.process_time(); found = 0
    for i in range(n):
        if parse_packet(payloads[i % len(payloads)]) is not None:
            found += 1
    best = min(best, time.process_time() - t0)
print(f"beacontools 2.1.0 parse_packet all vectors: {n / best:.0f} ads/s cpu ({n} ads, {found} frames, best of {sys.argv[2]})")
PY
else
    echo "beacontools not installed (python3 -m pip install beacontools): no comparison"
fi
