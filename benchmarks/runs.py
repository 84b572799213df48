"""Summarize a benchmark run log: each figure's last value beside its runs before.

Every benchmark takes ``--log FILE`` and appends one JSON line per run (``make bench``
appends to benchmarks/runs.jsonl). This prints, for each benchmark, its last run's figures,
whether each met its target, and the range of the same figure over the runs on the same
machine (CPU model and core count): those of the same kernels (the source hash of the
compiled code, analyzer/core/jit.py) and all of them. On a shared machine one run says as
much about the machine's moment as about the code; the range of a figure over runs of the
same kernels says how far to trust it.

Usage: python benchmarks/runs.py [FILE] [--benchmark NAME] [--figure SUBSTRING]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

DEFAULT_LOG = Path(__file__).resolve().parent / "runs.jsonl"
#: The keys every record has (benchmarks/common.py, ``log_run``).
RECORD_KEYS = ("benchmark", "finished", "commit", "kernels", "machine", "figures", "targets")


class LogError(Exception):
    """A run log that cannot be read, with the one line that says why."""


def read_runs(path: Path) -> list[dict]:
    """The records of a run log, in the order they were appended."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise LogError(f"{path}: cannot be read ({getattr(err, 'strerror', None) or err})") \
            from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise LogError(f"{path} line {number}: not JSON") from None
        missing = [key for key in RECORD_KEYS
                   if not isinstance(record, dict) or key not in record]
        if missing:
            raise LogError(f"{path} line {number}: not a benchmark run (no "
                           f"{', '.join(missing)})")
        records.append(record)
    if not records:
        raise LogError(f"{path}: no runs logged")
    return records


def met(value: float, target: list | None) -> str:
    """'yes' or 'no' against a target ``[op, bound]``; '' without one."""
    if not target:
        return ""
    op, bound = target
    return "yes" if (value >= bound if op == ">=" else value < bound) else "no"


def summary(records: list[dict], benchmark: str) -> pd.DataFrame:
    """One row per figure of ``benchmark``'s last run: its value, target and whether met,
    and the count, lowest and highest of that figure over the runs of the same machine
    with the same kernels (``kernel_*``) and with any (``machine_*``)."""
    runs = [r for r in records if r["benchmark"] == benchmark]
    last = runs[-1]
    box = (last["machine"].get("cpu"), last["machine"].get("cores"))
    here = [r for r in runs
            if (r["machine"].get("cpu"), r["machine"].get("cores")) == box]
    same = [r for r in here if r["kernels"] == last["kernels"]]
    rows = []
    for name, value in last["figures"].items():
        row = {"figure": name, "last": value,
               "target": " ".join(str(x) for x in last["targets"].get(name, ())),
               "met": met(value, last["targets"].get(name))}
        for group, group_runs in (("kernel", same), ("machine", here)):
            values = [r["figures"][name] for r in group_runs if name in r["figures"]]
            row |= {f"{group}_runs": len(values), f"{group}_low": min(values),
                    f"{group}_high": max(values)}
        rows.append(row)
    return pd.DataFrame(rows).set_index("figure")


def figure_text(value: float) -> str:
    """A figure as the benchmarks print it: thousands whole, the rest to four digits."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def heading(records: list[dict], benchmark: str) -> str:
    """Which run is last, at which commit and kernels, on which machine."""
    last = [r for r in records if r["benchmark"] == benchmark][-1]
    commit = (last["commit"] or "no commit")[:10]
    changed = " with uncommitted changes" if last.get("changed_files") else ""
    box = last["machine"]
    return (f"{benchmark}: last run {last['finished']}, commit {commit}{changed}, kernels "
            f"{last['kernels']}, {box.get('cpu')} ({box.get('cores')} cores)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", nargs="?", type=Path, default=DEFAULT_LOG)
    parser.add_argument("--benchmark", help="one benchmark only (bench_engine, ...)")
    parser.add_argument("--figure", default="", help="figures whose name has this in it")
    args = parser.parse_args(argv)
    try:
        records = read_runs(args.log)
    except LogError as err:
        print(f"runs.py: {err}", file=sys.stderr)
        return 2
    names = list(dict.fromkeys(r["benchmark"] for r in records))
    if args.benchmark is not None and args.benchmark not in names:
        print(f"runs.py: no run of {args.benchmark!r} in {args.log} (it has "
              f"{', '.join(names)})", file=sys.stderr)
        return 2
    with pd.option_context("display.width", 200, "display.max_rows", None,
                           "display.float_format", figure_text):
        for name in [args.benchmark] if args.benchmark else names:
            table = summary(records, name)
            table = table[table.index.str.contains(args.figure, regex=False)]
            if len(table):
                print(heading(records, name))
                print(table.to_string())
                print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
