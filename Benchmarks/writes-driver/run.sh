#!/usr/bin/env bash
# Page evaluation at limit 10 with and without writes (results/writes-store-benchmarks.md):
# builds, with `swiftc -O -wmo` as Benchmarks/store-driver/run.sh does,
#   base    the store-driver on PagebenchStore of BASE (default 08d8e16, before writes),
#   plain   the store-driver on this tree's PagebenchStore (no writes configured),
#   writes  this directory's driver on this tree's PagebenchStore (writes configured),
# then runs them interleaved: base, plain, writes with an empty overlay, writes after
# CHANGES writes; REPEATS times.
#
#   Benchmarks/writes-driver/run.sh [PAGES [ROUNDS [CHANGES [REPEATS [BASE]]]]]
#   KEEP=DIR Benchmarks/writes-driver/run.sh ...   # builds into DIR and keeps DIR/{base,plain,writes}/driver
#
# Wall-clock CPU time on a shared VM spreads by ±30 % between rounds even under SCHED_FIFO;
# instructions per page do not: callgrind.sh counts them for the same four drains.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pages="${1:-2000000}" rounds="${2:-3}" changes="${3:-100000}" repeats="${4:-3}" base="${5:-08d8e16}"
source "$root/Benchmarks/driver-setup.sh"
build() {  # build NAME SOURCES_ROOT DRIVER: PagebenchBase, PagebenchPage (when the tree has it), PagebenchStore and the driver
    local modules_dir="$work/$1"
    [[ -n "${REUSE_MODULES:-}" && "$2" == "$root" ]] && modules_dir="$work"  # this tree's modules, built once
    local modules=(PagebenchBase)
    [[ -d "$2/Sources/PagebenchPage" ]] && modules+=(PagebenchPage)
    modules+=(PagebenchStore)
    local libraries=()
    for module in "${modules[@]}"; do
        build_module "$module" "$2" "$modules_dir"
        libraries=(-l"$module" "${libraries[@]}")
    done
    mkdir -p "$work/$1"
    swiftc -O -parse-as-library -package-name pagebench -I "$modules_dir" -I "$work" -L "$modules_dir" "${libraries[@]}" \
        "$work/CCycleCounter.o" "$3" "$root/Benchmarks/store-driver/StoreLoop.swift" -o "$work/$1/driver"
}
if [[ -z "${BUILD_ONLY:-}" ]]; then
    mkdir -p "$work/base-src"
    git -C "$root" archive "$base" Sources/PagebenchBase Sources/PagebenchStore | tar -x -C "$work/base-src"
    build base "$work/base-src" "$root/Benchmarks/store-driver/main.swift"
fi
[[ -z "${BUILD_ONLY:-}" ]] && build plain "$root" "$root/Benchmarks/store-driver/main.swift"  # the store-driver
build writes "$root" "$root/Benchmarks/writes-driver/main.swift"
[[ -n "${BUILD_ONLY:-}" ]] && exit 0
fifo=()
[[ $(id -u) == 0 ]] && command -v chrt >/dev/null && fifo=(chrt -f 10)
for repeat in $(seq 1 "$repeats"); do
    echo "== repeat $repeat, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "-- base ($base), no writes";      "${fifo[@]}" "$work/base/driver" "$pages" "$rounds"
    echo "-- this tree, no writes";          "${fifo[@]}" "$work/plain/driver" "$pages" "$rounds"
    echo "-- this tree, writes, empty overlay"; "${fifo[@]}" "$work/writes/driver" "$pages" "$rounds" 0
    echo "-- this tree, writes, $changes changes"; "${fifo[@]}" "$work/writes/driver" "$pages" "$rounds" "$changes"
done
