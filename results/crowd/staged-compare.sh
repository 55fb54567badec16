#!/usr/bin/env bash
# Issue 38, third session: a staged phase of 100,000 pagers (one 3 s stage), binaries side by
# side, interleaved: how long the process took. Usage, from the repository root:
#   bash results/crowd/staged-compare.sh ROUNDS LABEL=BINARY [LABEL=BINARY...]
set -euo pipefail
out=results/crowd/cancel-compare
rounds=$1; shift
for round in $(seq 1 "$rounds"); do
  for pair in "$@"; do
    label=${pair%%=*}; bin=${pair#*=}
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "$label: wall %e s, user %U s, max RSS %M KiB" \
      "$bin" run --stages 3s:100000 --warmup 0 --quiet --output "$out/staged-100000-$label-$round.csv" >/dev/null
  done
done
