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

The log's decisions are matched in reference/log_decisions.py, the ``cards`` table read in
reference/trace_cards.py, and the log read entry by entry in reference/trace_log.py.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from analyzer.cards.loader import CardSet
from analyzer.core.codes import (
    EMPTY,
    EXPANSION_NAMES,
    PLAYABLE_EXPANSIONS,
    RULES_VERSION,
    TRACE_FORMAT,
    VARIANT_NAMES,
)
from analyzer.reference.cards import CardBook
from analyzer.reference.engine import SoloGame, opening_decks
from analyzer.reference.log_decisions import LogDecider
from analyzer.reference.trace_cards import (
    book_from_trace,
    cards_alike,
    cards_of_named_set,
    check_own_cards,
    expansion_mask,
)
from analyzer.reference.trace_log import (
    LogCursor,
    ReplayError,
    id_multiset,
    int_list,
    is_int,
    quoted,
    strict_equal,
    swap_timing_note,
)


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
            raise ReplayError(f"log entry {index}: expected a shuffle, found {quoted(entry)}"
                              f"{swap_timing_note(entry)}")
        order = int_list(entry["shuffle"])
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
        if "city" in log_row and not strict_equal(log_row["city"], row["city"]):
            return False
        for side in ("L", "R"):
            if side in log_row and id_multiset(log_row[side]) != sorted(row[side]):
                return False
    return True


def _same_check_value(key: str, logged: Any, replayed: Any) -> bool:
    if key == "rows":
        return _same_rows(logged, replayed)
    if key == "hand":
        return id_multiset(logged) == sorted(replayed)
    if key == "hands":
        return (isinstance(logged, list) and len(logged) == len(replayed)
                and all(id_multiset(mine) == sorted(theirs)
                        for mine, theirs in zip(logged, replayed, strict=True)))
    if isinstance(replayed, dict):  # emptiness: compared on the keys it holds, as a check
        return isinstance(logged, dict) and all(
            strict_equal(value, replayed[name]) for name, value in logged.items()
            if name in replayed)
    return strict_equal(logged, replayed)


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
            raise ReplayError(f"log entry {index}: expected a check, found {quoted(entry)}"
                              f"{swap_timing_note(entry)}")
        if self.observe is not None:
            self.observe(snapshot)
        for key, value in logged.items():
            if key not in snapshot and key not in CHECK_KEYS:
                continue  # an extension (TRACE.md: extend only by adding keys)
            if key not in snapshot:
                raise ReplayError(f"log entry {index}: check key {key!r} is not part of "
                                  "this game (the variant and expansions of the header)")
            if not _same_check_value(key, value, snapshot[key]):
                raise ReplayError(f"log entry {index}: check {key} differs: log {quoted(value)}, "
                                  f"replay {quoted(snapshot[key])}")


#: The keys TRACE.md gives a check: one of these that the game has no use for (an
#: expansion's key outside it, ``hand`` in the team game) is an error; any other key is an
#: extension, which a checker leaves alone.
CHECK_KEYS = frozenset({"turn", "rows", "hand", "hands", "polarity", "dream_deck", "success",
                        "discard", "emptiness", "inhabitants", "wise_chaos"})


def _deck(setup: dict, key: str, expected: list[int]) -> list[int]:
    if key not in setup:  # TRACE.md's setup lists all four decks, empty when not in play
        raise ReplayError(f"setup.{key}: missing (an empty list when no such card is in "
                          "play)")
    deck = int_list(setup[key])
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
        if not is_int(value) or not 0 <= value < 2**63:
            raise ReplayError(f"{key}: {quoted(value)} is not a whole number from 0 to 2**63-1")
    for key in ("policy", "card_set"):
        if not isinstance(trace.get(key), str):
            raise ReplayError(f"{key}: expected a name, not {quoted(trace.get(key))}")
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


def _compare_result(expected: dict, replayed: dict) -> None:
    for key, value in replayed.items():
        if key not in expected or not strict_equal(expected[key], value):
            source = " (the trace's card_set)" if key == "card_set" else ""
            raise ReplayError(f"result: {key} is {quoted(expected.get(key))} in the trace's "
                              f"result, {quoted(value)} on replay{source}")


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
    ids = [i for i in ids if is_int(i)]
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
        return alias if holds_ids and is_int(value) and value == EMPTY else value

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
    check_own_cards(trace, expansions)
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
                    LogChecker(cursor, observe), narrate, expansions=expansion_mask(expansions),
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


def rules_as_named(trace: dict) -> bool:
    """Whether the trace names the rules this replayer plays (``rules_version``, a key a
    trace of this package carries), or none: a trace naming other rules is replayed under
    these, which do not confirm it."""
    named = trace.get("rules_version")
    return named is None or named == RULES_VERSION
