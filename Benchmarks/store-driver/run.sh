#!/usr/bin/env bash
# Page evaluation at limit 10 without package-benchmark's malloc interposer (see main.swift):
# compiles PagebenchBase (with the CCycleCounter C shim it imports), PagebenchStore and the
# driver with `swiftc -O -wmo` into a temporary directory and runs it. Not part of CI;
# results/store-benchmarks.md quotes it next to the benchmark figures.
#
#   Benchmarks/store-driver/run.sh [PAGES [ROUNDS]]
#   KEEP=DIR Benchmarks/store-driver/run.sh ...   # builds into DIR and keeps DIR/store-driver
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/Benchmarks/driver-setup.sh"
swiftc -O -wmo -parse-as-library -static -emit-library -emit-module -module-name PagebenchBase \
    -I "$work" -emit-module-path "$work/PagebenchBase.swiftmodule" -o "$work/libPagebenchBase.a" \
    "$root"/Sources/PagebenchBase/*.swift
swiftc -O -wmo -parse-as-library -static -emit-library -emit-module -module-name PagebenchStore \
    -I "$work" -emit-module-path "$work/PagebenchStore.swiftmodule" -o "$work/libPagebenchStore.a" \
    "$root"/Sources/PagebenchStore/*.swift
swiftc -O -parse-as-library -I "$work" -L "$work" -lPagebenchStore -lPagebenchBase "$work/CCycleCounter.o" \
    "$root/Benchmarks/store-driver/main.swift" "$root/Benchmarks/store-driver/StoreLoop.swift" -o "$work/store-driver"
"$work/store-driver" "$@"
