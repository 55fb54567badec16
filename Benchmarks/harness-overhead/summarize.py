import csv, glob, re, statistics, sys
d = sys.argv[1]
bare = [float(m) for m in re.findall(r'= ([\d.]+) M pages/s', open(d + '.log').read())]
print(f"bare store loop (store-driver, thread CPU): median {statistics.median(bare):.2f} M pages/s, all {bare}")
for build in ['main', 'new']:
    for pager in ['loop', 'streaming']:
        rows = [next(csv.DictReader(open(f))) for f in sorted(glob.glob(f'{d}/{build}-{pager}-*.csv'))]
        pps = [float(r['pages_per_s']) / 1e6 for r in rows]
        cpu = [(float(r['cpu_user_s']) + float(r['cpu_system_s'])) / int(r['pages']) * 1e9 for r in rows]
        mo = [float(r['measurement_overhead_ratio']) for r in rows]
        ho = [float(r['harness_overhead_ratio']) for r in rows if r.get('harness_overhead_ratio')]
        p50 = [int(r['page_latency_p50_ns']) for r in rows]
        print(f"{build:4} {pager:9} pages/s M median {statistics.median(pps):.2f} {[round(x,2) for x in pps]}  "
              f"vs bare {statistics.median(pps)/statistics.median(bare):.2f}x  CPU ns/page median {statistics.median(cpu):.0f}  "
              f"timing off/on median {statistics.median(mo):.3f} {[round(x,3) for x in mo]}  p50 {statistics.median(p50)} ns"
              + (f"  harness_overhead_ratio median {statistics.median(ho):.2f} {[round(x,2) for x in ho]}" if ho else ""))
