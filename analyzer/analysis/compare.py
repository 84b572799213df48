"""Expansion sets compared on games paired by number: the table, paired tests and
interactions.

Every set plays the same games of one seed (common random numbers), so the difference
between a set and the base game is estimated game by game: the games one won and the
other lost (the discordant pairs) carry the whole difference, and McNemar's exact test
asks whether they split evenly. Holm's correction keeps the family of tests at 5%.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd

from analyzer.analysis.stats import (
    EDGE_NOTE,
    ODDS_MIN_OUTCOMES,
    SIGNIFICANCE,
    format_p,
    holm_adjust,
    holm_cell,
    holm_family,
    log_odds_contrast,
    mcnemar_exact,
    mcnemar_exact_many,
    paired_difference_interval,
    sign_flip_p,
    signed_pp,
    t95,
    wilson_interval,
)
from analyzer.analysis.summary import mean_columns
from analyzer.analysis.totals import Totals
from analyzer.cards.loader import did_you_mean
from analyzer.core.codes import PLAYABLE_EXPANSIONS
from analyzer.errors import UrbionError
from analyzer.wording import spoken_list

BASE = "base"
SET_SEPARATOR = "+"


#: The expansions' names as the box prints them, for the charts a reader publishes.
EXPANSION_TITLES = {"squares_metas": "City Squares & Metas", "chromatic_chaos": "Chromatic Chaos",
                    "temples_harmony": "Temples & Harmony",
                    "gardens_wizards": "Hanging Gardens & Wizards", "books": "Books of Power",
                    "postcards": "Postcards & Wise Chaos", "emptiness": "The Emptiness"}


def set_title(label: str) -> str:
    """A set's name as a reader knows it: "base game", or its expansions' titles joined by
    " + " (an unknown name stays as it is)."""
    if label == BASE:
        return "base game"
    return " + ".join(EXPANSION_TITLES.get(name, name) for name in label.split(SET_SEPARATOR))


def titled_interactions(table: pd.DataFrame) -> pd.DataFrame:
    """An :func:`interactions` table as the heatmap shows it: its pairs in the game's order
    of the expansions (TRACE.md), whatever order the sets were given or read in, each
    expansion named by :func:`set_title`."""
    def place(name: str) -> int:
        return PLAYABLE_EXPANSIONS.index(name) if name in PLAYABLE_EXPANSIONS \
            else len(PLAYABLE_EXPANSIONS)

    swap = [place(a) > place(b) for a, b in zip(table["first"], table["second"], strict=True)]
    first = table["first"].where(~pd.Series(swap, index=table.index), table["second"])
    second = table["second"].where(~pd.Series(swap, index=table.index), table["first"])
    ordered = table.assign(first=first, second=second)
    keys = [(place(a), place(b)) for a, b in zip(ordered["first"], ordered["second"],
                                                  strict=True)]
    ordered = ordered.iloc[sorted(range(len(keys)), key=keys.__getitem__)]
    return ordered.assign(first=ordered["first"].map(set_title),
                          second=ordered["second"].map(set_title))


def chart_table(table: pd.DataFrame) -> pd.DataFrame:
    """A :func:`compare_table` as the charts show it: the hardest set first (by rank, ties in
    the table's order), each named by :func:`set_title`."""
    ordered = table.assign(order=range(len(table))).sort_values(["rank", "order"])
    return ordered.drop(columns="order").rename(index=set_title)


def chart_members(table: pd.DataFrame) -> pd.DataFrame:
    """Which expansions each set of a :func:`compare_table` holds, in the rows and order of
    its :func:`chart_table` (index: the sets' titles): one bool column per expansion that
    any set holds, named by its printed name, in TRACE.md order."""
    ordered = chart_table(table).index
    labels = table.assign(order=range(len(table))).sort_values(["rank", "order"]).index
    held = [set(label.split(SET_SEPARATOR)) if label != BASE else set() for label in labels]
    names = [name for name in EXPANSION_TITLES if any(name in h for h in held)]
    return pd.DataFrame([[name in h for name in names] for h in held], index=ordered,
                        columns=[EXPANSION_TITLES[name] for name in names], dtype=bool)


#: The words --sets takes for groups of sets.
SET_WORDS = ("singles", "pairs", "all")


def set_label(expansions: tuple[str, ...]) -> str:
    """A set's name: ``base``, or its expansions joined by ``+`` in TRACE.md order."""
    return SET_SEPARATOR.join(expansions) or BASE


class SetRuns(dict):
    """Runs by set name (``set_label``): a name with its expansions in another order, or
    ``none`` for ``base``, finds the same run, as ``--sets`` reads it; ``all`` finds the
    set of every expansion, as ``--expansions all`` names it (and a report its run)."""

    def __missing__(self, key: object) -> pd.DataFrame:
        if isinstance(key, str):
            try:
                played = PLAYABLE_EXPANSIONS if key.strip().lower() == "all" else \
                    _parse_set(key.lower(), PLAYABLE_EXPANSIONS)
            except UrbionError:
                played = None
            label = None if played is None else set_label(played)
            if label is not None and label != key and dict.__contains__(self, label):
                return self[label]
        raise KeyError(f"no set {key!r} in this comparison; its sets: "
                       f"{', '.join(map(str, self))}")

    def __contains__(self, key: object) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def get(self, key: object, default: object = None) -> object:
        try:
            return self[key]
        except KeyError:
            return default


def expansion_sets(spec: str, playable: tuple[str, ...] = PLAYABLE_EXPANSIONS
                   ) -> list[tuple[str, ...]]:
    """The sets ``compare --sets`` names, the base game first.

    ``singles``: the base game and each expansion alone; ``pairs``: those and every pair;
    ``all``: every combination; otherwise a comma-separated list of sets, each ``base`` or
    expansion names joined by ``+`` (the base game is added when missing: every set is
    compared with it).
    """
    spec = spec.strip().lower()
    if spec == "singles":
        sets = [(), *[(name,) for name in playable]]
    elif spec == "pairs":
        sets = [(), *[(name,) for name in playable], *combinations(playable, 2)]
    elif spec == "all":
        sets = [tuple(name for bit, name in enumerate(playable) if mask >> bit & 1)
                for mask in range(1 << len(playable))]
        sets.sort(key=len)
    else:
        items = spec.split(",") if spec else []
        if any(not item.strip() for item in items):
            raise UrbionError(f"sets: an empty set in {spec!r} (separate sets with ,)")
        for item in items:
            if item.strip() in ("singles", "pairs", "all"):
                every = SET_SEPARATOR.join(playable)
                raise UrbionError(f"sets: {item.strip()!r} stands alone: it cannot be "
                                  "listed with other sets" +
                                  (f" (the set of every expansion is {every})"
                                   if item.strip() == "all" else ""))
        sets = [_parse_set(item, playable) for item in items]
        if not sets:
            raise UrbionError("sets: no expansion set given")
        _refuse_repeats(items, sets)
        if () not in sets:
            sets.insert(0, ())
    unique = list(dict.fromkeys(sets))
    unique.sort(key=lambda s: s != ())
    return unique


def _refuse_repeats(items: list[str], sets: list[tuple[str, ...]]) -> None:
    """Refuse a set listed twice ("base,base", "books,base+books"): a slip for another set,
    most likely, as an expansion named twice within a set is."""
    first: dict[tuple[str, ...], str] = {}
    for item, played in zip(items, sets, strict=True):
        if played in first:
            again = "" if first[played] == item.strip() else f" (as {first[played]!r})"
            raise UrbionError(f"sets: {item.strip()!r} is listed twice{again}")
        first[played] = item.strip()


def _parse_set(item: str, playable: tuple[str, ...]) -> tuple[str, ...]:
    names = [n.strip() for n in item.split(SET_SEPARATOR)]
    if "" in names:  # "books+" is a slip, as an empty name in --expansions is
        raise UrbionError(f"sets: an empty expansion name in {item.strip()!r} (join a "
                          "set's expansions with +)")
    if names in ([BASE], ["none"]):
        return ()
    valid = f"expansions {', '.join(playable)}; sets singles, pairs, all, {BASE} (or none)"
    if names.count(BASE) > 1:  # a slip, as an expansion named twice is
        raise UrbionError(f"sets: {BASE!r} is named twice in {item.strip()!r}")
    names = [n for n in names if n != BASE]  # every set is played on the base game
    for name in names:
        if name in (*SET_WORDS, "none"):
            raise UrbionError(f"sets: {name!r} stands alone: it cannot be joined with "
                              f"expansions (in {item.strip()!r})")
        if name not in playable:
            where = "" if name == item.strip() else f" in {item.strip()!r}"
            raise UrbionError(f"sets: unknown expansion {name!r}{where} "
                              f"({did_you_mean(name, (*playable, *SET_WORDS))}{valid}; "
                              "join a set's expansions "
                              "with +)")
        if names.count(name) > 1:  # a slip for another expansion, most likely
            raise UrbionError(f"sets: {name!r} is named twice in {item.strip()!r}")
    return tuple(name for name in playable if name in names)


def paired_difference(won: np.ndarray, base_won: np.ndarray) -> dict:
    """Win-rate difference of a set against the base game on the same games.

    Returns the games compared, the base game's win rate over them (``base_rate``: with
    ``--precision`` the base game may have played more games than the set, and its rate
    over all of them is another), the discordant counts, the difference, its 95% interval
    for paired proportions (Newcombe's square-and-add) and McNemar's exact p-value.
    """
    n = len(won)
    both = int((won & base_won).sum())
    only_set = int((won & ~base_won).sum())
    only_base = int((base_won & ~won).sum())
    low, high = paired_difference_interval(both, only_set, only_base,
                                           n - both - only_set - only_base)
    return {"paired_games": n, "base_rate": float(base_won.mean()),
            "set_only": only_set, "base_only": only_base,
            "difference": (only_set - only_base) / n, "diff_low": low, "diff_high": high,
            "mcnemar_p": mcnemar_exact(only_set, only_base)}


def compare_table(runs: dict[str, pd.DataFrame], ranks: bool = True) -> pd.DataFrame:
    """One row per set (index: the set's label, the base game first): games, wins, win rate
    and 95% Wilson interval, the paired difference to the base game with its interval and
    McNemar's p (raw and Holm-adjusted over the sets), mean turns, mean cities pacified,
    and, with ``ranks``, the difficulty rank (1: the lowest win rate) and the range of ranks
    the pairwise tests allow (:func:`rank_ranges`)."""
    if BASE not in runs:
        raise UrbionError("a comparison needs the base game among its sets")
    base = runs[BASE].sort_values("game")
    rows = []
    for label, df in runs.items():
        df = df.sort_values("game")
        wins, games = int(df["won"].sum()), len(df)
        low, high = wilson_interval(wins, games)
        common = min(games, len(base))
        won = df["won"].to_numpy()[:common]
        base_won = base["won"].to_numpy()[:common]
        if not np.array_equal(df["game"].to_numpy()[:common], base["game"].to_numpy()[:common]):
            raise UrbionError(f"set {label} and the base game were not played on the same games")
        row = {"set": label, "n_expansions": len(df.attrs.get("expansions", [])),
               "games": games, "wins": wins, "win_rate": wins / games, "ci_low": low,
               "ci_high": high, **paired_difference(won, base_won), **mean_columns(df)}
        rows.append(row)
    table = pd.DataFrame(rows).set_index("set")
    # the base game against itself: the very same games, so the difference is 0 by
    # construction, not an estimate with an interval around it
    table.loc[BASE, ["diff_low", "diff_high"]] = 0.0
    others = [label for label in table.index if label != BASE]
    table["holm_p"] = np.nan
    differ = (table.loc[others, "set_only"] + table.loc[others, "base_only"]) > 0
    table.loc[others, "holm_p"] = holm_adjust(table.loc[others, "mcnemar_p"].tolist(),
                                              differ.tolist())
    # the sets the adjustment counted: a set's Holm p is of its comparison's family, and
    # a row quoted apart (from a table of 7 sets or of 127) says which
    table["holm_family"] = int(differ.sum())
    # the difference to the base game, not the win rate: with --precision the sets play
    # different numbers of games, and a set that plays the base game's very games must
    # share its rank
    if ranks:
        table[["rank_low", "rank_high"]] = rank_ranges(runs).loc[table.index]
        # sets of different lengths (--precision) can put the estimate outside the ranks
        # the tests allow; the tests, over the games both sets played, have the last word
        rank = table["difference"].rank(method="min").astype(int)
        table["rank"] = rank.clip(lower=table["rank_low"], upper=table["rank_high"])
    return table


def sets_family(table: pd.DataFrame) -> str:
    """Holm's family of a :func:`compare_table`: the sets with a game won by the set or the
    base game alone (every set of a table without the discordant counts)."""
    others = table.drop(index=BASE, errors="ignore")
    differ = int(((others["set_only"] + others["base_only"]) > 0).sum()) \
        if {"set_only", "base_only"} <= set(others.columns) else len(others)
    return holm_family(differ, "set", len(others) - differ)


def rank_ranges(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The ranks each set can hold (1: the hardest) given paired tests of every pair of
    sets, as columns ``rank_low`` and ``rank_high`` (index: the sets' labels).

    Each pair is compared over the games both played, with McNemar's exact test, and the
    p-values are adjusted by Holm's method over all pairs. A set ranks below only the sets
    shown harder than it (Holm p under 0.05, lower win rate) and above only those shown
    easier, so the ranges hold together with the family error at 5%.
    """
    labels = list(runs)
    won = {label: runs[label].sort_values("game")["won"].to_numpy(dtype=bool)
           for label in labels}
    pairs = list(combinations(labels, 2))
    only = np.zeros((2, len(pairs)), dtype=np.int64)
    for k, (a, b) in enumerate(pairs):
        common = min(len(won[a]), len(won[b]))
        wa, wb = won[a][:common], won[b][:common]
        only[:, k] = np.count_nonzero(wa & ~wb), np.count_nonzero(wb & ~wa)
    signs = np.sign(only[0] - only[1])
    harder = dict.fromkeys(labels, 0)  # sets shown harder than the set
    easier = dict.fromkeys(labels, 0)
    p_values = mcnemar_exact_many(only[0], only[1]).tolist()
    differ = (only[0] + only[1] > 0).tolist()
    for (a, b), p, sign in zip(pairs, holm_adjust(p_values, differ), signs, strict=True):
        if p < SIGNIFICANCE and sign != 0:
            lower, higher = (b, a) if sign > 0 else (a, b)
            harder[higher] += 1
            easier[lower] += 1
    return pd.DataFrame({"rank_low": [1 + harder[label] for label in labels],
                         "rank_high": [len(labels) - easier[label] for label in labels]},
                        index=pd.Index(labels, name="set"))


#: What the rank column says, in the terminal and on the pages.
RANK_NOTE = ("rank: 1 is the hardest set (the lowest win rate, read from the difference to "
             "the base game so that sets of different lengths compare; equal ones share a "
             "rank), and in brackets, where the tests leave it open, the ranks it can hold: "
             "every pair of sets is tested "
             "on the games both played (McNemar, Holm-adjusted over the pairs with a game "
             "won by one set and lost by the other), and a "
             "set is placed above or below another only where that test separates them")
#: Why Holm p and a rank's range can seem to disagree (where some set is tested).
RANK_FAMILY_NOTE = ("Holm p is adjusted over the sets tested against the base game only, a "
                    "smaller family, so a set can differ from the base game by its Holm p "
                    "and still share a range of ranks with it")


def rank_text(row: pd.Series) -> str:
    """A set's rank with the range the paired tests allow, as "3" or "5 (2-7)"."""
    rank, low, high = int(row["rank"]), int(row["rank_low"]), int(row["rank_high"])
    return str(rank) if low == high else f"{rank} ({low}-{high})"


def interactions(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How each pair of expansions played alone and together departs from their single
    effects, one row per pair (index: the pair's label).

    Columns: ``first``, ``second`` (the expansions), ``games`` (those all four sets played),
    ``interaction`` (the pair's effect minus the two single effects, each against the base
    game: the mean over games of won(AB) - won(A) - won(B) + won(base)), ``low``, ``high``
    (its 95% interval, from the games' spread: the four sets share each game's deal; where
    every game gave the same contrast, from how many games did, :func:`_alike_interval`),
    ``p`` (the paired randomization test of no interaction, :func:`stats.sign_flip_p`) and
    ``holm_p`` (that p adjusted by Holm's method over the pairs played, not counting those
    whose ``differing``, the games whose contrast is not zero, is 0),
    ``pair_win_rate`` and ``multiplied`` (the pair's win rate if the two singles' effects
    multiplied the base game's odds of winning, :func:`multiplied_odds`); the interaction on
    the odds scale, ``odds_interaction`` (odds(AB) * odds(base) / (odds(A) * odds(B)), 1
    where the effects multiply the odds), with its 95% interval ``odds_low``,
    ``odds_high``, Wald's ``odds_p`` and its Holm adjustment over the pairs
    ``odds_holm_p`` (:func:`odds_interaction`: NaN where a set has too few wins or losses,
    or two sets too few games differing),
    and ``odds_shown`` (:func:`shown_on_odds`). The additive
    interaction cannot fall below p_base - p_A - p_B, so where the singles alone take the
    win rate near zero it is positive whatever the pair does; ``multiplied`` shows that
    case, and ``at_floor`` marks the pairs whose single effects added up fall below 0%.
    ``shown`` (:func:`shown_interactions`) is True where the tables, the heatmap and the
    notes call the interaction shown.
    """
    if BASE not in runs:
        raise UrbionError("interactions need the base game among the sets")
    # in the game's order, whatever order the sets came in: a comparison and a report of
    # its results list the pairs alike
    order = {name: index for index, name in enumerate(PLAYABLE_EXPANSIONS)}
    singles = sorted((label for label in runs if label != BASE and SET_SEPARATOR not in label),
                     key=lambda name: order.get(name, len(order)))
    rows = []
    for a, b in combinations(singles, 2):
        pair = next((label for label in runs
                     if set(label.split(SET_SEPARATOR)) == {a, b}), None)
        if pair is not None:
            four = (runs[BASE], runs[a], runs[b], runs[pair])
            odds = odds_interaction(*four)
            rows.append({"pair": pair, "first": a, "second": b, **four_set_interaction(*four),
                         "odds_interaction": odds["ratio"], "odds_low": odds["low"],
                         "odds_high": odds["high"], "odds_p": odds["p"]})
    columns = ["first", "second", "games", "differing", "interaction", "low", "high", "p",
               "holm_p", "pair_win_rate", "multiplied", "odds_interaction", "odds_low",
               "odds_high", "odds_p", "odds_holm_p"]
    table = pd.DataFrame(rows, columns=["pair", *columns]).set_index("pair")
    tested = table["games"] > 0
    table.loc[tested, "holm_p"] = holm_adjust(table.loc[tested, "p"].tolist(),
                                              (table.loc[tested, "differing"] > 0).tolist())
    weighed = table["odds_p"].notna()
    table.loc[weighed, "odds_holm_p"] = holm_adjust(
        table.loc[weighed, "odds_p"].tolist(), table.loc[weighed, "odds_low"].notna().tolist())
    table["at_floor"] = at_the_floor(table)
    table["shown"] = shown_interactions(table)
    table["odds_shown"] = shown_on_odds(table["odds_holm_p"], table["odds_low"],
                                        table["odds_high"])
    return table


def shown_on_odds(holm_p: pd.Series, low: pd.Series, high: pd.Series) -> pd.Series:
    """bool: a ratio of odds ratios shown, with the family error held at 5%: its Holm p
    below 0.05 and its 95% interval, as the tables write it (two decimals), clear of 1.
    NaN (no test) is never shown. One rule for interactions and card changes."""
    clear = (low.round(2) > 1.0) | (high.round(2) < 1.0)
    return ((holm_p < SIGNIFICANCE) & clear).fillna(False).astype(bool)


def at_the_floor(table: pd.DataFrame) -> pd.Series:
    """bool, by pair: the pairs whose single effects added up would take the win rate below
    0% (the pair's win rate less its interaction, over the same games), where the additive
    interaction reads positive whatever the pair does."""
    if "pair_win_rate" not in table:  # a table built by hand
        return pd.Series(False, index=table.index)
    added = table["pair_win_rate"] - table["interaction"]
    return (added < 0).fillna(False).astype(bool)


def shown_interactions(table: pd.DataFrame) -> pd.Series:
    """bool, by pair: an interaction shown, with the family error held at 5%: its Holm p
    below 0.05; its 95% interval, as the tables write it (two decimals of a point), leaving
    zero out (the test and the interval are worked out apart and can disagree), except on
    fewer than :data:`ROUGH_BELOW` differing games, where the interval is widened to bounds
    that hold whatever those games and the exact test alone decides; and the pair not
    :func:`at_the_floor`. One rule for the tables, the heatmap and the notes."""
    def written(column: str) -> pd.Series:
        return table[column].map(lambda x: float(signed_pp(x)) if pd.notna(x) else np.nan)

    interval_clear = ((written("low") > 0) | (written("high") < 0)) & \
        (table["high"] > table["low"])  # one of no width is no interval
    if "differing" in table:
        interval_clear |= (table["differing"] > 0) & (table["differing"] < ROUGH_BELOW)
    # a table built by hand, without tests, is read from its intervals alone
    tested = table["holm_p"] < SIGNIFICANCE if "holm_p" in table else True
    return (interval_clear & tested & ~at_the_floor(table)).fillna(False).astype(bool)


def with_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """An interactions table with its ``at_floor`` and ``shown`` columns, worked out for a
    table that lacks them (one built by hand)."""
    if {"at_floor", "shown"} <= set(table.columns):
        return table
    return table.assign(at_floor=at_the_floor(table), shown=shown_interactions(table))


def four_set_interaction(base: pd.DataFrame, a: pd.DataFrame, b: pd.DataFrame,
                         pair: pd.DataFrame) -> dict:
    """The interaction of one pair on the games all four sets played: the mean over games
    of won(pair) - won(a) - won(b) + won(base), with its interval and test (a card change
    across sets takes the same four-way contrast, with two card sets in the place of the
    second expansion)."""
    w_pair, w_a, w_b, w_base = common_wins(pair, a, b, base)
    contrast = w_pair - w_a - w_b + w_base
    n = len(contrast)
    if n == 0:  # results of other games (urbion report of mixed batches): nothing to pair
        return {"games": 0, "differing": 0, "interaction": math.nan, "low": math.nan,
                "high": math.nan,
                "p": math.nan, "holm_p": math.nan, "pair_win_rate": math.nan,
                "multiplied": math.nan}
    mean = float(contrast.mean())
    if np.all(contrast == contrast[0]):
        low, high = _alike_interval(mean, n)
    else:
        half = t95(n - 1) * float(contrast.std(ddof=1)) / math.sqrt(n)
        # a game's contrast lies in [-2, 2], and so does their mean: the t interval of a
        # few games can reach past it
        low, high = max(-2.0, mean - half), min(2.0, mean + half)
        if np.count_nonzero(contrast) < ROUGH_BELOW:
            low, high = _few_differing_interval(contrast, low, high)
    # exact where few games differ, where the t test would take the many zeros for evidence
    p = sign_flip_p(contrast.astype(np.int64))
    return {"games": n, "differing": int(np.count_nonzero(contrast)), "interaction": mean,
            "low": low, "high": high, "p": p, "holm_p": math.nan,
            "pair_win_rate": float(w_pair.mean()),
            "multiplied": multiplied_odds(w_a.mean(), w_b.mean(), w_base.mean())}


def common_wins(*runs: pd.DataFrame) -> list[np.ndarray]:
    """Each run's ``won`` (float64, (games,)) over the games every run played, in one
    order of game numbers."""
    won = [df.set_index("game")["won"] for df in runs]
    common = won[0].index
    for series in won[1:]:
        common = common.intersection(series.index)
    return [s.loc[common].to_numpy(dtype=float) for s in won]


def odds_interaction(base: pd.DataFrame, a: pd.DataFrame, b: pd.DataFrame,
                     pair: pd.DataFrame) -> dict[str, float]:
    """The interaction of :func:`four_set_interaction` on the odds scale, over the games
    all four sets played: odds(pair) * odds(base) / (odds(a) * odds(b)), 1 where the
    effects multiply the odds of winning, with its 95% interval and the two-sided p of 1
    (``stats.log_odds_contrast``; NaN where a set has too few wins or losses, or two sets
    too few games differing, to weigh)."""
    return log_odds_contrast(common_wins(pair, a, b, base), [1, -1, -1, 1])


def multiplied_odds(p_a: float, p_b: float, p_base: float) -> float:
    """The pair's win rate if each single expansion multiplied the base game's odds of
    winning (p / (1 - p)) by its own factor: odds_A * odds_B / odds_base, as a win rate.
    Ratios of win rates multiplied (p_A * p_B / p_base) would pass 100% where both
    singles are easier; odds stay within 0% to 100%. NaN where the base game won none or
    all of its games (no odds to divide by), or where one single never wins and the other
    always does."""
    if not 0.0 < p_base < 1.0:
        return math.nan
    if {p_a, p_b} >= {0.0, 1.0}:
        return math.nan
    if 0.0 in (p_a, p_b) or 1.0 in (p_a, p_b):
        return 0.0 if 0.0 in (p_a, p_b) else 1.0
    odds = p_a / (1 - p_a) * p_b / (1 - p_b) / (p_base / (1 - p_base))
    return float(odds / (1 + odds))


def _few_differing_interval(contrast: np.ndarray, low: float, high: float
                            ) -> tuple[float, float]:
    """The t interval (``low``, ``high``) of games of which fewer than ``ROUGH_BELOW``
    differ, widened to hold the bounds that hold whatever the contrasts' distribution: the
    interaction is at most 2 times the share of games whose contrast is positive and at
    least -2 times the share whose contrast is negative, each share at most its exact
    (Clopper-Pearson) one-sided 97.5% bound. On a handful of differing games the t
    interval alone can leave zero out where the exact test does not reject (4 games of +1
    among 2,000: +0.004 to +0.40 pp, beside p = 0.125), and its width shrinks as fewer
    games differ."""
    from scipy.stats import beta

    n = len(contrast)

    def share_bound(k: int) -> float:
        return 1.0 if k >= n else float(beta.ppf(0.975, k + 1, n - k))

    return (min(low, -2.0 * share_bound(int(np.count_nonzero(contrast < 0)))),
            max(high, 2.0 * share_bound(int(np.count_nonzero(contrast > 0)))))


def _alike_interval(contrast: float, games: int) -> tuple[float, float]:
    """The 95% interval of the interaction when each of ``games`` games gave the same
    ``contrast``. The spread of the games is zero, but that is not certainty: a few games
    all lost in all four sets say little. The share of games whose contrast would differ is
    at most 1 - 0.025**(1/games) (Clopper-Pearson for none of ``games``, about 3.7/games),
    and such a game's contrast lies in [-2, 2]; the mean lies between the two extremes."""
    share = 1.0 - 0.025 ** (1.0 / games)
    return contrast - share * (contrast + 2.0), contrast + share * (2.0 - contrast)


def interaction_matrix(table: pd.DataFrame, column: str = "interaction") -> pd.DataFrame:
    """``column`` of an :func:`interactions` table as a square, symmetric table over the
    expansions, in the game's order (by name or title; others after them, as met); NaN
    where a pair was not played."""
    order = {**{name: i for i, name in enumerate(PLAYABLE_EXPANSIONS)},
             **{EXPANSION_TITLES[name]: i for i, name in enumerate(PLAYABLE_EXPANSIONS)}}
    met = list(dict.fromkeys([*table["first"], *table["second"]]))
    names = sorted(met, key=lambda name: (order.get(name, len(order)), met.index(name)))
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for _, row in table.iterrows():
        matrix.loc[row["first"], row["second"]] = row[column]
        matrix.loc[row["second"], row["first"]] = row[column]
    return matrix


#: How the games of two sets are paired, and what that does not mean.
PAIRING_NOTE = ("Game g of every set is paired with game g of the base game: both draw from "
                "the random streams of (seed, g), but where an expansion's cards change the "
                "decks, paired games are not the same deal (docs/compare.md).")


#: Under a comparison of the base game alone.
BASE_ALONE_NOTE = ("only the base game was played: nothing is compared with it (name the "
                   "expansion sets to compare with --sets, or sets= in Python: singles, say, "
                   "or books,postcards)")


def difference_groups(sets: pd.DataFrame) -> dict[str, list[str]]:
    """The sets of a comparison table (the base game left out) by verdict: ``harder`` and
    ``easier`` than the base game with a Holm p below 0.05, ``none`` the others; the
    largest changes first in each."""
    groups: dict[str, list[str]] = {"harder": [], "easier": [], "none": []}
    by_size = sets.assign(size=sets["difference"].abs()).sort_values(
        "size", ascending=False, kind="stable")
    for name, r in by_size.iterrows():
        shown = r.get("holm_p", 1.0) < SIGNIFICANCE and r.difference != 0
        groups[("harder" if r.difference < 0 else "easier") if shown else "none"].append(
            str(name))
    return groups


#: A set with Books of Power where the policy kept none, which played the base game's games.
UNWEIGHED = "not weighed, no Book of Power kept"


def verdict_line(table: pd.DataFrame, unweighed: list[str] | tuple[str, ...] = ()) -> str:
    """The comparison in plain words, for a reader who reads no p: which sets are shown
    harder or easier than the base game, and which not ("": no set but the base game).
    ``unweighed``: the sets with Books of Power whose policy kept no Book
    (:func:`books_unplayed`); those these games show no difference for are named apart:
    they played as without the Books, and "no difference" would read as a verdict on them
    (a set harder or easier by its other expansions stays where its games put it)."""
    groups = difference_groups(table.drop(index=BASE, errors="ignore"))
    apart = [label for label in groups["none"] if label in unweighed]
    groups["none"] = [label for label in groups["none"] if label not in apart]
    parts = [f"{what} than the base game: {', '.join(names)}"
             for what, names in (("harder", groups["harder"]), ("easier", groups["easier"]))
             if names]
    if groups["none"]:
        parts.append(f"no difference shown by these games: {', '.join(groups['none'])}")
    if apart:
        parts.append(f"{UNWEIGHED} in any game: {', '.join(apart)}")
    return f"In short: {'; '.join(parts)}." if parts else ""


def holm_text(row: pd.Series) -> str:
    """A set's Holm p, or "—" for one left out of Holm's family: no game won by one side
    and lost by the other, a test that cannot reject (the note under the table says)."""
    return holm_cell(row.holm_p, row.get("set_only", 1) + row.get("base_only", 1))


def format_compare(table: pd.DataFrame, attrs: dict,
                   unweighed: list[str] | tuple[str, ...] = ()) -> str:
    """The comparison as text for the terminal (the set column as wide as the longest
    name); ``unweighed`` as for :func:`verdict_line`."""
    width = max(42, *(len(str(label)) for label in table.index))
    rank_width = max(4, *(len(rank_text(r)) for _, r in table.iterrows()))
    lines = [f"card set   {attrs['card_set']} (sha256 {attrs['card_set_sha256'][:12]})    "
             f"{attrs.get('variant', 'solo')} game    policy {attrs['policy']}    seed "
             f"{attrs['seed']}    rules {attrs.get('rules_version')}", PAIRING_NOTE, "",
             f"{'set':<{width}} {'games':>8} {'win rate':>8}  {'95% Wilson':<16} "
             f"{'vs base':>9}  {'95% paired':<19} {'Holm p':>8} {'turns':>6} "
             f"{'rank':>{rank_width}}"]
    for label, r in table.iterrows():
        holm = "" if label == BASE else holm_text(r)
        vs = "" if label == BASE else f"{signed_pp(r.difference):>7}pp"
        band = "" if label == BASE else \
            f"{signed_pp(r.diff_low)} to {signed_pp(r.diff_high)}pp"
        short = "*" if not r.get("precise", True) else " "  # max-games came first
        lines.append(f"{label:<{width}} {int(r.games):>7,}{short} {r.win_rate:>8.2%}  "
                     f"{r.ci_low:>6.2%} to {r.ci_high:<6.2%} {vs:>9}  {band:<19} "
                     f"{holm:>8} {r.mean_turns:>6.1f} {rank_text(r):>{rank_width}}")
    tested = len(table) - 1
    if verdict := verdict_line(table, unweighed):
        lines += ["", verdict]
    holm = {0: "", 1: "Holm p: McNemar's exact p (one set: nothing to adjust). "}.get(
        tested, f"Holm p: McNemar's exact p, adjusted over {sets_family(table)}. ")
    unadjusted = " The intervals are not adjusted for the number of sets; Holm p is." \
        if tested > 1 else ""
    unadjusted += f" {EDGE_NOTE}" if tested else ""
    family = f" {RANK_FAMILY_NOTE}." if tested > 1 else ""  # one set: one family
    lines += ["", f"vs base: the set's win rate minus the base game's over the paired games, in "
                  f"percentage points (pp). {holm}turns: mean turns a game."
                  + (f" {RANK_NOTE}." if tested else "") + f"{unadjusted}{family}"]
    if not tested:
        lines += ["", BASE_ALONE_NOTE]
    if partial_base_note(table):
        lines += ["", partial_base_note(table)]
    if "precise" in table and not table["precise"].all():
        lines += ["", imprecise_note(attrs)]
    return "\n".join(lines)


#: Under this many games whose contrast is not zero, Student's t interval of an interaction
#: covers less than it says (about 92% at 6 games): it is marked rough.
ROUGH_BELOW = 10


def interaction_band(low: float, high: float, unit: str = "pp",
                     differing: float | None = None) -> str:
    """An interaction's 95% interval as text, marked "(few differ)" where it rests on fewer
    than :data:`ROUGH_BELOW` games that differ (``differing``; None: not known), where it is
    widened to bounds that hold whatever the games (:func:`_few_differing_interval`); one
    of no width, which :func:`interactions` never gives, says so instead of "+0.00 to
    +0.00"."""
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    if high <= low:
        return "none: every game alike"
    rough = differing is not None and not math.isnan(differing) and \
        0 < differing < ROUGH_BELOW
    return f"{signed_pp(low)} to {signed_pp(high)}{unit}{' (few differ)' if rough else ''}"


def interaction_verdict(row: pd.Series) -> str:
    """A pair's ``shown`` cell for the tables (a row of :func:`with_verdicts`): which way an
    interaction shown goes, or why none is."""
    if row["shown"]:
        return "more wins" if row.interaction > 0 else "fewer wins"
    return "no, 0% floor" if row["at_floor"] else "no"


def odds_interaction_verdict(row: pd.Series) -> str:
    """A pair's ``shown in odds`` cell for the tables: which way an interaction on the
    odds scale shown goes, "no", or "n/a" where too few wins, losses or games differing
    weigh it (or a table built by hand has no such column)."""
    if pd.isna(row.get("odds_p", math.nan)):
        return "n/a"
    if not row.get("odds_shown", False):
        return "no"
    return "more wins" if row.odds_interaction > 1 else "fewer wins"


def odds_interaction_cell(row: pd.Series) -> str:
    """A pair's interaction on the odds scale with its interval, as the pages write it."""
    if pd.isna(row.get("odds_p", math.nan)):
        return "n/a"
    if pd.isna(row.odds_low):
        return f"x{row.odds_interaction:.2f} (no game departs)"
    return f"x{row.odds_interaction:.2f} ({row.odds_low:.2f} to {row.odds_high:.2f})"


def _percent_or_na(x: float) -> str:
    """A share as a percentage; "n/a" where there is none (no base-game win to divide by)."""
    return "n/a" if math.isnan(x) else f"{x:.2%}"


#: How an interaction is tested, for every table of them.
INTERACTION_TEST_NOTE = ("the paired randomization (sign-flip) test of no interaction over "
                         "the games, exact where few games differ, adjusted by Holm's method "
                         "over the pairs (not counting a pair whose contrast is zero in every "
                         "game). The intervals are not adjusted, and one marked (few differ) "
                         f"rests on fewer than {ROUGH_BELOW} games that differ, where it is "
                         "widened to bounds that hold whatever those games are")

#: When an interaction counts as shown, for every table of them (``shown_interactions``).
INTERACTION_SHOWN_NOTE = ("shown: an interaction is shown, with the family error held at "
                          "5%, where its Holm p is below 0.05 and its interval leaves zero "
                          "out (on few differing games the exact test alone decides), and "
                          "the pair is not at the 0% floor: a pair whose single "
                          "effects added up would take the win rate below 0% (no, 0% floor) "
                          "reads positive whatever it does. more wins: together the two "
                          "leave more games won than their single effects add up to; fewer "
                          "wins: fewer games won than they add up to")

#: What the odds-scale columns of an interactions table are, for every table of them.
ODDS_INTERACTION_NOTE = (
    "in odds: the interaction on the odds scale, odds(pair) * odds(base) / (odds(A) * "
    "odds(B)), 1 where the single effects multiply the odds of winning; its 95% interval "
    "(in the pages and interactions.csv) and Holm p come from Wald's test on the log odds "
    f"over the paired games, Holm over the pairs (n/a where a set of the four has fewer "
    f"than {ODDS_MIN_OUTCOMES} wins or losses, or two of them fewer than "
    f"{ODDS_MIN_OUTCOMES} games in which they differ: on so few the approximation turns "
    "liberal; two sets that won the same games cancel and are left out first). No floor "
    "bends it: near 0% it says whether together the two leave more or "
    "fewer wins than their effects multiplied (shown in odds: Holm p below 0.05 and the "
    "interval clear of 1)")


def format_interactions(pairs: pd.DataFrame) -> str:
    """The :func:`interactions` table as text for the terminal; "" with no pair."""
    if not len(pairs):
        return ""
    pairs = with_verdicts(pairs)
    width = max(30, *(len(str(label)) for label in pairs.index))
    bands = [interaction_band(r.low, r.high, differing=r.get("differing"))
             for _, r in pairs.iterrows()]
    band_width = max(22, *(len(band) for band in bands))  # "(few differ)" makes one longer
    lines = ["Pairwise interactions: the pair's effect on the win rate minus the two single "
             "effects, each against the base game over the paired games (0: the two add "
             "up)", "",
             f"{'pair':<{width}} {'games':>8} {'interaction':>11}  "
             f"{'95% interval':<{band_width}} "
             f"{'Holm p':>8} {'shown':<12} {'pair win rate':>13} {'multiplied':>10}  "
             f"{'in odds':>7} {'Holm p (odds)':>13} {'shown in odds':<13}"]
    for (label, r), band in zip(pairs.iterrows(), bands, strict=True):
        odds = "n/a" if pd.isna(r.get("odds_p", math.nan)) else f"x{r.odds_interaction:.2f}"
        lines.append((f"{label:<{width}} {int(r.games):>8,} {signed_pp(r.interaction):>9}pp  "
                      f"{band:<{band_width}} "
                      f"{format_p(r.holm_p):>8} {interaction_verdict(r):<12} "
                      f"{r.pair_win_rate:>13.2%} {_percent_or_na(r.multiplied):>10}  "
                      f"{odds:>7} {format_p(r.get('odds_holm_p', math.nan)):>13} "
                      f"{odds_interaction_verdict(r)}").rstrip())
    lines += ["", f"Holm p: {INTERACTION_TEST_NOTE}", INTERACTION_SHOWN_NOTE,
              "multiplied: the pair's win rate if the singles' effects multiplied the base "
                  "game's odds of winning. Effects that multiply show on this additive scale as "
                  "interactions of either sign (near a 0% win rate, always positive): read "
                  "an interaction with the pair's win rate and multiplied side by side",
              ODDS_INTERACTION_NOTE[0].upper() + ODDS_INTERACTION_NOTE[1:]]
    return "\n".join(lines)


def books_unplayed_note(runs: dict[str, pd.DataFrame | Totals], noun: str = "set") -> str:
    """A note naming the runs with Books of Power (by their configuration's expansions, or
    their set label) in which the policy kept no Book in any game (greedy keeps none by
    default, docs/policies.md): such a run plays as without the Books, so it says nothing
    about them; "" when there is none. A summary's run counts by its totals. ``noun``
    names what ``runs`` are: a comparison's sets, a report's runs."""
    unplayed = books_unplayed(runs)
    if not unplayed:
        return ""
    one = len(unplayed) == 1
    return (f"books: {_keepers(runs, unplayed)} kept no Book of Power in any game of "
            f"{spoken_list(unplayed)}, "
            f"so {'this' if one else 'these'} {noun}{'' if one else 's'} played as without "
            f"the Books (books alone as the base game): {'its' if one else 'their'} figures "
            "say nothing about the Books. To weigh them, play a policy that "
            "keeps Books: weighted:FILE, FILE holding a [weights] table with BOOKS_KEEP = 1 "
            "(or 2, 4), plays weighted's weights with that one changed; greedy's with it "
            "changed are in docs/policies.md")


def books_unplayed(runs: dict[str, pd.DataFrame | Totals]) -> list[str]:
    """The labels of the runs of ``runs`` that had the Books of Power in play and used
    none in any game."""
    return [label for label, run in runs.items() if _books_unplayed(label, run)]


def books_chart_note(runs: dict[str, pd.DataFrame | Totals], noun: str = "set") -> str:
    """:func:`books_unplayed_note` in a line under a chart, which is read and published
    apart from the table; "" when every run with the Books used them."""
    unplayed = books_unplayed(runs)
    if not unplayed:
        return ""
    one = len(unplayed) == 1
    named = spoken_list(unplayed)
    if len(unplayed) > CHART_NAMES:  # 64 sets of --sets all made a note of 45 lines
        with_books = sum(_books_in_play(label, run) for label, run in runs.items())
        named = (f"Every {noun} with Books of Power ({len(unplayed)})"
                 if len(unplayed) == with_books else
                 f"{len(unplayed)} {noun}s of the {with_books} with Books of Power (the "
                 "page's notes name them)")
    return (f"{named}: {_keepers(runs, unplayed)} kept no Book of Power in any game, so "
            f"{'this' if one else 'these'} {noun}{'' if one else 's'} played as without the "
            f"Books and {'says' if one else 'say'} nothing about them")


def _keepers(runs: dict[str, pd.DataFrame | Totals], unplayed: list[str]) -> str:
    """Who kept no Book in the ``unplayed`` runs: "the policy", or "their policies" for
    runs of several (a report of two comparisons)."""
    policies = {str(runs[label].attrs.get("policy")) for label in unplayed}
    return "the policy" if len(policies) == 1 else "their policies"


#: The most runs a note under a chart names one by one.
CHART_NAMES = 4


def _books_in_play(label: str, run: pd.DataFrame | Totals) -> bool:
    """Whether ``run`` (named ``label``) had the Books of Power in play."""
    expansions = run.attrs.get("expansions")
    return "books" in (expansions if expansions is not None
                       else str(label).split(SET_SEPARATOR))


def _books_unplayed(label: str, run: pd.DataFrame | Totals) -> bool:
    """Whether ``run`` had the Books of Power in play and used none in any game."""
    if not _books_in_play(label, run) or not len(run):
        return False
    if isinstance(run, Totals):
        return run.total("books_kept") == 0 and run.total("book_actions") == 0
    if "books_kept" not in run or "book_actions" not in run:
        return False  # a results file of a version before the Books
    return not run["books_kept"].any() and not run["book_actions"].any()


def partial_base_note(table: pd.DataFrame) -> str:
    """What "vs base" means when a set played fewer games than the base game (``--precision``
    stopped it earlier); "" when every set played as many."""
    if not (table["paired_games"] < table.at[BASE, "games"]).any():
        return ""
    return ("vs base: the difference over the set's own games, against the base game's "
            "first as many (its win rate over those, the base_rate column of compare.csv "
            "and of the table in Python, can differ from the one shown above)")


def uneven_games_note(table: pd.DataFrame) -> str | None:
    """Under the win-rate chart of sets that played different numbers of games
    (``--precision``): each bar is over its own games, so a set beside the base game's line
    is not compared with it on the same games; None when every set played as many."""
    if table["games"].nunique() < 2:
        return None
    base = int(table.at[BASE, "games"]) if BASE in table.index else None
    line = f"the line over the base game's {base:,}" if base is not None else "the line too"
    return (f"Sets played different numbers of games: each bar is over its own, {line}; "
            "only the paired change (differences chart) compares a set with the base game "
            "on the same games.")


def uneven_pairs_note(table: pd.DataFrame) -> str | None:
    """Under the differences chart of sets that played different numbers of games
    (``--precision``): over which games each change is taken; None when every set played
    as many."""
    others = table.drop(index=BASE, errors="ignore")
    if "paired_games" not in others or others["paired_games"].nunique() < 2:
        return None
    return (f"Each set's change is over its own games ({int(others['paired_games'].min()):,} "
            f"to {int(others['paired_games'].max()):,}), paired with the base game's first "
            "as many.")


def imprecise_note(attrs: dict) -> str:
    """What the ``*`` after a set means: ``--precision`` stopped it at ``--max-games``, an
    interval still wider than asked (the terminal table and the charts say it alike)."""
    precision = attrs.get("precision", 0) * 100
    return (f"* stopped with a 95% interval wider than +-{precision:.2f} pp: "
            "another batch of "
            f"{attrs.get('games_per_batch', 0):,} would pass max-games "
            f"({attrs.get('max_games', 0):,})")


