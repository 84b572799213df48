"""Load and validate a card-set TOML file into the card table the engines use.

Card ids are assigned in a fixed order: base cities in file order, then Sognae, Incubi
(each by element in ``ELEMENTS`` order, values in file order), then Chaos; then the
expansions' cards: City Squares, Temples, Hanging Gardens, Chromatic Chaos, Metas (by
element), Harmony, Wizards (by element), Books, Postcards (by kind), Emptiness cards. The
base game's ids therefore do not depend on which expansions a file describes.

A card set holds every card of the file; :meth:`CardSet.with_expansions` picks the cards in
play for an expansion set (the decks the engines shuffle, the ``cards`` table of a trace).
"""

from __future__ import annotations

import base64
import binascii
import difflib
import hashlib
import json
import tomllib
import unicodedata
import zlib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

import numpy as np

from analyzer.core.codes import (
    ALL_EXPANSIONS,
    BOOK_NAMES,
    ELEMENTS,
    EXPANSION_NAMES,
    N_CARD_FIELDS,
    PLAYABLE_EXPANSIONS,
    POSTCARD_NAMES,
    TEAM_VARIANT,
    VARIANT_NAMES,
    CardField,
    CardType,
    CityKind,
    Expansion,
)
from analyzer.errors import UrbionError
from analyzer.textfiles import UnreadableText, read_small_text
from analyzer.wording import BIDI_CONTROLS, shown_as_written

DEFAULT_CARD_FILE = "r14-default.toml"
MAX_VALUE = 9
#: The most Chaos a card file may hold.
MAX_CHAOS = 64
MAX_CARDS = 400
#: Books of Prophecies a card set may hold: the rulebook's two (R09.7: each looks at 2 more
#: Dream cards, and the engine lists every order of the cards looked at as an option).
MAX_PROPHECIES = 2


class CardSetError(UrbionError):
    """A card-set file that cannot be read or does not describe a playable set."""


@dataclass(frozen=True)
class CardSet:
    """A validated card set.

    Attributes
    ----------
    name : str
        The set's ``name`` key.
    digest : str
        SHA-256 of the card table and name (comments and layout of the file do not count).
    cards : numpy.ndarray
        int64, shape (n_cards, N_CARD_FIELDS); columns per ``CardField``.
    city_ids, dream_ids : numpy.ndarray
        int64 ids of the City cards and of the Dream cards in play, in id order.
    other_ids : numpy.ndarray
        int64 ids of the other cards in play (Books, Postcards, Emptiness cards).
    owner : numpy.ndarray
        int64 (n_cards,): the ``Expansion`` bit each card belongs to, 0 for the base game.
    expansions : int
        The expansion set in play (``Expansion`` bits); ``city_ids`` and ``dream_ids``
        hold the base game's cards and those of these expansions.
    description : str
        The set's ``description`` key, for the reader: it counts in no hash.
    """

    name: str
    digest: str
    source: str
    cards: np.ndarray = field(repr=False)
    city_ids: np.ndarray = field(repr=False)
    dream_ids: np.ndarray = field(repr=False)
    owner: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    expansions: int = 0
    other_ids: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))
    description: str = field(repr=False, default="")
    variant: str = "solo"

    def __repr__(self) -> str:  # the expansions by name: their bits mean nothing to a reader
        return (f"CardSet(name={self.name!r}, sha256={self.digest[:12]!r}, "
                f"expansions={self.expansion_names()}, variant={self.variant!r}, "
                f"cards={len(self.cards)}, source={self.source!r})")

    @property
    def rules(self) -> int:
        """The rules word of the kernels: the expansion bits, plus ``TEAM_VARIANT``."""
        return self.expansions | (TEAM_VARIANT if self.variant == "team" else 0)

    def with_variant(self, variant: str) -> CardSet:
        """The same cards played as ``variant`` (solo or team, R10).

        Raises
        ------
        UrbionError
            For an unknown variant (the card set is not at fault).
        """
        name = variant.lower() if isinstance(variant, str) else variant  # any case, as --variant
        if name not in VARIANT_NAMES:
            raise UrbionError(f"--variant (variant=): unknown variant {variant!r} (valid: "
                              f"{', '.join(VARIANT_NAMES)})")
        return replace(self, variant=name)

    def describe(self) -> list[dict]:
        """The ``cards`` table of a trace (TRACE.md): one dict per card in play."""
        ids = sorted(int(i) for i in np.concatenate([self.city_ids, self.dream_ids,
                                                      self.other_ids]))
        return [describe_card(i, self.cards[i]) for i in ids]

    def checked(self) -> CardSet:
        """This set, when its cards are still those its name and hash stand for and the
        cards in play are those of its expansions: an array changed in place, or a copy
        made with ``dataclasses.replace``, would be played under the name and hash of cards
        it does not hold.

        Raises
        ------
        CardSetError
            Saying what was changed and how to change cards instead (a card file).
        """
        change = "change cards in a card file (analyzer.write_card_template writes one to " \
            "edit) and load that with analyzer.load_cards"
        if not self._plain_arrays():
            raise CardSetError(f"card set {self.name!r} was changed after it was loaded: its "
                               "card tables are no longer the int64 numpy arrays, in C order, "
                               f"that the engine plays; {change}")
        if set_digest(self.name, self.cards, self.owner) != self.digest:
            raise CardSetError(
                f"card set {self.name!r} was changed after it was loaded: its name and cards "
                f"no longer hash to its sha256 {self.digest[:12]}, which its results would "
                f"name; {change}")
        expansions = self.expansions
        if isinstance(expansions, np.integer):  # ~ of an unsigned one does not fit it
            expansions = int(expansions)
        known = isinstance(expansions, int) and not isinstance(expansions, bool) \
            and 0 <= expansions and not expansions & ~self.available_expansions()
        if not known or not all(
                np.array_equal(getattr(self, ids), getattr(self.with_expansions(expansions), ids))
                for ids in ("city_ids", "dream_ids", "other_ids")):
            named = (", ".join(self.expansion_names()) or "none") if known else \
                repr(expansions)
            raise CardSetError(
                f"card set {self.name!r} plays cards other than those of its expansions "
                f"({named}): choose expansions with analyzer.load_cards(card_set, "
                "expansions=...) or card_set.with_expansions(...)")
        if self.variant not in VARIANT_NAMES:
            raise CardSetError(
                f"card set {self.name!r} is to be played as {self.variant!r}, which is no "
                f"variant ({', '.join(VARIANT_NAMES)}): choose it with "
                "analyzer.load_cards(card_set, variant=...) or card_set.with_variant(...)")
        return self

    def _plain_arrays(self) -> bool:
        """Whether the set's tables are what the kernels take: int64 numpy arrays in C
        order, the cards (n_cards, N_CARD_FIELDS), the rest one-dimensional."""
        arrays = (self.cards, self.owner, self.city_ids, self.dream_ids, self.other_ids)
        if not all(isinstance(a, np.ndarray) and a.dtype == np.int64 and
                   a.flags.c_contiguous for a in arrays):
            return False
        return self.cards.ndim == 2 and self.cards.shape[1] == N_CARD_FIELDS and \
            self.owner.shape == self.cards.shape[:1] and all(a.ndim == 1 for a in arrays[1:])

    def expansion_names(self) -> list[str]:
        """The expansions in play, by name, in TRACE.md order."""
        return expansion_names(self.expansions)

    def available_expansions(self) -> int:
        """Bits of the expansions whose cards this set holds."""
        mask = 0
        for bit in self.owner:
            mask |= int(bit)
        return mask

    def with_expansions(self, expansions: int | str | list[str] | tuple[str, ...]) -> CardSet:
        """The same cards with ``expansions`` in play: ``Expansion`` bits, or names as
        :func:`parse_expansions` reads them (``"chromatic_chaos,books"``, a list, ``"all"``,
        ``"none"``).

        Raises
        ------
        CardSetError
            When the set holds no cards of a requested expansion, or a name is unknown.
        """
        if isinstance(expansions, np.integer):
            expansions = int(expansions)
        if isinstance(expansions, bool) or not (
                isinstance(expansions, int | str) or isinstance(expansions, list | tuple) and
                all(isinstance(name, str) for name in expansions)):
            raise CardSetError(f"expansions must be names or Expansion bits, not "
                               f"{expansions!r}")
        if isinstance(expansions, int):
            if expansions < 0 or expansions & ~ALL_EXPANSIONS:
                raise CardSetError(f"expansions {expansions} names no expansion set (its "
                                   f"bits: 0 to {ALL_EXPANSIONS})")
        else:
            expansions = parse_expansions(expansions)
        missing = expansions & ~self.available_expansions()
        if missing:
            name = expansion_names(missing)[0]
            raise CardSetError(f"card set {self.name!r} ({self.source}) has no cards for "
                               f"expansion {name}: its file needs "
                               f"{' and '.join(EXPANSION_KEYS[name])}, with at least "
                               "one card")
        in_play = (self.owner == 0) | ((self.owner & expansions) != 0)
        ctype = self.cards[:, CardField.TYPE]
        is_city = ctype == CardType.CITY
        is_other = ctype >= CardType.BOOK
        ids = np.arange(len(self.cards), dtype=np.int64)
        return replace(self, expansions=expansions, city_ids=ids[in_play & is_city],
                       dream_ids=ids[in_play & ~is_city & ~is_other],
                       other_ids=ids[in_play & is_other])


def set_digest(name: str, cards: np.ndarray, owner: np.ndarray) -> str:
    """A card set's ``digest``: SHA-256 of its name and card table (int64 ``cards``
    (n_cards, N_CARD_FIELDS) and ``owner`` (n_cards,))."""
    return hashlib.sha256(name.encode() + np.ascontiguousarray(cards).tobytes() +
                          np.ascontiguousarray(owner).tobytes()).hexdigest()


def _sorted_rows(card_set: CardSet) -> np.ndarray:
    """Each card with its expansion, in one order whatever the file's."""
    table = np.column_stack([card_set.owner, card_set.cards])
    return table[np.lexsort(table.T[::-1])]


def same_cards(one: CardSet, other: CardSet) -> bool:
    """True when two card sets hold the same cards (each with its expansion), in whatever
    order their files list them: the names, which the digests include, do not count."""
    return one.cards.shape == other.cards.shape and \
        np.array_equal(_sorted_rows(one), _sorted_rows(other))


def cards_digest(card_set: CardSet) -> str:
    """SHA-256 of the cards alone, whatever the set's name and the order of its file: two
    sets of :func:`same_cards` share it."""
    rows = np.ascontiguousarray(_sorted_rows(card_set), dtype=np.int64)
    return hashlib.sha256(str(rows.shape).encode() + rows.tobytes()).hexdigest()


def play_digest(card_set: CardSet, ordered: bool) -> str:
    """SHA-256 of the cards in play (the base game's and those of ``card_set``'s
    expansions), each with its expansion; its name and the cards out of play do not count.
    ``ordered``: in the order of the file, which with a seed decides the deals (two sets of
    one such digest deal the same games); else in one order whatever the file's (the same
    cards are played)."""
    ids = np.sort(np.concatenate([card_set.city_ids, card_set.dream_ids,
                                  card_set.other_ids]))
    rows = np.column_stack([card_set.owner[ids], card_set.cards[ids]])
    if not ordered:
        rows = rows[np.lexsort(rows.T[::-1])]
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return hashlib.sha256(str(rows.shape).encode() + rows.tobytes()).hexdigest()


def packed_table(card_set: CardSet) -> dict:
    """The cards of ``card_set``, every expansion's, packed for a results file's metadata
    (compressed, base64): a report can show them when the card file has changed since.
    :func:`unpacked_table` reads it back."""
    def pack(array: np.ndarray) -> str:
        return base64.b64encode(zlib.compress(np.ascontiguousarray(
            array, dtype=np.int64).tobytes())).decode("ascii")

    return {"rows": int(card_set.cards.shape[0]), "fields": int(card_set.cards.shape[1]),
            "cards": pack(card_set.cards), "owner": pack(card_set.owner),
            "description": card_set.description}


def unpacked_table(packed: object, name: str, digest: str, source: str) -> CardSet | None:
    """The card set a :func:`packed_table` holds, when it is whole and its cards hash to
    ``digest`` (as the card set's own hash is taken); None otherwise."""
    try:
        rows, fields = int(packed["rows"]), int(packed["fields"])  # type: ignore[index]

        def unpack(text: object, shape: tuple[int, ...]) -> np.ndarray:
            raw = zlib.decompress(base64.b64decode(str(text), validate=True))
            return np.frombuffer(raw, dtype=np.int64).reshape(shape).copy()

        cards = unpack(packed["cards"], (rows, fields))  # type: ignore[index]
        owner = unpack(packed["owner"], (rows,))  # type: ignore[index]
        description = str(packed.get("description", ""))  # type: ignore[union-attr]
    except (KeyError, TypeError, ValueError, AttributeError, zlib.error, binascii.Error):
        return None
    if set_digest(name, cards, owner) != digest:
        return None
    return CardSet(name, digest, source, cards, np.zeros(0, np.int64), np.zeros(0, np.int64),
                   owner, description=description).with_expansions(0)


def expansion_names(mask: int) -> list[str]:
    """Names of the ``Expansion`` bits set in ``mask``, in bit order."""
    return [name for bit, name in enumerate(EXPANSION_NAMES) if mask >> bit & 1]


def did_you_mean(name: str, among: tuple[str, ...] = PLAYABLE_EXPANSIONS) -> str:
    """"did you mean 'postcards'? " for a name one slip away from one of ``among`` (the
    expansions' names), else ""."""
    close = difflib.get_close_matches(name, among, n=1, cutoff=0.8)
    return f"did you mean {close[0]!r}? " if close else ""


def parse_expansions(text: str | list[str] | tuple[str, ...] | None) -> int:
    """An expansion set from names: ``"a,b"``, a list of names, ``"all"`` or ``"none"``
    (or ``"base"``, as ``compare --sets`` names the base game).

    Raises
    ------
    CardSetError
        Naming an unknown expansion and listing the valid names, an empty name, or a name
        listed twice.
    """
    if text is None:
        return 0
    names = text.split(",") if isinstance(text, str) else list(text)
    if any(not n.strip() for n in names):
        # an empty shell variable, or a stray comma, would otherwise quietly drop a name
        raise CardSetError(f"an empty expansion name in {text!r} (the base game alone is "
                           "'none')")
    names = [n.strip().lower() for n in names]
    if names in (["none"], ["base"], []):
        return 0
    if names == ["all"]:
        names = list(PLAYABLE_EXPANSIONS)
    mask = 0
    valid = ", ".join([*PLAYABLE_EXPANSIONS, "all", "none (or base)"])
    for name in names:
        if name in ("all", "none", "base"):
            raise CardSetError(f"{name!r} stands alone: it cannot be listed with expansion "
                               "names")
        if name not in PLAYABLE_EXPANSIONS:
            raise CardSetError(f"unknown expansion {name!r} ({did_you_mean(name)}valid: "
                               f"{valid})")
        if names.count(name) > 1:  # a slip for another name, most likely
            raise CardSetError(f"expansion {name!r} is listed twice")
        mask |= getattr(Expansion, name.upper())
    return mask


def describe_card(card_id: int, row: np.ndarray) -> dict:
    """One card as a trace ``cards`` entry (TRACE.md, "Names")."""
    ctype = int(row[CardField.TYPE])
    elements = [e for bit, e in enumerate(ELEMENTS) if int(row[CardField.ELEMENTS]) >> bit & 1]
    value = int(row[CardField.VALUE])
    if ctype == CardType.CITY:
        kind = CityKind._fields[int(row[CardField.KIND])].lower()
        return {"id": card_id, "type": "city", "kind": kind, "elements": elements}
    if ctype in (CardType.CHAOS, CardType.CHROMATIC):
        return {"id": card_id, "type": CardType._fields[ctype].lower(), "value": value}
    if ctype in (CardType.META, CardType.HARMONY):
        card = {"id": card_id, "type": CardType._fields[ctype].lower()}
        if ctype == CardType.META:
            card["element"] = elements[0]
        card.update(sognae_value=value, incubi_value=int(row[CardField.VALUE2]))
        return card
    if ctype == CardType.BOOK:
        return {"id": card_id, "type": "book", "kind": BOOK_NAMES[int(row[CardField.KIND])]}
    if ctype == CardType.POSTCARD:
        return {"id": card_id, "type": "postcard",
                "kind": POSTCARD_NAMES[int(row[CardField.KIND])]}
    if ctype == CardType.EMPTINESS:
        return {"id": card_id, "type": "emptiness"}
    if ctype == CardType.WIZARD:
        return {"id": card_id, "type": "wizard", "polarity": "sognae" if value > 0 else "incubi",
                "element": elements[0], "value": value}
    name = CardType._fields[ctype].lower()
    return {"id": card_id, "type": name, "element": elements[0], "value": value}


def _element_mask(names: object, where: str) -> int:
    if not isinstance(names, list) or not names:
        raise CardSetError(f"{where}: expected a non-empty list of element names")
    mask = 0
    for name in names:
        if name not in ELEMENTS:
            raise CardSetError(f"{where}: unknown element {name!r} (valid: {', '.join(ELEMENTS)})")
        bit = 1 << ELEMENTS.index(name)
        if mask & bit:
            raise CardSetError(f"{where}: element {name!r} listed twice")
        mask |= bit
    return mask


def _card(ctype: int, elements: int = 0, value: int = 0, kind: int = 0,
          value2: int = 0) -> list[int]:
    row = [0] * N_CARD_FIELDS
    row[CardField.TYPE] = ctype
    row[CardField.ELEMENTS] = elements
    row[CardField.VALUE] = value
    row[CardField.VALUE2] = value2
    row[CardField.KIND] = kind
    return row


#: The longest value an error message quotes in full.
QUOTED_LENGTH = 60


def toml_text(value: object) -> str:
    """A value of a card file as TOML writes it, for an error message: ``true``, not
    Python's ``True``; a string in double quotes; cut short past ``QUOTED_LENGTH``."""
    text = _toml_text(value, QUOTED_LENGTH + 1)
    return text if len(text) <= QUOTED_LENGTH else text[:QUOTED_LENGTH] + "..."


def _toml_text(value: object, room: int) -> str:
    """``toml_text`` of ``value``, whole up to ``room`` characters (a list stops there)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # JSON escapes controls, not a right-to-left override
        return shown_as_written(json.dumps(value, ensure_ascii=False))
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        text = "["
        for i, item in enumerate(value):
            if len(text) > room:
                return text
            text += (", " if i else "") + _toml_text(item, room - len(text))
        return text + "]"
    return repr(value)


def _int_in(value: object, lo: int, hi: int, where: str) -> int:
    if value is None:
        raise CardSetError(f"{where}: missing (a whole number from {lo} to {hi})")
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise CardSetError(f"{where}: {toml_text(value)} is not a whole number from {lo} to "
                           f"{hi}")
    return value


def dream_value(value: object, negative: bool, where: str) -> int:
    """A Dream card's value within a card file's limits: 1 to ``MAX_VALUE``, or
    ``-MAX_VALUE`` to -1 for an Incubi value (an Incubi, the Incubi side of a Meta or
    Harmony, an Incubi Wizard). The replayer holds a trace's cards to the same limits.

    Raises
    ------
    CardSetError
        Naming ``where``, the value and the limits.
    """
    if negative:
        return _int_in(value, -MAX_VALUE, -1, where)
    return _int_in(value, 1, MAX_VALUE, where)


def _table(data: dict, key: str, where: str) -> dict:
    value = data.get(key)
    if key in data and not isinstance(value, dict):
        raise CardSetError(f"{where}{key}: expected a table [{where}{key}], not "
                           f"{toml_text(value)}")
    if not isinstance(value, dict):
        raise CardSetError(f"{where}{key}: missing table [{where}{key}]")
    return value


def _require(table: dict, key: str, where: str, hint: str) -> object:
    """``table[key]``, or an error naming the key: a card file states every count, so that
    a deleted line is not read as "none of these cards"."""
    if key not in table:
        raise CardSetError(f"{where}{key}: missing ({hint})")
    return table[key]


#: The keys that carry each expansion's cards: a file gives all of them or none.
EXPANSION_KEYS = {
    "squares_metas": ("cities.square", "dreams.meta"),
    "chromatic_chaos": ("dreams.chromatic",),
    "temples_harmony": ("cities.temple", "dreams.harmony"),
    "gardens_wizards": ("cities.garden", "dreams.wizard"),
    "books": ("books",),
    "postcards": ("postcards",),
    "emptiness": ("emptiness",),
}


def _has_key(data: dict, dotted: str) -> bool:
    table: object = data
    for part in dotted.split("."):
        if not isinstance(table, dict) or part not in table:
            return False
        table = table[part]
    return True


def _check_expansion_keys(data: dict) -> None:
    """An expansion's cards are described whole or not at all (its keys in
    ``EXPANSION_KEYS``)."""
    for expansion, keys in EXPANSION_KEYS.items():
        present = [k for k in keys if _has_key(data, k)]
        if present and len(present) < len(keys):
            missing = next(k for k in keys if k not in present)
            raise CardSetError(f"{missing}: missing (expansion {expansion} needs "
                               f"{' and '.join(keys)}, or none of them)")


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        expected = ", ".join(sorted(allowed))
        raise CardSetError(f"{where}: unknown key {unknown[0]!r} (expected one of {expected})")


ALL_ELEMENTS = (1 << len(ELEMENTS)) - 1


def _cities(data: dict) -> list[list[int]]:
    cities = _table(data, "cities", "")
    _check_keys(cities, {"base", "square", "temple", "garden"}, "cities")
    base = cities.get("base")
    if not isinstance(base, list) or not 1 <= len(base) <= 64:
        raise CardSetError("cities.base: expected a list of 1 to 64 cities")
    return [_card(CardType.CITY, _element_mask(e, f"cities.base[{i}]"), kind=CityKind.BASE)
            for i, e in enumerate(base)]


def _expansion_cities(cities: dict) -> list[tuple[int, list[int]]]:
    """(owner, card) of the City Squares (all elements), Temples (one element each) and
    Hanging Gardens (none); a key is absent with its expansion (``EXPANSION_KEYS``)."""
    rows = []
    squares = _int_in(cities.get("square", 0), 0, 16, "cities.square")
    rows += [(Expansion.SQUARES_METAS, _card(CardType.CITY, ALL_ELEMENTS, kind=CityKind.SQUARE))
             for _ in range(squares)]
    temples = cities.get("temple", [])
    if not isinstance(temples, list) or len(temples) > 16:
        raise CardSetError("cities.temple: expected a list of up to 16 element names")
    for i, element in enumerate(temples):
        mask = _element_mask([element], f"cities.temple[{i}]")
        rows.append((Expansion.TEMPLES_HARMONY, _card(CardType.CITY, mask, kind=CityKind.TEMPLE)))
    gardens = _int_in(cities.get("garden", 0), 0, 16, "cities.garden")
    rows += [(Expansion.GARDENS_WIZARDS, _card(CardType.CITY, 0, kind=CityKind.GARDEN))
             for _ in range(gardens)]
    return rows


def _two_sided(value: object, where: str) -> tuple[int, int]:
    """A Meta's or Harmony's [Sognae value, Incubi value]."""
    if not isinstance(value, list) or len(value) != 2:
        raise CardSetError(f"{where}: expected [Sognae value, Incubi value]")
    return (dream_value(value[0], False, f"{where}[0]"),
            dream_value(value[1], True, f"{where}[1]"))


def _expansion_dreams(dreams: dict) -> list[tuple[int, list[int]]]:
    """(owner, card) of the Chromatic Chaos, Metas, Harmony and Wizards, each optional."""
    rows = []
    if "chromatic" in dreams:
        table = _table(dreams, "chromatic", "dreams.")
        _check_keys(table, {"count", "value"}, "dreams.chromatic")
        count = _int_in(table.get("count"), 0, 64, "dreams.chromatic.count")
        value = dream_value(table.get("value"), False, "dreams.chromatic.value")
        rows += [(Expansion.CHROMATIC_CHAOS, _card(CardType.CHROMATIC, 0, value))
                 for _ in range(count)]
    if "meta" in dreams:
        for bit, where, pair in _per_element(dreams, "meta"):
            sv, iv = _two_sided(pair, where)
            rows.append((Expansion.SQUARES_METAS, _card(CardType.META, 1 << bit, sv, value2=iv)))
    if "harmony" in dreams:
        table = _table(dreams, "harmony", "dreams.")
        _check_keys(table, {"values"}, "dreams.harmony")
        values = _require(table, "values", "dreams.harmony.", "a list of [Sognae, Incubi]")
        if not isinstance(values, list):
            raise CardSetError("dreams.harmony.values: expected a list of [Sognae, Incubi]")
        for i, pair in enumerate(values):
            sv, iv = _two_sided(pair, f"dreams.harmony.values[{i}]")
            rows.append((Expansion.TEMPLES_HARMONY,
                         _card(CardType.HARMONY, ALL_ELEMENTS, sv, value2=iv)))
    if "wizard" in dreams:
        for bit, where, value in _per_element(dreams, "wizard"):
            v = _int_in(value, -MAX_VALUE, MAX_VALUE, where)
            if v == 0:
                raise CardSetError(f"{where}: a Wizard's value cannot be 0")
            rows.append((Expansion.GARDENS_WIZARDS, _card(CardType.WIZARD, 1 << bit, v)))
    return rows


def _other_cards(data: dict) -> list[tuple[int, list[int]]]:
    """(owner, card) of the Books, Postcards and Emptiness cards, each section optional."""
    rows = []
    if "books" in data:
        table = _table(data, "books", "")
        _check_keys(table, {"cards"}, "books")
        names = _require(table, "cards", "books.", "a list of Book names")
        if not isinstance(names, list) or len(names) > 16:
            raise CardSetError("books.cards: expected a list of up to 16 Book names")
        for i, name in enumerate(names):
            if name not in BOOK_NAMES:
                raise CardSetError(f"books.cards[{i}]: unknown Book {name!r} "
                                   f"(valid: {', '.join(BOOK_NAMES)})")
            rows.append((Expansion.BOOKS, _card(CardType.BOOK, kind=BOOK_NAMES.index(name))))
        if names.count("prophecies") > MAX_PROPHECIES:
            raise CardSetError(f"books.cards: at most {MAX_PROPHECIES} Books of Prophecies "
                               f"(the rulebook prints two, whose looks add up), not "
                               f"{names.count('prophecies')}")
    if "postcards" in data:
        table = _table(data, "postcards", "")
        _check_keys(table, set(POSTCARD_NAMES), "postcards")
        for kind, name in enumerate(POSTCARD_NAMES):
            count = _int_in(table.get(name), 0, 16, f"postcards.{name}")
            rows += [(Expansion.POSTCARDS, _card(CardType.POSTCARD, kind=kind))
                     for _ in range(count)]
    if "emptiness" in data:
        table = _table(data, "emptiness", "")
        _check_keys(table, {"cards"}, "emptiness")
        count = _int_in(table.get("cards"), 1, 16, "emptiness.cards")
        rows += [(Expansion.EMPTINESS, _card(CardType.EMPTINESS)) for _ in range(count)]
    return rows


def _per_element(dreams: dict, key: str) -> list[tuple[int, str, object]]:
    """(element bit, where, entry) of a table of lists keyed by element."""
    table = _table(dreams, key, "dreams.")
    _check_keys(table, set(ELEMENTS), f"dreams.{key}")
    out = []
    for bit, element in enumerate(ELEMENTS):
        values = _require(table, element, f"dreams.{key}.", "a list; [] for none")
        if not isinstance(values, list):
            raise CardSetError(f"dreams.{key}.{element}: expected a list")
        out += [(bit, f"dreams.{key}.{element}[{i}]", v) for i, v in enumerate(values)]
    return out


def _dreams_by_element(dreams: dict, key: str, ctype: int, negative: bool) -> list[list[int]]:
    table = _table(dreams, key, "dreams.")
    _check_keys(table, set(ELEMENTS), f"dreams.{key}")
    rows = []
    for bit, element in enumerate(ELEMENTS):
        values = _require(table, element, f"dreams.{key}.", "a list of values; [] for none")
        if not isinstance(values, list):
            raise CardSetError(f"dreams.{key}.{element}: expected a list of values")
        for i, v in enumerate(values):
            where = f"dreams.{key}.{element}[{i}]"
            rows.append(_card(ctype, 1 << bit, dream_value(v, negative, where)))
    if not rows:
        raise CardSetError(f"dreams.{key}: no cards")
    return rows


def _chaos(dreams: dict) -> list[list[int]]:
    table = _table(dreams, "chaos", "dreams.")
    _check_keys(table, {"count", "value"}, "dreams.chaos")
    count = _int_in(table.get("count"), 0, MAX_CHAOS, "dreams.chaos.count")
    value = dream_value(table.get("value"), False, "dreams.chaos.value")
    return [_card(CardType.CHAOS, 0, value) for _ in range(count)]


def parse_card_set(text: str, source: str) -> CardSet:
    """Validate TOML text and build the card table; raise CardSetError naming the bad key."""
    return card_set_from_data(_toml_data(text), source)


def _toml_data(text: str) -> dict:
    """Parsed TOML text; CardSetError when it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CardSetError(f"not valid TOML: {err}") from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise CardSetError("not a card file: nested too deeply") from None


def default_card_text() -> str:
    """The shipped R14 card-set file, as text."""
    return resources.files("analyzer.cards").joinpath(DEFAULT_CARD_FILE).read_text(
        encoding="utf-8")


def default_card_data() -> dict:
    """The R14 card-set file as data, for building variants of it."""
    text = default_card_text()
    return tomllib.loads(text)


def card_set_from_data(data: dict, source: str) -> CardSet:
    """Validate card-set data (a parsed card-set file) and build the card table."""
    if "weights" in data and "cities" not in data:
        raise CardSetError("this is a weights file (a [weights] table), not a card-set file: "
                           "it is played as --policy weighted:FILE (policy=\"weighted:FILE\" "
                           "in Python)")
    _check_keys(data, {"name", "description", "cities", "dreams", "books", "postcards",
                       "emptiness"}, "top level")
    name = _require(data, "name", "", "the card set's name")
    if not isinstance(name, str) or not name.strip():
        raise CardSetError(f"name: expected a non-empty string, not {toml_text(name)}")
    name = name.strip()  # spaces do not show in a result: " R14-default" is "R14-default"
    if any(unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in DIRECTION_MARKS or
           unicodedata.bidirectional(ch) in BIDI_CONTROLS for ch in name):
        # a line break or tab in a name would break every table and label it appears in;
        # a direction override would turn the rest of each line around it, and a mark
        # the text beside it
        raise CardSetError(f"name: no line breaks, tabs, text direction controls or other "
                           f"control characters, not {toml_text(name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise CardSetError(f"description: expected a string, not {toml_text(description)}")
    rows = _cities(data)
    dreams = _table(data, "dreams", "")
    _check_expansion_keys(data)
    _check_keys(dreams, {"sognae", "incubi", "chaos", "chromatic", "meta", "harmony",
                         "wizard"}, "dreams")
    rows += _dreams_by_element(dreams, "sognae", CardType.SOGNAE, False)
    rows += _dreams_by_element(dreams, "incubi", CardType.INCUBI, True)
    rows += _chaos(dreams)
    extra = _expansion_cities(data["cities"]) + _expansion_dreams(dreams) + _other_cards(data)
    owner = [0] * len(rows) + [bit for bit, _ in extra]
    rows += [card for _, card in extra]
    if len(rows) > MAX_CARDS:
        raise CardSetError(f"too many cards: {len(rows)} (at most {MAX_CARDS})")
    cards = np.array(rows, dtype=np.int64)
    owners = np.array(owner, dtype=np.int64)
    digest = set_digest(name, cards, owners)
    full = CardSet(name, digest, source, cards, np.zeros(0, np.int64), np.zeros(0, np.int64),
                   owners, description=description.strip())
    return full.with_expansions(0)


def load_card_set(path: str | Path) -> CardSet:
    """Read a card-set file; errors say which file and key is wrong."""
    return load_card_file(path)[0]


def load_card_file(path: str | Path) -> tuple[CardSet, dict]:
    """Read a card-set file into its validated set and its parsed data, to build variants
    of it (``analysis.sensitivity``).

    A changed copy of the shipped file that keeps its name is renamed ``NAME (edited)`` in
    both, so that it never passes for the shipped set in any result.

    Raises
    ------
    CardSetError
        Naming the file and the wrong key, as :func:`load_card_set`.
    """
    path = Path(path)
    try:
        # an editor's byte-order mark is no content of the file (TOML has none)
        text = read_small_text(path)
    except UnreadableText as err:
        why = f"{err} (a TOML file is)" if str(err) == "not UTF-8 text" else str(err)
        raise CardSetError(f"cannot read card-set file {path}: {why}") from None
    try:
        data = _toml_data(text)
        card_set = card_set_from_data(data, str(path))
        shipped = default_card_set()
        # "r14-default" too: a name that reads as the shipped set's, on other cards
        if name_as_read(card_set.name) == name_as_read(shipped.name) and not (
                np.array_equal(card_set.cards, shipped.cards) and
                np.array_equal(card_set.owner, shipped.owner)):
            data["name"] = f"{card_set.name} (edited)"
            card_set = card_set_from_data(data, str(path))
        return card_set, data
    except CardSetError as err:
        raise CardSetError(f"card-set file {path}: {err}") from None


#: The implicit direction marks (left-to-right, right-to-left, Arabic letter): invisible,
#: they reorder the text beside them.
DIRECTION_MARKS = frozenset("\u200e\u200f\u061c")


def name_as_read(name: str) -> str:
    """A card set's name as a reader tells it from another: in any letter case, without
    the characters that do not show (zero-width spaces and joiners, a soft hyphen, the
    combining grapheme joiner), compatibility forms as their plain letters and every dash
    as a hyphen-minus."""
    plain = unicodedata.normalize("NFKC", name)
    shown = "".join("-" if unicodedata.category(ch) == "Pd" else ch for ch in plain
                    if unicodedata.category(ch) != "Cf" and ch != "\u034f")
    return shown.casefold()


def default_card_set() -> CardSet:
    """The R14 assumption shipped with the package."""
    text = default_card_text()
    return parse_card_set(text, f"builtin:{DEFAULT_CARD_FILE}")
