"""Postcard conditions (R11.4, R11.5), checked on the layout noted at the start of a census.

Pure functions of a :class:`NotedRow` list and the card book: the engine notes the layout
(R05.2), then asks :func:`condition_holds` for every postcard of a city it pacifies.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from analyzer.core.codes import MAX_ROWS, PostcardKind, Side
from analyzer.reference.cards import CardBook

#: Kinds with a special rule instead of a condition: +1 whenever their city is pacified
#: (R11.4).
SPECIAL_RULE_KINDS = (PostcardKind.HOURGLASS, PostcardKind.FLAGSHIP, PostcardKind.ROCKET)
N_ELEMENTS = 4
MIN_MAGICIAN_CHAOS = 2


class NotedRow(NamedTuple):
    """One row of the noted layout: its City card and both sides, in side order."""

    city: int
    left: tuple[int, ...]
    right: tuple[int, ...]

    def side(self, side: int) -> tuple[int, ...]:
        """The dreams of side ``side`` (``Side.L`` or ``Side.R``)."""
        return self.left if side == Side.L else self.right

    def placed(self) -> Iterable[tuple[int, int]]:
        """(dream, side) of every dream, left side then right side."""
        yield from ((card, Side.L) for card in self.left)
        yield from ((card, Side.R) for card in self.right)


def condition_holds(kind: int, dream: int, row_index: int, noted: list[NotedRow],
                    book: CardBook, perfect: bool) -> bool:
    """True when the postcard of ``kind`` on ``dream`` (row ``row_index``) scores +1.

    Parameters
    ----------
    kind : int
        The postcard's ``PostcardKind``.
    dream, row_index : int
        The dream it lies on and that dream's row in ``noted``.
    noted : list of NotedRow
        The layout at the start of the census (R05.2, R11.5).
    book : CardBook
        The cards of the game.
    perfect : bool
        True when this census is a Perfect Balance (R05.4): the Doves' condition.
    """
    if kind in SPECIAL_RULE_KINDS:
        return True  # R11.4: +1 on pacifying
    row = noted[row_index]
    if kind == PostcardKind.DREAMCATCHER:
        return any(row.side(side) == (dream,) for side in (Side.L, Side.R))
    if kind == PostcardKind.DOVES:
        return perfect
    if kind == PostcardKind.SEER:
        return seer_sees_all(row, book)
    if kind == PostcardKind.MAGICIANS:
        return magicians_count(noted, book) >= MIN_MAGICIAN_CHAOS
    if kind == PostcardKind.PLANBOT:
        return planbot_sequence(noted, book)
    raise ValueError(f"unknown postcard kind {kind}")


def seer_sees_all(row: NotedRow, book: CardBook) -> bool:
    """All 4 elements on the city's dreams (R11.5): Chaos and Chromatic Chaos show none,
    each Harmony counts as one element of choice."""
    elements = 0
    wild = 0
    for card, _ in row.placed():
        if book.is_chaos_like(card):
            continue
        if book.is_harmony(card):
            wild += 1
        else:
            elements |= book[card].elements
    return bin(elements).count("1") + wild >= N_ELEMENTS


def magicians_count(noted: list[NotedRow], book: CardBook) -> int:
    """Plain Chaos in the whole noted layout (Chromatic Chaos do not count)."""
    return sum(book.is_chaos(card) for row in noted for card, _ in row.placed())


def planbot_sequence(noted: list[NotedRow], book: CardBook) -> bool:
    """A cyclic run of 4 consecutive magnitudes, one per row (R11.5).

    The noted layout must hold 4 rows. For some start row s, direction d (+1 ascending,
    -1 descending, reading down) and value v, row (s + k) mod 4 holds a dream whose
    absolute placed value is v + d k, for k = 0..3.
    """
    if len(noted) != MAX_ROWS:
        return False
    magnitudes = [{abs(book.value_on(card, side)) for card, side in row.placed()}
                  for row in noted]
    for start in range(MAX_ROWS):
        for step in (1, -1):
            for value in magnitudes[start]:
                if all(value + step * k in magnitudes[(start + k) % MAX_ROWS]
                       for k in range(MAX_ROWS)):
                    return True
    return False
