#!/usr/bin/env bash
# The page-body read of JSONReader, without SwiftPM: compiles PagebenchBase (with the CCycleCounter
# C shim it imports) and the driver with `swiftc -O -wmo` into a temporary directory and runs it
# (BUILD_ONLY=1: builds only, as CI does through Benchmarks/build-drivers.sh). SOURCES=DIR reads
# PagebenchBase from another tree (a `git archive` of the commit to compare against). Not part of
# CI; results/page-json-utf8.md counts its instructions per page under callgrind.
#
#   Benchmarks/page-json-driver/run.sh served|target PAGES
#   KEEP=DIR Benchmarks/page-json-driver/run.sh ...   # builds into DIR and keeps DIR/page-json-driver
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/Benchmarks/driver-setup.sh"
build_module PagebenchBase "${SOURCES:-$root}"
swiftc -O -parse-as-library -package-name pagebench -I "$work" -L "$work" -lPagebenchBase \
    "$work/CCycleCounter.o" "$root/Benchmarks/page-json-driver/main.swift" -o "$work/page-json-driver"
[[ -n "${BUILD_ONLY:-}" ]] && exit 0
"$work/page-json-driver" "$@"
