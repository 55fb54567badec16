#!/bin/bash
# Interleaved before/after timings of pagebench check; appends "round,binary,input,seconds,KB,exit" rows.
out=/tmp/cs/timings.csv
[ -f $out ] || echo "round,binary,input,load1,seconds,peak_rss_kb,exit" > $out
for round in "$@"; do
  for input in varying identical rep1000; do
    case $input in
      varying) args="--baseline /tmp/cs/jit-106.csv --current /tmp/cs/jit-106b.csv";;
      identical) args="--baseline /tmp/cs/chk-106.csv --current /tmp/cs/chk-106.csv";;
      rep1000) args="--baseline /tmp/cs/rep1000a.csv --current /tmp/cs/rep1000b.csv";;
    esac
    for binary in before after; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      /usr/bin/time -f "%e,%U,%S,%M" -o /tmp/cs/t.txt /tmp/check-$binary check $args > /tmp/cs/out-$binary-$input.txt; rc=$?
      IFS=, read e u s m < /tmp/cs/t.txt; echo "$round,$binary,$input,$load,$e,$(python3 -c "print(round($u+$s,2))"),$m,$rc" >> $out
      tail -1 $out
    done
  done
done
