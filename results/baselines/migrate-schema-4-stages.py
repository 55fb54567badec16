#!/usr/bin/env python3
"""Migrates results CSVs from schema_version 3 to 4 as far as stages (H4) go: the columns
`stage`, `stage_start_s`, `stage_pagers_from`, `stage_pagers_to`, `stage_rate_from` and
`stage_rate_to` are appended, empty (a row of a fixed concurrency or rate has no stage).
pagebench reads version-3 files as they are; this keeps committed baselines at the version
it writes. Other branches may add version-4 columns of their own: run their scripts too.

    python3 results/baselines/migrate-schema-4-stages.py results/baselines/ci.csv
"""
import csv
import sys

ADDED = ["stage", "stage_start_s", "stage_pagers_from", "stage_pagers_to", "stage_rate_from", "stage_rate_to"]

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "stage" in header:
        print(f"{path}: already has the stage columns")
        continue
    version = header.index("schema_version")
    out = [header + ADDED]
    for row in rows[1:]:
        assert row[version] in ("3", "4"), f"{path}: a row of schema_version {row[version]}"
        row[version] = "4"
        out.append(row + [""] * len(ADDED))
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows migrated to version 4 (stage columns)")
