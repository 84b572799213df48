"""Load and validate a card-set TOML file into the card table the engines use.

Card ids are assigned in a fixed order: base cities in file order, then Sognae, Incubi
(each by element in ``ELEMENTS`` order, values in file order), then Chaos.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from analyzer.core.codes import ELEMENTS, N_CARD_FIELDS, CardField, CardType, CityKind
from analyzer.errors import UrbionError

DEFAULT_CARD_FILE = "r14-default.toml"
MAX_VALUE = 9
MAX_CARDS = 400


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
        int64 ids of the City cards and of the Dream cards, in id order.
    """

    name: str
    digest: str
    source: str
    cards: np.ndarray = field(repr=False)
    city_ids: np.ndarray = field(repr=False)
    dream_ids: np.ndarray = field(repr=False)

    def describe(self) -> list[dict]:
        """The ``cards`` table of a trace (TRACE.md): one dict per card."""
        return [describe_card(i, row) for i, row in enumerate(self.cards)]


def describe_card(card_id: int, row: np.ndarray) -> dict:
    """One card as a trace ``cards`` entry."""
    ctype = int(row[CardField.TYPE])
    elements = [e for bit, e in enumerate(ELEMENTS) if int(row[CardField.ELEMENTS]) >> bit & 1]
    if ctype == CardType.CITY:
        kind = CityKind._fields[int(row[CardField.KIND])].lower()
        return {"id": card_id, "type": "city", "kind": kind, "elements": elements}
    if ctype == CardType.CHAOS:
        return {"id": card_id, "type": "chaos", "value": int(row[CardField.VALUE])}
    name = CardType._fields[ctype].lower()
    return {"id": card_id, "type": name, "element": elements[0], "value": int(row[CardField.VALUE])}


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


def _card(ctype: int, elements: int = 0, value: int = 0, kind: int = 0) -> list[int]:
    row = [0] * N_CARD_FIELDS
    row[CardField.TYPE] = ctype
    row[CardField.ELEMENTS] = elements
    row[CardField.VALUE] = value
    row[CardField.KIND] = kind
    return row


def _int_in(value: object, lo: int, hi: int, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise CardSetError(f"{where}: {value!r} is not a whole number from {lo} to {hi}")
    return value


def _table(data: dict, key: str, where: str) -> dict:
    value = data.get(key)
    if not isinstance(value, dict):
        raise CardSetError(f"{where}{key}: missing table [{where}{key}]")
    return value


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        expected = ", ".join(sorted(allowed))
        raise CardSetError(f"{where}: unknown key {unknown[0]!r} (expected one of {expected})")


def _cities(data: dict) -> list[list[int]]:
    cities = _table(data, "cities", "")
    _check_keys(cities, {"base"}, "cities")
    base = cities.get("base")
    if not isinstance(base, list) or not 1 <= len(base) <= 64:
        raise CardSetError("cities.base: expected a list of 1 to 64 cities")
    return [_card(CardType.CITY, _element_mask(e, f"cities.base[{i}]"), kind=CityKind.BASE)
            for i, e in enumerate(base)]


def _dreams_by_element(dreams: dict, key: str, ctype: int, lo: int, hi: int) -> list[list[int]]:
    table = _table(dreams, key, "dreams.")
    _check_keys(table, set(ELEMENTS), f"dreams.{key}")
    rows = []
    for bit, element in enumerate(ELEMENTS):
        values = table.get(element, [])
        if not isinstance(values, list):
            raise CardSetError(f"dreams.{key}.{element}: expected a list of values")
        for i, v in enumerate(values):
            rows.append(_card(ctype, 1 << bit, _int_in(v, lo, hi, f"dreams.{key}.{element}[{i}]")))
    if not rows:
        raise CardSetError(f"dreams.{key}: no cards")
    return rows


def _chaos(dreams: dict) -> list[list[int]]:
    table = _table(dreams, "chaos", "dreams.")
    _check_keys(table, {"count", "value"}, "dreams.chaos")
    count = _int_in(table.get("count"), 0, 64, "dreams.chaos.count")
    value = _int_in(table.get("value"), 1, MAX_VALUE, "dreams.chaos.value")
    return [_card(CardType.CHAOS, 0, value) for _ in range(count)]


def parse_card_set(text: str, source: str) -> CardSet:
    """Validate TOML text and build the card table; raise CardSetError naming the bad key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CardSetError(f"not valid TOML: {err}") from None
    return card_set_from_data(data, source)


def default_card_data() -> dict:
    """The R14 card-set file as data, for building variants of it."""
    text = resources.files("analyzer.cards").joinpath(DEFAULT_CARD_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def card_set_from_data(data: dict, source: str) -> CardSet:
    """Validate card-set data (a parsed card-set file) and build the card table."""
    _check_keys(data, {"name", "description", "cities", "dreams"}, "top level")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CardSetError("name: missing or empty")
    rows = _cities(data)
    dreams = _table(data, "dreams", "")
    _check_keys(dreams, {"sognae", "incubi", "chaos"}, "dreams")
    n_cities = len(rows)
    rows += _dreams_by_element(dreams, "sognae", CardType.SOGNAE, 1, MAX_VALUE)
    rows += _dreams_by_element(dreams, "incubi", CardType.INCUBI, -MAX_VALUE, -1)
    rows += _chaos(dreams)
    if len(rows) > MAX_CARDS:
        raise CardSetError(f"too many cards: {len(rows)} (at most {MAX_CARDS})")
    cards = np.array(rows, dtype=np.int64)
    digest = hashlib.sha256(name.encode() + cards.tobytes()).hexdigest()
    ids = np.arange(len(rows), dtype=np.int64)
    return CardSet(name, digest, source, cards, ids[:n_cities].copy(), ids[n_cities:].copy())


def load_card_set(path: str | Path) -> CardSet:
    """Read a card-set file; errors say which file and key is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CardSetError(f"cannot read card-set file {path}: {err.strerror or err}") from None
    try:
        return parse_card_set(text, str(path))
    except CardSetError as err:
        raise CardSetError(f"card-set file {path}: {err}") from None


def default_card_set() -> CardSet:
    """The R14 assumption shipped with the package."""
    text = resources.files("analyzer.cards").joinpath(DEFAULT_CARD_FILE).read_text(encoding="utf-8")
    return parse_card_set(text, f"builtin:{DEFAULT_CARD_FILE}")
