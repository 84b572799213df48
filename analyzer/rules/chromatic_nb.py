"""Chromatic Chaos (R07): place it on any side with room, then place the card it reveals."""

from __future__ import annotations

from analyzer.core.codes import EMPTY, SIDE_SLOTS, CardField, Decision, Info, Result
from analyzer.core.jit import borrowing_jit
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import draw_dream_nb, is_chaos_nb, is_chromatic_nb
from analyzer.rules.postcards_nb import put_back_fourth_nb
from analyzer.rules.state_nb import append_to_side_nb, can_take_side_nb, discard_nb, side_count_nb

#: Column 0 of the CHROMATIC option that spends a Wise Chaos (R11.3).
WISE_ROW = -2


@borrowing_jit
def chromatic_options_nb(g, chromatic, wise):
    """R07.1: every side with room, rows top to bottom, L then R; else the discard; then,
    with ``wise``, the Wise Chaos (R11.3)."""
    layout, options = g.layout, g.options
    n = 0
    for row in range(g.info[Info.N_ROWS]):
        for side in range(2):
            if side_count_nb(layout, row, side) < SIDE_SLOTS:
                set_option_nb(options, n, row, side, chromatic, EMPTY)
                n += 1
    if n == 0:
        set_option_nb(options, 0, EMPTY, EMPTY, chromatic, EMPTY)
        n = 1
    if wise:
        set_option_nb(options, n, WISE_ROW, EMPTY, chromatic, EMPTY)
        n += 1
    return n


@borrowing_jit
def side_options_nb(g, cards, card, by_element):
    """``[row, side, card, -1]`` for the sides ``card`` can take with room; with
    ``by_element`` only next to cities showing its element (placement rule 1)."""
    layout, options = g.layout, g.options
    elements = cards[card, CardField.ELEMENTS]
    n = 0
    for row in range(g.info[Info.N_ROWS]):
        if by_element and cards[layout[row, 0], CardField.ELEMENTS] & elements == 0:
            continue
        for side in range(2):
            if can_take_side_nb(cards, card, side) and \
                    side_count_nb(layout, row, side) < SIDE_SLOTS:
                set_option_nb(options, n, row, side, card, EMPTY)
                n += 1
    return n


@borrowing_jit
def revealed_options_nb(g, cards, card):
    """R07.2: by the placement rules; else ignoring the element; else the discard."""
    n = side_options_nb(g, cards, card, True)
    if n == 0:
        n = side_options_nb(g, cards, card, False)
    if n == 0:
        set_option_nb(g.options, 0, EMPTY, EMPTY, card, EMPTY)
        n = 1
    return n


@borrowing_jit
def place_or_discard_nb(g, choice):
    """Apply a ``[row, side, card, -1]`` option: the card to that side, or (row -1) discarded."""
    row = g.options[choice, 0]
    card = g.options[choice, 2]
    if row == EMPTY:
        discard_nb(g, card)
    else:
        append_to_side_nb(g.layout, row, g.options[choice, 1], card)


@borrowing_jit
def chromatic_step_nb(policy, g, cards, chromatic, wise):
    """Resolve a Chromatic Chaos up to the card it reveals (R07); with ``wise`` a Wise
    Chaos may put it back instead (R11.3).

    Returns the revealed card when it is a Chaos or a Chromatic Chaos, which the caller
    resolves as if drawn in Phase II; otherwise -1 (the revealed card, if any, is placed).
    """
    n = chromatic_options_nb(g, chromatic, wise)
    choice = ask_nb(policy, g, cards, Decision.CHROMATIC, n)
    if choice < 0:
        return EMPTY
    if g.options[choice, 0] == WISE_ROW:
        put_back_fourth_nb(g, chromatic)
        g.stats[Result.WISE_USED] += 1
        return EMPTY
    place_or_discard_nb(g, choice)
    g.stats[Result.CHROMATIC] += 1
    if g.info[Info.DECK_N] == 0:
        return EMPTY  # R06.3: revealing never loses
    card = draw_dream_nb(g)
    if is_chaos_nb(cards, card) or is_chromatic_nb(cards, card):
        return card
    n = revealed_options_nb(g, cards, card)
    choice = ask_nb(policy, g, cards, Decision.REVEALED, n)
    if choice >= 0:
        place_or_discard_nb(g, choice)
    return EMPTY
