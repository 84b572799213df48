"""Scaling and memory of long runs, measured side by side in one run.

Prints the machine and versions, then:
- local scaling: games/s with 1 and 2 threads, and with 1 and 2 Dask worker processes
  (`--scheduler local:N`), and the 2-to-1 ratios (target >= 1.8x);
- Dask overhead: games/s through a local 2-process cluster against the plain local runner
  on the same games (target: within 10%, i.e. ratio >= 0.90); cluster start-up is printed
  apart, since it is paid once per run, not per game;
- peak RSS of `--summary-only` runs of growing length (target < 300 MB, and flat).
Each pairing is measured in alternating rounds and the median of each side is reported.

Usage: python benchmarks/bench_scale.py [--games 300000] [--dask-games 1000000]
                                        [--rss-games 1000000,3000000,10000000] [--rounds 2]
                                        [--log FILE]
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import add_log_option, log_run, machine, peak_rss_of_cli

import analyzer


def rate(**options) -> tuple[float, float]:
    """(games/s of the games themselves, wall seconds of the whole call)."""
    start = time.perf_counter()
    df = analyzer.simulate(**options)
    wall = time.perf_counter() - start
    return len(df) / df.attrs["seconds"], wall


def side_by_side(configs: dict[str, dict], games: int, rounds: int) -> dict[str, list]:
    """Each config played ``rounds`` times, alternating: {name: [(rate, wall), ...]}."""
    measured: dict[str, list] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, options in configs.items():
            measured[name].append(rate(games=games, seed=1, **options))
    return measured


def median_rate(runs: list) -> float:
    return statistics.median(r for r, _ in runs)


def report_scaling(games: int, rounds: int) -> dict[str, float]:
    configs = {"1 thread": {"workers": 1}, "2 threads": {"workers": 2},
               "1 process": {"scheduler": "local:1"}, "2 processes": {"scheduler": "local:2"}}
    runs = side_by_side(configs, games, rounds)
    print(f"\nlocal scaling, greedy, {games:,} games, median of {rounds} alternating rounds")
    for name in configs:
        print(f"  {name:12s} {median_rate(runs[name]):>10,.0f} games/s")
    figures = {}
    for one, two, name in (("1 thread", "2 threads", "threads_2_vs_1"),
                           ("1 process", "2 processes", "dask_processes_2_vs_1")):
        ratio = median_rate(runs[two]) / median_rate(runs[one])
        print(f"  {two} / {one}: {ratio:.2f}x      target >= 1.8x")
        figures[name] = ratio
    return figures


def report_dask_overhead(games: int, rounds: int) -> dict[str, float]:
    configs = {"local runner, 2 threads": {"workers": 2},
               "Dask local:2 cluster": {"scheduler": "local:2"}}
    runs = side_by_side(configs, games, rounds)
    local, dask = (median_rate(runs[name]) for name in configs)
    start_up = statistics.median(wall - games / r for r, wall in runs["Dask local:2 cluster"])
    print(f"\nDask overhead, greedy, {games:,} games, median of {rounds} alternating rounds")
    print(f"  local runner      {local:>10,.0f} games/s")
    print(f"  Dask local:2      {dask:>10,.0f} games/s   (plus {start_up:.1f} s to start "
          "the cluster)")
    print(f"  Dask / local: {dask / local:.2f}      target >= 0.90")
    return {"dask_vs_local": dask / local, "dask_start_s": start_up}


def report_memory(sizes: list[int]) -> dict[str, float]:
    print("\npeak RSS of `urbion simulate --summary-only`, greedy")
    figures = {}
    for games in sizes:
        rss, seconds = peak_rss_of_cli(["simulate", "--games", str(games), "--summary-only",
                                        "--quiet"], env=None)
        print(f"  {games:>12,} games: {rss:>6,.0f} MB   ({seconds:,.0f} s)      "
              "target < 300 MB")
        figures[f"summary_only_{games}_games_peak_rss_mb"] = rss
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300_000)
    parser.add_argument("--dask-games", type=int, default=1_000_000)
    parser.add_argument("--rss-games", default="1000000,3000000,10000000")
    parser.add_argument("--rounds", type=int, default=2)
    add_log_option(parser)
    args = parser.parse_args()
    print(machine())
    analyzer.simulate(games=10)  # compile (or load) the kernels before timing
    figures = report_scaling(args.games, args.rounds)
    figures |= report_dask_overhead(args.dask_games, args.rounds)
    rss = report_memory([int(n) for n in args.rss_games.split(",")])
    figures |= rss | {"summary_only_peak_rss_mb": max(rss.values())}
    log_run(args.log, "bench_scale", args, figures,
            {"threads_2_vs_1": (">=", 1.8), "dask_processes_2_vs_1": (">=", 1.8),
             "dask_vs_local": (">=", 0.9), "summary_only_peak_rss_mb": ("<", 300)})


if __name__ == "__main__":
    main()
