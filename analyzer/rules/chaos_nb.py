"""Chaos drawn in Phase II and its three options (R06.2), placing Chaos (R01.4), and the
one stack on which Chaos and Chromatic Chaos (R07) are resolved, depth first."""

from __future__ import annotations

from analyzer.core.codes import SIDE_SLOTS, ChaosHow, Decision, Info, Result, Side
from analyzer.core.jit import borrowing_jit
from analyzer.rules.chromatic_nb import chromatic_step_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import draw_dream_nb, is_chaos_nb, is_chromatic_nb
from analyzer.rules.postcards_nb import put_back_fourth_nb
from analyzer.rules.state_nb import (
    append_to_side_nb,
    discard_nb,
    influential_side_nb,
    is_balanced_nb,
    is_running_nb,
    remove_from_side_nb,
    side_count_nb,
)

REVEAL_COUNT = 4
#: Pending-stack marker for "discard this Chaos now": -(card + 2) keeps it below -1.
_FINISH_BASE = 2


@borrowing_jit
def chaos_place_options_nb(g, cards, chaos, start):
    """Write PLACE options from index ``start``: rows with a more influential side with room.

    Returns the index after the last option.
    """
    layout, options = g.layout, g.options  # read once: each read is a reference count
    n = start
    for row in range(g.info[Info.N_ROWS]):
        side = influential_side_nb(layout, cards, row)
        if side >= 0 and side_count_nb(layout, row, side) < SIDE_SLOTS:
            set_option_nb(options, n, ChaosHow.PLACE, row, side, chaos)
            n += 1
    return n


@borrowing_jit
def draw_chaos_options_nb(g, cards, chaos, wise):
    """All options of a Chaos drawn in Phase II: places, clears, reveal (R06.2), and with
    ``wise`` the Wise Chaos (R11.3)."""
    layout, options = g.layout, g.options
    n = chaos_place_options_nb(g, cards, chaos, 0)
    for row in range(g.info[Info.N_ROWS]):
        if is_balanced_nb(layout, cards, row):
            set_option_nb(options, n, ChaosHow.CLEAR, row, -1, chaos)
            n += 1
    set_option_nb(options, n, ChaosHow.REVEAL, -1, -1, chaos)
    n += 1
    if wise:
        set_option_nb(options, n, ChaosHow.WISE, -1, -1, chaos)
        n += 1
    return n


@borrowing_jit
def clear_row_nb(g, row):
    """Discard every dream of a row, left side then right side."""
    for side in (Side.L, Side.R):
        while g.layout[row, 1 + side * SIDE_SLOTS] >= 0:
            discard_nb(g, remove_from_side_nb(g.layout, row, side, 0))


@borrowing_jit
def push_pending_nb(g, entry):
    g.pending[g.info[Info.PENDING_N]] = entry
    g.info[Info.PENDING_N] += 1


@borrowing_jit
def is_any_chaos_nb(cards, card):
    """A Chaos or a Chromatic Chaos: what a reveal keeps to resolve (R06.2 c, R07.2)."""
    return is_chaos_nb(cards, card) or is_chromatic_nb(cards, card)


@borrowing_jit
def reveal_nb(g, cards, chaos):
    """R06.2 c: reveal up to 4 cards, discard the others, queue each Chaos and Chromatic
    Chaos among them to be resolved in the order revealed."""
    push_pending_nb(g, -(chaos + _FINISH_BASE))
    first = g.info[Info.DECK_TOP]
    count = min(REVEAL_COUNT, g.info[Info.DECK_N])
    for _ in range(count):
        card = draw_dream_nb(g)
        if not is_any_chaos_nb(cards, card):
            discard_nb(g, card)
    for k in range(first + count - 1, first - 1, -1):
        if is_any_chaos_nb(cards, g.deck[k]):
            push_pending_nb(g, g.deck[k])


@borrowing_jit
def resolve_draw_chaos_nb(policy, g, cards, chaos, drawn):
    """Resolve a Chaos or Chromatic Chaos drawn in Phase II, with everything it reveals,
    depth first (R06.2, R07). ``drawn``: drawn into the hand in Phase II, so a Wise Chaos
    may put it back (R11.3); what it reveals never may."""
    push_pending_nb(g, chaos)
    wise = drawn and g.info[Info.WISE_LEFT] > 0
    while g.info[Info.PENDING_N] > 0 and is_running_nb(g):
        g.info[Info.PENDING_N] -= 1
        entry = g.pending[g.info[Info.PENDING_N]]
        if entry < -1:
            discard_nb(g, -entry - _FINISH_BASE)
            continue
        if is_chromatic_nb(cards, entry):
            revealed = chromatic_step_nb(policy, g, cards, entry, wise)
            wise = False
            if revealed >= 0:
                push_pending_nb(g, revealed)
            continue
        n = draw_chaos_options_nb(g, cards, entry, wise)
        wise = False
        choice = ask_nb(policy, g, cards, Decision.DRAW_CHAOS, n)
        if choice < 0:
            return
        how = g.options[choice, 0]
        row = g.options[choice, 1]
        if how == ChaosHow.WISE:
            put_back_fourth_nb(g, entry)
            g.stats[Result.WISE_USED] += 1
        elif how == ChaosHow.PLACE:
            append_to_side_nb(g.layout, row, g.options[choice, 2], entry)
            g.stats[Result.CHAOS_PLACED] += 1
        elif how == ChaosHow.CLEAR:
            clear_row_nb(g, row)
            discard_nb(g, entry)
            g.stats[Result.CHAOS_CLEARED] += 1
        else:
            reveal_nb(g, cards, entry)
            g.stats[Result.CHAOS_REVEALED] += 1
