"""Books of Power (R09): which Books can act, their target options, and their actions."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    MAX_ROWS,
    N_BOOK_KINDS,
    SIDE_SLOTS,
    BookKind,
    Decision,
    Info,
    Result,
    Side,
)
from analyzer.core.jit import borrowing_jit
from analyzer.core.scratch import stack_array
from analyzer.rules.census_nb import census_nb, pacify_nb, refill_rows_nb
from analyzer.rules.chaos_nb import is_any_chaos_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.postcards_nb import dream_moved_nb
from analyzer.rules.setup_nb import deal_empty_rows_nb, resolve_held_nb
from analyzer.rules.state_nb import (
    append_to_side_nb,
    discard_nb,
    emptiness_row_nb,
    is_running_nb,
    remove_from_side_nb,
    row_dreams_nb,
    side_count_nb,
    slot_col_nb,
)

#: Perfect Balance brings this many City cards with the Book of Perfect Balance (R09.6).
BOOK_PERFECT_BONUS = 2
#: Dream cards a Book of Prophecies looks at (R09.7).
PROPHECY_CARDS = 2
#: The most cards the Prophecies look at: both Books (R09.7).
PROPHECY_MOST = 2 * PROPHECY_CARDS


@borrowing_jit
def book_side_nb(kind):
    """The side a Flying or Invisible Book works on."""
    if kind == BookKind.FLYING_SOGNAE or kind == BookKind.INVISIBLE_SOGNAE:
        return Side.L
    return Side.R


@borrowing_jit
def flying_options_nb(g, cards, side, options, write):
    """R09.3: ``[card, from_row, to_row, side]`` for each non-Chaos dream on ``side`` (rows,
    positions) and each other row with room on ``side``; counted, or with ``write`` listed."""
    layout = g.layout
    n_rows = g.info[Info.N_ROWS]
    n = 0
    for row in range(n_rows):
        for slot in range(SIDE_SLOTS):
            card = layout[row, slot_col_nb(side, slot)]
            if card == EMPTY or is_any_chaos_nb(cards, card):
                continue
            for to in range(n_rows):
                if to != row and side_count_nb(layout, to, side) < SIDE_SLOTS:
                    if write:
                        set_option_nb(options, n, card, row, to, side)
                    n += 1
    return n


@borrowing_jit
def invisible_options_nb(g, cards, side, options, write):
    """R09.4: ``[card, row, side, -1]`` for each non-Chaos dream on ``side``."""
    layout = g.layout
    n = 0
    for row in range(g.info[Info.N_ROWS]):
        for slot in range(SIDE_SLOTS):
            card = layout[row, slot_col_nb(side, slot)]
            if card != EMPTY and not is_any_chaos_nb(cards, card):
                if write:
                    set_option_nb(options, n, card, row, side, EMPTY)
                n += 1
    return n


@borrowing_jit
def freedom_options_nb(g, options, write):
    """R09.5: ``[row, -1, -1, -1]`` for each city without dreams."""
    n = 0
    for row in range(g.info[Info.N_ROWS]):
        if g.layout[row, 0] != EMPTY and row_dreams_nb(g.layout, row) == 0:
            if write:
                set_option_nb(options, n, row, EMPTY, EMPTY, EMPTY)
            n += 1
    return n


@borrowing_jit
def target_options_nb(g, cards, kind, write):
    """The targets of a Book that has them (counted, or with ``write`` listed)."""
    if kind == BookKind.FLYING_SOGNAE or kind == BookKind.FLYING_INCUBI:
        return flying_options_nb(g, cards, book_side_nb(kind), g.options, write)
    if kind == BookKind.INVISIBLE_SOGNAE or kind == BookKind.INVISIBLE_INCUBI:
        return invisible_options_nb(g, cards, book_side_nb(kind), g.options, write)
    return freedom_options_nb(g, g.options, write)


@borrowing_jit
def usable_books_nb(g, cards):
    """Bit mask of the Book kinds in the layout that can act now (docs/engine.md)."""
    kept = g.info[Info.BOOKS]
    usable = 0
    for kind in range(N_BOOK_KINDS):
        if kept >> kind & 1 == 0:
            continue
        if kind == BookKind.PERFECT_BALANCE or kind == BookKind.PROPHECIES or \
                target_options_nb(g, cards, kind, False) > 0:
            usable |= 1 << kind
    return usable


@borrowing_jit
def next_permutation_nb(perm, m):
    """Step ``perm[:m]`` to the next permutation in lexicographic order; False at the end."""
    i = m - 2
    while i >= 0 and perm[i] > perm[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = m - 1
    while perm[j] < perm[i]:
        j -= 1
    perm[i], perm[j] = perm[j], perm[i]
    lo, hi = i + 1, m - 1
    while lo < hi:  # reverse perm[i + 1:m] in place
        perm[lo], perm[hi] = perm[hi], perm[lo]
        lo += 1
        hi -= 1
    return True


@borrowing_jit
def prophecies_nb(policy, g, cards):
    """R09.7: look at the top 2 Dream cards (4 with both Books) and put them back in the
    order the policy chooses."""
    m = min(PROPHECY_CARDS * g.info[Info.PROPHECIES], g.info[Info.DECK_N])
    if m == 0:
        return
    top = g.info[Info.DECK_TOP]
    perm = stack_array(PROPHECY_MOST, np.int64)
    for k in range(m):
        perm[k] = k
    n = 0
    while True:
        for k in range(4):
            g.options[n, k] = g.deck[top + perm[k]] if k < m else EMPTY
        n += 1
        if not next_permutation_nb(perm, m):
            break
    choice = ask_nb(policy, g, cards, Decision.PROPHECY_ORDER, n)
    if choice >= 0:
        for k in range(m):
            g.deck[top + k] = g.options[choice, k]


@borrowing_jit
def freedom_nb(policy, g, cards, row):
    """R09.5: pacify a dreamless city, refill its row, deal the dreamless rows (R05.8-R05.10);
    the Emptiness on it goes back to its pile (R12.5)."""
    if emptiness_row_nb(g) == row:
        g.info[Info.EMPTINESS_CITY] = EMPTY
    pacify_nb(g, row)
    if not is_running_nb(g):
        return
    pacified = stack_array(MAX_ROWS, np.bool_)
    pacified[:] = False
    pacified[row] = True
    refill_rows_nb(g, pacified)
    deal_empty_rows_nb(policy, g, cards)
    if is_running_nb(g):
        resolve_held_nb(policy, g, cards)


@borrowing_jit
def book_action_nb(policy, g, cards, kind):
    """Carry out the action of the Book ``kind`` (R09.3-R09.7)."""
    g.stats[Result.BOOK_ACTIONS] += 1
    if kind == BookKind.PERFECT_BALANCE:
        census_nb(policy, g, cards, BOOK_PERFECT_BONUS)
        return
    if kind == BookKind.PROPHECIES:
        prophecies_nb(policy, g, cards)
        return
    n = target_options_nb(g, cards, kind, True)
    choice = ask_nb(policy, g, cards, Decision.BOOK_TARGET, n)
    if choice < 0:
        return
    o = g.options
    if kind == BookKind.FREEDOM:
        freedom_nb(policy, g, cards, o[choice, 0])
        return
    card, row, side = o[choice, 0], o[choice, 1], book_side_nb(kind)
    for slot in range(SIDE_SLOTS):
        if g.layout[row, slot_col_nb(side, slot)] == card:
            remove_from_side_nb(g.layout, row, side, slot)
            break
    if kind == BookKind.FLYING_SOGNAE or kind == BookKind.FLYING_INCUBI:
        append_to_side_nb(g.layout, o[choice, 2], side, card)
        dream_moved_nb(g, cards, card)  # R11.8
    else:
        discard_nb(g, card)
