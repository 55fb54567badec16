#!/usr/bin/env python3
"""Adds the column `instructions_per_page` (issue 25, H10; `run --count-instructions`) to
results CSVs of schema_version 5 written before it joined that version, empty: their runs did
not count instructions. Nothing else about the rows changes. Version-4 files need
migrate-schema-5-late-starts.py first (or read as they are: pagebench reads version 4).

    python3 results/baselines/migrate-schema-5-instructions.py results/baselines/ci.csv
"""
import csv
import sys

ADDED = "instructions_per_page"

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if ADDED in header:
        print(f"{path}: already has {ADDED}")
        continue
    if "late_starts" not in header:
        sys.exit(f"{path}: no late_starts column: not schema 5; run migrate-schema-5-late-starts.py first")
    column = {name: index for index, name in enumerate(header)}
    out = [header + [ADDED]]
    for number, row in enumerate(rows[1:], start=2):
        assert len(row) == len(header), f"{path}:{number}: {len(row)} cells for {len(header)} columns"
        assert row[column["schema_version"]] == "5", f"{path}:{number}: a row of schema_version {row[column['schema_version']]}"
        out.append(row + [""])
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows, {ADDED} added empty")
