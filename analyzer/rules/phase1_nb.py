"""Phase I (R04): place a dream, or discard it for nothing, a Census or an Exchange."""

from __future__ import annotations

from analyzer.core.codes import EMPTY, HAND_SIZE, SIDE_SLOTS, Act, CardField, Decision, Info, Result
from analyzer.core.jit import jit
from analyzer.rules.census_nb import census_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.state_nb import (
    append_to_side_nb,
    discard_nb,
    natural_side_nb,
    remove_from_hand_nb,
    side_count_nb,
    slot_col_nb,
)


@jit
def can_exchange_nb(layout, n_rows):
    """True when some side type holds two dreams in the layout (R04.4)."""
    for side in range(2):
        n = 0
        for row in range(n_rows):
            n += side_count_nb(layout, row, side)
        if n >= 2:
            return True
    return False


@jit
def phase1_options_nb(g, cards, seat):
    """The Phase I options of ``seat`` in contract order (docs/engine.md)."""
    layout, options, hand = g.layout, g.options, g.hands[seat]
    n_rows = g.info[Info.N_ROWS]
    n = 0
    exchange = can_exchange_nb(layout, n_rows)
    for k in range(HAND_SIZE):
        card = hand[k]
        if card == EMPTY:
            break
        side = natural_side_nb(cards, card)
        elements = cards[card, CardField.ELEMENTS]
        for row in range(n_rows):
            if (cards[layout[row, 0], CardField.ELEMENTS] & elements) != 0 and \
                    side_count_nb(layout, row, side) < SIDE_SLOTS:
                set_option_nb(options, n, Act.PLACE, card, row, side)
                n += 1
        set_option_nb(options, n, Act.PASS, card, -1, -1)
        set_option_nb(options, n + 1, Act.CENSUS, card, -1, -1)
        n += 2
        if exchange:
            set_option_nb(options, n, Act.EXCHANGE, card, -1, -1)
            n += 1
    return n


@jit
def exchange_options_nb(g):
    """Every pair of dreams on left sides, then on right sides (R04.4), in contract order."""
    layout, options = g.layout, g.options
    n = 0
    n_spots = g.info[Info.N_ROWS] * SIDE_SLOTS
    for side in range(2):
        for p in range(n_spots):
            a = layout[p // SIDE_SLOTS, slot_col_nb(side, p % SIDE_SLOTS)]
            if a == EMPTY:
                continue
            for q in range(p + 1, n_spots):
                b = layout[q // SIDE_SLOTS, slot_col_nb(side, q % SIDE_SLOTS)]
                if b != EMPTY:
                    set_option_nb(options, n, a, b, side, -1)
                    n += 1
    return n


@jit
def swap_nb(g, side, a, b):
    """Swap dreams ``a`` and ``b`` on ``side`` in place (each takes the other's position)."""
    layout = g.layout
    for row in range(g.info[Info.N_ROWS]):
        for slot in range(SIDE_SLOTS):
            col = slot_col_nb(side, slot)
            if layout[row, col] == a:
                layout[row, col] = b
            elif layout[row, col] == b:
                layout[row, col] = a


@jit
def exchange_nb(policy, g, cards):
    """Ask which two dreams to swap and swap them."""
    n = exchange_options_nb(g)
    choice = ask_nb(policy, g, cards, Decision.EXCHANGE_PAIR, n)
    if choice < 0:
        return
    swap_nb(g, g.options[choice, 2], g.options[choice, 0], g.options[choice, 1])
    g.stats[Result.EXCHANGES] += 1


@jit
def phase1_nb(policy, g, cards, seat):
    """Ask for the turn's Phase I decision and carry it out."""
    n = phase1_options_nb(g, cards, seat)
    choice = ask_nb(policy, g, cards, Decision.PHASE1, n)
    if choice < 0:
        return
    act = g.options[choice, 0]
    card = g.options[choice, 1]
    remove_from_hand_nb(g.hands, seat, card)
    if act == Act.PLACE:
        append_to_side_nb(g.layout, g.options[choice, 2], g.options[choice, 3], card)
        return
    discard_nb(g, card)
    if act == Act.CENSUS:
        census_nb(policy, g, cards)
    elif act == Act.EXCHANGE:
        exchange_nb(policy, g, cards)
