"""What the Python checks under Tests/ share (Tests/conftest.py puts this directory on sys.path)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pagebench_binary():
    """$PAGEBENCH_BIN, else `swift build --show-bin-path`/pagebench."""
    if os.environ.get("PAGEBENCH_BIN"):
        return os.environ["PAGEBENCH_BIN"]
    bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    return os.path.join(bin_path, "pagebench")
