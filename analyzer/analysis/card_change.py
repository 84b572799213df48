"""A change of the cards across expansion sets: every set played with two card sets on the
same games, and the change that the first (``--cards``) makes from the second
(``--against``) in each set.

Game g of a set draws from the streams of (seed, g) under either card set, so the change
in each set is a paired difference (Newcombe's interval, McNemar's exact test, Holm over
the sets), and whether a set's change differs from the base game's is the mean over games
of the contrast won_cards(set) - won_against(set) - won_cards(base) + won_against(base),
tested and bounded as an interaction of two expansions is (``compare.four_set_interaction``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analyzer.analysis.compare import UNWEIGHED, imprecise_note
from analyzer.analysis.expansion_sets import BASE, EXPANSION_TITLES, SET_SEPARATOR, set_title
from analyzer.analysis.interactions import (
    ROUGH_BELOW,
    four_set_interaction,
    odds_interaction,
    shown_interactions,
    shown_on_odds,
)
from analyzer.analysis.stats import (
    ODDS_MIN_OUTCOMES,
    SIGNIFICANCE,
    holm_adjust,
    holm_cell,
    paired_difference,
    signed_pp,
)
from analyzer.errors import UrbionError

#: The columns of :func:`card_change_table`, in order.
COLUMNS = ("games", "win_rate", "against_win_rate", "cards_only", "against_only",
           "difference", "diff_low", "diff_high", "mcnemar_p", "holm_p", "holm_family",
           "odds_ratio", "vs_base", "vs_base_low", "vs_base_high", "vs_base_differing",
           "vs_base_p", "vs_base_holm_p", "multiplied", "at_bound", "vs_base_shown",
           "odds_vs_base", "odds_vs_base_low", "odds_vs_base_high", "odds_vs_base_p",
           "odds_vs_base_holm_p", "odds_vs_base_shown")


def card_change_table(cards: dict[str, pd.DataFrame],
                      against: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per expansion set (index: its label, the base game first): what the card set
    of ``cards`` changes from that of ``against``, both runs of every set on the same games.

    Columns: ``games``; ``win_rate`` and ``against_win_rate``, each card set's; the games
    won with one card set only (``cards_only``, ``against_only``); ``difference``, the
    paired change of the win rate, with its 95% Newcombe interval ``diff_low``,
    ``diff_high``, McNemar's exact ``mcnemar_p`` and ``holm_p`` (Holm over the sets with a
    game won under one card set only; ``holm_family`` counts them); ``odds_ratio``, the
    change as a ratio of the odds of winning (NaN where a card set wins none or all). For
    every set but the base game: ``vs_base``, its change minus the base game's, with its
    95% interval ``vs_base_low``, ``vs_base_high`` (the games' contrasts, widened where
    fewer than ``ROUGH_BELOW`` differ), ``vs_base_differing`` (games whose contrast is not
    zero), the randomization test's ``vs_base_p`` and its Holm adjustment over the sets
    ``vs_base_holm_p``; ``multiplied``, the set's win rate with ``cards`` if the change
    multiplied its odds of winning as it did the base game's; ``at_bound``, True where the
    base game's change, added to the set's win rate with ``against`` (where the change
    starts from), would pass 0% or 100%: the additive ``vs_base`` then reads non-zero
    whatever the cards do (swapped, the two card sets ask another question, from the other
    starting point, and can be at a bound where these are not); and
    ``vs_base_shown``, the verdict the tables and chart give (Holm p below 0.05, the
    interval as written clear of zero, not ``at_bound``). The same departure on the odds
    scale, which no bound of the win rate bends: ``odds_vs_base``, the set's odds ratio
    over the base game's, with its 95% interval ``odds_vs_base_low``,
    ``odds_vs_base_high``, Wald's ``odds_vs_base_p`` and its Holm adjustment over the sets
    with a game that departs ``odds_vs_base_holm_p`` (all NaN where one of the four runs
    has too few wins or losses, or two of them too few games differing,
    ``stats.ODDS_MIN_OUTCOMES``; p 1 and no interval where the
    runs cancel game for game), and ``odds_vs_base_shown`` (Holm p below 0.05, the
    interval as written, two decimals, clear of 1).
    """
    if BASE not in cards or BASE not in against:
        raise UrbionError("a card change across sets needs the base game among its sets")
    missing = [label for label in cards if label not in against]
    if missing:
        raise UrbionError(f"set {missing[0]} was played with one card set only")
    rows = [{"set": label, **_change(cards[label], against[label]),
             **(_versus_base(cards, against, label) if label != BASE else {})}
            for label in cards]
    table = pd.DataFrame(rows).set_index("set").reindex(columns=list(COLUMNS))
    differ = (table["cards_only"] + table["against_only"]) > 0
    table["holm_p"] = holm_adjust(table["mcnemar_p"].tolist(), differ.tolist())
    table["holm_family"] = int(differ.sum())
    others = table.index != BASE
    table.loc[others, "vs_base_holm_p"] = holm_adjust(
        table.loc[others, "vs_base_p"].tolist(),
        (table.loc[others, "vs_base_differing"] > 0).tolist())
    table["at_bound"] = table["at_bound"].eq(True)  # the base game's row: no bound
    table["vs_base_shown"] = _shown(table) & others
    weighed = others & table["odds_vs_base_p"].notna()
    table.loc[weighed, "odds_vs_base_holm_p"] = holm_adjust(
        table.loc[weighed, "odds_vs_base_p"].tolist(),
        table.loc[weighed, "odds_vs_base_low"].notna().tolist())
    table["odds_vs_base_shown"] = weighed & shown_on_odds(
        table["odds_vs_base_holm_p"], table["odds_vs_base_low"], table["odds_vs_base_high"])
    return table


def precise_changes(table: pd.DataFrame, precision: float) -> pd.Series:
    """Which sets of a :func:`card_change_table` are known to ``precision`` (a share, 0.005
    for +-0.5 points): the half-widths of the 95% intervals of the change and, but for the
    base game, of its departure from the base game's (``vs_base``) are at most it, as
    ``compare --precision`` asks of a set's win rate and of its difference to the base
    game. A set ``at_bound`` is known by its change alone: no table gives its departure's
    interval, which says nothing there, so none could show why it played on."""
    change = (table["diff_high"] - table["diff_low"]) / 2 <= precision
    departure = (table["vs_base_high"] - table["vs_base_low"]) / 2 <= precision
    return change & (departure | (table.index == BASE) | table["at_bound"])


def _change(cards: pd.DataFrame, against: pd.DataFrame) -> dict:
    """One set's paired change from ``against`` to ``cards``, over the games both played."""
    won = cards.set_index("game")["won"]
    won_against = against.set_index("game")["won"]
    common = won.index.intersection(won_against.index)
    if not len(common):
        raise UrbionError("the two card sets' runs share no game")
    w, w_against = (s.loc[common].to_numpy(dtype=bool) for s in (won, won_against))
    paired = paired_difference(w, w_against)
    return {"games": len(common), "win_rate": float(w.mean()),
            "against_win_rate": float(w_against.mean()), "cards_only": paired["set_only"],
            "against_only": paired["base_only"], "difference": paired["difference"],
            "diff_low": paired["diff_low"], "diff_high": paired["diff_high"],
            "mcnemar_p": paired["mcnemar_p"], "holm_p": np.nan,
            "odds_ratio": odds_ratio(float(w.mean()), float(w_against.mean()))}


def _versus_base(cards: dict[str, pd.DataFrame], against: dict[str, pd.DataFrame],
                 label: str) -> dict:
    """How the change in set ``label`` departs from the base game's: the interaction of
    ``compare`` with the card sets in the place of a second expansion."""
    runs = (against[BASE], against[label], cards[BASE], cards[label])
    found = four_set_interaction(*runs)
    odds = odds_interaction(*runs)
    return {"odds_vs_base": odds["ratio"], "odds_vs_base_low": odds["low"],
            "odds_vs_base_high": odds["high"], "odds_vs_base_p": odds["p"],
            "odds_vs_base_holm_p": np.nan,
            "vs_base": found["interaction"], "vs_base_low": found["low"],
            "vs_base_high": found["high"], "vs_base_differing": found["differing"],
            "vs_base_p": found["p"], "vs_base_holm_p": np.nan,
            "multiplied": found["multiplied"],
            "at_bound": _at_bound(found) if found["games"] else False}


#: How far past 0% or 100% a sum of win rates must fall to be past it, not a float's
#: rounding of a sum that lands on it.
BOUND_SLACK = 1e-9


def _at_bound(found: dict) -> bool:
    """Whether the base game's change, added to the set's win rate against (where the
    change starts from), passes 0% or 100%: the set's win rate with the cards, between 0%
    and 100%, then departs from that sum whatever the cards do (``found``: the four-set
    interaction, over the games all four runs played)."""
    # against(set) + the base game's change is cards(set) - vs_base
    reached = found["pair_win_rate"] - found["interaction"]
    return bool(reached < -BOUND_SLACK or reached > 1.0 + BOUND_SLACK)


def odds_ratio(rate: float, against_rate: float) -> float:
    """The odds of winning at ``rate`` over those at ``against_rate``; NaN where either
    wins none or all of its games (odds of 0 or without bound)."""
    if not (0.0 < rate < 1.0 and 0.0 < against_rate < 1.0):
        return float("nan")
    return rate / (1 - rate) / (against_rate / (1 - against_rate))


def _shown(table: pd.DataFrame) -> pd.Series:
    """``interactions.shown_interactions`` of the vs-base columns: one rule for the tables,
    the chart and the notes, with the bound of 0% and 100% in the place of the floor."""
    renamed = pd.DataFrame({"low": table["vs_base_low"], "high": table["vs_base_high"],
                            "holm_p": table["vs_base_holm_p"],
                            "differing": table["vs_base_differing"]}, index=table.index)
    return shown_interactions(renamed) & ~table["at_bound"]


def change_groups(table: pd.DataFrame) -> dict[str, list[str]]:
    """The sets by verdict, the largest first in each: the change ``raises`` or ``lowers``
    the win rate (Holm p below 0.05), or ``none`` shown; and, of the sets but the base
    game, those whose change is ``more`` or ``less`` than the base game's in points (shown,
    as ``vs_base_shown`` says), those ``like_base`` (none shown) and those ``at_bound``,
    too near 0% or 100% to compare in points; and on the odds scale, those where the
    change leaves better (``odds_more``) or worse (``odds_less``) odds of winning than the
    base game's change does, its odds ratio over the base game's above or below 1
    (``odds_vs_base_shown``), those ``odds_like`` it (none shown) and those with too few
    wins, losses or games differing to weigh (``odds_unweighed``)."""
    groups: dict[str, list[str]] = {"raises": [], "lowers": [], "none": [], "more": [],
                                    "less": [], "like_base": [], "at_bound": [],
                                    "odds_more": [], "odds_less": [], "odds_like": [],
                                    "odds_unweighed": []}
    by_size = table.assign(size=table["difference"].abs()).sort_values(
        "size", ascending=False, kind="stable")
    for name, r in by_size.iterrows():
        moved = r.holm_p < SIGNIFICANCE and r.difference != 0
        groups[("raises" if r.difference > 0 else "lowers") if moved else "none"].append(
            str(name))
    others = table.drop(index=BASE)
    by_departure = others.assign(size=others["vs_base"].abs()).sort_values(
        "size", ascending=False, kind="stable")
    for name, r in by_departure.iterrows():
        group = "at_bound" if r.at_bound else \
            ("more" if r.vs_base > 0 else "less") if r.vs_base_shown else "like_base"
        groups[group].append(str(name))
    by_odds = others.assign(size=np.log(others["odds_vs_base"]).abs()).sort_values(
        "size", ascending=False, kind="stable", na_position="last")
    for name, r in by_odds.iterrows():
        group = "odds_unweighed" if np.isnan(r.odds_vs_base_p) else \
            ("odds_more" if r.odds_vs_base > 1 else "odds_less") if r.odds_vs_base_shown \
            else "odds_like"
        groups[group].append(str(name))
    return groups


def verdict_lines(table: pd.DataFrame, cards_name: str, against_name: str,
                  unweighed: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The card change in plain words: where it moves the win rate, and where its change
    differs from the base game's. ``unweighed``: the sets with Books of Power whose policy
    kept no Book with either card set; where no difference is shown for one, it is named
    apart, as in a comparison (``compare.verdict_line``): it played the base game's games,
    and "no difference" would read as a verdict on the Books."""
    groups = change_groups(table)
    apart = {key: [label for label in groups[key] if label in unweighed]
             for key in ("none", "like_base", "odds_like", "odds_unweighed")}
    for key, labels in apart.items():
        groups[key] = [label for label in groups[key] if label not in labels]
    moved = [f"{word}: {', '.join(groups[key])}" for key, word in
             (("raises", "raise the win rate in"), ("lowers", "lower the win rate in"))
             if groups[key]]
    if groups["none"]:
        moved.append(f"no change shown in: {', '.join(groups['none'])}")
    if apart["none"]:
        moved.append(f"{UNWEIGHED}: {', '.join(apart['none'])}")
    lines = [f"In short: the cards of {cards_name}, against those of {against_name}, "
             f"{'; '.join(moved)}."]
    if len(table) > 1:
        departs = [f"{word} in: {', '.join(groups[key])}" for key, word in
                   (("more", "more wins"), ("less", "fewer wins")) if groups[key]]
        if groups["like_base"]:
            departs.append(f"no difference shown in: {', '.join(groups['like_base'])}")
        base = signed_pp(table.loc[BASE, "difference"])
        line = f"Against the base game's change ({base} pp), in points, the change leaves " \
            f"{'; '.join(departs)}" if departs else \
            f"Against the base game's change ({base} pp), in points"
        after = [f"{words}: {', '.join(labels)}" for words, labels in
                 (("too near 0% or 100% to compare in points", groups["at_bound"]),
                  (UNWEIGHED, apart["like_base"])) if labels]
        if after:
            line += f"{';' if departs else ':'} {'; '.join(after)}"
        lines.append(line + ".")
        lines.append(_odds_verdict(table, groups, apart["odds_like"] +
                                   apart["odds_unweighed"]))
    return lines


def _odds_verdict(table: pd.DataFrame, groups: dict[str, list[str]],
                  unweighed: list[str]) -> str:
    """The sentence of :func:`verdict_lines` on the odds scale; ``unweighed``, the sets
    named apart there."""
    def ratios(labels: list[str]) -> str:
        return ", ".join(f"{label} (x{table.loc[label, 'odds_vs_base']:.2f} the base "
                         "game's)" for label in labels)

    more, less = groups["odds_more"], groups["odds_less"]
    parts = []
    if more:
        parts.append(f"the change leaves better odds of winning in: {ratios(more)}")
    if less:
        lead = "worse odds" if more else "the change leaves worse odds of winning"
        parts.append(f"{lead} in: {ratios(less)}")
    if groups["odds_like"]:
        parts.append(f"no difference shown in: {', '.join(groups['odds_like'])}")
    if groups["odds_unweighed"]:
        parts.append(f"too few wins, losses or games differing (under {ODDS_MIN_OUTCOMES}) "
                     f"to weigh in: {', '.join(groups['odds_unweighed'])}")
    if unweighed:
        parts.append(f"{UNWEIGHED}: {', '.join(unweighed)}")
    base = table.loc[BASE, "odds_ratio"]
    base_odds = "n/a" if np.isnan(base) else f"x{base:.2f}"
    return f"On the odds scale, against the base game's odds ratio ({base_odds}): " \
        f"{'; '.join(parts)}."


#: What the vs-base column of a card change means, under its tables.
VERSUS_BASE_NOTE = (
    "vs base: the set's change minus the base game's, the mean over games of won with the "
    "cards (set) - won against (set) - won with the cards (base) + won against (base), with "
    "its 95% interval and the randomization test's Holm p; on the additive scale, so read "
    "it with the win rates: near 0% a set cannot lose what the base game loses, and its "
    "change then differs whatever the cards do (marked \"at 0%\" or \"at 100%\", and never "
    "shown).")
#: What the multiplied column means, where a table gives it.
MULTIPLIED_NOTE = ("multiplied: the set's win rate with the cards if they multiplied its odds "
                   "of winning as they did the base game's; beside the set's own win rate "
                   "with the cards, it tells a change that differs on the odds scale too.")


#: What the odds-scale columns of a card change mean, under its tables.
ODDS_VERSUS_BASE_NOTE = (
    "odds vs base: the set's odds ratio over the base game's, 1 where the cards multiply the "
    "set's odds of winning as they do the base game's; its 95% interval and Holm p come "
    "from Wald's test on the log odds over the paired games (n/a where one of the four runs "
    f"has fewer than {ODDS_MIN_OUTCOMES} wins or losses, or two of them fewer than "
    f"{ODDS_MIN_OUTCOMES} games in which they differ; two runs that won the same games, "
    "the base game's where the cards leave its games alone, cancel and are left out "
    "first). No bound of the win rate bends it, so it compares the sets at 0% or 100% too; "
    "differs in odds: better or worse odds, where the Holm p is below 0.05 and the "
    "interval clear of 1.")


def format_card_change(table: pd.DataFrame, attrs: dict,
                       unweighed: list[str] | tuple[str, ...] = ()) -> str:
    """The card change as text for the terminal; ``unweighed`` as for
    :func:`verdict_lines`."""
    width = max(24, *(len(str(label)) for label in table.index))
    # with --precision each set played its own number of games, said in a column of its own
    counted = "precise" in table
    games = "games: each set's, in its column" if counted else \
        f"games {int(table['games'].iloc[0]):,} a set and card set"
    count_width = _games_width(table)
    games_head = f"{'games':>{count_width - 1}}  " if counted else ""
    lines = [f"cards      {attrs['card_set']} (sha256 {attrs['card_set_sha256'][:12]})    "
             f"against {attrs['against_card_set']} (sha256 "
             f"{attrs['against_card_set_sha256'][:12]})",
             f"           {attrs.get('variant', 'solo')} game    policy {attrs['policy']}    "
             f"seed {attrs['seed']}    {games}    rules {attrs.get('rules_version')}",
             PAIRING_NOTE, "",
             f"{'set':<{width}} {games_head}{'cards':>7} {'against':>7} {'change':>9}  "
             f"{'95% paired':<19} {'Holm p':>8} {'odds x':>6}  {'vs base':>9}  "
             f"{'95%':<19} {'Holm p':>8}"]
    for label, r in table.iterrows():
        odds = "n/a" if np.isnan(r.odds_ratio) else f"{r.odds_ratio:.2f}"
        short = "*" if not r.get("precise", True) else " "  # max-games came first
        count = f"{int(r.games):>{count_width - 1},}{short} " if counted else ""
        row = (f"{label:<{width}} {count}{r.win_rate:>7.2%} {r.against_win_rate:>7.2%} "
               f"{signed_pp(r.difference):>7}pp  "
               f"{signed_pp(r.diff_low) + ' to ' + signed_pp(r.diff_high) + 'pp':<19} "
               f"{holm_cell(r.holm_p, r.cards_only + r.against_only):>8} {odds:>6}")
        if label != BASE:
            row += (f"  {signed_pp(r.vs_base):>7}pp  {versus_base_band(r):<19} "
                    f"{holm_cell(r.vs_base_holm_p, r.vs_base_differing):>8}")
        lines.append(row.rstrip())
    lines += ["", *verdict_lines(table, attrs["card_set"], attrs["against_card_set"],
                                 unweighed), "",
              TERMINAL_NOTE]
    for note in precision_notes(table, attrs):
        lines += ["", note]
    return "\n".join(lines)


def _games_width(table: pd.DataFrame) -> int:
    """The width of the terminal's games column: its largest count and a ``*``."""
    return max(6, len(f"{int(table['games'].max()):,}") + 1)


def precision_notes(table: pd.DataFrame, attrs: dict) -> list[str]:
    """Under a card change played with ``--precision``: what vs base compares when a set
    stopped before the base game, and what the ``*`` of a set stopped at max-games
    means."""
    notes = []
    if (table["games"] < table.at[BASE, "games"]).any():
        notes.append("vs base: over the set's own games, against the base game's change over "
                     "its first as many, which can differ from its change over all its games")
    if "precise" in table and not table["precise"].all():
        notes.append(imprecise_note(attrs))
    return notes


#: Under the terminal's table: what its columns are, in short (the pages say more).
TERMINAL_NOTE = (
    "change: the win rate with the cards minus against them over the same games (pp: "
    "percentage points); Holm p: McNemar's exact p adjusted over the sets (—: no game "
    "differs, a test that cannot reject, left out); odds x: the "
    "change as a ratio of the odds of winning. vs base: the set's change minus the base "
    "game's, with its interval and the randomization test's Holm p; at 0% or 100%: too "
    "near a bound to compare in points. On the odds scale: the set's odds ratio over the "
    "base game's (x), Wald's test on the log odds, Holm over the sets. A Holm p of 0.05 "
    "or more shows no difference, not that there is none (docs/compare.md).")


def versus_base_band(r: pd.Series) -> str:
    """A set's vs-base interval as the tables write it, with its marks: at a bound of the
    win rate, or few games differing."""
    if r.at_bound:  # past 0% or past 100%: which, is plain from where it lands
        reached = r.win_rate - r.vs_base  # against(set) + the base game's change
        return "at 0%" if reached < 0.5 else "at 100%"
    band = f"{signed_pp(r.vs_base_low)} to {signed_pp(r.vs_base_high)}pp"
    few = 0 < r.vs_base_differing < ROUGH_BELOW
    return band + (" (few differ)" if few else "")


#: Under the table: what a pair of games shares.
PAIRING_NOTE = ("Game g of a set with one card set is paired with game g of the same set "
                "with the other: both draw from the random streams of (seed, g); where the "
                "card sets hold other numbers of cards, or their cards in another order, "
                "paired games are not the same deal.")


def chart_rows(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table as its chart shows it, the largest change first, each set named by
    ``expansion_sets.set_title``; and which expansions each row's set holds (one bool column per
    expansion any set holds, by its printed name), which names the rows of a chart of many
    sets as ``compare.chart_members`` does."""
    ordered = table.sort_values("difference", ascending=False, kind="stable")
    held = [set(label.split(SET_SEPARATOR)) if label != BASE else set()
            for label in ordered.index]
    names = [name for name in EXPANSION_TITLES if any(name in h for h in held)]
    titled = ordered.rename(index=set_title)
    members = pd.DataFrame([[name in h for name in names] for h in held], index=titled.index,
                           columns=[EXPANSION_TITLES[name] for name in names], dtype=bool)
    return titled, members
