"""Expansion sets compared on games paired by number: the table, its ranks and its text.

Every set plays the same games of one seed (common random numbers), so the difference
between a set and the base game is estimated game by game: the games one won and the
other lost (the discordant pairs) carry the whole difference, and McNemar's exact test
asks whether they split evenly. Holm's correction keeps the family of tests at 5%. A
set's name is analysis/expansion_sets.py's; what two expansions do together beyond their
single effects, analysis/interactions.py's.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analyzer.analysis.expansion_sets import BASE, EXPANSION_TITLES, SET_SEPARATOR, set_title
from analyzer.analysis.stats import (
    EDGE_NOTE,
    SIGNIFICANCE,
    holm_adjust,
    holm_cell,
    holm_family,
    mcnemar_exact_many,
    paired_difference,
    signed_pp,
    wilson_interval,
)
from analyzer.analysis.summary import mean_columns
from analyzer.analysis.totals import Totals
from analyzer.errors import UrbionError
from analyzer.wording import spoken_list


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
