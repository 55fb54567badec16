#!/usr/bin/env python3
"""Migrates results CSVs from schema_version 3 to 4 (issue 12 added `allocation_counting`
after `allocations_per_page`: `cached` for rows counted with jemalloc's thread caches on, which
every row of version 3 was unless MALLOC_CONF said otherwise). pagebench reads version-1 to -3
files as they are; this keeps committed baselines at the version it writes. Other branches
added version-4 columns of their own (migrate-schema-4-stages.py): run their scripts too.

    python3 results/baselines/migrate-schema-4-hardening.py results/baselines/ci.csv
"""
import csv
import sys

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "allocation_counting" in header:
        print(f"{path}: already has allocation_counting")
        continue
    at = header.index("allocations_per_page") + 1
    version = header.index("schema_version")
    out = [header[:at] + ["allocation_counting"] + header[at:]]
    for row in rows[1:]:
        assert row[version] in ("3", "4"), f"{path}: a row of schema_version {row[version]}"
        row[version] = "4"
        out.append(row[:at] + ["cached"] + row[at:])
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows migrated to version 4")
