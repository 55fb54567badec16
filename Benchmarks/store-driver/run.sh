#!/usr/bin/env bash
# Page evaluation at limit 10 without package-benchmark's malloc interposer (see main.swift):
# compiles PagebenchStore and the driver with `swiftc -O -wmo` into a temporary directory and
# runs it. Not part of CI; results/store-benchmarks.md quotes it next to the benchmark figures.
#
#   Benchmarks/store-driver/run.sh [PAGES [ROUNDS]]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
swiftc -O -wmo -parse-as-library -static -emit-library -emit-module -module-name PagebenchStore \
    -emit-module-path "$work/PagebenchStore.swiftmodule" -o "$work/libPagebenchStore.a" \
    "$root"/Sources/PagebenchStore/*.swift
swiftc -O -parse-as-library -I "$work" -L "$work" -lPagebenchStore "$root/Benchmarks/store-driver/main.swift" \
    -o "$work/store-driver"
"$work/store-driver" "$@"
