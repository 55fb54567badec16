#!/usr/bin/env python3
"""Migrates results CSVs from schema_version 4 to 5 (issue 25): the column `late_starts` (H8)
is appended, empty. Version 5 also changed what some figures mean, which this cannot
recompute: it refuses rows whose figures would differ where the row tells, and names what to
check where it cannot:
- `missed_starts` now counts only intended starts that found every slot busy (version 4
  counted every late pickup): a file with open-loop rows is refused (re-record it);
- `harness_overhead_ratio` is now empty where the bare loop is not the phase's floor (a store
  with service time, injected failures or writes; open loop, refused above): a row does not
  say its store's configuration, so check the file's scenarios first (those of
  results/baselines/ci.csv have none of these);
- a stage row's rates now count what completed while the stage ran: rows with a stage are
  refused.
pagebench reads version-4 files as they are; this keeps committed baselines at the version it
writes. Other branches may add version-5 columns of their own: run their scripts too.

    python3 results/baselines/migrate-schema-5-late-starts.py results/baselines/ci.csv
"""
import csv
import sys

ADDED = ["late_starts"]

for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if "late_starts" in header:
        print(f"{path}: already has late_starts")
        continue
    column = {name: index for index, name in enumerate(header)}
    out = [header + ADDED]
    for number, row in enumerate(rows[1:], start=2):
        assert row[column["schema_version"]] == "4", f"{path}:{number}: a row of schema_version {row[column['schema_version']]}"
        assert row[column["load_model"]] == "closed", f"{path}:{number}: an open-loop row; its missed_starts changed meaning, re-record it"
        assert row[column["stage"]] == "", f"{path}:{number}: a stage row; its rates changed meaning, re-record it"
        row[column["schema_version"]] = "5"
        out.append(row + [""] * len(ADDED))
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    print(f"{path}: {len(out) - 1} rows migrated to version 5 (late_starts)")
