"""Checks and helpers every API function shares: card sets and policies as the calls take
them, the executors, out-of-memory wording, and a run's part in a longer one."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from analyzer import arguments
from analyzer.analysis.results_io import cards_of_file
from analyzer.atomic import SET_WRITTEN
from analyzer.cards import CardSet, default_card_set
from analyzer.cards.loader import parse_expansions
from analyzer.errors import OutOfMemory, PolicyError, RunStopped, UrbionError, out_of_memory_message
from analyzer.policies.registry import PolicySpec, names_a_builtin, resolve_policy, weights_file_of
from analyzer.runner import interrupts
from analyzer.runner.checkpoint import Checkpoint
from analyzer.runner.config import ENGINES

Expansions = str | list[str] | tuple[str, ...] | None
#: A card set as every call takes it: a card, results or summary file's path, a loaded
#: set, a frame ``simulate`` returned, or None for the shipped R14 set.
Cards = str | Path | CardSet | pd.DataFrame | None
#: What ``cards=`` may be, as its refusal says it.
CARDS_KINDS = "a path, a CardSet (analyzer.load_cards) or a frame simulate returned"


def memory_in_one_line(func: Callable) -> Callable:
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


@memory_in_one_line
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


def checked_policy(policy: str | PolicySpec) -> PolicySpec:
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


def checked_engine(engine: str) -> str:
    """An engine's name as the tool spells it: taken in any case, as the CLI takes it."""
    return arguments.choice("engine", engine, ENGINES)


def checked_run_inputs(engine: str, policy: str | PolicySpec, cards: Cards,
                       expansions: Expansions = None,
                       variant: str | None = None) -> tuple[CardSet, PolicySpec]:
    """Check a run's engine, policy and cards (its counts are checked by
    ``arguments.game_counts``); the card set (with its expansions) and the policy fitted
    to it."""
    engine = checked_engine(engine)
    card_set = load_cards(cards, expansions, variant)
    with interrupts.holding():  # a user's policy is compiled as it is loaded
        spec = checked_policy(policy).for_cards(card_set)
    if engine == "reference" and not spec.reference_ok:
        raise PolicyError(f"policy {spec.name!r} reads the whole game and plays on the fast "
                          "engine only")
    return card_set, spec


@contextmanager
def part_of(what: str | Callable[[], str]) -> Iterator[None]:
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
def shared_cluster(scheduler: str | None) -> Iterator[str | None]:
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


def check_one_executor(workers: int | None, scheduler: str | None) -> None:
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


def checked_executors(workers: object, scheduler: object) -> tuple[int | None, str | None]:
    """``workers`` and ``scheduler`` checked, apart and together, for a command of many
    runs: refused before a local cluster starts or a game is played."""
    workers = arguments.workers(workers)
    scheduler = arguments.text("scheduler", scheduler, optional=True)
    check_one_executor(workers, scheduler)
    if scheduler is not None:
        from analyzer.runner.distributed import parse_scheduler

        parse_scheduler(scheduler)  # a malformed address
    return workers, scheduler


def raise_if_the_policy_raised(spec: PolicySpec, err: Exception,
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


def check_not_an_input(out: Path, inputs: dict[str, object], doing: str) -> None:
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


def weights_file_given(policy: object) -> str | None:
    """The weights file a policy reads by its name (``weighted:FILE``,
    ``search:weights=FILE``, given as a name or a PolicySpec), else None."""
    name = policy.name if isinstance(policy, PolicySpec) else policy
    return weights_file_of(name) if isinstance(name, str) else None


def readable_bytes(count: int) -> str:
    """A size in words, in the largest of KB, MB and GB that it reaches once rounded."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if round(count / scale, 1) >= 1:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 1e3:,.1f} KB"


def joined_software(configs: list[dict]) -> str:
    """The software of the runs of one table (a resumed run's parts may have been played
    under other versions): each distinct one, as recorded."""
    return "; ".join(dict.fromkeys(str(c["software"]) for c in configs if c.get("software")))


def stopped_once_written(stop: KeyboardInterrupt, folder: Path, what: str) -> BaseException:
    """A stop while ``what`` was written into ``folder``: once the folder was in place
    (noted ``SET_WRITTEN``), a stop that says it is whole; else the stop itself."""
    if SET_WRITTEN not in getattr(stop, "__notes__", ()):
        return stop
    return RunStopped(f"{interrupts.stop_word()} as {what} was written: it is whole in "
                      f"{folder}", True)
