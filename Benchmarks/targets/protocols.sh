#!/usr/bin/env bash
# `pagebench run` through each protocol of one `pagebench serve` (issue 13: "run --target
# through each protocol"), interleaved rounds on one release build, same workload each way:
#   url       --target URL (the dedicated client of serve's REST endpoint)
#   http      --target-file, http kind, the REST endpoint
#   dynamodb  --target-file, dynamodb kind (SigV4-signed Query, FilterExpression), POST /
#   appsync   --target-file, graphql kind, listItems + nextToken, POST /graphql
#   relay     --target-file, graphql kind, itemsConnection + pageInfo.endCursor
# Usage: [DRAINS=600] [EXECUTION=compiled] bash Benchmarks/targets/protocols.sh [ROUNDS] [PAGEBENCH]
# Prints a line per run (pages/s, the run's pages/items/empty pages, load average) and the
# median of each way with its ratio to `url`. The deterministic figures must agree across
# ways (H3, T1); the script stops if they do not, or if any drain failed.
set -euo pipefail
rounds=${1:-3}
bin=$(realpath "${2:-$(swift build -c release --show-bin-path)/pagebench}")
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
store=(--partitions 16 --items-per-partition 2000)
"$bin" serve --port 0 "${store[@]}" --graphql-execution "${EXECUTION:-compiled}" > serve.log 2>&1 &
for _ in $(seq 100); do grep -q listening serve.log && break; sleep 0.1; done
url=$(grep -o 'http://[0-9.:]*' serve.log)
export AWS_ACCESS_KEY_ID=AKIDPAGEBENCH AWS_SECRET_ACCESS_KEY=pagebench-local-secret
cat > http.json <<JSON
{"kind": "http", "endpoint": "$url", "partitions": {"range": [0, 15]},
 "path": "/partitions/\${partition}/items?limit=\${limit}&filter=category%3D0",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
JSON
cat > dynamodb.json <<JSON
{"kind": "dynamodb", "endpoint": "$url", "region": "us-east-1", "table": "pagebench", "operation": "Query",
 "keyConditionExpression": "pk = :p", "filterExpression": "category = :c",
 "expressionAttributeValues": {":p": {"N": "\${partition}"}, ":c": {"N": "0"}}, "partitions": {"range": [0, 15]}}
JSON
cat > appsync.json <<JSON
{"kind": "graphql", "endpoint": "$url/graphql", "shape": "appsync",
 "query": "query(\$p: Int, \$l: Int, \$t: String) { listItems(partition: \$p, limit: \$l, nextToken: \$t, filter: {category: {eq: 0}}) { items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount } }",
 "variables": {"p": "\${partition}", "l": "\${limit}"}, "continuationVariable": "t", "partitions": {"range": [0, 15]},
 "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken", "scannedCount": "/data/listItems/scannedCount"}
JSON
cat > relay.json <<JSON
{"kind": "graphql", "endpoint": "$url/graphql", "shape": "relay",
 "query": "query(\$p: Int, \$first: Int, \$after: String) { itemsConnection(partition: \$p, first: \$first, after: \$after, filter: {category: {eq: 0}}) { edges { node { partition sortKey sizeBytes category fingerprint } } pageInfo { hasNextPage endCursor } } }",
 "variables": {"p": "\${partition}", "first": "\${limit}"}, "partitions": {"range": [0, 15]},
 "items": "/data/itemsConnection/edges", "pageInfo": "/data/itemsConnection/pageInfo"}
JSON
workload=("${store[@]}" --concurrency 8 --limit 10 --filter category=0 --drains "${DRAINS:-600}" --quiet)
figures() {  # CSV → "pages/s pages items empty_wasted failed_drains"
    python3 - "$1" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
failed = sum(int(row[k]) for k in row if k.startswith("errors_"))
print(round(float(row["pages_per_s"])), row["pages"], row["items"], row["empty_pages_wasted"], failed)
PY
}
ways=(url http dynamodb appsync relay)
declare -A rates
reference=""
echo "# $(date -u +%FT%TZ) commit $(git -C "$OLDPWD" rev-parse --short HEAD) $(nproc) cores; serve ${store[*]} graphql ${EXECUTION:-compiled}; 8 pagers, limit 10, category=0, ${DRAINS:-600} drains; load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
    for way in "${ways[@]}"; do
        if [ "$way" = url ]; then
            "$bin" run "${workload[@]}" --target "$url" --output "$way.csv"
        else
            "$bin" run "${workload[@]}" --target-file "$way.json" --output "$way.csv"
        fi
        read -r rate pages items empty failed <<< "$(figures "$way.csv")"
        [ "$failed" = 0 ] || { echo "$way: $failed failed drains" >&2; exit 1; }
        [ -n "$reference" ] || reference="$pages $items $empty"
        [ "$pages $items $empty" = "$reference" ] || { echo "$way: pages/items/empty $pages $items $empty differ from $reference" >&2; exit 1; }
        rates[$way]+="$rate "
        printf "round %d  %-9s %8d pages/s  pages %s items %s empty %s  load %s\n" "$round" "$way" "$rate" "$pages" "$items" "$empty" "$(cut -d' ' -f1 /proc/loadavg)"
    done
done
median() { printf "%s\n" $1 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base=$(median "${rates[url]}")
for way in "${ways[@]}"; do
    m=$(median "${rates[$way]}")
    printf "median  %-9s %8.0f pages/s  %.2fx url\n" "$way" "$m" "$(echo "$m / $base" | bc -l)"
done
