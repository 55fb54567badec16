"""Medians of the goals' ratios over every row ratios.sh wrote: python3 ratios.py OUT"""
import csv, glob, statistics, sys
d = sys.argv[1]
print("| build | pager | rows | harness_overhead_ratio (median; IQR) | = pages/s ÷ bare loop | timing off ÷ on (median; IQR) | page p50 ns | CPU ns/page (median) |")
print("| --- | --- | ---: | --- | ---: | --- | ---: | ---: |")
def q(values):
    values = sorted(values)
    n = len(values)
    return values[n // 4], statistics.median(values), values[(3 * n) // 4]
for build in ['base', 'new']:
    for pager in ['loop', 'streaming']:
        rows = [r for f in sorted(glob.glob(f'{d}/{build}-{pager}-*.csv')) for r in csv.DictReader(open(f))]
        if not rows:
            continue
        ho = q([float(r['harness_overhead_ratio']) for r in rows if r['harness_overhead_ratio']])
        mo = q([float(r['measurement_overhead_ratio']) for r in rows if r['measurement_overhead_ratio']])
        p50 = statistics.median(int(r['page_latency_p50_ns']) for r in rows)
        cpu = statistics.median((float(r['cpu_user_s']) + float(r['cpu_system_s'])) / int(r['pages']) * 1e9 for r in rows)
        print(f"| {build} | {pager} | {len(rows)} | {ho[1]:.3f} ({ho[0]:.3f}–{ho[2]:.3f}) | {1 / ho[1]:.2f}× | "
              f"{mo[1]:.3f} ({mo[0]:.3f}–{mo[2]:.3f}) | {p50:.0f} | {cpu:.0f} |")
