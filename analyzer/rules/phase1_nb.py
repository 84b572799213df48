"""Phase I (R04, R08.3, R08.4): place a dream, or discard it for nothing, for a Census or an
Exchange (a Wizard: up to two), or discard a Wizard or two cards for a special action."""

from __future__ import annotations

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    SIDE_SLOTS,
    Act,
    CardField,
    CardType,
    Decision,
    Expansion,
    Info,
    Result,
)
from analyzer.core.jit import jit
from analyzer.rules.census_nb import census_nb
from analyzer.rules.chaos_nb import is_any_chaos_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.state_nb import (
    append_to_side_nb,
    can_take_side_nb,
    discard_nb,
    remove_from_hand_nb,
    remove_from_side_nb,
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
def change_sides_targets_nb(layout, cards, n_rows, options, write):
    """Count the Chaos and Chromatic Chaos with room on their city's other side (R08.4), by
    row, side L then R, position; with ``write`` also list them as ``[card, row, side, -1]``
    options (without, ``options`` is left alone: Phase I is still filling it)."""
    n = 0
    for row in range(n_rows):
        for side in range(2):
            if side_count_nb(layout, row, 1 - side) >= SIDE_SLOTS:
                continue
            for slot in range(SIDE_SLOTS):
                card = layout[row, slot_col_nb(side, slot)]
                if card != EMPTY and is_any_chaos_nb(cards, card):
                    if write:
                        set_option_nb(options, n, card, row, side, EMPTY)
                    n += 1
    return n


@jit
def specials_in_play_nb(g):
    """Special actions exist only with Hanging Gardens & Wizards (R08.4)."""
    return g.info[Info.EXPANSIONS] & Expansion.GARDENS_WIZARDS != 0


@jit
def place_options_nb(layout, cards, options, n, card, n_rows):
    """Append ``[PLACE, card, row, side]`` for every legal placement (R04.1, R08.1)."""
    elements = cards[card, CardField.ELEMENTS]
    for row in range(n_rows):
        if cards[layout[row, 0], CardField.ELEMENTS] & elements == 0:
            continue
        for side in range(2):
            if can_take_side_nb(cards, card, side) and \
                    side_count_nb(layout, row, side) < SIDE_SLOTS:
                set_option_nb(options, n, Act.PLACE, card, row, side)
                n += 1
    return n


@jit
def phase1_options_nb(g, cards, seat):
    """The Phase I options of ``seat`` in contract order (docs/engine.md)."""
    layout, options, hand = g.layout, g.options, g.hands[seat]
    n_rows = g.info[Info.N_ROWS]
    n = 0
    exchange = can_exchange_nb(layout, n_rows)
    specials = specials_in_play_nb(g)
    rebuild = specials and n_rows >= 2
    change = specials and change_sides_targets_nb(layout, cards, n_rows, options, False) > 0
    for k in range(HAND_SIZE):
        card = hand[k]
        if card == EMPTY:
            break
        n = place_options_nb(layout, cards, options, n, card, n_rows)
        set_option_nb(options, n, Act.PASS, card, -1, -1)
        set_option_nb(options, n + 1, Act.CENSUS, card, -1, -1)
        n += 2
        if exchange:
            set_option_nb(options, n, Act.EXCHANGE, card, -1, -1)
            n += 1
        if cards[card, CardField.TYPE] == CardType.WIZARD:
            n = special_options_nb(options, n, card, EMPTY, rebuild, change)
    if rebuild or change:
        for i in range(HAND_SIZE):
            for j in range(i + 1, HAND_SIZE):
                a, b = hand[i], hand[j]
                if a != EMPTY and b != EMPTY and \
                        cards[a, CardField.ELEMENTS] & cards[b, CardField.ELEMENTS] != 0:
                    n = special_options_nb(options, n, a, b, rebuild, change)
    return n


@jit
def special_options_nb(options, n, card, second, rebuild, change):
    """Append the special actions paid with ``card`` (a Wizard) or ``card`` and ``second``."""
    if rebuild:
        set_option_nb(options, n, Act.REBUILD, card, second, EMPTY)
        n += 1
    if change:
        set_option_nb(options, n, Act.CHANGE_SIDES, card, second, EMPTY)
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
def rebuild_nb(policy, g, cards):
    """R08.4 Rebuild: two rows swap City cards; their dreams stay."""
    n = 0
    n_rows = g.info[Info.N_ROWS]
    for a in range(n_rows):
        for b in range(a + 1, n_rows):
            set_option_nb(g.options, n, a, b, EMPTY, EMPTY)
            n += 1
    choice = ask_nb(policy, g, cards, Decision.REBUILD_ROWS, n)
    if choice < 0:
        return
    a, b = g.options[choice, 0], g.options[choice, 1]
    g.layout[a, 0], g.layout[b, 0] = g.layout[b, 0], g.layout[a, 0]
    g.stats[Result.REBUILDS] += 1


@jit
def change_sides_nb(policy, g, cards):
    """R08.4 Change Sides: a Chaos or Chromatic Chaos to the other side of its city."""
    layout = g.layout
    n = change_sides_targets_nb(layout, cards, g.info[Info.N_ROWS], g.options, True)
    choice = ask_nb(policy, g, cards, Decision.CHANGE_SIDES_CARD, n)
    if choice < 0:
        return
    card, row, side = g.options[choice, 0], g.options[choice, 1], g.options[choice, 2]
    for slot in range(SIDE_SLOTS):
        if layout[row, slot_col_nb(side, slot)] == card:
            remove_from_side_nb(layout, row, side, slot)
            break
    append_to_side_nb(layout, row, 1 - side, card)
    g.stats[Result.SIDES_CHANGED] += 1


@jit
def base_action_nb(policy, g, cards, act):
    """Carry out a Census or an Exchange."""
    if act == Act.CENSUS:
        census_nb(policy, g, cards)
    elif act == Act.EXCHANGE:
        exchange_nb(policy, g, cards)


@jit
def second_act_nb(policy, g, cards):
    """R08.3: after a Wizard's first base action, a second one or none."""
    options = g.options
    set_option_nb(options, 0, Act.PASS, EMPTY, EMPTY, EMPTY)
    set_option_nb(options, 1, Act.CENSUS, EMPTY, EMPTY, EMPTY)
    n = 2
    if can_exchange_nb(g.layout, g.info[Info.N_ROWS]):
        set_option_nb(options, n, Act.EXCHANGE, EMPTY, EMPTY, EMPTY)
        n += 1
    choice = ask_nb(policy, g, cards, Decision.SECOND_ACT, n)
    if choice >= 0:
        base_action_nb(policy, g, cards, g.options[choice, 0])


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
    if act == Act.REBUILD or act == Act.CHANGE_SIDES:
        second = g.options[choice, 2]
        if second != EMPTY:
            remove_from_hand_nb(g.hands, seat, second)
            discard_nb(g, second)
        if act == Act.REBUILD:
            rebuild_nb(policy, g, cards)
        else:
            change_sides_nb(policy, g, cards)
        return
    base_action_nb(policy, g, cards, act)
    if act != Act.PASS and cards[card, CardField.TYPE] == CardType.WIZARD and \
            g.info[Info.OUTCOME] == 0:
        second_act_nb(policy, g, cards)
