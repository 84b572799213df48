"""Speed and memory of the base-game engine, measured side by side in one run.

Prints the machine and versions, then: games/s of `random` and `greedy` over 100,000 games
(1 and all cores), the fast/reference speed ratio on the same seeds and policy, cold-start
compile time in one process (the median of 3), a warm `urbion simulate --games 1000` wall
time, the peak RSS of a 1,000,000-game run with --out, and greedy's win rate. Targets
(issue: base game): greedy >= 20,000 games/s on 2 cores, fast >= 200x reference, compile
< 30 s, warm run < 3 s, peak RSS < 500 MB, greedy win rate >= 3%.

Usage: python benchmarks/bench_engine.py [--games 100000] [--big 1000000] [--compile-rounds 3]
                                         [--log FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, URBION, add_log_option, log_run, machine, peak_rss_of_cli, timed

import analyzer
from analyzer.analysis.stats import wilson_interval
from analyzer.cards import default_card_set
from analyzer.policies.registry import resolve_policy
from analyzer.runner.local import batch_kernel
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.run import run_fast


def run_cli(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(URBION + args, check=True, env=env, cwd=ROOT, capture_output=True)
    return time.perf_counter() - start


COMPILE_PROBE = (
    "import time; from analyzer.cards import default_card_set; "
    "from analyzer.policies.registry import resolve_policy; "
    "from analyzer.runner.local import compile_kernels; t = time.perf_counter(); "
    "compile_kernels(default_card_set(), resolve_policy('greedy')); "
    "print(time.perf_counter() - t)"
)


def compile_seconds(env_base: dict) -> float:
    """Time to compile the batch kernel (both built-in policies), with no disk cache."""
    env = {**env_base, "URBION_NO_CACHE": "1"}
    proc = subprocess.run([sys.executable, "-c", COMPILE_PROBE], check=True, env=env,
                          cwd=ROOT, capture_output=True, text=True)
    return float(proc.stdout.strip())


def cold_and_warm(env_base: dict) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**env_base, "URBION_CACHE_DIR": cache}
        cold = run_cli(["simulate", "--games", "1000"], env)
        warm = run_cli(["simulate", "--games", "1000"], env)
    return cold, warm


def peak_rss_big(games: int, env: dict) -> tuple[float, float]:
    """Peak RSS and wall time of `urbion simulate --games N --out F.parquet`."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "big.parquet")
        return peak_rss_of_cli(["simulate", "--games", str(games), "--out", out, "--quiet"],
                               env)


#: Each figure's target, as the log records it (benchmarks/common.py).
TARGETS = {"greedy_games_per_s_all_cores": (">=", 20_000), "fast_reference_greedy_engine":
           (">=", 200), "fast_reference_random_engine": (">=", 200), "compile_s": ("<", 30),
           "warm_run_s": ("<", 3), "big_run_peak_rss_mb": ("<", 500),
           "greedy_win_rate": (">=", 0.03)}


def report_ratio(cards, policy, n_games: int, repeats: int = 50,
                 rounds: int = 5) -> dict[str, float]:
    """fast/reference speed on the same games, one thread each: the fast engine's batch
    kernel alone (engine against engine), and through the runner (thread pool, legality
    check, structured results), which a 200-game batch feels more than a long run.

    Each round times the reference once and the fast engine ``repeats`` times, one after
    the other, so that the machine's noise falls on both; the median of the rounds' ratios
    is printed with their range (a single round of the reference varied up to twofold).
    The reference plays greedy with its plain-Python twin, random with the compiled random
    (docs/engine.md). Returns the figures: ``fast_reference_<policy>_<engine|runner>``, the
    median, and the same with ``_low`` and ``_high``, the rounds' range."""
    run_reference(cards, policy, 1, 2)  # warm up (random: compile it for calls from Python)
    kernel = batch_kernel(policy)
    args = (policy.kernel_arg, policy.params, cards.cards, cards.city_ids, cards.dream_ids,
            cards.expansions, 1, 0, n_games)
    kernel(*args)
    ratios: dict[str, list[float]] = {"engine": [], "runner": []}
    for _ in range(rounds):
        _, ref_sec = timed(run_reference, cards, policy, 1, n_games)
        _, kernel_sec = timed(lambda: [kernel(*args) for _ in range(repeats)])
        _, runner_sec = timed(lambda: [run_fast(cards, policy, 1, n_games, workers=1)
                                       for _ in range(repeats)])
        for what, sec in (("engine", kernel_sec), ("runner", runner_sec)):
            ratios[what].append(ref_sec * repeats / sec)
    figures = {}
    for what, values in ratios.items():
        print(f"fast/reference, {policy.name}, games 0-{n_games - 1} of seed 1, 1 thread, "
              f"fast {what}: {statistics.median(values):,.0f}x (median of {rounds} rounds, "
              f"{min(values):,.0f}x-{max(values):,.0f}x)      target >= 200x")
        name = f"fast_reference_{policy.name}_{what}"
        figures |= {name: statistics.median(values), f"{name}_low": min(values),
                    f"{name}_high": max(values)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--reference-games", type=int, default=200)
    parser.add_argument("--compile-rounds", type=int, default=3)
    add_log_option(parser)
    args = parser.parse_args()
    print(machine())
    env = dict(os.environ)
    figures: dict[str, float] = {}

    # one compile is at the mercy of this shared machine's noise (+-15%): the median of a few
    compiles = [compile_seconds(env) for _ in range(args.compile_rounds)]
    print(f"compile (cold start, no disk cache, one process): "
          f"{statistics.median(compiles):.1f} s (median of {len(compiles)}, "
          f"{min(compiles):.1f}-{max(compiles):.1f} s)      target < 30 s")
    figures |= {"compile_s": statistics.median(compiles), "compile_s_low": min(compiles),
                "compile_s_high": max(compiles)}
    cold, warm = cold_and_warm(env)
    figures |= {"first_run_s": cold, "warm_run_s": warm}
    print(f"cold start (empty cache) `urbion simulate --games 1000`: {cold:.1f} s wall "
          f"(compile, write the cache, play)")
    print(f"warm `urbion simulate --games 1000`: {warm:.2f} s wall      target < 3 s")

    analyzer.simulate(games=10, policy="greedy")  # compile (or load) before timing
    analyzer.simulate(games=10, policy="random")
    rates = {}
    for policy in ("random", "greedy"):
        for workers in (1, os.cpu_count() or 1):
            df, sec = timed(analyzer.simulate, games=args.games, seed=1, policy=policy,
                            workers=workers)
            rates[policy, workers] = args.games / sec
            figures[f"{policy}_games_per_s_{workers}_workers"] = args.games / sec
            print(f"{policy:7s} {workers} worker(s): {rates[policy, workers]:>10,.0f} games/s")
        if policy == "greedy":
            wins = int(df["won"].sum())
            low, high = wilson_interval(wins, len(df))
            print(f"greedy win rate {wins / len(df):.2%} (95% {low:.2%}-{high:.2%}), "
                  f"mean pacified {df['pacified'].mean():.2f}        target >= 3%")
            figures |= {"greedy_win_rate": wins / len(df),
                        "greedy_mean_pacified": df["pacified"].mean()}
    cores = os.cpu_count() or 1
    figures["greedy_games_per_s_all_cores"] = rates["greedy", cores]
    print(f"greedy on {cores} cores: {rates['greedy', cores]:,.0f} games/s"
          f"      target >= 20,000")

    cards = default_card_set()
    n_ref = args.reference_games
    for name in ("greedy", "random"):
        figures |= report_ratio(cards, resolve_policy(name).for_cards(cards), n_ref)

    rss, seconds = peak_rss_big(args.big, env)
    print(f"`urbion simulate --games {args.big:,} --out F.parquet`: {seconds:.1f} s wall, "
          f"peak RSS {rss:,.0f} MB      target < 500 MB")
    figures |= {"big_run_s": seconds, "big_run_peak_rss_mb": rss}
    log_run(args.log, "bench_engine", args, figures, TARGETS)


if __name__ == "__main__":
    main()
