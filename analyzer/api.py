"""The public Python API; every CLI command is a thin call to one of these."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from analyzer.analysis.results_io import check_writable, write_results
from analyzer.analysis.summary import summarize
from analyzer.cards import CardSet, default_card_set, load_card_set
from analyzer.core.codes import REASON_NAMES, Outcome
from analyzer.errors import UrbionError
from analyzer.policies.registry import PolicySpec, resolve_policy
from analyzer.runner.config import ENGINES, run_config
from analyzer.runner.local import compile_kernels, run_fast
from analyzer.runner.results import from_traces
from analyzer.runner.tracing import fast_trace

__all__ = ["load_cards", "simulate", "summarize", "trace", "show", "results_frame"]


def load_cards(cards: str | Path | CardSet | None) -> CardSet:
    """A card set from a file path, an already loaded set, or the default (R14) for None."""
    if cards is None:
        return default_card_set()
    if isinstance(cards, CardSet):
        return cards
    return load_card_set(cards)


def _policy(policy: str | PolicySpec) -> PolicySpec:
    return policy if isinstance(policy, PolicySpec) else resolve_policy(policy)


def _check_counts(games: int, seed: int, first_game: int = 0) -> None:
    if games < 1:
        raise UrbionError(f"games must be at least 1, not {games}")
    if seed < 0 or first_game < 0:
        raise UrbionError("seed and game numbers must not be negative")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise UrbionError(f"unknown engine {engine!r} (valid: {', '.join(ENGINES)})")


def results_frame(results: np.ndarray, attrs: dict) -> pd.DataFrame:
    """One row per game from structured results, with readable outcome and reason."""
    df = pd.DataFrame(results)
    df.insert(1, "won", df["outcome"] == Outcome.WIN)
    df["reason"] = pd.Categorical.from_codes(df["reason"].astype(int), categories=REASON_NAMES)
    df = df.drop(columns="outcome")
    df.attrs = attrs
    return df


def simulate(games: int = 10_000, seed: int = 0, policy: str | PolicySpec = "greedy",
             workers: int | None = None, engine: str = "fast",
             cards: str | Path | CardSet | None = None, out: str | Path | None = None,
             first_game: int = 0) -> pd.DataFrame:
    """Play a seeded batch of solo base games; one row per game, configuration in ``attrs``.

    Game g of seed S is the same game whatever ``workers`` and ``engine``.
    """
    _check_counts(games, seed, first_game)
    _check_engine(engine)
    card_set = load_cards(cards)
    spec = _policy(policy).for_cards(card_set)
    if out is not None:
        check_writable(out)
    start = time.perf_counter()
    if engine == "fast":
        compile_kernels(card_set, spec)
    compiled = time.perf_counter()
    if engine == "fast":
        results = run_fast(card_set, spec, seed, games, first_game, workers)
    else:
        from analyzer.runner.reference_runner import run_reference

        results = from_traces(run_reference(card_set, spec, seed, games, first_game))
    attrs = run_config(card_set, spec.name, seed, games, engine, first_game)
    attrs["compile_seconds"] = compiled - start
    attrs["seconds"] = time.perf_counter() - compiled
    df = results_frame(results, attrs)
    if out is not None:
        write_results(df, out)
    return df


def trace(seed: int = 0, game: int = 0, games: int = 1, policy: str | PolicySpec = "greedy",
          cards: str | Path | CardSet | None = None, engine: str = "fast") -> list[dict]:
    """``urbion-trace/1`` traces of games ``game .. game + games - 1`` of batch ``seed``."""
    _check_counts(games, seed, game)
    _check_engine(engine)
    card_set = load_cards(cards)
    spec = _policy(policy).for_cards(card_set)
    if engine == "fast":
        return [fast_trace(card_set, spec, seed, g) for g in range(game, game + games)]
    from analyzer.runner.reference_runner import run_reference

    return run_reference(card_set, spec, seed, games, game)


def show(seed: int = 0, game: int = 0, policy: str | PolicySpec = "greedy",
         cards: str | Path | CardSet | None = None) -> str:
    """Game ``game`` of batch ``seed`` as text a player can follow, turn by turn."""
    from analyzer.trace.show import render_trace

    return render_trace(trace(seed, game, 1, policy, cards)[0])

