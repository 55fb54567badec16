"""Issue 38: `pagebench serve` listens with as long a queue of connections not yet accepted as
the kernel allows (net.core.somaxconn), not its HTTP library's 256: a crowd's connections
arrive at once, and with 256 the kernel dropped the final ACK of 2,684 of 10,000 (the client
counted them established; each request timed out). `ss` shows a listening socket's backlog as
its Send-Q.

The binary is $PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench.
"""
import subprocess

from pagebench_support import ServedStore


def test_serve_listens_with_the_kernels_longest_backlog():
    with open("/proc/sys/net/core/somaxconn", encoding="ascii") as handle:
        somaxconn = int(handle.read())
    served = ServedStore()
    try:
        port = served.endpoint.rsplit(":", 1)[1]
        listing = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], check=True, capture_output=True,
                                 text=True).stdout.split()
        # State, Recv-Q (connections waiting to be accepted), Send-Q (the backlog), addresses.
        assert listing[0] == "LISTEN", listing
        assert int(listing[2]) == min(65535, somaxconn), listing
    finally:
        served.stop()
