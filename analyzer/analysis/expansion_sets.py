"""Expansion sets by name: a set's label and title, and the sets ``--sets`` names.

A set is named by its expansions joined by ``+`` in TRACE.md order (``base`` for none);
``--sets`` takes such names, in any order of their expansions, and the words ``singles``,
``pairs`` and ``all``.
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from analyzer.cards.loader import did_you_mean
from analyzer.core.codes import PLAYABLE_EXPANSIONS
from analyzer.errors import UrbionError

BASE = "base"


SET_SEPARATOR = "+"


#: The expansions' names as the box prints them, for the charts a reader publishes.
EXPANSION_TITLES = {"squares_metas": "City Squares & Metas", "chromatic_chaos": "Chromatic Chaos",
                    "temples_harmony": "Temples & Harmony",
                    "gardens_wizards": "Hanging Gardens & Wizards", "books": "Books of Power",
                    "postcards": "Postcards & Wise Chaos", "emptiness": "The Emptiness"}


def set_title(label: str) -> str:
    """A set's name as a reader knows it: "base game", or its expansions' titles joined by
    " + " (an unknown name stays as it is)."""
    if label == BASE:
        return "base game"
    return " + ".join(EXPANSION_TITLES.get(name, name) for name in label.split(SET_SEPARATOR))


#: The words --sets takes for groups of sets.
SET_WORDS = ("singles", "pairs", "all")


def set_label(expansions: tuple[str, ...]) -> str:
    """A set's name: ``base``, or its expansions joined by ``+`` in TRACE.md order."""
    return SET_SEPARATOR.join(expansions) or BASE


class SetRuns(dict):
    """Runs by set name (``set_label``): a name with its expansions in another order, or
    ``none`` for ``base``, finds the same run, as ``--sets`` reads it; ``all`` finds the
    set of every expansion, as ``--expansions all`` names it (and a report its run)."""

    def __missing__(self, key: object) -> pd.DataFrame:
        if isinstance(key, str):
            try:
                played = PLAYABLE_EXPANSIONS if key.strip().lower() == "all" else \
                    _parse_set(key.lower(), PLAYABLE_EXPANSIONS)
            except UrbionError:
                played = None
            label = None if played is None else set_label(played)
            if label is not None and label != key and dict.__contains__(self, label):
                return self[label]
        raise KeyError(f"no set {key!r} in this comparison; its sets: "
                       f"{', '.join(map(str, self))}")

    def __contains__(self, key: object) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def get(self, key: object, default: object = None) -> object:
        try:
            return self[key]
        except KeyError:
            return default


def expansion_sets(spec: str, playable: tuple[str, ...] = PLAYABLE_EXPANSIONS
                   ) -> list[tuple[str, ...]]:
    """The sets ``compare --sets`` names, the base game first.

    ``singles``: the base game and each expansion alone; ``pairs``: those and every pair;
    ``all``: every combination; otherwise a comma-separated list of sets, each ``base`` or
    expansion names joined by ``+`` (the base game is added when missing: every set is
    compared with it).
    """
    spec = spec.strip().lower()
    if spec == "singles":
        sets = [(), *[(name,) for name in playable]]
    elif spec == "pairs":
        sets = [(), *[(name,) for name in playable], *combinations(playable, 2)]
    elif spec == "all":
        sets = [tuple(name for bit, name in enumerate(playable) if mask >> bit & 1)
                for mask in range(1 << len(playable))]
        sets.sort(key=len)
    else:
        items = spec.split(",") if spec else []
        if any(not item.strip() for item in items):
            raise UrbionError(f"sets: an empty set in {spec!r} (separate sets with ,)")
        for item in items:
            if item.strip() in ("singles", "pairs", "all"):
                every = SET_SEPARATOR.join(playable)
                raise UrbionError(f"sets: {item.strip()!r} stands alone: it cannot be "
                                  "listed with other sets" +
                                  (f" (the set of every expansion is {every})"
                                   if item.strip() == "all" else ""))
        sets = [_parse_set(item, playable) for item in items]
        if not sets:
            raise UrbionError("sets: no expansion set given")
        _refuse_repeats(items, sets)
        if () not in sets:
            sets.insert(0, ())
    unique = list(dict.fromkeys(sets))
    unique.sort(key=lambda s: s != ())
    return unique


def _refuse_repeats(items: list[str], sets: list[tuple[str, ...]]) -> None:
    """Refuse a set listed twice ("base,base", "books,base+books"): a slip for another set,
    most likely, as an expansion named twice within a set is."""
    first: dict[tuple[str, ...], str] = {}
    for item, played in zip(items, sets, strict=True):
        if played in first:
            again = "" if first[played] == item.strip() else f" (as {first[played]!r})"
            raise UrbionError(f"sets: {item.strip()!r} is listed twice{again}")
        first[played] = item.strip()


def _parse_set(item: str, playable: tuple[str, ...]) -> tuple[str, ...]:
    names = [n.strip() for n in item.split(SET_SEPARATOR)]
    if "" in names:  # "books+" is a slip, as an empty name in --expansions is
        raise UrbionError(f"sets: an empty expansion name in {item.strip()!r} (join a "
                          "set's expansions with +)")
    if names in ([BASE], ["none"]):
        return ()
    valid = f"expansions {', '.join(playable)}; sets singles, pairs, all, {BASE} (or none)"
    if names.count(BASE) > 1:  # a slip, as an expansion named twice is
        raise UrbionError(f"sets: {BASE!r} is named twice in {item.strip()!r}")
    names = [n for n in names if n != BASE]  # every set is played on the base game
    for name in names:
        if name in (*SET_WORDS, "none"):
            raise UrbionError(f"sets: {name!r} stands alone: it cannot be joined with "
                              f"expansions (in {item.strip()!r})")
        if name not in playable:
            where = "" if name == item.strip() else f" in {item.strip()!r}"
            raise UrbionError(f"sets: unknown expansion {name!r}{where} "
                              f"({did_you_mean(name, (*playable, *SET_WORDS))}{valid}; "
                              "join a set's expansions "
                              "with +)")
        if names.count(name) > 1:  # a slip for another expansion, most likely
            raise UrbionError(f"sets: {name!r} is named twice in {item.strip()!r}")
    return tuple(name for name in playable if name in names)
