"""Speed of each expansion against the base game, measured side by side in one run.

Prints the machine and versions, then for the base game, each of the first four expansions
alone and all four together: greedy's games/s on all cores (the median of interleaved
rounds, so that the machine's noise falls on every set alike), the ratio to the base game,
and the win rate with its 95% interval. Target (issue: Expansions I): no set below half the
base game's games/s.

Usage: python benchmarks/bench_expansions.py [--games 50000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics

from common import machine, timed

import analyzer
from analyzer.analysis.stats import wilson_interval

SETS = ["none", "squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards",
        "all"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--policy", default="greedy")
    args = parser.parse_args()
    print(machine())
    for name in SETS:
        analyzer.simulate(games=10, policy=args.policy, expansions=name)  # compile first
    rates: dict[str, list[float]] = {name: [] for name in SETS}
    wins: dict[str, tuple[int, int]] = {}
    for _ in range(args.rounds):
        for name in SETS:
            df, seconds = timed(analyzer.simulate, games=args.games, seed=1,
                                policy=args.policy, expansions=name)
            rates[name].append(args.games / seconds)
            wins[name] = (int(df["won"].sum()), len(df))
    base = statistics.median(rates["none"])
    print(f"{args.policy}, {args.games:,} games of seed 1 per set, median of {args.rounds} "
          "interleaved rounds, all cores")
    print(f"{'expansions':<18} {'games/s':>10} {'vs base':>8}   win rate (95% interval)")
    for name in SETS:
        rate = statistics.median(rates[name])
        won, n = wins[name]
        low, high = wilson_interval(won, n)
        print(f"{name:<18} {rate:>10,.0f} {rate / base:>7.2f}x   {won / n:.2%} "
              f"({low:.2%}-{high:.2%})")
    slowest = min(statistics.median(rates[name]) / base for name in SETS)
    print(f"slowest set: {slowest:.2f}x the base game's games/s      target >= 0.50x")


if __name__ == "__main__":
    main()
