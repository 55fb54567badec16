#!/usr/bin/env bash
# Attributes a cold build of pagebench target by target: builds the targets one after the
# other in dependency order in a fresh scratch folder and records each step's CPU seconds
# (user + sys, robust to other load) and wall seconds. A step's cost is what that target
# adds over everything built before it.
# Usage: attribute.sh REPO CONFIG(debug|release) OUT.csv TARGET...
set -euo pipefail
repo=$1; config=$2; out=$3; shift 3
scratch=$(mktemp -d /tmp/attr-XXXX)
cd "$repo"
# Resolve first (git clones from the local mirror), not counted.
swift package --scratch-path "$scratch" resolve >/dev/null 2>&1
echo "step,target,cpu_s,wall_s" > "$out"
i=0
for t in "$@"; do
  i=$((i+1))
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o /tmp/attr-time.$$ swift build -c "$config" --scratch-path "$scratch" --target "$t" >/tmp/attr-log.$$ 2>&1 || { echo "build of $t failed"; tail -20 /tmp/attr-log.$$; exit 1; }
  end=$(date +%s.%N)
  read u s < /tmp/attr-time.$$
  printf '%d,%s,%.1f,%.1f\n' "$i" "$t" "$(echo "$u + $s" | bc)" "$(echo "$end - $start" | bc)" >> "$out"
  tail -1 "$out"
done
rm -rf "$scratch"
