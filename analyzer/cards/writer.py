"""Write a card set back out as a card-set file (TOML), the inverse of ``loader``.

A results file keeps the cards it was played with (``card_set_table``), but not the file
they came from: this writes a file that loads into the very same cards, ids and hash, so a
run can be played again, or its cards edited, from the results alone.
"""

from __future__ import annotations

import json
from pathlib import PureWindowsPath

import numpy as np

from analyzer.cards.loader import CardSet, CardSetError, parse_card_set
from analyzer.core.codes import (
    BOOK_NAMES,
    ELEMENTS,
    POSTCARD_NAMES,
    CardField,
    CardType,
    Expansion,
)

#: The value written for a kind of Chaos of which a set holds none: the loader asks for
#: one, and with no card it changes neither the cards nor the hash.
UNUSED_VALUE = 1


def card_file_text(card_set: CardSet) -> str:
    """A card-set file of ``card_set``'s cards, every expansion's, that loads into the
    same cards in the same order under the same name: the same hash.

    Raises
    ------
    CardSetError
        When no card file describes the cards so (a set built by hand, not from a file).
    """
    rows = card_set.cards
    owner = card_set.owner
    available = card_set.available_expansions()
    lines = [f"# The cards of card set {_comment(card_set.name)} (sha256 "
             f"{card_set.digest[:12]}), as {_comment(_source_name(card_set.source))} kept "
             "them.",
             "# Loaded as it is, this file plays the same games; an edited copy wants a name "
             "of its own.",
             "# The shipped template (urbion cards --template FILE.toml) explains every key.",
             f"name = {_string(card_set.name)}"]
    if card_set.description:
        lines.append(f"description = {_string(card_set.description)}")
    lines += ["", "[cities]", "base = " + _list([_element_names(rows[i, CardField.ELEMENTS])
                                                 for i in _ids(rows, owner, CardType.CITY, 0)])]
    if available & Expansion.SQUARES_METAS:
        squares = _ids(rows, owner, CardType.CITY, Expansion.SQUARES_METAS)
        lines.append(f"square = {len(squares)}")
    if available & Expansion.TEMPLES_HARMONY:
        temples = _ids(rows, owner, CardType.CITY, Expansion.TEMPLES_HARMONY)
        lines.append("temple = " + _list([_element_names(rows[i, CardField.ELEMENTS])[0]
                                          for i in temples]))
    if available & Expansion.GARDENS_WIZARDS:
        gardens = _ids(rows, owner, CardType.CITY, Expansion.GARDENS_WIZARDS)
        lines.append(f"garden = {len(gardens)}")
    lines += _base_dreams(rows, owner)
    lines += _expansion_dreams(rows, owner, available)
    lines += _other_cards(rows, owner, available)
    text = "\n".join(lines) + "\n"
    _check_round_trip(text, card_set)
    return text


def _base_dreams(rows: np.ndarray, owner: np.ndarray) -> list[str]:
    """The [dreams.sognae], [dreams.incubi] and [dreams.chaos] tables."""
    lines = []
    for key, ctype in (("sognae", CardType.SOGNAE), ("incubi", CardType.INCUBI)):
        lines += ["", f"[dreams.{key}]"]
        lines += _by_element(rows, _ids(rows, owner, ctype, 0),
                             lambda i: int(rows[i, CardField.VALUE]))
    chaos = _ids(rows, owner, CardType.CHAOS, 0)
    lines += ["", "[dreams.chaos]", f"count = {len(chaos)}",
              f"value = {_shared_value(rows, chaos, 'Chaos')}"]
    return lines


def _expansion_dreams(rows: np.ndarray, owner: np.ndarray, available: int) -> list[str]:
    """The tables of the Chromatic Chaos, Metas, Harmony and Wizards, for the expansions
    the set holds cards of."""
    lines = []

    def two_sided(i: int) -> list[int]:
        return [int(rows[i, CardField.VALUE]), int(rows[i, CardField.VALUE2])]

    if available & Expansion.CHROMATIC_CHAOS:
        chromatic = _ids(rows, owner, CardType.CHROMATIC, Expansion.CHROMATIC_CHAOS)
        lines += ["", "[dreams.chromatic]", f"count = {len(chromatic)}",
                  f"value = {_shared_value(rows, chromatic, 'Chromatic Chaos')}"]
    if available & Expansion.SQUARES_METAS:
        lines += ["", "[dreams.meta]"]
        lines += _by_element(rows, _ids(rows, owner, CardType.META, Expansion.SQUARES_METAS),
                             two_sided)
    if available & Expansion.TEMPLES_HARMONY:
        harmony = _ids(rows, owner, CardType.HARMONY, Expansion.TEMPLES_HARMONY)
        lines += ["", "[dreams.harmony]", "values = " + _list([two_sided(i) for i in harmony])]
    if available & Expansion.GARDENS_WIZARDS:
        lines += ["", "[dreams.wizard]"]
        lines += _by_element(rows, _ids(rows, owner, CardType.WIZARD, Expansion.GARDENS_WIZARDS),
                             lambda i: int(rows[i, CardField.VALUE]))
    return lines


def _other_cards(rows: np.ndarray, owner: np.ndarray, available: int) -> list[str]:
    """The [books], [postcards] and [emptiness] tables, for the expansions the set holds
    cards of."""
    lines = []
    if available & Expansion.BOOKS:
        books = _ids(rows, owner, CardType.BOOK, Expansion.BOOKS)
        lines += ["", "[books]", "cards = " + _list([BOOK_NAMES[rows[i, CardField.KIND]]
                                                     for i in books])]
    if available & Expansion.POSTCARDS:
        kinds = rows[_ids(rows, owner, CardType.POSTCARD, Expansion.POSTCARDS), CardField.KIND]
        lines += ["", "[postcards]"]
        lines += [f"{name} = {int((kinds == kind).sum())}"
                  for kind, name in enumerate(POSTCARD_NAMES)]
    if available & Expansion.EMPTINESS:
        emptiness = _ids(rows, owner, CardType.EMPTINESS, Expansion.EMPTINESS)
        lines += ["", "[emptiness]", f"cards = {len(emptiness)}"]
    return lines


def _ids(rows: np.ndarray, owner: np.ndarray, ctype: int, expansion: int) -> np.ndarray:
    """Ids of the cards of type ``ctype`` that ``expansion`` (0: the base game) owns, in id
    order: the order the loader gives them."""
    return np.flatnonzero((rows[:, CardField.TYPE] == ctype) & (owner == expansion))


def _by_element(rows: np.ndarray, ids: np.ndarray, entry) -> list[str]:
    """One ``element = [...]`` line per element, of ``entry(i)`` for each card ``i`` of
    ``ids`` showing that element."""
    elements = rows[ids, CardField.ELEMENTS]
    return [f"{element} = " + _list([entry(i) for i in ids[elements == 1 << bit]])
            for bit, element in enumerate(ELEMENTS)]


def _shared_value(rows: np.ndarray, ids: np.ndarray, what: str) -> int:
    """The one value every card of ``ids`` has (a card file gives Chaos a single value)."""
    values = set(rows[ids, CardField.VALUE].tolist())
    if len(values) > 1:
        raise CardSetError(f"its {what} have several values ({sorted(values)}), which no "
                           "card file describes")
    return values.pop() if values else UNUSED_VALUE


def _element_names(mask: int) -> list[str]:
    return [element for bit, element in enumerate(ELEMENTS) if int(mask) >> bit & 1]


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters (DEL among them,
    which JSON leaves as it is) escaped as ``\\uXXXX``."""
    escaped = "".join(f"\\u{ord(ch):04x}" if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in '"\\'
                      else ch for ch in text)
    return f'"{escaped}"'


def _source_name(source: str) -> str:
    """Where the cards came from, by the file's name alone: the file is made to be passed
    on, and its folders would name the author's machine; bytes of the name that are no
    UTF-8 (a Latin-1 name) as U+FFFD, which the UTF-8 file can hold."""
    name = source if source.startswith("builtin:") else PureWindowsPath(source).name or source
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _comment(text: str) -> str:
    """``text`` on one comment line: any line break or control character as a space."""
    return "".join(" " if ord(ch) < 0x20 or ord(ch) == 0x7F else ch for ch in text)


def _list(items: list) -> str:
    return "[" + ", ".join(_string(item) if isinstance(item, str) else json.dumps(item)
                           for item in items) + "]"


def _check_round_trip(text: str, card_set: CardSet) -> None:
    """Refuse a text that would not load into ``card_set``'s very cards."""
    try:
        written = parse_card_set(text, card_set.source)
    except CardSetError:  # the written keys are not the user's: name the set, not a key
        written = None
    if written is None or written.digest != card_set.digest or not (
            np.array_equal(written.cards, card_set.cards) and
            np.array_equal(written.owner, card_set.owner)):
        raise CardSetError(f"card set {card_set.name!r} has cards in an order or of kinds "
                           "that no card file describes")
