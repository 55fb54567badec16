#!/usr/bin/env bash
# Per-page counts of each drain of the loadall driver, measured alone (issue 12): allocations
# (LD_PRELOAD malloc-counting shim) and Swift runtime calls (perf uprobes on libswiftCore,
# libswift_Concurrency and glibc's memmove), the drain's run minus a run that drains nothing.
# Counts depend on the code, not the machine's load. Needs root, perf and clang.
#
#   Benchmarks/loadall-driver/counts.sh [LIMIT]
# Note: swift_bridgeObjectRetain/Release call swift_retain/release for native objects, so
# the retain/release counts include the bridge-object ones.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
limit=${1:-10}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
KEEP="$work" "$here/run.sh" --count none "$limit" >/dev/null
clang -O2 -shared -fPIC "$here/mallocshim.c" -o "$work/mallocshim.so"
for drain in loop loadAll; do LD_PRELOAD="$work/mallocshim.so" "$work/loadall-driver" --count "$drain" "$limit"; done
core=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux
libc=$(ldd "$work/loadall-driver" | awk '/libc.so/{print $3}')
events=()
for f in swift_retain swift_release swift_bridgeObjectRetain swift_bridgeObjectRelease swift_allocObject; do
    perf probe -q -x "$core/libswiftCore.so" "$f" 2>/dev/null || true
    events+=(-e "probe_libswiftCore:$f")
done
for f in swift_task_switch swift_task_alloc; do
    perf probe -q -x "$core/libswift_Concurrency.so" "$f" 2>/dev/null || true
    events+=(-e "probe_libswift_Concurrency:$f")
done
# glibc's memmove on this machine (AVX-512); another CPU picks another variant.
perf probe -q -x "$libc" __memmove_avx512_unaligned_erms 2>/dev/null || true
events+=(-e probe_libc:__memmove_avx512_unaligned_erms)
for drain in none loop loadAll; do
    perf stat -x, "${events[@]}" -o "$work/stat.$drain" "$work/loadall-driver" --count "$drain" "$limit" 4 >/dev/null
done
python3 - "$work" "$limit" <<'PY'
import sys
work, limit = sys.argv[1], int(sys.argv[2])
pages = 4 * 640000 // limit + 640000 // limit  # four counted drains and the warm-up
def read(name):
    counts = {}
    for line in open(f"{work}/stat.{name}"):
        fields = line.strip().split(",")
        if len(fields) > 2 and fields[0].isdigit():
            counts[fields[2].split(":")[-1].removeprefix("swift_").removeprefix("__")] = int(fields[0])
    return counts
none = read("none")
for drain in ["loop", "loadAll"]:
    counts = read(drain)
    print(f"{drain} limit {limit}, calls per page: " + "  ".join(f"{k} {(v - none[k]) / pages:.2f}" for k, v in counts.items()))
PY
