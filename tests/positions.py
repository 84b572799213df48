"""Hand-built positions for the fast engine's kernels, and scripted policies."""

from __future__ import annotations

import numba
import numpy as np

from analyzer.cards import default_card_set
from analyzer.core.codes import EMPTY, SIDE_SLOTS, CardField, CardType, Info
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


def position(rows, hand=(), deck=(), city_deck=(), script=(), success=0, log_cap=0):
    """A game in progress: ``rows`` is a list of (city, [left ids], [right ids])."""
    params = np.array(script, dtype=np.float64)
    g = new_game_nb(CARDS.cards.shape[0], 0, 0, log_cap, params)
    for r, (cid, left, right) in enumerate(rows):
        g.layout[r, 0] = cid
        for k, c in enumerate(left):
            g.layout[r, 1 + k] = c
        for k, c in enumerate(right):
            g.layout[r, 1 + SIDE_SLOTS + k] = c
    for k, c in enumerate(hand):
        g.hands[0, k] = c
    g.deck[: len(deck)] = deck
    g.city_deck[: len(city_deck)] = city_deck
    g.info[Info.N_ROWS] = len(rows)
    g.info[Info.DECK_N] = len(deck)
    g.info[Info.CITY_DECK_N] = len(city_deck)
    g.info[Info.SUCCESS_N] = success
    g.info[Info.TOTAL_CITIES] = len(CARDS.city_ids)
    g.info[Info.TURN] = 1
    return g


def side(g, row: int, s: int) -> list[int]:
    return [int(c) for c in g.layout[row, 1 + s * SIDE_SLOTS: 1 + (s + 1) * SIDE_SLOTS]
            if c != EMPTY]


def options(g, n: int) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in g.options[i]) for i in range(n)]
