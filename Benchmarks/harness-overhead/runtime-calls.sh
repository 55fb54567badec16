#!/usr/bin/env bash
# Usage: runtime-calls.sh BINARY PAGER [DRAINS]   (root; needs perf, linux-perf)
#        runtime-calls.sh --driver STORE-DRIVER [PAGES]
#
# Counts the Swift runtime calls one in-process run makes per page, with uprobes on
# libswiftCore (retain/release, bridge-object retain/release, object allocation, uniqueness
# checks) and libswift_Concurrency (executor switches). The counts depend on the code only,
# not on the machine's load: on the shared VM, where wall clock and even CPU time per page
# move by ±30 % between runs, they are the A/B figure that does not (valgrind cannot run
# pagebench here; hardware counters are not exposed). Warm-up is off, so the counts are the
# measured phase's plus a few hundred calls of setup, spread over ~320,000 pages.
# With --driver it counts Benchmarks/store-driver's bare loop (build it with
# KEEP=DIR Benchmarks/store-driver/run.sh 1 1) over PAGES pages (default 1,000,000).
set -euo pipefail
core=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux
probes=()
for f in swift_retain swift_release swift_bridgeObjectRetain swift_bridgeObjectRelease swift_allocObject \
    swift_isUniquelyReferenced_nonNull_native; do
    perf probe -q -x "$core/libswiftCore.so" "$f" 2>/dev/null || true
    probes+=(-e "probe_libswiftCore:$f")
done
perf probe -q -x "$core/libswift_Concurrency.so" swift_task_switch 2>/dev/null || true
probes+=(-e probe_libswift_Concurrency:swift_task_switch)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [[ $1 == --driver ]]; then
    pages=${3:-1000000}
    perf stat -x, "${probes[@]}" -o "$out/stat" "$2" "$pages" 1 >/dev/null
    label="bare store loop"
else
    perf stat -x, "${probes[@]}" -o "$out/stat" "$1" run --pager "$2" --read scan --limit 10 --concurrency 1 \
        --drains "${3:-5}" --warmup 0 --quiet --output "$out/row.csv" >/dev/null
    pages=$(python3 -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))['pages'])" "$out/row.csv")
    label="$2"
fi
python3 - "$out/stat" "$pages" "$label" <<'EOF'
import sys
stat, pages, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
counts = []
for line in open(stat):
    fields = line.strip().split(',')
    if len(fields) > 2 and fields[0].isdigit():
        counts.append((fields[2].split(':')[-1].removeprefix('swift_'), int(fields[0]) / pages))
print(f"{label} ({pages} pages), calls per page: " + "  ".join(f"{name} {value:.2f}" for name, value in counts))
EOF
