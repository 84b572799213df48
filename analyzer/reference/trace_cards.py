"""A trace's ``cards`` table read back as the reference engine's cards, and whether it is
the card set the trace names.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any

from analyzer.cards.loader import CardSet, CardSetError, default_card_set, dream_value
from analyzer.core.codes import (
    BOOK_NAMES,
    ELEMENTS,
    POSTCARD_NAMES,
    CardType,
    CityKind,
    Expansion,
)
from analyzer.reference.cards import Card, CardBook, element_mask
from analyzer.reference.trace_log import ReplayError, is_int

DREAM_TYPES = {"sognae": CardType.SOGNAE, "incubi": CardType.INCUBI, "chaos": CardType.CHAOS}


#: The expansion each card type or City kind belongs to (TRACE.md names).
TYPE_EXPANSION = {"chromatic": "chromatic_chaos", "meta": "squares_metas",
                  "harmony": "temples_harmony", "wizard": "gardens_wizards", "book": "books",
                  "postcard": "postcards", "emptiness": "emptiness"}


#: The cards of each expansion, as a message names them: a trace naming an expansion must
#: list some, as a card file must to play it (CardSet.with_expansions). Without them a
#: game of the expansion would be a base game under the expansion's name.
EXPANSION_CARDS = {"squares_metas": "City Square or Meta",
                   "chromatic_chaos": "Chromatic Chaos",
                   "temples_harmony": "Temple or Harmony",
                   "gardens_wizards": "Hanging Garden or Wizard",
                   "books": "Book", "postcards": "Postcard", "emptiness": "Emptiness"}


CITY_KINDS = {"base": (CityKind.BASE, None, None),
              "square": (CityKind.SQUARE, "squares_metas", len(ELEMENTS)),
              "temple": (CityKind.TEMPLE, "temples_harmony", 1),
              "garden": (CityKind.GARDEN, "gardens_wizards", 0)}


def _text(entry: dict, key: str) -> str | None:
    """A name-valued field (type, kind, polarity), or None when it is missing or not a
    string (a list there must be refused, not looked up)."""
    value = entry.get(key)
    return value if isinstance(value, str) else None


def _kind(entry: dict, where: str, names: tuple[str, ...]) -> int:
    """A Book's or Postcard's kind (``BookKind`` / ``PostcardKind``) from its name."""
    kind = entry.get("kind")
    if kind not in names:
        raise ReplayError(f"{where}: unknown {entry['type']} kind {kind!r} "
                          f"(valid: {', '.join(names)})")
    return names.index(kind)


def _element(entry: dict, where: str) -> int:
    if entry.get("element") not in ELEMENTS:
        raise ReplayError(f"{where}: unknown element {entry.get('element')!r}")
    return element_mask([entry["element"]])


def _value(entry: dict, key: str, negative: bool, where: str) -> int:
    """A card's value (``key``), held to the limits of a card file (the loader's)."""
    try:
        return dream_value(entry.get(key), negative,
                           f"{where}: {entry['type']} card {entry['id']} {key}")
    except CardSetError as err:
        raise ReplayError(f"{err} (a card file's limits)") from None


def _two_values(entry: dict, where: str) -> tuple[int, int]:
    """A Meta's or Harmony's Sognae value (positive) and Incubi value (negative)."""
    return (_value(entry, "sognae_value", False, where),
            _value(entry, "incubi_value", True, where))


def _city_from_trace(entry: dict, where: str, expansions: set[str]) -> Card:
    kind = _text(entry, "kind")
    if kind not in CITY_KINDS:
        raise ReplayError(f"{where}: unknown City kind {kind!r} "
                          f"(valid: {', '.join(CITY_KINDS)})")
    code, expansion, n_elements = CITY_KINDS[kind]
    if expansion is not None and expansion not in expansions:
        raise ReplayError(f"{where}: a {kind} City card needs {expansion} in the trace's "
                          "expansions")
    elements = entry.get("elements")
    if not isinstance(elements, list):
        raise ReplayError(f"{where}: a City card needs a list of elements")
    unknown = [e for e in elements if e not in ELEMENTS]
    if unknown:
        raise ReplayError(f"{where}: unknown element {unknown[0]!r} (valid: "
                          f"{', '.join(ELEMENTS)})")
    # as a card file (cards.loader): no card shows an element twice, a base City one at least
    twice = [e for e in ELEMENTS if elements.count(e) > 1]
    if twice:
        raise ReplayError(f"{where}: element {twice[0]!r} listed twice")
    if n_elements is None and not elements:
        raise ReplayError(f"{where}: a base City card shows one element at least, as in a "
                          "card file, not none")
    if n_elements is not None and len(set(elements)) != n_elements:
        raise ReplayError(f"{where}: a {kind} City card shows {n_elements} elements "
                          f"(R08.5), not {elements}")
    return Card(entry["id"], CardType.CITY, element_mask(elements), kind=code)


def _card_from_trace(position: int, entry: Any, expansions: set[str]) -> Card:
    where = f"cards[{position}]"
    if not isinstance(entry, dict) or not is_int(entry.get("id")):
        raise ReplayError(f"{where}: expected an object with an integer id")
    card_type = _text(entry, "type")
    card_id = entry["id"]
    if card_type == "city":
        return _city_from_trace(entry, where, expansions)
    if card_type in TYPE_EXPANSION:
        if TYPE_EXPANSION[card_type] not in expansions:
            raise ReplayError(f"{where}: a {card_type} card needs {TYPE_EXPANSION[card_type]} "
                              "in the trace's expansions")
    elif card_type not in DREAM_TYPES:
        raise ReplayError(f"{where}: card type {entry.get('type')!r} is not part of the game "
                          "with these expansions")
    if card_type == "book":
        return Card(card_id, CardType.BOOK, kind=_kind(entry, where, BOOK_NAMES))
    if card_type == "postcard":
        return Card(card_id, CardType.POSTCARD, kind=_kind(entry, where, POSTCARD_NAMES))
    if card_type == "emptiness":
        return Card(card_id, CardType.EMPTINESS)
    if card_type == "meta":
        sognae, incubi = _two_values(entry, where)
        return Card(card_id, CardType.META, _element(entry, where), sognae, incubi)
    if card_type == "harmony":
        sognae, incubi = _two_values(entry, where)
        return Card(card_id, CardType.HARMONY, element_mask(ELEMENTS), sognae, incubi)
    value = entry.get("value")
    if card_type == "wizard":
        polarity = _text(entry, "polarity")
        sign = {"sognae": 1, "incubi": -1}.get(polarity)
        if sign is None or not is_int(value) or sign * value <= 0:
            raise ReplayError(f"{where}: a wizard needs polarity sognae or incubi and a value "
                              f"of that sign, not {entry.get('polarity')!r} and {value!r}")
        return Card(card_id, CardType.WIZARD, _element(entry, where),
                    _value(entry, "value", sign < 0, where))
    value = _value(entry, "value", card_type == "incubi", where)
    if card_type == "chaos":
        return Card(card_id, CardType.CHAOS, 0, value)
    if card_type == "chromatic":
        return Card(card_id, CardType.CHROMATIC, 0, value)
    return Card(card_id, DREAM_TYPES[card_type], _element(entry, where), value)


def book_from_trace(cards: Any, expansions: list[str] | None = None) -> CardBook:
    """Rebuild the cards of a game from a trace's ``cards`` table.

    A card of an expansion (a City Square, Temple or Hanging Garden, a Book, a Postcard,
    an Emptiness card, ...) is accepted only when that expansion is among ``expansions``
    (the trace header's names), and a value only within a card file's limits (the
    loader's ``dream_value``): no card file could deal a Sognae of 99.
    """
    if not isinstance(cards, list):
        raise ReplayError("cards: expected a list of cards")
    names = set(expansions or [])
    try:
        return CardBook(_card_from_trace(i, entry, names) for i, entry in enumerate(cards))
    except ValueError as err:
        raise ReplayError(f"cards: {err}") from None


def check_own_cards(trace: dict, expansions: list[str]) -> None:
    """A trace naming an expansion lists some of its cards (``EXPANSION_CARDS``)."""
    cards = trace.get("cards")
    held = {_card_expansion(c) for c in cards if isinstance(c, dict)} \
        if isinstance(cards, list) else set()
    for name, what in EXPANSION_CARDS.items():
        if name in expansions and name not in held:
            raise ReplayError(f"expansions: {name!r} cannot be replayed without its cards: "
                              f"the cards table of this {trace['variant']} variant trace "
                              f"holds no {what} card")


def _card_expansion(entry: dict) -> str | None:
    """The expansion a ``cards`` entry belongs to, by its type or City kind (None for a
    card of the base game or an unknown one, which building the cards refuses)."""
    card_type = _text(entry, "type")
    if card_type == "city":
        return CITY_KINDS.get(_text(entry, "kind"), (None, None, None))[1]
    return TYPE_EXPANSION.get(card_type)


def expansion_mask(names: list[str]) -> int:
    mask = 0
    for name in names:
        mask |= getattr(Expansion, name.upper())
    return mask


#: What a card of a ``cards`` table is, its id and any added key aside (TRACE.md "Names").
CARD_KEYS = ("type", "kind", "elements", "element", "value", "sognae_value", "incubi_value",
             "polarity")


def cards_of_named_set(trace: dict, expansions: list[str],
                       card_set: CardSet | None = None) -> bool | None:
    """Whether the trace's ``cards`` table holds the cards of the set it names.

    Without ``card_set``, for the one set the replayer holds: the shipped R14 set, named by
    ``card_set`` or by the ``card_set_sha256`` a trace of this package carries; None for any
    other set. A changed copy of the shipped file is never named ``R14-default``
    (cards.loader), so a trace that names it with other cards, in any order or numbering,
    was edited. With ``card_set`` (a card file the auditor holds), every trace is checked
    against it: False for a trace naming another set or hash."""
    known = _shipped_set() if card_set is None else card_set
    digest = trace.get("card_set_sha256")
    if card_set is None and trace.get("card_set") != known.name and digest != known.digest:
        return None
    if trace.get("card_set") != known.name or (digest is not None and digest != known.digest):
        return False  # another set's name, or this name on another set's digest
    return cards_alike(trace, expansions, known)


def cards_alike(trace: dict, expansions: list[str], card_set: CardSet) -> bool:
    """Whether the trace's ``cards`` table holds the cards ``card_set`` puts in play with
    ``expansions``, in any order or numbering, whatever set the trace names: a trace of a
    renamed copy of a card file holds its cards under another set's name and hash."""
    try:
        expected = card_set.with_expansions(expansion_mask(expansions)).describe()
    except CardSetError:  # a set without cards for an expansion the trace plays
        return False
    return _card_multiset(expected) == _card_multiset(trace["cards"])


@functools.lru_cache(maxsize=1)
def _shipped_set() -> CardSet:
    return default_card_set()


def _card_multiset(cards: list) -> Counter:
    """The cards of a table as a multiset of what each is (ids and added keys aside)."""
    def what(card: dict) -> str:
        known = {key: card[key] for key in CARD_KEYS if key in card}
        if isinstance(known.get("elements"), list):
            known["elements"] = sorted(map(str, known["elements"]))
        return json.dumps(known, sort_keys=True, default=str)

    return Counter(what(card) for card in cards if isinstance(card, dict))
