"""Independent checker of ``urbion-trace/1`` traces.

The base game and all seven expansions in any combination (``squares_metas``,
``chromatic_chaos``, ``temples_harmony``, ``gardens_wizards``, ``books``, ``postcards``,
``emptiness``), solo or in the team variant, can be replayed.

:func:`replay` rebuilds the cards from the trace's ``cards`` table and the decks from its
``setup``, then plays the game with the reference rules, taking every decision, shuffle and
check from the log instead of a policy. Any disagreement raises :class:`ReplayError` with a
one-line message naming the log entry.

Matching rules (where the trace format leaves room):

- a decision entry matches an option when every key of the option's trace form is present
  with the same value (extra keys are allowed: the format may be extended by adding keys);
- an act entry matches a Phase I option by its discarded cards and its first act (a Book
  act by its Book); a second act (R08.3) is the answer to the Wizard's second-action
  question, and an act entry may hold no act that the game never asks for; a Book act's
  target (``card``, ``row``, ``order``) answers the decision its action asks for;
- an exchange pair, a zero-sum group, a rebuild's two rows, a two-card payment and the
  discards a polarity swap removes are sets: the order of their ids does not matter; a
  swap may remove any 8 different cards of the discard pile;
- zero-sum groups may come in any order, at most one group per row, each census (or Book
  of Perfect Balance) of an act entry with its own groups;
- keys the format does not name are extensions and are left alone, in an entry, an act, a
  check or an object of a check (a row, the Emptiness);
- the ``books`` entry answers every question of the Books step (R09.1); a polarity kept is
  not logged, so a decision to swap is answered by a ``swap_polarity`` entry when the log
  holds one there, and by keeping otherwise (R10.4);
- in the team game every decision entry must name the seat to play (``seat``);
- a ``check`` entry is compared on the keys it holds; sides and hands as multisets;
- card ids are any unique integers; a card of id -1, the engines' "no card", is replayed
  under an id of its own (:func:`with_reserved_id_renamed`), which messages name.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from analyzer.cards.loader import CardSet, CardSetError, default_card_set, dream_value
from analyzer.core.codes import (
    BOOK_NAMES,
    ELEMENTS,
    EMPTY,
    EXPANSION_NAMES,
    PLAYABLE_EXPANSIONS,
    POSTCARD_NAMES,
    RULES_VERSION,
    TRACE_FORMAT,
    VARIANT_NAMES,
    CardType,
    CityKind,
    Decision,
    Expansion,
    Side,
)
from analyzer.reference.cards import Card, CardBook, element_mask
from analyzer.reference.engine import (
    BOOKS_PUT_AWAY,
    POLARITY_SWAP_CARDS,
    Option,
    SoloGame,
    opening_decks,
)

MESSAGE_LIMIT = 240
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
#: The acts a Wizard's second action can be (R08.3): base actions, and Book actions (R09).
BASE_ACTS = ("census", "exchange")
BOOK_PREFIX = "book:"
#: The keys a Book act holds besides ``book``, and the ruling that lists its targets.
BOOK_KEYS = {"flying_sognae": (("card", "row"), "R09.3"),
             "flying_incubi": (("card", "row"), "R09.3"),
             "invisible_sognae": (("card",), "R09.4"),
             "invisible_incubi": (("card",), "R09.4"),
             "freedom": (("row",), "R09.5"),
             "perfect_balance": (("zero_sum",), "R09.6"),
             "prophecies": (("order",), "R09.7")}


class ReplayError(ValueError):
    """A trace that does not replay: an illegal decision, a bad shuffle or a wrong state."""


def _short(value: Any) -> str:
    """One-line JSON of a value, cut to a readable length."""
    text = json.dumps(value, separators=(",", ":"), default=repr)
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def _strict_equal(a: Any, b: Any) -> bool:
    """Equality that also requires equal types (so ``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_strict_equal(a[k], b[k]) for k in a)
    return a == b


def _is_int(value: Any) -> bool:
    return type(value) is int


def _int_list(value: Any) -> list[int] | None:
    """The value if it is a list of ints, else None."""
    if isinstance(value, list) and all(_is_int(v) for v in value):
        return value
    return None


def _not_in_pile(removed: list[int] | None, pile: set[int]) -> str:
    """``; N, M are not in it`` for the ids of ``removed`` missing from the pile."""
    missing = [card for card in removed or [] if card not in pile]
    if not missing:
        return ""
    return f"; {', '.join(map(str, missing))} {'is' if len(missing) == 1 else 'are'} not in it"


def _multiset(value: Any) -> list[int] | None:
    """A list of ids in sorted order (a multiset to compare), or None for a non-list."""
    ids = _int_list(value)
    return None if ids is None else sorted(ids)


def _act_label(act: Any) -> str | None:
    """An act's name (``census``, ``ally``, ...; ``book:<Book>`` for a Book act), or None
    when it is malformed."""
    if not isinstance(act, dict) or not act:
        return None
    if "book" in act:
        return BOOK_PREFIX + act["book"] if isinstance(act["book"], str) else None
    # other keys are an extension (TRACE.md: extend only by adding keys)
    named = [key for key in act if key in ACT_NAMES]
    return named[0] if len(named) == 1 else None


#: The acts TRACE.md names besides a Book's (``book``).
ACT_NAMES = frozenset({"exchange", "census", "rebuild", "change_sides", "ally"})


def _act_names(entry: dict) -> list[str] | None:
    """The labels of an act entry's acts, or None when ``acts`` is malformed."""
    acts = entry.get("acts")
    if not isinstance(acts, list):
        return None
    names = [_act_label(act) for act in acts]
    return None if None in names else names


def _same_decision(canonical: dict, entry: dict) -> bool:
    """True when a log entry records the option whose trace form is ``canonical``."""
    if canonical["do"] == "act":
        if entry.get("do") != "act":
            return False
        names = _act_names(entry)
        return (names is not None and names[:1] == _act_names(canonical)
                and _multiset(entry.get("discard")) == sorted(canonical["discard"]))
    return all(key in entry and _strict_equal(entry[key], value)
               for key, value in canonical.items())


def _swap_timing(entry: Any) -> str:
    """Why a ``swap_polarity`` entry found where the game asks no decision is out of place."""
    if isinstance(entry, dict) and entry.get("do") == "swap_polarity":
        return " (a polarity swap comes before the turn's Phase I decision only, R10.4)"
    return ""


class LogCursor:
    """Reads the log one entry at a time."""

    def __init__(self, log: list) -> None:
        self.log = log
        self.index = 0

    def peek(self) -> Any:
        """The next entry without taking it (None at the end of the log)."""
        return self.log[self.index] if self.index < len(self.log) else None

    def take(self, expecting: str) -> tuple[int, dict]:
        """Return (index, entry) of the next entry; the game expects ``expecting`` there."""
        index = self.index
        if index >= len(self.log):
            raise ReplayError(f"log entry {index}: missing; the game expects {expecting}")
        entry = self.log[index]
        if not isinstance(entry, dict):
            raise ReplayError(f"log entry {index}: expected {expecting}, found {_short(entry)}")
        self.index += 1
        return index, entry

    def expect_end(self) -> None:
        """The game is over: no entry may be left."""
        if self.index < len(self.log):
            entry = self.log[self.index]
            raise ReplayError(f"log entry {self.index}: left over after the game ended: "
                              f"{_short(entry)}{_swap_timing(entry)}")


def _why_not_placed(entry: dict, game: SoloGame) -> str:
    """The placement rule a Phase I ``place`` entry breaks, or "" when it is none of these
    (R04.1, R08.5, R10.3)."""
    card, row_index = entry.get("card"), entry.get("row")
    named = entry.get("side")
    side = {"L": Side.L, "R": Side.R}.get(named) if isinstance(named, str) else None
    seat = f" of seat {game.seat}" if game.seats > 1 else ""
    if not _is_int(card) or card not in game.hand:
        return f"card {_short(card)} is not in the hand{seat}"
    if not _is_int(row_index) or not 0 <= row_index < len(game.rows) or \
            game.rows[row_index].is_placeholder:
        return f"there is no row {_short(row_index)}"
    if side is None:
        return ""
    row, side_name = game.rows[row_index], ("left", "right")[side]
    if side not in game.book.sides(card):
        return f"card {card} does not go on a {side_name} side (R04.1: side by type)"
    if game.seats > 1 and side != (Side.L if game.seat == game.polarity else Side.R):
        polarity = "Sognae" if game.seat == game.polarity else "Incubi"
        other = ("left", "right")[1 - side]
        return (f"seat {game.seat} holds the {polarity} polarity and places on {other} sides "
                "only (R10.3)")
    if not game.book.shows_element(row.city, card):
        return f"City {row.city} shows no element of card {card} (R04.1, R08.5)"
    if not row.has_room(side):
        return f"the {side_name} side of row {row_index} holds 3 dreams already (R04.1)"
    return ""


#: How each act is paid for, for the message on a payment the rules refuse.
PAYMENT_RULES = {
    "census": "a Census is paid with one card from hand (R04.2)",
    "exchange": "an Exchange is paid with one card from hand (R04.2)",
    "rebuild": "a Rebuild is paid with a Wizard, or two hand cards sharing an element (R08.4)",
    "change_sides": "Change Sides is paid with a Wizard, or two hand cards sharing an "
                    "element (R08.4)",
    "ally": "Ally is paid with a Sognae and an Incubi from hand (R12.3)",
}


def _why_not_act(entry: dict, options: list[Option], game: SoloGame) -> str:
    """The rule a Phase I ``act`` entry breaks, or "" when it is none of these: a card paid
    that is not in the hand, an act not on offer, or a payment the act does not take."""
    seat = f" of seat {game.seat}" if game.seats > 1 else ""
    paid = _int_list(entry.get("discard"))
    names = _act_names(entry)
    if paid is None or not paid or names is None or not names:
        return ""
    missing = [card for card in paid if card not in game.hand]
    if missing:
        return f"card {missing[0]} is not in the hand{seat}"
    offered = {}
    for option in options:
        if option.entry["do"] == "act":
            label = _act_names(option.entry)[0]
            offered.setdefault(label, []).append(sorted(option.entry["discard"]))
    act = names[0]
    if act not in offered:
        return (f"no {act} can be played now (acts on offer: "
                f"{', '.join(offered) or 'none'})")
    rule = PAYMENT_RULES.get(act, "a Book action is paid with one card from hand (R09.2)")
    return f"{rule}; it may be paid here with {_short(offered[act])}"


def _legal_form(entry: dict) -> dict:
    """An option as a message lists it: an act by its name, whose choices (an Exchange's
    pair, a Census's zero-sum groups) the log gives with it."""
    if entry["do"] != "act":
        return entry
    return {**entry, "acts": _act_names(entry)}


class LogDecider:
    """Answers every decision from the log, checking that it is legal.

    The turn's act entry is read once, at its Phase I decision; the decisions its acts
    ask for (an exchange's pair, a census's zero-sum groups, a Wizard's second action, a
    rebuild's rows, the card that changes sides, a Book's target) are answered from it.
    """

    def __init__(self, cursor: LogCursor) -> None:
        self.cursor = cursor
        self.books_keep: int | None = None
        self.acts: list[dict] = []
        self.act_pos = -1
        self.act: dict | None = None
        self.act_index = -1
        self.groups: list[list[int]] = []
        self.used: list[bool] = []

    def decide(self, kind: int, options: list[Option], game: SoloGame) -> int:
        """Index of the option the log records for this decision."""
        if kind == Decision.ZERO_SUM:
            return self._zero_sum(options, game)
        if kind == Decision.EXCHANGE_PAIR:
            return self._exchange_pair(options)
        if kind == Decision.SECOND_ACT:
            return self._second_act(options)
        if kind == Decision.REBUILD_ROWS:
            return self._rebuild_rows(options, game)
        if kind == Decision.CHANGE_SIDES_CARD:
            return self._change_sides_card(options)
        if kind in (Decision.BOOK_TARGET, Decision.PROPHECY_ORDER):
            return self._book_target(options)
        if kind == Decision.BOOKS:
            return self._books(game)
        if kind == Decision.SWAP_POLARITY:
            return self._swap_polarity(options, game)
        name = Decision._fields[kind]
        index, entry = self.cursor.take(f"a {name} decision")
        if "do" not in entry:
            raise ReplayError(f"log entry {index}: expected a {name} decision, "
                              f"found {_short(entry)}")
        if entry["do"] == "swap_polarity":
            raise ReplayError(f"log entry {index}: swap_polarity is not allowed here: only in "
                              "the team game, at most once a turn, before the turn's Phase I "
                              f"decision, with {POLARITY_SWAP_CARDS} or more cards in the "
                              f"discard pile (it holds {len(game.discard)}); R10.4")
        for choice, option in enumerate(options):
            if _same_decision(option.entry, entry):
                self._check_seat(index, entry, game)
                if entry["do"] == "act":
                    self._start_act(index, entry)
                return choice
        why = ""
        if kind == Decision.PHASE1 and entry["do"] == "place":
            why = _why_not_placed(entry, game)
        elif kind == Decision.PHASE1 and entry["do"] == "act":
            why = _why_not_act(entry, options, game)
        if why:
            raise ReplayError(f"log entry {index}: {_short(entry)} is not a legal "
                              f"{name} decision: {why}")
        legal = [_legal_form(option.entry) for option in options]
        raise ReplayError(f"log entry {index}: {_short(entry)} is not a legal {name} decision "
                          f"(legal: {_short(legal)})")

    @staticmethod
    def _check_seat(index: int, entry: dict, game: SoloGame) -> None:
        """Team: every decision entry names the seat to play (R10)."""
        if game.seats > 1 and not _strict_equal(entry.get("seat"), game.seat):
            # before turn 1 no turn alternates: the seat dealing decides (docs/engine.md)
            why = "R10.1: turns alternate" if game.turn > 0 else \
                "setup: seat 0's, or the seat whose opening hand draws (docs/engine.md)"
            raise ReplayError(f"log entry {index}: seat {_short(entry.get('seat'))} on a "
                              f"decision of seat {game.seat} ({why})")

    def _books(self, game: SoloGame) -> int:
        """REVEAL (option 1) until the logged number of Books is laid out, then STOP."""
        if self.books_keep is None:
            index, entry = self.cursor.take("the books decision")
            if entry.get("do") != "books":
                raise ReplayError(f"log entry {index}: expected the books decision (R09.1), "
                                  f"found {_short(entry)}")
            most = max(0, len(game.book_deck) - BOOKS_PUT_AWAY)
            keep = entry.get("keep")
            if not _is_int(keep) or not 0 <= keep <= most:
                raise ReplayError(f"log entry {index}: books keep {_short(keep)} is not a "
                                  f"number of Books from 0 to {most} (R09.1)")
            self._check_seat(index, entry, game)
            self.books_keep = keep
        return int(len(game.books) < self.books_keep)

    def _swap_polarity(self, options: list[Option], game: SoloGame) -> int:
        """Swap (option 1) when the next entry is a swap_polarity, else keep (R10.4)."""
        upcoming = self.cursor.peek()
        if not isinstance(upcoming, dict) or upcoming.get("do") != "swap_polarity":
            return 0
        index, entry = self.cursor.take("a polarity swap")
        self._check_seat(index, entry, game)
        removed = _int_list(entry.get("removed"))
        pile = set(game.discard)
        if removed is None or len(removed) != POLARITY_SWAP_CARDS or \
                len(set(removed)) != POLARITY_SWAP_CARDS or not pile.issuperset(removed):
            raise ReplayError(f"log entry {index}: swap_polarity removes "
                              f"{_short(entry.get('removed'))}, not {POLARITY_SWAP_CARDS} "
                              "different cards of the discard pile"
                              f"{_not_in_pile(removed, pile)} (R10.4)")
        # the engine removes the cards its option names: this swap's, whichever 8 they are
        options[1].entry["removed"] = list(removed)
        return 1

    def _book_target(self, options: list[Option]) -> int:
        """The option whose target keys (``card``, ``row``, ``order``) the Book act holds."""
        act = self.act
        for choice, option in enumerate(options):
            if all(_strict_equal(act.get(key), value) for key, value in option.entry.items()):
                return choice
        keys, rule = BOOK_KEYS[act["book"]]
        target = {key: act.get(key) for key in keys}
        raise ReplayError(f"log entry {self.act_index}: book {act['book']} target "
                          f"{_short(target)} is not legal here ({rule})")

    def act_done(self) -> None:
        """Every zero-sum group and every act of the finished act entry must have been used."""
        self._check_groups_used()
        if self.act_pos + 1 < len(self.acts):
            extra = _act_label(self.acts[self.act_pos + 1])
            raise ReplayError(f"log entry {self.act_index}: act {extra!r} is never allowed "
                              "here: only a Wizard discarded for a census, an exchange or a "
                              "Book action gives a second action, while the game goes on "
                              "(R08.3)")
        self.acts, self.act_pos, self.act = [], -1, None

    def _check_groups_used(self) -> None:
        for group, used in zip(self.groups, self.used, strict=True):
            if not used:
                raise ReplayError(f"log entry {self.act_index}: zero-sum group {group} is not "
                                  "a legal discard of any unpacified row")
        self.groups, self.used = [], []

    def _start_act(self, index: int, entry: dict) -> None:
        """Check the shape of every act of the entry, then begin its first act."""
        acts = entry["acts"]
        if len(acts) > 2:
            raise ReplayError(f"log entry {index}: at most 2 acts a turn (R08.3)")
        for position, act in enumerate(acts):
            name = _act_label(act)
            if position == 1 and name not in BASE_ACTS and not name.startswith(BOOK_PREFIX):
                raise ReplayError(f"log entry {index}: second act {name!r} is not a base "
                                  "action (Exchange or Census) or a Book action (R08.3)")
            if name.startswith(BOOK_PREFIX):
                self._check_book_shape(index, act)
            else:
                self._check_act_shape(index, name, act[name])
        self.acts, self.act_index = acts, index
        self._begin_act(0)

    @staticmethod
    def _check_book_shape(index: int, act: dict) -> None:
        where = f"log entry {index}"
        name = act["book"]
        if name not in BOOK_KEYS:
            raise ReplayError(f"{where}: unknown book {name!r} (valid: {', '.join(BOOK_NAMES)})")
        for key in BOOK_KEYS[name][0]:
            value = act.get(key)
            if key in ("card", "row"):
                ok = _is_int(value)
            elif key == "order":
                ok = _int_list(value) is not None
            else:
                ok = isinstance(value, list) and all(_int_list(g) is not None for g in value)
            if not ok:
                raise ReplayError(f"{where}: book {name} needs {key} "
                                  f"({'a list of id lists' if key == 'zero_sum' else 'ids'})")

    @staticmethod
    def _check_act_shape(index: int, name: str, value: Any) -> None:
        where = f"log entry {index}"
        if name == "ally" and value is not True:
            raise ReplayError(f"{where}: ally needs the value true")
        if name == "census":
            groups = value.get("zero_sum") if isinstance(value, dict) else None
            if not isinstance(groups, list) or any(_int_list(g) is None for g in groups):
                raise ReplayError(f"{where}: census needs zero_sum, a list of id lists")
        elif name == "exchange":
            pair = _int_list(value)
            if pair is None or len(pair) != 2:
                raise ReplayError(f"{where}: exchange needs two card ids")
        elif name == "rebuild":
            rows = _int_list(value)
            if rows is None or len(rows) != 2:
                raise ReplayError(f"{where}: rebuild needs two row numbers")
        elif name == "change_sides" and not _is_int(value):
            raise ReplayError(f"{where}: change_sides needs one card id")

    def _begin_act(self, position: int) -> None:
        self.act_pos = position
        self.act = self.acts[position]
        # by the act's name (its shape is checked): a Book act may hold other keys
        label = _act_label(self.act)
        if label == "census":
            groups = self.act["census"]["zero_sum"]
        elif label == BOOK_PREFIX + "perfect_balance":
            groups = self.act["zero_sum"]  # R09.6: a census
        else:
            return
        self.groups, self.used = groups, [False] * len(groups)

    def _second_act(self, options: list[Option]) -> int:
        """The entry's next act, or no second action (option 0) when it has none."""
        self._check_groups_used()  # the first census's groups belong to it alone
        if self.act_pos + 1 >= len(self.acts):
            return 0
        name = _act_label(self.acts[self.act_pos + 1])
        for choice, option in enumerate(options):
            if option.entry is not None and _act_label(option.entry) == name:
                self._begin_act(self.act_pos + 1)
                return choice
        raise ReplayError(f"log entry {self.act_index}: second act {name!r} is not legal "
                          "here (an exchange needs two dreams on one side, R04.4; a Book "
                          "needs a target, R09)")

    def _exchange_pair(self, options: list[Option]) -> int:
        pair = self.act["exchange"]
        for choice, option in enumerate(options):
            if sorted(option.entry) == sorted(pair):
                return choice
        raise ReplayError(f"log entry {self.act_index}: exchange {pair} is not two different "
                          "dreams on the same side (R04.4)")

    def _rebuild_rows(self, options: list[Option], game: SoloGame) -> int:
        rows = self.act["rebuild"]
        for choice, option in enumerate(options):
            if option.entry == sorted(rows):
                return choice
        figure = game.emptiness_row()
        if figure != EMPTY and isinstance(rows, list) and figure in rows:
            raise ReplayError(f"log entry {self.act_index}: rebuild {rows}: row {figure} holds "
                              "the City card with the Emptiness, which Rebuild may not "
                              "choose (R08.4)")
        raise ReplayError(f"log entry {self.act_index}: rebuild {rows} is not two different "
                          "rows of the layout (R08.4)")

    def _change_sides_card(self, options: list[Option]) -> int:
        card = self.act["change_sides"]
        for choice, option in enumerate(options):
            if option.entry == card:
                return choice
        raise ReplayError(f"log entry {self.act_index}: change_sides {card} is not a Chaos or "
                          "Chromatic Chaos in the layout whose other side has room (R08.4)")

    def _zero_sum(self, options: list[Option], game: SoloGame) -> int:
        """The group of this row, or mask 0 when no group holds one of its dreams."""
        row_index = options[0].code[1]
        row_cards = set(game.rows[row_index].dreams())
        unused = [g for g, used in enumerate(self.used) if not used]
        hits = [g for g in unused if row_cards.intersection(self.groups[g])]
        if not hits:
            return 0  # mask 0, no discard, is always the first option
        where = f"log entry {self.act_index}"
        if len(hits) > 1:
            groups = [self.groups[g] for g in hits]
            raise ReplayError(f"{where}: zero-sum groups {groups} all discard from row "
                              f"{row_index}")
        group = self.groups[hits[0]]
        for choice, option in enumerate(options):
            if option.entry and sorted(option.entry) == sorted(group):
                self.used[hits[0]] = True
                return choice
        raise ReplayError(f"{where}: zero-sum group {group} is not a set of row {row_index}'s "
                          "dreams summing to 0 (R05.5)")


class DealCheck:
    """Whether a trace's shuffles are those of the game it names: the opening decks and each
    reshuffle of the Dream deck as the DEAL stream of (seed, game) orders them, the way
    both engines draw them. A trace written by hand, or edited, passes the rules and fails
    this: its seed and game are then only words."""

    def __init__(self, book: CardBook, seed: int, game: int,
                 decks: dict[str, list[int]]) -> None:
        """Check the setup's ``decks`` against the opening shuffles of the named game."""
        expected, self.stream = opening_decks(book, seed, game)
        self.matches = expected == decks

    def reshuffle(self, cards: list[int], logged: list[int]) -> None:
        """One reshuffle of ``cards`` (top first) against its logged order."""
        order = list(cards)
        self.stream.shuffle(order)
        self.matches &= order == logged


def _permutation_faults(order: list[int] | None, cards: list[int]) -> str:
    """What keeps ``order`` from being a permutation of ``cards``: the cards it lacks, those
    it lists twice or more, and those it lists that are not being shuffled."""
    if order is None:
        return "not a list of card ids"
    got, wanted = Counter(order), Counter(cards)
    faults = [(name, sorted(ids)) for name, ids in (
        ("missing", (wanted - got).elements()),
        ("listed more than once", [c for c, n in got.items() if n > wanted[c] > 0]),
        ("not being shuffled", set((got - wanted).elements()) - set(wanted)))]
    return "; ".join(f"{name} {ids}" for name, ids in faults if ids)


class LogShuffler:
    """Takes each shuffle's order from the log, checking it is a permutation (and, with a
    :class:`DealCheck`, whether it is the named game's)."""

    def __init__(self, cursor: LogCursor, deal: DealCheck | None = None) -> None:
        self.cursor = cursor
        self.deal = deal

    def shuffle(self, cards: list[int]) -> list[int]:
        """The logged order of ``cards``."""
        index, entry = self.cursor.take("a shuffle of the Dream deck")
        if "shuffle" not in entry:
            raise ReplayError(f"log entry {index}: expected a shuffle, found {_short(entry)}"
                              f"{_swap_timing(entry)}")
        order = _int_list(entry["shuffle"])
        if order is None or Counter(order) != Counter(cards):
            raise ReplayError(f"log entry {index}: shuffle is not a permutation of the "
                              f"{len(cards)} cards being shuffled ("
                              f"{_permutation_faults(order, cards)})")
        if self.deal is not None:
            self.deal.reshuffle(cards, order)
        return list(order)


def _same_rows(logged: Any, replayed: list[dict]) -> bool:
    if not isinstance(logged, list) or len(logged) != len(replayed):
        return False
    for log_row, row in zip(logged, replayed, strict=True):
        if not isinstance(log_row, dict):
            return False
        # keys other than city, L and R are an extension, left alone
        if "city" in log_row and not _strict_equal(log_row["city"], row["city"]):
            return False
        for side in ("L", "R"):
            if side in log_row and _multiset(log_row[side]) != sorted(row[side]):
                return False
    return True


def _same_check_value(key: str, logged: Any, replayed: Any) -> bool:
    if key == "rows":
        return _same_rows(logged, replayed)
    if key == "hand":
        return _multiset(logged) == sorted(replayed)
    if key == "hands":
        return (isinstance(logged, list) and len(logged) == len(replayed)
                and all(_multiset(mine) == sorted(theirs)
                        for mine, theirs in zip(logged, replayed, strict=True)))
    if isinstance(replayed, dict):  # emptiness: compared on the keys it holds, as a check
        return isinstance(logged, dict) and all(
            _strict_equal(value, replayed[name]) for name, value in logged.items()
            if name in replayed)
    return _strict_equal(logged, replayed)


class LogChecker:
    """Compares every check point with the log's ``check`` entry."""

    def __init__(self, cursor: LogCursor, observe: Callable[[dict], None] | None = None) -> None:
        self.cursor = cursor
        self.observe = observe

    def check(self, snapshot: dict) -> None:
        """Compare the keys the logged check holds with the replayed state."""
        index, entry = self.cursor.take(f"a check (turn {snapshot['turn']})")
        logged = entry.get("check")
        if not isinstance(logged, dict):
            raise ReplayError(f"log entry {index}: expected a check, found {_short(entry)}"
                              f"{_swap_timing(entry)}")
        if self.observe is not None:
            self.observe(snapshot)
        for key, value in logged.items():
            if key not in snapshot and key not in CHECK_KEYS:
                continue  # an extension (TRACE.md: extend only by adding keys)
            if key not in snapshot:
                raise ReplayError(f"log entry {index}: check key {key!r} is not part of "
                                  "this game (the variant and expansions of the header)")
            if not _same_check_value(key, value, snapshot[key]):
                raise ReplayError(f"log entry {index}: check {key} differs: log {_short(value)}, "
                                  f"replay {_short(snapshot[key])}")


#: The keys TRACE.md gives a check: one of these that the game has no use for (an
#: expansion's key outside it, ``hand`` in the team game) is an error; any other key is an
#: extension, which a checker leaves alone.
CHECK_KEYS = frozenset({"turn", "rows", "hand", "hands", "polarity", "dream_deck", "success",
                        "discard", "emptiness", "inhabitants", "wise_chaos"})


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
    if not isinstance(entry, dict) or not _is_int(entry.get("id")):
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
        if sign is None or not _is_int(value) or sign * value <= 0:
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


def _deck(setup: dict, key: str, expected: list[int]) -> list[int]:
    if key not in setup:  # TRACE.md's setup lists all four decks, empty when not in play
        raise ReplayError(f"setup.{key}: missing (an empty list when no such card is in "
                          "play)")
    deck = _int_list(setup[key])
    if deck is None or Counter(deck) != Counter(expected):
        raise ReplayError(f"setup.{key}: not a permutation of the {len(expected)} cards "
                          "of that kind in the cards table")
    return list(deck)


def _check_header(trace: Any) -> list[str]:
    """Check the header and return the trace's expansions (names)."""
    if not isinstance(trace, dict):
        raise ReplayError("trace: expected a JSON object")
    if trace.get("format") != TRACE_FORMAT:
        raise ReplayError(f"format: {json.dumps(trace.get('format'))} is not \"{TRACE_FORMAT}\"")
    for key in ("seed", "game"):  # which game of which batch the trace claims to be
        value = trace.get(key)
        if not _is_int(value) or not 0 <= value < 2**63:
            raise ReplayError(f"{key}: {_short(value)} is not a whole number from 0 to 2**63-1")
    for key in ("policy", "card_set"):
        if not isinstance(trace.get(key), str):
            raise ReplayError(f"{key}: expected a name, not {_short(trace.get(key))}")
    if trace.get("variant") not in VARIANT_NAMES:
        raise ReplayError(f"variant: {trace.get('variant')!r} is not one of "
                          f"{', '.join(VARIANT_NAMES)}")
    expansions = trace.get("expansions")
    if not isinstance(expansions, list) or not all(isinstance(e, str) for e in expansions):
        raise ReplayError("expansions: expected a list of expansion names")
    for name in expansions:
        if name not in PLAYABLE_EXPANSIONS:
            known = "" if name in EXPANSION_NAMES else "unknown expansion "
            raise ReplayError(f"expansions: {known}{name!r} cannot be replayed; the replayer "
                              f"knows {', '.join(PLAYABLE_EXPANSIONS)} only")
        if expansions.count(name) > 1:
            raise ReplayError(f"expansions: {name!r} is listed twice")
    if not isinstance(trace.get("setup"), dict) or not isinstance(trace.get("log"), list):
        raise ReplayError("trace: setup (an object) and log (a list) are required")
    if not isinstance(trace.get("result"), dict):
        raise ReplayError("result: missing")
    for key, name in (("postcard_deck", "postcards"), ("book_deck", "books")):
        if name not in expansions and trace["setup"].get(key, []) != []:
            raise ReplayError(f"setup.{key}: must be empty without the {name} expansion")
    return expansions


def _check_own_cards(trace: dict, expansions: list[str]) -> None:
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


def _expansion_mask(names: list[str]) -> int:
    mask = 0
    for name in names:
        mask |= getattr(Expansion, name.upper())
    return mask


def _compare_result(expected: dict, replayed: dict) -> None:
    for key, value in replayed.items():
        if key not in expected or not _strict_equal(expected[key], value):
            source = " (the trace's card_set)" if key == "card_set" else ""
            raise ReplayError(f"result: {key} is {_short(expected.get(key))} in the trace's "
                              f"result, {_short(value)} on replay{source}")


#: The keys whose values hold card ids (TRACE.md), at any depth of a trace but a check's...
ID_KEYS = frozenset({"id", "city_deck", "dream_deck", "postcard_deck", "book_deck", "shuffle",
                     "card", "discard", "exchange", "zero_sum", "change_sides", "order",
                     "removed"})
#: ... whose ids are these keys' (its ``dream_deck`` and ``discard`` are counts).
CHECK_ID_KEYS = frozenset({"city", "L", "R", "hand", "hands"})


def with_reserved_id_renamed(trace: Any) -> tuple[Any, int | None]:
    """The trace with a card of id -1 (TRACE.md allows any unique integer) renamed to an id
    the engines do not reserve for "no card", and that id; the trace itself and None when
    no card has id -1."""
    cards = trace.get("cards") if isinstance(trace, dict) else None
    ids = [c.get("id") for c in cards if isinstance(c, dict)] if isinstance(cards, list) else []
    ids = [i for i in ids if _is_int(i)]
    if EMPTY not in ids:
        return trace, None
    alias = max(ids) + 1

    def renamed(value: Any, holds_ids: bool, keys: frozenset[str] = ID_KEYS) -> Any:
        if isinstance(value, dict):
            return {key: renamed(item, holds_ids or key in keys,
                                 CHECK_ID_KEYS if key == "check" else keys)
                    for key, item in value.items()}
        if isinstance(value, list):
            return [renamed(item, holds_ids, keys) for item in value]
        return alias if holds_ids and _is_int(value) and value == EMPTY else value

    return renamed(trace, False), alias


def replay(trace: dict, *, observe: Callable[[dict], None] | None = None,
           narrate: Callable[[str, dict], None] | None = None,
           check_deal: bool = False, card_set: CardSet | None = None) -> dict:
    """Replay a trace decision by decision and check it.

    Parameters
    ----------
    trace : dict
        An ``urbion-trace/1`` trace (as written by ``play_reference`` or any other engine).
    observe : callable, optional
        Called with the replayed state (a ``check`` payload, in exact order) at every
        check point, before it is compared.
    narrate : callable, optional
        Called as ``narrate(event, details)`` for every decision taken (``decision``: kind
        and trace entry), card drawn (``draw``, with the ``seat``), dreams dealt to a row
        (``deal``), Chaos reveal (``reveal``), a balanced city a Chaos clears (``clear``:
        its dreams), city pacified (``pacify``: the dreams discarded with it; ``by``:
        freedom for the Book's), City card brought by a Perfect Balance or the last
        Emptiness card (``bonus``, ``why``), new City card (``new_city``) and a row removed
        for want of one (``row_removed``), Chromatic Chaos held while dealing (``hold``),
        those shuffled back when the opening hand is full (``shuffled_back``) and the card a
        Chromatic Chaos reveals (``chromatic_reveal``; None when the Dream deck is empty),
        the start of a turn (``turn``: seat and polarity), the Books kept (``books``) and
        the Dream cards burnt (``burn``), a postcard dealt (``postcard``), scored or sent
        away (``postcard_scored``: points, why), a Hourglass turned (``hourglass_turned``:
        the turns so far) and a Flagship's move (``flagship``; ``flagship_stays`` with one
        city left), a Wise Chaos used (``wise``: the depth its card went back to, and
        whether that is the bottom of the Dream deck), the Emptiness figure's move
        (``emptiness``: row -1 for the pile), its census check (``emptiness_check``;
        ``dreams``: those an unbalanced city loses) and an Emptiness card leaving
        (``emptiness_card``); an Exchange (``exchange``: the two cards and their rows), a
        revealed card placed ignoring its element (``element_ignored``), a draw from the
        empty Dream deck (``deck_empty``: the row being dealt, the card ``dealt`` so far and
        whether it ``waits`` for its side), the cards a Book of Prophecies shows
        (``prophecy_seen``), in game order: what a text view of the game needs. A
        ``decision`` also carries the option's ``code``.

    check_deal : bool
        Also tell whether every shuffle is that of game ``game`` of seed ``seed``
        (:class:`DealCheck`): the result then holds ``deal_of_seed``, True or False, and
        ``cards_of_set``: whether the ``cards`` table is that of the card set the trace
        names (:func:`cards_of_named_set`; None for a set the replayer does not hold),
        with ``card_set`` only, ``cards_alike``: whether the table holds its cards
        whatever set the trace names (:func:`cards_alike`), and ``rules_as_named``:
        whether it names these rules (:func:`rules_as_named`).
    card_set : CardSet, optional
        With ``check_deal``, the set ``cards_of_set`` checks every trace against, instead
        of the set it names (R14 only).

    Returns
    -------
    dict
        The replayed ``result``.

    Raises
    ------
    ReplayError
        On an illegal decision, a shuffle that is not a permutation of the cards being
        shuffled, a check that differs from the replayed state, a missing or left-over log
        entry, or a result that differs.
    """
    trace, alias = with_reserved_id_renamed(trace)
    try:
        return _replay(trace, observe, narrate, check_deal, card_set)
    except ReplayError as err:
        if alias is None:
            raise
        raise ReplayError(f"{err} (card -1 is replayed as card {alias})") from None


def _replay(trace: dict, observe: Callable[[dict], None] | None,
            narrate: Callable[[str, dict], None] | None, check_deal: bool,
            card_set: CardSet | None = None) -> dict:
    expansions = _check_header(trace)
    _check_own_cards(trace, expansions)
    book = book_from_trace(trace.get("cards"), expansions)
    setup = trace["setup"]
    city_deck = _deck(setup, "city_deck", book.city_ids)
    dream_deck = _deck(setup, "dream_deck", book.dream_ids)
    book_deck = _deck(setup, "book_deck", book.book_ids)
    postcard_deck = _deck(setup, "postcard_deck", book.postcard_ids)
    deal = DealCheck(book, trace["seed"], trace["game"],
                     {"city_deck": city_deck, "dream_deck": dream_deck,
                      "book_deck": book_deck, "postcard_deck": postcard_deck}) \
        if check_deal else None
    cursor = LogCursor(trace["log"])
    decider = LogDecider(cursor)
    game = SoloGame(book, city_deck, dream_deck, decider, LogShuffler(cursor, deal),
                    LogChecker(cursor, observe), narrate, expansions=_expansion_mask(expansions),
                    book_deck=book_deck, postcard_deck=postcard_deck,
                    seats=VARIANT_NAMES.index(trace["variant"]) + 1)
    game.play()
    decider.act_done()  # a game won inside a census never finishes its act
    cursor.expect_end()
    result = game.result(trace.get("card_set"))
    _compare_result(trace["result"], result)
    if deal is None:
        return result
    checks = {"deal_of_seed": deal.matches,
              "cards_of_set": cards_of_named_set(trace, expansions, card_set),
              "rules_as_named": rules_as_named(trace)}
    if card_set is not None:
        checks["cards_alike"] = cards_alike(trace, expansions, card_set)
    return {**result, **checks}


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
        expected = card_set.with_expansions(_expansion_mask(expansions)).describe()
    except CardSetError:  # a set without cards for an expansion the trace plays
        return False
    return _card_multiset(expected) == _card_multiset(trace["cards"])


def rules_as_named(trace: dict) -> bool:
    """Whether the trace names the rules this replayer plays (``rules_version``, a key a
    trace of this package carries), or none: a trace naming other rules is replayed under
    these, which do not confirm it."""
    named = trace.get("rules_version")
    return named is None or named == RULES_VERSION


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
