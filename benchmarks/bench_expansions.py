"""Speed of each expansion against the base game, measured side by side in one run.

Prints the machine and versions, then for the base game, each of the seven expansions
alone, the first four together, all seven together and the team game with all seven:
greedy's games/s on all cores (the median of interleaved rounds, so that the machine's noise
falls on every set alike), the ratio to the base game, the mean turns a game lasts, the
turns played per second against the base game's, and the win rate with its 95% interval.
The games/s ratio is the turns/s ratio (how much dearer a turn is) over how many times as
many turns a game lasts. Targets: no single expansion or the first
four below half the base game's games/s (Expansions I); all seven together at least a third
of it (Expansions II).

Usage: python benchmarks/bench_expansions.py [--games 50000] [--rounds 5] [--log FILE]
"""

from __future__ import annotations

import argparse
import statistics

from common import add_log_option, log_run, machine, timed

import analyzer
from analyzer.analysis.stats import wilson_interval
from analyzer.core.codes import EXPANSION_NAMES

FIRST_FOUR = "squares_metas,chromatic_chaos,temples_harmony,gardens_wizards"
#: (label, expansions, variant)
SETS = [("none", "none", "solo"), *((n, n, "solo") for n in EXPANSION_NAMES),
        ("first four", FIRST_FOUR, "solo"), ("all seven", "all", "solo"),
        ("all seven, team", "all", "team")]
#: The targets: the slowest of these sets against the base game.
HALF_TARGET = [label for label, _, _ in SETS[1:-2]]
THIRD_TARGET = ["all seven", "all seven, team"]
TARGETS = {"slowest_half_target_vs_base": (">=", 0.5),
           "slowest_third_target_vs_base": (">=", 1 / 3)}


def figure_name(label: str) -> str:
    """A set's label as the start of its figures' names in the log: ``all_seven_team``."""
    return "base_game" if label == "none" else label.replace(",", "").replace(" ", "_")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--policy", default="greedy")
    add_log_option(parser)
    args = parser.parse_args()
    print(machine())
    for _, names, variant in SETS:  # compile first
        analyzer.simulate(games=10, policy=args.policy, expansions=names, variant=variant)
    rates: dict[str, list[float]] = {label: [] for label, _, _ in SETS}
    wins: dict[str, tuple[int, int]] = {}
    turns: dict[str, float] = {}
    for _ in range(args.rounds):
        for label, names, variant in SETS:
            df, seconds = timed(analyzer.simulate, games=args.games, seed=1,
                                policy=args.policy, expansions=names, variant=variant)
            rates[label].append(args.games / seconds)
            wins[label] = (int(df["won"].sum()), len(df))
            turns[label] = float(df["turns"].mean())
    ratio = {label: statistics.median(r) / statistics.median(rates["none"])
             for label, r in rates.items()}
    print(f"{args.policy}, {args.games:,} games of seed 1 per set, median of {args.rounds} "
          "interleaved rounds, all cores")
    print(f"{'expansions':<18} {'games/s':>10} {'vs base':>8} {'turns':>6} "
          f"{'turns/s vs base':>16}   win rate (95% interval)")
    figures: dict[str, float] = {}
    for label, _, _ in SETS:
        won, n = wins[label]
        low, high = wilson_interval(won, n)
        turn_ratio = ratio[label] * turns[label] / turns["none"]
        print(f"{label:<18} {statistics.median(rates[label]):>10,.0f} {ratio[label]:>7.2f}x "
              f"{turns[label]:>6.1f} {turn_ratio:>15.2f}x   "
              f"{won / n:.2%} ({low:.2%}-{high:.2%})")
        name = figure_name(label)
        figures |= {f"{name}_games_per_s": statistics.median(rates[label]),
                    f"{name}_vs_base": ratio[label], f"{name}_turns": turns[label],
                    f"{name}_turns_per_s_vs_base": turn_ratio, f"{name}_win_rate": won / n}
    half = min(ratio[label] for label in HALF_TARGET)
    third = min(ratio[label] for label in THIRD_TARGET)
    print(f"slowest single expansion or first four: {half:.2f}x the base game   target >= 0.50x")
    print(f"slowest of all seven (solo, team):      {third:.2f}x the base game   target >= 0.33x")
    figures |= {"slowest_half_target_vs_base": half, "slowest_third_target_vs_base": third}
    log_run(args.log, "bench_expansions", args, figures, TARGETS)


if __name__ == "__main__":
    main()
