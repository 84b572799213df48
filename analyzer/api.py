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
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.results import from_traces
from analyzer.runner.tracing import fast_trace
from analyzer.trace.jsonl import check_trace_path, write_traces

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


MAX_SEED = 2**63 - 1


def _check_counts(games: int, seed: int, first_game: int = 0) -> None:
    if games < 1:
        raise UrbionError(f"games must be at least 1, not {games}")
    for name, value in (("seed", seed), ("game", first_game + games - 1)):
        if not 0 <= value <= MAX_SEED:
            raise UrbionError(f"{name} must be a whole number from 0 to {MAX_SEED}")


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise UrbionError(f"unknown engine {engine!r} (valid: {', '.join(ENGINES)})")


def _prepare(games: int, seed: int, first_game: int, engine: str, policy: str | PolicySpec,
             cards: str | Path | CardSet | None) -> tuple[CardSet, PolicySpec]:
    """Check a run's arguments; the card set and the policy fitted to it."""
    _check_counts(games, seed, first_game)
    _check_engine(engine)
    card_set = load_cards(cards)
    return card_set, _policy(policy).for_cards(card_set)


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
    """Play a seeded batch of solo base games.

    Parameters
    ----------
    games : int
        Number of games, at least 1.
    seed : int
        Batch seed (0 to 2**63-1). Game g of seed S is the same game whatever ``workers``
        and ``engine``, alone or in a batch.
    policy : str or PolicySpec
        A built-in policy's name (``random``, ``greedy``) or a ready PolicySpec.
    workers : int, optional
        Threads for the fast engine (default: all cores).
    engine : {"fast", "reference"}
        The numba engine, or the plain-Python reference engine (slow).
    cards : path or CardSet, optional
        Card-set TOML file; default the R14 set.
    out : path, optional
        Parquet file for the results (checked before the run, written atomically).
    first_game : int
        Number of the first game, to play a slice of a batch.

    Returns
    -------
    pandas.DataFrame
        One row per game: game, won, reason, turns, pacified, deck_left, chaos_placed,
        chaos_cleared, chaos_revealed, censuses, exchanges. ``attrs`` holds the run's
        configuration, ``seconds`` (the games) and ``compile_seconds``.

    Raises
    ------
    UrbionError
        Bad input: unknown policy or engine, bad counts, unreadable card set, unwritable out.
    """
    card_set, spec = _prepare(games, seed, first_game, engine, policy, cards)
    if out is not None:
        check_writable(out)
    start = time.perf_counter()
    warm_up(engine, card_set, spec, seed, first_game)
    compiled = time.perf_counter()
    if engine == "fast":
        results = run_fast(card_set, spec, seed, games, first_game, workers)
    else:
        results = from_traces(run_reference(card_set, spec, seed, games, first_game))
    attrs = run_config(card_set, spec.name, seed, games, engine, first_game)
    attrs["compile_seconds"] = compiled - start
    attrs["seconds"] = time.perf_counter() - compiled
    df = results_frame(results, attrs)
    if out is not None:
        write_results(df, out)
    return df


def warm_up(engine: str, card_set: CardSet, spec: PolicySpec, seed: int, game: int) -> None:
    """Compile (or load) what the run needs, so that its timing counts games only."""
    if engine == "fast":
        compile_kernels(card_set, spec)
    else:
        run_reference(card_set, spec, seed, 1, game)


def trace(seed: int = 0, game: int = 0, games: int = 1, policy: str | PolicySpec = "greedy",
          cards: str | Path | CardSet | None = None, engine: str = "fast",
          out: str | Path | None = None) -> list[dict]:
    """Traces of games ``game .. game + games - 1`` of batch ``seed``.

    Parameters
    ----------
    seed, game, games, policy, cards, engine
        As for :func:`simulate`; ``game`` is the first game traced.
    out : path, optional
        JSON Lines file (``.jsonl``) to write the traces to (checked before playing).

    Returns
    -------
    list of dict
        One ``urbion-trace/1`` trace per game (../shared/TRACE.md).
    """
    card_set, spec = _prepare(games, seed, game, engine, policy, cards)
    if out is not None:
        check_trace_path(out)
    if engine == "fast":
        traces = [fast_trace(card_set, spec, seed, g) for g in range(game, game + games)]
    else:
        traces = run_reference(card_set, spec, seed, games, game)
    if out is not None:
        write_traces(traces, out)
    return traces


def show(seed: int = 0, game: int = 0, policy: str | PolicySpec = "greedy",
         cards: str | Path | CardSet | None = None) -> str:
    """Game ``game`` of batch ``seed`` as text a player can follow, turn by turn.

    Returns
    -------
    str
        Each turn's decisions, then every row (city, elements, both sides, total), the hand
        with the cards drawn, and the counters; the result at the end.
    """
    from analyzer.trace.show import render_trace

    return render_trace(trace(seed, game, 1, policy, cards)[0])

