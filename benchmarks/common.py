"""What every benchmark script shares: the machine line, timing, a peak-RSS probe, and the
run log (``--log FILE``: one JSON line per run, read back by ``benchmarks/runs.py``)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from analyzer.core.jit import source_hash
from analyzer.runner.config import package_version

ROOT = Path(__file__).resolve().parents[1]
URBION = [sys.executable, "-c", "import cli; cli.main()"]


def machine() -> str:
    """The CPU, core count, OS and library versions this run measured on."""
    box, versions = machine_facts(), version_facts()
    return (f"machine: {box['cpu']}, {box['cores']} cores, {box['system']}\nversions: "
            + ", ".join(f"{name} {version}" for name, version in versions.items()))


def machine_facts() -> dict[str, str | int | None]:
    """The CPU's model name, the core count and the OS."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()}"}


def version_facts() -> dict[str, str]:
    """The versions of python, the libraries the figures depend on, and the package."""
    return {"python": platform.python_version(), "numba": numba.__version__,
            "numpy": np.__version__, "pandas": pd.__version__,
            "urbion-analyzer": package_version()}


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


def add_log_option(parser: argparse.ArgumentParser) -> None:
    """``--log FILE``: append this run's figures to FILE as one JSON line."""
    parser.add_argument("--log", type=writable_log, default=None, metavar="FILE",
                        help="append this run's figures to FILE as one JSON line "
                             "(benchmarks/runs.py summarizes such a file)")


def writable_log(name: str) -> Path:
    """``--log``'s file, refused before the run rather than after it when it cannot be
    appended to."""
    path = Path(name)
    target = path if path.exists() else path.parent
    if path.is_dir() or not os.access(target, os.W_OK):
        raise argparse.ArgumentTypeError(f"{name}: cannot be appended to")
    return path


def log_run(path: Path | None, benchmark: str, options: argparse.Namespace,
            figures: dict[str, float], targets: dict[str, tuple[str, float]]) -> None:
    """Append one run to the log at ``path`` (nothing when None), written in one call once
    every figure is measured, so that a run stopped part way leaves no line behind.

    The record names the commit and the kernels' source hash (runs of the same kernels are
    grouped by it), the machine and versions, the options, the figures, and each target as
    ``(">=" | "<", bound)``."""
    if path is None:
        return
    record = {
        "benchmark": benchmark,
        "finished": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _git("rev-parse", "HEAD"),
        "changed_files": _changed_files(),
        "kernels": source_hash(),
        "machine": machine_facts(),
        "versions": version_facts(),
        "options": {k: str(v) if isinstance(v, Path) else v
                    for k, v in vars(options).items() if k != "log"},
        "figures": {name: float(value) for name, value in figures.items()},
        "targets": {name: [op, float(bound)] for name, (op, bound) in targets.items()},
    }
    line = json.dumps(record) + "\n"
    with open(path, "a+", encoding="utf-8") as log:
        log.seek(0, os.SEEK_END)
        if log.tell():  # a file that does not end its last line gets one first
            log.seek(log.tell() - 1)
            if log.read(1) != "\n":
                line = "\n" + line
        log.write(line)
    print(f"logged to {path}")


def _git(*args: str) -> str | None:
    """A git command's output in the package's folder; None outside a git clone."""
    try:
        proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return proc.stdout.strip()


def _changed_files() -> list[str] | None:
    """Files changed since the commit (the run log itself aside): a run of uncommitted
    code says so."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    if status is None:
        return None
    changed = [line[3:] for line in status.splitlines()]
    return [name for name in changed if name != "benchmarks/runs.jsonl"]
