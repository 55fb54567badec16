#!/usr/bin/env bash
# The gate's measurements against `pagebench serve` (docs/contract.md H10, docs/gate.md): one script
# for both experiments, which share the binary copy, the `serve` targets, the run log and the loop.
#
#   bash results/gate-measure.sh EXPERIMENT build [debug]
#   bash results/gate-measure.sh aa-gate [TRIALS [SPACING [REPS]]]            # defaults: 20, 60 s, 5
#   bash results/gate-measure.sh gate-power [TRIALS [SPACING [REPS [TAG]]]]   # defaults: 20, 5 s, 10, run
#   (measured: aa-gate 20 10 5 for results/aa-gate.md; gate-power for results/gate-power.md)
#
# With GATE_DEADLINE=HH:MM (UTC), no trial starts unless the last trial's duration still fits before
# it (the run log says where the batch stopped). Every run's CSV is kept under results/EXPERIMENT/runs/
# with a log of when each ran and the load average then (runs/log.txt).
#
# `build` makes a release build of this tree (scratch path .build-release; `debug`: the debug build)
# and copies it to results/tmp/EXPERIMENT/bin/pagebench: measuring from a private copy, rebuilding the
# tree meanwhile cannot swap a binary. For aa-gate it also builds pagebench-regression, with
# PAGEBENCH_EVALUATION_REGRESSION=1: its store evaluates every tenth page twice
# (SyntheticStore.evaluate, compiled in only with that condition, which Package.swift sets on
# PagebenchStore only), a real 10 % per-page cost regression of the store's evaluation; the normal
# build is made again at the end.
#
# aa-gate (issue 25, results/aa-gate.md): per trial, in this order, each a separate `pagebench run`
# process with REPS repetitions and --count-instructions:
#   A  this build: the CI scenario set (Benchmarks/Scenarios/ci), aa-gate/in-process.json (1 and 4
#      pagers), aa-gate/target.json through a --target-file against `serve` (fixed 2 ms);
#   R  the regression build: in-process.json (with REGRESSION_CI=1 the CI set too);
#   S  odd trials only: this build, target.json against a second `serve` of the same store at
#      fixed 4 ms (a target twice as slow; its target file has the same name, so rows match);
#   B  this build again: as A.
# SPACING seconds of sleep come after A and again before B. A/A pairs are (A, B); regressions (A, R)
# and (A, S). Evaluate with results/aa-gate/evaluate.py.
#
# gate-power (issue 35, results/gate-power.md): three `serve`s of one store whose every page takes a
# fixed service time: 4 ms (the baseline), 5.2 ms (1.3x slower) and 8 ms (2x). Per trial, each a
# separate `pagebench run` of gate-power/target.json with REPS repetitions: A (4 ms), the two slow
# targets in an order that alternates between trials (S13 = 5.2 ms, S2 = 8 ms), B (4 ms), SPACING
# seconds of sleep after each run. A/A pairs are (A, B); the slow pairs (A, S13) and (A, S2).
# Evaluate with results/gate-power/evaluate.py PAGEBENCH TAG.
#
# The machine is the shared 2-core VM as it is: other engineers build on it, which is the noise a
# user's CI runner or laptop has too.
set -euo pipefail
cd "$(dirname "$0")/.."
experiment=${1:-}
case "$experiment" in
    aa-gate | gate-power) ;;
    *) echo "usage: bash $0 aa-gate|gate-power build [debug] | [TRIALS [SPACING [REPS [TAG]]]]" >&2; exit 64 ;;
esac
shift
work=results/tmp/$experiment
runs=results/$experiment/runs
mkdir -p "$work/bin" "$runs"

release() {  # release [ENV=VALUE...]: a release build of pagebench, printed path
    env "$@" swift build -c release --scratch-path .build-release --product pagebench >&2
    echo .build-release/release/pagebench
}
if [ "${1:-}" = build ]; then
    if [ "${2:-}" = debug ]; then  # more client CPU per page, so more of the load's effect
        swift build --product pagebench
        cp "$(swift build --show-bin-path)/pagebench" "$work/bin/pagebench"
        exit 0
    fi
    cp "$(release)" "$work/bin/pagebench"
    if [ "$experiment" = aa-gate ]; then
        cp "$(release PAGEBENCH_EVALUATION_REGRESSION=1)" "$work/bin/pagebench-regression"
        cmp -s "$(release)" "$work/bin/pagebench" || echo "note: the rebuilt normal binary differs in bytes from the copy" >&2
    fi
    exit 0
fi

if [ "$experiment" = aa-gate ]; then
    trials=${1:-20} spacing=${2:-60} repetitions=${3:-5} tag=
else
    trials=${1:-20} spacing=${2:-5} repetitions=${3:-10} tag=${4:-run}
fi
pagebench="$work/bin/pagebench"
regression="$work/bin/pagebench-regression"
binaries=("$pagebench")
if [ "$experiment" = aa-gate ]; then binaries+=("$regression"); fi
for binary in "${binaries[@]}"; do
    [ -x "$binary" ] || { echo "no $binary: run 'bash $0 $experiment build' first" >&2; exit 66; }
done

serves=()
cleanup() { for pid in "${serves[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
serve() {  # serve NAME SERVICE_TIME: starts `pagebench serve`, writes $work/NAME/serve-rest.json
    local dir=$work/$1
    mkdir -p "$dir"
    "$pagebench" serve --port 0 --partitions 8 --items-per-partition 400 --service-time "$2" >"$dir/serve.log" 2>&1 &
    serves+=($!)
    for _ in $(seq 300); do grep -q 'http://' "$dir/serve.log" && break; sleep 0.1; done
    local url
    url=$(grep -o 'http://[0-9.:]*' "$dir/serve.log" | head -1)
    [ -n "$url" ] || { echo "serve did not start: $(cat "$dir/serve.log")" >&2; exit 70; }
    cat >"$dir/serve-rest.json" <<JSON
{"name": "serve-rest", "kind": "http", "endpoint": "$url", "partitions": {"range": [0, 7]},
 "path": "/partitions/\${partition}/items?limit=\${limit}",
 "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
JSON
}
log() { echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg) $*" | tee -a "$runs/log.txt"; }

# aa-gate's run: run BINARY OUTPUT ARGS...
aa_run() {
    local binary=$1 output=$2
    shift 2
    log "start $(basename "$output")"
    "$binary" run "$@" --repetitions "$repetitions" --count-instructions --quiet --output "$output"
}
aa_trial() {
    local trial=$1 side
    for side in a b; do
        if [ "$side" = b ]; then
            sleep "$spacing"
            if [ "${REGRESSION_CI:-0}" = 1 ]; then
                aa_run "$regression" "$runs/r-ci-$trial.csv" Benchmarks/Scenarios/ci
            fi
            aa_run "$regression" "$runs/r-ip-$trial.csv" results/aa-gate/in-process.json
            if [ $((trial % 2)) = 1 ]; then
                aa_run "$pagebench" "$runs/s-t-$trial.csv" results/aa-gate/target.json --target-file "$work/slow/serve-rest.json"
            fi
            sleep "$spacing"
        fi
        aa_run "$pagebench" "$runs/$side-ci-$trial.csv" Benchmarks/Scenarios/ci
        aa_run "$pagebench" "$runs/$side-ip-$trial.csv" results/aa-gate/in-process.json
        aa_run "$pagebench" "$runs/$side-t-$trial.csv" results/aa-gate/target.json --target-file "$work/base/serve-rest.json"
    done
}

# gate-power's run: power_run NAME TARGET
power_run() {
    log "start $1"
    "$pagebench" run results/gate-power/target.json --target-file "$work/$2/serve-rest.json" \
        --repetitions "$repetitions" --quiet --output "$runs/$1.csv"
    sleep "$spacing"
}
power_trial() {
    local trial=$1
    power_run "$tag-a-$trial" t4
    if [ $((trial % 2)) = 1 ]; then
        power_run "$tag-s13-$trial" t52
        power_run "$tag-s2-$trial" t8
    else
        power_run "$tag-s2-$trial" t8
        power_run "$tag-s13-$trial" t52
    fi
    power_run "$tag-b-$trial" t4
}

if [ "$experiment" = aa-gate ]; then
    serve base fixed:2ms
    serve slow fixed:4ms
else
    serve t4 fixed:4ms
    serve t52 fixed:5200us
    serve t8 fixed:8ms
fi
deadline=
[ -n "${GATE_DEADLINE:-}" ] && deadline=$(date -u -d "$GATE_DEADLINE" +%s)
log "measuring $experiment: $trials trials${tag:+ ($tag)}, spacing ${spacing}s, $repetitions repetitions${deadline:+, none started after $GATE_DEADLINE UTC unless it fits}; $(git rev-parse --short HEAD)"
last=0
done_trials=0
for trial in $(seq 1 "$trials"); do
    started=$(date +%s)
    if [ -n "$deadline" ] && [ $((started + last)) -gt "$deadline" ]; then
        log "stopped before trial $trial: the last trial took ${last}s, past $GATE_DEADLINE UTC"
        break
    fi
    if [ "$experiment" = aa-gate ]; then aa_trial "$trial"; else power_trial "$trial"; fi
    last=$(($(date +%s) - started))
    done_trials=$trial
    log "trial $trial done (${last}s)"
done
log "measured $done_trials trials of $experiment${tag:+ ($tag)}; evaluate with: python3 results/$experiment/evaluate.py"
