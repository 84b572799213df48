"""What every benchmark script shares: the machine line, timing, and a peak-RSS probe."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from analyzer.runner.config import package_version

ROOT = Path(__file__).resolve().parents[1]
URBION = [sys.executable, "-c", "import cli; cli.main()"]


def machine() -> str:
    """The CPU, core count, OS and library versions this run measured on."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"machine: {cpu}, {os.cpu_count()} cores, {platform.system()} "
            f"{platform.release()}\nversions: python {platform.python_version()}, numba "
            f"{numba.__version__}, numpy {np.__version__}, pandas {pd.__version__}, "
            f"urbion-analyzer {package_version()}")


def timed(fn, *args, **kwargs):
    """(fn's result, seconds it took)."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


PEAK_RSS_PROBE = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
                  "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
                  "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
                  "time.perf_counter() - t)")


def peak_rss_of_cli(args: list[str], env: dict) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of one `urbion` command, measured by an intermediate
    process that runs only it."""
    cmd = [sys.executable, "-c", PEAK_RSS_PROBE, *URBION, *args]
    proc = subprocess.run(cmd, check=True, env=env, cwd=ROOT, capture_output=True, text=True)
    rss_kb, seconds = proc.stdout.split()
    return float(rss_kb) / 1024, float(seconds)
