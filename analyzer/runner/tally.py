"""Running totals of a batch, for runs that keep no per-game rows (``--summary-only``).

A tally is one int64 vector: counts, sums, sums of squares and histograms that add up chunk
by chunk, so a run of any length needs memory for one chunk only, and the summary figures
(win rate, means with their intervals, exact median turns, loss reasons) come out the same
as from the full rows.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import REASON_NAMES, Outcome

#: Summed per-game columns of the results (RESULT_DTYPE).
SUMMED = ("turns", "pacified", "deck_left", "chaos_placed", "chaos_cleared",
          "chaos_revealed", "censuses", "exchanges", "chromatic", "rebuilds", "sides_changed",
          "inhabitants", "emptiness_left", "books_kept", "wise_used", "book_actions", "allies",
          "polarity_swaps")
#: Histogram bins; larger values count in the last bin (no base game comes near).
TURN_BINS = 512
PACIFIED_BINS = 64


def _layout() -> dict[str, slice]:
    sizes = {"games": 1, "wins": 1, "loss_reasons": len(REASON_NAMES),
             "sums": len(SUMMED), "squares": len(SUMMED), "turns_hist": TURN_BINS,
             "pacified_hist": PACIFIED_BINS}
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


LAYOUT = _layout()
TALLY_SIZE = max(s.stop for s in LAYOUT.values())

#: What each entry of each part of the tally counts, in order, for a reader of a summary
#: file (``tally_key``): a part of one entry by a phrase, the others entry by entry.
TALLY_KEY = {
    "games": "games played",
    "wins": "games won",
    "loss_reasons": [f"games lost: {name}" for name in REASON_NAMES],
    "sums": [f"sum over the games of {name}" for name in SUMMED],
    "squares": [f"sum over the games of {name} squared" for name in SUMMED],
    "turns_hist": f"games by turns played, 0 to {TURN_BINS - 1} (the last: that many or "
                  "more)",
    "pacified_hist": f"games by City cards pacified, 0 to {PACIFIED_BINS - 1} (the last: "
                     "that many or more)",
}


def empty_tally() -> np.ndarray:
    """A tally of no games: int64, shape (TALLY_SIZE,)."""
    return np.zeros(TALLY_SIZE, dtype=np.int64)


def tally_results(results: np.ndarray) -> np.ndarray:
    """The tally of structured per-game results (RESULT_DTYPE)."""
    tally = empty_tally()
    won = results["outcome"] == Outcome.WIN
    tally[LAYOUT["games"]] = len(results)
    tally[LAYOUT["wins"]] = int(won.sum())
    tally[LAYOUT["loss_reasons"]] = np.bincount(results["reason"][~won].astype(np.int64),
                                                minlength=len(REASON_NAMES))
    tally[LAYOUT["sums"]] = [int(results[name].astype(np.int64).sum()) for name in SUMMED]
    # sums of squares give each mean its interval (int64: 2**63 is 3e13 games of 512 turns)
    tally[LAYOUT["squares"]] = [int((results[name].astype(np.int64) ** 2).sum())
                                for name in SUMMED]
    tally[LAYOUT["turns_hist"]] = _histogram(results["turns"], TURN_BINS)
    tally[LAYOUT["pacified_hist"]] = _histogram(results["pacified"], PACIFIED_BINS)
    return tally


def _histogram(values: np.ndarray, bins: int) -> np.ndarray:
    return np.bincount(np.clip(values.astype(np.int64), 0, bins - 1), minlength=bins)


def part(tally: np.ndarray, name: str) -> np.ndarray:
    """One named part of a tally (a view)."""
    return tally[LAYOUT[name]]


def loss_counts(tally: np.ndarray) -> dict[str, int]:
    """Games lost by reason (``REASON_NAMES``), the reasons no game was lost by left out."""
    return {REASON_NAMES[k]: int(v) for k, v in enumerate(part(tally, "loss_reasons")) if v > 0}


def histogram_median(hist: np.ndarray) -> float:
    """The median of the values a histogram counts (the mean of the two middle ones when
    the count is even, as pandas computes it); NaN for an empty histogram."""
    n = int(hist.sum())
    if n == 0:
        return float("nan")
    cumulative = np.cumsum(hist)
    lower = int(np.searchsorted(cumulative, (n - 1) // 2 + 1))
    upper = int(np.searchsorted(cumulative, n // 2 + 1))
    return (lower + upper) / 2
