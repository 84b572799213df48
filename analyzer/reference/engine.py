"""Reference rules of Urbion, written straight from the rulebook.

The base game and all seven expansions in any combination, solo or in the team variant:
City Squares & Metas, Chromatic Chaos, Temples & Harmony, Hanging Gardens & Wizards
(``docs/engine.md``, "Expansions I"; RULINGS R02, R07, R08), the Books of Power, Postcards &
Wise Chaos and the Emptiness (``docs/engine.md``, "Expansions II and the team game";
RULINGS R09-R12).

This is the oracle the fast engine is checked against, so it is plain Python written for
clarity, not speed. It follows ``docs/engine.md`` (draw order, option lists and their order)
and ``RULINGS.md``; comments cite the ruling that decides a point.

The rules never choose, shuffle or record anything themselves. Three collaborators do:

- a :class:`Decider` picks one of the legal options at every decision (a policy when
  playing, the trace's log when replaying);
- a :class:`Shuffler` shuffles the Dream deck during play (a random stream when playing,
  the log's ``shuffle`` entry when replaying);
- a :class:`Checkpoint` receives the state at every check point (written to the log when
  playing, compared with the log's ``check`` entry when replaying).

Each legal option carries both its integer code (the ``docs/engine.md`` option row that a
policy sees) and its trace form, so both sides map decisions to the log the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any, NamedTuple, Protocol

from analyzer.core.codes import (
    BOOK_NAMES,
    EMPTY,
    HAND_SIZE,
    MAX_ROWS,
    OPTION_COLS,
    REASON_NAMES,
    SIDE_SLOTS,
    Act,
    BookKind,
    BooksChoice,
    ChaosHow,
    Decision,
    Expansion,
    Outcome,
    PostcardKind,
    Reason,
    Side,
    Stream,
)
from analyzer.core.rng import PyStream
from analyzer.reference.cards import CardBook
from analyzer.reference.postcards import NotedRow, condition_holds

SIDES = (Side.L, Side.R)
SIDE_NAMES = ("L", "R")
REVEAL_COUNT = 4
ZERO_SUM_MASKS = range(1, 1 << (2 * SIDE_SLOTS))

# Books of Power (R09)
BOOKS_PUT_AWAY = 4  # R09.1: 4 Books are put away unseen, the others may be revealed
BURN_PER_BOOK = 4  # R09.1: Dream cards burnt for each Book kept
PERFECT_BALANCE_BONUS = 1  # R05.4: City cards a Perfect Balance brings
BOOK_PERFECT_BALANCE_BONUS = 2  # R09.6
PROPHECY_CARDS = 2  # R09.7: Dream cards looked at per Book of Prophecies
FLYING = {BookKind.FLYING_SOGNAE: Side.L, BookKind.FLYING_INCUBI: Side.R}
INVISIBLE = {BookKind.INVISIBLE_SOGNAE: Side.L, BookKind.INVISIBLE_INCUBI: Side.R}

# Postcards and Wise Chaos (R11)
CONDITION_MET = 1  # R11.4: inhabitant points of a postcard scored with its condition held
SENT_AWAY = -2  # R11.4: otherwise, or sent away
WISE_BASE = 3  # R11.2: Wise Chaos in play, plus one for each of these expansions
WISE_EXTRA = (Expansion.SQUARES_METAS, Expansion.TEMPLES_HARMONY, Expansion.GARDENS_WIZARDS)
WISE_DEPTH = 3  # R11.3: a Wise Chaos puts the card below the top 3 Dream cards
WISE_CHROMATIC = -2  # column 0 of a CHROMATIC option that uses a Wise Chaos
HOURGLASS_TURNS = 4  # R11.6: turned 4 times, it is sent away at the 5th end of turn

# Team variant (R10)
SEATS_TEAM = 2
POLARITY_SWAP_CARDS = 8  # R10.4: discards removed from the game by a polarity swap
KEEP_POLARITY, SWAP_POLARITY = 0, 1

#: Phase I acts paid with a second hand card (column 2 of the option).
TWO_CARD_ACTS = (Act.REBUILD, Act.CHANGE_SIDES, Act.ALLY)
#: Acts after which a Wizard paid gives a second action (R08.3, R09).
SECOND_ACT_AFTER = (Act.CENSUS, Act.EXCHANGE, Act.BOOK)


class Option(NamedTuple):
    """One legal choice of a decision.

    Attributes
    ----------
    code : tuple of int
        The four option columns a policy sees (``docs/engine.md``, "Decisions and their
        options"); -1 where unused.
    entry : Any
        The choice's trace form: a whole log entry for ``DEAL_SIDE``, ``HAND_CHAOS``,
        ``DRAW_CHAOS``, ``CHROMATIC``, ``REVEALED``, ``PHASE1`` and ``SWAP_POLARITY``
        (None for keeping the polarity, which is not logged); ``"stop"`` or ``"reveal"``
        for ``BOOKS`` (the step is logged as one ``books`` entry); the discarded ids (or
        None) for ``ZERO_SUM``; the two swapped ids for ``EXCHANGE_PAIR``; the act to append
        (or None for no second action) for ``SECOND_ACT``; the two rows for
        ``REBUILD_ROWS``; the card's id for ``CHANGE_SIDES_CARD``; the keys to add to the
        Book act (``card``, ``row``, ``order``) for ``BOOK_TARGET`` and ``PROPHECY_ORDER``.
        The forms that are not whole entries are folded into the turn's act entry.
    """

    code: tuple[int, ...]
    entry: Any


class Decider(Protocol):
    """Picks one option at every decision of the game."""

    def decide(self, kind: int, options: list[Option], game: SoloGame) -> int:
        """Return the index of the chosen option in ``options``."""
        ...

    def act_done(self) -> None:
        """The Phase I decision of this turn is fully resolved."""
        ...


class Shuffler(Protocol):
    """Shuffles the Dream deck during play."""

    def shuffle(self, cards: list[int]) -> list[int]:
        """Return ``cards`` (top first) in their shuffled order, top first."""
        ...


def opening_decks(book: CardBook, seed: int, game: int) -> tuple[dict[str, list[int]], PyStream]:
    """Setup step 1 of game ``game`` of seed ``seed``: the City and Dream decks, each ids
    ascending, shuffled in that order by the DEAL stream, and the Book and Postcard decks,
    each by a stream of its own derived from DEAL's key. Returns the decks by their trace
    key (``setup``) and the DEAL stream, which shuffles the Dream deck again in play."""
    deal = PyStream(seed, game, Stream.DEAL)
    decks = {"city_deck": list(book.city_ids), "dream_deck": list(book.dream_ids),
             "book_deck": list(book.book_ids), "postcard_deck": list(book.postcard_ids)}
    deal.shuffle(decks["city_deck"])
    deal.shuffle(decks["dream_deck"])
    deal.derived(Stream.BOOK_DECK).shuffle(decks["book_deck"])
    deal.derived(Stream.POSTCARD_DECK).shuffle(decks["postcard_deck"])
    return decks, deal


class Checkpoint(Protocol):
    """Receives the state at the end of setup, of every turn and of the game."""

    def check(self, snapshot: dict) -> None:
        """Handle one ``check`` payload (``{"turn", "rows", "hand", ...}``)."""
        ...


class GameOver(Exception):
    """Ends the game wherever it is raised (R13)."""

    def __init__(self, outcome: int, reason: int) -> None:
        super().__init__(REASON_NAMES[reason])
        self.outcome = outcome
        self.reason = reason


@dataclass
class Row:
    """One row of the layout: a City card and its two sides of dreams.

    A pacified row whose City card has not been replaced yet is a *placeholder*:
    ``city`` is -1 and it holds no dreams (``docs/engine.md``, Census step 2).
    """

    city: int
    sides: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))

    @property
    def is_placeholder(self) -> bool:
        """True for a pacified row waiting for its new City card."""
        return self.city == EMPTY

    def dreams(self) -> list[int]:
        """All dreams of the row, left side then right side, each in side order."""
        return self.sides[Side.L] + self.sides[Side.R]

    def has_room(self, side: int) -> bool:
        """At most 3 dreams a side (R01.1)."""
        return len(self.sides[side]) < SIDE_SLOTS

    def noted(self) -> NotedRow:
        """The row as it stands, for the postcard conditions (R05.2)."""
        return NotedRow(self.city, tuple(self.sides[Side.L]), tuple(self.sides[Side.R]))


class SoloGame:
    """One game, solo or team (R10), from setup to its end.

    Parameters
    ----------
    book : CardBook
        Every card of the game.
    city_deck, dream_deck : list of int
        The decks after the opening shuffle, top card first.
    decider, shuffler, checkpoint
        The collaborators described in the module docstring.
    narrate : callable, optional
        Called as ``narrate(event, details)`` at every event a text view needs.
    expansions : int
        The expansion set in play (``Expansion`` bits). The cards of ``book`` and the decks
        must already be those in play; the set decides what no card shows: the special
        actions (Hanging Gardens & Wizards, R08.4), the Wise Chaos (R11.2).
    book_deck, postcard_deck : list of int, optional
        The Book and Postcard decks after their opening shuffle, top first (R09.1, R11);
        by default the book's Books and Postcards in id order.
    seats : int
        1 for the solo game, 2 for the team variant (R10).

    Attributes
    ----------
    rows : list of Row
        The layout, top row first.
    hands : list of list of int
        Each seat's hand in order; ``hand`` is the hand of the seat to play.
    discard, success : list of int
        The discard pile and the Success pile (oldest first).
    removed : list of int
        Discards removed from the game by polarity swaps (R10.4).
    in_transit : list of int
        Cards taken from the Dream deck that have not reached a zone yet: a Chaos, Meta or
        Harmony dealt first, waiting for its partner (R02.2, R02.4), a Chaos set aside from
        the opening hand, a Chaos being resolved and the Chaos revealed with it, a held
        Chromatic Chaos (R02.5), a Chromatic Chaos being resolved and the card it reveals, a
        card being burnt (R09.1). It is empty at every check except possibly the last one
        (``docs/engine.md``: a waiting card 1 is in no zone).
    held : list of int
        Chromatic Chaos held while dealing or drawing the opening hand, first held first,
        to be resolved when the setup step or census is finished (R02.5).
    books : list of int
        The Books laid out, in the order revealed (R09.1); the rest of ``book_deck`` is
        out of the game.
    postcard_deck : list of int
        The Postcards not dealt yet, top first.
    postcard_on : dict of int to int
        The postcard lying on each dream that carries one (R11.4).
    hourglass_turns : dict of int to int
        How often each Hourglass in the layout has been turned (R11.6).
    inhabitant_pile : list of int
        Postcards scored or sent away; ``inhabitants`` is the sum of their points (R11.9).
    wise_left : int
        Wise Chaos still to use (R11.2).
    emptiness_pile, emptiness_boxed : list of int
        The Emptiness cards still in the pile (top first) and those out of the game (R12).
    figure_city : int
        The City card the Emptiness figure stands on, -1 on the pile or out of the game.
    figure_flat : bool
        True while the figure lies flat on the pile after an Ally (R12.3).
    seat, polarity : int
        The seat to play (in setup 0, but while seat 1 draws its opening hand) and the
        seat holding the Sognae Polarity card (R10).
    turn : int
        Phase I's begun so far.
    outcome, reason : int
        ``Outcome`` and ``Reason`` codes once the game is over.
    """

    def __init__(
        self,
        book: CardBook,
        city_deck: list[int],
        dream_deck: list[int],
        decider: Decider,
        shuffler: Shuffler,
        checkpoint: Checkpoint,
        narrate: Callable[[str, dict], None] | None = None,
        expansions: int = 0,
        *,
        book_deck: list[int] | None = None,
        postcard_deck: list[int] | None = None,
        seats: int = 1,
    ) -> None:
        if seats not in (1, SEATS_TEAM):
            raise ValueError(f"a game has 1 or 2 seats, not {seats}")
        self.narrate = narrate or (lambda event, details: None)
        self.book = book
        self.expansions = expansions
        self.special_actions = bool(expansions & Expansion.GARDENS_WIZARDS)  # R08.4
        self.books_in_play = bool(expansions & Expansion.BOOKS)
        self.postcards_in_play = bool(expansions & Expansion.POSTCARDS)
        self.emptiness_in_play = bool(expansions & Expansion.EMPTINESS)
        self.city_deck = list(city_deck)
        self.dream_deck = list(dream_deck)
        self.total_cities = len(city_deck)
        self.decider = decider
        self.shuffler = shuffler
        self.checkpoint = checkpoint
        self.rows: list[Row] = []
        self.seats = seats
        self.seat = 0
        self.polarity = 0  # R10.1: seat 0 holds the Sognae Polarity card
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.discard: list[int] = []
        self.success: list[int] = []
        self.removed: list[int] = []
        self.in_transit: list[int] = []
        self.held: list[int] = []
        # the row being dealt and its card so far, which a draw from an empty deck tells
        self.dealing: dict = {}
        self.book_deck = list(book.book_ids if book_deck is None else book_deck)
        self.books: list[int] = []
        self.postcard_deck = list(book.postcard_ids if postcard_deck is None else postcard_deck)
        if not self.books_in_play:
            self.book_deck = []
        if not self.postcards_in_play:
            self.postcard_deck = []
        self.postcard_on: dict[int, int] = {}
        self.hourglass_turns: dict[int, int] = {}
        self.inhabitant_pile: list[int] = []
        self.inhabitants = 0
        self.wise_left = 0
        if self.postcards_in_play:
            self.wise_left = WISE_BASE + sum(bool(expansions & bit) for bit in WISE_EXTRA)
        self.emptiness_pile = list(book.emptiness_ids) if self.emptiness_in_play else []
        self.emptiness_boxed: list[int] = []
        self.figure_city = EMPTY
        self.figure_flat = False
        self.turn = 0
        self.outcome = Outcome.RUNNING
        self.reason = Reason.NONE

    # ------------------------------------------------------------------ the game

    def play(self) -> None:
        """Play setup and turns until the game ends, then send the final check."""
        try:
            self._setup()
            while True:
                self._play_turn()
        except GameOver as end:
            self.outcome, self.reason = end.outcome, end.reason
        self.checkpoint.check(self.snapshot())

    def result(self, card_set_name: str) -> dict:
        """The trace's ``result`` object (TRACE.md, "The result")."""
        return {
            "outcome": Outcome._fields[self.outcome].lower(),
            "reason": REASON_NAMES[self.reason],
            "card_set": card_set_name,
            "turns": self.turn,
            "pacified": len(self.success),
            "deck_left": len(self.dream_deck),
        }

    def snapshot(self) -> dict:
        """The payload of a ``check`` entry; placeholder rows are left out.

        Keys of expansions not in play are left out; the team game shows both hands and
        the polarity instead of ``hand`` (TRACE.md).
        """
        snap: dict[str, Any] = {
            "turn": self.turn,
            "rows": [
                {"city": row.city, "L": list(row.sides[Side.L]), "R": list(row.sides[Side.R])}
                for row in self.rows
                if not row.is_placeholder
            ],
        }
        if self.seats == 1:
            snap["hand"] = list(self.hands[0])
        else:
            snap["hands"] = [list(hand) for hand in self.hands]
            snap["polarity"] = self.polarity
        snap.update(dream_deck=len(self.dream_deck), success=len(self.success),
                    discard=len(self.discard))
        if self.emptiness_in_play:
            at = self.emptiness_row()
            if at != EMPTY:  # its place in ``rows``, which leaves placeholders out
                at -= sum(row.is_placeholder for row in self.rows[:at])
            snap["emptiness"] = {"cards": len(self.emptiness_pile),
                                 "at": None if at == EMPTY else at, "flat": self.figure_flat}
        if self.postcards_in_play:
            snap["inhabitants"] = self.inhabitants
            snap["wise_chaos"] = self.wise_left
        return snap

    @property
    def hand(self) -> list[int]:
        """The hand of the seat to play (solo: the only hand)."""
        return self.hands[self.seat]

    def book_kinds(self) -> list[int]:
        """The ``BookKind`` of every Book in the layout, each once, ascending."""
        return sorted({self.book[card].kind for card in self.books})

    @property
    def prophecies(self) -> int:
        """Books of Prophecies in the layout (R09.7)."""
        return sum(self.book[card].kind == BookKind.PROPHECIES for card in self.books)

    def emptiness_row(self) -> int:
        """The row of the City card the Emptiness figure stands on, -1 when it does not
        stand on one (on the pile or out of the game, R12.1)."""
        if self.figure_city == EMPTY:
            return EMPTY
        for row_index, row in enumerate(self.rows):
            if row.city == self.figure_city:
                return row_index
        raise AssertionError(f"the Emptiness stands on City {self.figure_city}, not in the layout")

    def _ask(self, kind: int, options: list[Option]) -> Option:
        chosen = options[self.decider.decide(kind, options, self)]
        self.narrate("decision", {"kind": kind, "entry": chosen.entry, "code": chosen.code})
        return chosen

    # ------------------------------------------------------------------ zones

    def _draw(self) -> int:
        """Draw the top Dream card; only a draw from an empty deck loses (R06.3, R13.2)."""
        if not self.dream_deck:
            self.narrate("deck_empty", dict(self.dealing))
            raise GameOver(Outcome.LOSS, Reason.DECK_EMPTY)
        return self._lift_top()

    def _lift_top(self) -> int:
        card = self.dream_deck.pop(0)
        self.in_transit.append(card)
        return card

    def _to_side(self, row_index: int, side: int, card: int) -> None:
        self.in_transit.remove(card)
        self.rows[row_index].sides[side].append(card)

    def _to_hand(self, card: int) -> None:
        self.in_transit.remove(card)
        self.hand.append(card)

    def _to_discard(self, card: int) -> None:
        self.in_transit.remove(card)
        self.discard.append(card)

    def _discard_from_row(self, row: Row, cards: list[int]) -> None:
        """Discard dreams from a row, in the order given; a postcard on one of them is sent
        away (R11.4: a pacification scores its postcards before this)."""
        for card in cards:
            for side in SIDES:
                if card in row.sides[side]:
                    row.sides[side].remove(card)
            self.discard.append(card)
            if card in self.postcard_on:
                self._postcard_leaves(card, SENT_AWAY, "discarded")

    def _to_success(self, city: int) -> None:
        """Put a City card on the Success pile; the game ends that moment when the pile is
        complete (R13.1), lost when the inhabitants sum below 0 (R11.9)."""
        self.success.append(city)
        if len(self.success) == self.total_cities:
            if self.inhabitants >= 0:
                raise GameOver(Outcome.WIN, Reason.ALL_PACIFIED)
            raise GameOver(Outcome.LOSS, Reason.INHABITANTS)

    def _spot(self, card: int) -> tuple[int, int]:
        """(row, side) of a dream in the layout."""
        for row_index, row in enumerate(self.rows):
            for side in SIDES:
                if card in row.sides[side]:
                    return row_index, side
        raise AssertionError(f"dream {card} is not in the layout")

    # ------------------------------------------------------------------ sums (R01)

    def side_total(self, row: Row, side: int) -> int:
        """Signed sum of the dreams on one side of a row."""
        return sum(self.book.value_on(card, side) for card in row.sides[side])

    def is_balanced(self, row: Row) -> bool:
        """At least one dream and a total of 0 (R01.3)."""
        total = self.side_total(row, Side.L) + self.side_total(row, Side.R)
        return bool(row.dreams()) and total == 0

    def more_influential_side(self, row: Row) -> int | None:
        """The side with the larger absolute total, or None on a tie (R01.4)."""
        left = abs(self.side_total(row, Side.L))
        right = abs(self.side_total(row, Side.R))
        if left == right:
            return None
        return Side.L if left > right else Side.R

    # ------------------------------------------------------------------ setup

    def _setup(self) -> None:
        """City rows, the Books step, dealing, the opening hands, the held Chromatic Chaos,
        the turn-0 check (R09.1, docs/engine.md "Setup, in order")."""
        for _ in range(min(MAX_ROWS, len(self.city_deck))):
            self.rows.append(Row(self.city_deck.pop(0)))
        if self.books_in_play:
            self._books_step()
        for row_index in range(len(self.rows)):
            self._deal_two(row_index)
        for seat in range(self.seats):
            # R10.1: the Sognae player (seat 0) draws the whole opening hand first.
            self.seat = seat
            self._draw_opening_hand()
        # The seat is that of the hand being drawn; outside the opening hands setup is seat
        # 0's ("0 while dealing"), the held Chromatic Chaos too.
        self.seat = 0
        self._resolve_held()  # R02.5: after every opening hand
        self.checkpoint.check(self.snapshot())

    def _books_step(self) -> None:
        """Reveal Books one at a time while the policy wants more (all but the 4 put away:
        4 of the rulebook's 8), then burn 4 Dream cards for each Book kept (R09.1)."""
        revealable = max(0, len(self.book_deck) - BOOKS_PUT_AWAY)
        options = [Option((BooksChoice.STOP, EMPTY, EMPTY, EMPTY), "stop"),
                   Option((BooksChoice.REVEAL, EMPTY, EMPTY, EMPTY), "reveal")]
        while len(self.books) < revealable:
            if self._ask(Decision.BOOKS, options).code[0] == BooksChoice.STOP:
                break
            self.books.append(self.book_deck[len(self.books)])
        self.narrate("books", {"kept": list(self.books)})
        self._burn(BURN_PER_BOOK * len(self.books))

    def _burn(self, count: int) -> None:
        """Draw ``count`` Dream cards one at a time: non-Chaos are discarded, Chaos and
        Chromatic Chaos go back and the deck is shuffled once (R09.1). The rulebook says
        "draw", so a burn from an empty deck loses (R13.2; docs/rules-notes.md 25); the
        Chaos set aside are then in no zone."""
        back: list[int] = []
        burnt: list[int] = []
        for _ in range(count):
            card = self._draw()
            if self.book.is_chaos_like(card):
                back.append(card)
            else:
                self._to_discard(card)
                burnt.append(card)
        if count:
            self.narrate("burn", {"burnt": burnt, "back": back})
        if back:
            for card in back:
                self.in_transit.remove(card)
            self.dream_deck = self.shuffler.shuffle(self.dream_deck + back)

    def _deal_two(self, row_index: int) -> None:
        """Deal 2 dreams to a row by type, ignoring elements (R02, docs/engine.md).

        Both cards are revealed before a side is chosen (rules-notes 17): a card 1 whose
        side its type fixes is placed at once; a Chaos, Meta or Harmony card 1 waits for
        card 2, and a Meta's or Harmony's side is asked with card 2 in view. Card 1
        receives the next postcard before card 2 is drawn (R02.6).
        """
        self.dealing = {"row": row_index, "dealt": []}  # told if the deck runs out
        first = self._draw_for_dealing()
        self.dealing["dealt"] = [first]
        self._deal_postcard(row_index, first)
        first_waits = self.book.is_chaos(first) or self.book.is_two_sided(first)
        self.dealing["waits"] = first_waits
        if not first_waits:
            self._to_side(row_index, self.book.natural_side(first), first)
        second = self._draw_for_dealing()
        self.dealing = {}
        first_chaos = self.book.is_chaos(first)
        second_chaos = self.book.is_chaos(second)
        if first_chaos and second_chaos:
            side = self._ask_deal_side(row_index)  # R02.3
            self._to_side(row_index, side, first)
            self._to_side(row_index, side, second)
        elif first_chaos:
            # R02.2, R02.4: the Chaos joins its partner's side, after the partner.
            side = self._deal_by_type(row_index, second, partner=first)
            self._to_side(row_index, side, first)
        elif first_waits:
            side = self._deal_by_type(row_index, first, partner=second)
            if second_chaos:
                self._to_side(row_index, side, second)
            else:
                self._deal_by_type(row_index, second)
        elif second_chaos:
            self._to_side(row_index, self.book.natural_side(first), second)
        else:
            self._deal_by_type(row_index, second)
        self.narrate("deal", {"row": row_index, "cards": [first, second],
                              "city": self.rows[row_index].city})

    def _deal_postcard(self, row_index: int, card: int) -> None:
        """The top Postcard (if any is left) goes on the first dream dealt (R02.6, R11.1)."""
        if not self.postcard_deck:
            return
        postcard = self.postcard_deck.pop(0)
        self.postcard_on[card] = postcard
        if self.book.postcard_kind(postcard) == PostcardKind.HOURGLASS:
            self.hourglass_turns[postcard] = 0  # R11.6: not turned yet
        self.narrate("postcard", {"postcard": postcard, "card": card, "row": row_index})

    def _draw_for_dealing(self) -> int:
        """Draw; a Chromatic Chaos is held and a replacement drawn at once (R02.5)."""
        card = self._draw()
        while self.book.is_chromatic(card):
            self._hold(card)
            card = self._draw()
        return card

    def _hold(self, card: int) -> None:
        """Set a Chromatic Chaos aside until the setup step or census is done (R02.5)."""
        self.held.append(card)
        self.narrate("hold", {"card": card})

    def _deal_by_type(self, row_index: int, card: int, partner: int = EMPTY) -> int:
        """Place a dealt non-Chaos by its type and return its side: a Meta or Harmony on
        the side the policy chooses (R02.4), any other card on its own side (R02.1).
        ``partner``: the other card dealt to the row, drawn but not placed yet."""
        if self.book.is_two_sided(card):
            side = self._ask_deal_side(row_index, card, partner)
        else:
            side = self.book.natural_side(card)
        self._to_side(row_index, side, card)
        return side

    def _ask_deal_side(self, row_index: int, card: int = EMPTY,
                       partner: int = EMPTY) -> int:
        """The side of two Chaos dealt together (``card`` -1) or of a Meta or Harmony, with
        the other card dealt to the row when it is not placed yet (``partner``)."""
        options = [
            Option((side, row_index, card, partner), {"do": "side", "side": SIDE_NAMES[side]})
            for side in SIDES
        ]
        return self._ask(Decision.DEAL_SIDE, options).code[0]

    def _draw_opening_hand(self) -> None:
        """Draw the seat's hand to 4; a Chaos is placed at once or set aside and shuffled
        back as soon as the hand holds 4 (R03, R10.1).

        A Chromatic Chaos is held and replaced (R02.5); the held list is resolved after
        every opening hand, before the turn-0 check.
        """
        aside: list[int] = []
        while len(self.hand) < HAND_SIZE:
            card = self._draw()
            self.narrate("draw", {"card": card, "seat": self.seat})
            if self.book.is_chromatic(card):
                self._hold(card)
                continue
            if not self.book.is_chaos(card):
                self._to_hand(card)
                continue
            options = self._chaos_place_options(card) or [
                Option((ChaosHow.ASIDE, EMPTY, EMPTY, card), {"do": "chaos", "how": "aside"})
            ]
            how, row_index, side, _ = self._ask(Decision.HAND_CHAOS, options).code
            if how == ChaosHow.PLACE:
                self._to_side(row_index, side, card)
            else:
                aside.append(card)  # R03.2: stays out of every zone until the shuffle
        if aside:
            for card in aside:
                self.in_transit.remove(card)
            self.dream_deck = self.shuffler.shuffle(self.dream_deck + aside)
            self.narrate("shuffled_back", {"cards": aside})

    # ------------------------------------------------------------------ a turn (R13.3)

    def _play_turn(self) -> None:
        self.turn += 1
        self.seat = (self.turn - 1) % self.seats  # R10.1: turns alternate
        self.narrate("turn", {"turn": self.turn, "seat": self.seat, "polarity": self.polarity})
        self._move_flagships()  # R11.7, before the Emptiness (R13.3)
        self._move_emptiness()  # R12.1
        if self.seats == SEATS_TEAM:
            self._offer_polarity_swap()  # R10.4
        self._phase_one()
        self._phase_two()
        self._turn_hourglasses()  # R11.6
        self.checkpoint.check(self.snapshot())

    def _offer_polarity_swap(self) -> None:
        """Before Phase I, with 8 or more discards: remove 8 from the game and swap
        polarities, or not (R10.4). The option offers the 8 most recent; the swap removes
        the ids of the option chosen (a replayed trace may name others)."""
        if len(self.discard) < POLARITY_SWAP_CARDS:
            return  # R10.4: not offered
        removed = self.discard[-POLARITY_SWAP_CARDS:]
        options = [Option((KEEP_POLARITY, EMPTY, EMPTY, EMPTY), None),
                   Option((SWAP_POLARITY, EMPTY, EMPTY, EMPTY),
                          {"do": "swap_polarity", "removed": list(removed)})]
        chosen = self._ask(Decision.SWAP_POLARITY, options)
        if chosen.code[0] == SWAP_POLARITY:
            # any 8 may leave (the pile is never drawn from again): the engines take the 8
            # most recent, a replayed trace the 8 it names
            for card in chosen.entry["removed"]:
                self.discard.remove(card)
            self.removed.extend(chosen.entry["removed"])
            self.polarity = 1 - self.polarity

    def _polarity_side(self) -> int | None:
        """Team: the side the seat to play may place on (R10.3); None in the solo game."""
        if self.seats == 1:
            return None
        return Side.L if self.seat == self.polarity else Side.R

    def _phase_one(self) -> None:
        """Place the turn's card, or discard it (or two) for no action or an action (R04,
        R08, R09, R12.3)."""
        act, card, x, y = self._ask(Decision.PHASE1, self._phase_one_options()).code
        hand = self.hand
        hand.remove(card)
        if act == Act.PLACE:
            self.rows[x].sides[y].append(card)
        else:
            # The Phase I card(s) reach the discard pile, in option order, before anything
            # the action discards.
            self.discard.append(card)
            if act in TWO_CARD_ACTS and x != EMPTY:
                hand.remove(x)  # R08.4, R12.3: the second card paid
                self.discard.append(x)
            if act == Act.CENSUS:
                self._census()
            elif act == Act.EXCHANGE:
                self._exchange()
            elif act == Act.REBUILD:
                self._rebuild()
            elif act == Act.CHANGE_SIDES:
                self._change_sides()
            elif act == Act.BOOK:
                self._book_action(y)
            elif act == Act.ALLY:
                self._emptiness_card_leaves(flat=True)  # R12.3
            if act in SECOND_ACT_AFTER and self._grants_second_act(card):
                self._second_act()
        self.decider.act_done()

    def _phase_one_options(self) -> list[Option]:
        """The PHASE1 options in contract order (docs/engine.md, "Phase I with the
        expansions" and "Phase I and the second action, with the new expansions")."""
        can_exchange = self._can_exchange()
        can_rebuild = self.special_actions and len(self._rebuild_rows()) >= 2
        can_change = self.special_actions and bool(self._change_sides_options())
        usable_books = self._usable_book_kinds()
        polarity_side = self._polarity_side()
        options: list[Option] = []
        for card in self.hand:
            for row_index, row in enumerate(self.rows):
                for side in self.book.sides(card):
                    if polarity_side is not None and side != polarity_side:
                        continue  # R10.3: only the seat's polarity, Metas and Harmony too
                    if self.book.shows_element(row.city, card) and row.has_room(side):
                        entry = {"do": "place", "card": card, "row": row_index,
                                 "side": SIDE_NAMES[side]}
                        options.append(Option((Act.PLACE, card, row_index, side), entry))
            options.append(Option((Act.PASS, card, EMPTY, EMPTY), {"do": "pass", "card": card}))
            census = {"do": "act", "discard": [card], "acts": [{"census": {"zero_sum": []}}]}
            options.append(Option((Act.CENSUS, card, EMPTY, EMPTY), census))
            if can_exchange:
                exchange = {"do": "act", "discard": [card], "acts": [{"exchange": []}]}
                options.append(Option((Act.EXCHANGE, card, EMPTY, EMPTY), exchange))
            if self.special_actions and self.book.is_wizard(card):
                # R08.3, R08.4: a Wizard alone pays for a special action.
                options += self._special_options([card], can_rebuild, can_change)
            for kind in usable_books:  # R09.2: a Book action instead of a base action
                entry = {"do": "act", "discard": [card], "acts": [self._book_act(kind)]}
                options.append(Option((Act.BOOK, card, EMPTY, kind), entry))
        if self.special_actions:
            # R08.4: or two hand cards with at least one element in common.
            for i, first in enumerate(self.hand):
                for second in self.hand[i + 1:]:
                    if self.book.share_element(first, second):
                        options += self._special_options([first, second], can_rebuild,
                                                         can_change)
        if self.emptiness_pile:
            # R12.3: a Sognae and an Incubi, either way round (R08.2: a Meta or Harmony
            # either), whatever the seat's polarity.
            sides = [self.book.sides(card) for card in self.hand]
            for i, first in enumerate(self.hand):
                for j in range(i + 1, len(self.hand)):
                    second = self.hand[j]
                    if self._can_ally(sides[i], sides[j]):
                        entry = {"do": "act", "discard": [first, second],
                                 "acts": [{"ally": True}]}
                        options.append(Option((Act.ALLY, first, second, EMPTY), entry))
        return options

    @staticmethod
    def _can_ally(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
        """Two hand cards, by the sides they can take, pay for an Ally (R12.3)."""
        return ((Side.L in first and Side.R in second)
                or (Side.R in first and Side.L in second))

    @staticmethod
    def _special_options(paid: list[int], can_rebuild: bool, can_change: bool) -> list[Option]:
        """Rebuild then Change Sides, each where legal, paid with ``paid``."""
        second = paid[1] if len(paid) == 2 else EMPTY
        options = []
        if can_rebuild:
            entry = {"do": "act", "discard": list(paid), "acts": [{"rebuild": []}]}
            options.append(Option((Act.REBUILD, paid[0], second, EMPTY), entry))
        if can_change:
            entry = {"do": "act", "discard": list(paid), "acts": [{"change_sides": []}]}
            options.append(Option((Act.CHANGE_SIDES, paid[0], second, EMPTY), entry))
        return options

    def _grants_second_act(self, card: int) -> bool:
        """A Wizard discarded for a base or Book action gives a second one (R08.3)."""
        return self.special_actions and self.book.is_wizard(card)

    def _second_act(self) -> None:
        """A Wizard's second action, or none (R08.3: Exchange, Census, in any order, the
        same one twice allowed; with the Books, a Book action too)."""
        options = [Option((Act.PASS, EMPTY, EMPTY, EMPTY), None),
                   Option((Act.CENSUS, EMPTY, EMPTY, EMPTY), {"census": {"zero_sum": []}})]
        if self._can_exchange():
            options.append(Option((Act.EXCHANGE, EMPTY, EMPTY, EMPTY), {"exchange": []}))
        for kind in self._usable_book_kinds():
            options.append(Option((Act.BOOK, EMPTY, EMPTY, kind), self._book_act(kind)))
        act, _, _, kind = self._ask(Decision.SECOND_ACT, options).code
        if act == Act.CENSUS:
            self._census()
        elif act == Act.EXCHANGE:
            self._exchange()
        elif act == Act.BOOK:
            self._book_action(kind)

    def _phase_two(self) -> None:
        """Draw until the seat's hand holds 4 (2 cards after a two-card payment, R06.1); a
        drawn Chaos or Chromatic Chaos is resolved at once (R06.2, R07), or put back with
        a Wise Chaos (R11.3)."""
        while len(self.hand) < HAND_SIZE:
            card = self._draw()
            self.narrate("draw", {"card": card, "seat": self.seat})
            if self.book.is_chaos(card):
                self._resolve_chaos(card, drawn=True)
            elif self.book.is_chromatic(card):
                self._resolve_chromatic(card, drawn=True)
            else:
                self._to_hand(card)

    def _wise(self, card: int) -> None:
        """Spend a Wise Chaos: the card goes below the top 3 Dream cards (at the bottom
        when the deck holds 3 or fewer), R11.3."""
        self.wise_left -= 1
        self.in_transit.remove(card)
        depth = min(WISE_DEPTH, len(self.dream_deck))
        self.dream_deck.insert(depth, card)
        self.narrate("wise", {"card": card, "left": self.wise_left, "depth": depth,
                              "bottom": depth == len(self.dream_deck) - 1})

    # ------------------------------------------------------------------ Exchange (R04.4)

    def _side_spots(self, side: int) -> list[tuple[int, int, int]]:
        """(row, position, card) of every dream on one side, by row then position."""
        return [
            (row_index, position, card)
            for row_index, row in enumerate(self.rows)
            for position, card in enumerate(row.sides[side])
        ]

    def _can_exchange(self) -> bool:
        """Some side of the layout holds two dreams to swap (R04.4)."""
        return any(len(self._side_spots(side)) >= 2 for side in SIDES)

    def _exchange_options(self) -> list[Option]:
        options = []
        for side in SIDES:
            spots = self._side_spots(side)
            for i, (_, _, first) in enumerate(spots):
                for _, _, second in spots[i + 1:]:
                    options.append(Option((first, second, side, EMPTY), [first, second]))
        return options

    def _exchange(self) -> None:
        chosen = self._ask(Decision.EXCHANGE_PAIR, self._exchange_options())
        first, second, side, _ = chosen.code
        spots = {card: (r, position) for r, position, card in self._side_spots(side)}
        (row_a, pos_a), (row_b, pos_b) = spots[first], spots[second]
        self.rows[row_a].sides[side][pos_a] = second
        self.rows[row_b].sides[side][pos_b] = first
        self.narrate("exchange", {"cards": [first, second], "rows": [row_a, row_b]})
        for card in (first, second):
            self._rocket_moved(card)  # R11.8

    # ------------------------------------------------------------------ Census (R05)

    def _census(self, bonus: int = PERFECT_BALANCE_BONUS) -> None:
        """A census; ``bonus`` City cards for a Perfect Balance (2 with the Book, R09.6)."""
        skip = self.emptiness_row()  # R05.1: the Emptiness city is checked last
        noted = [row.noted() for row in self.rows]  # R05.2
        balanced = [i for i, row in enumerate(self.rows) if i != skip and self.is_balanced(row)]
        perfect = len(noted) == MAX_ROWS and len(balanced) == MAX_ROWS
        for row_index in balanced:
            self._pacify(row_index, noted, perfect)  # R05.3: mandatory
        if perfect:
            for _ in range(bonus):
                if self.city_deck:  # R05.4: always taken, one at a time
                    self.narrate("bonus", {"city": self.city_deck[0], "why": "perfect"})
                    self._to_success(self.city_deck.pop(0))
        for row_index, row in enumerate(self.rows):
            if not row.is_placeholder and row_index != skip:
                self._zero_sum(row_index)  # R05.5; R12.2: not the Emptiness city
        if skip != EMPTY:
            self._emptiness_check(skip)  # R05.6
        self._refill_rows()  # R05.8
        self._deal_dreamless_rows()  # R05.9
        self._resolve_held()  # R05.10

    def _pacify(self, row_index: int, noted: list[NotedRow], perfect: bool) -> None:
        """Score the city's postcards against the noted layout (R11.4, R11.5), then City card
        to Success, its dreams (left then right) to the discard pile.

        The row is emptied before the win check so that the final check of a won game
        shows every card in one zone (R13.1 stops everything after this pacification).
        """
        row = self.rows[row_index]
        self.narrate("pacify", {"row": row_index, "city": row.city, "dreams": row.dreams()})
        for card in row.dreams():
            postcard = self.postcard_on.get(card)
            if postcard is not None:
                met = condition_holds(self.book.postcard_kind(postcard), card, row_index,
                                      noted, self.book, perfect)
                self._postcard_leaves(card, CONDITION_MET if met else SENT_AWAY, "pacified")
        self._discard_from_row(row, row.dreams())
        city, row.city = row.city, EMPTY
        self._to_success(city)

    def _zero_sum(self, row_index: int) -> None:
        options = self._zero_sum_options(row_index)
        chosen = self._ask(Decision.ZERO_SUM, options).entry
        if chosen:
            self._discard_from_row(self.rows[row_index], chosen)

    def _zero_sum_options(self, row_index: int) -> list[Option]:
        """Mask 0, then every set of the row's dreams summing to 0, by mask (R05.5).

        Bit k is the left dream at position k, bit 3 + k the right one. An unbalanced
        city's total is not 0, so no such set holds all its dreams: it is never emptied.
        """
        row = self.rows[row_index]
        slots = [(k, card, Side.L) for k, card in enumerate(row.sides[Side.L])]
        slots += [(SIDE_SLOTS + k, card, Side.R) for k, card in enumerate(row.sides[Side.R])]
        present = sum(1 << bit for bit, _, _ in slots)
        options = [Option((0, row_index, EMPTY, EMPTY), None)]
        for mask in ZERO_SUM_MASKS:
            if mask & ~present:
                continue
            chosen = [(card, side) for bit, card, side in slots if mask >> bit & 1]
            if sum(self.book.value_on(card, side) for card, side in chosen) == 0:
                ids = [card for card, _ in chosen]
                options.append(Option((mask, row_index, EMPTY, EMPTY), ids))
        return options

    def _refill_rows(self) -> None:
        """Each pacified row takes the top City card, or is removed when none is left (R01.5)."""
        kept = []
        for row in self.rows:
            if row.is_placeholder:
                if not self.city_deck:
                    # numbered as the rows stand now, as new_city numbers them
                    self.narrate("row_removed", {"row": len(kept)})
                    continue
                row.city = self.city_deck.pop(0)
                self.narrate("new_city", {"row": len(kept), "city": row.city})
            kept.append(row)
        self.rows = kept

    def _deal_dreamless_rows(self) -> None:
        for row_index, row in enumerate(self.rows):
            if not row.dreams():
                self._deal_two(row_index)

    # ------------------------------------------------------------------ special actions (R08.4)

    def _rebuild_rows(self) -> list[int]:
        """The rows Rebuild may choose: all but the Emptiness row (R08.4, R12)."""
        skip = self.emptiness_row()
        return [row_index for row_index in range(len(self.rows)) if row_index != skip]

    def _rebuild(self) -> None:
        """Swap the City cards of two rows; the dreams stay in their rows."""
        rows = self._rebuild_rows()
        options = [Option((first, second, EMPTY, EMPTY), [first, second])
                   for i, first in enumerate(rows) for second in rows[i + 1:]]
        first, second, _, _ = self._ask(Decision.REBUILD_ROWS, options).code
        self.rows[first].city, self.rows[second].city = (self.rows[second].city,
                                                          self.rows[first].city)

    def _change_sides_options(self) -> list[Option]:
        """Every Chaos and Chromatic Chaos whose city's other side has room, by row, side L
        then R, position."""
        options = []
        for row_index, row in enumerate(self.rows):
            for side in SIDES:
                for card in row.sides[side]:
                    if self.book.is_chaos_like(card) and row.has_room(1 - side):
                        options.append(Option((card, row_index, side, EMPTY), card))
        return options

    def _change_sides(self) -> None:
        """Move a Chaos or Chromatic Chaos to the other side of its city, where its value
        changes sign; the cards it leaves keep their order."""
        card, row_index, side, _ = self._ask(Decision.CHANGE_SIDES_CARD,
                                             self._change_sides_options()).code
        row = self.rows[row_index]
        row.sides[side].remove(card)
        row.sides[1 - side].append(card)
        self._rocket_moved(card)  # R11.8

    # ------------------------------------------------------------------ Books (R09)

    def _usable_book_kinds(self) -> list[int]:
        """The kinds of the Books in the layout whose action has a target, BookKind order."""
        usable = []
        for kind in self.book_kinds():
            if kind in FLYING:
                ok = bool(self._flying_options(FLYING[kind]))
            elif kind in INVISIBLE:
                ok = bool(self._invisible_options(INVISIBLE[kind]))
            elif kind == BookKind.FREEDOM:
                ok = bool(self._freedom_options())
            else:
                ok = True  # Perfect Balance, Prophecies: always
            if ok:
                usable.append(kind)
        return usable

    @staticmethod
    def _book_act(kind: int) -> dict:
        """A Book act's trace form; its target (``card``, ``row``, ``order``) or its
        zero-sum groups are added as they are decided."""
        act: dict[str, Any] = {"book": BOOK_NAMES[kind]}
        if kind == BookKind.PERFECT_BALANCE:
            act["zero_sum"] = []
        return act

    def _flying_options(self, side: int) -> list[Option]:
        """R09.3: dreams on ``side`` but Chaos and Chromatic Chaos, by row and position;
        for each, the other rows with room on that side, ascending."""
        options = []
        for row_index, row in enumerate(self.rows):
            for card in row.sides[side]:
                if self.book.is_chaos_like(card):
                    continue
                for target, other in enumerate(self.rows):
                    if target != row_index and other.has_room(side):
                        options.append(Option((card, row_index, target, side),
                                              {"card": card, "row": target}))
        return options

    def _invisible_options(self, side: int) -> list[Option]:
        """R09.4: dreams on ``side`` but Chaos and Chromatic Chaos, by row and position."""
        return [Option((card, row_index, side, EMPTY), {"card": card})
                for row_index, row in enumerate(self.rows)
                for card in row.sides[side]
                if not self.book.is_chaos_like(card)]

    def _freedom_options(self) -> list[Option]:
        """R09.5: rows with a City card and no dream, ascending."""
        return [Option((row_index, EMPTY, EMPTY, EMPTY), {"row": row_index})
                for row_index, row in enumerate(self.rows)
                if not row.is_placeholder and not row.dreams()]

    def _book_action(self, kind: int) -> None:
        """Carry out the action of a Book of ``kind`` in the layout (R09.3-R09.7)."""
        if kind in FLYING:
            card, source, target, side = self._ask(Decision.BOOK_TARGET,
                                                   self._flying_options(FLYING[kind])).code
            self.rows[source].sides[side].remove(card)
            self.rows[target].sides[side].append(card)
            self._rocket_moved(card)  # R11.8
        elif kind in INVISIBLE:
            card, row_index, _, _ = self._ask(Decision.BOOK_TARGET,
                                              self._invisible_options(INVISIBLE[kind])).code
            self._discard_from_row(self.rows[row_index], [card])
        elif kind == BookKind.FREEDOM:
            row_index = self._ask(Decision.BOOK_TARGET, self._freedom_options()).code[0]
            self._freedom(row_index)
        elif kind == BookKind.PERFECT_BALANCE:
            self._census(bonus=BOOK_PERFECT_BALANCE_BONUS)
        else:
            self._prophecies()

    def _freedom(self, row_index: int) -> None:
        """Pacify a dreamless city, refill its row, deal every dreamless row, resolve the
        held Chromatic Chaos (R09.5). On the Emptiness city the figure returns to the pile
        first (R12.5)."""
        row = self.rows[row_index]
        if row.city == self.figure_city:
            self.figure_city = EMPTY
            self.narrate("emptiness", {"row": EMPTY, "city": EMPTY})
        self.narrate("pacify", {"row": row_index, "city": row.city, "dreams": [],
                                "by": "freedom"})
        city, row.city = row.city, EMPTY
        self._to_success(city)
        self._refill_rows()
        self._deal_dreamless_rows()
        self._resolve_held()

    def _prophecies(self) -> None:
        """Reorder the top 2 Dream cards (4 with both Books), R09.7: one option per
        permutation, ``itertools.permutations`` order (the unchanged order first). With an
        empty deck the one option is the empty order."""
        count = min(PROPHECY_CARDS * self.prophecies, len(self.dream_deck))
        top = self.dream_deck[:count]
        self.narrate("prophecy_seen", {"cards": list(top)})
        options = []
        for order in permutations(top):
            padding = (EMPTY,) * max(OPTION_COLS - count, 0)
            options.append(Option(tuple(order) + padding, {"order": list(order)}))
        self.dream_deck[:count] = self._ask(Decision.PROPHECY_ORDER, options).entry["order"]

    # ------------------------------------------------------------------ Postcards (R11)

    def _postcard_leaves(self, card: int, points: int, why: str) -> None:
        """The postcard on dream ``card`` goes to the Inhabitant pile with ``points``."""
        postcard = self.postcard_on.pop(card)
        self.hourglass_turns.pop(postcard, None)
        self.inhabitants += points
        self.inhabitant_pile.append(postcard)
        self.narrate("postcard_scored", {"postcard": postcard, "card": card, "points": points,
                                         "why": why})

    def _carries(self, card: int, kind: int) -> bool:
        """True when dream ``card`` carries a postcard of ``kind``."""
        postcard = self.postcard_on.get(card)
        return postcard is not None and self.book[postcard].kind == kind

    def _rocket_moved(self, card: int) -> None:
        """R11.8: a Resting Rocket is sent away the moment its dream moves."""
        if self._carries(card, PostcardKind.ROCKET):
            self._postcard_leaves(card, SENT_AWAY, "rocket")

    def _move_flagships(self) -> None:
        """R11.7: each Flagship's dream moves to the same side of the next row down (the
        bottom row wraps to the top), listed first, then moved one at a time; no room
        there: the Flagship is sent away and its dream stays."""
        if not self.postcard_on:
            return
        ships = [card for row in self.rows for card in row.dreams()
                 if self._carries(card, PostcardKind.FLAGSHIP)]
        if len(self.rows) < 2:  # one city: nothing moves
            for card in ships:
                self.narrate("flagship_stays", {"postcard": self.postcard_on[card],
                                                "card": card})
            return
        for card in ships:
            row_index, side = self._spot(card)
            target = (row_index + 1) % len(self.rows)
            if self.rows[target].has_room(side):
                self.rows[row_index].sides[side].remove(card)
                self.rows[target].sides[side].append(card)
                self.narrate("flagship", {"postcard": self.postcard_on[card], "card": card,
                                          "from": row_index, "to": target})
            else:
                self._postcard_leaves(card, SENT_AWAY, "flagship")

    def _turn_hourglasses(self) -> None:
        """R11.6: at the end of the turn every Hourglass is turned; one already turned 4
        times is sent away instead. Rows top down, L then R, position."""
        if not self.hourglass_turns:
            return
        for row in self.rows:
            for card in row.dreams():
                if not self._carries(card, PostcardKind.HOURGLASS):
                    continue
                postcard = self.postcard_on[card]
                if self.hourglass_turns[postcard] == HOURGLASS_TURNS:
                    self._postcard_leaves(card, SENT_AWAY, "hourglass")
                else:
                    self.hourglass_turns[postcard] += 1
                    self.narrate("hourglass_turned", {"postcard": postcard, "card": card,
                                                      "turns": self.hourglass_turns[postcard]})

    # ------------------------------------------------------------------ the Emptiness (R12)

    def _move_emptiness(self) -> None:
        """R12.1: out of the game nothing; lying flat it stands up on the pile; on the pile
        to row 0's city; on row r to the next row's city, the last row wrapping to row 0."""
        if not self.emptiness_pile:
            return
        if self.figure_flat:
            self.figure_flat = False
            self.narrate("emptiness", {"row": EMPTY, "city": EMPTY})
            return
        row_index = self.emptiness_row()
        target = 0 if row_index == EMPTY else (row_index + 1) % len(self.rows)
        self.figure_city = self.rows[target].city
        self.narrate("emptiness", {"row": target, "city": self.figure_city})

    def _emptiness_check(self, row_index: int) -> None:
        """R12.2: the Emptiness city, after the zero-sum step of a census."""
        row = self.rows[row_index]
        if not row.dreams():
            self.narrate("emptiness_check", {"row": row_index, "city": row.city,
                                             "result": "empty"})
            raise GameOver(Outcome.LOSS, Reason.EMPTINESS)
        if self.is_balanced(row):
            self.narrate("emptiness_check", {"row": row_index, "city": row.city,
                                             "result": "balanced"})
            self._emptiness_card_leaves(flat=False)
        else:
            self.narrate("emptiness_check", {"row": row_index, "city": row.city,
                                             "result": "cleared", "dreams": row.dreams()})
            self._discard_from_row(row, row.dreams())

    def _emptiness_card_leaves(self, flat: bool) -> None:
        """The top Emptiness card leaves the game and the figure goes to the pile (lying
        flat after an Ally, R12.3); the last card takes the figure with it and brings the
        top City card to Success (R12.4)."""
        card = self.emptiness_pile.pop(0)
        self.emptiness_boxed.append(card)
        self.figure_city = EMPTY
        self.figure_flat = flat and bool(self.emptiness_pile)
        self.narrate("emptiness_card", {"card": card, "left": len(self.emptiness_pile),
                                        "flat": self.figure_flat})
        if not self.emptiness_pile and self.city_deck:
            self.narrate("bonus", {"city": self.city_deck[0], "why": "emptiness"})
            self._to_success(self.city_deck.pop(0))

    # ------------------------------------------------------------------ Chaos (R06.2)

    def _chaos_place_options(self, chaos: int) -> list[Option]:
        """Rows whose more influential side has room, top to bottom (R03.1, R06.2a)."""
        options = []
        for row_index, row in enumerate(self.rows):
            side = self.more_influential_side(row)
            if side is not None and row.has_room(side):
                entry = {"do": "chaos", "how": "place", "row": row_index}
                options.append(Option((ChaosHow.PLACE, row_index, side, chaos), entry))
        return options

    def _draw_chaos_options(self, chaos: int, drawn: bool) -> list[Option]:
        options = self._chaos_place_options(chaos)
        for row_index, row in enumerate(self.rows):
            if self.is_balanced(row):
                entry = {"do": "chaos", "how": "clear", "row": row_index}
                options.append(Option((ChaosHow.CLEAR, row_index, EMPTY, chaos), entry))
        reveal = {"do": "chaos", "how": "reveal"}
        options.append(Option((ChaosHow.REVEAL, EMPTY, EMPTY, chaos), reveal))  # always legal
        if drawn and self.wise_left > 0:  # R11.3: drawn into the hand, never revealed
            options.append(Option((ChaosHow.WISE, EMPTY, EMPTY, chaos),
                                  {"do": "chaos", "how": "wise"}))
        return options

    def _resolve_chaos(self, chaos: int, drawn: bool = False) -> None:
        """Place it, clear a balanced city, or reveal 4 and resolve the Chaos among them;
        drawn into the hand, it may go back with a Wise Chaos instead (R11.3)."""
        chosen = self._ask(Decision.DRAW_CHAOS, self._draw_chaos_options(chaos, drawn))
        how, row_index, side, _ = chosen.code
        if how == ChaosHow.PLACE:
            self._to_side(row_index, side, chaos)
        elif how == ChaosHow.CLEAR:
            row = self.rows[row_index]
            self.narrate("clear", {"card": chaos, "row": row_index, "dreams": row.dreams()})
            self._discard_from_row(row, row.dreams())
            self._to_discard(chaos)
        elif how == ChaosHow.WISE:
            self._wise(chaos)
        else:
            # R06.3: revealing takes what is there and never loses.
            count = min(REVEAL_COUNT, len(self.dream_deck))
            revealed = [self._lift_top() for _ in range(count)]
            self.narrate("reveal", {"card": chaos, "revealed": revealed})
            for card in revealed:
                if not self.book.is_chaos_like(card):
                    self._to_discard(card)
            for card in revealed:
                # Depth first, in the order revealed; a Chromatic Chaos as if drawn (R07).
                if self.book.is_chaos(card):
                    self._resolve_chaos(card)
                elif self.book.is_chromatic(card):
                    self._resolve_chromatic(card)
            self._to_discard(chaos)

    # ------------------------------------------------------------------ Chromatic Chaos (R07)

    def _resolve_held(self) -> None:
        """Resolve the held Chromatic Chaos one by one, first held first (R02.5)."""
        while self.held:
            self._resolve_chromatic(self.held.pop(0))

    def _resolve_chromatic(self, chromatic: int, drawn: bool = False) -> None:
        """Place it on any side with room (or discard it), then reveal the top Dream card
        and place it (R07.1, R07.2); a revealed Chaos or Chromatic Chaos is resolved as if
        drawn in Phase II. An empty Dream deck reveals nothing (R06.3). Drawn into the
        hand, it may go back with a Wise Chaos instead (R11.3)."""
        options = [
            Option((row_index, side, chromatic, EMPTY),
                   {"do": "chromatic", "row": row_index, "side": SIDE_NAMES[side]})
            for row_index, row in enumerate(self.rows)
            for side in SIDES
            if row.has_room(side)
        ] or [Option((EMPTY, EMPTY, chromatic, EMPTY), {"do": "chromatic", "discard": True})]
        if drawn and self.wise_left > 0:
            options.append(Option((WISE_CHROMATIC, EMPTY, chromatic, EMPTY),
                                  {"do": "chromatic", "wise": True}))
        row_index, side, _, _ = self._ask(Decision.CHROMATIC, options).code
        if row_index == WISE_CHROMATIC:
            self._wise(chromatic)
            return
        if row_index == EMPTY:
            self._to_discard(chromatic)  # R07.1: no side has room
        else:
            self._to_side(row_index, side, chromatic)
        if not self.dream_deck:
            self.narrate("chromatic_reveal", {"card": chromatic, "revealed": None})
            return
        card = self._lift_top()
        self.narrate("chromatic_reveal", {"card": chromatic, "revealed": card})
        if self.book.is_chaos(card):
            self._resolve_chaos(card)
        elif self.book.is_chromatic(card):
            self._resolve_chromatic(card)
        else:
            row_index, side, _, _ = self._ask(Decision.REVEALED,
                                              self._revealed_options(card)).code
            if row_index == EMPTY:
                self._to_discard(card)
            else:
                if not self.book.shows_element(self.rows[row_index].city, card):
                    # whether a city shows it at all, full on that side, or none does
                    shown = any(self.book.shows_element(row.city, card) for row in self.rows)
                    self.narrate("element_ignored", {"card": card, "side": side,
                                                     "shown": shown})
                self._to_side(row_index, side, card)

    def _revealed_options(self, card: int) -> list[Option]:
        """Where a revealed dream may go (R07.2): by the placement rules; where none,
        ignoring the element (room only); where still none, the discard pile. The team
        polarity does not apply (rulebook, Chromatic Chaos, team variant)."""

        def spots(by_element: bool) -> list[Option]:
            return [
                Option((row_index, side, card, EMPTY),
                       {"do": "revealed", "row": row_index, "side": SIDE_NAMES[side]})
                for row_index, row in enumerate(self.rows)
                for side in self.book.sides(card)
                if row.has_room(side)
                and (not by_element or self.book.shows_element(row.city, card))
            ]

        return (spots(by_element=True) or spots(by_element=False)
                or [Option((EMPTY, EMPTY, card, EMPTY), {"do": "revealed", "discard": True})])
