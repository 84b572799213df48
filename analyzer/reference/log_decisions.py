"""The decisions of a replayed game taken from the trace's log: each entry matched to one
of the options the rules offer there, or refused with the reason it is not legal.
"""

from __future__ import annotations

from typing import Any

from analyzer.core.codes import (
    BOOK_NAMES,
    EMPTY,
    Decision,
    Side,
)
from analyzer.reference.engine import (
    BOOKS_PUT_AWAY,
    POLARITY_SWAP_CARDS,
    Option,
    SoloGame,
)
from analyzer.reference.trace_log import (
    LogCursor,
    ReplayError,
    id_multiset,
    int_list,
    is_int,
    quoted,
    strict_equal,
)

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


def _not_in_pile(removed: list[int] | None, pile: set[int]) -> str:
    """``; N, M are not in it`` for the ids of ``removed`` missing from the pile."""
    missing = [card for card in removed or [] if card not in pile]
    if not missing:
        return ""
    return f"; {', '.join(map(str, missing))} {'is' if len(missing) == 1 else 'are'} not in it"


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
                and id_multiset(entry.get("discard")) == sorted(canonical["discard"]))
    return all(key in entry and strict_equal(entry[key], value)
               for key, value in canonical.items())


def _why_not_placed(entry: dict, game: SoloGame) -> str:
    """The placement rule a Phase I ``place`` entry breaks, or "" when it is none of these
    (R04.1, R08.5, R10.3)."""
    card, row_index = entry.get("card"), entry.get("row")
    named = entry.get("side")
    side = {"L": Side.L, "R": Side.R}.get(named) if isinstance(named, str) else None
    seat = f" of seat {game.seat}" if game.seats > 1 else ""
    if not is_int(card) or card not in game.hand:
        return f"card {quoted(card)} is not in the hand{seat}"
    if not is_int(row_index) or not 0 <= row_index < len(game.rows) or \
            game.rows[row_index].is_placeholder:
        return f"there is no row {quoted(row_index)}"
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
    paid = int_list(entry.get("discard"))
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
    return f"{rule}; it may be paid here with {quoted(offered[act])}"


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
                              f"found {quoted(entry)}")
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
            raise ReplayError(f"log entry {index}: {quoted(entry)} is not a legal "
                              f"{name} decision: {why}")
        legal = [_legal_form(option.entry) for option in options]
        raise ReplayError(f"log entry {index}: {quoted(entry)} is not a legal {name} decision "
                          f"(legal: {quoted(legal)})")

    @staticmethod
    def _check_seat(index: int, entry: dict, game: SoloGame) -> None:
        """Team: every decision entry names the seat to play (R10)."""
        if game.seats > 1 and not strict_equal(entry.get("seat"), game.seat):
            # before turn 1 no turn alternates: the seat dealing decides (docs/engine.md)
            why = "R10.1: turns alternate" if game.turn > 0 else \
                "setup: seat 0's, or the seat whose opening hand draws (docs/engine.md)"
            raise ReplayError(f"log entry {index}: seat {quoted(entry.get('seat'))} on a "
                              f"decision of seat {game.seat} ({why})")

    def _books(self, game: SoloGame) -> int:
        """REVEAL (option 1) until the logged number of Books is laid out, then STOP."""
        if self.books_keep is None:
            index, entry = self.cursor.take("the books decision")
            if entry.get("do") != "books":
                raise ReplayError(f"log entry {index}: expected the books decision (R09.1), "
                                  f"found {quoted(entry)}")
            most = max(0, len(game.book_deck) - BOOKS_PUT_AWAY)
            keep = entry.get("keep")
            if not is_int(keep) or not 0 <= keep <= most:
                raise ReplayError(f"log entry {index}: books keep {quoted(keep)} is not a "
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
        removed = int_list(entry.get("removed"))
        pile = set(game.discard)
        if removed is None or len(removed) != POLARITY_SWAP_CARDS or \
                len(set(removed)) != POLARITY_SWAP_CARDS or not pile.issuperset(removed):
            raise ReplayError(f"log entry {index}: swap_polarity removes "
                              f"{quoted(entry.get('removed'))}, not {POLARITY_SWAP_CARDS} "
                              "different cards of the discard pile"
                              f"{_not_in_pile(removed, pile)} (R10.4)")
        # the engine removes the cards its option names: this swap's, whichever 8 they are
        options[1].entry["removed"] = list(removed)
        return 1

    def _book_target(self, options: list[Option]) -> int:
        """The option whose target keys (``card``, ``row``, ``order``) the Book act holds."""
        act = self.act
        for choice, option in enumerate(options):
            if all(strict_equal(act.get(key), value) for key, value in option.entry.items()):
                return choice
        keys, rule = BOOK_KEYS[act["book"]]
        target = {key: act.get(key) for key in keys}
        raise ReplayError(f"log entry {self.act_index}: book {act['book']} target "
                          f"{quoted(target)} is not legal here ({rule})")

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
                ok = is_int(value)
            elif key == "order":
                ok = int_list(value) is not None
            else:
                ok = isinstance(value, list) and all(int_list(g) is not None for g in value)
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
            if not isinstance(groups, list) or any(int_list(g) is None for g in groups):
                raise ReplayError(f"{where}: census needs zero_sum, a list of id lists")
        elif name == "exchange":
            pair = int_list(value)
            if pair is None or len(pair) != 2:
                raise ReplayError(f"{where}: exchange needs two card ids")
        elif name == "rebuild":
            rows = int_list(value)
            if rows is None or len(rows) != 2:
                raise ReplayError(f"{where}: rebuild needs two row numbers")
        elif name == "change_sides" and not is_int(value):
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
