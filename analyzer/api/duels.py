"""``urbion duel`` and ``urbion tune``: policies on the same deals, and weights tuned and
checked on games held out."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from analyzer import arguments
from analyzer.analysis.duel import pair_table, policy_table
from analyzer.analysis.stats import format_p
from analyzer.api import simulation
from analyzer.api.common import (
    Cards,
    Expansions,
    check_by_name,
    check_not_an_input,
    checked_executors,
    checked_policy,
    checked_run_inputs,
    load_cards,
    memory_in_one_line,
    part_of,
    shared_cluster,
    weights_file_given,
)
from analyzer.api.results import DuelResult, TuneResult
from analyzer.cards import CardSet
from analyzer.cards.loader import cards_digest, play_digest
from analyzer.core.codes import RULES_VERSION
from analyzer.errors import OutputNotWritten, UrbionError
from analyzer.policies.registry import PolicySpec, policy_entries, policy_label
from analyzer.runner import interrupts

if TYPE_CHECKING:  # the tuning module is imported only when a tune runs
    from analyzer.analysis.tune import TuneOutcome


@memory_in_one_line
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
        report`` reads), the tables as CSV and the text (``reporting.duel_pages.write_duel``).

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
    workers, scheduler = checked_executors(workers, scheduler)
    progress = arguments.flag("progress", progress)
    card_set = load_cards(cards, expansions, variant)
    for policy in entries.values():
        # every policy checked before playing
        _, spec = checked_run_inputs("fast", policy, card_set)
        if scheduler is not None:
            check_by_name(spec, card_set)
    if out is not None:
        from analyzer.reporting.folders import check_destination

        out = arguments.path("out", out)
        check_destination(out, "duel")
    with shared_cluster(scheduler) as cluster:
        result = _same_deals(entries, card_set, dict(games=games, seed=seed, workers=workers,
                                                     scheduler=cluster, progress=progress),
                             lambda name, number: f"duel, policy {name} ({number} of "
                                                  f"{len(entries)})")
    if out is not None:
        from analyzer.reporting.duel_pages import write_duel

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
        with part_of(part(name, number)):
            results[name] = simulation.simulate(policy=policy, cards=card_set, **settings)
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

    one, other = checked_policy(a), checked_policy(b)
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


@memory_in_one_line
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
    from analyzer.analysis.tune import check_searchable, start_weights, tuned_names, weighted_spec
    from analyzer.policies.weights import format_weights

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
        check_not_an_input(out, {"--start": weights_file_given(start), "--cards": cards},
                           "the tune")
    card_set = load_cards(cards, expansions, variant)
    begin = start_weights(start)
    check_searchable(begin, tuned_names(card_set))  # before the progress bar shows
    checked_run_inputs("fast", "greedy", card_set)
    found = _searched_weights(card_set, games, seed, evaluations, workers, progress, begin)
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


def _searched_weights(card_set: CardSet, games: int, seed: int, evaluations: int,
                      workers: int | None, progress: bool,
                      begin: dict[str, float]) -> TuneOutcome:
    """The search of :func:`tune`: ``evaluations`` candidates from the weights ``begin``,
    each played on games 0..games-1 of ``seed``, counted on a progress bar; a stop names
    how many were played."""
    from analyzer.analysis.tune import tune_weights
    from analyzer.runner.progress import clearing_on_error, progress_bar

    bar = progress_bar(evaluations, progress, "tuning", "candidates")
    played: list[int] = []

    def one_more() -> None:
        played.append(1)
        bar.update(1)

    with clearing_on_error(bar), \
            part_of(lambda: f"tuning, after {len(played)} of {evaluations} candidates"), \
            interrupts.holding():
        return tune_weights(card_set, games, seed, evaluations, workers, one_more, begin)


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
