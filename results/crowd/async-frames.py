"""Issue 38: the async frame sizes of a pager's functions in a pagebench binary. An async
function's frame (its context) is allocated from its task's allocator when it is called and
kept while the task is suspended in it; its size is the second word of the function's
"async function pointer" (symbols ending in `Tu`). Usage: async-frames.py BINARY [REGEX]"""
import re
import subprocess
import sys

binary = sys.argv[1]
pattern = sys.argv[2] if len(sys.argv) > 2 else (
    r"PagerTask|DrainRunner\.(run|runLoop|runStreaming|checkpoint)|runPager|"
    r"closure #1 in closure #1 in closure #1 in closure #[23] in PhaseRunner\.run(Phase|StagedPhase)")
symbols = [line.split() for line in subprocess.run(["nm", binary], capture_output=True, text=True).stdout.splitlines()]
symbols = [fields for fields in symbols if len(fields) == 3 and fields[2].endswith("Tu")]
sections = []
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout.splitlines():
    match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
    if match:
        sections.append((int(match.group(2), 16), int(match.group(3), 16), int(match.group(4), 16)))
data = open(binary, "rb").read()


def context_size(address):
    for start, offset, size in sections:
        if start and start <= address < start + size:
            return int.from_bytes(data[offset + address - start + 4:offset + address - start + 8], "little")
    return None


names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(s[2] for s in symbols),
                       capture_output=True, text=True).stdout.splitlines()
rows = set()
for fields, name in zip(symbols, names):
    if "partial apply" in name or not re.search(pattern, name):
        continue
    size = context_size(int(fields[0], 16))
    if size is not None:
        rows.add((size, name.replace("async function pointer to ", "")[:160]))
for size, name in sorted(rows, reverse=True):
    print(f"{size:>7}  {name}")
