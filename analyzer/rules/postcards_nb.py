"""Postcards to the Oniverse and Wise Chaos (R11): dealing, moving, scoring, the special
rules of the Hourglass, the Flagship and the Resting Rocket, and a Wise Chaos's put-back."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    MAX_ROWS,
    N_SLOTS,
    SIDE_SLOTS,
    CardField,
    CardType,
    Expansion,
    Info,
    PostcardKind,
)
from analyzer.core.jit import borrowing_jit
from analyzer.core.scratch import stack_array
from analyzer.rules.deck_nb import take_top_nb
from analyzer.rules.state_nb import (
    CONDITION_MET,
    SENT_AWAY,
    append_to_side_nb,
    find_in_row_nb,
    placed_value_nb,
    remove_from_side_nb,
    score_postcard_nb,
    side_count_nb,
    slot_col_nb,
)

#: A Hourglass turned this often is sent away at the next end of turn (R11.6).
HOURGLASS_TURNS = 4
#: Dream positions of the whole layout: the most Flagships a turn can move.
LAYOUT_SLOTS = MAX_ROWS * N_SLOTS
#: Wise Chaos in play: this many, plus one per City expansion in play (R11.2).
WISE_BASE = 3
PLANBOT_ROWS = 4
#: The Dream cards a Wise Chaos's card goes below (R11.3).
WISE_DEPTH = 3


@borrowing_jit
def deal_postcard_nb(g, cards, dream):
    """R02.6: the top Postcard, if any, goes on the first dream dealt to a row."""
    postcard = take_top_nb(g.postcard_deck, g.info, Info.POSTCARD_TOP, Info.POSTCARD_N)
    if postcard != EMPTY:
        g.postcard_on[dream] = postcard
        g.hourglass[postcard] = 0
        kind = cards[postcard, CardField.KIND]
        if kind == PostcardKind.HOURGLASS:
            g.info[Info.HOURGLASS_N] += 1
        elif kind == PostcardKind.FLAGSHIP:
            g.info[Info.FLAGSHIP_N] += 1


@borrowing_jit
def postcard_kind_nb(g, cards, dream):
    """The kind of the postcard on ``dream``, or -1."""
    return kind_on_nb(g.postcard_on, cards, dream)


@borrowing_jit
def kind_on_nb(postcard_on, cards, dream):
    """``postcard_kind_nb`` from the ``postcard_on`` table (int64, (n_cards,)), for loops
    over the layout: a field of ``g`` read in a loop costs reference counts each time."""
    postcard = postcard_on[dream]
    return -1 if postcard == EMPTY else cards[postcard, CardField.KIND]


@borrowing_jit
def dream_moved_nb(g, cards, dream):
    """R11.8: a Resting Rocket is sent away the moment its dream moves."""
    if postcard_kind_nb(g, cards, dream) == PostcardKind.ROCKET:
        score_postcard_nb(g, dream, SENT_AWAY)


@borrowing_jit
def count_chaos_nb(noted, cards, n_rows):
    """Plain Chaos lying in the noted layout (Magicians on Holiday)."""
    n = 0
    for row in range(n_rows):
        for pos in range(2 * SIDE_SLOTS):
            card = noted[row, 1 + pos]
            if card != EMPTY and cards[card, CardField.TYPE] == CardType.CHAOS:
                n += 1
    return n


@borrowing_jit
def seer_met_nb(noted, cards, row):
    """Seer: the city's dreams show all 4 elements, a Harmony counting as any one."""
    elements = 0
    wild = 0
    for pos in range(2 * SIDE_SLOTS):
        card = noted[row, 1 + pos]
        if card == EMPTY:
            continue
        ctype = cards[card, CardField.TYPE]
        if ctype == CardType.HARMONY:
            wild += 1
        elif ctype != CardType.CHAOS and ctype != CardType.CHROMATIC:
            elements |= cards[card, CardField.ELEMENTS]
    shown = 0
    for bit in range(4):
        shown += elements >> bit & 1
    return shown + wild >= 4


@borrowing_jit
def abs_values_nb(noted, cards, row):
    """Bit v set when a dream of absolute value v >= 1 lies in ``row`` (values stay below
    10, so the bits fit; no sequence holds a 0)."""
    bits = 0
    for side in range(2):
        for slot in range(SIDE_SLOTS):
            card = noted[row, slot_col_nb(side, slot)]
            if card != EMPTY:
                bits |= 1 << abs(placed_value_nb(cards, card, side))
    return bits & ~1


@borrowing_jit
def planbot_met_nb(noted, cards, n_rows):
    """Planbot (R11.5): 4 rows, one dream each, whose absolute values read top to bottom
    (cyclically, from any row) run up or down by one."""
    if n_rows != PLANBOT_ROWS:
        return False
    rows = (abs_values_nb(noted, cards, 0), abs_values_nb(noted, cards, 1),
            abs_values_nb(noted, cards, 2), abs_values_nb(noted, cards, 3))
    for start in range(PLANBOT_ROWS):
        # bit v of up (down): v in the start row, v + k (v - k) in the k-th row after it
        up = rows[start]
        down = rows[start]
        for k in range(1, PLANBOT_ROWS):
            later = rows[(start + k) % PLANBOT_ROWS]
            up &= later >> k
            down &= later << k
        if up != 0 or down != 0:
            return True
    return False


@borrowing_jit
def condition_met_nb(g, cards, noted, n_rows, row, side, dream, perfect):
    """Whether the postcard on ``dream`` scores +1 when its city is pacified (R11.4, R11.5)."""
    return kind_met_nb(noted, cards, n_rows, row, side, postcard_kind_nb(g, cards, dream),
                       perfect)


@borrowing_jit
def kind_met_nb(noted, cards, n_rows, row, side, kind, perfect):
    """Whether a postcard of ``kind`` on ``side`` of ``row`` meets its condition in the
    ``noted`` layout of ``n_rows`` rows; ``perfect``: the census is a Perfect Balance."""
    if kind == PostcardKind.DREAMCATCHER:
        return side_count_nb(noted, row, side) == 1
    if kind == PostcardKind.DOVES:
        return perfect
    if kind == PostcardKind.SEER:
        return seer_met_nb(noted, cards, row)
    if kind == PostcardKind.MAGICIANS:
        return count_chaos_nb(noted, cards, n_rows) >= 2
    if kind == PostcardKind.PLANBOT:
        return planbot_met_nb(noted, cards, n_rows)
    return True  # Hourglass, Flagship, Resting Rocket: special rules, +1 on pacifying


@borrowing_jit
def score_pacified_nb(g, cards, row, noted, n_rows, perfect):
    """Score the postcards on a city being pacified, L then R, by position (R05.3)."""
    for side in range(2):
        for slot in range(SIDE_SLOTS):
            dream = g.layout[row, slot_col_nb(side, slot)]
            if dream != EMPTY and g.postcard_on[dream] != EMPTY:
                met = condition_met_nb(g, cards, noted, n_rows, row, side, dream, perfect)
                score_postcard_nb(g, dream, CONDITION_MET if met else SENT_AWAY)


@borrowing_jit
def postcards_in_play_nb(g):
    """True with Postcards to the Oniverse in play."""
    return g.info[Info.EXPANSIONS] & Expansion.POSTCARDS != 0


@borrowing_jit
def turn_hourglasses_nb(g, cards):
    """R11.6, at the end of every turn: each Hourglass turns, or after 4 turns goes."""
    if g.info[Info.HOURGLASS_N] == 0 or not postcards_in_play_nb(g):
        return
    layout, postcard_on, hourglass = g.layout, g.postcard_on, g.hourglass
    left = 0
    for row in range(g.info[Info.N_ROWS]):
        for pos in range(2 * SIDE_SLOTS):
            dream = layout[row, 1 + pos]
            if dream == EMPTY or kind_on_nb(postcard_on, cards, dream) != PostcardKind.HOURGLASS:
                continue
            postcard = postcard_on[dream]
            if hourglass[postcard] >= HOURGLASS_TURNS:
                score_postcard_nb(g, dream, SENT_AWAY)
            else:
                hourglass[postcard] += 1
                left += 1
    g.info[Info.HOURGLASS_N] = left


@borrowing_jit
def sail_flagships_nb(g, cards):
    """R11.7, at the start of every turn: each Flagship's dream moves one row down."""
    n_rows = g.info[Info.N_ROWS]
    if n_rows < 2 or g.info[Info.FLAGSHIP_N] == 0 or not postcards_in_play_nb(g):
        return
    g.info[Info.FLAGSHIP_N] = sail_fleet_nb(g, cards, n_rows)


@borrowing_jit
def sail_fleet_nb(g, cards, n_rows):
    """Move the Flagships' dreams, listed first, then one at a time (R11.7); return how
    many Flagships are left on dreams (one pass over the layout counts and lists them)."""
    layout, postcard_on = g.layout, g.postcard_on
    fleet = stack_array(LAYOUT_SLOTS, np.int64)
    n = 0
    for row in range(n_rows):
        for pos in range(2 * SIDE_SLOTS):
            dream = layout[row, 1 + pos]
            if dream != EMPTY and kind_on_nb(postcard_on, cards, dream) == PostcardKind.FLAGSHIP:
                fleet[n] = dream
                n += 1
    left = n
    for k in range(n):
        dream = fleet[k]
        for row in range(n_rows):
            side, slot = find_in_row_nb(layout, row, dream)
            if side < 0:
                continue
            target = (row + 1) % n_rows
            if side_count_nb(layout, target, side) >= SIDE_SLOTS:
                score_postcard_nb(g, dream, SENT_AWAY)
                left -= 1
            else:
                remove_from_side_nb(layout, row, side, slot)
                append_to_side_nb(layout, target, side, dream)
            break
    return left


@borrowing_jit
def wise_chaos_count_nb(expansions):
    """R11.2: 3, plus 1 for each City expansion in play (squares, temples, gardens)."""
    n = WISE_BASE
    for bit in (Expansion.SQUARES_METAS, Expansion.TEMPLES_HARMONY, Expansion.GARDENS_WIZARDS):
        if expansions & bit:
            n += 1
    return n


@borrowing_jit
def put_back_fourth_nb(g, card):
    """R11.3: ``card`` goes back into the Dream deck below its top 3 cards (at the bottom
    when it holds 3 or fewer). The deck's top index is at least 1: ``card`` was just drawn."""
    info, deck = g.info, g.deck
    top = info[Info.DECK_TOP] - 1
    above = min(WISE_DEPTH, info[Info.DECK_N])
    for k in range(above):
        deck[top + k] = deck[top + k + 1]
    deck[top + above] = card
    info[Info.DECK_TOP] = top
    info[Info.DECK_N] += 1
    info[Info.WISE_LEFT] -= 1
