#!/usr/bin/env bash
# Page evaluation at limit 10 without package-benchmark's malloc interposer (see main.swift):
# compiles PagebenchBase (with the CCycleCounter C shim it imports), PagebenchPage, PagebenchStore
# and the driver with `swiftc -O -wmo` into a temporary directory and runs it (BUILD_ONLY=1:
# builds only, as CI does through Benchmarks/build-drivers.sh). Not part of CI;
# results/store-benchmarks.md quotes it next to the benchmark figures.
#
#   Benchmarks/store-driver/run.sh [PAGES [ROUNDS]]
#   KEEP=DIR Benchmarks/store-driver/run.sh ...   # builds into DIR and keeps DIR/store-driver
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/Benchmarks/driver-setup.sh"
for module in PagebenchBase PagebenchPage PagebenchStore; do build_module "$module"; done
swiftc -O -parse-as-library -package-name pagebench -I "$work" -L "$work" -lPagebenchStore -lPagebenchPage -lPagebenchBase \
    "$work/CCycleCounter.o" "$root/Benchmarks/store-driver/main.swift" "$root/Benchmarks/store-driver/StoreLoop.swift" \
    -o "$work/store-driver"
[[ -n "${BUILD_ONLY:-}" ]] && exit 0
"$work/store-driver" "$@"
