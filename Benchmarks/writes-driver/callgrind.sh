#!/usr/bin/env bash
# Instructions per page of the four drains of run.sh (base store, this tree without writes,
# with writes and an empty overlay, after CHANGES writes), counted by valgrind's callgrind
# inside `drain` only (store construction and applying the writes are not counted). Counts are
# the same on every run of a build, whatever the machine's load.
#
#   Benchmarks/writes-driver/callgrind.sh [PAGES [CHANGES [BASE]]]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pages="${1:-200000}" changes="${2:-100000}" base="${3:-08d8e16}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
KEEP="$work" bash "$root/Benchmarks/writes-driver/run.sh" "$pages" 1 "$changes" 0 "$base" >/dev/null
count() {  # count LABEL DRIVER ARGS...: instructions per page inside drain()
    local label=$1
    shift
    local ir
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*drain*' "$@" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    printf '%-40s %12s instructions = %8.1f per page\n' "$label" "$ir" "$(echo "$ir / $pages" | bc -l)"
}
count "base ($base), no writes" "$work/base/driver" "$pages" 1
count "this tree, no writes" "$work/plain/driver" "$pages" 1
count "this tree, writes, empty overlay" "$work/writes/driver" "$pages" 1 0
count "this tree, writes, $changes changes" "$work/writes/driver" "$pages" 1 "$changes"
