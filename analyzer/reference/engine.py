"""Reference rules of the solo game, written straight from the rulebook.

The base game and the first four expansions, in any combination: City Squares & Metas,
Chromatic Chaos, Temples & Harmony, Hanging Gardens & Wizards (``docs/engine.md``,
"Expansions I"; RULINGS R02, R07, R08).

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
from typing import Any, NamedTuple, Protocol

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    MAX_ROWS,
    REASON_NAMES,
    SIDE_SLOTS,
    Act,
    ChaosHow,
    Decision,
    Expansion,
    Outcome,
    Reason,
    Side,
)
from analyzer.reference.cards import CardBook

SIDES = (Side.L, Side.R)
SIDE_NAMES = ("L", "R")
REVEAL_COUNT = 4
ZERO_SUM_MASKS = range(1, 1 << (2 * SIDE_SLOTS))


class Option(NamedTuple):
    """One legal choice of a decision.

    Attributes
    ----------
    code : tuple of int
        The four option columns a policy sees (``docs/engine.md``, "Decisions and their
        options"); -1 where unused.
    entry : Any
        The choice's trace form: a whole log entry for ``DEAL_SIDE``, ``HAND_CHAOS``,
        ``DRAW_CHAOS``, ``CHROMATIC``, ``REVEALED`` and ``PHASE1``; the discarded ids (or
        None) for ``ZERO_SUM``; the two swapped ids for ``EXCHANGE_PAIR``; the act to append
        (or None for no second action) for ``SECOND_ACT``; the two rows for
        ``REBUILD_ROWS``; the card's id for ``CHANGE_SIDES_CARD``. The last four are folded
        into the turn's act entry.
    """

    code: tuple[int, int, int, int]
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


class SoloGame:
    """One solo game, from setup to its end.

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
        must already be those in play; the set itself decides only what no card shows:
        the special actions exist only with Hanging Gardens & Wizards in play (R08.4).

    Attributes
    ----------
    rows : list of Row
        The layout, top row first.
    hand, discard, success : list of int
        The hand in order, the discard pile and the Success pile (oldest first).
    in_transit : list of int
        Cards taken from the Dream deck that have not reached a zone yet: a Chaos waiting
        for its partner while dealing, a Chaos set aside from the opening hand, a Chaos
        being resolved and the Chaos revealed with it, a held Chromatic Chaos (R02.5), a
        Chromatic Chaos being resolved and the card it reveals. It is empty at every check
        except possibly the last one (``docs/engine.md``: a waiting Chaos is in no zone).
    held : list of int
        Chromatic Chaos held while dealing or drawing the opening hand, first held first,
        to be resolved when the setup step or census is finished (R02.5).
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
    ) -> None:
        self.narrate = narrate or (lambda event, details: None)
        self.book = book
        self.expansions = expansions
        self.special_actions = bool(expansions & Expansion.GARDENS_WIZARDS)  # R08.4
        self.city_deck = list(city_deck)
        self.dream_deck = list(dream_deck)
        self.total_cities = len(city_deck)
        self.decider = decider
        self.shuffler = shuffler
        self.checkpoint = checkpoint
        self.rows: list[Row] = []
        self.hand: list[int] = []
        self.discard: list[int] = []
        self.success: list[int] = []
        self.in_transit: list[int] = []
        self.held: list[int] = []
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
        """The payload of a ``check`` entry; placeholder rows are left out."""
        return {
            "turn": self.turn,
            "rows": [
                {"city": row.city, "L": list(row.sides[Side.L]), "R": list(row.sides[Side.R])}
                for row in self.rows
                if not row.is_placeholder
            ],
            "hand": list(self.hand),
            "dream_deck": len(self.dream_deck),
            "success": len(self.success),
            "discard": len(self.discard),
        }

    def _ask(self, kind: int, options: list[Option]) -> Option:
        chosen = options[self.decider.decide(kind, options, self)]
        self.narrate("decision", {"kind": kind, "entry": chosen.entry, "code": chosen.code})
        return chosen

    # ------------------------------------------------------------------ zones

    def _draw(self) -> int:
        """Draw the top Dream card; only a draw from an empty deck loses (R06.3, R13.2)."""
        if not self.dream_deck:
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
        for card in cards:
            for side in SIDES:
                if card in row.sides[side]:
                    row.sides[side].remove(card)
            self.discard.append(card)

    def _to_success(self, city: int) -> None:
        """Put a City card on the Success pile; the game is won that moment (R13.1)."""
        self.success.append(city)
        if len(self.success) == self.total_cities:
            raise GameOver(Outcome.WIN, Reason.ALL_PACIFIED)

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
        for _ in range(min(MAX_ROWS, len(self.city_deck))):
            self.rows.append(Row(self.city_deck.pop(0)))
        for row_index in range(len(self.rows)):
            self._deal_two(row_index)
        self._draw_opening_hand()
        self.checkpoint.check(self.snapshot())

    def _deal_two(self, row_index: int) -> None:
        """Deal 2 dreams to a row by type, ignoring elements (R02, docs/engine.md).

        A non-Chaos card 1 is placed as soon as it is drawn (a Meta or Harmony on the side
        the policy chooses, R02.4); a Chaos card 1 waits for card 2.
        """
        first = self._draw_for_dealing()
        first_side = None
        if not self.book.is_chaos(first):
            first_side = self._deal_by_type(row_index, first)
        second = self._draw_for_dealing()
        first_chaos = self.book.is_chaos(first)
        second_chaos = self.book.is_chaos(second)
        if first_chaos and second_chaos:
            side = self._ask_deal_side(row_index)  # R02.3
            self._to_side(row_index, side, first)
            self._to_side(row_index, side, second)
        elif first_chaos:
            # R02.2, R02.4: the Chaos joins its partner's side, after the partner.
            side = self._deal_by_type(row_index, second)
            self._to_side(row_index, side, first)
        elif second_chaos:
            self._to_side(row_index, first_side, second)
        else:
            self._deal_by_type(row_index, second)
        self.narrate("deal", {"row": row_index, "cards": [first, second]})

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

    def _deal_by_type(self, row_index: int, card: int) -> int:
        """Place a dealt non-Chaos by its type and return its side: a Meta or Harmony on
        the side the policy chooses (R02.4), any other card on its own side (R02.1)."""
        if self.book.is_two_sided(card):
            side = self._ask_deal_side(row_index, card)
        else:
            side = self.book.natural_side(card)
        self._to_side(row_index, side, card)
        return side

    def _ask_deal_side(self, row_index: int, card: int = EMPTY) -> int:
        """The side of two Chaos dealt together (``card`` -1) or of a Meta or Harmony."""
        options = [
            Option((side, row_index, card, EMPTY), {"do": "side", "side": SIDE_NAMES[side]})
            for side in SIDES
        ]
        return self._ask(Decision.DEAL_SIDE, options).code[0]

    def _draw_opening_hand(self) -> None:
        """Draw to 4; a Chaos is placed at once or set aside and shuffled back (R03).

        A Chromatic Chaos is held and replaced (R02.5); the held list is resolved once the
        hand holds 4 and the set-aside Chaos are shuffled back, before the turn-0 check.
        """
        aside: list[int] = []
        while len(self.hand) < HAND_SIZE:
            card = self._draw()
            self.narrate("draw", {"card": card})
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
        self._resolve_held()

    # ------------------------------------------------------------------ a turn (R13.3)

    def _play_turn(self) -> None:
        self.turn += 1
        self._phase_one()
        self._phase_two()
        self.checkpoint.check(self.snapshot())

    def _phase_one(self) -> None:
        """Place the turn's card, or discard it (or two) for no action or an action (R04, R08)."""
        act, card, x, y = self._ask(Decision.PHASE1, self._phase_one_options()).code
        self.hand.remove(card)
        if act == Act.PLACE:
            self.rows[x].sides[y].append(card)
        else:
            # The Phase I card(s) reach the discard pile, in option order, before anything
            # the action discards.
            self.discard.append(card)
            if act in (Act.REBUILD, Act.CHANGE_SIDES) and x != EMPTY:
                self.hand.remove(x)  # R08.4: two hand cards sharing an element
                self.discard.append(x)
            if act == Act.CENSUS:
                self._census()
            elif act == Act.EXCHANGE:
                self._exchange()
            elif act == Act.REBUILD:
                self._rebuild()
            elif act == Act.CHANGE_SIDES:
                self._change_sides()
            if act in (Act.CENSUS, Act.EXCHANGE) and self._grants_second_act(card):
                self._second_act()
        self.decider.act_done()

    def _phase_one_options(self) -> list[Option]:
        """The PHASE1 options in contract order (docs/engine.md, "Phase I with the
        expansions")."""
        can_exchange = self._can_exchange()
        can_rebuild = self.special_actions and len(self.rows) >= 2
        can_change = self.special_actions and bool(self._change_sides_options())
        options: list[Option] = []
        for card in self.hand:
            for row_index, row in enumerate(self.rows):
                for side in self.book.sides(card):
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
        if self.special_actions:
            # R08.4: or two hand cards with at least one element in common.
            for i, first in enumerate(self.hand):
                for second in self.hand[i + 1:]:
                    if self.book.share_element(first, second):
                        options += self._special_options([first, second], can_rebuild,
                                                         can_change)
        return options

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
        """A Wizard discarded for a base action gives up to 2 of them (R08.3)."""
        return self.special_actions and self.book.is_wizard(card)

    def _second_act(self) -> None:
        """A Wizard's second base action, or none (R08.3: Exchange, Census, in any order,
        the same one twice allowed)."""
        options = [Option((Act.PASS, EMPTY, EMPTY, EMPTY), None),
                   Option((Act.CENSUS, EMPTY, EMPTY, EMPTY), {"census": {"zero_sum": []}})]
        if self._can_exchange():
            options.append(Option((Act.EXCHANGE, EMPTY, EMPTY, EMPTY), {"exchange": []}))
        act = self._ask(Decision.SECOND_ACT, options).code[0]
        if act == Act.CENSUS:
            self._census()
        elif act == Act.EXCHANGE:
            self._exchange()

    def _phase_two(self) -> None:
        """Draw until the hand holds 4 (2 cards after a two-card payment, R06.1); a drawn
        Chaos or Chromatic Chaos is resolved at once (R06.2, R07)."""
        while len(self.hand) < HAND_SIZE:
            card = self._draw()
            self.narrate("draw", {"card": card})
            if self.book.is_chaos(card):
                self._resolve_chaos(card)
            elif self.book.is_chromatic(card):
                self._resolve_chromatic(card)
            else:
                self._to_hand(card)

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

    # ------------------------------------------------------------------ Census (R05)

    def _census(self) -> None:
        held_four = len(self.rows) == MAX_ROWS
        balanced = [i for i, row in enumerate(self.rows) if self.is_balanced(row)]
        for row_index in balanced:
            self._pacify(row_index)  # R05.3: mandatory
        if held_four and len(balanced) == MAX_ROWS and self.city_deck:
            self.narrate("bonus", {"city": self.city_deck[0]})
            self._to_success(self.city_deck.pop(0))  # R05.4: always taken
        for row_index, row in enumerate(self.rows):
            if not row.is_placeholder:
                self._zero_sum(row_index)  # R05.5
        self._refill_rows()  # R05.8
        self._deal_dreamless_rows()  # R05.9
        self._resolve_held()  # R05.10

    def _pacify(self, row_index: int) -> None:
        """City card to Success, its dreams (left then right) to the discard pile.

        The row is emptied before the win check so that the final check of a won game
        shows every card in one zone (R13.1 stops everything after this pacification).
        """
        row = self.rows[row_index]
        self.narrate("pacify", {"row": row_index, "city": row.city})
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

    def _rebuild(self) -> None:
        """Swap the City cards of two rows; the dreams stay in their rows."""
        n = len(self.rows)
        options = [Option((first, second, EMPTY, EMPTY), [first, second])
                   for first in range(n) for second in range(first + 1, n)]
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

    def _draw_chaos_options(self, chaos: int) -> list[Option]:
        options = self._chaos_place_options(chaos)
        for row_index, row in enumerate(self.rows):
            if self.is_balanced(row):
                entry = {"do": "chaos", "how": "clear", "row": row_index}
                options.append(Option((ChaosHow.CLEAR, row_index, EMPTY, chaos), entry))
        reveal = {"do": "chaos", "how": "reveal"}
        options.append(Option((ChaosHow.REVEAL, EMPTY, EMPTY, chaos), reveal))  # always legal
        return options

    def _resolve_chaos(self, chaos: int) -> None:
        """Place it, clear a balanced city, or reveal 4 and resolve the Chaos among them."""
        chosen = self._ask(Decision.DRAW_CHAOS, self._draw_chaos_options(chaos))
        how, row_index, side, _ = chosen.code
        if how == ChaosHow.PLACE:
            self._to_side(row_index, side, chaos)
        elif how == ChaosHow.CLEAR:
            row = self.rows[row_index]
            self._discard_from_row(row, row.dreams())
            self._to_discard(chaos)
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

    def _resolve_chromatic(self, chromatic: int) -> None:
        """Place it on any side with room (or discard it), then reveal the top Dream card
        and place it (R07.1, R07.2); a revealed Chaos or Chromatic Chaos is resolved as if
        drawn in Phase II. An empty Dream deck reveals nothing (R06.3)."""
        options = [
            Option((row_index, side, chromatic, EMPTY),
                   {"do": "chromatic", "row": row_index, "side": SIDE_NAMES[side]})
            for row_index, row in enumerate(self.rows)
            for side in SIDES
            if row.has_room(side)
        ] or [Option((EMPTY, EMPTY, chromatic, EMPTY), {"do": "chromatic", "discard": True})]
        row_index, side, _, _ = self._ask(Decision.CHROMATIC, options).code
        if row_index == EMPTY:
            self._to_discard(chromatic)  # R07.1: no side has room
        else:
            self._to_side(row_index, side, chromatic)
        if not self.dream_deck:
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
                self._to_side(row_index, side, card)

    def _revealed_options(self, card: int) -> list[Option]:
        """Where a revealed dream may go (R07.2): by the placement rules; where none,
        ignoring the element (room only); where still none, the discard pile."""

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
