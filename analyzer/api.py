"""The public Python API; every CLI command is a thin call to one of these."""

from __future__ import annotations

import copy
import functools
import inspect
import itertools
import os
import shutil
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analyzer import arguments
from analyzer.analysis.duel import (
    format_duel,
    format_play,
    pair_table,
    play_half_widths,
    play_table,
    policy_table,
)
from analyzer.analysis.results_io import (
    cards_of_file,
    check_summary_writable,
    check_writable,
    is_run_file,
    run_cards,
    write_results,
    write_summary,
)
from analyzer.analysis.stats import EDGE_NOTE, format_p, signed_pp
from analyzer.analysis.summary import summarize, summarize_tally
from analyzer.analysis.totals import joined_commit
from analyzer.atomic import SET_WRITTEN
from analyzer.cards import CardSet, default_card_set, load_card_set
from analyzer.cards.loader import (
    CardSetError,
    cards_digest,
    expansion_names,
    parse_expansions,
    play_digest,
)
from analyzer.core.codes import N_RESULT, REASON_NAMES, RULES_VERSION, Outcome
from analyzer.errors import (
    ClusterError,
    OutOfMemory,
    OutputNotWritten,
    PolicyError,
    RunStopped,
    UrbionError,
    out_of_memory_message,
)
from analyzer.policies.registry import (
    PolicySpec,
    names_a_builtin,
    policy_entries,
    policy_label,
    resolve_policy,
    weights_file_of,
)
from analyzer.policies.weights import (
    joined_notes,
    plays_r14_cards,
    shipped_weights_note,
    tuned_runs_note,
    tuned_weights_note,
)
from analyzer.policies.weights import weights_note as run_weights_note
from analyzer.runner import interrupts
from analyzer.runner.checkpoint import (
    POLICY_HASHES,
    Checkpoint,
    describe_difference,
    partial_folder,
    partial_folder_remove,
)
from analyzer.runner.config import BATCH_IDENTITY, ENGINES, LATER_KEYS
from analyzer.runner.executors import local_threads, make_executor
from analyzer.runner.plan import DEFAULT_CHUNK, RunPlan
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.results import RESULT_DTYPE
from analyzer.runner.run import NOTHING_SAVED, execute, stopped_before_playing
from analyzer.runner.tracing import fast_trace
from analyzer.trace.jsonl import check_trace_path, write_trace_stream, write_traces
from analyzer.wording import plural

if TYPE_CHECKING:  # the tuning module is imported only when a tune runs
    from analyzer.analysis.tune import TuneOutcome

__all__ = ["load_cards", "simulate", "simulate_summary", "summarize", "duel", "tune",
           "report", "sensitivity", "trace", "trace_to_file", "show", "replay",
           "results_frame", "compare"]


Expansions = str | list[str] | tuple[str, ...] | None
#: A card set as every call takes it: a card, results or summary file's path, a loaded
#: set, a frame ``simulate`` returned, or None for the shipped R14 set.
Cards = str | Path | CardSet | pd.DataFrame | None
#: What ``cards=`` may be, as its refusal says it.
CARDS_KINDS = "a path, a CardSet (analyzer.load_cards) or a frame simulate returned"



def _memory_in_one_line(func: Callable) -> Callable:
    """``func`` raising :class:`OutOfMemory`, one line naming what needs less in its own
    parameters, where it ran out of memory: numpy's own error dumps the layout of the
    array it could not make, and a memory limit (a container's, ``ulimit -v``) can stop a
    run that the machine's memory would hold. A call within another is worded again for
    the outer one."""
    options = set(inspect.signature(func).parameters)
    if func.__name__ == "simulate":  # its --summary-only is a function of its own here
        options.add("summary_only")

    @functools.wraps(func)
    def call(*args: object, **kwargs: object) -> object:
        try:
            return func(*args, **kwargs)
        except (MemoryError, OutOfMemory):
            raise OutOfMemory(out_of_memory_message(options, _python_option)) from None

    return call


def _python_option(name: str) -> str:
    """An option as an out-of-memory message names it in Python: --chunk (chunk=)."""
    if name == "summary_only":
        return "analyzer.simulate_summary"
    return f"--{name.replace('_', '-')} ({name}=)"


@_memory_in_one_line
def load_cards(cards: Cards, expansions: Expansions = None,
               variant: str | None = None) -> CardSet:
    """A card set from a file path (a card file, or a results or summary file: its run's
    cards), an already loaded set, a frame ``simulate`` returned (its run's cards), or the
    default (R14) for None, with ``expansions`` in play: names
    (``"chromatic_chaos,squares_metas"`` or a list), ``"all"`` or ``"none"``; None keeps a
    loaded set's expansions (a file or a frame: the base game). ``variant``: ``"solo"`` or
    ``"team"`` (R10); None keeps the set's (solo for a file or a frame).
    """
    if isinstance(cards, pd.DataFrame):
        from analyzer.analysis.results_io import config_cards

        if not isinstance(cards.attrs, dict) or "card_set_table" not in cards.attrs:
            raise UrbionError("cards: the frame keeps no run's cards (no card_set_table in "
                              "its attrs): give a frame simulate returned, or its file")
        cards = config_cards(cards.attrs, "the frame")
    elif cards is not None and not isinstance(cards, CardSet):
        cards = arguments.path("cards", cards, kinds=CARDS_KINDS)
    card_set = _with_expansions(cards, arguments.names("expansions", expansions))
    variant = arguments.text("variant", variant, optional=True)
    return card_set if variant is None else card_set.with_variant(variant)


@_memory_in_one_line
def card_table(cards: Cards = None) -> pd.DataFrame:
    """Every card of a card-set file (the shipped R14 set for None), whatever the
    expansions: one row per card with its id, expansion, type, kind, elements and values,
    the set's name, SHA-256 and source in ``attrs`` (analysis.card_table). A file is
    validated as ``simulate`` validates it."""
    from analyzer.analysis.card_table import card_table as table_of

    return table_of(load_cards(cards))


@_memory_in_one_line
def card_differences(cards: Cards, against: Cards = None) -> str:
    """What the card set ``cards`` changes from ``against``, as ``urbion cards --cards
    FILE`` says it: for each kind of card whose count differs, the two counts, one line
    each under a heading that names both sets by name and hash; for the same cards, whether
    only their order or their name differs; "" for one card set. Each may be a card file,
    a results or summary file, a loaded set, a frame ``simulate`` returned, or None for the
    shipped R14 set."""
    from analyzer.analysis.card_table import card_differences as differences

    if against is not None and not isinstance(against, CardSet | pd.DataFrame):
        against = arguments.path("against", against, kinds=CARDS_KINDS)
    return differences(card_table(against), card_table(cards))


@_memory_in_one_line
def weights_note(results: pd.DataFrame | dict) -> str | None:
    """The note ``urbion simulate`` prints under a run's summary about the weights its
    policy plays, or None: shipped weights (``weighted``, and ``search`` and
    ``clairvoyant``, which look ahead with them) playing other cards, expansions or the
    team game than they were tuned on, or a tuned file playing elsewhere or on its own
    tuning games (docs/policies.md).

    ``results``: what :func:`simulate` or :func:`read_results` returns, the dict
    :func:`simulate_summary` returns, or a run's configuration (a ``df.attrs``).
    """
    if isinstance(results, pd.DataFrame):
        attrs = results.attrs
    elif isinstance(results, dict):
        attrs = results.get("config", results)
    else:
        raise UrbionError("weights_note takes a DataFrame of results, a summary or a run's "
                          f"configuration, not {type(results).__name__}")
    if "policy" not in attrs or "card_set_sha256" not in attrs:
        raise UrbionError("weights_note: no run configuration (its policy and card set) in "
                          "what was given")
    return run_weights_note(attrs)


@_memory_in_one_line
def read_results(path: str | Path) -> pd.DataFrame:
    """Read a results file (``simulate(out=...)``, ``urbion simulate --out``, or a frame
    ``simulate`` returned saved with ``DataFrame.to_parquet``): one row per game, the run's
    configuration in ``attrs``. A file that is not a whole results file raises UrbionError
    with one line saying why."""
    from analyzer.analysis.results_io import read_results as read

    return read(arguments.path("path", path, optional=False))


@_memory_in_one_line
def builtin_policies() -> pd.DataFrame:
    """The built-in policies (``urbion policies``): one row per name, with what it does."""
    from analyzer.policies.registry import BUILTIN_POLICIES

    return pd.DataFrame({"description": [spec.description
                                         for spec in BUILTIN_POLICIES.values()]},
                        index=pd.Index(list(BUILTIN_POLICIES), name="policy"))


@_memory_in_one_line
def write_card_template(out: str | Path, cards: Cards = None) -> Path:
    """Write a card-set file to ``out`` (a new ``.toml`` file), to edit into a card set of
    one's own; return its path. ``cards``: the shipped R14 file for None; a card file, copied
    as it is; or a loaded set, a results or summary file, or a frame ``simulate`` returned,
    whose cards are written as the card file that loads into them (the same name and
    hash)."""
    from analyzer.atomic import check_writable, write_atomically
    from analyzer.cards.loader import default_card_text
    from analyzer.cards.writer import card_file_text

    path = check_writable(arguments.path("out", out, optional=False, flag="--template"),
                          (".toml",))
    if path.exists():  # most likely a card file being edited
        raise UrbionError(f"{path} exists: the template is written to a new file only "
                          "(remove it, or choose another name)")
    if isinstance(cards, pd.DataFrame):
        cards = load_cards(cards)
    source = cards if isinstance(cards, CardSet) else \
        arguments.path("cards", cards, kinds=CARDS_KINDS)
    if source is None or names_shipped_set(source):
        text = default_card_text()
    elif isinstance(source, CardSet):
        text = card_file_text(source.checked())
    elif is_run_file(source):
        text = card_file_text(run_cards(source))
    else:
        load_card_set(source)  # a file that loads, as it is
        text = source.read_text(encoding="utf-8-sig")
    write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path


#: The word that names the shipped card set where a card file is asked for (``--cards r14``,
#: ``--against r14``); a file of that name comes first.
SHIPPED_WORD = "r14"


def names_shipped_set(cards: object) -> bool:
    """Whether ``cards`` (a path as given) is :data:`SHIPPED_WORD` with no file of that
    name at hand (a folder of that name, a results folder say, is no card file)."""
    return isinstance(cards, str | Path) and str(cards).strip().lower() == SHIPPED_WORD \
        and not Path(cards).is_file()


def _with_expansions(cards: str | Path | CardSet | None, expansions: Expansions) -> CardSet:
    if cards is None or names_shipped_set(cards):
        card_set = default_card_set()
    elif isinstance(cards, CardSet):
        card_set = cards.checked()
    else:
        card_set = cards_of_file(cards)
    if expansions is None:
        return card_set
    return card_set.with_expansions(parse_expansions(expansions))


def _policy(policy: str | PolicySpec) -> PolicySpec:
    if isinstance(policy, PolicySpec):
        if not isinstance(policy.name, str) or not policy.name.strip():
            # every result and label names its policy; a function first is the arguments
            # in another order
            given = "" if isinstance(policy.name, str) else \
                f", not {arguments.kind_of(policy.name)}: PolicySpec(NAME, FUNCTION, PARAMS)"
            raise PolicyError("a PolicySpec needs a name (it names the policy in every "
                              f"result){given}")
        if policy.is_user_policy:
            from analyzer.policies.loader import check_policy_function

            if names_a_builtin(policy.name):
                raise PolicyError(f"a policy of your own cannot be named {policy.name!r}, a "
                                  "built-in policy's name: its results would be read as the "
                                  "built-in's (name it otherwise in PolicySpec)")
            check_policy_function(policy.name, policy.func)
        return _with_checked_params(policy)
    if callable(policy):
        raise PolicyError(f"policy must be a name or a PolicySpec, not the function "
                          f"{getattr(policy, '__name__', '')!r} itself: "
                          "PolicySpec(NAME, FUNCTION, PARAMS) names it (docs/policies.md)")
    return resolve_policy(arguments.text("policy", policy))


def _with_checked_params(policy: PolicySpec) -> PolicySpec:
    """``policy`` with its params as the kernels take them, a 1-D float64 array (a list
    or an integer array of numbers is converted); anything else, or a NaN (a None cast to
    float is one), is refused in one line."""
    from dataclasses import replace

    params = policy.params
    if fault := _params_fault(params):
        raise PolicyError(f"policy {policy.name!r}: params must be a 1-D array of real "
                          f"numbers (float64), not {fault}")
    if isinstance(params, np.ndarray) and params.dtype == np.float64 and \
            params.flags.c_contiguous:
        return policy
    return replace(policy, params=np.ascontiguousarray(params, dtype=np.float64))


def _params_fault(params: object) -> str | None:
    """What keeps ``params`` from being a policy's parameters, in a few words (None: they
    are): not one-dimensional, or an item that is no real number (a string, a complex, a
    bool, a None), or NaN."""
    import numbers

    try:
        array = np.asarray(params)
    except (TypeError, ValueError):  # a ragged list
        return arguments.kind_of(params)
    if params is None or isinstance(params, (str, bytes)) or array.ndim != 1:
        return arguments.kind_of(params)
    for k, item in enumerate(params):
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
            return f"params[{k}] = {arguments.kind_of(item)}"
        if item != item:  # NaN: a weight no comparison reads
            return f"params[{k}] = nan"
    return None


def _engine(engine: str) -> str:
    """An engine's name as the tool spells it: taken in any case, as the CLI takes it."""
    return arguments.choice("engine", engine, ENGINES)


def _prepare(engine: str, policy: str | PolicySpec, cards: Cards,
             expansions: Expansions = None,
             variant: str | None = None) -> tuple[CardSet, PolicySpec]:
    """Check a run's engine, policy and cards (its counts are checked by
    ``arguments.game_counts``); the card set (with its expansions) and the policy fitted
    to it."""
    engine = _engine(engine)
    card_set = load_cards(cards, expansions, variant)
    with interrupts.holding():  # a user's policy is compiled as it is loaded
        spec = _policy(policy).for_cards(card_set)
    if engine == "reference" and not spec.reference_ok:
        raise PolicyError(f"policy {spec.name!r} reads the whole game and plays on the fast "
                          "engine only")
    return card_set, spec


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


@_memory_in_one_line
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
    out = arguments.path("out", out)
    if out is not None:
        check_writable(out)
        _check_not_an_input(out, {"--cards": cards, "--policy": _weights_file(policy)},
                            "the run")
    card_set = load_cards(cards, expansions, variant)
    results, attrs, held = _run(options, policy, _engine(engine), card_set, out,
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


@contextmanager
def _part_of(what: str | Callable[[], str]) -> Iterator[None]:
    """Name the part of a command of many runs (duel, tune, sensitivity, compare) that a
    stop cut short, or whose policy failed (``what``, or what it returns then): the run's
    own message counts only that run's games, and names a game of that part's set."""
    try:
        yield
    except RunStopped as err:
        label = what() if callable(what) else what
        raise RunStopped(f"{label}: {err}", err.interrupted) from None
    except PolicyError as err:  # the seed and game it names are of this part's games
        label = what() if callable(what) else what
        raise PolicyError(f"{label}: {err}") from None


@contextmanager
def _shared_cluster(scheduler: str | None) -> Iterator[str | None]:
    """The scheduler for every run of a command of many runs: a ``local:N`` cluster
    started once (``runner.distributed.one_cluster``), any other as it is."""
    if scheduler is None:
        yield None
        return
    from analyzer.runner.distributed import one_cluster

    with one_cluster(scheduler) as address:
        yield address


def check_by_name(spec: PolicySpec, card_set: CardSet) -> None:
    """A cluster's workers resolve the policy by its name: it must name this very policy."""
    try:
        named = resolve_policy(spec.name).for_cards(card_set)
    except PolicyError:
        named = None
    if named is None or named.func is not spec.func or named.kernel != spec.kernel or \
            not np.array_equal(named.params, spec.params):
        raise PolicyError(f"policy {spec.name!r} cannot be sent to a cluster: give a policy "
                          "by a name that resolves to it (a built-in, weighted:FILE.toml, "
                          "FILE.py:FUNCTION or MODULE:FUNCTION)")


@_memory_in_one_line
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
    out = arguments.path("out", out)
    if out is not None:
        check_summary_writable(out)
        _check_not_an_input(out, {"--cards": cards, "--policy": _weights_file(policy)},
                            "the run")
    card_set = load_cards(cards, expansions, variant)
    tally, attrs, held = _run(options, policy, _engine(engine), card_set, out,
                              summary_only=True)
    summary = summarize_tally(tally, list(attrs.get("expansions") or []),
                              attrs.get("city_cards"), attrs.get("variant", "solo"))
    if out is not None:
        with held or nullcontext():  # until the output is written and the folder gone
            with _kept_for_resume(out, options["games"]):
                write_summary(summary, tally, attrs, out)
            partial_folder_remove(out)
    return {**summary, "config": attrs}


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
    _check_one_executor(options["workers"], options["scheduler"])
    return options


def _playable_sets_hint(cards: CardSet) -> str:
    """Which ``--sets`` a card file can play, for the error of one naming a set it cannot:
    its expansions alone and, where it has two or more, any of them joined by ``+``."""
    playable = expansion_names(cards.available_expansions())
    if not playable:
        return "this file holds the base game only"
    hint = f"this file's expansions can be compared with --sets base,{','.join(playable)}"
    if len(playable) > 1:
        hint += f" or sets of them joined by + (such as {playable[0]}+{playable[1]})"
    return hint + "; sets= in Python"


def _check_one_executor(workers: int | None, scheduler: str | None) -> None:
    """Refuse a thread count beside a cluster, whose processes play: it would be silently
    ignored; and an empty scheduler, which would play on this machine's threads unasked."""
    if scheduler is not None and not scheduler.strip():
        raise UrbionError(f"--scheduler (scheduler=) {scheduler!r} names no cluster: give "
                          "local:N or a Dask scheduler's address, or leave it out to play "
                          "on this machine's threads")
    if workers is not None and scheduler is not None:
        raise UrbionError("--workers (workers=) counts this machine's threads and has no "
                          "effect with --scheduler (scheduler=), where the cluster's workers "
                          "play: leave one out")


def _executors(workers: object, scheduler: object) -> tuple[int | None, str | None]:
    """``workers`` and ``scheduler`` checked, apart and together, for a command of many
    runs: refused before a local cluster starts or a game is played."""
    workers = arguments.workers(workers)
    scheduler = arguments.text("scheduler", scheduler, optional=True)
    _check_one_executor(workers, scheduler)
    if scheduler is not None:
        from analyzer.runner.distributed import parse_scheduler

        parse_scheduler(scheduler)  # a malformed address
    return workers, scheduler


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
        raise UrbionError(f"{games:,} games keep {_bytes(need)} of per-game results in "
                          f"memory, more than this machine's {_bytes(memory)}: play "
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


def _raise_if_the_policy_raised(spec: PolicySpec, err: Exception,
                                checkpoint: Checkpoint | None = None) -> None:
    """When a user's policy raised ``err`` while playing, raise its one-line PolicyError
    instead (and drop the run's checkpoint: a resume would raise again, as after an illegal
    decision); return for any other exception, which keeps its traceback."""
    from analyzer.policies.loader import policy_failure

    failure = policy_failure(spec, err)
    if failure is None:
        return
    if checkpoint is not None:
        checkpoint.discard_if_created()
    raise failure from None


def _run(options: dict, policy, engine, cards: CardSet, out: Path | None,
         summary_only: bool) -> tuple[np.ndarray, dict, Checkpoint | None]:
    """Check the policy and engine, then play every chunk not saved yet; (payload, attrs,
    the checkpoint of ``out``, held until its output is written, or None).
    ``options``: from :func:`_run_options`."""
    # a stop while the run is set up ends as a stop before its first game does: a command
    # of many runs (compare's batches) then says what its finished runs keep
    with interrupts.holding():
        return _set_up_and_run(options, policy, engine, cards, out, summary_only)


def _set_up_and_run(options: dict, policy, engine, cards: CardSet, out: Path | None,
                    summary_only: bool) -> tuple[np.ndarray, dict, Checkpoint | None]:
    """:func:`_run`, its stops not yet read."""
    card_set, spec = _prepare(engine, policy, cards)
    if options["resume"] and out is None:
        raise UrbionError("--resume needs --out (resume=True needs out= in Python): finished "
                          "chunks are kept beside the output")
    if not summary_only:
        _check_results_fit(options["games"])
    if options["scheduler"] is not None:
        check_by_name(spec, card_set)
    plan = RunPlan.for_policy(card_set, spec, options["seed"], options["games"],
                              options["first_game"], engine, options["chunk"])
    # taken before the games: a stop once they are played and saved finds nothing left
    # to do that could say otherwise
    attrs = plan.config()
    # the plain-Python engine holds Python's lock: more threads would only take turns
    threads = 1 if engine == "reference" else options["workers"]
    if options["scheduler"] is None:  # a cluster's workers have memory of their own
        _check_chunk_fits(min(plan.chunk, plan.games), plan.n_chunks, local_threads(threads))
    executor = make_executor(options["scheduler"], threads)
    checkpoint = None
    try:
        checkpoint = (Checkpoint.start(out, plan.identity(summary_only), options["resume"])
                      if out is not None else None)
        with interrupts.holding():  # Ctrl-C inside LLVM would otherwise be dropped
            start = time.perf_counter()
            try:
                executor.prepare(plan)
            except KeyboardInterrupt:
                raise RunStopped(stopped_before_playing(checkpoint), True) from None
            except ClusterError as err:  # a worker's problem: a resume outlives it
                if checkpoint is None or not checkpoint.opened:
                    raise
                raise RunStopped(stopped_before_playing(checkpoint, str(err)), False) \
                    from None
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
            _raise_if_the_policy_raised(spec, err, checkpoint)
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


def _named(table: pd.DataFrame, attrs: dict) -> pd.DataFrame:
    """``table`` with ``attrs`` (a copy) as its own: a table taken out of a result still
    names the run it comes from, and keeps it in a file (``to_parquet`` writes it as
    JSON, which reads tuples back as lists)."""
    table.attrs = copy.deepcopy(attrs)
    return table


@dataclass
class DuelResult:
    """A duel: ``policies`` (one row per policy) and ``pairs`` (one row per pair), both
    DataFrames; ``attrs`` the shared configuration (seed, games, card set), which every
    table also carries as its own ``attrs``; ``runs`` the per-game results of each policy
    by name, game g of each the same deal (to find, say, the deals one policy won and
    another lost)."""

    policies: pd.DataFrame
    pairs: pd.DataFrame
    attrs: dict
    runs: dict[str, pd.DataFrame]

    def __post_init__(self) -> None:
        _named(self.policies, self.attrs)
        _named(self.pairs, self.attrs)

    @property
    def play(self) -> pd.DataFrame:
        """How each policy plays the deals: mean tallies per game, one column per policy
        (analysis.duel.play_table)."""
        return _named(play_table(self.runs), self.attrs)

    @property
    def play_half_widths(self) -> pd.DataFrame:
        """The half-width of the 95% t-interval of each mean of :attr:`play`, in its shape
        (analysis.duel.play_half_widths): each policy's own interval, which does not test
        a difference between two policies (the pairs do, deal by deal)."""
        return _named(play_half_widths(self.runs), self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        return format_duel(self.policies, self.pairs, self.attrs) + "\n\n" + \
            format_play(self.play, self.play_half_widths)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` tuned elsewhere,
        plays where its weights were not tuned (other cards, expansions, the team game),
        or a tuned file plays the games it was tuned on; None otherwise."""
        notes = [shipped_weights_note(self.attrs["policies"], not plays_r14_cards(self.attrs),
                                      self.attrs.get("expansions") or [],
                                      self.attrs.get("variant", "solo")),
                 *(tuned_weights_note(run.attrs) for run in self.runs.values())]
        return joined_notes(notes)


@_memory_in_one_line
def duel(policies: str | list[str | PolicySpec], games: int = 10_000, seed: int = 0,
         workers: int | None = None, cards: Cards = None,
         scheduler: str | None = None, progress: bool = False,
         expansions: Expansions = None,
         variant: str | None = None, out: str | Path | None = None) -> DuelResult:
    """Play every policy on the same deals (games 0..games-1 of ``seed``) and compare them.

    Parameters
    ----------
    policies : str or list of (str or PolicySpec)
        Policy names and ``PolicySpec`` objects (a policy of one's own, as :func:`simulate`
        takes), at least two, or one comma-separated string as ``urbion duel`` takes.
    games, seed : int
        The deals: games 0..games-1 of batch ``seed``.
    workers, cards, scheduler, progress, expansions, variant
        As for :func:`simulate`.
    out : path, optional
        A folder for each policy's per-game results (``N-POLICY.parquet``, which ``urbion
        report`` reads), the tables as CSV and the text (``reporting.build.write_duel``).

    Returns
    -------
    DuelResult
        Per policy the win rate with its 95% Wilson interval; per pair the games won by one
        policy and lost by the other, the paired difference and McNemar's exact p-value;
        how each plays the deals (``.play``).

    Raises
    ------
    UrbionError
        Bad input, before any game is played; RunStopped when interrupted.
    """
    entries = _named_policies(policy_entries("policies", policies))
    if len(entries) < 2:
        raise UrbionError("a duel needs at least two different policies")
    games, seed, _ = arguments.game_counts(games, seed)
    workers, scheduler = _executors(workers, scheduler)
    progress = arguments.flag("progress", progress)
    card_set = load_cards(cards, expansions, variant)
    for policy in entries.values():
        _, spec = _prepare("fast", policy, card_set)  # every policy checked before playing
        if scheduler is not None:
            check_by_name(spec, card_set)
    if out is not None:
        from analyzer.reporting.build import check_destination

        out = arguments.path("out", out)
        check_destination(out, "duel")
    with _shared_cluster(scheduler) as cluster:
        result = _same_deals(entries, card_set, dict(games=games, seed=seed, workers=workers,
                                                     scheduler=cluster, progress=progress),
                             lambda name, number: f"duel, policy {name} ({number} of "
                                                  f"{len(entries)})")
    if out is not None:
        from analyzer.reporting.build import write_duel

        try:
            write_duel(result, out)
        except UrbionError as err:  # the games are played: the tables are kept
            raise OutputNotWritten(str(err), result, "") from None
    return result


def _same_deals(policies: dict[str, str | PolicySpec], card_set: CardSet, settings: dict,
                part: Callable[[str, int], str]) -> DuelResult:
    """Each of ``policies`` (by name) playing the same games of ``card_set`` (``settings``:
    :func:`simulate`'s counts and switches), compared; ``part(name, number)`` names the
    part a stop cuts short."""
    results = {}
    for number, (name, policy) in enumerate(policies.items(), start=1):
        with _part_of(part(name, number)):
            results[name] = simulate(policy=policy, cards=card_set, **settings)
    return DuelResult(policy_table(results), pair_table(results), _duel_attrs(results),
                      results)


def _named_policies(entries: list[str | PolicySpec]) -> dict[str, str | PolicySpec]:
    """The duel's policies by name, a name given twice once; two different policies of one
    name are refused (their rows could not be told apart)."""
    named: dict[str, str | PolicySpec] = {}
    for entry in entries:
        # "GREEDY" is greedy, as --policy takes it; options stay as given
        name = policy_label(entry) if isinstance(entry, str) else entry.name
        if name in named and not _same_policy(named[name], entry):
            raise UrbionError(f"two different policies are named {name!r}: give each its own "
                              "name")
        named.setdefault(name, entry)
    return named


def _same_policy(a: str | PolicySpec, b: str | PolicySpec) -> bool:
    """True when two entries of one name are one policy: the same code (built-in, engine
    policy or function, and its source) and the same parameters."""
    from analyzer.runner.plan import policy_fingerprint

    one, other = _policy(a), _policy(b)
    return (one.builtin_id, one.kernel, one.func) == (other.builtin_id, other.kernel,
                                                      other.func) and \
        policy_fingerprint(one) == policy_fingerprint(other)


#: What each policy's run of a duel records of itself, not shared by the others.
_PER_POLICY = ("policy", "policy_params_sha256", "policy_source_sha256", "seconds",
               "compile_seconds", "games_resumed", "played_on", "chunk")


def _duel_attrs(results: dict[str, pd.DataFrame]) -> dict:
    """A duel's attrs: the configuration its runs share, the policies' names, and by name
    each policy's parameter, weights and source hashes (the source "" for a built-in) and
    any other fact of its own (a weights file's text, what it was tuned for) for the
    policies that have it: no fact of one policy reads as the duel's."""
    first = next(iter(results.values())).attrs
    attrs = {key: value for key, value in first.items()
             if key not in _PER_POLICY and not key.startswith("policy_")}
    attrs["policies"] = list(results)
    for key in ("policy_params_sha256", "policy_weights_sha256", "policy_source_sha256"):
        attrs[key] = {name: df.attrs.get(key, "") for name, df in results.items()}
    own = {key for df in results.values() for key in df.attrs if key.startswith("policy_")}
    for key in sorted(own - set(attrs)):
        attrs[key] = {name: df.attrs[key] for name, df in results.items() if key in df.attrs}
    return attrs


@dataclass
class TuneResult:
    """A tuning run: the weights found (the full table), their fitness on the tuning deals,
    the number of candidates played, the held-out comparison with greedy and with the
    start (a DuelResult), the start's name, the weights searched, and a warning when the
    tuned weights did not beat their start on the held-out games (None when they did)."""

    weights: dict[str, float]
    fitness: float
    evaluations: int
    heldout: DuelResult
    start: str = "weighted"
    tuned: tuple[str, ...] = ()
    warning: str | None = None
    #: False when no candidate beat the start on the tuning games (``weights`` are its own)
    improved: bool = True
    #: True when the tuned weights won no more held-out deals than the start (or are its own)
    keep_start: bool = False
    #: the tuning games (0..games-1) and their seed
    games: int = 0
    seed: int = 0
    #: the weights file ``out=`` writes: the weights, how they were made and how they
    #: fared, and what they were tuned on
    file_text: str = field(default="", repr=False)

    def write(self, path: str | Path) -> Path:
        """Write the weights file (``file_text``) that ``out=`` would have written, whole or
        not at all; ``policy=f"weighted:{path}"`` then plays these weights. Returns the
        path."""
        from analyzer.policies.weights import write_weights_text

        return write_weights_text(arguments.path("path", path, optional=False),
                                  self.file_text)

    def text(self, warning: bool = True) -> str:
        """The result as text; ``warning`` False leaves out the warning and the advice to
        keep the start, which the CLI writes on lines of their own."""
        kept = (f" (the others keep {self.start}'s values: no game of this set feels them)"
                if len(self.tuned) < len(self.weights) else "")
        did = "searched" if not self.improved else "tuned"
        lines = [f"{did} {len(self.tuned)} weights from {self.start}'s on games 0-"
                 f"{self.games - 1} of seed {self.seed}: {', '.join(self.tuned)}{kept}",
                 f"{self.evaluations} candidates, best fitness {self.fitness:.4f} on those "
                 f"games (the best of {self.evaluations} tries on the same games, win rate "
                 "plus a small pacified term: not an estimate)",
                 "held-out comparison (games never seen in tuning: the estimate):",
                 str(self.heldout)]
        if warning and self.warning:
            lines.append(f"warning: {self.warning}")
        if warning and self.keep_start:
            lines.append(f"{self.start} is the one to play: these weights did no better")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)


@_memory_in_one_line
def tune(games: int = 20_000, seed: int = 0, evaluations: int = 300,
         heldout_games: int = 50_000, workers: int | None = None,
         cards: Cards = None, out: str | Path | None = None,
         progress: bool = False, expansions: Expansions = None,
         variant: str | None = None, start: str = "weighted") -> TuneResult:
    """Tune the ``weighted`` policy's weights by simulation (CMA-ES on paired deals).

    Only the weights the expansion set and variant make matter are searched; the others
    keep the start's values.

    Parameters
    ----------
    games, seed : int
        Every candidate plays games 0..games-1 of ``seed``.
    evaluations : int
        Candidates weighed, at least 2.
    heldout_games : int
        The best weights then play the held-out games ``games .. games+heldout_games-1`` of
        the same seed beside greedy and the start, compared with McNemar's test.
    workers, cards, progress
        As for :func:`simulate`.
    expansions, variant
        The expansion set and variant the weights are tuned for (as for :func:`simulate`).
    out : path, optional
        A ``.toml`` file for the weights, with how they were made and how they fared; None
        (unlike ``urbion tune``, whose ``--out`` is weights.toml) writes no file, and the
        result's ``write(path)`` writes the same file later.
    start : str
        The weights the search starts from: ``weighted`` (the shipped file), ``greedy`` or
        ``weighted:FILE``.

    Returns
    -------
    TuneResult
        The weights found, their fitness and the held-out duel (``.heldout``).

    Raises
    ------
    UrbionError
        Bad input, before any game is played; RunStopped when interrupted.
    """
    from analyzer.analysis.tune import (
        check_searchable,
        start_weights,
        tune_weights,
        tuned_names,
        weighted_spec,
    )
    from analyzer.policies.weights import format_weights
    from analyzer.runner.progress import clearing_on_error, progress_bar

    games, seed, _ = arguments.game_counts(games, seed)
    heldout_games = arguments.whole_number("heldout_games", heldout_games, 1)
    if games + heldout_games - 1 > arguments.MAX_SEED:
        raise UrbionError(f"game numbers must stay below 2**63: --games {games} and "
                          f"--heldout-games {heldout_games} (games=, heldout_games= in "
                          "Python), the held-out games after the tuning ones, go past it")
    evaluations = arguments.whole_number("evaluations", evaluations, 2)
    workers = arguments.workers(workers)
    progress = arguments.flag("progress", progress)
    start = policy_label(arguments.text("start", start))  # "Weighted" as --policy takes it
    out = arguments.path("out", out)
    if out is not None:
        check_writable_weights(out)
        _check_not_an_input(out, {"--start": _weights_file(start), "--cards": cards},
                            "the tune")
    card_set = load_cards(cards, expansions, variant)
    begin = start_weights(start)
    check_searchable(begin, tuned_names(card_set))  # before the progress bar shows
    _prepare("fast", "greedy", card_set)
    bar = progress_bar(evaluations, progress, "tuning", "candidates")
    played: list[int] = []

    def one_more() -> None:
        played.append(1)
        bar.update(1)

    with clearing_on_error(bar), \
            _part_of(lambda: f"tuning, after {len(played)} of {evaluations} candidates"), \
            interrupts.holding():
        found = tune_weights(card_set, games, seed, evaluations, workers, one_more, begin)
    contenders: dict[str, str | PolicySpec] = {"greedy": "greedy", start: start,
                                               "tuned": weighted_spec(found.weights, card_set,
                                                                      "tuned")}
    heldout = _same_deals(contenders, card_set,
                          dict(games=heldout_games, seed=seed, first_game=games,
                               workers=workers, progress=progress),
                          lambda name, number: f"tuning, the held-out games of {name}")
    outcome = _tune_outcome(found, heldout, start, games, seed)
    outcome.file_text = format_weights(found.weights,
                                       tuning_notes(outcome, card_set, games, seed),
                                       _tuned_table(card_set, games, seed))
    if out is not None:
        try:
            outcome.write(out)
        except UrbionError as err:  # hours of tuning: the weights are kept
            raise OutputNotWritten(str(err), outcome, outcome.file_text) from None
    return outcome


def _tune_outcome(found: TuneOutcome, heldout: DuelResult, start: str, games: int,
                  seed: int) -> TuneResult:
    """A tune's result: the weights ``found`` by the search and how they fared on the
    ``heldout`` games against ``start``'s weights."""
    pairs = heldout.pairs
    against_start = pairs[(pairs["a"] == start) & (pairs["b"] == "tuned")].iloc[0]
    warning = tuning_warning(against_start, start) if found.improved else (
        f"no candidate did better than {start} on the tuning games: the weights found are "
        f"{start}'s own, unchanged")
    return TuneResult(found.weights, found.fitness, found.evaluations, heldout, start,
                      found.tuned, warning, found.improved,
                      not found.improved or against_start.b_only <= against_start.a_only,
                      games, seed)


def _tuned_table(card_set: CardSet, games: int, seed: int) -> dict:
    """The [tuned] table of a weights file tuned on ``games`` games of ``seed`` with
    ``card_set``: where its weights fit, and which deals they have seen."""
    return {"card_set": card_set.name, "card_set_sha256": card_set.digest,
            "expansions": list(card_set.expansion_names()),
            "variant": card_set.variant, "cards_sha256": cards_digest(card_set),
            "rules_version": RULES_VERSION, "seed": seed, "games": games,
            "cards_in_play_sha256": play_digest(card_set, ordered=False),
            "deals_sha256": play_digest(card_set, ordered=True)}


def _check_not_an_input(out: Path, inputs: dict[str, object], doing: str) -> None:
    """Refuse an ``out`` that is one of the files a command reads (``inputs``, by option),
    by any path to it: ``doing`` would replace what it reads."""
    for option, given in inputs.items():
        try:  # the same file by any path: a link, another spelling of its folder
            same = isinstance(given, str | Path) and os.path.samefile(given, out)
        except (OSError, ValueError):  # either file missing, or a path no file can have
            same = False
        if same:
            raise UrbionError(f"--out {out} is the {option} file ({option.strip('-')}= in "
                              f"Python): {doing} would replace what it reads; write to "
                              "another file")


def _weights_file(policy: object) -> str | None:
    """The weights file a policy reads by its name (``weighted:FILE``,
    ``search:weights=FILE``, given as a name or a PolicySpec), else None."""
    name = policy.name if isinstance(policy, PolicySpec) else policy
    return weights_file_of(name) if isinstance(name, str) else None


def tuning_warning(pair: pd.Series, start: str) -> str | None:
    """A warning when the tuned weights won significantly fewer held-out games than their
    start, no more, or more but not significantly so (McNemar p >= 0.05); None otherwise.
    ``pair``: the held-out pairs' row of ``start`` against ``tuned``."""
    gained, lost = int(pair.b_only), int(pair.a_only)
    # one comparison planned ahead: its own p, not the table's Holm p over every pair
    head = (f"the tuned weights won {gained} held-out deals that {start} lost and lost "
            f"{lost} that it won (McNemar p = {format_p(pair.mcnemar_p)}, unadjusted: the one "
            "comparison tuning plans)")
    if gained < lost and pair.mcnemar_p < 0.05:
        return f"{head}: they are significantly worse than {start}, which remains the one " \
            "to play"
    if gained <= lost:
        return f"{head}: they are no better than {start}, which remains the one to play"
    if pair.mcnemar_p >= 0.05:
        return (f"{head}: not a significant gain over {start}; more games or evaluations "
                "may tell")
    return None


def check_writable_weights(path: str | Path) -> Path:
    """Fail early when the weights file cannot be written."""
    from analyzer.atomic import check_writable as check_path

    return check_path(path, (".toml",))


def tuning_notes(outcome: TuneResult, card_set: CardSet, games: int, seed: int) -> list[str]:
    """The comment lines of a tuned weights file: how it was made and how it fared."""
    from analyzer.runner.config import package_commit, package_version

    table = outcome.heldout.policies
    heldout = int(table.loc["tuned", "games"])
    kept = [name for name in outcome.weights if name not in outcome.tuned]

    def rate(name: str) -> str:
        row = table.loc[name]
        return f"{name} {row.win_rate:.2%} ({row.ci_low:.2%}-{row.ci_high:.2%})"

    pairs = outcome.heldout.pairs
    # tuned against the start is the one comparison tuning plans; any other is one of the
    # duel's family, and gives its Holm p beside its own
    tests = [f"tuned against {row.a}: McNemar p = {format_p(row.mcnemar_p)}"
             + (" (the planned comparison)" if row.a == outcome.start else
                f", Holm p = {format_p(row.holm_p)} over the held-out duel's pairs")
             for row in pairs[pairs["b"] == "tuned"].itertuples()]
    lines = [
        "Weights of the `weighted` policy, written by `urbion tune` (docs/policies.md).",
        f"card set {card_set.name} (sha256 {card_set.digest[:12]}), expansions "
        f"{', '.join(card_set.expansion_names()) or 'none'}, the {card_set.variant} game; "
        f"tuned with CMA-ES from {outcome.start}'s weights on "
        f"games 0-{games - 1} of seed {seed}, {outcome.evaluations} candidates.",
        f"tuned: {', '.join(outcome.tuned)}; kept at {outcome.start}'s value (no game of "
        f"this set feels them): {', '.join(kept) or 'none'}.",
        f"held out: games {games}-{games + heldout - 1} of seed {seed}: "
        + ", ".join(rate(name) for name in table.index if name != "tuned")
        + f", {rate('tuned')}; " + "; ".join(tests) + ".",
    ]
    if outcome.warning:
        lines.append(f"warning: {outcome.warning}.")
    lines.append(f"urbion {package_version()}, commit {package_commit()}, rules "
                 f"{RULES_VERSION}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.")
    return lines + [""]


@_memory_in_one_line
def report(results: str | Path | pd.DataFrame
           | list[str | Path | pd.DataFrame] | tuple[str | Path | pd.DataFrame, ...],
           out: str | Path, baseline: str | None = "first") -> Path:
    """Write a balance report of one or more results files (``simulate --out``; one path or
    a list), frames ``simulate`` returned (checked as files are), or summary files of
    ``--summary-only`` runs (what their totals give), into the folder ``out``: index.html
    (self-contained), report.md, PNG and SVG charts, and each chart's numbers as a CSV
    file beside it.

    Parameters
    ----------
    baseline : {"first", "base"}, optional
        What each run's difference is taken from: the first run given (None: the same), or
        the base game among the runs that is played alike but for the expansions (the
        same policy, card set, variant, rules, code, seed and engine): several
        comparisons' results in one report, each set weighed against its own base game,
        and a set played against two base games tested for changing their odds of
        winning alike (``effects.csv``).

    Returns
    -------
    pathlib.Path
        The report folder.
    """
    from analyzer.reporting.build import BASELINES, write_report

    if isinstance(results, str | Path | pd.DataFrame):
        results = [results]
    if not isinstance(results, list | tuple):
        raise UrbionError("results must be a list of results files or frames, not "
                          f"{arguments.kind_of(results)}")
    paths = [item if isinstance(item, pd.DataFrame) else
             arguments.path("results file", item, optional=False) for item in results]
    folder = arguments.path("out", out, optional=False)
    baseline = "first" if baseline is None else \
        arguments.choice("baseline", baseline, BASELINES)
    try:
        return write_report(paths, folder, baseline)
    except KeyboardInterrupt as stop:
        raise _stopped_once_written(stop, folder, "the report") from None


#: The key of the baseline's games and cards in a :class:`SensitivityResult`.
BASELINE_KEY = ("baseline", "")


@dataclass
class SensitivityResult:
    """The baseline's summary (with its configuration, its level of each factor in
    ``baseline_levels`` and what the variants change besides their factor in
    ``side_effects``) and one row per card-set variant: win rate, its interval, and the
    change from the baseline with its interval; a variant not played has its reason in
    ``note``. ``runs``: each card set's games, as ``simulate`` returns them, the baseline's
    under ``("baseline", "")`` and each variant's played under its row's ``(factor,
    level)``; ``card_sets``: the card sets, keyed alike, to play further or write out
    (``write_card_template``). The table carries the baseline as its ``attrs``."""

    baseline: dict
    table: pd.DataFrame
    runs: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict, repr=False)
    card_sets: dict[tuple[str, str], CardSet] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        _named(self.table, self.baseline)

    def figure(self):
        """The effects with their intervals as a matplotlib Figure."""
        from analyzer.reporting.build import sensitivity_figure

        return sensitivity_figure(self.table, self.baseline)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` with a [tuned]
        table, plays the analysis (its variants are other cards than those the weights
        were tuned on), or its baseline plays a file's tuning games; None otherwise."""
        from analyzer.reporting.build import sensitivity_weights_note

        return sensitivity_weights_note(self.baseline)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        b = self.baseline
        lines = [f"baseline   {b['card_set']} (sha256 {b['card_set_sha256'][:12]}): "
                 f"{b['win_rate']:.2%} (95% Wilson interval {b['ci_low']:.2%} to "
                 f"{b['ci_high']:.2%}), policy {b['policy']}, expansions "
                 f"{', '.join(b.get('expansions') or []) or 'none'}, the "
                 f"{b.get('variant', 'solo')} game, {plural(b['games'], 'game')}, "
                 f"seed {b['seed']}", ""]
        width = max([58, *(len(level) for level in self.table.get("level", []))])
        lines += [f"{'factor':<16} {'level':<{width}} {'win rate':>9} "
                  f"{'change (95% paired)':>30} {'Holm p':>9}"]
        lines += [_sensitivity_line(r, width) for r in self.table.itertuples()]
        if len(self.table):
            lines += ["", *_sensitivity_notes(b, self.table)]
        return "\n".join(lines)


def _sensitivity_line(r: tuple, width: int) -> str:
    """One variant of the printed table (levels ``width`` wide): its figures, or why it
    was not played."""
    if not getattr(r, "played", True):
        return f"{r.factor:<16} {r.level:<{width}} {r.note}"
    change = (f"{signed_pp(r.effect)} pp ({signed_pp(r.effect_low)} to "
              f"{signed_pp(r.effect_high)})")
    return (f"{r.factor:<16} {r.level:<{width}} {r.win_rate:>9.2%} {change:>30} "
            f"{format_p(r.holm_p):>9}")


def _sensitivity_notes(baseline: dict, table: pd.DataFrame) -> list[str]:
    """Under the printed table: Holm's p, the baseline's levels, what else a factor moves."""
    from analyzer.analysis.sensitivity import (
        BASELINE_LEVELS,
        baseline_label,
        baseline_side_effects,
        level_heading,
        played_mask,
        variants_family,
    )

    played = int(played_mask(table).sum())
    label = baseline_label(baseline["card_set"], baseline["card_set_sha256"])
    # a baseline summary without them (one built by hand) is the shipped set's
    levels = baseline.get("baseline_levels", BASELINE_LEVELS)
    side_effects = baseline_side_effects(baseline)
    heading = level_heading(label, "levels")
    lines = [f"{heading[0].upper()}{heading[1:]}: "
             + "; ".join(f"{factor} {level}" for factor, level in levels.items())]
    if played:
        lines.insert(0, f"Holm p: McNemar's exact p adjusted over "
                        f"{variants_family(table)}; a variant moves the win rate "
                        "(for this policy), with the family error held at 5%, when its Holm p "
                        "is below 0.05 (the intervals are not adjusted). " + EDGE_NOTE)
    return lines + ([side_effects] if side_effects else [])


@_memory_in_one_line
def sensitivity(games: int = 20_000, seed: int = 0, policy: str | PolicySpec = "greedy",
                workers: int | None = None, out: str | Path | None = None,
                progress: bool = False, expansions: Expansions = None,
                variant: str | None = None, cards: Cards = None,
                scheduler: str | None = None, resume: bool = False) -> SensitivityResult:
    """How the win rate moves when the card set moves away from a baseline: the shipped R14
    set, the card file ``cards``, or a loaded set (docs/sensitivity.md).

    Plays games 0..games-1 of ``seed`` with the baseline set and with each variant of it
    (``analysis.sensitivity.variants_of``: each element's Incubi narrowed and widened with
    their count and total kept, Chaos influence one step and Chaos
    count two cards either side of the baseline's (R14: ±4/±6, 6/10), the deck one card of
    each kind per element smaller and larger). A variant whose
    cards are the baseline's own, or that the card-set check refuses, is not played: its
    row says why.

    Parameters
    ----------
    games, seed : int
        The games every card set plays: 0..games-1 of batch ``seed``.
    policy, workers, progress
        As for :func:`simulate`.
    cards : path, CardSet or DataFrame, optional
        The baseline, as for :func:`simulate`; default the R14 set.
    expansions, variant
        The expansion set and game variant every card set is played with (default the solo
        base game, or a loaded set's own).
    out : path, optional
        A folder for sensitivity.csv, .md and the chart. Each card set's games are then kept
        as they finish in a hidden folder beside it (``.NAME.sensitivity-partial``), removed
        once the report is written.
    scheduler : str, optional
        A Dask cluster (or ``local:N``) that plays every card set's games, as for
        :func:`simulate`.
    resume : bool
        Continue an interrupted run with ``out`` from its hidden folder.

    Returns
    -------
    SensitivityResult
        The baseline's summary and one row per variant: its win rate and the change from
        the baseline, each with its interval.

    Raises
    ------
    UrbionError
        Bad input, before any game is played: bad counts, an unknown policy, an unwritable
        ``out``, a card file that cannot be read or is not a valid card set, an expansion
        the file has no cards for; RunStopped when interrupted.
    """
    from analyzer.analysis.sensitivity import (
        NotPlayed,
        baseline_label,
        effect_table,
        plan_variants,
    )

    games, seed, _ = arguments.game_counts(games, seed)
    workers, scheduler = _executors(workers, scheduler)
    spec = _policy(policy)  # an unknown policy is refused before any game is played
    resume = arguments.flag("resume", resume)
    out = arguments.path("out", out)
    if out is not None:
        from analyzer.reporting.build import check_destination

        check_destination(Path(out), "sensitivity")
    elif resume:
        raise UrbionError("--resume needs --out (resume=True needs out= in Python): the "
                          "finished card sets are kept beside it")
    base_set, data = _sensitivity_baseline(cards)
    if isinstance(cards, CardSet):  # every card set played as the loaded one is, by default
        if expansions is None:
            expansions = cards.expansion_names() or "none"
        if variant is None:
            variant = cards.variant
    load_cards(base_set, expansions, variant)  # an expansion the file lacks, before playing
    label = baseline_label(base_set.name, base_set.digest)
    plan = plan_variants(base_set, data, label)
    work = _sensitivity_work(out, resume, games, len(plan)) if out is not None else None
    settings = dict(games=games, seed=seed, workers=workers, progress=progress,
                    expansions=expansions, variant=variant, scheduler=scheduler)
    try:
        with _shared_cluster(scheduler) as cluster:
            base, runs = _play_sensitivity(base_set, plan, spec,
                                           {**settings, "scheduler": cluster}, work, resume)
    except BaseException as err:
        if work is not None and not any((work / "results").iterdir()):
            shutil.rmtree(work, ignore_errors=True)  # nothing to resume: run it anew
        if isinstance(err, RunStopped):
            raise _with_finished_sets(err, work, "card sets") from None
        raise
    try:
        baseline = _sensitivity_summary(base, data, label, runs)
        played = {(v.factor, v.level): run for v, run in runs.items()
                  if not isinstance(run, NotPlayed)}
        card_sets = {BASELINE_KEY: base_set, **{(v.factor, v.level): card_set
                                                for v, card_set in plan.items()
                                                if (v.factor, v.level) in played}}
        result = SensitivityResult(
            baseline, effect_table(base, runs, baseline["baseline_levels"]),
            {BASELINE_KEY: base, **played},
            # as they were played: with the expansions and variant of the analysis
            {key: load_cards(card_set, expansions, variant)
             for key, card_set in card_sets.items()})
        if out is not None:
            from analyzer.cards.writer import card_file_text
            from analyzer.reporting.build import write_sensitivity

            write_sensitivity(result.table, baseline, out, card_file_text(base_set))
    except KeyboardInterrupt as stop:
        if work is None:
            raise
        if SET_WRITTEN in getattr(stop, "__notes__", ()):
            shutil.rmtree(work, ignore_errors=True)
            raise _stopped_once_written(stop, out, "the report") from None
        raise RunStopped(f"{interrupts.stop_word()} while writing the report: every card "
                         f"set's games stay in {work}, and {out} as it was; run the same "
                         "command with --resume (resume=True in Python) to write it",
                         True) from None
    if work is not None:
        shutil.rmtree(work, ignore_errors=True)  # the report holds what it was kept for
    return result


def _joined_software(configs: list[dict]) -> str:
    """The software of the runs of one table (a resumed run's parts may have been played
    under other versions): each distinct one, as recorded."""
    return "; ".join(dict.fromkeys(str(c["software"]) for c in configs if c.get("software")))


def _stopped_once_written(stop: KeyboardInterrupt, folder: Path, what: str) -> BaseException:
    """A stop while ``what`` was written into ``folder``: once the folder was in place
    (noted ``SET_WRITTEN``), a stop that says it is whole; else the stop itself."""
    if SET_WRITTEN not in getattr(stop, "__notes__", ()):
        return stop
    return RunStopped(f"{interrupts.stop_word()} as {what} was written: it is whole in "
                      f"{folder}", True)


def _sensitivity_work(out: Path, resume: bool, games: int, variants: int) -> Path:
    """The hidden folder beside ``out`` where each card set's games are kept as they finish:
    made for a new run, found (and its files checked) for ``resume``."""
    from analyzer.reporting.build import folder_mark

    work = out.with_name(f".{out.name}.sensitivity-partial")
    if resume:
        if not work.is_dir() and folder_mark(out) == "sensitivity":
            raise UrbionError(f"nothing to resume: the analysis in {out} is whole, with no "
                              f"{work} of card sets beside it; without --resume it is made "
                              "again")
        if not work.is_dir():
            raise UrbionError(f"nothing to resume: {work} does not exist")
        labels = _sensitivity_labels(variants)
        for path in (work / "results").glob("*.parquet*"):
            _check_batch(path, games, labels, "sensitivity run", "--cards (cards=)")
        return work
    if work.exists():
        raise UrbionError(f"{work} holds an interrupted sensitivity run: add --resume "
                          "(resume=True in Python) to continue it, or delete the folder")
    try:
        (work / "results").mkdir(parents=True)
    except OSError as err:
        raise UrbionError(f"cannot create {work}: {err.strerror or err}") from None
    return work


def _sensitivity_labels(variants: int) -> list[str]:
    """The names of the baseline's and each variant's results files, in plan order."""
    return ["baseline", *(f"variant-{k + 1:02d}" for k in range(variants))]


def _sensitivity_baseline(cards: Cards) -> tuple[CardSet, dict]:
    """The card set the variants change, and its data: the shipped set for None, else
    the card file ``cards`` (checked as ``simulate`` checks it) or the loaded set."""
    from analyzer.analysis.results_io import card_file_data
    from analyzer.cards.loader import default_card_data

    if isinstance(cards, pd.DataFrame):
        cards = load_cards(cards)
    if isinstance(cards, CardSet):
        from analyzer.cards.writer import card_file_text

        # the variants edit a card file's data: the set's own file while it still loads
        # into these cards (it keeps what no card shows, as the value of a Chaos not
        # dealt), else the file that loads into them
        cards.checked()
        source = Path(cards.source)
        if source.suffix.lower() == ".toml" and source.is_file():
            try:
                loaded, data = card_file_data(source)
            except UrbionError:
                loaded = None
            if loaded is not None and loaded.digest == cards.digest:
                return cards, data
        return cards, tomllib.loads(card_file_text(cards))
    path = arguments.path("cards", cards, kinds=CARDS_KINDS)
    if path is None or names_shipped_set(path):
        return default_card_set(), default_card_data()
    return card_file_data(path)  # a run's cards as the card file that loads into them


def _play_sensitivity(base_set: CardSet, plan: dict, spec: PolicySpec, settings: dict,
                      work: Path | None, resume: bool) -> tuple[pd.DataFrame, dict]:
    """The baseline's games, and each variant's games (or why it is not played): played,
    or with ``resume`` read back from ``work`` where an earlier run finished them."""
    from analyzer.analysis.sensitivity import NotPlayed

    sets = 1 + sum(not isinstance(one, NotPlayed) for one in plan.values())
    labels = _sensitivity_labels(len(plan))

    def play(cards: CardSet, label: str) -> pd.DataFrame:
        card_set = load_cards(cards, settings["expansions"], settings["variant"])
        return _compare_batch(card_set, spec.for_cards(card_set), settings["seed"], 0,
                              settings["games"], settings["workers"], settings["scheduler"],
                              settings["progress"], work, label, resume)

    with _part_of(f"sensitivity, card set 1 of {sets} (the baseline)"):
        base = play(base_set, labels[0])
    runs = {}
    number = 1
    for (change, planned), label in zip(plan.items(), labels[1:], strict=True):
        if isinstance(planned, NotPlayed):
            runs[change] = planned
            continue
        number += 1
        with _part_of(f"sensitivity, card set {number} of {sets} ({change.factor} "
                      f"{change.level})"):
            runs[change] = play(planned, label)
    return base, runs


def _sensitivity_summary(base: pd.DataFrame, data: dict, label: str, runs: dict) -> dict:
    """The baseline's summary and configuration, with its level of each factor and what
    the variants played change besides their factor."""
    from analyzer.analysis.sensitivity import NotPlayed, baseline_levels, side_effects

    played = [change for change, run in runs.items() if not isinstance(run, NotPlayed)]
    return {**summarize(base), **{k: base.attrs[k] for k in
                                  ("card_set", "card_set_sha256", "card_set_source",
                                   "policy", "policy_params_sha256", "seed", "expansions",
                                   "variant", "rules_version", "package_version")},
            "engine_source": base.attrs.get("engine_source", ""),
            "software": _joined_software([base.attrs, *(run.attrs for run in runs.values()
                                                        if not isinstance(run, NotPlayed))]),
            "policy_source_sha256": base.attrs.get("policy_source_sha256", ""),
            **({"policy_tuned_for": base.attrs["policy_tuned_for"]}
               if "policy_tuned_for" in base.attrs else {}),
            "commit": joined_commit([base.attrs, *(run.attrs for run in runs.values()
                                                  if not isinstance(run, NotPlayed))]),
            "baseline_levels": baseline_levels(data),
            "side_effects": side_effects(data, label, played)}


#: The most games :func:`trace` holds in memory at once (about 85 kB a base game);
#: :func:`trace_to_file` writes any number.
MAX_TRACES_HELD = 20_000


@_memory_in_one_line
def trace(seed: int = 0, game: int = 0, games: int = 1, policy: str | PolicySpec = "greedy",
          cards: Cards = None, engine: str = "fast",
          out: str | Path | None = None, expansions: Expansions = None,
          variant: str | None = None, progress: bool = False) -> list[dict]:
    """Traces of games ``game .. game + games - 1`` of batch ``seed``, at most
    ``MAX_TRACES_HELD`` (every trace is held in memory; :func:`trace_to_file` writes more).

    Parameters
    ----------
    seed, game, games, policy, cards, engine, expansions, variant
        As for :func:`simulate`; ``game`` is the first game traced.
    out : path, optional
        JSON Lines file (``.jsonl``) to write the traces to, or a ``.json`` file for a
        single trace (checked before playing).
    progress : bool
        A progress bar on stderr, counting games traced.

    Returns
    -------
    list of dict
        One ``urbion-trace/1`` trace per game (../shared/TRACE.md).
    """
    games = arguments.whole_number("games", games, 1)
    if games > MAX_TRACES_HELD:
        raise UrbionError(f"games={games:,}: trace holds every trace in memory (about 85 kB a "
                          f"game), so at most {MAX_TRACES_HELD:,} at once; trace_to_file (the "
                          "CLI's urbion trace) writes any number to a file as they are played")
    traced = _traced_games(seed, game, games, policy, cards, engine, out, expansions, variant,
                           progress)
    traces = list(traced)
    if out is not None:
        write_traces(traces, out)
    return traces


@_memory_in_one_line
def trace_to_file(out: str | Path, seed: int = 0, game: int = 0, games: int = 1,
                  policy: str | PolicySpec = "greedy",
                  cards: Cards = None, engine: str = "fast",
                  expansions: Expansions = None, variant: str | None = None,
                  progress: bool = False) -> int:
    """Write the traces of :func:`trace` to ``out`` (JSON Lines) as each game is played,
    so that memory stays flat however many games; the file appears whole at the end, or
    not at all (``urbion trace``).

    Parameters
    ----------
    out : path
        The ``.jsonl`` file to write.
    seed, game, games : int
        Games ``game`` .. ``game+games-1`` of batch ``seed``.
    policy, cards, engine, expansions, variant, progress
        As for :func:`trace`.

    Returns
    -------
    int
        The number of traces written.
    """
    out = arguments.path("out", out, optional=False)
    games = arguments.whole_number("games", games, 1)
    traced = _traced_games(seed, game, games, policy, cards, engine, out, expansions, variant,
                           progress)
    with interrupts.holding():  # a stop while a trace is written stops as one in a game
        try:
            first = next(traced)  # checks and compiles before a file is opened
            write_trace_stream(itertools.chain([first], traced), out, games)
        finally:
            traced.close()  # its own hold ends now, not when the error is let go
    return games


#: The fewest bytes a game's trace takes (a base game's is about 14 KB, a team game's with
#: every expansion about 33 KB): what a run of traces needs at least.
TRACE_BYTES_AT_LEAST = 8_000


def _check_trace_room(out: Path, games: int) -> None:
    """Refuse traces that cannot fit on the disk of ``out``, before hours of writing fill
    it: ``games`` traces of at least :data:`TRACE_BYTES_AT_LEAST` bytes each."""
    try:
        free = shutil.disk_usage(out.parent).free
    except OSError:  # a system that does not say: the write itself will tell
        return
    need = games * TRACE_BYTES_AT_LEAST
    if need > free:
        raise UrbionError(f"{games:,} traces take at least {_bytes(need)} (about "
                          f"{TRACE_BYTES_AT_LEAST // 1000} KB a game or more), more than "
                          f"the {_bytes(free)} free for {out}: trace fewer games")


def _bytes(count: int) -> str:
    """A size in words, in the largest of KB, MB and GB that it reaches once rounded."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if round(count / scale, 1) >= 1:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 1e3:,.1f} KB"


def _traced_games(seed: int, game: int, games: int, policy: str | PolicySpec, cards,
                  engine: str, out: Path | str | None, expansions: Expansions,
                  variant: str | None, progress: bool) -> Iterator[dict]:
    """The traces of :func:`trace`, one by one, each with its provenance; the arguments
    are checked (and ``out`` with them) before the first is played."""
    from analyzer.runner.progress import clearing_on_error, progress_bar

    games, seed, game = arguments.game_counts(games, seed, game, "game")
    progress = arguments.flag("progress", progress)
    engine = _engine(engine)
    card_set, spec = _prepare(engine, policy, cards, expansions, variant)
    out = arguments.path("out", out)
    if out is not None:
        check_trace_path(out, games)
        _check_trace_room(out, games)
        _check_not_an_input(out, {"--cards": cards, "--policy": _weights_file(policy)},
                            "the trace")
    provenance = _trace_provenance(card_set, spec, seed, games, game, engine)

    def one(g: int) -> dict:
        if engine != "fast":  # names the game a policy raises in itself
            played = run_reference(card_set, spec, seed, 1, g, variant=card_set.variant)[0]
            return _with_provenance(played, provenance)
        try:
            return _with_provenance(fast_trace(card_set, spec, seed, g), provenance)
        except Exception as err:
            from analyzer.policies.loader import game_note

            err.add_note(game_note(seed, g))  # read only if the policy raised it
            raise

    try:
        with interrupts.holding():
            yield one(game)  # the first compiles the engine: the bar counts games only
            with clearing_on_error(progress_bar(games, progress and games > 1, "tracing",
                                                initial=1)) as bar:
                for g in range(game + 1, game + games):
                    yield one(g)
                    bar.update(1)
    except Exception as err:
        _raise_if_the_policy_raised(spec, err)
        raise


#: Keys a trace adds to TRACE.md's header (an extension by added keys): which engine,
#: card set content, policy version and rules made it, as a results file records them.
TRACE_PROVENANCE = ("engine", "card_set_sha256", "policy_params_sha256",
                    "policy_source_sha256", "rules_version", "package_version", "commit")


def _trace_provenance(card_set: CardSet, spec: PolicySpec, seed: int, games: int,
                      game: int, engine: str) -> dict:
    """The ``TRACE_PROVENANCE`` values of traced games (the source hash only for a
    user's policy)."""
    config = RunPlan.for_policy(card_set, spec, seed, games, game, engine).config()
    return {key: config[key] for key in TRACE_PROVENANCE if key in config}


def _with_provenance(one: dict, provenance: dict) -> dict:
    """``one`` with ``provenance`` after its ``card_set`` key, the header's last name."""
    keys = list(one)
    cut = keys.index("card_set") + 1
    return {**{key: one[key] for key in keys[:cut]}, **provenance,
            **{key: one[key] for key in keys[cut:]}}


@_memory_in_one_line
def show(seed: int | None = None, game: int | None = None,
         policy: str | PolicySpec | None = None, cards: Cards = None,
         expansions: Expansions = None, variant: str | None = None,
         trace_file: str | Path | dict | None = None, won: bool = False,
         progress: bool = False) -> str:
    """One game as text a player can follow, turn by turn.

    Parameters
    ----------
    seed, game : int, optional
        Game ``game`` of batch ``seed`` (default 0 and 0).
    policy : str or PolicySpec, optional
        Default greedy; as for :func:`simulate`.
    cards, expansions, variant
        As for :func:`simulate`.
    trace_file : path or dict, optional
        Show a trace of this file (``urbion trace --out``) instead of playing the game,
        replayed against the rules: the one of game ``game`` (and of seed ``seed``, when
        given; an error when the file holds that game of several seeds and none is given),
        or the file's first trace; or one trace as a dict, as :func:`trace` returns it.
        ``policy``, ``cards``, ``expansions`` and ``variant`` do not apply then: the trace
        holds them.
    won : bool
        Show the first game the policy wins from ``game`` on instead, looked for among the
        next :data:`WON_SEARCH_GAMES` games (an error when none of them is won).
    progress : bool
        With ``won``, a progress bar on stderr.

    Returns
    -------
    str
        Each turn's decisions, then every row (city, elements, both sides, total), the hand
        with the cards drawn, and the counters; at the end the result and how the game
        went (``analyzer.trace.summary``).
    """
    from analyzer.trace.show import render_trace

    won = arguments.flag("won", won)
    progress = arguments.flag("progress", progress)
    if trace_file is None:
        _, seed, game = arguments.game_counts(1, 0 if seed is None else seed,
                                              0 if game is None else game, "game")
        # prepared once: a user's policy compiles as it loads
        card_set, spec = _prepare("fast", "greedy" if policy is None else policy, cards,
                                  expansions, variant)
        note = ""
        if won:
            first, game = game, _first_won(seed, game, spec, card_set, progress)
            note = (f"Game {game} is the first of seed {seed} from game {first} that "
                    f"{spec.name} wins.\n\n")
        text = note + render_trace(trace(seed, game, 1, spec, card_set)[0])
        weights = run_weights_note(RunPlan.for_policy(card_set, spec, seed, 1, game,
                                                      "fast").config())
        return text + (f"\n{weights}" if weights else "")
    if won:
        raise UrbionError(f"{arguments.option('won')}: not for a trace file, whose game is "
                          "chosen by seed and game")
    given = [name for name, value in (("policy", policy), ("cards", cards),
                                      ("expansions", expansions), ("variant", variant))
             if value is not None]
    if given:
        raise UrbionError(f"{', '.join(arguments.option(name) for name in given)}: not for a "
                          "trace file, whose trace names its own")
    if isinstance(trace_file, dict):  # a trace as trace() returns it
        if seed is not None or game is not None:
            raise UrbionError(f"{arguments.option('seed')}, {arguments.option('game')}: not "
                              "for one trace given as a dict, which is the one game shown")
        return _shown_trace(trace_file, None)
    return _show_trace_file(arguments.path("trace_file", trace_file, optional=False),
                            None if seed is None else arguments.whole_number("seed", seed),
                            None if game is None else arguments.whole_number("game", game))


#: How many games ``show(won=True)`` plays at most to find a game won.
WON_SEARCH_GAMES = 200_000


def _first_won(seed: int, game: int, policy: PolicySpec, cards: CardSet,
               progress: bool) -> int:
    """The first game from ``game`` on that ``policy`` wins, in batches of games growing
    fourfold from 2,000, or from a chunk of a search policy, whose games are dear."""
    from analyzer.runner.plan import default_chunk

    batch, start = min(2_000, default_chunk(policy)), game
    end = min(game + WON_SEARCH_GAMES, arguments.MAX_SEED + 1)
    while start < end:
        size = min(batch, end - start)
        try:
            df = simulate(games=size, seed=seed, first_game=start, policy=policy, cards=cards,
                          progress=progress)
        except RunStopped as stop:  # its count was of the batch, not of the search
            if not stop.interrupted:
                raise
            raise RunStopped(f"{interrupts.stop_word()} while looking for a game won, "
                             f"{plural(start - game, 'game')} of seed {seed} from game "
                             f"{game:,} played without a win", True) from None
        wins = df.loc[df["won"], "game"]
        if len(wins):
            return int(wins.min())
        start, batch = start + size, batch * 4
    raise UrbionError(f"--won (won=): {policy.name} wins none of games {game:,} to "
                      f"{end - 1:,} of seed {seed}")


def _show_trace_file(path: Path, seed: int | None, game: int | None) -> str:
    from analyzer.trace.jsonl import chosen_trace

    line, chosen = chosen_trace(path, seed, game)
    return _shown_trace(chosen, f"{path}, line {line}")


def _shown_trace(chosen: dict, where: str | None) -> str:
    """A trace (``where`` names its file and line in an error; None: a dict) as ``show``
    prints it, replayed against the rules first, with a note where it is not the game it
    names."""
    from analyzer.reference.replay import ReplayError, replay
    from analyzer.trace.show import render_trace

    try:
        # rendered only once known to be a whole, legal game
        result = replay(chosen, check_deal=True)
    except ReplayError as err:
        if where is None:  # a trace given as a dict, in Python
            raise UrbionError(f"the trace does not replay ({err})") from None
        raise UrbionError(f"{where}: the trace does not replay ({err}); "
                          "`urbion replay` checks every trace of a file") from None
    text = render_trace(chosen)
    if result["cards_of_set"] is False:
        text = (f"Note: this trace names the card set {chosen['card_set']}, but its cards "
                "table or card-set hash is another set's: an edited trace; the game was "
                "checked against the cards it lists.\n\n" + text)
    if not result["rules_as_named"]:
        text = (f"Note: this trace names the rules {chosen['rules_version']}; it was "
                f"checked against {RULES_VERSION}.\n\n" + text)
    if not result["deal_of_seed"]:
        text = (f"Note: the shuffles of this trace are not those of game {chosen['game']} of "
                f"seed {chosen['seed']}, as it says: an edited or hand-built trace, whose "
                "rules were checked, not its seed and game.\n\n" + text)
    return text


@_memory_in_one_line
def replay(traces: str | Path | list[dict] | dict,
           cards: Cards = None) -> pd.DataFrame:
    """Check traces against the rules: each is replayed decision by decision by the
    reference replayer, whichever engine (or hand) wrote it.

    Parameters
    ----------
    traces : path, dict or list of dict
        A trace file (``urbion trace --out``), one trace, or a list (or tuple) of traces.
    cards : path, CardSet or DataFrame, optional
        A card-set file every trace's cards (and card-set name and hash) are checked
        against. Without it a trace naming the shipped R14 set is checked against R14, and
        a trace of another set is replayed with the cards it lists (``cards_of_set`` None).

    Returns
    -------
    pandas.DataFrame
        One row per trace (analysis.audit.COLUMNS): its line in the file (its position for
        a list), seed, game, ``replays`` and, for a trace that does not, the ``error``
        naming the log entry and what is wrong; the replayed outcome, reason and turns;
        ``deal_of_seed`` and ``cards_of_set``, whether its shuffles are those of the game
        it names and its cards those of the R14 set when it names it (None: another set),
        or those of ``cards`` (cards, name and hash); ``cards_alike``, with ``cards``,
        whether it holds those cards whatever set it names (a renamed copy: True);
        ``rules_as_named``, whether it names the rules this version plays (or none);
        ``passes_strict``, what ``urbion replay --strict`` asks (it
        replays, and is found to be no other game than the one it names).
        ``attrs["source"]`` names the file, ``attrs["card_set"]`` the set of ``cards``.
    """
    from analyzer.analysis.audit import audit
    from analyzer.trace.jsonl import TraceLine, read_traces

    if isinstance(traces, dict):
        traces = [traces]
    if isinstance(traces, list | tuple) and any(isinstance(t, str | Path) for t in traces):
        raise UrbionError("replay takes one trace file, or traces (dicts): a list holds "
                          "traces as dicts, not file names or text; replay each file in turn")
    if isinstance(traces, list | tuple) and not traces:
        # as a file that holds none: every trace of none replays, which passes for a check
        raise UrbionError("replay: the list holds no trace")
    if isinstance(traces, list | tuple):
        items = [TraceLine(number, item, None) for number, item in enumerate(traces, start=1)]
        source = f"{len(traces)} trace(s)"
    else:
        path = arguments.path("traces", traces, optional=False)
        with interrupts.holding():
            items, source = read_traces(path), str(path)
    card_set = None if cards is None else load_cards(cards)
    with interrupts.holding():  # a stop is a RunStopped, as in every other call
        df = audit(items, card_set)
    df.attrs = {"source": source}
    if card_set is not None:
        df.attrs["card_set"] = card_set.name
    return df


@dataclass
class CompareResult:
    """Expansion sets on games paired by number: ``table`` (one row per set, the base game first;
    analysis.compare.compare_table), ``interactions`` (one row per pair of expansions: the
    pair effect minus the single effects, with its interval; analysis.compare.interactions),
    ``runs`` (the per-game results of each set) and ``attrs`` (the shared configuration,
    which both tables also carry as their own ``attrs``)."""

    table: pd.DataFrame
    interactions: pd.DataFrame
    runs: dict[str, pd.DataFrame]
    attrs: dict

    def __post_init__(self) -> None:
        self.name_tables()

    def name_tables(self) -> None:
        """Give both tables a copy of ``attrs`` (again, once ``attrs`` changed)."""
        _named(self.table, self.attrs)
        _named(self.interactions, self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` with a [tuned]
        table, plays sets where its weights were not tuned (each expansion set would need
        its own tune), or a set plays a file's tuning games; None otherwise."""
        notes = [shipped_weights_note([self.attrs["policy"]],
                                      not all(plays_r14_cards(run.attrs)
                                              for run in self.runs.values()),
                                      [s for s in self.attrs["sets"] if s != "base"],
                                      self.attrs.get("variant", "solo"), per_set=True),
                 tuned_runs_note({label: run.attrs for label, run in self.runs.items()},
                                 "set", "`urbion tune --expansions SET` for each set (with "
                                 "the same --cards and --variant)")]
        return joined_notes(notes)

    def __str__(self) -> str:
        from analyzer.analysis.compare import (
            books_unplayed,
            books_unplayed_note,
            format_compare,
            format_interactions,
        )

        books = books_unplayed_note(self.runs)
        pairs = format_interactions(self.interactions)
        return format_compare(self.table, self.attrs, books_unplayed(self.runs)) + \
            (f"\n\n{books}" if books else "") + (f"\n\n{pairs}" if pairs else "")

    def figures(self) -> dict:
        """The comparison's charts as matplotlib Figures, by file stem."""
        from analyzer.analysis.compare import (
            BASE,
            chart_members,
            chart_table,
            set_title,
            titled_interactions,
        )
        from analyzer.reporting import charts

        shown, members = chart_table(self.table), chart_members(self.table)
        figures = {"win_rates": charts.win_rates(shown, set_title(BASE), members),
                   "differences": charts.differences(shown.drop(index=set_title(BASE)),
                                                     members)}
        if len(self.interactions):
            figures["interactions"] = charts.interactions(titled_interactions(self.interactions))
        source = charts.source_line(self.attrs)
        notes = self.chart_notes(list(figures))
        return {stem: charts.caption(fig, "\n".join([source, *notes[stem]]))
                for stem, fig in figures.items()}

    def chart_notes(self, stems: list[str], books: bool = True) -> dict[str, list[str]]:
        """What each chart of ``stems`` says under it besides its source, by stem: the
        mark of a set stopped at max-games where it names one, the uneven numbers of games
        under the win rates and the changes, and with ``books`` the sets that kept no Book;
        the pages' captions say the others too."""
        from analyzer.analysis.compare import (
            BASE,
            books_chart_note,
            imprecise_note,
            set_title,
            uneven_games_note,
            uneven_pairs_note,
        )
        from analyzer.reporting import charts

        # the sets each chart names: one that marks a set stopped at max-games explains
        # the mark, as the table does
        named = {"win_rates": self.table, "differences": self.table.drop(index=BASE)}
        books = books_chart_note({set_title(label): run for label, run in self.runs.items()}) \
            if books else ""
        uneven = {"win_rates": uneven_games_note(self.table),
                  "differences": uneven_pairs_note(self.table)}
        return {stem: [*([imprecise_note(self.attrs)] if stem in named and
                         charts.marks_imprecise(named[stem]) else []),
                       *([uneven[stem]] if uneven.get(stem) else []),
                       *([books] if books else [])] for stem in stems}


#: The most games a set of ``compare(precision=...)`` plays unless told otherwise.
DEFAULT_MAX_GAMES = 1_000_000


@_memory_in_one_line
def compare(sets: str | list[str] = "singles", games: int = 10_000, seed: int = 0,
            policy: str | PolicySpec = "greedy", workers: int | None = None,
            cards: Cards = None, out: str | Path | None = None,
            resume: bool = False, precision: float | None = None,
            max_games: int | None = None, scheduler: str | None = None,
            progress: bool = False, variant: str | None = None,
            against: Cards = None) -> CompareResult | CardChangeResult:
    """Play expansion sets on the same games of a seed (paired by number; an expansion's
    cards make them other deals) and compare each with the base game; with ``against``,
    play every set with two card sets and give what ``cards`` changes from ``against`` in
    each set.

    Parameters
    ----------
    sets : str or list of str
        ``singles`` (the base game and each expansion alone), ``pairs`` (and every pair),
        ``all`` (every combination), or a comma-separated list (or a list) of sets, each
        ``base`` or expansion names joined by ``+``.
    games : int
        Games per set: games 0..games-1 of ``seed`` for every set (common random numbers).
        With ``precision``, the size of each added batch.
    precision : float, optional
        Keep adding batches of ``games`` (the next games of the seed) to each set until the
        half-widths of its 95% interval and of its difference to the base game's (with
        ``against``: of its change and of that change's departure from the base game's)
        are at most this, or it has ``max_games`` (default 1,000,000, or ``games`` when more;
        given only with ``precision``); the base game plays as long as any set does.
    out : path, optional
        Folder for the results of every set (``results/``, Parquet, written as each batch
        finishes) and the comparison (compare.csv, interactions.csv, compare.md,
        index.html, PNG and SVG charts). With ``resume``, finished batches are read back
        and an interrupted one continues (docs/scaling.md).
    against : path, CardSet or DataFrame, optional
        A second card set (or ``"r14"``, the shipped one), played on every set's games as
        ``cards`` is: the result is then a :class:`CardChangeResult`, the change that
        ``cards`` makes from it in each set, and whether that change differs from the base
        game's (docs/compare.md). ``out`` then holds a comparison's folder for each card
        set (``cards/``, ``against/``) and the change's pages. With ``precision``, a set
        plays until the half-widths of its change's interval and of that change's
        departure from the base game's are at most ``precision`` (or ``max_games``).
    policy, workers, cards, scheduler, progress, variant
        As for :func:`simulate`.

    Returns
    -------
    CompareResult, or CardChangeResult with ``against``
    """
    games, seed, _ = arguments.game_counts(games, seed)
    precision, max_games = _compare_stopping(precision, max_games, games)
    workers, scheduler = _executors(workers, scheduler)
    resume = arguments.flag("resume", resume)
    out = arguments.path("out", out)
    if resume and out is None:
        raise UrbionError("--resume needs --out (resume=True needs out= in Python): the "
                          "finished batches are kept there")
    base_cards = load_cards(cards, variant=variant)
    if against is not None:
        return _compare_card_change(sets, games, seed, policy, base_cards,
                                    _against_cards(against, variant), out, resume,
                                    (precision, max_games),
                                    dict(workers=workers, progress=progress), scheduler)
    card_sets = _compare_card_sets(sets, base_cards)
    _, spec = _prepare("fast", policy, base_cards)
    if scheduler is not None:  # refused before the folder is made, as by simulate
        check_by_name(spec, base_cards)
    made = out is not None and not Path(out).exists()
    folder = _compare_folder(out, resume, games, list(card_sets)) \
        if out is not None else None
    try:
        with _shared_cluster(scheduler) as cluster:
            parts = _play_compare(card_sets, spec, seed, games, precision, max_games,
                                  dict(workers=workers, scheduler=cluster, progress=progress,
                                       folder=folder, resume=resume))
    except RunStopped as err:
        if folder is not None:
            _unmake_if_unused(folder, made)
        raise _with_finished_sets(err, folder) from None
    except BaseException:
        if folder is not None:
            _unmake_if_unused(folder, made)
        raise
    if folder is not None and resume:
        _check_every_batch_used(folder, parts, games)
    try:
        result = _compare_result(parts, games, precision, max_games)
    except KeyboardInterrupt as err:
        if folder is None:
            raise
        raise _pages_not_written(err, folder, "while the comparison was worked out") \
            from None
    if folder is not None:
        _write_compare_pages(result, folder, base_cards)
    return result


def _check_every_batch_used(folder: Path, parts: dict[str, list[pd.DataFrame]],
                            games: int) -> None:
    """Refuse to rewrite a resumed comparison's pages from fewer games than its folder
    holds: a ``--precision`` comparison read back without its --precision or --max-games
    (or with others) stops at fewer batches, and its pages would shrink without a word."""
    used = {f"{label}.games-{k * games}-{(k + 1) * games - 1}.parquet"
            for label, frames in parts.items() for k in range(len(frames))}
    unused = sorted(path.name for path in (folder / "results").glob("*.parquet")
                    if path.name not in used)
    if unused:
        raise UrbionError(
            f"cannot resume: {folder / 'results'} holds games this comparison would not use "
            f"({plural(len(unused), 'batch', 'batches')}, as {unused[0]}), played with "
            "another --precision or --max-games (precision=, max_games= in Python): give "
            "the ones that played them")


def _write_compare_pages(result: CompareResult, folder: Path, cards: CardSet) -> None:
    """Write the comparison's pages into ``folder``, with the card file of ``cards`` when
    they are not the shipped set's; a stop or an error meanwhile leaves the pages as they
    were, and says that --resume writes them from the games saved."""
    from analyzer.cards.writer import card_file_text
    from analyzer.reporting.build import write_compare

    shipped = cards.digest == default_card_set().digest
    try:
        write_compare(result, folder, None if shipped else card_file_text(cards))
    except KeyboardInterrupt as err:
        if SET_WRITTEN not in getattr(err, "__notes__", ()):
            raise _pages_not_written(err, folder) from None
        raise RunStopped(f"{interrupts.stop_word()} as the pages were written: they are "
                         f"whole in {folder}", True) from None
    except UrbionError as err:
        raise _pages_not_written(err, folder) from None


def _against_cards(against: Cards, variant: str | None) -> CardSet:
    """The card set ``compare --against`` names: a card, results or summary file, a loaded
    set or a frame, or ``r14`` for the shipped set (a file of that name comes first)."""
    if not isinstance(against, CardSet | pd.DataFrame):
        against = arguments.path("against", against, flag="--against", kinds=CARDS_KINDS)
    try:
        return load_cards(against, variant=variant)
    except CardSetError as err:
        raise CardSetError(f"--against (against=): {err}") from None


@dataclass
class CardChangeResult:
    """A change of the cards across expansion sets (``compare(against=...)``): ``table``
    (one row per set, the base game first; analysis.card_change.card_change_table), the
    comparisons of the sets with each card set, ``cards`` and ``against``
    (:class:`CompareResult`, each set against the base game of the same cards), and
    ``attrs`` (the shared configuration, both card sets named; the table's ``attrs`` too)."""

    table: pd.DataFrame
    cards: CompareResult
    against: CompareResult
    attrs: dict

    def __post_init__(self) -> None:
        _named(self.table, self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        from analyzer.analysis.card_change import format_card_change

        books = self.books_note()
        return format_card_change(self.table, self.attrs, list(self._unweighed_books())) + \
            (f"\n\n{books}" if books else "")

    def books_note(self) -> str:
        """The note of the sets with Books of Power where the policy kept no Book with
        either card set: their change is the base game's games' ("": none)."""
        from analyzer.analysis.compare import books_unplayed_note

        return books_unplayed_note(self._unweighed_books())

    def _unweighed_books(self) -> dict[str, pd.DataFrame]:
        """The runs, with the cards, of the sets with Books of Power where the policy kept
        no Book with either card set, by set label."""
        from analyzer.analysis.compare import books_unplayed

        both = set(books_unplayed(self.cards.runs)) & set(books_unplayed(self.against.runs))
        return {label: run for label, run in self.cards.runs.items() if label in both}

    def weights_note(self) -> str | None:
        """The notes of either comparison on the weights a policy plays, once each."""
        notes = [note for result in (self.cards, self.against)
                 if (note := result.weights_note())]
        return "\n".join(dict.fromkeys(notes)) or None

    def figures(self) -> dict:
        """The change's chart as a matplotlib Figure, by file stem."""
        from analyzer.analysis.card_change import chart_rows, precision_notes
        from analyzer.analysis.compare import BASE, books_chart_note, set_title
        from analyzer.reporting import charts

        table, members = chart_rows(self.table)
        fig = charts.card_change(table, set_title(BASE), self.attrs, members)
        # as the table: the mark of a set stopped at max-games, and against which of the
        # base game's games a set that stopped before it is weighed; the sets that kept no
        # Book, whose change is the base game's
        notes = precision_notes(self.table, self.attrs)
        books = books_chart_note({set_title(label): run
                                  for label, run in self._unweighed_books().items()})
        notes += [books] if books else []
        return {"card_change": charts.caption(
            fig, "\n".join([charts.card_change_source(self.attrs), *notes]))}


def _compare_card_change(sets: str | list[str], games: int, seed: int,
                         policy: str | PolicySpec, cards: CardSet, against: CardSet,
                         out: Path | None, resume: bool,
                         stopping: tuple[float | None, int], where: dict,
                         scheduler: str | None) -> CardChangeResult:
    """``compare(against=...)``: every set played with both card sets, each a comparison
    of its own (in ``out/cards`` and ``out/against``), then the change set by set;
    ``stopping``: ``compare``'s precision (None: one batch) and max_games."""
    precision, max_games = stopping
    if against.digest == cards.digest:
        raise UrbionError(f"--against (against=) names the cards --cards (cards=) plays "
                          f"({cards.name}, sha256 {cards.digest[:12]}): there is no change "
                          "to measure")
    if np.array_equal(against.cards, cards.cards) and \
            np.array_equal(against.owner, cards.owner):
        raise UrbionError(f"--against (against=, {against.name}) holds the cards of --cards "
                          f"(cards=, {cards.name}) in the same order, under another name: every "
                          "game would be played alike, and there is no change to measure")
    plays = {"cards": _compare_card_sets(sets, cards),
             "against": _compare_card_sets(sets, against)}
    card_sets = {"cards": cards, "against": against}
    specs = {name: _prepare("fast", policy, card_set)[1]
             for name, card_set in card_sets.items()}
    if scheduler is not None:  # refused before the folder is made, as by simulate
        for name, card_set in card_sets.items():
            check_by_name(specs[name], card_set)
    top, made = _card_change_folder(out, resume) if out is not None else (None, False)
    folders: dict[str, Path] = {}
    parts: dict[str, dict[str, list[pd.DataFrame]]] = {}
    # a stop before the second card set began leaves no folder of it to resume
    resumes = {name: resume and top is not None and (top / name).exists()
               for name in card_sets}
    try:
        for name in card_sets:
            if top is not None:
                folders[name] = _compare_folder(top / name, resumes[name], games,
                                                list(plays[name]))
        with _shared_cluster(scheduler) as cluster:
            batch_options = {name: dict(where, scheduler=cluster, folder=folders.get(name),
                                        resume=resumes[name]) for name in card_sets}
            cards_named = {name: f" with --{name} ({card_sets[name].name})"
                           for name in card_sets}
            if precision is None:
                for name in card_sets:
                    parts[name] = _play_compare(plays[name], specs[name], seed, games, None,
                                                max_games, batch_options[name],
                                                cards_named[name])
            else:
                parts = _play_card_change(plays, specs, seed, games, precision, max_games,
                                          batch_options, cards_named, top)
    except RunStopped as err:
        _unmake_card_change(top, folders, made)
        raise _card_change_stopped(err, top) from None
    except BaseException:
        _unmake_card_change(top, folders, made)
        raise
    for name, folder in folders.items():
        if resumes[name]:
            _check_every_batch_used(folder, parts[name], games)
    return _card_change_result(parts, games, precision, max_games, top, card_sets)


def _card_change_result(parts: dict[str, dict[str, list[pd.DataFrame]]], games: int,
                        precision: float | None, max_games: int, top: Path | None,
                        card_sets: dict[str, CardSet]) -> CardChangeResult:
    """Both comparisons and the change, with the pages of each written where ``top``;
    ``precision``: what the sets played to (None: one batch)."""
    from analyzer.analysis.card_change import card_change_table, precise_changes

    try:
        # each comparison's sets stopped on the change, not on a precision of their own
        results = {name: _compare_result(parts[name], games, None, max_games)
                   for name in parts}
        table = card_change_table(results["cards"].runs, results["against"].runs)
        if precision is not None:
            table["precise"] = precise_changes(table, precision)
    except KeyboardInterrupt as err:
        if top is None:
            raise
        raise _pages_not_written(err, top, "while the comparison was worked out",
                                 _card_change_games(top)) from None
    attrs = {**results["cards"].attrs,
             **{f"against_{key}": results["against"].attrs[key]
                for key in ("card_set", "card_set_sha256", "card_set_source",
                            "policy_params_sha256")},
             "precision": precision, "max_games": max_games if precision is not None else None}
    if precision is not None:  # their pages send a reader to the change's
        cut = [str(label) for label in table.index[~table["precise"]]]
        for result in results.values():
            result.attrs.update(card_change_precision=precision, card_change_cut=cut,
                                max_games=max_games)
            result.name_tables()
    result = CardChangeResult(table, results["cards"], results["against"], attrs)
    if top is not None:
        _write_card_change_pages(result, top, card_sets)
    return result


def _play_card_change(plays: dict[str, dict[str, CardSet]], specs: dict[str, PolicySpec],
                      seed: int, games: int, precision: float, max_games: int,
                      batch_options: dict[str, dict], cards_named: dict[str, str],
                      top: Path | None) -> dict[str, dict[str, list[pd.DataFrame]]]:
    """Play batches of ``games`` of every set with both card sets in step, while the change
    in any set is still imprecise; ``batch_options`` and ``cards_named``: ``_play_compare``'s
    ``where`` and ``cards_named`` of each card set (``cards``, ``against``). Returns each
    card set's batches of each set, by label."""
    from analyzer.analysis.card_change import card_change_table, precise_changes

    parts = {name: {label: [] for label in sets} for name, sets in plays.items()}
    active = list(plays["cards"])
    batch = 0
    while active:
        for name, sets in plays.items():
            for label in active:
                parts[name][label].append(_play_batch(
                    sets[label], specs[name], seed, batch, games, label,
                    batch_options[name], cards_named[name]))
        batch += 1
        try:
            table = card_change_table(*({label: _joined(frames)
                                         for label, frames in parts[name].items()}
                                        for name in plays))
            precise = precise_changes(table, precision)
        except KeyboardInterrupt:
            raise _stopped_between_batches(
                None if top is None else _card_change_games(top)) from None
        active = _still_imprecise(active, precise, (batch + 1) * games <= max_games)
    return parts


def _card_change_folder(out: Path, resume: bool) -> tuple[Path, bool]:
    """The card change's folder, made, and whether this call made it: new or empty, or
    with ``resume`` one an interrupted card change left."""
    from analyzer.atomic import probe_folder, require_folder
    from analyzer.reporting.build import FOLDER_MARK, folder_mark

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UrbionError(f"cannot write compare {folder}: it is a file, not a folder "
                          "(`urbion compare` writes its files into the folder --out (out=) "
                          "names)")
    require_folder(folder.parent, f"cannot write {folder}")
    if resume and not folder.is_dir():
        raise UrbionError(f"nothing to resume: {folder} does not exist")
    made = not folder.exists()
    if made:
        probe_folder(folder.parent, f"cannot write {folder}")
    try:
        held = sorted(p.name for p in folder.iterdir()) if not made else []
    except OSError as err:
        raise UrbionError(f"cannot use {folder}: {err.strerror or err}") from None
    if held and folder_mark(folder) != CARD_CHANGE_MARK:
        raise UrbionError(f"cannot write {folder}: it is not empty and not the folder of a "
                          "comparison with --against (choose another folder)")
    if held and not resume:
        raise UrbionError(f"cannot write {folder}: it holds an earlier comparison with "
                          "--against (add --resume, resume=True in Python, to continue it, "
                          "or choose another folder)")
    try:
        folder.mkdir(exist_ok=True)
        if not held:
            (folder / FOLDER_MARK).write_text(f"{CARD_CHANGE_MARK}\n", encoding="utf-8")
    except OSError as err:
        raise UrbionError(f"cannot use {folder}: {err.strerror or err}") from None
    return folder, made


#: The mark of a card change's folder (``reporting.build.FOLDER_MARK``).
CARD_CHANGE_MARK = "compare-against"


def _unmake_card_change(top: Path | None, folders: dict[str, Path], made: bool) -> None:
    """After a stop before anything was saved: take back the folders made, so that the
    same command runs again as a new comparison (a folder holding games is kept)."""
    from analyzer.reporting.build import FOLDER_MARK

    if top is None:
        return
    for folder in folders.values():
        _unmake_if_unused(folder, made=True)
    try:
        if {p.name for p in top.iterdir()} <= {FOLDER_MARK}:
            (top / FOLDER_MARK).unlink(missing_ok=True)
            if made:
                top.rmdir()
    except OSError:  # something of the user's there, or gone already: leave it as it is
        pass


def _card_change_stopped(err: RunStopped, top: Path | None) -> RunStopped:
    """A stop of one batch, which saved none of its own games, that says the batches of
    either card set finished before it are kept for ``--resume``."""
    message = str(err)
    saved = top is not None and any(top.glob("*/results/*.parquet"))
    if not saved or not message.endswith(NOTHING_SAVED):
        return err
    return RunStopped(f"{message.removesuffix(NOTHING_SAVED)}none of these games were saved, "
                      f"the batches finished before them are in {top}; run the same "
                      "command with --resume (resume=True in Python) to continue",
                      err.interrupted)


def _write_card_change_pages(result: CardChangeResult, folder: Path,
                             card_sets: dict[str, CardSet]) -> None:
    """Write the card change's pages and its comparisons' into ``folder`` as one set, each
    comparison with its card file where it is not the shipped set."""
    from analyzer.cards.writer import card_file_text
    from analyzer.reporting.build import write_card_change

    shipped = default_card_set().digest
    texts = {name: None if card_set.digest == shipped else card_file_text(card_set)
             for name, card_set in card_sets.items()}
    try:
        write_card_change(result, folder, texts)
    except KeyboardInterrupt as err:
        if SET_WRITTEN not in getattr(err, "__notes__", ()):
            raise _pages_not_written(err, folder, games_in=_card_change_games(folder)) \
                from None
        raise RunStopped(f"{interrupts.stop_word()} as the pages were written: they are "
                         f"whole in {folder}", True) from None
    except UrbionError as err:
        raise _pages_not_written(err, folder, games_in=_card_change_games(folder)) from None


def _card_change_games(folder: Path) -> str:
    """Where a card change keeps its games, as a stop message names them."""
    return f"{folder / 'cards' / 'results'} and {folder / 'against' / 'results'}"


def _pages_not_written(err: BaseException, folder: Path,
                       step: str = "while writing the pages",
                       games_in: str | None = None) -> RunStopped:
    """The stop of a comparison whose pages were not written: they are as before (none
    before a first run); ``games_in``: where its games are (``folder/results``)."""
    interrupted = isinstance(err, KeyboardInterrupt)
    why = f"{interrupts.stop_word()} {step}" if interrupted else str(err)
    where = games_in or str(folder / "results")
    return RunStopped(f"{why}: every set's games stay in {where}, and the pages as they "
                      "were; run the same command with --resume (resume=True in Python) "
                      "to write them", interrupted)


def _compare_stopping(precision: float | None, max_games: int | None,
                      games: int) -> tuple[float | None, int]:
    """``compare``'s precision and max_games, checked; max_games defaults to
    ``DEFAULT_MAX_GAMES``, or to ``games`` where a batch is larger: one batch, as a user
    who gave no limit would have it, not an error about a limit never given."""
    if precision is not None:
        precision = arguments.precision(precision)
    if max_games is not None and precision is None:
        raise UrbionError("--max-games (max_games=) applies only with --precision "
                          "(precision=): without it each set plays the games asked for")
    if max_games is None:
        max_games = max(DEFAULT_MAX_GAMES, games)
    max_games = arguments.whole_number("max_games", max_games, 1)
    if precision is not None and max_games < games:
        raise UrbionError(f"--max-games (max_games=) {max_games} must be at least --games "
                          f"(games=) {games}")
    return precision, max_games


def _compare_card_sets(sets: str | list[str], base_cards: CardSet) -> dict[str, CardSet]:
    """The card set of each expansion set ``compare`` plays, by label, the base game
    first."""
    from analyzer.analysis.compare import expansion_sets, set_label

    listed = arguments.name_list("sets", sets)  # a slip such as "books," is kept, refused
    chosen = expansion_sets(sets if isinstance(sets, str) else ",".join(listed))
    try:
        return {set_label(s): base_cards.with_expansions(parse_expansions(list(s)))
                for s in chosen}
    except CardSetError as err:
        raise CardSetError(f"{err}; {_playable_sets_hint(base_cards)}") from None


def _play_compare(card_sets: dict[str, CardSet], spec: PolicySpec, seed: int, games: int,
                  precision: float | None, max_games: int,
                  where: dict, cards_named: str = "") -> dict[str, list[pd.DataFrame]]:
    """Play batches of ``games`` of every set, while any set is still imprecise with
    ``precision`` (one batch without it); ``where``: ``_compare_batch``'s workers,
    scheduler, progress, folder and resume; ``cards_named``: what a message adds after a
    set's name to say which card set plays it (a card change plays two). Returns each
    set's batches, by label."""
    from analyzer.analysis.compare import compare_table

    parts: dict[str, list[pd.DataFrame]] = {label: [] for label in card_sets}
    active = list(card_sets)
    batch = 0
    while active:
        for label in active:
            parts[label].append(_play_batch(card_sets[label], spec, seed, batch, games, label,
                                            where, cards_named))
        batch += 1
        if precision is None:
            break
        try:
            precise = _precise(compare_table({label: _joined(frames)
                                              for label, frames in parts.items()},
                                             ranks=False), precision)
        except KeyboardInterrupt:  # every batch so far is saved: say so
            folder = where.get("folder")
            raise _stopped_between_batches(
                None if folder is None else folder / "results") from None
        active = _still_imprecise(active, precise, (batch + 1) * games <= max_games)
    return parts


def _play_batch(card_set: CardSet, spec: PolicySpec, seed: int, batch: int, games: int,
                label: str, where: dict, cards_named: str) -> pd.DataFrame:
    """Batch ``batch`` of set ``label``: its ``games`` games, a stop or a policy's failure
    naming the set (``cards_named`` after it: with which card set) and the games."""
    with _part_of(f"compare, set {label}{cards_named} (games {batch * games:,} to "
                  f"{(batch + 1) * games - 1:,})"):
        return _compare_batch(card_set, spec, seed, batch * games, games, label=label,
                              **where)


def _compare_result(parts: dict[str, list[pd.DataFrame]], games: int,
                    precision: float | None, max_games: int) -> CompareResult:
    """The comparison of every set's batches (``_play_compare``), with its
    configuration."""
    from analyzer.analysis.compare import SetRuns, compare_table, interactions, set_label

    runs = SetRuns((label, _joined(frames)) for label, frames in parts.items())
    table = compare_table(runs)
    if precision is not None:
        table["precise"] = _precise(table, precision)
    first = runs[set_label(())].attrs
    attrs = {key: first[key] for key in ("card_set", "card_set_sha256", "variant", "policy",
                                         "policy_params_sha256", "seed", "rules_version",
                                         "package_version")}
    commit = joined_commit([frame.attrs for frames in parts.values() for frame in frames])
    if commit is not None:
        attrs["commit"] = commit
    attrs["card_set_source"] = first.get("card_set_source", "")
    attrs["software"] = _joined_software([frame.attrs for frames in parts.values()
                                          for frame in frames])
    attrs["policy_source_sha256"] = first.get("policy_source_sha256", "")  # "": a built-in
    attrs["engine_source"] = first.get("engine_source", "")  # a resume refuses other code
    attrs.update(sets=list(runs), games_per_batch=games, precision=precision,
                 max_games=max_games if precision is not None else None)
    if table["games"].nunique() == 1:  # the charts' captions then name it
        attrs["games"] = int(table["games"].iloc[0])
    return CompareResult(table, interactions(runs), runs, attrs)


def _with_finished_sets(err: RunStopped, folder: Path | None,
                        finished: str = "batches") -> RunStopped:
    """A stop of one run of many, which saved none of its own games, that says the runs
    (``finished``: "batches" of a comparison, "card sets" of a sensitivity analysis)
    finished before it are kept for ``--resume``."""
    message = str(err)
    saved = folder is not None and any((folder / "results").glob("*.parquet"))
    if not saved or not message.endswith(NOTHING_SAVED):
        return err
    return RunStopped(f"{message.removesuffix(NOTHING_SAVED)}none of these games were saved, "
                      f"the {finished} finished before them are in {folder / 'results'}; "
                      "run the same command with --resume (resume=True in Python) to "
                      "continue", err.interrupted)


def _compare_folder(out: str | Path, resume: bool, games: int, labels: list[str]) -> Path:
    """The comparison's folder, made: a new or empty one, or with ``resume`` one an
    interrupted comparison of the same batch size left (a folder is never mixed with
    another comparison's files)."""
    from analyzer.atomic import probe_folder, require_folder
    from analyzer.reporting.build import FOLDER_MARK, folder_mark

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UrbionError(f"cannot write compare {folder}: it is a file, not a folder "
                          "(`urbion compare` writes its files into the folder --out (out=) "
                          "names)")
    require_folder(folder.parent, f"cannot write {folder}")
    if resume and not folder.is_dir():  # as simulate and sensitivity: no fresh start unasked
        raise UrbionError(f"nothing to resume: {folder} does not exist")
    made = not folder.exists()
    if made:  # said as every command says it (/proc's "No such file" misled)
        probe_folder(folder.parent, f"cannot write {folder}")
    held: list[str] = []
    try:
        held = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
        if held and folder_mark(folder) == CARD_CHANGE_MARK:
            raise UrbionError(f"cannot write {folder}: it is the folder of a comparison with "
                              "--against (give --against, against= in Python, and the same "
                              "--cards to resume it, or choose another folder)")
        if held and folder_mark(folder) != "compare":
            raise UrbionError(f"cannot write {folder}: it is not empty and not a comparison's "
                              "folder (choose another folder)")
        if held and not resume:
            raise UrbionError(f"cannot write {folder}: it holds an earlier comparison (add "
                              "--resume, resume=True in Python, to continue it, or choose "
                              "another folder)")
        for path in (folder / "results").glob("*.parquet*") if held else ():
            _check_batch(path, games, labels)
        (folder / "results").mkdir(parents=True, exist_ok=True)
        if not held:  # rewriting a comparison's mark on a full disk would empty it
            (folder / FOLDER_MARK).write_text("compare\n", encoding="utf-8")
    except OSError as err:
        if not held:  # what was made here, a full disk say, is taken back
            _unmake_if_unused(folder, made)
        raise UrbionError(f"cannot use {folder}: {err.strerror or err}") from None
    return folder


def _unmake_if_unused(folder: Path, made: bool) -> None:
    """After a comparison stopped before it saved anything (no batch, no chunk in
    ``results/``): take back what :func:`_compare_folder` added, and the folder itself if
    it made it, so that the same command runs again as a new comparison."""
    from analyzer.reporting.build import FOLDER_MARK

    results = folder / "results"
    try:
        if results.is_dir():
            if any(results.iterdir()):
                return
            results.rmdir()
        (folder / FOLDER_MARK).unlink(missing_ok=True)
        if made:
            folder.rmdir()
    except OSError:  # something of the user's there, or gone already: leave it as it is
        pass


def _check_batch(path: Path, games: int, labels: list[str], run: str = "comparison",
                 same: str = "--sets (sets=)") -> None:
    """A batch file or its chunks (``SET.games-FIRST-LAST.parquet[.partial]``) must be one of
    this ``run``'s: a set it plays, a batch of ``games`` (other sizes would overlap them);
    ``same`` names the option that chose the sets."""
    name = path.name.removesuffix(".partial").removesuffix(".parquet")
    label, _, span = name.rpartition(".games-")
    if not label:  # no batch's name: a file put there by hand
        raise UrbionError(f"cannot resume: {path} is no batch of this {run} (a batch's file "
                          "is NAME.games-FIRST-LAST.parquet): move it out of its folder")
    if label not in labels:
        raise UrbionError(f"cannot resume: {path} holds games of set {label!r}, which this "
                          f"{run} does not play ({same} must be the interrupted one's)")
    first, _, last = span.partition("-")
    if not (first.isdigit() and last.isdigit()) or \
            int(last) - int(first) + 1 != games or int(first) % games:
        raise UrbionError(f"cannot resume: {path} is not a batch of {games:,} games (--games, "
                          f"games= in Python, must be the interrupted {run}'s)")


def _compare_batch(card_set: CardSet, spec: PolicySpec, seed: int, first: int, games: int,
                   workers, scheduler, progress, folder: Path | None, label: str,
                   resume: bool) -> pd.DataFrame:
    """Games ``first .. first + games - 1`` of one set: played, resumed, or read back."""
    if folder is None:
        return simulate(games=games, seed=seed, policy=spec, workers=workers,
                        cards=card_set, first_game=first, scheduler=scheduler,
                        progress=progress)
    from analyzer.analysis.results_io import ResultsFileError, read_results
    from analyzer.runner.checkpoint import partial_folder
    from analyzer.runner.plan import RunPlan

    path = folder / "results" / f"{label}.games-{first}-{first + games - 1}.parquet"
    if resume and path.exists():
        try:
            df = read_results(path)
        except ResultsFileError as err:  # written whole, so damaged since: a copy, an edit
            raise ResultsFileError(f"cannot resume: {err}; remove it, and --resume plays "
                                   "its games again") from None
        partial_folder_remove(path)  # chunks of a removal a kill cut short
        expected = RunPlan.for_policy(card_set, spec, seed, games, first).config()
        for key in BATCH_IDENTITY:
            if key in LATER_KEYS and key not in df.attrs:
                continue  # a batch saved before the key: its code is not known to differ
            if df.attrs.get(key) != expected.get(key):
                if key == "card_set_sha256":  # named as a user knows them, hash shortened
                    there, here = (f"{attrs.get('card_set')} "
                                   f"({str(attrs.get('card_set_sha256'))[:12]})"
                                   for attrs in (df.attrs, expected))
                    raise UrbionError(f"cannot resume: {path} was made with another card set "
                                      f"({there}, this run {here})")
                if key in (*POLICY_HASHES, "engine_source"):
                    why = describe_difference(key, df.attrs.get(key), expected.get(key))
                    raise UrbionError(f"cannot resume: {path}: {why}")
                what = "version of the package" if key == "package_version" else key
                raise UrbionError(f"cannot resume: {path} was made with another {what} "
                                  f"({df.attrs.get(key)!r}, this run {expected.get(key)!r})")
        return df
    return simulate(games=games, seed=seed, policy=spec, workers=workers, cards=card_set,
                    first_game=first, scheduler=scheduler, progress=progress, out=path,
                    resume=resume and partial_folder(path).exists())


def _stopped_between_batches(kept_in: Path | str | None) -> RunStopped:
    """A stop while the sets played so far were weighed: every batch is saved, in
    ``kept_in`` (None: nowhere, no folder was given)."""
    kept = "" if kept_in is None else (
        f": every set's games so far are in {kept_in}; run the same command with --resume "
        "(resume=True in Python) to continue")
    return RunStopped(f"{interrupts.stop_word()} between two batches{kept}", True)


def _precise(table: pd.DataFrame, precision: float) -> pd.Series:
    """Per set of a compare table: whether the half-widths of its win rate's interval and
    of its difference to the base game's interval are both at most ``precision``."""
    from analyzer.analysis.compare import BASE

    own = (table["ci_high"] - table["ci_low"]) / 2 <= precision
    difference = (table["diff_high"] - table["diff_low"]) / 2 <= precision
    return own & (difference | (table.index == BASE))


def _still_imprecise(active: list[str], precise: pd.Series, room: bool) -> list[str]:
    """The sets that play another batch: those not yet precise while another batch fits
    under max-games, and the base game as long as any other set plays, so that every
    difference is taken over all of that set's games."""
    from analyzer.analysis.compare import BASE

    if not room:
        return []
    others = [label for label in active if label != BASE and not precise[label]]
    base = BASE in active and (others or not precise[BASE])
    return [label for label in active if label in others or (label == BASE and base)]


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One set's batches as one run (the first batch's configuration, all the games)."""
    # read before df.attrs is replaced: a set of one batch is that batch's frame itself
    commit = joined_commit([frame.attrs for frame in frames])
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    df.attrs = {**frames[0].attrs, "games": int(len(df))}
    df.attrs.pop("commit", None)
    if commit is not None:
        df.attrs["commit"] = commit
    return df
