import re, subprocess, sys
data = sys.argv[1]
out = subprocess.run(['perf','report','-i',data,'--no-children','--sort','sym','--percent-limit','0','--stdio','-g','none'],capture_output=True,text=True).stdout
cats = {}
def cat(sym):
    s = sym
    if 'clock_gettime' in s: return 'clock reads (page timing, yield check)'
    if '[k]' in s: return 'kernel (task switches, wakeups, timers)'
    if 'PagebenchStore' in s or 'allASCII' in s or 'validateUTF8' in s or 'copyCollectionToContiguousArray' in s or 'allocateStringStorage' in s: return 'store: evaluate, tokens, items'
    if 'isCancelled' in s or 'checkCancellation' in s: return 'cancellation checks'
    if 'malloc' in s or 'free' in s or 'je_' in s or 'jemalloc' in s or 'allocObject' in s or 'Deinit' in s or 'dealloc' in s and 'task_dealloc' not in s: return 'malloc/free/deinit'
    if 'swift_retain' in s or 'swift_release' in s: return 'retain/release'
    if 'task_switch' in s or 'PreferredTaskExecutor' in s or 'StackAllocator' in s or 'task_dealloc' in s or 'task_alloc' in s or 'swift_job_run' in s or 'dispatch' in s or 'tls_get_addr' in s or 'swift_task' in s: return 'async runtime (frames, executor checks, yields)'
    if 'LatencyRecorder' in s: return 'histogram record'
    if 'PagebenchHarness' in s or 'PagebenchPager' in s or 'PagebenchMetrics' in s: return 'harness/pager code'
    return 'other'
for line in out.splitlines():
    m = re.match(r'\s+([\d.]+)%\s+(.*)', line)
    if not m: continue
    c = cat(m.group(2)); cats[c] = cats.get(c, 0) + float(m.group(1))
for c, v in sorted(cats.items(), key=lambda x: -x[1]): print(f"| {c} | {v:.1f} % |")
