#!/usr/bin/env bash
# loadAll against a bare loop that keeps every page (issue 12), without package-benchmark:
# compiles PagebenchBase (with the CCycleCounter C shim it imports), PagebenchStore and
# PagebenchPager with `swiftc -O -wmo` into a temporary directory, then the driver, and runs
# it. Not part of CI; results/apollo-loadall-fair.md quotes it next to the benchmark's figures.
#
#   Benchmarks/loadall-driver/run.sh [ROUNDS]
#   KEEP=DIR Benchmarks/loadall-driver/run.sh ...   # builds into DIR and keeps DIR/loadall-driver
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/Benchmarks/driver-setup.sh"
for module in PagebenchBase PagebenchPage PagebenchStore PagebenchPager; do build_module "$module"; done
swiftc -O -parse-as-library -package-name pagebench -I "$work" -L "$work" -lPagebenchPager -lPagebenchStore -lPagebenchPage \
    -lPagebenchBase "$work/CCycleCounter.o" "$root/Benchmarks/loadall-driver/main.swift" \
    "$root/Benchmarks/PagerBenchmarks/Drains.swift" -o "$work/loadall-driver"
[[ -n "${BUILD_ONLY:-}" ]] && exit 0
"$work/loadall-driver" "$@"
