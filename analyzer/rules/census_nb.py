"""Census (R05): pacify, Perfect Balance, zero-sum discards, refill rows, deal new dreams."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    LAYOUT_COLS,
    MAX_ROWS,
    SIDE_SLOTS,
    Decision,
    Info,
    LogEntry,
)
from analyzer.core.jit import borrowing_jit
from analyzer.core.scratch import stack_array
from analyzer.rules.chaos_nb import clear_row_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import add_success_nb, draw_city_nb
from analyzer.rules.emptiness_nb import check_emptiness_city_nb
from analyzer.rules.log_nb import log_ids_nb
from analyzer.rules.postcards_nb import postcards_in_play_nb, score_pacified_nb
from analyzer.rules.setup_nb import deal_empty_rows_nb, resolve_held_nb
from analyzer.rules.state_nb import (
    copy_into_nb,
    discard_nb,
    emptiness_row_nb,
    find_in_row_nb,
    is_balanced_nb,
    is_running_nb,
    placed_value_nb,
    remove_from_side_nb,
)

N_POSITIONS = 2 * SIDE_SLOTS


#: A dream's value packed in 5 bits for ``zero_sum_options_nb`` (the card loader keeps values
#: within -9..9).
VALUE_BITS = 5
VALUE_OFFSET = 16


@borrowing_jit
def zero_sum_options_nb(g, cards, row):
    """Masks over a row's 6 positions whose dreams sum to 0, with 0 first (R05.5)."""
    layout, options = g.layout, g.options  # read once: each read is a reference count
    packed = 0  # the positions' values, VALUE_BITS each: no array to allocate
    occupied = 0
    for pos in range(N_POSITIONS):
        card = layout[row, 1 + pos]
        if card != EMPTY:
            occupied |= 1 << pos
            value = placed_value_nb(cards, card, pos // SIDE_SLOTS)
            packed |= (value + VALUE_OFFSET) << (VALUE_BITS * pos)
    set_option_nb(options, 0, 0, row, -1, -1)
    n = 1
    left_bits = (1 << SIDE_SLOTS) - 1
    if occupied & left_bits == 0 or occupied & ~left_bits == 0:
        return n  # one side only: no non-empty set sums to 0
    mask = (0 - occupied) & occupied  # the subsets of the occupied positions, ascending
    while mask != 0:
        total = 0
        for pos in range(N_POSITIONS):
            if mask >> pos & 1:
                total += (packed >> (VALUE_BITS * pos) & (1 << VALUE_BITS) - 1) - VALUE_OFFSET
        if total == 0:
            set_option_nb(options, n, mask, row, -1, -1)
            n += 1
        mask = (mask - occupied) & occupied
    return n


@borrowing_jit
def discard_positions_nb(g, row, mask):
    """Discard the dreams of ``row`` at the positions in ``mask``, left then right."""
    if mask == 0:
        return
    chosen = stack_array(N_POSITIONS, np.int64)
    k = 0
    for pos in range(N_POSITIONS):
        if mask >> pos & 1:
            chosen[k] = g.layout[row, 1 + pos]
            k += 1
    log_ids_nb(g, LogEntry.GROUP, chosen, 0, k)
    for i in range(k):
        discard_nb(g, chosen[i])
        side, slot = find_in_row_nb(g.layout, row, chosen[i])
        remove_from_side_nb(g.layout, row, side, slot)


@borrowing_jit
def pacify_nb(g, row):
    """R05.3: City card to Success, its dreams to the discard pile, the row a placeholder.

    The caller has scored the city's postcards (R11.4)."""
    g.layout[row, 0] = EMPTY
    clear_row_nb(g, row)
    add_success_nb(g)


@borrowing_jit
def refill_rows_nb(g, pacified):
    """R05.8 / R01.5: pacified rows take new City cards; with none left the row goes."""
    n_rows = g.info[Info.N_ROWS]
    keep = 0
    for row in range(n_rows):
        if pacified[row]:
            g.layout[row, 0] = draw_city_nb(g)
        if g.layout[row, 0] != EMPTY:
            for k in range(LAYOUT_COLS):
                g.layout[keep, k] = g.layout[row, k]
            keep += 1
    for row in range(keep, MAX_ROWS):
        for k in range(LAYOUT_COLS):
            g.layout[row, k] = EMPTY
    g.info[Info.N_ROWS] = keep


@borrowing_jit
def mark_balanced_rows_nb(pacified, g, cards, skip):
    """Mark in ``pacified`` (bool (MAX_ROWS,)) the rows to pacify (R05.3): balanced, and not
    the Emptiness row ``skip`` (R05.1)."""
    pacified[:] = False
    for row in range(g.info[Info.N_ROWS]):
        pacified[row] = row != skip and is_balanced_nb(g.layout, cards, row)


@borrowing_jit
def census_nb(policy, g, cards, bonus):
    """Carry out a Census (R05.1-R05.10); Perfect Balance brings ``bonus`` City cards
    (1, or 2 with the Book of Perfect Balance, R09.6)."""
    n_rows = g.info[Info.N_ROWS]
    skip = emptiness_row_nb(g)
    pacified = stack_array(MAX_ROWS, np.bool_)
    mark_balanced_rows_nb(pacified, g, cards, skip)
    count = 0
    for row in range(n_rows):
        count += pacified[row]
    perfect = n_rows == MAX_ROWS and count == MAX_ROWS
    scoring = postcards_in_play_nb(g)
    # R05.2: postcard conditions read the layout as it stood
    noted = stack_array((MAX_ROWS, LAYOUT_COLS), np.int64)
    if scoring:
        for row in range(MAX_ROWS):
            copy_into_nb(noted[row], g.layout[row], LAYOUT_COLS)
    for row in range(n_rows):
        if pacified[row]:
            if scoring:
                score_pacified_nb(g, cards, row, noted, n_rows, perfect)
            pacify_nb(g, row)
            if not is_running_nb(g):
                return  # R05.7
    if perfect:
        for _ in range(bonus):
            if draw_city_nb(g) != EMPTY:  # R05.4
                add_success_nb(g)
                if not is_running_nb(g):
                    return
    for row in range(n_rows):
        if not pacified[row] and row != skip:
            n = zero_sum_options_nb(g, cards, row)
            choice = ask_nb(policy, g, cards, Decision.ZERO_SUM, n)
            if choice < 0:
                return
            discard_positions_nb(g, row, g.options[choice, 0])
    if skip != EMPTY:
        check_emptiness_city_nb(g, cards, skip)  # R05.6, R12.2
        if not is_running_nb(g):
            return
    if count > 0:
        refill_rows_nb(g, pacified)
    deal_empty_rows_nb(policy, g, cards)
    if is_running_nb(g):
        resolve_held_nb(policy, g, cards)  # R05.10
