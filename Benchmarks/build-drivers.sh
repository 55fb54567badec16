#!/usr/bin/env bash
# Builds, without running, every benchmark driver that SwiftPM does not build (the swiftc-built
# store-driver, loadall-driver, writes-driver and page-json-driver), so that none stops compiling unnoticed when
# the sources move (CI runs it from .ci/run; the package-benchmark suites are built by
# .ci/benchmark-gate). Exit non-zero on the first that fails.
# The modules they share are built once (REUSE_MODULES, one KEEP directory).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for driver in store-driver loadall-driver writes-driver page-json-driver; do
    echo "==> building Benchmarks/$driver"
    KEEP="$work" REUSE_MODULES=1 BUILD_ONLY=1 bash "$root/Benchmarks/$driver/run.sh"
done
