#!/usr/bin/env python3
"""Parses a Prometheus text exposition with the reference Python client's parser
(Debian python3-prometheus-client) and prints its samples as JSON lines:
{"name": ..., "labels": {...}, "value": ..., "type": ...}.

usage: scrape_metrics.py URL      (GET it; prints "status <code>" on stderr and exits 3 if not 200)
       scrape_metrics.py -        (read the text from stdin, as `locus ctl metrics` prints it)
Exit 2 if the text does not parse.
"""
import json
import sys
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    source = sys.argv[1]
    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            with urllib.request.urlopen(source, timeout=10) as r:
                content_type = r.headers.get("Content-Type", "")
                text = r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            print("status %d" % e.code, file=sys.stderr)
            sys.exit(3)
        if not content_type.startswith("text/plain; version=0.0.4"):
            print("content type %r" % content_type, file=sys.stderr)
            sys.exit(4)
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as e:  # the parser raises ValueError and others on bad input
        print("does not parse: %s" % e, file=sys.stderr)
        sys.exit(2)
    for family in families:
        for s in family.samples:
            print(json.dumps({"name": s.name, "labels": s.labels, "value": s.value, "type": family.type}))


if __name__ == "__main__":
    main()
