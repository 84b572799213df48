"""``urbion simulate``: a batch of games as a frame of results, or its summary alone."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import pandas as pd

from analyzer import arguments
from analyzer.analysis.results_io import (
    check_summary_writable,
    check_writable,
    write_results,
    write_summary,
)
from analyzer.analysis.summary import summarize_tally
from analyzer.api.common import (
    Cards,
    Expansions,
    check_by_name,
    check_not_an_input,
    check_one_executor,
    checked_engine,
    checked_run_inputs,
    load_cards,
    memory_in_one_line,
    raise_if_the_policy_raised,
    readable_bytes,
    weights_file_given,
)
from analyzer.cards import CardSet
from analyzer.core.codes import N_RESULT, REASON_NAMES, Outcome
from analyzer.errors import ClusterError, PolicyError, RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts
from analyzer.runner.checkpoint import Checkpoint, partial_folder, partial_folder_remove
from analyzer.runner.executors import Executor, local_threads, make_executor
from analyzer.runner.plan import DEFAULT_CHUNK, RunPlan
from analyzer.runner.results import RESULT_DTYPE
from analyzer.runner.run import execute, stopped_before_playing


def results_frame(results: np.ndarray, attrs: dict) -> pd.DataFrame:
    """One row per game from structured results, with readable outcome and reason.

    Built column by column from ``results`` (RESULT_DTYPE), each copied once: a frame of a
    million games holds 44 MB, and every whole copy made on the way adds as much to the
    peak memory of a long run.
    """
    columns: dict[str, object] = {}
    for name in results.dtype.names:
        if name == "outcome":
            columns["won"] = results["outcome"] == Outcome.WIN
        elif name == "reason":
            columns["reason"] = pd.Categorical.from_codes(results["reason"],
                                                          categories=REASON_NAMES)
        else:
            columns[name] = results[name]
    df = pd.DataFrame(columns)
    df.attrs = attrs
    return df


@memory_in_one_line
def simulate(games: int = 10_000, seed: int = 0, policy: str | PolicySpec = "greedy",
             workers: int | None = None, engine: str = "fast",
             cards: Cards = None, out: str | Path | None = None,
             first_game: int = 0, resume: bool = False, scheduler: str | None = None,
             progress: bool = False, chunk: int | None = None,
             expansions: Expansions = None,
             variant: str | None = None) -> pd.DataFrame:
    """Play a seeded batch of games, solo or team, of the base game with any expansions.

    Parameters
    ----------
    games : int
        Number of games, at least 1.
    seed : int
        Batch seed (0 to 2**63-1). Game g of seed S is the same game whatever ``workers``,
        ``engine``, ``chunk`` and ``scheduler``, alone or in a batch.
    policy : str or PolicySpec
        A built-in policy's name (``urbion policies``: random, greedy, weighted[:FILE],
        search[:OPTIONS], clairvoyant), ``FILE.py:FUNCTION`` /
        ``MODULE:FUNCTION``, or a ready PolicySpec.
    workers : int, optional
        Threads for a local run (default: all cores).
    engine : {"fast", "reference"}
        The numba engine, or the plain-Python reference engine (slow).
    cards : path, CardSet or DataFrame, optional
        Card-set TOML file, or a results or summary file, or a frame ``simulate`` returned
        (its run's cards), or a loaded set; default the R14 set.
    expansions : str or list of str, optional
        The expansions in play: names (squares_metas, chromatic_chaos, temples_harmony,
        gardens_wizards, books, postcards, emptiness) comma-separated or as a list,
        ``"all"`` or ``"none"``; default the base game (or the expansions of a given CardSet).
    variant : {"solo", "team"}, optional
        The solo game or the two-player team game (R10, one policy plays both seats);
        default solo (or the variant of a given CardSet).
    out : path, optional
        Parquet file for the results (checked before the run, written atomically: a file of
        that name is replaced once the run is done). Finished chunks are kept in
        ``OUT.partial/`` until it is written (docs/scaling.md).
    first_game : int
        Number of the first game, to play a slice of a batch.
    resume : bool
        Continue the interrupted run saved in ``OUT.partial/`` (same configuration only).
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a Dask scheduler, or ``local:N`` for a local cluster of N
        processes; default: threads of this process.
    progress : bool
        Draw a progress bar on stderr.
    chunk : int, optional
        Games per chunk (the unit of work, of checkpoints and of progress); default 20,000,
        or fewer for the search policies (200 at their default budget), 200 on the
        reference engine.

    Returns
    -------
    pandas.DataFrame
        One row per game: game, won, reason, turns, pacified, deck_left, chaos_placed,
        chaos_cleared, chaos_revealed, censuses, exchanges, chromatic, rebuilds,
        sides_changed, inhabitants, emptiness_left, books_kept, wise_used, seats,
        book_actions, allies, polarity_swaps. ``attrs`` holds the run's
        configuration, ``seconds`` (the games), ``compile_seconds``, ``games_resumed``,
        ``played_on`` (threads, or a Dask cluster) and ``chunk``. :func:`weights_note`
        gives the note ``urbion simulate`` prints about weights tuned elsewhere, if any.

    Raises
    ------
    UrbionError
        Bad input: unknown policy or engine, bad counts, unreadable card set, unwritable out,
        a resume that does not match; RunStopped when interrupted.
    """
    options = _run_options(games, seed, first_game, workers, chunk, scheduler, resume,
                           progress)
    out = _checked_out(out, cards, policy, check_writable)
    card_set = load_cards(cards, expansions, variant)
    results, attrs, held = _run(options, policy, checked_engine(engine), card_set, out,
                                summary_only=False)
    if out is None:
        return results_frame(results, attrs)
    with held or nullcontext():  # until the output is written and the folder gone
        with _kept_for_resume(out, options["games"]):
            df = results_frame(results, attrs)
            del results  # not held while the file is written: a long run's peak memory
            write_results(df, out)
        partial_folder_remove(out)
    return df


@contextmanager
def _kept_for_resume(out: Path, games: int) -> Iterator[None]:
    """Write a finished run's output in the body; when Ctrl-C or an error (a full disk)
    stops it, raise RunStopped saying that the games wait in ``OUT.partial/`` for
    ``--resume``, which then only writes the output."""
    try:
        yield
    except (KeyboardInterrupt, UrbionError, MemoryError) as err:
        folder = partial_folder(out)
        if not folder.is_dir():
            raise
        interrupted = isinstance(err, KeyboardInterrupt)
        why = f"{interrupts.stop_word()} while writing {out}" if interrupted else \
            f"out of memory while writing {out}" if isinstance(err, MemoryError) else str(err)
        raise RunStopped(f"{why}: the {games:,} games stay saved in {folder}; run the same "
                         "command with --resume (resume=True in Python) to write it",
                         interrupted) from None


@memory_in_one_line
def simulate_summary(games: int = 10_000, seed: int = 0, policy: str | PolicySpec = "greedy",
                     workers: int | None = None, engine: str = "fast",
                     cards: Cards = None,
                     out: str | Path | None = None, first_game: int = 0,
                     resume: bool = False, scheduler: str | None = None,
                     progress: bool = False, chunk: int | None = None,
                     expansions: Expansions = None,
                     variant: str | None = None) -> dict:
    """Play a batch like :func:`simulate` but keep only running totals (``--summary-only``).

    Memory stays bounded whatever ``games`` is.

    Parameters
    ----------
    games, seed, policy, workers, engine, cards, first_game, resume, scheduler, progress, \
chunk, expansions, variant
        As for :func:`simulate`.
    out : path, optional
        A JSON file (``.json``) for the summary, the tally and the configuration.

    Returns
    -------
    dict
        The figures of :func:`summarize` (equal to summarizing the full rows), plus
        ``config`` (the run's configuration, ``seconds`` and ``compile_seconds``).
    """
    options = _run_options(games, seed, first_game, workers, chunk, scheduler, resume,
                           progress)
    out = _checked_out(out, cards, policy, check_summary_writable)
    card_set = load_cards(cards, expansions, variant)
    tally, attrs, held = _run(options, policy, checked_engine(engine), card_set, out,
                              summary_only=True)
    summary = summarize_tally(tally, list(attrs.get("expansions") or []),
                              attrs.get("city_cards"), attrs.get("variant", "solo"))
    if out is not None:
        with held or nullcontext():  # until the output is written and the folder gone
            with _kept_for_resume(out, options["games"]):
                write_summary(summary, tally, attrs, out)
            partial_folder_remove(out)
    return {**summary, "config": attrs}


def _checked_out(out: str | Path | None, cards: Cards, policy: str | PolicySpec,
                 check: Callable[[Path], object]) -> Path | None:
    """``out`` as a path, ``check``-ed as a place to write the run's file (results or
    summary), and not the card or weights file the run reads."""
    out = arguments.path("out", out)
    if out is not None:
        check(out)
        check_not_an_input(out, {"--cards": cards, "--policy": weights_file_given(policy)},
                           "the run")
    return out


def _run_options(games, seed, first_game, workers, chunk, scheduler, resume,
                 progress) -> dict:
    """A run's counts and switches, checked, with whole numbers as Python ints."""
    games, seed, first_game = arguments.game_counts(games, seed, first_game)
    options = dict(games=games, seed=seed, first_game=first_game,
                   workers=arguments.workers(workers),
                   chunk=arguments.optional_count("chunk", chunk),
                   scheduler=arguments.text("scheduler", scheduler, optional=True),
                   resume=arguments.flag("resume", resume),
                   progress=arguments.flag("progress", progress))
    check_one_executor(options["workers"], options["scheduler"])
    return options


def _machine_memory() -> int | None:
    """This machine's memory in bytes; None on a system that does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _check_results_fit(games: int) -> None:
    """Refuse a run whose per-game results cannot fit in this machine's memory, before it
    plays for hours and fails: ``--summary-only`` keeps a tally of fixed size instead."""
    memory = _machine_memory()
    if memory is None:
        return
    # the results, then the frame made of them, each column copied once
    need = 2 * games * RESULT_DTYPE.itemsize
    if need > memory:
        raise UrbionError(f"{games:,} games keep {readable_bytes(need)} of per-game results in "
                          f"memory, more than this machine's {readable_bytes(memory)}: play "
                          "fewer, or, for the figures of one run alone, keep a tally of "
                          "fixed size instead of rows (urbion simulate --summary-only; "
                          "analyzer.simulate_summary in Python)")


#: Bytes a game takes while it is played (the batch kernel's int64 row), and once played
#: (its structured results, held until its chunk is collected).
PLAYING_BYTES, PLAYED_BYTES = N_RESULT * np.dtype(np.int64).itemsize, RESULT_DTYPE.itemsize


def _check_chunk_fits(chunk: int, chunks: int, threads: int) -> None:
    """Refuse a chunk too large for this machine's memory before any game is played. A
    local run's threads play one chunk's slices at a time, and it keeps up to two chunks
    for each thread in hand (of the run's ``chunks``), played or queued."""
    memory = _machine_memory()
    in_hand = min(2 * threads, chunks)
    need = chunk * (PLAYING_BYTES + PLAYED_BYTES * in_hand)
    if memory is not None and need > memory:
        held = f"the {in_hand} chunks" if in_hand > 1 else "the chunk"
        raise UrbionError(f"--chunk {chunk:,}: {held} a run on {threads} "
                          f"thread{'s' if threads != 1 else ''} keeps in hand would hold "
                          f"{need / 1e9:,.1f} GB, more than this machine's "
                          f"{memory / 1e9:,.1f} GB: give a smaller --chunk (chunk= in "
                          f"Python; default {DEFAULT_CHUNK:,})")


def _run(options: dict, policy, engine, cards: CardSet, out: Path | None,
         summary_only: bool) -> tuple[np.ndarray, dict, Checkpoint | None]:
    """Check the policy and engine, then play every chunk not saved yet; (payload, attrs,
    the checkpoint of ``out``, held until its output is written, or None).
    ``options``: from :func:`_run_options`."""
    # a stop while the run is set up ends as a stop before its first game does: a command
    # of many runs (compare's batches) then says what its finished runs keep
    with interrupts.holding():
        return _set_up_and_run(options, policy, engine, cards, out, summary_only)


def _planned(options: dict, policy, engine: str, cards: CardSet, out: Path | None,
             summary_only: bool) -> tuple[RunPlan, PolicySpec, int | None]:
    """The run's plan, its policy and its threads (None: every core), once everything that
    can be checked before a game is played has been."""
    card_set, spec = checked_run_inputs(engine, policy, cards)
    if options["resume"] and out is None:
        raise UrbionError("--resume needs --out (resume=True needs out= in Python): finished "
                          "chunks are kept beside the output")
    if not summary_only:
        _check_results_fit(options["games"])
    if options["scheduler"] is not None:
        check_by_name(spec, card_set)
    plan = RunPlan.for_policy(card_set, spec, options["seed"], options["games"],
                              options["first_game"], engine, options["chunk"])
    # the plain-Python engine holds Python's lock: more threads would only take turns
    threads = 1 if engine == "reference" else options["workers"]
    if options["scheduler"] is None:  # a cluster's workers have memory of their own
        _check_chunk_fits(min(plan.chunk, plan.games), plan.n_chunks, local_threads(threads))
    return plan, spec, threads


def _prepare_executor(executor: Executor, plan: RunPlan, checkpoint: Checkpoint | None) -> None:
    """Get ``executor`` ready to play ``plan`` (compile, or load, its kernels): a stop, or a
    worker's problem once chunks are kept for a resume, is a :class:`RunStopped`."""
    try:
        executor.prepare(plan)
    except KeyboardInterrupt:
        raise RunStopped(stopped_before_playing(checkpoint), True) from None
    except ClusterError as err:  # a worker's problem: a resume outlives it
        if checkpoint is None or not checkpoint.opened:
            raise
        raise RunStopped(stopped_before_playing(checkpoint, str(err)), False) from None


def _set_up_and_run(options: dict, policy, engine, cards: CardSet, out: Path | None,
                    summary_only: bool) -> tuple[np.ndarray, dict, Checkpoint | None]:
    """:func:`_run`, its stops not yet read."""
    plan, spec, threads = _planned(options, policy, engine, cards, out, summary_only)
    # taken before the games: a stop once they are played and saved finds nothing left
    # to do that could say otherwise
    attrs = plan.config()
    executor = make_executor(options["scheduler"], threads)
    checkpoint = None
    try:
        checkpoint = (Checkpoint.start(out, plan.identity(summary_only), options["resume"])
                      if out is not None else None)
        with interrupts.holding():  # Ctrl-C inside LLVM would otherwise be dropped
            start = time.perf_counter()
            _prepare_executor(executor, plan, checkpoint)
            compiled = time.perf_counter()
            payload, resumed = execute(plan, executor, summary_only, checkpoint,
                                       options["progress"])
            played_on = executor.describe()
    except PolicyError:
        # an illegal decision comes back on every resume: this run's chunks are of no use
        if checkpoint is not None:
            checkpoint.discard_if_created()
            checkpoint.close()
        raise
    except BaseException as err:
        if checkpoint is not None:  # an exception's traceback would keep it held
            checkpoint.close()
        if isinstance(err, Exception):
            raise_if_the_policy_raised(spec, err, checkpoint)
        raise
    finally:
        executor.close()
    attrs["compile_seconds"] = compiled - start
    attrs["seconds"] = time.perf_counter() - compiled
    attrs["games_resumed"] = resumed
    # how the games were played: no part of what they are, but of how fast they came
    attrs["played_on"] = played_on
    attrs["chunk"] = plan.chunk
    return payload, attrs, checkpoint
