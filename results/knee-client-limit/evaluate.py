#!/usr/bin/env python3
"""The knee's client-limit criteria on every row measure.sh made (results/knee-client-limit.md).

    python3 results/knee-client-limit/evaluate.py [CSV ...]   # default: runs.csv, knee-pool.csv, knee-api.csv, knee-pool-after.csv

For each row, as KneeSession.clientLimit computes them:
  missed    missed_starts ÷ drains started (started_drains_per_s × target_duration_s);
  capacity  started_drains_per_s ÷ (concurrency ÷ median drain time), Little's law;
  page      page_latency_p50_ns ÷ that of the case's first (lowest) rate;
  cpu       (cpu_user_s + cpu_system_s) ÷ duration_s ÷ cores;
and the verdicts at the thresholds before this calibration (missed ≥ 1 %, capacity ≥ 0.8,
page ≤ 1.5, cpu ≥ 0.9) and after it (missed ≥ 10 %, capacity ≥ 0.5, page ≤ 2): `pool`, `cpu` or `-` (the
API's, or no limit). Prints a markdown table.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
paths = sys.argv[1:] or [os.path.join(HERE, name) for name in ("runs.csv", "knee-pool.csv", "knee-api.csv", "knee-pool-after.csv")]
rows = []
for path in paths:
    for row in csv.DictReader(open(path)):
        # runs.csv names each row's case; a knee's rows are the case of its file (knee-pool).
        row.setdefault("case", os.path.basename(path)[:-4])
        rows.append(row)
# The thresholds before this calibration, and those it set (KneeSession+ClientLimit.swift).
BEFORE = {"missed": 0.01, "capacity": 0.8, "page": 1.5, "cpu": 0.9}
AFTER = {"missed": 0.10, "capacity": 0.5, "page": 2.0, "cpu": 0.9}


def number(row, name):
    value = row.get(name, "")
    return float(value) if value not in ("", None) else None


first_page = {}
for row in rows:
    # A knee's first step is its first row; the grid's, its lowest rate.
    rate = number(row, "target_drains_per_s")
    if row["case"] not in first_page or (not row["case"].startswith("knee") and rate < first_page[row["case"]][0]):
        first_page[row["case"]] = (rate, number(row, "page_latency_p50_ns"))


def verdict(thresholds, missed, capacity, ratio, cpu):
    if cpu >= thresholds["cpu"]:
        return "cpu"
    if missed > 0 and missed >= thresholds["missed"] and capacity is not None and capacity >= thresholds["capacity"] \
            and (ratio is None or ratio <= thresholds["page"]):
        return "pool"
    return "-"


print("| case | pagers | offered drains/s | started drains/s | completed drains/s | requests/s | missed | started ÷ capacity | page p50 | page p50 ÷ first | CPU busy ÷ cores | verdict before | verdict after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
for row in rows:
    rate = number(row, "target_drains_per_s")
    started = number(row, "started_drains_per_s") or 0
    duration = number(row, "target_duration_s") or number(row, "duration_s")
    missed = (number(row, "missed_starts") or 0) / max(started * duration, 1)
    drain = number(row, "drain_latency_p50_ns")
    pagers = int(row["concurrency"])
    capacity = started / (pagers / (drain / 1e9)) if drain else None
    page = number(row, "page_latency_p50_ns")
    first = first_page[row["case"]][1]
    ratio = page / first if page and first else None
    cores = int(row["cores"])
    cpu = (number(row, "cpu_user_s") + number(row, "cpu_system_s")) / number(row, "duration_s") / cores
    fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"
    print(f"| {row['case']} | {pagers} | {rate:g} | {started:.1f} | {float(row['drains_per_s']):.1f} | {float(row['pages_per_s']):.0f} "
          f"| {missed * 100:.1f} % | {fmt(capacity)} | {page / 1e6 if page else 0:.2f} ms | {fmt(ratio)} | {fmt(cpu)} "
          f"| {verdict(BEFORE, missed, capacity, ratio, cpu)} | {verdict(AFTER, missed, capacity, ratio, cpu)} |")
