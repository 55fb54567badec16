#!/usr/bin/env bash
# Cold `swift test` of one commit, as .ci/test runs it: a fresh clone, `swift build`, then
# `swift test` with at most 8 tests at a time; wall and CPU of each step (results/build-times.md).
#   bash results/build-time/cold-swift-test.sh COMMIT TAG   # appends a line to /tmp/cold-ab.txt
# Run on an otherwise idle machine; alternate the commits compared (A B A B) so that both see the
# same machine.
set -u
commit=$1
tag=$2
dir=/tmp/cold-$tag
rm -rf "$dir" && git clone -q "$(git rev-parse --show-toplevel)" "$dir" && cd "$dir" && git checkout -q "$commit"
start=$(date +%s.%N)
/usr/bin/time -f "%e %U %S" -o "$dir.build-time" swift build > "$dir-build.log" 2>&1
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 /usr/bin/time -f "%e %U %S" -o "$dir.test-time" swift test > "$dir-test.log" 2>&1
end=$(date +%s.%N)
echo "$tag $commit build(wall user sys) $(cat "$dir.build-time") test $(cat "$dir.test-time")" \
    "run $(grep -o 'passed after [0-9.]* seconds' "$dir-test.log" | tail -1) total $(awk "BEGIN { print $end - $start }")" >> /tmp/cold-ab.txt
rm -rf "$dir"
