"""Batches of games kept in a folder as they finish, shared by ``compare`` and
``sensitivity``: played, resumed or read back, checked, and weighed until precise."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analyzer.analysis.totals import joined_commit
from analyzer.api import simulation
from analyzer.api.common import part_of
from analyzer.cards import CardSet
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts
from analyzer.runner.checkpoint import (
    POLICY_HASHES,
    describe_difference,
    partial_folder,
    partial_folder_remove,
)
from analyzer.runner.config import BATCH_IDENTITY, LATER_KEYS
from analyzer.runner.plan import RunPlan
from analyzer.runner.run import NOTHING_SAVED

#: The mark of a card change's folder (``reporting.folders.FOLDER_MARK``).
CARD_CHANGE_MARK = "compare-against"


def play_compare(card_sets: dict[str, CardSet], spec: PolicySpec, seed: int, games: int,
                 precision: float | None, max_games: int,
                 where: dict, cards_named: str = "") -> dict[str, list[pd.DataFrame]]:
    """Play batches of ``games`` of every set, while any set is still imprecise with
    ``precision`` (one batch without it); ``where``: ``kept_batch``'s workers,
    scheduler, progress, folder and resume; ``cards_named``: what a message adds after a
    set's name to say which card set plays it (a card change plays two). Returns each
    set's batches, by label."""
    from analyzer.analysis.compare import compare_table

    parts: dict[str, list[pd.DataFrame]] = {label: [] for label in card_sets}
    active = list(card_sets)
    batch = 0
    while active:
        for label in active:
            parts[label].append(play_compare_batch(card_sets[label], spec, seed, batch, games,
                                                   label, where, cards_named))
        batch += 1
        if precision is None:
            break
        try:
            precise = sets_precise(compare_table({label: joined_batches(frames)
                                                  for label, frames in parts.items()},
                                                 ranks=False), precision)
        except KeyboardInterrupt:  # every batch so far is saved: say so
            folder = where.get("folder")
            raise stopped_between_batches(
                None if folder is None else folder / "results") from None
        active = still_imprecise(active, precise, (batch + 1) * games <= max_games)
    return parts


def play_compare_batch(card_set: CardSet, spec: PolicySpec, seed: int, batch: int,
                       games: int, label: str, where: dict, cards_named: str) -> pd.DataFrame:
    """Batch ``batch`` of set ``label``: its ``games`` games, a stop or a policy's failure
    naming the set (``cards_named`` after it: with which card set) and the games."""
    with part_of(f"compare, set {label}{cards_named} (games {batch * games:,} to "
                 f"{(batch + 1) * games - 1:,})"):
        return kept_batch(card_set, spec, seed, batch * games, games, label=label, **where)


def with_finished_sets(err: RunStopped, folder: Path | None,
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


def compare_destination(out: str | Path, resume: bool) -> tuple[Path, bool]:
    """The folder ``out`` names, checked before a comparison makes or reads it: not a file,
    in a folder it may write in, there already for ``resume``; and whether it is still to
    be made."""
    from analyzer.atomic import probe_folder, require_folder

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
    return folder, made


def compare_folder(out: str | Path, resume: bool, games: int, labels: list[str]) -> Path:
    """The comparison's folder, made: a new or empty one, or with ``resume`` one an
    interrupted comparison of the same batch size left (a folder is never mixed with
    another comparison's files)."""
    from analyzer.reporting.folders import FOLDER_MARK, folder_mark

    folder, made = compare_destination(out, resume)
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
            check_batch(path, games, labels)
        (folder / "results").mkdir(parents=True, exist_ok=True)
        if not held:  # rewriting a comparison's mark on a full disk would empty it
            (folder / FOLDER_MARK).write_text("compare\n", encoding="utf-8")
    except OSError as err:
        if not held:  # what was made here, a full disk say, is taken back
            unmake_if_unused(folder, made)
        raise UrbionError(f"cannot use {folder}: {err.strerror or err}") from None
    return folder


def unmake_if_unused(folder: Path, made: bool) -> None:
    """After a comparison stopped before it saved anything (no batch, no chunk in
    ``results/``): take back what :func:`compare_folder` added, and the folder itself if
    it made it, so that the same command runs again as a new comparison."""
    from analyzer.reporting.folders import FOLDER_MARK

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


def check_batch(path: Path, games: int, labels: list[str], run: str = "comparison",
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


def kept_batch(card_set: CardSet, spec: PolicySpec, seed: int, first: int, games: int,
               workers, scheduler, progress, folder: Path | None, label: str,
               resume: bool) -> pd.DataFrame:
    """Games ``first .. first + games - 1`` of one set: played, resumed, or read back."""
    if folder is None:
        return simulation.simulate(games=games, seed=seed, policy=spec, workers=workers,
                                   cards=card_set, first_game=first, scheduler=scheduler,
                                   progress=progress)
    from analyzer.analysis.results_io import ResultsFileError, read_results

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
    return simulation.simulate(games=games, seed=seed, policy=spec, workers=workers,
                               cards=card_set, first_game=first, scheduler=scheduler,
                               progress=progress, out=path,
                               resume=resume and partial_folder(path).exists())


def stopped_between_batches(kept_in: Path | str | None) -> RunStopped:
    """A stop while the sets played so far were weighed: every batch is saved, in
    ``kept_in`` (None: nowhere, no folder was given)."""
    kept = "" if kept_in is None else (
        f": every set's games so far are in {kept_in}; run the same command with --resume "
        "(resume=True in Python) to continue")
    return RunStopped(f"{interrupts.stop_word()} between two batches{kept}", True)


def sets_precise(table: pd.DataFrame, precision: float) -> pd.Series:
    """Per set of a compare table: whether the half-widths of its win rate's interval and
    of its difference to the base game's interval are both at most ``precision``."""
    from analyzer.analysis.expansion_sets import BASE

    own = (table["ci_high"] - table["ci_low"]) / 2 <= precision
    difference = (table["diff_high"] - table["diff_low"]) / 2 <= precision
    return own & (difference | (table.index == BASE))


def still_imprecise(active: list[str], precise: pd.Series, room: bool) -> list[str]:
    """The sets that play another batch: those not yet precise while another batch fits
    under max-games, and the base game as long as any other set plays, so that every
    difference is taken over all of that set's games."""
    from analyzer.analysis.expansion_sets import BASE

    if not room:
        return []
    others = [label for label in active if label != BASE and not precise[label]]
    base = BASE in active and (others or not precise[BASE])
    return [label for label in active if label in others or (label == BASE and base)]


def joined_batches(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One set's batches as one run (the first batch's configuration, all the games)."""
    # read before df.attrs is replaced: a set of one batch is that batch's frame itself
    commit = joined_commit([frame.attrs for frame in frames])
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    df.attrs = {**frames[0].attrs, "games": int(len(df))}
    df.attrs.pop("commit", None)
    if commit is not None:
        df.attrs["commit"] = commit
    return df
