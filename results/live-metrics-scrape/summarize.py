"""Median pages/s and harness_overhead_ratio per variant of measure.sh's runs, and the
scraped and listen variants as ratios to plain (per repetition, then the median)."""
import csv
import glob
import os
import statistics
import sys

out = sys.argv[1]
figures = {}
for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
    if path.endswith("-series.csv"):
        continue
    variant, rep = os.path.basename(path)[:-4].rsplit("-", 1)
    row = next(csv.DictReader(open(path, encoding="utf-8")))
    figures.setdefault(variant, {})[int(rep)] = (float(row["pages_per_s"]), float(row["harness_overhead_ratio"] or "nan"))
for variant in ("plain", "timeseries", "listen", "scraped"):
    values = figures.get(variant, {})
    pages = [v[0] for v in values.values()]
    ratios = [v[1] for v in values.values()]
    print(f"{variant:8} n={len(pages)} pages/s median {statistics.median(pages):,.0f} "
          f"(min {min(pages):,.0f}, max {max(pages):,.0f}); harness_overhead_ratio median {statistics.median(ratios):.3f}")
for variant in ("timeseries", "listen", "scraped"):
    ratios = [figures[variant][rep][0] / figures["plain"][rep][0] for rep in figures[variant] if rep in figures["plain"]]
    print(f"{variant} / plain pages/s, per repetition: " + " ".join(f"{r:.3f}" for r in ratios)
          + f"; median {statistics.median(ratios):.3f}")
