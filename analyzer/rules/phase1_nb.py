"""Phase I (R04, R08.3, R08.4, R09.2, R12.3): place a dream, or discard it for nothing, for
a Census, an Exchange or a Book's action (a Wizard: up to two), discard a Wizard or two cards
for a special action, or a Sognae and an Incubi to Ally against the Emptiness."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    N_BOOK_KINDS,
    SIDE_SLOTS,
    Act,
    CardField,
    CardType,
    Decision,
    Expansion,
    Info,
    Result,
    Side,
)
from analyzer.core.jit import borrowing_jit
from analyzer.core.scratch import stack_array
from analyzer.rules.books_nb import book_action_nb, usable_books_nb
from analyzer.rules.census_nb import census_nb
from analyzer.rules.chaos_nb import is_any_chaos_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.emptiness_nb import ally_nb
from analyzer.rules.postcards_nb import dream_moved_nb
from analyzer.rules.state_nb import (
    append_to_side_nb,
    discard_nb,
    emptiness_row_nb,
    hand_count_nb,
    remove_from_hand_nb,
    remove_from_side_nb,
    seat_side_nb,
    side_count_nb,
    slot_col_nb,
    type_takes_side_nb,
)


@borrowing_jit
def can_exchange_nb(layout, n_rows):
    """True when some side type holds two dreams in the layout (R04.4)."""
    for side in range(2):
        n = 0
        for row in range(n_rows):
            n += side_count_nb(layout, row, side)
        if n >= 2:
            return True
    return False


@borrowing_jit
def change_sides_targets_nb(layout, cards, n_rows, options, write):
    """List the Chaos and Chromatic Chaos with room on their city's other side (R08.4) as
    ``[card, row, side, -1]`` options, by row, side L then R, position, and return how many;
    without ``write``, return 1 at the first one and leave ``options`` alone (Phase I, still
    filling it, only asks whether there is one), 0 when there is none."""
    n = 0
    for row in range(n_rows):
        for side in range(2):
            if side_count_nb(layout, row, 1 - side) >= SIDE_SLOTS:
                continue
            for slot in range(SIDE_SLOTS):
                card = layout[row, slot_col_nb(side, slot)]
                if card != EMPTY and is_any_chaos_nb(cards, card):
                    if not write:
                        return 1
                    set_option_nb(options, n, card, row, side, EMPTY)
                    n += 1
    return n


@borrowing_jit
def specials_in_play_nb(g):
    """Special actions exist only with Hanging Gardens & Wizards (R08.4)."""
    return g.info[Info.EXPANSIONS] & Expansion.GARDENS_WIZARDS != 0


@borrowing_jit
def place_targets_nb(layout, cards, n_rows, seat_side):
    """Where a dream may go this Phase I, whatever the dream: bit ``2 * row + side`` set
    when that side has room (R04.1), in the team game only on ``seat_side`` (R10.3; -1:
    any side); and the elements of the rows' cities, 4 bits a row (bits ``4 * row``)."""
    room = 0
    elements = 0
    for row in range(n_rows):
        elements |= cards[layout[row, 0], CardField.ELEMENTS] << (4 * row)
        for side in range(2):
            if (seat_side < 0 or side == seat_side) and \
                    side_count_nb(layout, row, side) < SIDE_SLOTS:
                room |= 1 << (2 * row + side)
    return room, elements


@borrowing_jit
def place_options_nb(cards, options, n, card, n_rows, room, city_elements):
    """Append ``[PLACE, card, row, side]`` for every legal placement (R04.1, R08.1), by
    row then side, given ``place_targets_nb``'s ``room`` and ``city_elements``.

    Without a branch per target: every row and side is written at the next entry and
    counted only when the card may go there. Whether it may is as unpredictable as a coin,
    and a branch that guesses wrong costs more than the stores; an entry not counted is
    overwritten by the next one, or by the option the caller appends next."""
    elements = cards[card, CardField.ELEMENTS]
    sides = sides_mask_nb(cards[card, CardField.TYPE], cards[card, CardField.VALUE])
    for row in range(n_rows):
        reach = city_elements >> (4 * row) & elements != 0
        for side in range(2):
            set_option_nb(options, n, Act.PLACE, card, row, side)
            n += reach & (room >> (2 * row + side) & sides >> side & 1 != 0)
    return n


@borrowing_jit
def book_options_nb(options, n, card, usable):
    """Append ``[BOOK, card, -1, kind]`` for each usable Book kind (R09.2)."""
    for kind in range(N_BOOK_KINDS):
        if usable >> kind & 1:
            set_option_nb(options, n, Act.BOOK, card, EMPTY, kind)
            n += 1
    return n


@borrowing_jit
def sides_mask_nb(ctype, value):
    """The sides a card of type ``ctype`` and value ``value`` may lie on: bit 0 the left,
    bit 1 the right (R08.1, R08.2)."""
    return (1 if type_takes_side_nb(ctype, value, Side.L) else 0) | \
        (2 if type_takes_side_nb(ctype, value, Side.R) else 0)


@borrowing_jit
def can_ally_nb(a_sides, b_sides):
    """R12.3, R08.2: one card can be a Sognae and the other an Incubi, from each card's
    ``sides_mask_nb`` (scalars: it runs once per pair of hand cards)."""
    return (a_sides & 1 != 0 and b_sides & 2 != 0) or (a_sides & 2 != 0 and b_sides & 1 != 0)


@borrowing_jit
def pair_options_nb(g, cards, seat, n, rebuild, change):
    """The actions paid with two of ``seat``'s hand cards: specials (R08.4), then Ally
    (R12.3)."""
    options, hand = g.options, g.hands[seat]
    ally = g.info[Info.EMPTINESS_N] > 0
    m = hand_count_nb(g.hands, seat)  # a hand is packed: its cards come first
    # each card's elements and sides (bit 0 left, bit 1 right), read once for its pairs
    elements = stack_array(HAND_SIZE, np.int64)
    sides = stack_array(HAND_SIZE, np.int64)
    for k in range(m):
        card = hand[k]
        elements[k] = cards[card, CardField.ELEMENTS]
        sides[k] = sides_mask_nb(cards[card, CardField.TYPE], cards[card, CardField.VALUE])
    if rebuild or change:
        for i in range(m):
            for j in range(i + 1, m):
                if elements[i] & elements[j] != 0:
                    n = special_options_nb(options, n, hand[i], hand[j], rebuild, change)
    if ally:
        for i in range(m):
            for j in range(i + 1, m):
                if can_ally_nb(sides[i], sides[j]):
                    set_option_nb(options, n, Act.ALLY, hand[i], hand[j], EMPTY)
                    n += 1
    return n


@borrowing_jit
def rebuild_rows_nb(g, options, write):
    """R08.4 Rebuild's row pairs, never the Emptiness row (R12); counted or listed."""
    n_rows = g.info[Info.N_ROWS]
    barred = emptiness_row_nb(g)
    n = 0
    for a in range(n_rows):
        for b in range(a + 1, n_rows):
            if a != barred and b != barred:
                if write:
                    set_option_nb(options, n, a, b, EMPTY, EMPTY)
                n += 1
    return n


@borrowing_jit
def phase1_options_nb(g, cards, seat):
    """The Phase I options of ``seat`` in contract order (docs/engine.md)."""
    layout, options, hand = g.layout, g.options, g.hands[seat]
    n_rows = g.info[Info.N_ROWS]
    n = 0
    exchange = can_exchange_nb(layout, n_rows)
    specials = specials_in_play_nb(g)
    rebuild = specials and rebuild_rows_nb(g, options, False) > 0
    change = specials and change_sides_targets_nb(layout, cards, n_rows, options, False) > 0
    usable = usable_books_nb(g, cards) if g.info[Info.BOOKS] != 0 else 0
    room, city_elements = place_targets_nb(layout, cards, n_rows, seat_side_nb(g.info, seat))
    for k in range(HAND_SIZE):
        card = hand[k]
        if card == EMPTY:
            break
        n = place_options_nb(cards, options, n, card, n_rows, room, city_elements)
        set_option_nb(options, n, Act.PASS, card, -1, -1)
        set_option_nb(options, n + 1, Act.CENSUS, card, -1, -1)
        n += 2
        if exchange:
            set_option_nb(options, n, Act.EXCHANGE, card, -1, -1)
            n += 1
        if cards[card, CardField.TYPE] == CardType.WIZARD:
            n = special_options_nb(options, n, card, EMPTY, rebuild, change)
        if usable != 0:
            n = book_options_nb(options, n, card, usable)
    if rebuild or change or g.info[Info.EMPTINESS_N] > 0:  # pairs pay for these only
        n = pair_options_nb(g, cards, seat, n, rebuild, change)
    return n


@borrowing_jit
def special_options_nb(options, n, card, second, rebuild, change):
    """Append the special actions paid with ``card`` (a Wizard) or ``card`` and ``second``."""
    if rebuild:
        set_option_nb(options, n, Act.REBUILD, card, second, EMPTY)
        n += 1
    if change:
        set_option_nb(options, n, Act.CHANGE_SIDES, card, second, EMPTY)
        n += 1
    return n


@borrowing_jit
def exchange_options_nb(g):
    """Every pair of dreams on left sides, then on right sides (R04.4), in contract order:
    by the first dream's position (row, then slot), then by the second's."""
    layout, options = g.layout, g.options
    n_rows = g.info[Info.N_ROWS]
    n = 0
    for side in range(2):
        for row_a in range(n_rows):
            for slot_a in range(SIDE_SLOTS):
                a = layout[row_a, slot_col_nb(side, slot_a)]
                if a == EMPTY:
                    continue
                for slot_b in range(slot_a + 1, SIDE_SLOTS):  # later in the same row
                    b = layout[row_a, slot_col_nb(side, slot_b)]
                    n = exchange_pair_option_nb(options, n, a, b, side)
                for row_b in range(row_a + 1, n_rows):
                    for slot_b in range(SIDE_SLOTS):
                        b = layout[row_b, slot_col_nb(side, slot_b)]
                        n = exchange_pair_option_nb(options, n, a, b, side)
    return n


@borrowing_jit
def exchange_pair_option_nb(options, n, a, b, side):
    """Append ``[a, b, side, -1]`` unless ``b`` is an empty position. Without a branch:
    the row is written either way and counted only for a dream, since which positions hold
    one is as unpredictable as a coin; a row not counted is overwritten by the next, or
    lies past the last option, where nothing reads."""
    set_option_nb(options, n, a, b, side, -1)
    return n + (b != EMPTY)


@borrowing_jit
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


@borrowing_jit
def exchange_nb(policy, g, cards):
    """Ask which two dreams to swap and swap them."""
    n = exchange_options_nb(g)
    choice = ask_nb(policy, g, cards, Decision.EXCHANGE_PAIR, n)
    if choice < 0:
        return
    a, b = g.options[choice, 0], g.options[choice, 1]
    swap_nb(g, g.options[choice, 2], a, b)
    dream_moved_nb(g, cards, a)  # R11.8
    dream_moved_nb(g, cards, b)
    g.stats[Result.EXCHANGES] += 1


@borrowing_jit
def rebuild_nb(policy, g, cards):
    """R08.4 Rebuild: two rows swap City cards; their dreams stay."""
    n = rebuild_rows_nb(g, g.options, True)
    choice = ask_nb(policy, g, cards, Decision.REBUILD_ROWS, n)
    if choice < 0:
        return
    a, b = g.options[choice, 0], g.options[choice, 1]
    g.layout[a, 0], g.layout[b, 0] = g.layout[b, 0], g.layout[a, 0]
    g.stats[Result.REBUILDS] += 1


@borrowing_jit
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
    dream_moved_nb(g, cards, card)  # R11.8
    g.stats[Result.SIDES_CHANGED] += 1


@borrowing_jit
def action_nb(policy, g, cards, act, book):
    """Carry out a Census, an Exchange, or the action of Book ``book`` (R04, R09)."""
    if act == Act.CENSUS:
        g.stats[Result.CENSUSES] += 1
        census_nb(policy, g, cards, 1)
    elif act == Act.EXCHANGE:
        exchange_nb(policy, g, cards)
    elif act == Act.BOOK:
        book_action_nb(policy, g, cards, book)


@borrowing_jit
def second_act_nb(policy, g, cards):
    """R08.3, R09: after a Wizard's first action, a second base or Book action, or none."""
    options = g.options
    set_option_nb(options, 0, Act.PASS, EMPTY, EMPTY, EMPTY)
    set_option_nb(options, 1, Act.CENSUS, EMPTY, EMPTY, EMPTY)
    n = 2
    if can_exchange_nb(g.layout, g.info[Info.N_ROWS]):
        set_option_nb(options, n, Act.EXCHANGE, EMPTY, EMPTY, EMPTY)
        n += 1
    if g.info[Info.BOOKS] != 0:
        usable = usable_books_nb(g, cards)
        for kind in range(N_BOOK_KINDS):
            if usable >> kind & 1:
                set_option_nb(options, n, Act.BOOK, EMPTY, EMPTY, kind)
                n += 1
    choice = ask_nb(policy, g, cards, Decision.SECOND_ACT, n)
    if choice >= 0:
        action_nb(policy, g, cards, g.options[choice, 0], g.options[choice, 3])


@borrowing_jit
def phase1_nb(policy, g, cards, seat):
    """Ask for the turn's Phase I decision and carry it out."""
    n = phase1_options_nb(g, cards, seat)
    choice = ask_nb(policy, g, cards, Decision.PHASE1, n)
    if choice < 0:
        return
    options, hands = g.options, g.hands  # read once: each read is a reference count
    act, card, third, fourth = (options[choice, 0], options[choice, 1], options[choice, 2],
                                options[choice, 3])
    remove_from_hand_nb(hands, seat, card)
    if act == Act.PLACE:
        append_to_side_nb(g.layout, third, fourth, card)  # row, side
        return
    discard_nb(g, card)
    if act == Act.REBUILD or act == Act.CHANGE_SIDES or act == Act.ALLY:
        second = third
        if second != EMPTY:
            remove_from_hand_nb(hands, seat, second)
            discard_nb(g, second)
        if act == Act.REBUILD:
            rebuild_nb(policy, g, cards)
        elif act == Act.CHANGE_SIDES:
            change_sides_nb(policy, g, cards)
        else:
            ally_nb(g)
            g.stats[Result.ALLIES] += 1
        return
    action_nb(policy, g, cards, act, fourth)  # the Book, for a Book's action
    if act != Act.PASS and cards[card, CardField.TYPE] == CardType.WIZARD and \
            g.info[Info.OUTCOME] == 0:
        second_act_nb(policy, g, cards)
