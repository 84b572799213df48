"""The summary of a batch: win rate with its interval, turns, loss reasons, speed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analyzer.analysis.stats import (
    mean_interval,
    sums_mean_interval,
    wilson_interval,
)
from analyzer.errors import UrbionError
from analyzer.runner.tally import SUMMED, histogram_median, loss_counts, part

#: Per-game means the summary shows when their expansion, or the team variant, is in play:
#: (expansion or variant, column, label).
EXPANSION_MEANS = (("books", "books_kept", "Books kept"),
                   ("books", "book_actions", "Book actions"),
                   ("postcards", "inhabitants", "inhabitant sum"),
                   ("postcards", "wise_used", "Wise Chaos used"),
                   ("emptiness", "emptiness_left", "Emptiness cards left"),
                   ("emptiness", "allies", "Allies against the Emptiness"),
                   ("team", "polarity_swaps", "polarity swaps"))
#: Of those, the columns that can be negative (a postcard sent away scores -2, R11.4).
SIGNED_MEANS = ("inhabitants",)


#: The columns :func:`summarize` reads.
SUMMARIZED = ("won", "reason", "turns", "pacified")


def summarize(df: pd.DataFrame) -> dict:
    """Summary figures of a results DataFrame (one row per game, as ``simulate`` returns).

    Returns
    -------
    dict
        ``games``, ``wins``, ``win_rate`` with its 95% Wilson interval ``ci_low`` and
        ``ci_high``; ``mean_turns`` with its 95% interval ``turns_ci`` (low, high),
        ``median_turns``; ``mean_pacified`` (City cards a game) with ``pacified_ci``;
        ``loss_reasons`` (reason: games lost so); ``losses_short`` (City cards short of
        pacifying every one: games lost so, empty where ``df.attrs`` does not give the
        game's City cards); ``means`` and ``means_ci``, the per-game
        means of the columns of the expansions and variant in play (all when ``df.attrs``
        does not say which) and their 95% intervals.

    Raises
    ------
    UrbionError
        For anything but a DataFrame with the columns of :data:`SUMMARIZED`.
    """
    if not isinstance(df, pd.DataFrame) or not set(SUMMARIZED) <= set(df.columns):
        raise UrbionError("summarize needs a results DataFrame as simulate returns it (columns "
                          f"{', '.join(SUMMARIZED)}), not {type(df).__name__}"
                          + (" without them" if isinstance(df, pd.DataFrame) else ""))
    _check_kinds(df)
    games = len(df)
    wins = int(df["won"].sum())
    low, high = wilson_interval(wins, games)
    losses = df.loc[~df["won"], "reason"].value_counts()
    means = mean_columns(df)
    in_play = means_in_play(df.attrs.get("expansions"), df.attrs.get("variant", "solo"))
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "mean_turns": means["mean_turns"],
        "median_turns": float(df["turns"].median()) if games else float("nan"),
        "mean_pacified": means["mean_pacified"],
        "turns_ci": (means["turns_low"], means["turns_high"]),
        "pacified_ci": (means["pacified_low"], means["pacified_high"]),
        "loss_reasons": {str(k): int(v) for k, v in losses.items() if v > 0},
        "losses_short": _losses_short(df),
        "means": {col: float(df[col].mean()) if games else float("nan")
                  for col in in_play if col in df},
        "means_ci": {col: mean_interval(df[col].to_numpy(), _low_bound(col))
                     for col in in_play if col in df},
    }


def _losses_short(df: pd.DataFrame) -> dict[int, int]:
    """Games lost by how many City cards they were short of pacifying every one (0: all
    pacified, lost otherwise), ascending; empty when the City cards of the game are not
    known (a frame without the run's configuration)."""
    city_cards = df.attrs.get("city_cards")
    if city_cards is None:
        return {}
    short = int(city_cards) - df.loc[~df["won"], "pacified"].astype(np.int64)
    return {int(k): int(v) for k, v in short.value_counts().sort_index().items()}


def _tally_losses_short(tally: np.ndarray, wins: int, city_cards: int | None) -> dict[int, int]:
    """:func:`_losses_short` from a tally: a game won pacified every City card, so the
    losses are the pacified histogram less the wins at its top. The histogram's last bin
    counts that many cities or more: losses there, of a set with more City cards, leave
    how many short unknown, and so the whole figure ({})."""
    if city_cards is None:
        return {}
    hist = part(tally, "pacified_hist").astype(np.int64)
    top = len(hist) - 1
    counts = {k: int(hist[city_cards - k]) - (wins if k == 0 else 0)
              for k in range(city_cards + 1) if city_cards - k < top}
    if city_cards >= top:
        lumped = int(hist[top]) - wins  # losses that pacified `top` cities or more
        if lumped and city_cards > top:
            return {}
        counts[city_cards - top] = lumped
    return {k: n for k, n in counts.items() if n > 0}


def short_text(losses_short: dict) -> str | None:
    """The losses by City cards left unpacified, in words: "1: 3,006 (33%), 2: 3,116 (34%),
    3 or more: 3,000 (33%)"; None when there are none or they are not known."""
    counts = {int(k): int(v) for k, v in losses_short.items()}  # JSON keys are strings
    lost = sum(counts.values())
    if not lost:
        return None
    parts = [f"{k}: {counts[k]:,} ({_share(counts[k], lost)})" for k in (0, 1, 2)
             if counts.get(k)]
    more = sum(v for k, v in counts.items() if k >= 3)
    if more:
        parts.append(f"3 or more: {more:,} ({_share(more, lost)})")
    return ", ".join(parts)


def _share(count: int, total: int) -> str:
    """``count`` of ``total`` in whole percent; a count that rounds to 0% or 100% without
    being none or all says so ("<1%", ">99%"), not "0%" beside 14 losses."""
    text = f"{count / total:.0%}"
    if text == "0%" and count:
        return "<1%"
    if text == "100%" and count < total:
        return ">99%"
    return text


def _books_unplayed(summary: dict, attrs: dict) -> bool:
    """Whether a run with the Books of Power in play kept and used none in any game."""
    means = summary.get("means", {})
    return "books" in (attrs.get("expansions") or []) and summary.get("games", 0) > 0 and \
        means.get("books_kept") == 0 and means.get("book_actions") == 0


def _low_bound(column: str) -> float | None:
    """The least value a per-game mean can take: 0 for a count, none for a signed sum."""
    return None if column in SIGNED_MEANS else 0.0


def means_in_play(expansions: list[str] | None, variant: str = "solo") -> list[str]:
    """The :data:`EXPANSION_MEANS` columns of the expansions and variant in play; all of
    them when the expansions are not known (a frame without the run's configuration): a
    mean of an expansion not in play reads as a fact about the game (0 Emptiness cards
    left)."""
    return [col for name, col, _ in EXPANSION_MEANS
            if expansions is None or name in expansions or name == variant]


def _check_kinds(df: pd.DataFrame) -> None:
    """Refuse a column of another kind than a results frame holds (won as 0/1, turns as
    text), which would fail deep in pandas or give a wrong figure, and a game held
    twice."""
    for column in SUMMARIZED:
        kind = df[column].dtype
        if column == "won":
            wrong, want = not pd.api.types.is_bool_dtype(kind), "true/false"
        elif column == "reason":
            continue
        else:
            wrong, want = not pd.api.types.is_integer_dtype(kind), "integers"
        if wrong or df[column].isna().any():
            held = "an empty cell" if not wrong else \
                f"values of type {kind}, where a run writes {want}"
            raise UrbionError(f"summarize needs a results DataFrame as simulate returns it "
                              f"(column {column} holds {held})")
    # frames joined twice over (pd.concat([df, df])) would count each game twice
    if "game" in df.columns and (repeated := df["game"][df["game"].duplicated()]).size:
        raise UrbionError(f"summarize needs a results DataFrame as simulate returns it "
                          f"(game {repeated.iloc[0]} appears twice)")


def summarize_tally(tally: np.ndarray, expansions: list[str] | None = None,
                    city_cards: int | None = None, variant: str = "solo") -> dict:
    """The same figures as :func:`summarize`, from a run's tally (``--summary-only``), with
    the means of the ``expansions`` and ``variant`` in play (all when ``expansions`` is
    None); ``city_cards``, the most cities a game can pacify, bounds that mean's interval
    (unbounded when None)."""
    games = int(part(tally, "games")[0])
    wins = int(part(tally, "wins")[0])
    sums = dict(zip(SUMMED, part(tally, "sums").tolist(), strict=True))
    squares = dict(zip(SUMMED, part(tally, "squares").tolist(), strict=True))
    low, high = wilson_interval(wins, games)
    nan = float("nan")
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else nan,
        "ci_low": low,
        "ci_high": high,
        "mean_turns": sums["turns"] / games if games else nan,
        "median_turns": histogram_median(part(tally, "turns_hist")),
        "mean_pacified": sums["pacified"] / games if games else nan,
        # from the sums of squares: the histograms lump their last bin's values together
        "turns_ci": sums_mean_interval(games, sums["turns"], squares["turns"], 0.0),
        "pacified_ci": sums_mean_interval(games, sums["pacified"], squares["pacified"], 0.0,
                                          city_cards),
        "loss_reasons": loss_counts(tally),
        "losses_short": _tally_losses_short(tally, wins, city_cards),
        "means": {col: sums[col] / games if games else nan
                  for col in means_in_play(expansions, variant)},
        "means_ci": {col: sums_mean_interval(games, sums[col], squares[col], _low_bound(col))
                     for col in means_in_play(expansions, variant)},
    }


def _interval(summary: dict, key: str, decimals: int) -> str:
    """ " (95% interval LOW to HIGH)" of a mean, "" where there is none (a summary of one
    game, or one written before summaries had them)."""
    low, high = summary.get(key, (float("nan"), float("nan")))
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f" (95% interval {low:.{decimals}f} to {high:.{decimals}f})"


def _span(interval: tuple[float, float] | None) -> str:
    """ " (LOW to HIGH)", a per-game mean's 95% interval; "" where there is none."""
    if interval is None or not all(math.isfinite(end) for end in interval):
        return ""
    return f" ({interval[0]:.2f} to {interval[1]:.2f})"


def _per_game(label: str, mean: float, interval: tuple[float, float] | None,
              games: int) -> str:
    """One per-game mean of the summary with its 95% interval; a mean of values all alike,
    which has none (``stats._t_half_width``), as the value of every game."""
    span = _span(interval)
    if not span and games > 1 and float(mean).is_integer():
        return f"{label} {mean:.0f} in every game"
    return f"{label} {mean:.2f}{span}"


def _later_games(summary: dict, attrs: dict) -> str:
    """ " (games 1000-1999 of the seed)" for a batch that does not start at game 0."""
    first = int(attrs.get("first_game") or 0)
    if not first:
        return ""
    return f" (games {first}-{first + summary['games'] - 1} of the seed)"


#: What a team game's odds rest on, said beside them: rulings a reader could play otherwise.
TEAM_READING = (" (one policy plays both seats, both hands in view: R10.2; a polarity swap "
                "takes no action: docs/rules-notes.md 42)")


def _source(attrs: dict) -> str:
    """A user's policy's source hash after its name, as a report and ``show`` give it,
    which tells two versions of one file apart ("" for a built-in)."""
    source = attrs.get("policy_source_sha256")
    return f" (source sha256 {source[:12]})" if source else ""


def format_summary(summary: dict, attrs: dict, seconds: float | None = None) -> str:
    """Plain-text summary for the terminal."""
    lines = [
        f"card set   {attrs.get('card_set')} (sha256 {str(attrs.get('card_set_sha256'))[:12]})",
        f"expansions {', '.join(attrs.get('expansions') or []) or 'none (base game)'}",
        f"variant    {attrs.get('variant', 'solo')}"
        f"{TEAM_READING if attrs.get('variant') == 'team' else ''}",
        f"policy     {attrs.get('policy')}{_source(attrs)}    engine {attrs.get('engine')}    "
        f"seed {attrs.get('seed')}    rules {attrs.get('rules_version')}",
        f"games      {summary['games']:,}{_later_games(summary, attrs)}",
        f"wins       {summary['wins']:,}",
        f"win rate   {summary['win_rate']:.2%}  (95% Wilson interval "
        f"{summary['ci_low']:.2%} to {summary['ci_high']:.2%})",
        f"turns      mean {summary['mean_turns']:.1f}{_interval(summary, 'turns_ci', 1)}, "
        f"median {summary['median_turns']:.0f}",
        f"pacified   mean {summary['mean_pacified']:.2f}{_interval(summary, 'pacified_ci', 2)} "
        "City cards a game",
    ]
    in_play = {*(attrs.get("expansions") or []), attrs.get("variant", "solo")}
    means = summary.get("means", {})
    spans = summary.get("means_ci", {})
    columns = [(col, label) for name, col, label in EXPANSION_MEANS
               if name in in_play and col in means]
    shown = [_per_game(label, means[col], spans.get(col), summary["games"])
             for col, label in columns]
    if shown:
        spanned = any(_span(spans.get(col)) for col, _ in columns)
        lines.append(f"per game   {', '.join(shown)}"
                     f"{' (means, 95% intervals)' if spanned else ''}")
    ranked = sorted(summary["loss_reasons"].items(), key=lambda kv: (-kv[1], kv[0]))
    reasons = ", ".join(f"{k} {v:,}" for k, v in ranked) or "none"
    lines.append(f"losses     {reasons}")
    short = short_text(summary.get("losses_short") or {})
    if short:
        lines.append(f"short      losses by City cards left unpacified: {short}")
    if _books_unplayed(summary, attrs):  # as compare and report say it of their runs
        lines.append("books      the policy kept no Book of Power in any game: this run "
                     "played as without the Books and says nothing about them (weighted:FILE "
                     "keeps some, FILE holding BOOKS_KEEP = 1, 2 or 4; docs/policies.md)")
    if seconds:
        compiled = attrs.get("compile_seconds") or 0.0
        played = summary["games"] - int(attrs.get("games_resumed") or 0)
        if played:  # a resume that found every game saved played none: no speed to give
            where = f" on {attrs['played_on']}" if attrs.get("played_on") else ""
            lines.append(f"speed      {played / seconds:,.0f} games/s{where} ({seconds:.2f} "
                         f"s, plus {compiled:.1f} s to compile or load the engine)")
        if played < summary["games"]:
            lines.append(f"resumed    {summary['games'] - played:,} games were saved by the "
                         "interrupted run")
    return "\n".join(lines)


def mean_columns(df: pd.DataFrame) -> dict[str, float]:
    """A run's mean turns and mean cities pacified a game, each with its 95% t-interval:
    ``mean_turns``, ``turns_low``, ``turns_high``, ``mean_pacified``, ``pacified_low``,
    ``pacified_high``; the cities' interval ends at the City cards of the game (the
    ``city_cards`` of ``df.attrs``), which a mean cannot pass."""
    out = {}
    city_cards = df.attrs.get("city_cards")  # absent from files written before it was kept
    for column, high in (("turns", None), ("pacified", city_cards)):
        values = df[column].to_numpy()
        out[f"mean_{column}"] = float(values.mean()) if len(values) else float("nan")
        out[f"{column}_low"], out[f"{column}_high"] = mean_interval(values, 0.0, high)
    return out
