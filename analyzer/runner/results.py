"""The per-game results structured array, from fast-kernel rows or from traces."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import REASON_NAMES, Outcome, Result

RESULT_DTYPE = np.dtype([
    ("game", np.int64),
    ("outcome", np.int8),
    ("reason", np.int8),
    ("turns", np.int16),
    ("pacified", np.int16),
    ("deck_left", np.int16),
    ("chaos_placed", np.int16),
    ("chaos_cleared", np.int16),
    ("chaos_revealed", np.int16),
    ("censuses", np.int16),
    ("exchanges", np.int16),
    ("chromatic", np.int16),
    ("rebuilds", np.int16),
    ("sides_changed", np.int16),
    ("inhabitants", np.int16),
    ("emptiness_left", np.int8),
    ("books_kept", np.int8),
    ("wise_used", np.int8),
    ("seats", np.int8),
    ("book_actions", np.int16),
    ("allies", np.int16),
    ("polarity_swaps", np.int16),
])

_COLUMNS = {
    "outcome": Result.OUTCOME,
    "reason": Result.REASON,
    "turns": Result.TURNS,
    "pacified": Result.PACIFIED,
    "deck_left": Result.DECK_LEFT,
    "chaos_placed": Result.CHAOS_PLACED,
    "chaos_cleared": Result.CHAOS_CLEARED,
    "chaos_revealed": Result.CHAOS_REVEALED,
    "censuses": Result.CENSUSES,
    "exchanges": Result.EXCHANGES,
    "chromatic": Result.CHROMATIC,
    "rebuilds": Result.REBUILDS,
    "sides_changed": Result.SIDES_CHANGED,
    "inhabitants": Result.INHABITANTS,
    "emptiness_left": Result.EMPTINESS_LEFT,
    "books_kept": Result.BOOKS_KEPT,
    "wise_used": Result.WISE_USED,
    "seats": Result.SEATS,
    "book_actions": Result.BOOK_ACTIONS,
    "allies": Result.ALLIES,
    "polarity_swaps": Result.POLARITY_SWAPS,
}
#: Tallies counted from a trace's log entries, like the kernel counts them.
TRACE_TALLIES = ("chaos_placed", "chaos_cleared", "chaos_revealed", "censuses", "exchanges",
                 "chromatic", "rebuilds", "sides_changed", "books_kept", "wise_used",
                 "book_actions", "allies", "polarity_swaps")


def game_numbers(first_game: int, games: int) -> np.ndarray:
    """Games ``first_game .. first_game + games - 1`` as int64, (games,); the last may be
    2**63-1 (``np.arange`` would first compute the end, one past it, and overflow)."""
    return np.int64(first_game) + np.arange(games, dtype=np.int64)


def from_kernel_rows(rows: np.ndarray, first_game: int) -> np.ndarray:
    """Structured results from the batch kernel's int64 (n, N_RESULT) matrix."""
    out = np.empty(len(rows), dtype=RESULT_DTYPE)
    out["game"] = game_numbers(first_game, len(rows))
    for name, col in _COLUMNS.items():
        out[name] = rows[:, col]
    return out


def tallies_from_trace(trace: dict) -> dict[str, int]:
    """The tally columns counted from a trace's log (the fast kernel counts the same)."""
    counts = dict.fromkeys(TRACE_TALLIES, 0)
    for entry in trace["log"]:
        do = entry.get("do")
        if do == "chromatic":
            counts["wise_used" if entry.get("wise") else "chromatic"] += 1
        elif do == "chaos":
            key = {"place": "chaos_placed", "clear": "chaos_cleared",
                   "reveal": "chaos_revealed", "wise": "wise_used"}.get(entry["how"])
            if key:
                counts[key] += 1
        elif do == "books":
            counts["books_kept"] = entry["keep"]
        elif do == "swap_polarity":
            counts["polarity_swaps"] += 1
        elif do == "act":
            for act in entry["acts"]:
                if "census" in act:
                    counts["censuses"] += 1
                if "exchange" in act:
                    counts["exchanges"] += 1
                if "rebuild" in act:
                    counts["rebuilds"] += 1
                if "change_sides" in act:
                    counts["sides_changed"] += 1
                if "book" in act:
                    counts["book_actions"] += 1
                if "ally" in act:
                    counts["allies"] += 1
    return counts


def from_traces(traces: list[dict]) -> np.ndarray:
    """Structured results of reference-engine games, one trace each."""
    out = np.zeros(len(traces), dtype=RESULT_DTYPE)
    for i, trace in enumerate(traces):
        result = trace["result"]
        out[i]["game"] = trace["game"]
        out[i]["outcome"] = Outcome.WIN if result["outcome"] == "win" else Outcome.LOSS
        out[i]["reason"] = REASON_NAMES.index(result["reason"])
        for key in ("turns", "pacified", "deck_left"):
            out[i][key] = result[key]
        last = trace["log"][-1]["check"] if trace["log"] and "check" in trace["log"][-1] else {}
        out[i]["inhabitants"] = last.get("inhabitants", 0)
        out[i]["emptiness_left"] = last.get("emptiness", {}).get("cards", 0)
        out[i]["seats"] = 2 if trace.get("variant") == "team" else 1
        for key, value in tallies_from_trace(trace).items():
            out[i][key] = value
    return out
