#!/usr/bin/env python3
"""Writes a Locus recording played COPIES times back to back, as one longer recording.

    repeat_recording.py IN.jsonl OUT.jsonl COPIES

Each copy's envelope times are shifted by the recording's span plus 10 minutes, and `seq`
keeps counting, so the result is one walk after another, as a replay source takes it. The
web gateway's load tests use it to fill the gateway's history (5,000 events) in a second at
`speed: max` without looping (the Cerknica walk alone is 296 fixes).
"""

import datetime
import json
import sys

FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def main(src, dst, copies):
    lines = [json.loads(line) for line in open(src) if line.strip()]
    first = datetime.datetime.strptime(lines[0]["envelope"]["time"], FORMAT)
    last = datetime.datetime.strptime(lines[-1]["envelope"]["time"], FORMAT)
    shift = (last - first) + datetime.timedelta(minutes=10)
    seq = 0
    with open(dst, "w") as out:
        for k in range(copies):
            for line in lines:
                seq += 1
                envelope = dict(line["envelope"])
                t = datetime.datetime.strptime(envelope["time"], FORMAT) + shift * k
                envelope["time"] = t.strftime(FORMAT)[:-4] + "Z"   # milliseconds, as Locus writes them
                envelope["seq"] = seq
                out.write(json.dumps({**line, "envelope": envelope}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
