"""Play one chunk of a plan: the unit of work of every executor, local or distributed."""

from __future__ import annotations

import numpy as np

from analyzer.runner.local import compile_kernels, run_fast
from analyzer.runner.plan import RunPlan
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.results import from_traces
from analyzer.runner.tally import tally_results


def play_chunk(plan: RunPlan, index: int, threads: int = 1) -> np.ndarray:
    """Structured results (RESULT_DTYPE) of chunk ``index``, in game order."""
    first, n = plan.chunk_games(index)
    spec = plan.policy_spec()
    if plan.engine == "fast":
        return run_fast(plan.card_set, spec, plan.seed, n, first, workers=threads, chunk=n)
    return from_traces(run_reference(plan.card_set, spec, plan.seed, n, first))


def chunk_payload(plan: RunPlan, index: int, summary_only: bool,
                  threads: int = 1) -> np.ndarray:
    """What a chunk sends back: its per-game results, or only their tally."""
    results = play_chunk(plan, index, threads)
    return tally_results(results) if summary_only else results


def prepare_kernels(plan: RunPlan) -> None:
    """Compile (or load from the disk cache) what the plan's chunks run, playing no game
    of the run, so that timings count games only."""
    spec = plan.policy_spec()
    if plan.engine == "fast":
        compile_kernels(plan.card_set, spec)
    else:
        run_reference(plan.card_set, spec, plan.seed, 1, plan.first_game)
