#!/usr/bin/env python3
"""Runs a command, samples per-thread CPU (utime+stime from /proc/PID/task/*/stat) at two
instants inside its measured phase, and prints each thread's share of the process CPU between
them. Usage: threadshare.py SKIP_S WINDOW_S -- command..."""
import os, subprocess, sys, time
skip, window = float(sys.argv[1]), float(sys.argv[2])
cmd = sys.argv[sys.argv.index('--') + 1:]
tick = os.sysconf('SC_CLK_TCK')
def snap(pid):
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            s = open(f'/proc/{pid}/task/{tid}/stat').read()
        except OSError:
            continue
        rest = s[s.rindex(')') + 2:].split()
        out[tid] = (int(rest[11]) + int(rest[12])) / tick
    return out
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
time.sleep(skip)
a = snap(p.pid); t0 = time.time()
time.sleep(window)
b = snap(p.pid); t1 = time.time()
p.wait()
d = sorted(((b[t] - a.get(t, 0), t) for t in b), reverse=True)
total = sum(x for x, _ in d)
print(f"window {t1-t0:.2f} s, process CPU {total:.2f} s ({total/(t1-t0):.2f} cores)")
for x, t in d[:4]:
    print(f"  thread {t}: {x:.2f} s = {100*x/total if total else 0:.1f} %")
