"""A card set as a table a designer can read: one row per card, and the counts per kind."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pandas as pd

from analyzer.cards import CardSet
from analyzer.cards.loader import default_card_set, expansion_names
from analyzer.runfile import is_run_file
from analyzer.wording import plural, shown_as_written

#: Columns of :func:`card_table`, in order.
COLUMNS = ["id", "expansion", "type", "kind", "elements", "value", "incubi_value"]
#: The ``expansion`` of a base-game card.
BASE = "base"
#: Card types whose value counts + on one side and - on the other (R03, R07).
CHAOS_TYPES = ("chaos", "chromatic")


def card_table(card_set: CardSet) -> pd.DataFrame:
    """Every card of ``card_set``'s file, whatever the expansions in play.

    Returns
    -------
    pandas.DataFrame
        One row per card (columns ``COLUMNS``): its id in traces, the expansion it belongs
        to (``"base"`` for the base game), its type and kind (a City card's, a Book's, a
        postcard's; "" for others), its elements joined by ``+``, its value (a two-sided
        card's Sognae side) and a two-sided card's Incubi side (``<NA>`` for others). The
        card set's name, SHA-256 and source are in ``attrs``.
    """
    whole = card_set.with_expansions(card_set.available_expansions())
    rows = []
    for card in whole.describe():
        owner = int(whole.owner[card["id"]])
        elements = card.get("elements") or ([card["element"]] if "element" in card else [])
        rows.append({
            "id": card["id"],
            "expansion": expansion_names(owner)[0] if owner else BASE,
            "type": card["type"],
            "kind": card.get("kind", card.get("polarity", "")),
            "elements": "+".join(elements),
            "value": card.get("value", card.get("sognae_value")),
            "incubi_value": card.get("incubi_value"),
        })
    table = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("value", "incubi_value"):
        table[column] = table[column].astype("Int64")
    table.attrs = {"card_set": card_set.name, "card_set_sha256": card_set.digest,
                   "card_set_source": card_set.source,
                   "card_set_description": card_set.description}
    return table


#: What ``urbion cards`` says of a file whose description is still the shipped set's.
STALE_DESCRIPTION = ("the description is still the shipped R14 set's, and these cards are "
                     "not R14's: say what your set is under its description key")


def description_lines(table: pd.DataFrame) -> list[str]:
    """The description of a :func:`card_table`'s set, and a note when other cards than
    R14's still carry R14's description, whole and with next to nothing of its own (a copy
    of the template): the description is how a reader of the file learns what the set
    is."""
    description = table.attrs.get("card_set_description", "")
    shipped = default_card_set()
    lines = [_wrapped("about", shown_as_written(description, whitespace=True))] \
        if description else []
    # in any order of the file's lists, and with a word or two added around R14's; a
    # designer's own account that quotes R14's as what the set was is left alone
    own = description.replace(shipped.description, "").strip()
    if shipped.description in description and len(own) < OWN_ACCOUNT and \
            _kinds(table) != _kinds(card_table(shipped)):
        lines.append(_wrapped("note", STALE_DESCRIPTION))
    return lines


#: Characters of its own a description holding R14's needs to count as the set's account.
OWN_ACCOUNT = 30


def _wrapped(label: str, text: str) -> str:
    """``text`` under an 11-character ``label``, wrapped to 100 characters."""
    return textwrap.fill(text, 100, initial_indent=f"{label:<11}", subsequent_indent=" " * 11)


def format_card_counts(table: pd.DataFrame) -> str:
    """How many cards of each type (and kind) each part of the game brings, with their
    values, as text."""
    attrs = table.attrs
    lines = [f"card set   {attrs['card_set']} (sha256 {attrs['card_set_sha256'][:12]})    "
             f"from {attrs['card_set_source']}", *description_lines(table), ""]
    for expansion, cards in table.groupby("expansion", sort=False):
        counts = []
        for (ctype, kind), group in cards.groupby(["type", "kind"], sort=False):
            label = _kind_label(ctype, kind)
            ordered = group.assign(size=group["value"].abs()).sort_values("size", kind="stable")
            values = Counter(_value_text(row) for row in ordered.itertuples())
            shown = ", ".join(f"{text} x{n}" for text, n in values.items() if text)
            counts.append(f"{len(group)} {label}" + (f" ({shown})" if shown else ""))
        lines.append(f"{expansion:<16} {len(cards):>3} cards: " + "; ".join(counts))
    playable = [name for name in table["expansion"].unique() if name != BASE]
    lines += ["", f"expansions this file can play: {', '.join(playable) or 'none'}"]
    odd = odd_city_lines(table)
    return "\n".join(lines + (["", *odd] if odd else []))


def odd_city_lines(table: pd.DataFrame) -> list[str]:
    """A note on the base cities that show other than the 2 elements every base City card
    of the rulebook shows: allowed as a what-if, but a typed-in list missing an element
    would otherwise play another game without a word."""
    cities = table[(table["expansion"] == BASE) & (table["type"] == "city")]
    odd = [f"cities.base[{i}] {elements}"
           for i, elements in enumerate(cities["elements"]) if elements.count("+") != 1]
    if not odd:
        return []
    return [_wrapped("note", f"{plural(len(odd), 'base city shows', 'base cities show')} "
                             "other than the 2 elements of the rulebook's City cards, and "
                             f"{'plays' if len(odd) == 1 else 'play'} as listed: "
                             f"{'; '.join(odd)}")]


def card_file_text(table: pd.DataFrame, cards: str | None,
                   shipped: pd.DataFrame | None) -> str:
    """What ``urbion cards --cards FILE`` prints of a card set (``table``, its
    :func:`card_table`): its counts; for a results or summary file, the run its cards come
    from and the command that plays that run again; how its cards differ from the
    ``shipped`` table (R14's, or that of ``cards --against``; None: no such lines)."""
    lines = [format_card_counts(table)]
    if cards is not None and is_run_file(cards):
        from analyzer.analysis.results_io import configured_count, play_again_command, run_config

        config = run_config(cards)
        games = configured_count(Path(cards), "games", config.get("games"))
        first = configured_count(Path(cards), "first_game", config.get("first_game") or 0)
        # the game numbers, not a count alone: a run of --first-game 20000 is not games 0..
        played = f"games {first:,} to {first + games - 1:,}" if games > 1 else \
            f"game {first:,}"
        lines.append(f"played     by the run of {cards}: seed {config.get('seed')}, "
                     f"{played}, policy {config.get('policy')}, "
                     f"expansions {', '.join(config.get('expansions') or []) or 'none'}, "
                     f"{config.get('variant', 'solo')}\n"
                     f"again      {play_again_command(config, cards)}")
    if shipped is not None:
        changes = card_differences(shipped, table)
        lines.append("\n" + (changes or f"the same cards as {shipped.attrs['card_set']}, "
                                         "kind for kind"))
    return "\n".join(lines)


def card_differences(first: pd.DataFrame, other: pd.DataFrame,
                     played: tuple[list[set[str]] | None, list[set[str]] | None] | None = None
                     ) -> str:
    """What ``other`` (a :func:`card_table`) changes from ``first``: for each kind of card
    (expansion, type and kind, elements, value) whose count differs, the two counts, as
    text. Two tables of the same cards say how they still differ: in the order of their
    cards (which deals each seed's games otherwise) or in their names only; "" when they are
    one card set. With ``played`` (for each table, the expansions of each of its runs), a
    change of an expansion that not every run played says which runs played it: the games
    do not compare those cards."""
    before, after = _kinds(first), _kinds(other)
    # an expansion one file leaves out is said once: "8 -> 0" read as playing it with none
    alone = {name: table for name in set(first["expansion"]) ^ set(other["expansion"])
             for table in (first, other) if name not in set(table["expansion"])}
    lines = [f"{' '.join(part for part in key if part)}: {before[key]} -> {after[key]}"
             + (_played_mark(key[0], first, other, played) if played else "")
             for key in sorted(set(before) | set(after))
             if before[key] != after[key] and key[0] not in alone]
    order = list(dict.fromkeys([*first["expansion"], *other["expansion"]]))
    lines += [_left_out_line(name, first, other, alone[name] is other) for name in
              sorted(alone, key=order.index)]
    names = [f"{table.attrs['card_set']} (sha256 {table.attrs['card_set_sha256'][:12]})"
             for table in (other, first)]
    if lines:
        return "\n".join([f"{names[0]} against {names[1]}, cards of each kind:", *lines])
    if first.attrs["card_set_sha256"] == other.attrs["card_set_sha256"]:
        return ""
    columns = [c for c in COLUMNS if c != "id"]
    if first[columns].reset_index(drop=True).equals(other[columns].reset_index(drop=True)):
        return (f"{names[0]} holds the cards of {names[1]} in the same order, under another "
                "name: each seed deals the same games")
    return (f"{names[0]} holds the same cards as {names[1]}, kind for kind, in another "
            "order: each seed deals other games")


def _left_out_line(expansion: str, first: pd.DataFrame, other: pd.DataFrame,
                   gone: bool) -> str:
    """The line of an expansion that one table leaves out (``gone``: ``other``, the set
    compared, does), and so cannot play."""
    held = first if gone else other
    count = plural(int((held["expansion"] == expansion).sum()), "card")
    without = (other if gone else first).attrs["card_set"]
    return (f"{expansion}: {count} -> none" if gone else f"{expansion}: none -> {count}") + \
        f" ({without} leaves it out and cannot play it)"


def _played_mark(expansion: str, first: pd.DataFrame, other: pd.DataFrame,
                 played: tuple[list[set[str]] | None, list[set[str]] | None]) -> str:
    """Which runs played ``expansion``, when not all of both tables' runs did (a table
    whose runs are None, a reference no run played, is left out)."""
    if expansion == BASE:
        return ""
    counted = [(runs, table) for runs, table in zip(played, (first, other), strict=True)
               if runs is not None]
    counts = [(sum(expansion in run for run in runs), len(runs)) for runs, _ in counted]
    if all(n == total for n, total in counts):
        return ""
    if not any(n for n, _ in counts):
        return "  (not in play in these runs)"
    parts = []
    for (n, total), (_, table) in zip(counts, counted, strict=True):
        name = table.attrs["card_set"]
        runs = "run" if total == 1 else "runs"
        parts.append(f"no run of {name}" if n == 0 else
                     f"the {runs} of {name}" if n == total else
                     f"{n} of the {total} runs of {name}")
    return f"  (in play in {' and '.join(p for p in parts if not p.startswith('no '))} only)"


def _kinds(table: pd.DataFrame) -> Counter:
    """How many cards of each (expansion, type and kind, elements, value) a table holds."""
    return Counter((row.expansion, _kind_label(row.type, row.kind), row.elements,
                    _value_text(row)) for row in table.itertuples())


def _kind_label(ctype: str, kind: str) -> str:
    return ctype if ctype == "city" and kind == BASE else f"{ctype} {kind}".strip()


def _value_text(row) -> str:
    """A card's value as printed: +3, -2, +2/-2 for a two-sided card, ±5 for a Chaos (it
    counts for the side it lies on); "" for none."""
    if pd.isna(row.value):
        return ""
    if row.type in CHAOS_TYPES:
        return f"±{abs(row.value)}"
    text = f"{row.value:+d}"
    return f"{text}/{row.incubi_value:+d}" if not pd.isna(row.incubi_value) else text
