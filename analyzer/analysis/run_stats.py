"""Per-run figures behind the balance report, as DataFrames (one row per game in, tables
out): headline, survival by turn, convergence of the estimate, loss reasons, margins."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analyzer.analysis.expansion_sets import set_label
from analyzer.analysis.interactions import common_wins, shown_on_odds
from analyzer.analysis.stats import (
    ODDS_FIGURES,
    fisher_exact,
    holm_adjust,
    independent_odds_ratio,
    log_odds_contrast,
    newcombe_difference,
    paired_difference,
    wilson_interval,
)
from analyzer.analysis.summary import mean_columns, summarize_tally
from analyzer.analysis.totals import Totals, frame_totals, joined_attrs, joined_totals
from analyzer.core.codes import PLAYABLE_EXPANSIONS
from analyzer.errors import UrbionError
from analyzer.runner.config import RUN_IDENTITY
from analyzer.runner.tally import part

#: A run as a report reads it: a results file's rows, or a summary file's totals.
Run = pd.DataFrame | Totals


def run_label(attrs: dict, fallback: str) -> str:
    """A short name for a run: its policy, expansions ("all" for the seven: a chart's
    legend has no room for their names), variant (team only) and seed."""
    played = list(attrs.get("expansions") or [])
    expansions = "all" if set(played) == set(PLAYABLE_EXPANSIONS) else "+".join(played) or \
        "base"
    team = " / team" if attrs.get("variant") == "team" else ""
    return (f"{attrs.get('policy', fallback)} / {expansions}{team} / seed "
            f"{attrs.get('seed', '?')}")


def join_pieces(frames: list[tuple[Path, Run]]) -> list[tuple[Path, Run]]:
    """Join the results files that are pieces of one run, keeping the order of first
    appearance: files that share every ``RUN_IDENTITY`` value and whose games, sorted,
    follow one another without gap or overlap (a summary beside results files joins them
    as totals). A piece after a gap begins a separate run (two samples of one
    configuration, which a user may compare); pieces whose games overlap are refused: the
    same configuration on the same games plays them alike, so a comparison of them would
    show a difference of exactly zero that measures nothing.

    Parameters
    ----------
    frames : list of (path, run)
        Results files as read by ``results_io.read_run`` (rows, or a summary's totals),
        with their configuration in ``attrs``.

    Returns
    -------
    list of (path, run)
        One entry per run; a joined run carries the first piece's path, its games in game
        order, and ``attrs`` with ``first_game``, ``games``, ``games_resumed`` and
        ``seconds`` of the whole and ``joined_files``, the number of pieces.
    """
    groups: dict[tuple, list[int]] = {}
    for index, (_, df) in enumerate(frames):
        # a file from before engine_source joins only files that lack it too: its code is
        # not known, and games of two codes must never be joined
        key = tuple(repr(df.attrs.get(name)) for name in RUN_IDENTITY)
        groups.setdefault(key, []).append(index)
    joined: dict[int, tuple[Path, Run]] = {}
    for members in groups.values():
        _refuse_overlap([frames[i] for i in members])
        ordered = sorted(members, key=lambda i: frames[i][1].attrs.get("first_game", 0))
        for chain in _chains(ordered, [frames[i][1] for i in ordered]):
            whole = _joined([frames[i][1] for i in chain]) if len(chain) > 1 else None
            if whole is None:
                joined.update((i, frames[i]) for i in chain)
            else:
                joined[min(chain)] = (frames[min(chain)][0], whole)
    return [joined[i] for i in sorted(joined)]


def _chains(indices: list[int], pieces: list[Run]) -> list[list[int]]:
    """The pieces of one configuration (sorted by first game) as runs of consecutive games:
    a piece after a gap begins a run of its own."""
    chains: list[list[int]] = []
    end = None  # one past the last game of the current run of pieces
    for index, piece in zip(indices, pieces, strict=True):
        first = piece.attrs.get("first_game", 0)
        if chains and first == end and _whole_range(piece, first):
            chains[-1].append(index)
        else:
            chains.append([index])
        end = first + len(piece) if _whole_range(piece, first) else None
    return chains


def _whole_range(run: Run, first: int) -> bool:
    """Whether a run holds exactly the games from ``first`` on, one each (a summary's games
    are its range)."""
    return isinstance(run, Totals) or np.array_equal(np.sort(run["game"].to_numpy()),
                                                     np.arange(first, first + len(run)))


def _joined(pieces: list[Run]) -> Run | None:
    """Consecutive pieces of one run as one: rows joined, or totals added where any piece
    is a summary (a results file's rows then counted into a tally); None where a results
    file lacks a column a tally counts (one of an older version)."""
    if not any(isinstance(piece, Totals) for piece in pieces):
        return _joined_run(pieces)
    totals = [piece if isinstance(piece, Totals) else frame_totals(piece) for piece in pieces]
    return None if any(one is None for one in totals) else joined_totals(totals)


def _refuse_overlap(frames: list[tuple[Path, Run]]) -> None:
    """Refuse two results files of one configuration (``RUN_IDENTITY``) that share games."""
    pair = _overlapping_pair([run for _, run in frames])
    if pair is None:
        return
    (path, df), (other_path, other) = frames[pair[0]], frames[pair[1]]
    shared, first = _shared_games(df, other)
    differing = _first_game_ended_otherwise(df, other)
    if differing is not None:
        raise UrbionError(
            f"{path} and {other_path} name one configuration (seed {df.attrs.get('seed')}, "
            f"the same card set, policy and rules) but end game {differing} differently: "
            "one of them was edited or made by other code, and a report cannot tell which "
            "holds the games that configuration plays")
    raise UrbionError(
        f"{path} and {other_path} hold the same games of one configuration "
        f"({shared:,} games from game {first} of seed "
        f"{df.attrs.get('seed')}, the same card set, policy and rules), which "
        "it plays alike: a run compared with itself says nothing; give each "
        "game once (pieces of a run that follow one another are joined)")


def _overlapping_pair(runs: list[Run]) -> tuple[int, int] | None:
    """Two runs (by index, in order) that share a game, or None: each run's games as ranges
    of consecutive numbers, swept in order of their first game, so that a hundred pieces of
    a comparison are checked at once, not pair by pair."""
    spans = sorted((low, high, owner) for owner, run in enumerate(runs)
                   for low, high in _game_ranges(run))
    reach, reacher = -1, -1  # the furthest end of a range so far, and whose it is
    for low, high, owner in spans:
        if low < reach and reacher != owner:
            return min(reacher, owner), max(reacher, owner)
        if high > reach:
            reach, reacher = high, owner
    return None


def _game_ranges(run: Run) -> list[tuple[int, int]]:
    """A run's games as ranges of consecutive numbers, (first, one past the last)."""
    if isinstance(run, Totals):
        return [run.games_range]
    games = np.sort(run["game"].to_numpy())
    if not len(games):
        return []
    breaks = np.flatnonzero(np.diff(games) != 1)
    starts = games[np.concatenate(([0], breaks + 1))]
    stops = games[np.concatenate((breaks, [len(games) - 1]))] + 1
    return list(zip(starts.tolist(), stops.tolist(), strict=True))


#: The columns in which two plays of one game must agree.
ENDING = ("won", "reason", "turns", "pacified", "deck_left")


def _first_game_ended_otherwise(a: Run, b: Run) -> int | None:
    """The first game two results files both hold and end differently (``ENDING``), or
    None; a summary lists no games to compare."""
    if isinstance(a, Totals) or isinstance(b, Totals):
        return None
    columns = [c for c in ENDING if c in a.columns and c in b.columns]
    both = a[["game", *columns]].merge(b[["game", *columns]], on="game")
    differ = np.zeros(len(both), dtype=bool)
    for column in columns:  # as objects: two files' categories of reason may differ
        one = both[f"{column}_x"].astype(object).to_numpy()
        other = both[f"{column}_y"].astype(object).to_numpy()
        differ |= (one != other) & ~(pd.isna(one) & pd.isna(other))
    return int(both.loc[differ, "game"].min()) if differ.any() else None


def _shared_games(a: Run, b: Run) -> tuple[int, int]:
    """How many games two runs both played, and the first of them: a summary's games are
    a range, compared as one (a summary of 10**8 games lists none of them)."""
    if isinstance(b, Totals) and not isinstance(a, Totals):
        a, b = b, a
    if isinstance(a, Totals):
        low, high = a.games_range
        if isinstance(b, Totals):
            start, stop = max(low, b.games_range[0]), min(high, b.games_range[1])
            return max(stop - start, 0), start
        games = b["game"].to_numpy()
        inside = np.sort(games[(games >= low) & (games < high)])
        return len(inside), int(inside[0]) if len(inside) else 0
    common = np.intersect1d(a["game"].to_numpy(), b["game"].to_numpy())
    return len(common), int(common[0]) if len(common) else 0


def _joined_run(pieces: list[pd.DataFrame]) -> pd.DataFrame:
    """One run's pieces, in order, as one results frame with the whole run's attrs."""
    df = pd.concat(pieces, ignore_index=True)
    df.attrs = joined_attrs([piece.attrs for piece in pieces], len(df))
    return df


def headline(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run: games, wins, win rate with its 95% Wilson interval, mean turns and
    mean cities pacified with their 95% t-intervals (:func:`mean_columns`)."""
    rows = []
    for label, df in runs.items():
        wins, games = _wins(df), len(df)
        low, high = wilson_interval(wins, games)
        rows.append({"run": label, "games": games, "wins": wins, "win_rate": wins / games,
                     "ci_low": low, "ci_high": high, **_means(df)})
    return pd.DataFrame(rows).set_index("run")


def _wins(run: Run) -> int:
    return run.wins if isinstance(run, Totals) else int(run["won"].sum())


def _means(run: Run) -> dict[str, float]:
    """:func:`mean_columns` of a run, from its rows or its tally (the same figures)."""
    if not isinstance(run, Totals):
        return mean_columns(run)
    summary = summarize_tally(run.tally, run.attrs.get("expansions"),
                              run.attrs.get("city_cards"), run.attrs.get("variant", "solo"))
    return {"mean_turns": summary["mean_turns"], "turns_low": summary["turns_ci"][0],
            "turns_high": summary["turns_ci"][1], "mean_pacified": summary["mean_pacified"],
            "pacified_low": summary["pacified_ci"][0],
            "pacified_high": summary["pacified_ci"][1]}


def differences(runs: dict[str, pd.DataFrame],
                baselines: dict[str, str] | None = None) -> pd.DataFrame:
    """Each run's win rate against the first run's, one row per later run; with
    ``baselines`` (run label to the label of the run it is compared with), one row per run
    it names, against its own baseline.

    Runs of the seed of the run they are compared with are paired game by game over the
    games both played (a game number of one seed draws from the same random streams of
    (seed, g) in both; the deals differ where the card sets or expansions do): the
    difference over those games, Newcombe's square-and-add interval for paired
    proportions and McNemar's exact p. Runs of another seed, or of no common game, are
    independent samples: the difference of the whole runs, Newcombe's hybrid score interval,
    and Fisher's exact p. Columns: ``against``, ``games`` and ``against_games`` (the games
    compared of each: the common games when paired, else each run's own), ``win_rate`` and
    ``against_rate`` (the two win rates
    the difference is taken between: over the common games when paired), ``difference``,
    ``low``, ``high``, ``paired`` (bool), ``whole`` (bool: the paired games are all of both
    runs), ``p`` and ``test`` (McNemar or Fisher), ``mcnemar_p`` (NaN when independent),
    ``alike`` (bool: paired, and every common game ended alike, :func:`played_alike`),
    ``informative`` (bool: the test can reject, some paired game ended otherwise, or the
    two runs hold a win and a loss; :func:`stats.holm_adjust` counts only those).
    """
    if baselines is None:
        first_label, *others = runs
        baselines = {label: first_label for label in others}
    rows = [_difference_row(label, runs[label], against, runs[against])
            for label, against in baselines.items()]
    return pd.DataFrame(rows, columns=["run", "against", "games", "against_games",
                                       "win_rate", "against_rate",
                                       "difference", "low", "high", "paired", "whole", "p",
                                       "test", "mcnemar_p", "alike", "informative"]
                        ).set_index("run")


def _difference_row(label: str, df: Run, against_label: str, baseline: Run) -> dict:
    """One row of :func:`differences`: run ``label`` (``df``) against ``baseline``."""
    row = {"run": label, "against": against_label}
    common = _common_games(baseline, df)
    if len(common):
        won = _won_on(df, common)
        baseline_won = _won_on(baseline, common)
        paired = paired_difference(won, baseline_won)
        row.update(games=len(common), against_games=len(common), win_rate=won.mean(),
                   against_rate=baseline_won.mean(),
                   difference=paired["difference"], low=paired["diff_low"],
                   high=paired["diff_high"], paired=True,
                   whole=len(common) == len(df) == len(baseline), p=paired["mcnemar_p"],
                   test="McNemar", mcnemar_p=paired["mcnemar_p"],
                   informative=paired["set_only"] + paired["base_only"] > 0,
                   alike=played_alike(df[df["game"].isin(common)],
                                      baseline[baseline["game"].isin(common)]))
    else:
        wins, baseline_wins = _wins(df), _wins(baseline)
        low, high = newcombe_difference(wins, len(df), baseline_wins, len(baseline))
        row.update(games=len(df), against_games=len(baseline), win_rate=wins / len(df),
                   against_rate=baseline_wins / len(baseline),
                   difference=wins / len(df) - baseline_wins / len(baseline), low=low,
                   high=high, paired=False, whole=False,
                   p=fisher_exact(wins, len(df), baseline_wins, len(baseline)), test="Fisher",
                   mcnemar_p=np.nan, alike=False,
                   informative=0 < wins + baseline_wins < len(df) + len(baseline))
    return row


#: The columns of :func:`effect_contrasts`.
EFFECT_COLUMNS = ["set", "first", "second", "first_run", "second_run", "paired",
                  "first_games", "second_games", "first_odds", "second_odds", "ratio", "low",
                  "high", "p", "holm_p", "shown"]


def effect_contrasts(runs: dict[str, Run], baselines: dict[str, str]) -> pd.DataFrame:
    """Whether a set changes two base games' odds of winning alike: one row for each set
    compared with each of two base games, for every two base games of ``baselines`` (run
    label to the label of its base game), in the order first named; of two runs of one set
    against one base game, the one :func:`effect_runs` picks.

    A set's effect on a base game is the factor it multiplies its odds of winning by,
    odds(set) / odds(base) (odds = p / (1 - p)); the row's ``ratio`` is the first base
    game's factor over the second's, 1 where the set changes both alike. Where the four
    runs are of one seed and share game numbers, the factors, the ratio's 95% interval
    and its p are ``stats.log_odds_contrast``'s over the games all four played, paired
    game by game (a game of one number draws from the same random streams in each);
    otherwise each factor is over its own comparison's games, and the two comparisons,
    of other seeds or other games, are independent (``stats.independent_odds_ratio``).
    Columns: ``set`` (as ``expansion_sets.set_label``), ``first`` and ``second`` (the base
    games), ``first_run`` and ``second_run`` (the set's runs), ``paired`` (bool),
    ``first_games`` and ``second_games`` (the games each factor is over: 0 where a run
    is a summary, which holds no game to pair), ``first_odds`` and ``second_odds``,
    ``ratio``, ``low``, ``high``, ``p`` (NaN where a run has too few wins or losses, or
    two runs too few games that differ; 1 with no interval where no game departs),
    ``holm_p`` (Holm's method over the rows with an interval), ``shown`` (bool,
    ``compare.shown_on_odds``: the set shown to weigh otherwise on the two base games)."""
    by_base = effect_runs(runs, baselines)
    bases = list(by_base)
    rows = [_effect_row(runs, name, first, second, run, by_base[second][name])
            for i, first in enumerate(bases) for second in bases[i + 1:]
            for name, run in by_base[first].items() if name in by_base[second]]
    table = pd.DataFrame(rows, columns=EFFECT_COLUMNS[:-2])
    table["holm_p"] = holm_adjust(table["p"].tolist(), table["low"].notna().tolist())
    table["shown"] = shown_on_odds(table["holm_p"], table["low"], table["high"])
    return table


def effect_runs(runs: dict[str, Run], baselines: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each base game of ``baselines`` to its sets' runs by set name: of two runs of one
    set against it, the one that shares the most games with it (the first given of a
    tie), as a run is paired with its base game."""
    by_base: dict[str, dict[str, str]] = {}
    for label, base in baselines.items():
        name = set_label(tuple(runs[label].attrs.get("expansions") or []))
        held = by_base.setdefault(base, {}).get(name)
        if held is None or shared_game_count(runs[label], runs[base]) > \
                shared_game_count(runs[held], runs[base]):
            by_base[base][name] = label
    return by_base


def effect_runs_set_aside(runs: dict[str, Run], baselines: dict[str, str]) -> list[str]:
    """The runs of a set weighed against two base games that :func:`effect_runs` leaves
    out for another run of that set against the same base game."""
    by_base = effect_runs(runs, baselines)
    weighed = {name for i, one in enumerate(by_base.values())
               for other in list(by_base.values())[i + 1:] for name in one if name in other}
    kept = {label for sets in by_base.values() for label in sets.values()}
    return [label for label in baselines if label not in kept and
            set_label(tuple(runs[label].attrs.get("expansions") or [])) in weighed]


def _effect_row(runs: dict[str, Run], name: str, first: str, second: str, first_run: str,
                second_run: str) -> dict:
    """One row of :func:`effect_contrasts`."""
    row = {"set": name, "first": first, "second": second, "first_run": first_run,
           "second_run": second_run}
    four = [runs[first_run], runs[first], runs[second_run], runs[second]]
    seeds = {run.attrs.get("seed") for run in four}
    if len(seeds) == 1 and None not in seeds and \
            not any(isinstance(run, Totals) for run in four):
        wins = common_wins(*four)
        if len(wins[0]):
            contrast = log_odds_contrast(wins, [1, -1, -1, 1])
            return row | {"paired": True, "first_games": len(wins[0]),
                          "second_games": len(wins[0]),
                          "first_odds": log_odds_contrast(wins[:2], [1, -1])["ratio"],
                          "second_odds": log_odds_contrast(wins[2:], [1, -1])["ratio"],
                          **_figures(contrast)}
    (first_games, first_odds), (second_games, second_odds) = \
        _set_odds(*four[:2]), _set_odds(*four[2:])
    return row | {"paired": False, "first_games": first_games, "second_games": second_games,
                  "first_odds": first_odds["ratio"], "second_odds": second_odds["ratio"],
                  **_figures(independent_odds_ratio(first_odds, second_odds))}


def _set_odds(set_run: Run, base: Run) -> tuple[int, dict[str, float]]:
    """A set's factor on its base game's odds of winning over the games both played
    (``stats.log_odds_contrast``), and how many; none with a summary."""
    common = _common_games(set_run, base)
    if not len(common):
        return 0, dict.fromkeys(ODDS_FIGURES, np.nan)
    return len(common), log_odds_contrast([_won_on(set_run, common), _won_on(base, common)],
                                          [1, -1])


def _figures(contrast: dict[str, float]) -> dict[str, float]:
    """The ratio, interval and p of a contrast, as a row of :func:`effect_contrasts`."""
    return {key: contrast[key] for key in ("ratio", "low", "high", "p")}


def played_alike(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """True when two runs of the same deals ended every deal alike: every per-game column
    they share (result, reason, turns, cities, each tally) equal, game by game."""
    columns = [name for name in a.columns if name in b.columns]
    left = a[columns].set_index("game").sort_index()
    right = b[columns].set_index("game").sort_index()
    return bool(left.index.equals(right.index) and left.equals(right))


def shared_game_count(a: Run, b: Run) -> int:
    """How many games two runs can be paired on (:func:`differences`)."""
    return len(_common_games(a, b))


def _common_games(a: Run, b: Run) -> np.ndarray:
    """The game numbers two runs of one seed both played, ascending (none across seeds,
    and none with a summary, whose games cannot be paired one by one)."""
    if a.attrs.get("seed") is None or a.attrs.get("seed") != b.attrs.get("seed") or \
            isinstance(a, Totals) or isinstance(b, Totals):
        return np.zeros(0, dtype=np.int64)
    return np.intersect1d(a["game"].to_numpy(), b["game"].to_numpy())


def _won_on(df: pd.DataFrame, games: np.ndarray) -> np.ndarray:
    """Whether each of ``games`` (ascending, all played in ``df``) was won."""
    ordered = df.sort_values("game")
    at = np.searchsorted(ordered["game"].to_numpy(), games)
    return ordered["won"].to_numpy(dtype=bool)[at]


def survival(df: Run) -> pd.Series:
    """Share of games still running after each turn (index: turn 0 .. the longest game)."""
    if isinstance(df, Totals):
        # games of 511 turns or more share the histogram's last bin: none comes near, a
        # turn draws a card and no deck holds so many
        ends = part(df.tally, "turns_hist")
        ends = ends[:int(np.flatnonzero(ends)[-1]) + 1]
    else:
        turns = df["turns"].to_numpy()
        ends = np.bincount(turns, minlength=turns.max() + 1)
    # a count over the games, not 1 less a share: 4201/10000 prints as 0.4201
    still = (len(df) - np.cumsum(ends)) / len(df)
    return pd.Series(still, index=pd.RangeIndex(len(still), name="turn"), name="running")


def convergence(df: pd.DataFrame, points: int = 60) -> pd.DataFrame:
    """The win-rate estimate and its 95% interval after the first n games, at ``points``
    values of n spaced evenly on a log scale."""
    won = df.sort_values("game")["won"].to_numpy()
    counts = np.unique(np.geomspace(1, len(won), points).astype(int))
    wins = np.cumsum(won)[counts - 1]
    bounds = [wilson_interval(int(w), int(n)) for w, n in zip(wins, counts, strict=True)]
    return pd.DataFrame({"games": counts, "win_rate": wins / counts,
                         "ci_low": [b[0] for b in bounds], "ci_high": [b[1] for b in bounds]})


def loss_reasons(df: Run) -> pd.Series:
    """Number of lost games by reason: every reason the run's rules have
    (:func:`loss_reasons_in_play`), a reason no game met at 0 (a zero is a finding), then
    any other one a game recorded."""
    lost = df.loss_reasons() if isinstance(df, Totals) else \
        df.loc[~df["won"], "reason"].astype(str).value_counts()
    lost.index = lost.index.astype(str)
    reasons = list(dict.fromkeys([*loss_reasons_in_play(df), *lost.index]))
    return lost.reindex(reasons, fill_value=0).astype("int64").rename("count")


def loss_reasons_in_play(df: Run) -> list[str]:
    """The ways a run's games can be lost: the Dream deck running out always, the
    Emptiness with The Emptiness (R12.2), the inhabitant sum with the Postcards (R11.9)."""
    played = df.attrs.get("expansions") or []
    return ["deck_empty", *(["emptiness"] if "emptiness" in played else []),
            *(["inhabitants"] if "postcards" in played else [])]


def margin_at_victory(df: pd.DataFrame) -> pd.Series:
    """Wins by Dream cards left in the deck at the moment of victory, every number between
    the fewest and the most, at 0 where no win ended so (the chart's line goes through
    them)."""
    return _every_value(df.loc[df["won"], "deck_left"].value_counts())


def pacified_at_defeat(df: pd.DataFrame) -> pd.Series:
    """Lost games by City cards pacified, every number between the fewest and the most, at
    0 where no loss ended so."""
    return _every_value(df.loc[~df["won"], "pacified"].value_counts())


def _every_value(counts: pd.Series) -> pd.Series:
    """``counts`` over every whole number from its least index to its greatest."""
    if not len(counts):
        return counts.sort_index()
    return counts.reindex(range(int(counts.index.min()), int(counts.index.max()) + 1),
                          fill_value=0)


#: The Chromatic Chaos' entry of :func:`chaos_choices`.
CHROMATIC_RESOLVED = "Chromatic Chaos resolved"


def chaos_choices(df: pd.DataFrame, chromatic: bool = False) -> pd.Series:
    """Mean number per game of each way a Chaos was taken (placed: from the opening hand
    at setup too; cleared and revealed: Phase II draws), and with
    ``chromatic`` of Chromatic Chaos resolved (R07; drawn at any time)."""
    columns = {"placed": "chaos_placed", "cleared a city": "chaos_cleared",
               "revealed": "chaos_revealed"}
    if chromatic:
        columns[CHROMATIC_RESOLVED] = "chromatic"
    if isinstance(df, Totals):
        return pd.Series({name: df.total(col) / len(df) for name, col in columns.items()})
    # a results file of an older version may lack a count: no bar rather than a wrong 0
    return pd.Series({name: df[col].mean() if col in df else float("nan")
                      for name, col in columns.items()})


def played_chromatic(run: Run) -> bool:
    """Whether any game of a run resolved a Chromatic Chaos."""
    if isinstance(run, Totals):
        return run.total("chromatic") > 0
    return "chromatic" in run and bool(run["chromatic"].any())


def chart_data(runs: dict[str, Run], stem: str) -> pd.DataFrame:
    """The numbers a report chart (``stem``, ``reporting.balance_report.CHARTS``) draws, one row per
    point or bar, the run first: what a reader quotes or checks (``STEM.csv`` beside the
    chart). A summary's run has no rows in the charts that need each game."""
    chromatic = any(played_chromatic(df) for df in runs.values())
    parts = []
    for label, df in runs.items():
        part_of_run = _chart_rows(df, stem, chromatic)
        if part_of_run is not None:
            parts.append(part_of_run.assign(run=label))
    if not parts:
        return pd.DataFrame({"run": []})
    table = pd.concat(parts, ignore_index=True)
    return table[["run", *(c for c in table.columns if c != "run")]]


def _chart_rows(df: Run, stem: str, chromatic: bool) -> pd.DataFrame | None:
    games = len(df)
    if stem == "survival":
        return survival(df).reset_index()
    if stem == "loss_reasons":
        lost = loss_reasons(df)
        return pd.DataFrame({"reason": lost.index.astype(str), "games": lost.to_numpy(),
                             "share_of_games": lost.to_numpy() / games})
    if stem == "chaos_choices":
        means = chaos_choices(df, chromatic)
        return pd.DataFrame({"choice": means.index, "per_game": means.to_numpy()})
    if isinstance(df, Totals):  # the rest needs each game
        return None
    if stem == "margin_at_victory":
        wins = margin_at_victory(df)
        return pd.DataFrame({"deck_left": wins.index, "wins": wins.to_numpy()})
    if stem == "pacified_at_defeat":
        losses = pacified_at_defeat(df)
        return pd.DataFrame({"pacified": losses.index, "losses": losses.to_numpy()})
    if stem == "convergence":
        return convergence(df)
    raise ValueError(f"no chart data named {stem!r}")
