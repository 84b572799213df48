"""The cards of one game as the reference engine sees them: plain objects keyed by card id.

The reference engine never reads the numba card table while playing; it works from
:class:`CardBook`, which can be built from a :class:`~analyzer.cards.CardSet` (to play) or
from a trace's ``cards`` list (to replay), so a replay depends on nothing but the trace.

How each type lies in the layout (docs/engine.md, "Expansions I", R01, R07, R08):

============  ==================  ===========================  ===========================
type          elements            sides it can take from hand  value where it lies
============  ==================  ===========================  ===========================
Sognae        one                 L                            ``value`` (positive)
Incubi        one                 R                            ``value`` (negative)
Wizard        one                 L if ``value`` > 0, else R   ``value`` (signed)
Meta          one                 L and R                      ``value`` left, ``value2`` right
Harmony       all four            L and R                      ``value`` left, ``value2`` right
Chaos         none                (never in hand)              +``value`` left, -``value`` right
Chromatic     none                (never in hand)              +``value`` left, -``value`` right
============  ==================  ===========================  ===========================

Books, Postcards and Emptiness cards (R09, R11, R12) are neither City nor Dream cards: the
book keeps them apart (``book_ids``, ``postcard_ids``, ``emptiness_ids``); a Book's or a
Postcard's ``kind`` is its ``BookKind`` or ``PostcardKind``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analyzer.cards import CardSet
from analyzer.core.codes import ELEMENTS, CardField, CardType, CityKind, Side


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
        Bit mask over ``ELEMENTS`` (a City card's elements, a dream's element; all four for
        a Harmony, none for a Chaos, a Chromatic Chaos or a Hanging Garden).
    value : int
        Signed influence of a Sognae, Incubi or Wizard; for a Chaos or Chromatic Chaos its
        magnitude (R01.1, R07); for a Meta or Harmony its Sognae value (R08.1).
    value2 : int
        A Meta's or Harmony's (negative) Incubi value; 0 for other cards.
    kind : int
        A City card's ``CityKind``, a Book's ``BookKind``, a Postcard's ``PostcardKind``.
    """

    id: int
    type: int
    elements: int = 0
    value: int = 0
    value2: int = 0
    kind: int = CityKind.BASE


#: Types that lie on the side the policy chooses (R02.4, R07.2, R08.1).
TWO_SIDED = (CardType.META, CardType.HARMONY)
#: Types whose value is a magnitude, signed by the side they lie on.
CHAOS_LIKE = (CardType.CHAOS, CardType.CHROMATIC)
#: Cards that are neither City nor Dream cards (R09, R11, R12).
OTHER_TYPES = (CardType.BOOK, CardType.POSTCARD, CardType.EMPTINESS)


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
        self.city_ids = self._ids_of(CardType.CITY)
        self.dream_ids = sorted(c.id for c in self._cards.values()
                                if c.type != CardType.CITY and c.type not in OTHER_TYPES)
        self.book_ids = self._ids_of(CardType.BOOK)
        self.postcard_ids = self._ids_of(CardType.POSTCARD)
        self.emptiness_ids = self._ids_of(CardType.EMPTINESS)

    def _ids_of(self, card_type: int) -> list[int]:
        return sorted(c.id for c in self._cards.values() if c.type == card_type)

    @classmethod
    def from_card_set(cls, card_set: CardSet) -> CardBook:
        """Build the book of the cards in play (card id = row of the card table)."""
        in_play = sorted(int(i) for i in [*card_set.city_ids, *card_set.dream_ids,
                                          *card_set.other_ids])
        return cls(
            Card(
                id=card_id,
                type=int(card_set.cards[card_id, CardField.TYPE]),
                elements=int(card_set.cards[card_id, CardField.ELEMENTS]),
                value=int(card_set.cards[card_id, CardField.VALUE]),
                value2=int(card_set.cards[card_id, CardField.VALUE2]),
                kind=int(card_set.cards[card_id, CardField.KIND]),
            )
            for card_id in in_play
        )

    def __getitem__(self, card_id: int) -> Card:
        return self._cards[card_id]

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards

    def __len__(self) -> int:
        return len(self._cards)

    def is_chaos(self, card_id: int) -> bool:
        """True for a Chaos card (a Chromatic Chaos is not one: docs/engine.md)."""
        return self._cards[card_id].type == CardType.CHAOS

    def is_chromatic(self, card_id: int) -> bool:
        """True for a Chromatic Chaos (R07)."""
        return self._cards[card_id].type == CardType.CHROMATIC

    def is_chaos_like(self, card_id: int) -> bool:
        """True for a Chaos or a Chromatic Chaos (the rules that name both: R04.4, R08.4)."""
        return self._cards[card_id].type in CHAOS_LIKE

    def is_two_sided(self, card_id: int) -> bool:
        """True for a Meta or Harmony, whose side is chosen (R08.1)."""
        return self._cards[card_id].type in TWO_SIDED

    def is_wizard(self, card_id: int) -> bool:
        """True for a Wizard (R08.3)."""
        return self._cards[card_id].type == CardType.WIZARD

    def sides(self, card_id: int) -> tuple[int, ...]:
        """The sides a dream can take from hand or when revealed, L before R.

        Sognae and Sognae Wizards left, Incubi and Incubi Wizards right (R01.1, R08.3);
        Metas and Harmony either (R08.1). Chaos and Chromatic Chaos are never placed this
        way and take none.
        """
        card = self._cards[card_id]
        if card.type in TWO_SIDED:
            return SIDES_BOTH
        if card.type == CardType.SOGNAE:
            return SIDE_LEFT
        if card.type == CardType.INCUBI:
            return SIDE_RIGHT
        if card.type == CardType.WIZARD:
            return SIDE_LEFT if card.value > 0 else SIDE_RIGHT
        return ()

    def is_harmony(self, card_id: int) -> bool:
        """True for a Harmony, a wild element for the Seer (R11.5)."""
        return self._cards[card_id].type == CardType.HARMONY

    def postcard_kind(self, postcard_id: int) -> int:
        """A Postcard's ``PostcardKind``."""
        card = self._cards[postcard_id]
        assert card.type == CardType.POSTCARD
        return card.kind

    def natural_side(self, card_id: int) -> int:
        """The side a one-sided dream takes by its type: Sognae left, Incubi right (R01.1),
        a Wizard by the sign of its value (R08.3)."""
        (side,) = self.sides(card_id)
        return side

    def value_on(self, card_id: int, side: int) -> int:
        """A dream's signed influence where it lies (R01.2).

        Chaos and Chromatic Chaos are +v left, -v right; a Meta or Harmony takes its Sognae
        value on the left and its Incubi value on the right (R08.1).
        """
        card = self._cards[card_id]
        if card.type in CHAOS_LIKE:
            return card.value if side == Side.L else -card.value
        if card.type in TWO_SIDED:
            return card.value if side == Side.L else card.value2
        return card.value

    def shows_element(self, city_id: int, dream_id: int) -> bool:
        """True when the City card shows the dream's element (placement rule 1).

        A Harmony shows all four elements, so it goes next to any city that shows one; a
        Hanging Garden shows none and takes no dream from hand (R08.5).
        """
        return bool(self._cards[city_id].elements & self._cards[dream_id].elements)

    def share_element(self, first: int, second: int) -> bool:
        """True when two hand cards have at least one element in common (R08.4)."""
        return bool(self._cards[first].elements & self._cards[second].elements)


SIDE_LEFT = (Side.L,)
SIDE_RIGHT = (Side.R,)
SIDES_BOTH = (Side.L, Side.R)


def element_mask(names: Iterable[str]) -> int:
    """Bit mask of element names (earth 1, water 2, fire 4, air 8)."""
    mask = 0
    for name in names:
        mask |= 1 << ELEMENTS.index(name)
    return mask
