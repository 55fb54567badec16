#!/usr/bin/env python3
"""Writes a large results CSV for timing `pagebench check` (results/check-performance.md).

    python3 results/check-performance/generate.py OUT.csv MEGABYTES [GROUPS] [--jitter SEED]

Rows are those of Tests/Fixtures/check/baseline-schema1.csv (schema 1, which `check` still
reads), in GROUPS groups (default 150: the template's 20 rows, each group a scenario named
after its template row and the group number), each group's rows identical but for their
repetition, renumbered 1, 2, … until the file reaches MEGABYTES. Identical repetitions keep the
statistics trivial (every sample constant), so the figure is the cost of reading the file and
holding what is judged, which is what grows with its size. With --jitter SEED every measured
decimal (rates, CPU, ratios) of every row is multiplied by 1 + 2 % Gaussian noise, so every
judged column varies and the bootstrap does its full work.
"""
import csv
import io
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(ROOT, "Tests", "Fixtures", "check", "baseline-schema1.csv")


def main():
    arguments = sys.argv[1:]
    jitter = None
    if "--jitter" in arguments:
        at = arguments.index("--jitter")
        jitter = random.Random(int(arguments[at + 1]))
        del arguments[at:at + 2]
    out, megabytes = arguments[0], float(arguments[1])
    groups = int(arguments[2]) if len(arguments) > 2 else 150
    with open(TEMPLATE, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        templates = list(reader)
    scenario, repetition = header.index("scenario"), header.index("repetition")
    noisy = [header.index(name) for name in header
             if name.endswith("_per_s") or name in ("cpu_user_s", "cpu_system_s", "allocations_per_page",
                                                    "measurement_overhead_ratio")]
    limit = int(megabytes * 1_000_000)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        rows = []
        for group in range(groups):
            row = list(templates[group % len(templates)])
            row[scenario] = f"{row[scenario]}-{group}"
            rows.append(row)
        written, number = 0, 0
        while written < limit:
            number += 1
            text = io.StringIO()
            line_writer = csv.writer(text, lineterminator="\n")
            for row in rows:
                row[repetition] = str(number)
                if jitter is None:
                    line_writer.writerow(row)
                    continue
                noisy_row = list(row)
                for index in noisy:
                    if noisy_row[index]:
                        noisy_row[index] = repr(float(noisy_row[index]) * (1 + jitter.gauss(0, 0.02)))
                line_writer.writerow(noisy_row)
            chunk = text.getvalue()
            handle.write(chunk)
            written += len(chunk.encode())
    print(f"{out}: {os.path.getsize(out) / 1e6:.1f} MB, {groups} groups of {number} repetitions")


if __name__ == "__main__":
    main()
