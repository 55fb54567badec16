#!/usr/bin/env bash
# Issue 38: a crowd of pagers in one process. Run from the repository root after
#   swift build -c release --scratch-path .build-release --product pagebench
# Writes results/crowd/*.csv and prints the load average beside each step.
set -euo pipefail
bin=${PAGEBENCH_BIN:-.build-release/release/pagebench}
out=results/crowd
step=${1:-all}
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }

if [[ $step == all || $step == memory ]]; then
  # Memory per pager, every pager alive for the whole phase (duration-bound), page timing on.
  # The default pager (streaming) and the bare loop.
  for n in 1 10000 100000; do
    load
    "$bin" run --concurrency $n --duration 3 --warmup 0 --quiet --output $out/memory-closed-$n.csv
    load
    "$bin" run --concurrency $n --duration 3 --warmup 0 --pager loop --quiet --output $out/memory-closed-loop-$n.csv
    load
    "$bin" run --concurrency $n --load open-poisson:20000 --duration 3 --warmup 0 --quiet --output $out/memory-open-$n.csv
  done
fi

if [[ $step == all || $step == throughput ]]; then
  # Pages/s with the crowd's size, side by side in one run (each repetition runs 64, 10,000
  # and 100,000 pagers in turn).
  load
  # Drain-bound (a duration-bound phase's deadline waits behind the crowd in the run queue,
  # see results/crowd.md): 400,000 drains of 20 pages (200-item partitions, as in issue 38).
  "$bin" run --concurrency 64,10000,100000 --drains 400000 --items-per-partition 200 --warmup 0 --repetitions 2 \
    --quiet --output $out/throughput.csv
  load
fi

if [[ $step == all || $step == throughput-duration ]]; then
  # The same side by side, duration-bound (10 s a phase: the start of 100,000 pagers, about
  # a second, weighs less than in 4 drains each), now that the pagers read the deadline.
  load
  "$bin" run --concurrency 64,10000,100000 --duration 10 --items-per-partition 200 --warmup 0 --repetitions 3 \
    --quiet --output $out/throughput-duration.csv
  load
fi

if [[ $step == all || $step == throughput-separate ]]; then
  # The same 10 s phases, each crowd size in a process of its own, interleaved over three
  # rounds: in one run each phase follows another (the first is the process's first; the
  # 64 pagers of the second and third repetitions follow the freeing of 100,000 pagers).
  mkdir -p $out/throughput-separate
  for rep in 1 2 3; do
    for n in 64 10000 100000; do
      load
      "$bin" run --concurrency $n --duration 10 --items-per-partition 200 --warmup 0 --quiet \
        --output $out/throughput-separate/pagers-$n-round-$rep.csv
    done
  done
fi

if [[ $step == all || $step == start ]]; then
  # Starting 100,000 pagers: one single-page drain each; the phase's length bounds the start.
  load
  "$bin" run --concurrency 100000 --drains 100000 --items-per-partition 1 --warmup 0 --quiet --output $out/start-100000.csv
fi

if [[ $step == all || $step == cancel ]]; then
  # Cancellation latency at 10,000 pagers: the end of a duration-bound phase cancels every
  # drain in flight; the probe cancels 5 % of drains at a random instant.
  load
  "$bin" run --concurrency 10000 --duration 5 --warmup 0 --quiet --output $out/cancel-end-10000.csv
  load
  "$bin" run --concurrency 10000 --duration 5 --warmup 0 --cancel-fraction 0.05 --no-cancel-at-end --quiet --output $out/cancel-probe-10000.csv
fi

if [[ $step == all || $step == deadline ]]; then
  # A 3 s phase with 100,000 pagers: how long the phase and the process took (the pagers read
  # the deadline at their checkpoints).
  load
  /usr/bin/time -f "wall %e s, user %U s, max RSS %M KiB" \
    "$bin" run --concurrency 100000 --duration 3 --warmup 0 --quiet --output $out/deadline-100000.csv
fi

if [[ $step == all || $step == open ]]; then
  # Open loop with 100,000 slots: a 3 s phase at 20,000 drains/s.
  load
  /usr/bin/time -f "wall %e s, user %U s, max RSS %M KiB" \
    "$bin" run --concurrency 100000 --load open-poisson:20000 --duration 3 --warmup 0 --quiet --output $out/open-100000.csv
fi

if [[ $step == all || $step == sigint ]]; then
  load
  python3 $out/sigint.py "$bin" 100000 $out/sigint-100000.csv | tee $out/sigint-100000.txt
fi

if [[ $step == all || $step == connections ]]; then
  # 10,000 pagers, one connection each, against serve: exact counts (one drain of 20 pages a
  # pager), then held and busy for 25 s; /health asked every 200 ms on the store's port and
  # on serve's --health-port (connections.py says what it measures).
  load
  python3 $out/connections.py "$bin" 10000 $out --health-port | tee $out/connections-10000.txt
  load
  python3 $out/connections.py "$bin" 10000 $out --duration 25 --health-port --label held | tee $out/connections-10000-held.txt
  load
fi
