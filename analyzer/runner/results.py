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
}


def from_kernel_rows(rows: np.ndarray, first_game: int) -> np.ndarray:
    """Structured results from the batch kernel's int64 (n, N_RESULT) matrix."""
    out = np.empty(len(rows), dtype=RESULT_DTYPE)
    out["game"] = np.arange(first_game, first_game + len(rows))
    for name, col in _COLUMNS.items():
        out[name] = rows[:, col]
    return out


def tallies_from_trace(trace: dict) -> dict[str, int]:
    """The tally columns counted from a trace's log (the fast kernel counts the same)."""
    counts = dict.fromkeys(("chaos_placed", "chaos_cleared", "chaos_revealed", "censuses",
                            "exchanges", "chromatic", "rebuilds", "sides_changed"), 0)
    for entry in trace["log"]:
        if entry.get("do") == "chromatic" and not entry.get("wise"):
            counts["chromatic"] += 1
        if entry.get("do") == "chaos":
            how = entry["how"]
            key = {"place": "chaos_placed", "clear": "chaos_cleared",
                   "reveal": "chaos_revealed"}.get(how)
            if key:
                counts[key] += 1
        elif entry.get("do") == "act":
            for act in entry["acts"]:
                if "census" in act:
                    counts["censuses"] += 1
                if "exchange" in act:
                    counts["exchanges"] += 1
                if "rebuild" in act:
                    counts["rebuilds"] += 1
                if "change_sides" in act:
                    counts["sides_changed"] += 1
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
        for key, value in tallies_from_trace(trace).items():
            out[i][key] = value
    return out
