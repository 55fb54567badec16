#!/usr/bin/env bash
# One callgrind count (plain) of a binary, as count-instructions.sh counts "plain".
set -uo pipefail
bin=$1 out=$2
mkdir -p "$out"
objcopy --strip-debug "$bin" "$out/pagebench-stripped"
taskset -c 0 valgrind --tool=callgrind --fair-sched=yes --instr-atstart=no --callgrind-out-file="$out/plain.out" \
    --log-file="$out/plain.log" "$out/pagebench-stripped" run --pager loop --read scan --limit 10 --concurrency 1 --drains 30 --warmup 0 --repetitions 1 --quiet --output "$out/plain.csv" \
    --instruction-dumps "$out/plain.out"
python3 -c "import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print('plain', r['pages'], r['instructions_per_page'], r['duration_s'])" "$out/plain.csv"
