"""Policies head to head on the same deals: win rates, and paired differences per pair."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analyzer.analysis.run_stats import headline, played_alike
from analyzer.analysis.stats import (
    format_p,
    holm_adjust,
    holm_cell,
    holm_family,
    mean_half_width,
    mean_interval,
    paired_difference,
    signed_pp,
)
from analyzer.analysis.summary import EXPANSION_MEANS


def policy_table(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per policy: games, wins, win rate and its 95% Wilson interval, mean turns and
    pacified, games/s. ``results`` maps a policy name to its per-game DataFrame."""
    table = headline(results).rename_axis("policy")
    table["games_per_s"] = [len(df) / df.attrs["seconds"] for df in results.values()]
    return table


#: The per-game tallies that show how a policy plays: (column, the expansion or variant
#: that makes it mean something, None for every game, label).
PLAY_TALLIES = (
    ("turns", None, "turns"),
    ("censuses", None, "censuses"),
    ("exchanges", None, "exchanges"),
    ("chaos_placed", None, "Chaos placed (opening hand too)"),
    ("chaos_cleared", None, "Chaos drawn: cleared a city"),
    ("chaos_revealed", None, "Chaos drawn: revealed"),
    ("chromatic", "chromatic_chaos", "Chromatic Chaos resolved"),
    ("rebuilds", "gardens_wizards", "Rebuilds"),
    ("sides_changed", "gardens_wizards", "Change Sides"),
    # the per-game means a run's summary shows for the expansions of the second part
    *((column, expansion, label) for expansion, column, label in EXPANSION_MEANS),
)


#: The per-game results column of each label of :data:`PLAY_TALLIES`.
PLAY_COLUMNS = {label: column for column, _, label in PLAY_TALLIES}


def play_table(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """How each policy plays the same deals: the mean per game of each tally of
    :data:`PLAY_TALLIES` that the expansions and variant in play give meaning to (index:
    its label), one column per policy."""
    return _per_tally(results, lambda values: float(values.mean()))


def play_half_widths(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The half-width of each mean of :func:`play_table`'s 95% t-interval, in its shape."""
    return _per_tally(results, mean_half_width)


def _per_tally(results: dict[str, pd.DataFrame], measure) -> pd.DataFrame:
    """``measure`` of each policy's per-game values of each tally in play."""
    attrs = next(iter(results.values())).attrs
    in_play = {*attrs.get("expansions", []), attrs.get("variant", "solo")}
    rows = {label: [measure(df[column].to_numpy(dtype=float)) for df in results.values()]
            for column, needs, label in PLAY_TALLIES
            if (needs is None or needs in in_play)
            and all(column in df for df in results.values())}
    return pd.DataFrame.from_dict(rows, orient="index", columns=list(results))


#: Under the play table: what the +- are, and that they do not test a difference.
PLAY_NOTE = ("+-: half the width of each policy's own 95% interval of the mean. Two columns' "
             "intervals do not test their difference: the policies play the same deals, and "
             "only a deal-by-deal comparison does, as \"cities pacified a deal\" above.")


def format_play(play: pd.DataFrame, halves: pd.DataFrame | None = None) -> str:
    """The :func:`play_table` as text, each mean with its interval's half-width
    (``halves``, :func:`play_half_widths`) when given: a policy's column beside another's
    shows what the stronger one does differently."""
    label_width = max(len(str(label)) for label in play.index) if len(play) else 10
    cells = play.map(lambda value: f"{value:.2f}")
    if halves is not None:
        cells = cells + halves.map(lambda half: "" if pd.isna(half) else f" +-{half:.2f}")
    widths = [max(9, len(str(name)), *(len(cell) for cell in cells[name]))
              for name in play.columns]
    # a cell "24.93 +-0.20" holds a space itself: three between columns tell them apart
    gap = " " if halves is None else "   "
    head = f"{'per game (mean)':<{label_width}}" + "".join(
        f"{gap}{str(name):>{w}}" for name, w in zip(play.columns, widths, strict=True))
    lines = ["How each plays the same deals:", head]
    for label, row in cells.iterrows():
        lines.append(f"{str(label):<{label_width}}" + "".join(
            f"{gap}{cell:>{w}}" for cell, w in zip(row, widths, strict=True)))
    shown = halves is not None and bool(halves.notna().to_numpy().any())
    return "\n".join(lines + ([PLAY_NOTE] if shown else []))


def pair_table(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Per pair (A, B): games won by A only, by B only and by both on the same deal, the
    paired difference of win rates with its 95% interval (Newcombe's square-and-add for
    paired proportions), McNemar's exact two-sided p-value, and that p-value adjusted by
    Holm's method over the pairs (k policies make k(k-1)/2 tests; a pair that won and lost
    the very same deals cannot reject and is not counted)."""
    rows = []
    for a, b in combinations(results, 2):
        won_a = results[a].set_index("game")["won"]
        won_b = results[b].set_index("game")["won"].reindex(won_a.index)
        paired = paired_difference(won_a.to_numpy(), won_b.to_numpy())
        rows.append({"a": a, "b": b, "games": len(won_a), "a_only": paired["set_only"],
                     "b_only": paired["base_only"], "both": int((won_a & won_b).sum()),
                     **{key: paired[key] for key in ("difference", "diff_low", "diff_high",
                                                     "mcnemar_p")},
                     "all_alike": played_alike(results[a], results[b]),
                     **paired_pacified(results[a], results[b])})
    table = pd.DataFrame(rows, columns=["a", "b", "games", "a_only", "b_only", "both",
                                        "difference", "diff_low", "diff_high", "mcnemar_p",
                                        "all_alike", "pacified_diff", "pacified_low",
                                        "pacified_high"])
    table.insert(table.columns.get_loc("mcnemar_p") + 1, "holm_p",
                 holm_adjust(table["mcnemar_p"].tolist(),
                             ((table["a_only"] + table["b_only"]) > 0).tolist()))
    return table


def paired_pacified(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, float]:
    """The mean of A's cities pacified minus B's, deal by deal, with the 95% t-interval of
    that mean (a paired t-interval: each deal's luck cancels): ``pacified_diff``,
    ``pacified_low``, ``pacified_high``; NaN for rows that do not count cities."""
    if "pacified" not in a or "pacified" not in b:
        return {"pacified_diff": np.nan, "pacified_low": np.nan, "pacified_high": np.nan}
    mine = a.set_index("game")["pacified"].astype(np.int64)
    theirs = b.set_index("game")["pacified"].astype(np.int64).reindex(mine.index)
    gaps = (mine - theirs).to_numpy()
    cities = a.attrs.get("city_cards")  # no policy pacifies more, nor fewer than none
    low, high = mean_interval(gaps, -cities if cities else None, cities)
    return {"pacified_diff": float(gaps.mean()) if len(gaps) else float("nan"),
            "pacified_low": low, "pacified_high": high}


def _games_played(attrs: dict) -> str:
    """Which games of the seed the duel played: "games 1000", or "games 500-1499" when
    they do not start at game 0 (tune's held-out games)."""
    first, games = int(attrs.get("first_game", 0)), int(attrs["games"])
    return f"games {games}" if first == 0 else f"games {first}-{first + games - 1}"


def format_duel(policies: pd.DataFrame, pairs: pd.DataFrame, attrs: dict) -> str:
    """The duel as text for the terminal."""
    expansions = ", ".join(attrs.get("expansions") or []) or "none (base game)"
    width = max(20, *(len(str(name)) for name in policies.index))  # long FILE.py names
    lines = [f"card set   {attrs['card_set']} (sha256 {attrs['card_set_sha256'][:12]})    "
             f"seed {attrs['seed']}    {_games_played(attrs)} (the same deals for every "
             "policy)",
             f"expansions {expansions}    {attrs.get('variant', 'solo')} game    rules "
             f"{attrs.get('rules_version')}", "",
             f"{'policy':<{width + 4}} {'wins':>7} {'win rate':>9}  {'95% interval':<17} "
             f"{'pacified':>8} {'games/s':>9}"]
    for row in policies.reset_index().itertuples():
        lines.append(f"{row.policy:<{width + 4}} {row.wins:>7} {row.win_rate:>9.2%}  "
                     f"{row.ci_low:>6.2%} to {row.ci_high:<7.2%} {row.mean_pacified:>8.2f} "
                     f"{row.games_per_s:>9,.0f}")
    bands = [f"{signed_pp(row.diff_low)} to {signed_pp(row.diff_high)}pp"
             for row in pairs.itertuples()]
    band_width = max(18, *(len(band) for band in bands)) if bands else 18
    lines += ["", f"{'A':<{width}} {'B':<{width}} {'A only':>7} {'B only':>7} {'A - B':>9}  "
                  f"{'95% interval':<{band_width}} {'McNemar p':>10} {'Holm p':>9}"]
    for row, band in zip(pairs.itertuples(), bands, strict=True):
        lines.append(f"{row.a:<{width}} {row.b:<{width}} {row.a_only:>7} {row.b_only:>7} "
                     f"{signed_pp(row.difference):>7}pp  {band:<{band_width}} "
                     f"{format_p(row.mcnemar_p):>10} "
                     f"{holm_cell(row.holm_p, row.a_only + row.b_only):>9}")
    if "pacified_diff" in pairs:
        lines += ["", f"{'cities pacified a deal':<{2 * width + 1}} {'A - B':>7}  95% interval "
                      "(paired: each deal's luck cancels)"]
        for row in pairs.itertuples():
            if getattr(row, "all_alike", False):
                span = "(every deal alike)"
            elif np.isfinite([row.pacified_low, row.pacified_high]).all():
                span = f"{row.pacified_low:+.2f} to {row.pacified_high:+.2f}"
            else:
                span = "(the same difference on every deal)"
            lines.append(f"{row.a:<{width}} {row.b:<{width}} {row.pacified_diff:>+7.2f}  {span}")
    notes = ["95% interval: Wilson's for a win rate, the paired difference's for A - B, in "
             "percentage points (pp). pacified: mean City cards pacified a game. A only: "
             "deals A won and B lost."]
    alike = pairs["all_alike"].astype(bool) if "all_alike" in pairs else pairs["a"].isna()
    for row in pairs[alike].itertuples():
        notes.append(f"{row.a} and {row.b} ended each of the {row.games:,} deals alike "
                     "(result, turns, cities, every tally): most likely one policy under "
                     "two names.")
    if len(pairs) > 1:
        differ = int(((pairs["a_only"] + pairs["b_only"]) > 0).sum())
        family = holm_family(differ, "pair", len(pairs) - differ)
        notes.append(f"Holm p: McNemar's p adjusted for {family}; a pair "
                     "differs with the family error held at 5% when it is below 0.05. The "
                     "intervals are not adjusted for the number of pairs; Holm p is.")
    return "\n".join([*lines, "", *notes])
