#!/usr/bin/env python3
"""Migrates results CSVs from schema_version 2 to 3 (issue 14 added the target columns after
errors_other: empty text, zero error counts, empty consumed capacity; H6 added `partial`
and H5 `slo_held` last: 0 and empty). pagebench reads
version-1 and -2 files as they are; this keeps committed baselines at the version it writes.

    python3 results/baselines/migrate-schema-3.py results/baselines/ci.csv
"""
import csv
import sys

ADDED = ["target_kind", "target_hash", "http_responses", "target_errors_transport", "target_errors_unauthorized",
         "target_errors_http_status", "target_errors_not_json", "target_errors_missing_items",
         "target_errors_bad_continuation", "target_errors_graphql", "target_errors_api",
         "target_errors_repeated_continuation", "consumed_capacity_units"]
VALUES = ["", "", ""] + ["0"] * 9 + [""]

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "target_kind" in header:
        print(f"{path}: already version 3")
        continue
    at = header.index("errors_other") + 1
    version = header.index("schema_version")
    out = [header[:at] + ADDED + header[at:] + ["partial", "slo_held"]]
    for row in rows[1:]:
        assert row[version] == "2", f"{path}: a row of schema_version {row[version]}"
        row[version] = "3"
        out.append(row[:at] + VALUES + row[at:] + ["0", ""])
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows migrated to version 3")
