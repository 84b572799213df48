"""``urbion compare``: expansion sets against the base game on the same games, and with
``--against`` what a card change does in each set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analyzer import arguments
from analyzer.analysis.totals import joined_commit
from analyzer.api.batches import (
    CARD_CHANGE_MARK,
    compare_destination,
    compare_folder,
    joined_batches,
    play_compare,
    play_compare_batch,
    sets_precise,
    still_imprecise,
    stopped_between_batches,
    unmake_if_unused,
    with_finished_sets,
)
from analyzer.api.common import (
    CARDS_KINDS,
    Cards,
    check_by_name,
    checked_executors,
    checked_run_inputs,
    joined_software,
    load_cards,
    memory_in_one_line,
    shared_cluster,
)
from analyzer.api.results import CardChangeResult, CompareResult
from analyzer.atomic import SET_WRITTEN
from analyzer.cards import CardSet, default_card_set
from analyzer.cards.loader import CardSetError, expansion_names, parse_expansions
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts
from analyzer.runner.run import NOTHING_SAVED
from analyzer.wording import plural


@memory_in_one_line
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
    precision, max_games = compare_stopping(precision, max_games, games)
    workers, scheduler = checked_executors(workers, scheduler)
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
    card_sets = compare_card_sets(sets, base_cards)
    _, spec = checked_run_inputs("fast", policy, base_cards)
    if scheduler is not None:  # refused before the folder is made, as by simulate
        check_by_name(spec, base_cards)
    made = out is not None and not Path(out).exists()
    folder = compare_folder(out, resume, games, list(card_sets)) \
        if out is not None else None
    try:
        with shared_cluster(scheduler) as cluster:
            parts = play_compare(card_sets, spec, seed, games, precision, max_games,
                                 dict(workers=workers, scheduler=cluster, progress=progress,
                                      folder=folder, resume=resume))
    except RunStopped as err:
        if folder is not None:
            unmake_if_unused(folder, made)
        raise with_finished_sets(err, folder) from None
    except BaseException:
        if folder is not None:
            unmake_if_unused(folder, made)
        raise
    if folder is not None and resume:
        check_every_batch_used(folder, parts, games)
    try:
        result = compare_result(parts, games, precision, max_games)
    except KeyboardInterrupt as err:
        if folder is None:
            raise
        raise pages_not_written(err, folder, "while the comparison was worked out") \
            from None
    if folder is not None:
        _write_compare_pages(result, folder, base_cards)
    return result


def _write_compare_pages(result: CompareResult, folder: Path, cards: CardSet) -> None:
    """Write the comparison's pages into ``folder``, with the card file of ``cards`` when
    they are not the shipped set's; a stop or an error meanwhile leaves the pages as they
    were, and says that --resume writes them from the games saved."""
    from analyzer.cards.writer import card_file_text
    from analyzer.reporting.compare_pages import write_compare

    shipped = cards.digest == default_card_set().digest
    try:
        write_compare(result, folder, None if shipped else card_file_text(cards))
    except KeyboardInterrupt as err:
        if SET_WRITTEN not in getattr(err, "__notes__", ()):
            raise pages_not_written(err, folder) from None
        raise RunStopped(f"{interrupts.stop_word()} as the pages were written: they are "
                         f"whole in {folder}", True) from None
    except UrbionError as err:
        raise pages_not_written(err, folder) from None


def _against_cards(against: Cards, variant: str | None) -> CardSet:
    """The card set ``compare --against`` names: a card, results or summary file, a loaded
    set or a frame, or ``r14`` for the shipped set (a file of that name comes first)."""
    if not isinstance(against, CardSet | pd.DataFrame):
        against = arguments.path("against", against, flag="--against", kinds=CARDS_KINDS)
    try:
        return load_cards(against, variant=variant)
    except CardSetError as err:
        raise CardSetError(f"--against (against=): {err}") from None


def _compare_card_change(sets: str | list[str], games: int, seed: int,
                         policy: str | PolicySpec, cards: CardSet, against: CardSet,
                         out: Path | None, resume: bool,
                         stopping: tuple[float | None, int], where: dict,
                         scheduler: str | None) -> CardChangeResult:
    """``compare(against=...)``: every set played with both card sets, each a comparison
    of its own (in ``out/cards`` and ``out/against``), then the change set by set;
    ``stopping``: ``compare``'s precision (None: one batch) and max_games."""
    precision, max_games = stopping
    _check_a_change(cards, against)
    plays = {"cards": compare_card_sets(sets, cards),
             "against": compare_card_sets(sets, against)}
    card_sets = {"cards": cards, "against": against}
    specs = {name: checked_run_inputs("fast", policy, card_set)[1]
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
                folders[name] = compare_folder(top / name, resumes[name], games,
                                               list(plays[name]))
        with shared_cluster(scheduler) as cluster:
            batch_options = {name: dict(where, scheduler=cluster, folder=folders.get(name),
                                        resume=resumes[name]) for name in card_sets}
            cards_named = {name: f" with --{name} ({card_sets[name].name})"
                           for name in card_sets}
            if precision is None:
                for name in card_sets:
                    parts[name] = play_compare(plays[name], specs[name], seed, games, None,
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
            check_every_batch_used(folder, parts[name], games)
    return _card_change_result(parts, games, precision, max_games, top, card_sets)


def _check_a_change(cards: CardSet, against: CardSet) -> None:
    """Refuse an ``against`` that would play every game as ``cards`` does."""
    if against.digest == cards.digest:
        raise UrbionError(f"--against (against=) names the cards --cards (cards=) plays "
                          f"({cards.name}, sha256 {cards.digest[:12]}): there is no change "
                          "to measure")
    if np.array_equal(against.cards, cards.cards) and \
            np.array_equal(against.owner, cards.owner):
        raise UrbionError(f"--against (against=, {against.name}) holds the cards of --cards "
                          f"(cards=, {cards.name}) in the same order, under another name: every "
                          "game would be played alike, and there is no change to measure")


def _card_change_result(parts: dict[str, dict[str, list[pd.DataFrame]]], games: int,
                        precision: float | None, max_games: int, top: Path | None,
                        card_sets: dict[str, CardSet]) -> CardChangeResult:
    """Both comparisons and the change, with the pages of each written where ``top``;
    ``precision``: what the sets played to (None: one batch)."""
    from analyzer.analysis.card_change import card_change_table, precise_changes

    try:
        # each comparison's sets stopped on the change, not on a precision of their own
        results = {name: compare_result(parts[name], games, None, max_games)
                   for name in parts}
        table = card_change_table(results["cards"].runs, results["against"].runs)
        if precision is not None:
            table["precise"] = precise_changes(table, precision)
    except KeyboardInterrupt as err:
        if top is None:
            raise
        raise pages_not_written(err, top, "while the comparison was worked out",
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
    in any set is still imprecise; ``batch_options`` and ``cards_named``: ``play_compare``'s
    ``where`` and ``cards_named`` of each card set (``cards``, ``against``). Returns each
    card set's batches of each set, by label."""
    from analyzer.analysis.card_change import card_change_table, precise_changes

    parts = {name: {label: [] for label in sets} for name, sets in plays.items()}
    active = list(plays["cards"])
    batch = 0
    while active:
        for name, sets in plays.items():
            for label in active:
                parts[name][label].append(play_compare_batch(
                    sets[label], specs[name], seed, batch, games, label,
                    batch_options[name], cards_named[name]))
        batch += 1
        try:
            table = card_change_table(*({label: joined_batches(frames)
                                         for label, frames in parts[name].items()}
                                        for name in plays))
            precise = precise_changes(table, precision)
        except KeyboardInterrupt:
            raise stopped_between_batches(
                None if top is None else _card_change_games(top)) from None
        active = still_imprecise(active, precise, (batch + 1) * games <= max_games)
    return parts


def _card_change_folder(out: Path, resume: bool) -> tuple[Path, bool]:
    """The card change's folder, made, and whether this call made it: new or empty, or
    with ``resume`` one an interrupted card change left."""
    from analyzer.reporting.folders import FOLDER_MARK, folder_mark

    folder, made = compare_destination(out, resume)
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


def _unmake_card_change(top: Path | None, folders: dict[str, Path], made: bool) -> None:
    """After a stop before anything was saved: take back the folders made, so that the
    same command runs again as a new comparison (a folder holding games is kept)."""
    from analyzer.reporting.folders import FOLDER_MARK

    if top is None:
        return
    for folder in folders.values():
        unmake_if_unused(folder, made=True)
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
    from analyzer.reporting.card_change_pages import write_card_change

    shipped = default_card_set().digest
    texts = {name: None if card_set.digest == shipped else card_file_text(card_set)
             for name, card_set in card_sets.items()}
    try:
        write_card_change(result, folder, texts)
    except KeyboardInterrupt as err:
        if SET_WRITTEN not in getattr(err, "__notes__", ()):
            raise pages_not_written(err, folder, games_in=_card_change_games(folder)) \
                from None
        raise RunStopped(f"{interrupts.stop_word()} as the pages were written: they are "
                         f"whole in {folder}", True) from None
    except UrbionError as err:
        raise pages_not_written(err, folder, games_in=_card_change_games(folder)) from None


def _card_change_games(folder: Path) -> str:
    """Where a card change keeps its games, as a stop message names them."""
    return f"{folder / 'cards' / 'results'} and {folder / 'against' / 'results'}"


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


#: The most games a set of ``compare(precision=...)`` plays unless told otherwise.
DEFAULT_MAX_GAMES = 1_000_000


def check_every_batch_used(folder: Path, parts: dict[str, list[pd.DataFrame]],
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


def pages_not_written(err: BaseException, folder: Path,
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


def compare_stopping(precision: float | None, max_games: int | None,
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


def compare_card_sets(sets: str | list[str], base_cards: CardSet) -> dict[str, CardSet]:
    """The card set of each expansion set ``compare`` plays, by label, the base game
    first."""
    from analyzer.analysis.expansion_sets import expansion_sets, set_label

    listed = arguments.name_list("sets", sets)  # a slip such as "books," is kept, refused
    chosen = expansion_sets(sets if isinstance(sets, str) else ",".join(listed))
    try:
        return {set_label(s): base_cards.with_expansions(parse_expansions(list(s)))
                for s in chosen}
    except CardSetError as err:
        raise CardSetError(f"{err}; {_playable_sets_hint(base_cards)}") from None


def compare_result(parts: dict[str, list[pd.DataFrame]], games: int,
                   precision: float | None, max_games: int) -> CompareResult:
    """The comparison of every set's batches (``play_compare``), with its
    configuration."""
    from analyzer.analysis.compare import compare_table
    from analyzer.analysis.expansion_sets import SetRuns, set_label
    from analyzer.analysis.interactions import interactions

    runs = SetRuns((label, joined_batches(frames)) for label, frames in parts.items())
    table = compare_table(runs)
    if precision is not None:
        table["precise"] = sets_precise(table, precision)
    first = runs[set_label(())].attrs
    attrs = {key: first[key] for key in ("card_set", "card_set_sha256", "variant", "policy",
                                         "policy_params_sha256", "seed", "rules_version",
                                         "package_version")}
    commit = joined_commit([frame.attrs for frames in parts.values() for frame in frames])
    if commit is not None:
        attrs["commit"] = commit
    attrs["card_set_source"] = first.get("card_set_source", "")
    attrs["software"] = joined_software([frame.attrs for frames in parts.values()
                                         for frame in frames])
    attrs["policy_source_sha256"] = first.get("policy_source_sha256", "")  # "": a built-in
    attrs["engine_source"] = first.get("engine_source", "")  # a resume refuses other code
    attrs.update(sets=list(runs), games_per_batch=games, precision=precision,
                 max_games=max_games if precision is not None else None)
    if table["games"].nunique() == 1:  # the charts' captions then name it
        attrs["games"] = int(table["games"].iloc[0])
    return CompareResult(table, interactions(runs), runs, attrs)
