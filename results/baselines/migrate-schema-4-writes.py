#!/usr/bin/env python3
"""Migrates results CSVs from schema_version 3 to 4 (issue 16 added, last, the columns of
writes during pagination, S25 — duplicate_items, skipped_items, inconsistent_drains — and
of watching, P16 — watch_refreshes and the watch_latency percentiles): all empty, since no
version-3 run had writes or watched. pagebench reads version-3 files as they are; this keeps
committed baselines at the version it writes. Version 4 also holds the columns of
migrate-schema-4-hardening.py and migrate-schema-4-stages.py, before these: run those first
on a version-3 file (a version-4 file without these columns takes them at its end).

    python3 results/baselines/migrate-schema-4-writes.py results/baselines/ci.csv
"""
import csv
import sys

ADDED = ["duplicate_items", "skipped_items", "inconsistent_drains", "watch_refreshes", "watch_latency_p50_ns",
         "watch_latency_p90_ns", "watch_latency_p99_ns", "watch_latency_p999_ns", "watch_latency_max_ns"]

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "duplicate_items" in header:
        print(f"{path}: already version 4")
        continue
    version = header.index("schema_version")
    out = [header + ADDED]
    for row in rows[1:]:
        assert row[version] in ("3", "4"), f"{path}: a row of schema_version {row[version]}"
        row[version] = "4"
        out.append(row + [""] * len(ADDED))
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows migrated to version 4")
