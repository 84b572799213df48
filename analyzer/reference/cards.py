"""The cards of one game as the reference engine sees them: plain objects keyed by card id.

The reference engine never reads the numba card table while playing; it works from
:class:`CardBook`, which can be built from a :class:`~analyzer.cards.CardSet` (to play) or
from a trace's ``cards`` list (to replay), so a replay depends on nothing but the trace.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analyzer.cards import CardSet
from analyzer.core.codes import ELEMENTS, CardField, CardType, Side


@dataclass(frozen=True)
class Card:
    """One card.

    Attributes
    ----------
    id : int
        The card's id (any unique integer).
    type : int
        A ``CardType`` code.
    elements : int
        Bit mask over ``ELEMENTS`` (a City card's elements, a dream's element).
    value : int
        Signed influence of a Sognae or Incubi; for a Chaos its magnitude (R01.1).
    """

    id: int
    type: int
    elements: int = 0
    value: int = 0


class CardBook:
    """The cards in play, looked up by id.

    Parameters
    ----------
    cards : iterable of Card
        Every card of the game; ids must be unique.
    """

    def __init__(self, cards: Iterable[Card]) -> None:
        self._cards: dict[int, Card] = {}
        for card in cards:
            if card.id in self._cards:
                raise ValueError(f"card id {card.id} appears twice")
            self._cards[card.id] = card
        self.city_ids = sorted(c.id for c in self._cards.values() if c.type == CardType.CITY)
        self.dream_ids = sorted(c.id for c in self._cards.values() if c.type != CardType.CITY)

    @classmethod
    def from_card_set(cls, card_set: CardSet) -> CardBook:
        """Build the book from a loaded card set (card id = row of the card table)."""
        return cls(
            Card(
                id=card_id,
                type=int(row[CardField.TYPE]),
                elements=int(row[CardField.ELEMENTS]),
                value=int(row[CardField.VALUE]),
            )
            for card_id, row in enumerate(card_set.cards)
        )

    def __getitem__(self, card_id: int) -> Card:
        return self._cards[card_id]

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards

    def __len__(self) -> int:
        return len(self._cards)

    def is_chaos(self, card_id: int) -> bool:
        """True for a Chaos card."""
        return self._cards[card_id].type == CardType.CHAOS

    def natural_side(self, card_id: int) -> int:
        """The side a Sognae (left) or Incubi (right) takes by its type (R01.1)."""
        return Side.L if self._cards[card_id].type == CardType.SOGNAE else Side.R

    def value_on(self, card_id: int, side: int) -> int:
        """A dream's signed influence where it lies; a Chaos is +v left, -v right (R01.2)."""
        card = self._cards[card_id]
        if card.type == CardType.CHAOS:
            return card.value if side == Side.L else -card.value
        return card.value

    def shows_element(self, city_id: int, dream_id: int) -> bool:
        """True when the City card shows the dream's element (placement rule 1)."""
        return bool(self._cards[city_id].elements & self._cards[dream_id].elements)


def element_mask(names: Iterable[str]) -> int:
    """Bit mask of element names (earth 1, water 2, fire 4, air 8)."""
    mask = 0
    for name in names:
        mask |= 1 << ELEMENTS.index(name)
    return mask
