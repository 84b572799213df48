"""Turn the fast engine's int64 log into the ``urbion-trace/1`` log (../shared/TRACE.md)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from analyzer.core.codes import (
    BOOK_NAMES,
    EMPTY,
    SIDE_SLOTS,
    Act,
    BookKind,
    ChaosHow,
    Decision,
    Expansion,
    LogEntry,
)

SIDE_NAMES = ("L", "R")


class _Rows:
    """A cursor over the used log rows."""

    def __init__(self, log: np.ndarray) -> None:
        self.log = log
        self.i = 0

    def __iter__(self) -> Iterator[np.ndarray]:
        while self.i < len(self.log):
            row = self.log[self.i]
            self.i += 1
            yield row

    def take(self) -> np.ndarray:
        row = self.log[self.i]
        self.i += 1
        return row

    def ids(self, count: int) -> list[int]:
        """Read ``count`` ids from the DATA rows that follow a header."""
        ids: list[int] = []
        while len(ids) < count:
            row = self.take()
            assert row[0] == LogEntry.DATA, "log: DATA row expected"
            ids.extend(int(x) for x in row[1 : 1 + min(7, count - len(ids))])
        return ids


def _side_cards(row: np.ndarray, side: int) -> list[int]:
    start = 2 + side * SIDE_SLOTS  # row[0] is the entry code, row[1] the city
    return [int(c) for c in row[start : start + SIDE_SLOTS] if c != EMPTY]


def _hand(row: np.ndarray) -> list[int]:
    return [int(c) for c in row[2:6] if c != EMPTY]


def _check(header: np.ndarray, rows: _Rows, expansions: int, team: bool) -> dict:
    """A ``check`` entry, its keys in TRACE.md's order (the reference engine's too), so
    that both engines write the same bytes."""
    layout = [rows.take() for _ in range(int(header[5]))]
    hands = [_hand(rows.take()) for _ in range(2 if team else 1)]
    extras = Expansion.POSTCARDS | Expansion.EMPTINESS
    extra = rows.take() if team or expansions & extras else None
    assert extra is None or extra[0] == LogEntry.EXTRA_CHECK, "log: EXTRA_CHECK row expected"
    check: dict = {
        "turn": int(header[1]),
        "rows": [
            {"city": int(r[1]), "L": _side_cards(r, 0), "R": _side_cards(r, 1)}
            for r in layout
            if r[1] != EMPTY
        ],
    }
    if team:
        check["hands"] = hands
        check["polarity"] = int(extra[6])
    else:
        check["hand"] = hands[0]
    check.update(dream_deck=int(header[2]), success=int(header[3]), discard=int(header[4]))
    if expansions & Expansion.EMPTINESS:
        at = int(extra[4])
        if at != EMPTY:  # its place in ``rows``, which leaves placeholders out
            at -= sum(int(r[1]) == EMPTY for r in layout[:at])
        check["emptiness"] = {"cards": int(extra[3]), "at": None if at == EMPTY else at,
                              "flat": bool(extra[5])}
    if expansions & Expansion.POSTCARDS:
        check["inhabitants"] = int(extra[1])
        check["wise_chaos"] = int(extra[2])
    return check


def _chaos_entry(option: np.ndarray) -> dict:
    how = int(option[0])
    if how == ChaosHow.PLACE:
        return {"do": "chaos", "how": "place", "row": int(option[1])}
    if how == ChaosHow.CLEAR:
        return {"do": "chaos", "how": "clear", "row": int(option[1])}
    if how == ChaosHow.REVEAL:
        return {"do": "chaos", "how": "reveal"}
    if how == ChaosHow.WISE:
        return {"do": "chaos", "how": "wise"}
    return {"do": "chaos", "how": "aside"}


def _base_act(act: int, book: int = EMPTY) -> dict:
    """A census, exchange or Book act, its groups, pair or target filled in by later rows."""
    if act == Act.CENSUS:
        return {"census": {"zero_sum": []}}
    if act == Act.EXCHANGE:
        return {"exchange": []}
    name = BOOK_NAMES[book]
    if book == BookKind.PERFECT_BALANCE:
        return {"book": name, "zero_sum": []}
    if book == BookKind.PROPHECIES:
        return {"book": name, "order": []}
    return {"book": name}


def _phase1_entry(option: np.ndarray) -> dict:
    act, card = int(option[0]), int(option[1])
    if act == Act.PLACE:
        return {"do": "place", "card": card, "row": int(option[2]),
                "side": SIDE_NAMES[int(option[3])]}
    if act == Act.PASS:
        return {"do": "pass", "card": card}
    if act in (Act.REBUILD, Act.CHANGE_SIDES, Act.ALLY):
        paid = [card] + ([int(option[2])] if option[2] != EMPTY else [])
        if act == Act.ALLY:
            return {"do": "act", "discard": paid, "acts": [{"ally": True}]}
        name = "rebuild" if act == Act.REBUILD else "change_sides"
        return {"do": "act", "discard": paid, "acts": [{name: []}]}
    return {"do": "act", "discard": [card], "acts": [_base_act(act, int(option[3]))]}


#: Column 0 of the CHROMATIC option that spends a Wise Chaos (rules/chromatic_nb.py).
WISE_ROW = -2


def _placed(do: str, option: np.ndarray) -> dict:
    """A CHROMATIC or REVEALED entry: ``[row, side, card, -1]``, row -1 a discard, -2 (a
    Chromatic Chaos) a Wise Chaos."""
    if option[0] == WISE_ROW:
        return {"do": do, "wise": True}
    if option[0] == EMPTY:
        return {"do": do, "discard": True}
    return {"do": do, "row": int(option[0]), "side": SIDE_NAMES[int(option[1])]}


class LogDecoder:
    """Decode one game's log rows into trace entries and the two opening decks."""

    def __init__(self, log: np.ndarray, expansions: int = 0, team: bool = False) -> None:
        self.rows = _Rows(log)
        self.expansions = expansions
        self.team = team
        self.city_deck: list[int] = []
        self.dream_deck: list[int] = []
        self.book_deck: list[int] = []
        self.postcard_deck: list[int] = []
        self.entries: list[dict] = []
        self.last_act: dict | None = None
        self.books: dict | None = None

    def decode(self) -> list[dict]:
        for row in self.rows:
            code = int(row[0])
            if code == LogEntry.CITY_DECK:
                self.city_deck = self.rows.ids(int(row[1]))
            elif code == LogEntry.DREAM_DECK:
                self.dream_deck = self.rows.ids(int(row[1]))
            elif code == LogEntry.BOOK_DECK:
                self.book_deck = self.rows.ids(int(row[1]))
            elif code == LogEntry.POSTCARD_DECK:
                self.postcard_deck = self.rows.ids(int(row[1]))
            elif code == LogEntry.REMOVED:
                self.entries[-1]["removed"] = self.rows.ids(int(row[1]))
            elif code == LogEntry.GROUP:
                act = self._current_act()
                groups = act["zero_sum"] if "book" in act else act["census"]["zero_sum"]
                groups.append(self.rows.ids(int(row[1])))
            elif code == LogEntry.SHUFFLE:
                self.entries.append({"shuffle": self.rows.ids(int(row[1]))})
            elif code == LogEntry.CHECK:
                self.entries.append({"check": _check(row, self.rows, self.expansions,
                                                     self.team)})
            elif code == LogEntry.DECISION:
                count = len(self.entries)
                self._decision(int(row[1]), row[2:6])
                if self.team and len(self.entries) > count:
                    self.entries[-1]["seat"] = int(row[6])
            else:
                raise ValueError(f"log: unexpected entry code {code}")
        return self.entries

    def _decision(self, kind: int, option: np.ndarray) -> None:
        if kind == Decision.DEAL_SIDE:
            self.entries.append({"do": "side", "side": SIDE_NAMES[int(option[0])]})
        elif kind in (Decision.HAND_CHAOS, Decision.DRAW_CHAOS):
            self.entries.append(_chaos_entry(option))
        elif kind == Decision.PHASE1:
            entry = _phase1_entry(option)
            self.entries.append(entry)
            self.last_act = entry
        elif kind == Decision.EXCHANGE_PAIR:
            self._current_act()["exchange"] = [int(option[0]), int(option[1])]
        elif kind == Decision.ZERO_SUM:
            pass  # its dreams follow as a GROUP entry when the mask is not empty
        elif kind == Decision.CHROMATIC:
            self.entries.append(_placed("chromatic", option))
        elif kind == Decision.REVEALED:
            self.entries.append(_placed("revealed", option))
        elif kind == Decision.SECOND_ACT:
            if int(option[0]) != Act.PASS:
                self.last_act["acts"].append(_base_act(int(option[0]), int(option[3])))
        elif kind == Decision.BOOKS:
            self._books(int(option[0]))
        elif kind == Decision.BOOK_TARGET:
            self._book_target(option)
        elif kind == Decision.PROPHECY_ORDER:
            self._current_act()["order"] = [int(c) for c in option if c != EMPTY]
        elif kind == Decision.SWAP_POLARITY:
            if int(option[0]) == 1:
                self.entries.append({"do": "swap_polarity", "removed": []})
        elif kind == Decision.REBUILD_ROWS:
            self._current_act()["rebuild"] = [int(option[0]), int(option[1])]
        elif kind == Decision.CHANGE_SIDES_CARD:
            self._current_act()["change_sides"] = int(option[0])
        else:
            raise ValueError(f"log: unknown decision kind {kind}")

    def _books(self, choice: int) -> None:
        """The Books step's decisions fold into one entry (TRACE.md)."""
        if self.books is None:
            self.books = {"do": "books", "keep": 0}
            self.entries.append(self.books)
        self.books["keep"] += choice

    def _book_target(self, option: np.ndarray) -> None:
        act = self._current_act()
        if act["book"] == "freedom":
            act["row"] = int(option[0])
        elif act["book"].startswith("flying"):
            act.update(card=int(option[0]), row=int(option[2]))
        else:
            act["card"] = int(option[0])

    def _current_act(self) -> dict:
        """The act being resolved: the last of the turn's act entry."""
        return self.last_act["acts"][-1]

