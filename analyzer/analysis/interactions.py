"""Interactions of two expansions: whether a pair together is harder or easier than its two
single effects say, estimated on games paired by number, on the additive and the odds scale,
and the table's text.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd

from analyzer.analysis.expansion_sets import BASE, EXPANSION_TITLES, SET_SEPARATOR, set_title
from analyzer.analysis.stats import (
    ODDS_MIN_OUTCOMES,
    SIGNIFICANCE,
    format_p,
    holm_adjust,
    log_odds_contrast,
    sign_flip_p,
    signed_pp,
    t95,
)
from analyzer.core.codes import PLAYABLE_EXPANSIONS
from analyzer.errors import UrbionError


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
