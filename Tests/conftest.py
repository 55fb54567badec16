# Makes Tests/ importable from every check below it (pagebench_support.py).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
