"""Skill headroom: every built-in policy on the same deals, and search's budget trade-off.

Prints the machine and versions, then:
- the skill-headroom table on the base game with the R14 card set: random, greedy,
  weighted, search and clairvoyant on the same deals (games 0..N-1 of one seed), each with
  its win rate, 95% Wilson interval and games/s; and McNemar's test of the best
  non-clairvoyant policy against greedy, Holm-adjusted over the duel's pairs (targets:
  >= 10% wins, aim 20%, p < 0.01);
- search's games/s at its default budget (target >= 50 games/s on 2 cores);
- win rate and games/s of search against its rollouts budget, on fewer deals.
Compile time is excluded from every games/s (each run compiles or loads before timing).

Usage: python benchmarks/bench_policies.py [--games 10000] [--budget-games 2000] [--log FILE]
"""

from __future__ import annotations

import argparse

from common import add_log_option, log_run, machine

import analyzer
from analyzer.analysis.stats import format_p

POLICIES = ["random", "greedy", "weighted", "search", "clairvoyant"]
ROLLOUTS = [1, 2, 4, 8, 16, 32]


def headroom(games: int, seed: int) -> dict[str, float]:
    """Print the skill-headroom table; return each policy's win rate and games/s."""
    duel = analyzer.duel(POLICIES, games=games, seed=seed)
    print(f"\nskill headroom, base game, R14 cards, games 0-{games - 1} of seed {seed} "
          "(the same deals for every policy)")
    print(str(duel).split("\n", 2)[2])
    table = duel.policies.drop(index="clairvoyant")
    best = table["win_rate"].idxmax()
    pairs = duel.pairs
    row = pairs[((pairs.a == "greedy") & (pairs.b == best)) |
                ((pairs.a == best) & (pairs.b == "greedy"))].iloc[0]
    print(f"\nbest non-clairvoyant policy: {best}, {table.loc[best, 'win_rate']:.2%} "
          f"(target >= 10%, aim 20%); against greedy McNemar p = {format_p(row.mcnemar_p)}, "
          f"Holm p over the duel's {len(pairs)} pairs = {format_p(row.holm_p)} (target < 0.01; "
          "Holm's p, since the best was picked after the games)")
    print(f"search at its default budget: {table.loc['search', 'games_per_s']:,.0f} games/s "
          "(target >= 50 on 2 cores)")
    figures = {"best_vs_greedy_holm_p": row.holm_p}
    for policy in POLICIES:
        figures |= {f"{policy}_win_rate": duel.policies.loc[policy, "win_rate"],
                    f"{policy}_games_per_s": duel.policies.loc[policy, "games_per_s"]}
    return figures


def budget(games: int, seed: int) -> dict[str, float]:
    """Print search's win rate against its budget; return each budget's figures."""
    print(f"\nsearch: win rate against rollouts per candidate (3 candidates), games 0-"
          f"{games - 1} of seed {seed}")
    print(f"{'rollouts':>8} {'win rate':>9}  {'95% interval':<17} {'games/s':>8}")
    figures = {}
    for rollouts in ROLLOUTS:
        df = analyzer.simulate(games=games, seed=seed, policy=f"search:rollouts={rollouts}")
        summary = analyzer.summarize(df)
        print(f"{rollouts:>8} {summary['win_rate']:>9.2%}  {summary['ci_low']:>6.2%} to "
              f"{summary['ci_high']:<7.2%} {len(df) / df.attrs['seconds']:>8,.0f}")
        figures |= {f"search_{rollouts}_rollouts_win_rate": summary["win_rate"],
                    f"search_{rollouts}_rollouts_games_per_s": len(df) / df.attrs["seconds"]}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--budget-games", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    add_log_option(parser)
    args = parser.parse_args()
    print(machine(), flush=True)
    figures = headroom(args.games, args.seed)
    figures |= budget(args.budget_games, args.seed + 1)
    best = max(figures[f"{p}_win_rate"] for p in POLICIES if p != "clairvoyant")
    log_run(args.log, "bench_policies", args, figures | {"best_win_rate": best},
            {"search_games_per_s": (">=", 50), "best_win_rate": (">=", 0.10),
             "best_vs_greedy_holm_p": ("<", 0.01)})


if __name__ == "__main__":
    main()
