"""``urbion sensitivity``: the win rate's response to each card-set factor, variant by
variant against a baseline."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd

from analyzer import arguments
from analyzer.analysis.summary import summarize
from analyzer.analysis.totals import joined_commit
from analyzer.api.batches import check_batch, kept_batch, with_finished_sets
from analyzer.api.common import (
    CARDS_KINDS,
    Cards,
    Expansions,
    checked_executors,
    checked_policy,
    joined_software,
    load_cards,
    memory_in_one_line,
    names_shipped_set,
    part_of,
    shared_cluster,
    stopped_once_written,
)
from analyzer.api.results import BASELINE_KEY, SensitivityResult
from analyzer.atomic import SET_WRITTEN
from analyzer.cards import CardSet, default_card_set
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts


@memory_in_one_line
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
    from analyzer.analysis.sensitivity import baseline_label, plan_variants

    games, seed, _ = arguments.game_counts(games, seed)
    workers, scheduler = checked_executors(workers, scheduler)
    spec = checked_policy(policy)  # an unknown policy is refused before any game is played
    resume = arguments.flag("resume", resume)
    out = arguments.path("out", out)
    if out is not None:
        from analyzer.reporting.folders import check_destination

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
    base, runs = _play_on_cluster(base_set, plan, spec, settings, work, resume)
    try:
        result = _sensitivity_result(base, runs, base_set, plan, data, label,
                                     (expansions, variant))
        if out is not None:
            _write_report(result, base_set, Path(out), work)
    except KeyboardInterrupt:
        if work is None:
            raise
        raise RunStopped(f"{interrupts.stop_word()} while writing the report: every card "
                         f"set's games stay in {work}, and {out} as it was; run the same "
                         "command with --resume (resume=True in Python) to write it",
                         True) from None
    if work is not None:
        shutil.rmtree(work, ignore_errors=True)  # the report holds what it was kept for
    return result


def _play_on_cluster(base_set: CardSet, plan: dict, spec: PolicySpec, settings: dict,
                     work: Path | None, resume: bool) -> tuple[pd.DataFrame, dict]:
    """:func:`_play_sensitivity` on the cluster ``settings`` names, if any; a stop says
    which card sets finished, and a ``work`` folder left with no games is removed."""
    try:
        with shared_cluster(settings["scheduler"]) as cluster:
            return _play_sensitivity(base_set, plan, spec,
                                     {**settings, "scheduler": cluster}, work, resume)
    except BaseException as err:
        if work is not None and not any((work / "results").iterdir()):
            shutil.rmtree(work, ignore_errors=True)  # nothing to resume: run it anew
        if isinstance(err, RunStopped):
            raise with_finished_sets(err, work, "card sets") from None
        raise


def _write_report(result: SensitivityResult, base_set: CardSet, out: Path,
                  work: Path) -> None:
    """Write sensitivity.csv, .md and the chart into ``out``; a stop once they are in place
    removes ``work``, whose games the report holds."""
    from analyzer.cards.writer import card_file_text
    from analyzer.reporting.sensitivity_pages import write_sensitivity

    try:
        write_sensitivity(result.table, result.baseline, out, card_file_text(base_set))
    except KeyboardInterrupt as stop:
        if SET_WRITTEN not in getattr(stop, "__notes__", ()):
            raise
        shutil.rmtree(work, ignore_errors=True)
        raise stopped_once_written(stop, out, "the report") from None


def _sensitivity_result(base: pd.DataFrame, runs: dict, base_set: CardSet, plan: dict,
                        data: dict, label: str,
                        played_with: tuple[Expansions, str | None]) -> SensitivityResult:
    """The analysis of the baseline's games ``base`` and each variant's ``runs`` (a variant
    of ``plan`` not played has its reason), with the card sets as they were played: with
    the expansions and variant of the analysis (``played_with``)."""
    from analyzer.analysis.sensitivity import NotPlayed, effect_table

    baseline = _sensitivity_summary(base, data, label, runs)
    played = {(v.factor, v.level): run for v, run in runs.items()
              if not isinstance(run, NotPlayed)}
    card_sets = {BASELINE_KEY: base_set, **{(v.factor, v.level): card_set
                                            for v, card_set in plan.items()
                                            if (v.factor, v.level) in played}}
    return SensitivityResult(
        baseline, effect_table(base, runs, baseline["baseline_levels"]),
        {BASELINE_KEY: base, **played},
        {key: load_cards(card_set, *played_with) for key, card_set in card_sets.items()})


def _sensitivity_work(out: Path, resume: bool, games: int, variants: int) -> Path:
    """The hidden folder beside ``out`` where each card set's games are kept as they finish:
    made for a new run, found (and its files checked) for ``resume``."""
    from analyzer.reporting.folders import folder_mark

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
            check_batch(path, games, labels, "sensitivity run", "--cards (cards=)")
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
        return kept_batch(card_set, spec.for_cards(card_set), settings["seed"], 0,
                          settings["games"], settings["workers"], settings["scheduler"],
                          settings["progress"], work, label, resume)

    with part_of(f"sensitivity, card set 1 of {sets} (the baseline)"):
        base = play(base_set, labels[0])
    runs = {}
    number = 1
    for (change, planned), label in zip(plan.items(), labels[1:], strict=True):
        if isinstance(planned, NotPlayed):
            runs[change] = planned
            continue
        number += 1
        with part_of(f"sensitivity, card set {number} of {sets} ({change.factor} "
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
            "software": joined_software([base.attrs, *(run.attrs for run in runs.values()
                                                       if not isinstance(run, NotPlayed))]),
            "policy_source_sha256": base.attrs.get("policy_source_sha256", ""),
            **({"policy_tuned_for": base.attrs["policy_tuned_for"]}
               if "policy_tuned_for" in base.attrs else {}),
            "commit": joined_commit([base.attrs, *(run.attrs for run in runs.values()
                                                   if not isinstance(run, NotPlayed))]),
            "baseline_levels": baseline_levels(data),
            "side_effects": side_effects(data, label, played)}
