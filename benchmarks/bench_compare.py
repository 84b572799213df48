"""Speed of `urbion compare --sets singles`, charts and files included.

Prints the machine and versions, then the wall time of `urbion compare --sets singles
--games N --policy greedy --out DIR` (the base game and each expansion alone, the same
games of one seed for every set) and the games/s over all sets. Target (issue: analysis and
reports): under 2 minutes at 100,000 games per set with greedy.

Usage: python benchmarks/bench_compare.py [--games 100000] [--log FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile

from common import URBION, add_log_option, log_run, machine, timed

from analyzer.analysis.expansion_sets import expansion_sets


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--sets", default="singles")
    add_log_option(parser)
    args = parser.parse_args()
    print(machine())
    n_sets = len(expansion_sets(args.sets))
    env = dict(os.environ)
    subprocess.run(URBION + ["simulate", "--games", "10", "--expansions", "all", "--quiet"],
                   check=True, env=env, capture_output=True)  # compile once, as a user would
    with tempfile.TemporaryDirectory() as folder:
        cmd = URBION + ["compare", "--sets", args.sets, "--games", str(args.games),
                        "--policy", "greedy", "--out", os.path.join(folder, "cmp"), "--quiet"]
        proc, seconds = timed(subprocess.run, cmd, check=True, env=env, capture_output=True,
                              text=True)
        charts = sorted(p for p in os.listdir(os.path.join(folder, "cmp")) if p.endswith(".png"))
    print(proc.stdout)
    total = n_sets * args.games
    print(f"`urbion compare --sets {args.sets} --games {args.games:,} --policy greedy --out "
          f"DIR`: {n_sets} sets, {total:,} games, {seconds:.1f} s wall "
          f"({total / seconds:,.0f} games/s), charts {', '.join(charts)}"
          "      target < 120 s")
    log_run(args.log, "bench_compare", args,
            {"compare_wall_s": seconds, "compare_games_per_s": total / seconds},
            {"compare_wall_s": ("<", 120)})


if __name__ == "__main__":
    main()
