#!/usr/bin/env bash
# Instructions per request of `http-bench --target` under callgrind (results/http-client-cost.md's method).
#   cg.sh CLIENT_ND SERVE_BIN LABEL OUTDIR
set -euo pipefail
client=$1; serve=$2; label=$3; out=$4
mkdir -p "$out"
"$serve" serve --port 0 > "$out/serve-$label.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "listening on" "$out/serve-$label.log" && break; sleep 0.2; done
url=$(grep -o "http://[0-9.]*:[0-9]*" "$out/serve-$label.log" | head -1)
for d in 3 12; do
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind-$label-$d.out" "$client" http-bench --target "$url" \
    --connections 8 --limit 10 --duration "$d" > "$out/$label-$d.json" 2> "$out/$label-$d.err"
done
python3 - "$out" "$label" <<'PY'
import json, re, sys
out, label = sys.argv[1], sys.argv[2]
def ir(d):
    for line in open(f"{out}/callgrind-{label}-{d}.out"):
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
def requests(d):
    return json.loads(open(f"{out}/{label}-{d}.json").read().strip().splitlines()[-1])["requests"]
a, b = (ir(3), requests(3)), (ir(12), requests(12))
print(f"{label}: 3 {a[0]} {a[1]} 12 {b[0]} {b[1]} -> {(b[0]-a[0])/(b[1]-a[1]):.0f} Ir/request")
PY
