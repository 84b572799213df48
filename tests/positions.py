"""Hand-built positions for the fast engine's kernels, and scripted policies."""

from __future__ import annotations

import numba
import numpy as np

from analyzer.cards import default_card_set
from analyzer.core.codes import (
    EMPTY,
    MAX_ROWS,
    N_SLOTS,
    SIDE_SLOTS,
    BookKind,
    CardField,
    CardType,
    Info,
    LogEntry,
    PostcardKind,
)
from analyzer.core.rng import shuffle_nb
from analyzer.rules.state_nb import new_game_nb

CARDS = default_card_set()


@numba.njit
def scripted_nb(kind, options, n_options, state, cards, params, rng):
    """Answer decision k with option index params[k]; 0 once the script is used up."""
    k = rng[1]
    rng[1] += np.uint64(1)
    if k < params.shape[0]:
        return np.int64(params[k])
    return np.int64(0)


def find(ctype: int, value: int | None = None, element: int | None = None, skip=()) -> int:
    """Id of a card of the default set with this type, value and element bit."""
    for cid, row in enumerate(CARDS.cards):
        if cid in skip or row[CardField.TYPE] != ctype:
            continue
        if value is not None and row[CardField.VALUE] != value:
            continue
        if element is not None and not row[CardField.ELEMENTS] & element:
            continue
        return cid
    raise LookupError((ctype, value, element))


def sognae(value: int, element: int = 1, skip=()) -> int:
    return find(CardType.SOGNAE, value, element, skip)


def incubi(value: int, element: int = 1, skip=()) -> int:
    return find(CardType.INCUBI, value, element, skip)


def chaos_ids() -> list[int]:
    return [c for c, row in enumerate(CARDS.cards) if row[CardField.TYPE] == CardType.CHAOS]


def city(elements: int, skip=()) -> int:
    for cid in CARDS.city_ids:
        if cid not in skip and CARDS.cards[cid, CardField.ELEMENTS] == elements:
            return int(cid)
    raise LookupError(elements)


def position(rows, hand=(), deck=(), city_deck=(), script=(), success=0, log_cap=0,
             expansions=0, total_cities=None, record=False, *, hand2=(), seats=1, polarity=0,
             seat=0, turn=1, discard=(), postcards=None, postcard_deck=(), hourglass=None,
             wise_left=0, emptiness_n=0, emptiness_city=EMPTY, emptiness_flat=0, books=(),
             inhabitants=0):
    """A game in progress: ``rows`` is a list of (city, [left ids], [right ids]).

    ``expansions``: the ``Expansion`` bits in play (``info[EXPANSIONS]``); ``total_cities``:
    the City cards needed to win (default: the base game's 12); ``record``: leave room after
    the script for ``recording_nb`` (see ``asked_counts``).

    Expansions II and the team game: ``hand2`` seat 1's hand, ``seats`` 1 or 2, ``polarity``
    the seat holding the Sognae Polarity card, ``seat`` the seat to play; ``discard`` the
    discard pile (oldest first); ``postcards`` a dict {dream id: postcard id} (the postcard
    lying on that dream), ``hourglass`` a dict {postcard id: times turned},
    ``postcard_deck`` the Postcard deck (top first); ``wise_left`` the Wise Chaos left;
    ``emptiness_n`` the Emptiness cards in the pile, ``emptiness_city`` the City card the
    figure stands on (-1: on the pile), ``emptiness_flat`` 1 while it lies flat; ``books``
    the ``BookKind`` of each Book in the layout (Prophecies may appear twice);
    ``inhabitants`` the Inhabitant pile's sum.
    """
    params = script_params(script, record)
    g = new_game_nb(CARDS.cards.shape[0], 0, 0, log_cap, params)
    for r, (cid, left, right) in enumerate(rows):
        g.layout[r, 0] = cid
        for k, c in enumerate(left):
            g.layout[r, 1 + k] = c
        for k, c in enumerate(right):
            g.layout[r, 1 + SIDE_SLOTS + k] = c
    for k, c in enumerate(hand):
        g.hands[0, k] = c
    for k, c in enumerate(hand2):
        g.hands[1, k] = c
    g.deck[: len(deck)] = deck
    g.city_deck[: len(city_deck)] = city_deck
    g.discard[: len(discard)] = discard
    g.postcard_deck[: len(postcard_deck)] = postcard_deck
    for dream, postcard in (postcards or {}).items():
        g.postcard_on[dream] = postcard
    for postcard, turned in (hourglass or {}).items():
        g.hourglass[postcard] = turned
    info = g.info
    info[Info.N_ROWS] = len(rows)
    info[Info.DECK_N] = len(deck)
    info[Info.CITY_DECK_N] = len(city_deck)
    info[Info.DISCARD_N] = len(discard)
    info[Info.SUCCESS_N] = success
    info[Info.TOTAL_CITIES] = len(CARDS.city_ids) if total_cities is None else total_cities
    info[Info.EXPANSIONS] = expansions
    info[Info.TURN] = turn
    info[Info.SEAT] = seat
    info[Info.SEATS] = seats
    info[Info.POLARITY] = polarity
    info[Info.POSTCARD_N] = len(postcard_deck)
    info[Info.WISE_LEFT] = wise_left
    info[Info.INHABITANTS] = inhabitants
    info[Info.EMPTINESS_N] = emptiness_n
    info[Info.EMPTINESS_CITY] = emptiness_city
    info[Info.EMPTINESS_FLAT] = emptiness_flat
    info[Info.EMPTINESS_ROW] = EMPTY
    for k in range(MAX_ROWS * N_SLOTS):
        info[Info.POSTCARD_AT + k] = EMPTY
    kinds = [int(CARDS.cards[p, CardField.KIND]) for p in (postcards or {}).values()]
    info[Info.HOURGLASS_N] = kinds.count(PostcardKind.HOURGLASS)  # as dealing counts them
    info[Info.FLAGSHIP_N] = kinds.count(PostcardKind.FLAGSHIP)
    for kind in books:
        info[Info.BOOKS] |= 1 << kind
        if kind == BookKind.PROPHECIES:
            info[Info.PROPHECIES] += 1
    return g


def side(g, row: int, s: int) -> list[int]:
    return [int(c) for c in g.layout[row, 1 + s * SIDE_SLOTS: 1 + (s + 1) * SIDE_SLOTS]
            if c != EMPTY]


def options(g, n: int) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in g.options[i]) for i in range(n)]


# --- expansions (City Squares & Metas, Chromatic Chaos, Temples & Harmony, Gardens & Wizards)


@numba.njit
def recording_nb(kind, options, n_options, state, cards, params, rng):
    """As ``scripted_nb`` for a script of n answers followed by n free slots (``position(...,
    record=True)``); also writes the number of options of asked decision k into
    ``params[n + k]``. A test policy only: real policies must not write to ``params``."""
    k = rng[1]
    rng[1] += np.uint64(1)
    half = params.shape[0] // 2
    if k < half:
        params[half + k] = n_options
        return np.int64(params[k])
    return np.int64(0)


def script_params(script=(), record=False) -> np.ndarray:
    """The ``params`` of ``scripted_nb`` (or, with ``record``, of ``recording_nb``)."""
    script = [float(x) for x in script]
    if record:
        script += [-1.0] * len(script)
    return np.array(script, dtype=np.float64)


def asked_counts(g) -> list[int]:
    """Numbers of options of the decisions ``recording_nb`` was asked, in order."""
    half = g.params.shape[0] // 2
    return [int(x) for x in g.params[half:] if x >= 0]


def fresh_game(script=(), log_cap=0):
    """Empty arrays of a game of seed 0, for ``setup_nb``."""
    return new_game_nb(CARDS.cards.shape[0], 0, 0, log_cap, script_params(script))


def stacked_setup(g, city_order, dream_order):
    """(city_ids, dream_ids) that ``setup_nb``'s two shuffles on ``g``'s DEAL stream turn
    into ``city_order`` and ``dream_order`` (top first)."""
    city_ids, dream_ids, _ = stacked_setup_rng(g, city_order, dream_order)
    return city_ids, dream_ids


def of_type(ctype: int) -> list[int]:
    return [c for c, row in enumerate(CARDS.cards) if row[CardField.TYPE] == ctype]


def chromatic_ids() -> list[int]:
    return of_type(CardType.CHROMATIC)


def meta(value: int, element: int, skip=()) -> int:
    """A Meta of this element whose Sognae value is ``value``."""
    return find(CardType.META, value, element, skip)


def harmony(value: int, skip=()) -> int:
    """A Harmony whose Sognae value is ``value``."""
    return find(CardType.HARMONY, value, None, skip)


def wizard(value: int, element: int, skip=()) -> int:
    """A Wizard of this signed value and element."""
    return find(CardType.WIZARD, value, element, skip)


def expansion_city(kind: int, elements: int | None = None, skip=()) -> int:
    """A City Square, Temple or Hanging Gardens (``CityKind``), with exactly ``elements``."""
    for cid, row in enumerate(CARDS.cards):
        if cid in skip or row[CardField.TYPE] != CardType.CITY or row[CardField.KIND] != kind:
            continue
        if elements is None or row[CardField.ELEMENTS] == elements:
            return cid
    raise LookupError((kind, elements))


def decisions(g) -> list[tuple[int, ...]]:
    """The logged decisions (needs ``log_cap``): (kind, chosen option's 4 columns)."""
    log = g.log[: g.info[Info.LOG_N]]
    return [tuple(int(x) for x in row[1:6]) for row in log if row[0] == LogEntry.DECISION]


def deck_left(g) -> list[int]:
    top = g.info[Info.DECK_TOP]
    return [int(c) for c in g.deck[top: top + g.info[Info.DECK_N]]]


def discarded(g) -> list[int]:
    return [int(c) for c in g.discard[: g.info[Info.DISCARD_N]]]


def held(g) -> list[int]:
    return [int(c) for c in g.held[: g.info[Info.HELD_N]]]


def hand(g, seat: int = 0) -> list[int]:
    return [int(c) for c in g.hands[seat] if c != EMPTY]


# --- Expansions II and the team game (Books, Postcards & Wise Chaos, the Emptiness) -------


def postcard(kind: int, k: int = 0) -> int:
    """The ``k``-th (0-2) Postcard of ``PostcardKind`` ``kind``."""
    return [c for c in of_type(CardType.POSTCARD) if CARDS.cards[c, CardField.KIND] == kind][k]


def book(kind: int, k: int = 0) -> int:
    """The ``k``-th Book of ``BookKind`` ``kind`` (Prophecies: 0 or 1)."""
    return [c for c in of_type(CardType.BOOK) if CARDS.cards[c, CardField.KIND] == kind][k]


def dreams_of(ctype: int, element: int, skip=()) -> list[int]:
    """Every card of ``ctype`` showing ``element``, in id order, but those in ``skip``."""
    return [c for c in of_type(ctype)
            if c not in skip and CARDS.cards[c, CardField.ELEMENTS] & element]


def postcard_on(g, dream: int) -> int:
    """The postcard lying on ``dream``, or -1."""
    return int(g.postcard_on[dream])


def logged(g, entry: int) -> list[list[int]]:
    """The id lists of the logged header entries of kind ``entry`` (``LogEntry.SHUFFLE``,
    ``BOOK_DECK``, ``POSTCARD_DECK``, ``REMOVED``...), in log order (needs ``log_cap``)."""
    log = g.log[: g.info[Info.LOG_N]]
    found = []
    for i, row in enumerate(log):
        if row[0] != entry:
            continue
        n, ids, j = int(row[1]), [], i + 1
        while len(ids) < n:
            ids += [int(x) for x in log[j, 1:1 + min(7, n - len(ids))]]
            j += 1
        found.append(ids)
    return found


def stacked_setup_rng(g, city_order, dream_order):
    """As ``stacked_setup``, and a copy of ``g``'s DEAL stream as it stands after those two
    shuffles, to foresee the shuffles that follow (Book deck, Postcard deck, R03.2, R09.1)."""
    rng = np.array(g.deal_rng, copy=True)

    def unshuffle(order):
        n = len(order)
        perm = np.arange(n, dtype=np.int64)
        shuffle_nb(perm, 0, n, rng)  # a shuffle moves the card at perm[k] to k
        ids = np.empty(n, dtype=np.int64)
        ids[perm] = np.asarray(order, dtype=np.int64)
        return ids

    return unshuffle(city_order), unshuffle(dream_order), rng


def shuffled(ids, rng) -> list[int]:
    """``ids`` (top first) after one shuffle on the stream ``rng`` (which advances)."""
    values = np.asarray(ids, dtype=np.int64).copy()
    shuffle_nb(values, 0, len(values), rng)
    return [int(c) for c in values]
