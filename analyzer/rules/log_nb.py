"""The fast engine's decision log: fixed-width int64 rows, turned into JSON by ``trace/``.

Logging is off when ``g.log`` has no rows, so batch runs pay one branch per entry.
"""

from __future__ import annotations

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    LAYOUT_COLS,
    LOG_COLS,
    Expansion,
    Info,
    LogEntry,
)
from analyzer.core.jit import borrowing_jit
from analyzer.rules.state_nb import refresh_view_nb


@borrowing_jit
def logging_nb(g):
    """True when this game keeps a log."""
    return g.log.shape[0] > 0


@borrowing_jit
def next_log_row_nb(g):
    """Index of a fresh log row, or -1 (and the overflow flag) when the log is full."""
    n = g.info[Info.LOG_N]
    if n >= g.log.shape[0]:
        g.info[Info.LOG_OVERFLOW] = 1
        return -1
    g.info[Info.LOG_N] = n + 1
    for k in range(LOG_COLS):
        g.log[n, k] = EMPTY
    return n


@borrowing_jit
def log_decision_nb(g, kind, option):
    """Record the option row ``option`` chosen for a decision of ``kind``."""
    if not logging_nb(g):
        return
    i = next_log_row_nb(g)
    if i < 0:
        return
    g.log[i, 0] = LogEntry.DECISION
    g.log[i, 1] = kind
    for k in range(4):
        g.log[i, 2 + k] = g.options[option, k]
    g.log[i, 6] = g.info[Info.SEAT]
    g.log[i, 7] = g.info[Info.TURN]


@borrowing_jit
def log_ids_nb(g, entry, ids, lo, hi):
    """Record a header ``entry`` with the count, then ``ids[lo:hi]`` in DATA rows of 7."""
    if not logging_nb(g):
        return
    i = next_log_row_nb(g)
    if i < 0:
        return
    g.log[i, 0] = entry
    g.log[i, 1] = hi - lo
    for start in range(lo, hi, LOG_COLS - 1):
        j = next_log_row_nb(g)
        if j < 0:
            return
        g.log[j, 0] = LogEntry.DATA
        for k in range(min(LOG_COLS - 1, hi - start)):
            g.log[j, 1 + k] = ids[start + k]


@borrowing_jit
def log_check_nb(g):
    """Record a check entry: counters, then one ROW per row and one HAND per seat."""
    if not logging_nb(g):
        return
    info = g.info
    i = next_log_row_nb(g)
    if i < 0:
        return
    g.log[i, 0] = LogEntry.CHECK
    g.log[i, 1] = info[Info.TURN]
    g.log[i, 2] = info[Info.DECK_N]
    g.log[i, 3] = info[Info.SUCCESS_N]
    g.log[i, 4] = info[Info.DISCARD_N]
    g.log[i, 5] = info[Info.N_ROWS]
    for r in range(info[Info.N_ROWS]):
        j = next_log_row_nb(g)
        if j < 0:
            return
        g.log[j, 0] = LogEntry.ROW
        for k in range(LAYOUT_COLS):
            g.log[j, 1 + k] = g.layout[r, k]
    for seat in range(info[Info.SEATS]):
        j = next_log_row_nb(g)
        if j < 0:
            return
        g.log[j, 0] = LogEntry.HAND
        g.log[j, 1] = seat
        for k in range(HAND_SIZE):
            g.log[j, 2 + k] = g.hands[seat, k]
    if info[Info.SEATS] == 2 or \
            info[Info.EXPANSIONS] & (Expansion.POSTCARDS | Expansion.EMPTINESS) != 0:
        log_extra_check_nb(g)


@borrowing_jit
def log_extra_check_nb(g):
    """The check's row for the expansions' counters and the team's polarity."""
    refresh_view_nb(g)
    info = g.info
    j = next_log_row_nb(g)
    if j < 0:
        return
    g.log[j, 0] = LogEntry.EXTRA_CHECK
    g.log[j, 1] = info[Info.INHABITANTS]
    g.log[j, 2] = info[Info.WISE_LEFT]
    g.log[j, 3] = info[Info.EMPTINESS_N]
    g.log[j, 4] = info[Info.EMPTINESS_ROW]
    g.log[j, 5] = info[Info.EMPTINESS_FLAT]
    g.log[j, 6] = info[Info.POLARITY]
