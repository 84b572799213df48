"""Play one game (solo or team) with a jitted policy and write its ``urbion-trace/1`` trace."""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np

from analyzer.cards import CardSet
from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    LAYOUT_COLS,
    MAX_OPTIONS,
    MAX_ROWS,
    MAX_SEATS,
    N_POLICY_INFO,
    N_SLOTS,
    OPTION_COLS,
    SIDE_SLOTS,
    TRACE_FORMAT,
    VARIANT_NAMES,
    Decision,
    Info,
    Side,
    Stream,
)
from analyzer.core.rng import PyStream
from analyzer.errors import mark_policy_call
from analyzer.reference.cards import CardBook
from analyzer.reference.engine import Option, SoloGame, opening_decks

#: Decisions whose choice adds keys to the act being resolved (a Book's target, R09).
BOOK_FOLDS = (Decision.BOOK_TARGET, Decision.PROPHECY_ORDER)


class IllegalDecision(RuntimeError):
    """A policy returned an index outside its options."""


class PolicyDecider:
    """Asks a jitted policy at every decision and writes the choice to the log.

    Parameters
    ----------
    policy : callable
        ``choose(kind, options, n_options, state, cards, params, rng) -> int``
        (``docs/engine.md``).
    policy_name, seed, game_index
        Named in an :class:`IllegalDecision`.
    cards : numpy.ndarray
        The card table handed to the policy.
    stream : PyStream
        The game's POLICY stream; the policy advances it.
    log : list
        The trace log, appended to.
    params : numpy.ndarray, optional
        The policy's float64 parameter vector (empty when not given).
    """

    def __init__(
        self,
        policy: Callable,
        policy_name: str,
        seed: int,
        game_index: int,
        cards: np.ndarray,
        stream: PyStream,
        log: list,
        params: np.ndarray | None = None,
    ) -> None:
        self.policy = policy
        self.params = np.zeros(0, dtype=np.float64) if params is None else params
        self.policy_name = policy_name
        self.seed = seed
        self.game_index = game_index
        self.cards = cards
        self.stream = stream
        self.log = log
        self.act_entry: dict | None = None
        self.act: dict | None = None
        self.books_entry: dict | None = None
        # One set of buffers, refilled at every call, keeps the policy's argument types fixed.
        self.options = np.full((MAX_OPTIONS, OPTION_COLS), EMPTY, dtype=np.int64)
        self.layout = np.full((MAX_ROWS, LAYOUT_COLS), EMPTY, dtype=np.int64)
        self.hands = np.full((MAX_SEATS, HAND_SIZE), EMPTY, dtype=np.int64)
        self.info = np.zeros(N_POLICY_INFO, dtype=np.int64)
        self._used_rows = 0

    def decide(self, kind: int, options: list[Option], game: SoloGame) -> int:
        """Ask the policy, check its answer and log the chosen option.

        A decision with a single legal option is taken without asking (docs/engine.md).
        """
        n_options = len(options)
        if n_options == 1:
            self._record(kind, options[0], game)
            return 0
        self._fill_options(options)
        self._fill_state(game)
        rng = self.stream.as_array()
        state = (self.layout, self.hands, self.info)
        try:
            index = int(self.policy(kind, self.options, n_options, state, self.cards,
                                    self.params, rng))
        except Exception as err:
            mark_policy_call(err)  # the policy's, not the engine's (policies.loader)
            raise
        self.stream.sync(rng)
        if not 0 <= index < n_options:
            raise IllegalDecision(
                f"policy {self.policy_name!r} made an illegal decision: returned {index} for "
                f"a {Decision._fields[kind]} decision with {n_options} options (seed "
                f"{self.seed}, game {self.game_index}, turn {game.turn})"
            )
        self._record(kind, options[index], game)
        return index

    def act_done(self) -> None:
        """Nothing more can be added to this turn's act entry."""
        self.act_entry = self.act = None

    def _record(self, kind: int, option: Option, game: SoloGame) -> None:
        """Append a decision to the log, or fold it into the act being resolved.

        ``self.act`` is the act being resolved: the last one of the turn's act entry. A
        Wizard's second action appends its own act, so each census keeps its own groups.
        In the team game every entry appended carries the seat to play (``info[SEAT]``).
        """
        if kind == Decision.ZERO_SUM:
            # Folded into the census act (or the Book of Perfect Balance's): one group per
            # row that discards (docs/engine.md).
            if option.entry:
                groups = (self.act["census"] if "census" in self.act else self.act)["zero_sum"]
                groups.append(list(option.entry))
        elif kind == Decision.EXCHANGE_PAIR:
            self.act["exchange"] = list(option.entry)
        elif kind == Decision.SECOND_ACT:
            if option.entry is not None:  # R08.3: no second action appends nothing
                self.act = copy.deepcopy(option.entry)
                self.act_entry["acts"].append(self.act)
        elif kind == Decision.REBUILD_ROWS:
            self.act["rebuild"] = list(option.entry)
        elif kind == Decision.CHANGE_SIDES_CARD:
            self.act["change_sides"] = option.entry
        elif kind in BOOK_FOLDS:
            self.act.update(copy.deepcopy(option.entry))
        elif kind == Decision.BOOKS:
            # The whole step is one entry, at the place of its first decision (R09.1).
            if self.books_entry is None:
                self.books_entry = self._append({"do": "books", "keep": 0}, game)
            if option.entry == "reveal":
                self.books_entry["keep"] += 1
        elif kind == Decision.SWAP_POLARITY:
            if option.entry is not None:  # keeping the polarity is not logged
                self._append(copy.deepcopy(option.entry), game)
        else:
            entry = self._append(option.entry, game)
            if entry["do"] == "act":
                self.act_entry, self.act = entry, entry["acts"][0]

    def _append(self, entry: dict, game: SoloGame) -> dict:
        if game.seats > 1:
            entry["seat"] = game.seat
        self.log.append(entry)
        return entry

    def _fill_options(self, options: list[Option]) -> None:
        if len(options) > MAX_OPTIONS:
            raise RuntimeError(f"{len(options)} options exceed MAX_OPTIONS ({MAX_OPTIONS})")
        self.options[: self._used_rows] = EMPTY
        if options:
            self.options[: len(options)] = [option.code for option in options]
        self._used_rows = len(options)

    def _fill_state(self, game: SoloGame) -> None:
        """The policy's view: layout, hands and the policy-visible block of ``info``
        (docs/engine.md, "What a policy sees" and "What a policy sees, added")."""
        self.layout.fill(EMPTY)
        self.info.fill(0)
        self.info[Info.POSTCARD_AT: Info.POSTCARD_AT + MAX_ROWS * N_SLOTS] = EMPTY
        for row_index, row in enumerate(game.rows):
            self.layout[row_index, 0] = row.city
            for side in (Side.L, Side.R):
                for position, card in enumerate(row.sides[side]):
                    self.layout[row_index, 1 + side * SIDE_SLOTS + position] = card
                    slot = row_index * N_SLOTS + side * SIDE_SLOTS + position
                    self.info[Info.POSTCARD_AT + slot] = game.postcard_on.get(card, EMPTY)
        self.hands.fill(EMPTY)
        for seat, hand in enumerate(game.hands):
            for position, card in enumerate(hand):
                self.hands[seat, position] = card
        self.info[Info.TURN] = game.turn
        self.info[Info.N_ROWS] = len(game.rows)
        self.info[Info.DECK_N] = len(game.dream_deck)
        self.info[Info.CITY_DECK_N] = len(game.city_deck)
        self.info[Info.SUCCESS_N] = len(game.success)
        self.info[Info.DISCARD_N] = len(game.discard)
        self.info[Info.TOTAL_CITIES] = game.total_cities
        self.info[Info.SEAT] = game.seat
        self.info[Info.EXPANSIONS] = game.expansions
        self.info[Info.SEATS] = game.seats
        self.info[Info.POLARITY] = game.polarity
        self.info[Info.BOOKS] = sum(1 << kind for kind in game.book_kinds())
        self.info[Info.PROPHECIES] = game.prophecies
        self.info[Info.WISE_LEFT] = game.wise_left
        self.info[Info.INHABITANTS] = game.inhabitants
        self.info[Info.EMPTINESS_N] = len(game.emptiness_pile)
        self.info[Info.EMPTINESS_ROW] = game.emptiness_row()
        self.info[Info.EMPTINESS_FLAT] = int(game.figure_flat)


class StreamShuffler:
    """Shuffles with the game's DEAL stream and logs the new deck."""

    def __init__(self, stream: PyStream, log: list) -> None:
        self.stream = stream
        self.log = log

    def shuffle(self, cards: list[int]) -> list[int]:
        """Fisher-Yates over ``cards`` (index 0 the top card); logs ``{"shuffle": [...]}``."""
        order = list(cards)
        self.stream.shuffle(order)
        self.log.append({"shuffle": list(order)})
        return order


class LogWriter:
    """Writes every check point to the log."""

    def __init__(self, log: list) -> None:
        self.log = log

    def check(self, snapshot: dict) -> None:
        """Append ``{"check": snapshot}``."""
        self.log.append({"check": snapshot})


def play_reference(
    card_set: CardSet,
    seed: int,
    game: int,
    policy: Callable,
    policy_name: str,
    params: np.ndarray | None = None,
    variant: str = "solo",
) -> dict:
    """Play one game with a jitted policy and return its trace.

    Parameters
    ----------
    card_set : CardSet
        The card set with its expansions in play (``card_set.expansions``, chosen with
        :meth:`~analyzer.cards.CardSet.with_expansions`); the decks are its cards in play.
    seed, game : int
        The batch seed and the game's index; they fix the DEAL and POLICY streams.
    policy : callable
        A jitted ``choose(kind, options, n_options, state, cards, params, rng) -> int``.
    policy_name : str
        The policy's name, written to the trace.
    params : numpy.ndarray, optional
        The policy's float64 parameter vector, passed as is (empty when not given).
    variant : str
        ``"solo"`` or ``"team"`` (R10: two seats, one policy playing both).

    Returns
    -------
    dict
        The complete ``urbion-trace/1`` trace (plain Python values, JSON-ready).

    Raises
    ------
    IllegalDecision
        When the policy returns an index outside ``[0, n_options)``.
    ValueError
        For a variant other than solo or team.
    """
    if variant not in VARIANT_NAMES:
        raise ValueError(f"variant {variant!r} is not one of {', '.join(VARIANT_NAMES)}")
    book = CardBook.from_card_set(card_set)
    decks, deal = opening_decks(book, seed, game)
    log: list = []
    decider = PolicyDecider(policy, policy_name, seed, game, card_set.cards,
                            PyStream(seed, game, Stream.POLICY), log, params)
    table = SoloGame(book, list(decks["city_deck"]), list(decks["dream_deck"]),
                     decider, StreamShuffler(deal, log), LogWriter(log),
                     expansions=card_set.expansions, book_deck=list(decks["book_deck"]),
                     postcard_deck=list(decks["postcard_deck"]),
                     seats=VARIANT_NAMES.index(variant) + 1)
    table.play()
    return {
        "format": TRACE_FORMAT,
        "seed": int(seed),
        "game": int(game),
        "variant": variant,
        "expansions": card_set.expansion_names(),
        "policy": policy_name,
        "card_set": card_set.name,
        "cards": card_set.describe(),
        "setup": {key: decks[key] for key in ("city_deck", "dream_deck", "postcard_deck",
                                              "book_deck")},
        "log": log,
        "result": table.result(card_set.name),
    }
