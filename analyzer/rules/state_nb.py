"""Game state as a few small arrays, and the jitted accessors every rule module uses.

A game is a ``GameArrays`` StructRef holding:

- ``layout``: int64 (MAX_ROWS, LAYOUT_COLS): city id, left dreams, right dreams (-1 empty)
- ``hands``: int64 (MAX_SEATS, HAND_SIZE): hands in order, -1 padding
- ``info``: int64 (N_INFO,): counters, fields per ``Info``
- ``deck`` / ``city_deck``: int64 (n_cards,): ``deck[info[DECK_TOP]:][:info[DECK_N]]`` top first
- ``discard``: int64 (n_cards,): the discard pile in order
- ``aside``: int64 (n_cards,): Chaos set aside during the opening hand (R03.2)
- ``pending``: int64 (n_cards,): stack of Chaos and Chromatic Chaos still to resolve
- ``held``: int64 (n_cards,): Chromatic Chaos held while dealing, in draw order (R02.5)
- ``postcard_deck``: int64 (n_cards,): the Postcard deck, kept like ``deck`` (R11)
- ``postcard_on``: int64 (n_cards,): by dream id, the postcard lying on it, or -1 (R11.4)
- ``hourglass``: int64 (n_cards,): by postcard id, how often a Hourglass was turned (R11.6)
- ``options``: int64 (MAX_OPTIONS, OPTION_COLS): the legal options of the current decision
- ``deal_rng`` / ``policy_rng``: uint64 (2,): the game's two random streams
- ``log``: int64 (log_cap, LOG_COLS): the decision log (shape (0, LOG_COLS) when not tracing)
- ``stats``: int64 (N_RESULT,): per-game tallies for the results table
- ``params``: float64: the policy's parameters (weights), shared read-only by all games
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import cgutils, types
from numba.core.runtime.nrtdynmod import _meminfo_struct_type
from numba.experimental import structref

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    LAYOUT_COLS,
    LOG_COLS,
    MAX_OPTIONS,
    MAX_ROWS,
    MAX_SEATS,
    N_INFO,
    N_RESULT,
    N_SLOTS,
    OPTION_COLS,
    SIDE_SLOTS,
    CardField,
    CardType,
    Expansion,
    Info,
    Side,
    Stream,
)
from analyzer.core.jit import borrowing_jit, jit
from analyzer.core.rng import new_stream_nb

#: Inhabitant points of a postcard scored on pacifying with its condition met, and otherwise
#: or sent away (R11.4).
CONDITION_MET = 1
SENT_AWAY = -2

_FIELDS = ("layout", "hands", "info", "deck", "city_deck", "discard", "aside", "pending",
           "held", "postcard_deck", "postcard_on", "hourglass", "options", "deal_rng",
           "policy_rng", "log", "stats", "params")


_counted_data_pointer = structref._Utils.get_data_pointer


def _data_pointer(self, val):
    """A StructRef's payload pointer, also in a kernel compiled without reference counting
    (core/jit.py, ``borrowing_jit``): numba asks NRT for it, which such a kernel lacks, so
    it is read from the MemInfo's ``data`` field, as NRT_MemInfo_data_fast does."""
    if self.context.enable_nrt:
        return _counted_data_pointer(self, val)
    builder = self.builder
    meminfo = self.get_struct_ref(val).meminfo
    fields = builder.bitcast(meminfo, _meminfo_struct_type.as_pointer())
    data = builder.load(cgutils.gep(builder, fields, 0, 3, inbounds=True))
    payload = self.context.data_model_manager[self.struct_type.get_data_type()]
    return builder.bitcast(data, payload.get_value_type().as_pointer())


structref._Utils.get_data_pointer = _data_pointer


@structref.register
class GameArraysType(types.StructRef):
    """Numba type of :class:`GameArrays`."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class GameArrays(structref.StructRefProxy):
    """All arrays of one game in one object.

    A StructRef is passed between kernels as one reference-counted pointer (a tuple of the
    same arrays pays a reference-count update per array on every call), and unlike a
    jitclass, kernels that use it can be cached on disk.
    """

    def __new__(cls, *arrays):
        return structref.StructRefProxy.__new__(cls, *arrays)


def _python_getter(name: str):
    """A property reading field ``name`` through a kernel written as ``g.<name>``: numba's
    ``getattr(g, name)`` with a constant name counts one reference too many, so each read
    from Python kept its array alive for good (half a megabyte for a trace's log)."""
    namespace: dict = {}
    exec(f"def get(g):\n    return g.{name}\n", namespace)  # noqa: S102 - a field name
    getter = numba.njit(namespace["get"])
    return property(lambda self: getter(self), doc=f"The ``{name}`` array.")


structref.define_proxy(GameArrays, GameArraysType, list(_FIELDS))
for _name in _FIELDS:
    setattr(GameArrays, _name, _python_getter(_name))


@jit
def new_info_nb():
    """A fresh ``info``: counters 0, one seat, the Emptiness off the rows, no postcards on
    the layout's slots (a game without setup, such as a hand-built position, reads true)."""
    info = np.zeros(N_INFO, dtype=np.int64)
    info[Info.SEATS] = 1
    info[Info.EMPTINESS_CITY] = EMPTY
    info[Info.EMPTINESS_ROW] = EMPTY
    info[Info.POSTCARD_AT:Info.POSTCARD_AT + MAX_ROWS * N_SLOTS] = EMPTY
    return info


@jit
def new_game_nb(n_cards, seed, game, log_cap, params):
    """Fresh, empty arrays for game ``game`` of the batch with seed ``seed``.

    ``params`` (float64) are the policy's parameters, handed to it at every decision.
    """
    return GameArrays(
        np.full((MAX_ROWS, LAYOUT_COLS), EMPTY, dtype=np.int64),
        np.full((MAX_SEATS, HAND_SIZE), EMPTY, dtype=np.int64),
        new_info_nb(),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.full(n_cards, EMPTY, dtype=np.int64),
        np.zeros(n_cards, dtype=np.int64),
        np.empty((MAX_OPTIONS, OPTION_COLS), dtype=np.int64),  # rows past n_options unused
        new_stream_nb(seed, game, Stream.DEAL),
        new_stream_nb(seed, game, Stream.POLICY),
        np.zeros((log_cap, LOG_COLS), dtype=np.int64),
        np.zeros(N_RESULT, dtype=np.int64),
        params,
    )


@jit
def copy_game_nb(g):
    """An independent copy of a game's arrays, without its log (for imagined play-outs)."""
    return GameArrays(
        g.layout.copy(), g.hands.copy(), g.info.copy(), g.deck.copy(), g.city_deck.copy(),
        g.discard.copy(), g.aside.copy(), g.pending.copy(), g.held.copy(),
        g.postcard_deck.copy(), g.postcard_on.copy(), g.hourglass.copy(),
        np.empty((MAX_OPTIONS, OPTION_COLS), dtype=np.int64),  # filled afresh per decision
        g.deal_rng.copy(), g.policy_rng.copy(), np.zeros((0, LOG_COLS), dtype=np.int64),
        g.stats.copy(), g.params,
    )


@borrowing_jit
def copy_into_nb(dest, src, n):
    """``dest[:n] = src[:n]`` for 1-d arrays. Slice assignment from an array compiles
    numba's shape-mismatch message, and with it numba's string formatting: about 2 s of a
    cold start. Kernels copy arrays with this instead."""
    for k in range(n):
        dest[k] = src[k]


@borrowing_jit
def slot_col_nb(side, slot):
    """Layout column of position ``slot`` on ``side``."""
    return 1 + side * SIDE_SLOTS + slot


@borrowing_jit
def side_count_nb(layout, row, side):
    """Number of dreams on one side of a row."""
    n = 0
    for k in range(SIDE_SLOTS):
        if layout[row, slot_col_nb(side, k)] != EMPTY:
            n += 1
    return n


@borrowing_jit
def placed_value_nb(cards, card, side):
    """Influence of ``card`` lying on ``side`` (R01.2: Chaos and Chromatic Chaos +v left,
    -v right; R08.1: a Meta or Harmony takes the value of its side)."""
    return value_on_side_nb(cards[card, CardField.TYPE], cards[card, CardField.VALUE],
                            cards[card, CardField.VALUE2], side)


@borrowing_jit
def value_on_side_nb(ctype, value, value2, side):
    """``placed_value_nb`` from the card's type and values: scalars only, for inner loops
    (each array passed to a kernel costs two atomic reference-count updates)."""
    if ctype == CardType.CHAOS or ctype == CardType.CHROMATIC:
        return value if side == Side.L else -value
    if ctype == CardType.META or ctype == CardType.HARMONY:
        return value if side == Side.L else value2
    return value


@borrowing_jit
def side_sum_nb(layout, cards, row, side):
    """Signed sum of the dreams on one side of a row."""
    total = 0
    for k in range(SIDE_SLOTS):
        card = layout[row, slot_col_nb(side, k)]
        if card != EMPTY:
            total += placed_value_nb(cards, card, side)
    return total


@borrowing_jit
def row_total_nb(layout, cards, row):
    """A city's total: every dream value on both sides (R01.2)."""
    return side_sum_nb(layout, cards, row, Side.L) + side_sum_nb(layout, cards, row, Side.R)


@borrowing_jit
def row_dreams_nb(layout, row):
    """Number of dreams on both sides of a row."""
    return side_count_nb(layout, row, Side.L) + side_count_nb(layout, row, Side.R)


@borrowing_jit
def is_balanced_nb(layout, cards, row):
    """R01.3: at least one dream and a total of 0."""
    return row_dreams_nb(layout, row) > 0 and row_total_nb(layout, cards, row) == 0


@borrowing_jit
def influential_side_nb(layout, cards, row):
    """R01.4: the side with the larger absolute total, or -1 when they are equal."""
    left = side_sum_nb(layout, cards, row, Side.L)
    right = -side_sum_nb(layout, cards, row, Side.R)
    if left > right:
        return Side.L
    if right > left:
        return Side.R
    return -1


@borrowing_jit
def append_to_side_nb(layout, row, side, card):
    """Put ``card`` at the end of a side (caller checks the room)."""
    layout[row, slot_col_nb(side, side_count_nb(layout, row, side))] = card


@borrowing_jit
def remove_from_side_nb(layout, row, side, slot):
    """Take the dream at ``slot`` off a side, keeping the others' order; return it."""
    card = layout[row, slot_col_nb(side, slot)]
    for k in range(slot, SIDE_SLOTS - 1):
        layout[row, slot_col_nb(side, k)] = layout[row, slot_col_nb(side, k + 1)]
    layout[row, slot_col_nb(side, SIDE_SLOTS - 1)] = EMPTY
    return card


@borrowing_jit
def find_in_row_nb(layout, row, card):
    """(side, slot) of ``card`` in ``row``, or (-1, -1)."""
    for side in range(2):
        for slot in range(SIDE_SLOTS):
            if layout[row, slot_col_nb(side, slot)] == card:
                return side, slot
    return -1, -1


@borrowing_jit
def natural_side_nb(cards, card):
    """Side a one-sided dream lies on (R01.1): Sognae and Sognae Wizards left."""
    return natural_side_of_nb(cards[card, CardField.TYPE], cards[card, CardField.VALUE])


@borrowing_jit
def natural_side_of_nb(ctype, value):
    """``natural_side_nb`` from the card's type and value."""
    if ctype == CardType.SOGNAE or (ctype == CardType.WIZARD and value > 0):
        return Side.L
    return Side.R


@borrowing_jit
def is_two_sided_nb(cards, card):
    """True for a Meta or Harmony, whose side is chosen (R08.1)."""
    return is_two_sided_type_nb(cards[card, CardField.TYPE])


@borrowing_jit
def is_two_sided_type_nb(ctype):
    """``is_two_sided_nb`` from the card's type."""
    return ctype == CardType.META or ctype == CardType.HARMONY


@borrowing_jit
def can_take_side_nb(cards, card, side):
    """True when ``card`` may lie on ``side`` by its type (its sides, docs/engine.md)."""
    return type_takes_side_nb(cards[card, CardField.TYPE], cards[card, CardField.VALUE], side)


@borrowing_jit
def type_takes_side_nb(ctype, value, side):
    """``can_take_side_nb`` from the card's type and value: scalars only, for inner loops."""
    return is_two_sided_type_nb(ctype) or natural_side_of_nb(ctype, value) == side


@borrowing_jit
def hand_count_nb(hands, seat):
    """Cards in a seat's hand."""
    n = 0
    for k in range(HAND_SIZE):
        if hands[seat, k] != EMPTY:
            n += 1
    return n


@borrowing_jit
def remove_from_hand_nb(hands, seat, card):
    """Take ``card`` out of a hand, keeping the others' order."""
    j = 0
    for k in range(HAND_SIZE):
        c = hands[seat, k]
        if c != card:
            hands[seat, j] = c
            j += 1
    for k in range(j, HAND_SIZE):
        hands[seat, k] = EMPTY


@borrowing_jit
def add_to_hand_nb(hands, seat, card):
    """Append ``card`` to a hand."""
    hands[seat, hand_count_nb(hands, seat)] = card


@borrowing_jit
def score_postcard_nb(g, dream, points):
    """The postcard on ``dream`` goes to the Inhabitant pile with ``points`` (R11.4)."""
    g.info[Info.INHABITANTS] += points
    g.postcard_on[dream] = EMPTY


@borrowing_jit
def discard_nb(g, card):
    """Put ``card`` on the discard pile; a postcard on it is sent away (-2, R11.4).

    A pacified city's postcards are scored before its dreams get here (census_nb).
    """
    if g.postcard_on[card] != EMPTY:
        score_postcard_nb(g, card, SENT_AWAY)
    g.discard[g.info[Info.DISCARD_N]] = card
    g.info[Info.DISCARD_N] += 1


@borrowing_jit
def seat_side_nb(info, seat):
    """Team: the side ``seat`` may place on, by its polarity (R10.3); -1 in solo."""
    if info[Info.SEATS] < 2:
        return -1
    return Side.L if info[Info.POLARITY] == seat else Side.R


@borrowing_jit
def emptiness_row_nb(g):
    """The row of the City card the Emptiness figure stands on, or -1 (R12.1)."""
    city = g.info[Info.EMPTINESS_CITY]
    if city == EMPTY:
        return EMPTY
    for row in range(g.info[Info.N_ROWS]):
        if g.layout[row, 0] == city:
            return row
    return EMPTY


@borrowing_jit
def refresh_view_nb(g):
    """Write the derived policy-visible fields: the Emptiness row and, with postcards, the
    postcard on each layout slot (docs/engine.md)."""
    info = g.info
    info[Info.EMPTINESS_ROW] = emptiness_row_nb(g)
    if info[Info.EXPANSIONS] & Expansion.POSTCARDS == 0:
        return
    layout, postcard_on = g.layout, g.postcard_on
    for row in range(MAX_ROWS):
        for pos in range(N_SLOTS):
            card = layout[row, 1 + pos]
            info[Info.POSTCARD_AT + row * N_SLOTS + pos] = \
                EMPTY if card == EMPTY else postcard_on[card]


@borrowing_jit
def is_running_nb(g):
    """True while the game has neither ended nor failed."""
    return g.info[Info.OUTCOME] == 0
