"""Integer codes shared by every layer: cards, sides, decisions, outcomes, array layouts.

Each group is a NamedTuple instance, so kernels read them as compile-time constants
(``CardType.CHAOS``) and Python code can map names both ways (``CardType._fields``).
"""

from __future__ import annotations

from typing import NamedTuple

RULES_VERSION = "urbion-2e/expansions-4"
TRACE_FORMAT = "urbion-trace/1"
#: The format of the summary file of a ``--summary-only`` run (docs/scaling.md).
SUMMARY_FORMAT = "urbion-summary/1"


class _CardType(NamedTuple):
    CITY: int = 0
    SOGNAE: int = 1
    INCUBI: int = 2
    CHAOS: int = 3
    CHROMATIC: int = 4
    META: int = 5
    HARMONY: int = 6
    WIZARD: int = 7
    BOOK: int = 8  # Books of Power (R09); KIND is a BookKind
    POSTCARD: int = 9  # Postcards to the Oniverse (R11); KIND is a PostcardKind
    EMPTINESS: int = 10  # an Emptiness card (R12)


CardType = _CardType()


class _BookKind(NamedTuple):
    """A Book card's KIND (R09); names as in TRACE.md."""

    FLYING_SOGNAE: int = 0
    FLYING_INCUBI: int = 1
    INVISIBLE_SOGNAE: int = 2
    INVISIBLE_INCUBI: int = 3
    FREEDOM: int = 4
    PERFECT_BALANCE: int = 5
    PROPHECIES: int = 6


BookKind = _BookKind()
BOOK_NAMES = tuple(name.lower() for name in BookKind._fields)
N_BOOK_KINDS = 7


class _PostcardKind(NamedTuple):
    """A Postcard's KIND (R11); names as in TRACE.md."""

    DREAMCATCHER: int = 0
    DOVES: int = 1
    SEER: int = 2
    MAGICIANS: int = 3
    HOURGLASS: int = 4
    FLAGSHIP: int = 5
    ROCKET: int = 6
    PLANBOT: int = 7


PostcardKind = _PostcardKind()
POSTCARD_NAMES = tuple(name.lower() for name in PostcardKind._fields)


class _CityKind(NamedTuple):
    BASE: int = 0
    SQUARE: int = 1
    TEMPLE: int = 2
    GARDEN: int = 3


CityKind = _CityKind()

#: Element names in bit order: a card's ``elements`` field is a bit mask over these.
ELEMENTS = ("earth", "water", "fire", "air")


class _Element(NamedTuple):
    EARTH: int = 1
    WATER: int = 2
    FIRE: int = 4
    AIR: int = 8


Element = _Element()


class _Side(NamedTuple):
    L: int = 0  # Sognae side, positive values (R01.1)
    R: int = 1  # Incubi side, negative values


Side = _Side()


class _CardField(NamedTuple):
    """Columns of the card table ``cards`` (int64, shape (n_cards, 5))."""

    TYPE: int = 0
    ELEMENTS: int = 1  # bit mask of Element
    VALUE: int = 2  # signed influence; Chaos, Chromatic: magnitude (+v left, -v right);
    #                 Meta, Harmony: the Sognae value; Wizard: signed (its sign is its side)
    VALUE2: int = 3  # Meta, Harmony: the (negative) Incubi value; 0 for other cards
    KIND: int = 4  # CityKind for cities


CardField = _CardField()
N_CARD_FIELDS = 5


class _Decision(NamedTuple):
    """The choice points where the engine asks the policy."""

    DEAL_SIDE: int = 0  # two Chaos dealt together, or a Meta/Harmony dealt (R02.3, R02.4)
    HAND_CHAOS: int = 1  # Chaos drawn into the opening hand (R03)
    DRAW_CHAOS: int = 2  # Chaos drawn or revealed in Phase II (R06.2)
    PHASE1: int = 3  # the turn's card: place, pass or act (R04)
    ZERO_SUM: int = 4  # census discards of one unbalanced city (R05.5)
    EXCHANGE_PAIR: int = 5  # the two dreams an Exchange swaps (R04.4)
    CHROMATIC: int = 6  # where a Chromatic Chaos goes (R07.1)
    REVEALED: int = 7  # where the card a Chromatic Chaos reveals goes (R07.2)
    SECOND_ACT: int = 8  # a Wizard's second base action, or none (R08.3)
    REBUILD_ROWS: int = 9  # the two rows whose City cards Rebuild swaps (R08.4)
    CHANGE_SIDES_CARD: int = 10  # the Chaos that Change Sides turns over (R08.4)
    BOOKS: int = 11  # reveal one more Book, or stop (R09.1)
    BOOK_TARGET: int = 12  # the dream or row a Book action works on (R09.3-R09.5)
    PROPHECY_ORDER: int = 13  # the new order of the top Dream cards (R09.7)
    SWAP_POLARITY: int = 14  # team: remove 8 discards and swap polarities, or not (R10.4)


Decision = _Decision()


class _Act(NamedTuple):
    """Column 0 of a PHASE1 option."""

    PLACE: int = 0
    PASS: int = 1  # also SECOND_ACT's "no second action"
    CENSUS: int = 2
    EXCHANGE: int = 3
    REBUILD: int = 4  # special action (R08.4)
    CHANGE_SIDES: int = 5  # special action (R08.4)
    BOOK: int = 6  # a Book's action (R09.2); column 3 the BookKind
    ALLY: int = 7  # Ally against the Emptiness, paid with a Sognae and an Incubi (R12.3)


Act = _Act()


class _GreedyWeight(NamedTuple):
    """Indices of the ``greedy`` policy's weights in its ``params`` vector (policies/greedy_nb.py
    and its plain-Python twin, reference/greedy.py)."""

    BALANCE: int = 0  # placing a card that balances a city
    PROGRESS: int = 1  # per point of imbalance removed
    SLOT: int = 2  # cost of filling a slot without balancing
    STUCK: int = 3  # a city that placements can no longer balance
    SETUP: int = 4  # a hand card that would then balance the city
    CENSUS_CITY: int = 5  # per city a census pacifies
    TURN: int = 6  # cost of a turn spent on an action instead of a placement
    PERFECT: int = 7  # a census that pacifies all 4 cities
    PASS: int = 8  # discarding for nothing
    CHAOS_POINT: int = 9  # per point a placed Chaos adds to a city
    CLEAR: int = 10  # cost of clearing a balanced city
    REVEAL_CARD: int = 11  # per Dream card a reveal burns, at even pressure
    RUIN: int = 12  # unbalancing a balanced city
    FLEX: int = 13  # per element an unbalanced city gains by a Rebuild (R08.4)
    BOOKS_KEEP: int = 14  # most Books revealed at setup, each burning 4 Dream cards (R09.1)
    FREEDOM: int = 15  # a dreamless city pacified by the Book of Freedom (R09.5)
    PROPHECY: int = 16  # a look at the top Dream cards, over a plain pass (R09.7)
    EMPTINESS_CARD: int = 17  # an Emptiness card leaving the game (R12.2, R12.3)
    EMPTINESS_DREAM: int = 18  # per dream an unbalanced Emptiness city loses at a census
    WISE: int = 19  # a Wise Chaos puts back a Chaos whose best option costs more (R11.3)
    SWAP: int = 20  # placement gain a polarity swap must bring (R10.4)
    POSTCARD: int = 21  # per Inhabitant point a postcard wins or loses (R11)
    # facts of the card set, filled by greedy_params(cards=...), not weights
    MAX_SOGNAE: int = 22  # largest Sognae value
    MAX_INCUBI: int = 23  # largest Incubi magnitude


GreedyWeight = _GreedyWeight()


class _Expansion(NamedTuple):
    """Bits of an expansion set (the ``expansions`` mask); names as in TRACE.md."""

    SQUARES_METAS: int = 1
    CHROMATIC_CHAOS: int = 2
    TEMPLES_HARMONY: int = 4
    GARDENS_WIZARDS: int = 8
    BOOKS: int = 16
    POSTCARDS: int = 32
    EMPTINESS: int = 64


Expansion = _Expansion()
#: Expansion names in bit order (TRACE.md), and those the engines implement.
EXPANSION_NAMES = tuple(name.lower() for name in Expansion._fields)
PLAYABLE_EXPANSIONS = EXPANSION_NAMES
ALL_EXPANSIONS = (1 << len(EXPANSION_NAMES)) - 1
#: The rules word the kernels take: expansion bits, and this bit for the team variant.
TEAM_VARIANT = 1 << 7
VARIANT_NAMES = ("solo", "team")
#: Discards a polarity swap removes from the game (R10.4).
SWAP_REMOVES = 8


class _BooksChoice(NamedTuple):
    """Column 0 of a BOOKS option (R09.1)."""

    STOP: int = 0
    REVEAL: int = 1


BooksChoice = _BooksChoice()


class _ChaosHow(NamedTuple):
    """Column 0 of a HAND_CHAOS or DRAW_CHAOS option."""

    PLACE: int = 0
    CLEAR: int = 1
    REVEAL: int = 2
    ASIDE: int = 3
    WISE: int = 4  # put back as the 4th card with a Wise Chaos (R11.3)


ChaosHow = _ChaosHow()


class _Outcome(NamedTuple):
    RUNNING: int = 0
    WIN: int = 1
    LOSS: int = 2
    ERROR: int = 3  # the policy returned an index outside its options


Outcome = _Outcome()


class _Reason(NamedTuple):
    NONE: int = 0
    ALL_PACIFIED: int = 1
    DECK_EMPTY: int = 2
    EMPTINESS: int = 3
    INHABITANTS: int = 4
    ILLEGAL_DECISION: int = 5


Reason = _Reason()
REASON_NAMES = ("none", "all_pacified", "deck_empty", "emptiness", "inhabitants",
                "illegal_decision")


class _Info(NamedTuple):
    """Fields of the state vector ``info`` (int64).

    The first block is the policy-visible contract (docs/engine.md); the rest is engine
    bookkeeping that a policy must not rely on.
    """

    TURN: int = 0
    N_ROWS: int = 1
    DECK_N: int = 2
    CITY_DECK_N: int = 3
    SUCCESS_N: int = 4
    DISCARD_N: int = 5
    TOTAL_CITIES: int = 6
    SEAT: int = 7
    EXPANSIONS: int = 8  # the expansion set in play (Expansion bits)
    SEATS: int = 9  # 1 solo, 2 team (R10)
    POLARITY: int = 10  # the seat holding the Sognae Polarity card (0 in solo)
    BOOKS: int = 11  # bit k: a Book of BookKind k is in the layout (R09)
    PROPHECIES: int = 12  # Books of Prophecies in the layout (0-2)
    WISE_LEFT: int = 13  # Wise Chaos still to use (R11.2)
    INHABITANTS: int = 14  # sum of the Inhabitant pile (R11.9)
    EMPTINESS_N: int = 15  # Emptiness cards left in the pile (R12)
    EMPTINESS_ROW: int = 16  # the figure's row; -1 on the pile or out of the game
    EMPTINESS_FLAT: int = 17  # 1 while the figure lies flat (R12.3)
    POSTCARD_AT: int = 18  # 24 fields: the postcard on layout slot row * 6 + position
    # engine bookkeeping
    DECK_TOP: int = 42
    CITY_TOP: int = 43
    OUTCOME: int = 44
    REASON: int = 45
    LOG_N: int = 46
    LOG_OVERFLOW: int = 47
    ERROR_KIND: int = 48
    ERROR_CHOICE: int = 49
    ASIDE_N: int = 50
    PENDING_N: int = 51
    HELD_N: int = 52  # Chromatic Chaos held while dealing (R02.5)
    POSTCARD_TOP: int = 53
    POSTCARD_N: int = 54  # Postcards left in the Postcard deck
    EMPTINESS_CITY: int = 55  # the City card the figure stands on, -1 when it does not
    REMOVED_N: int = 56  # discards removed from the game by polarity swaps (R10.4)
    PHASE2: int = 57  # 1 while Phase II draws (a Wise Chaos may be used, R11.3)
    # at least the Hourglasses (R11.6) and Flagships (R11.7) lying on dreams: each one dealt
    # adds 1, and every end-of-turn (start-of-turn) pass sets the number it leaves there, so
    # a turn with none skips the pass
    HOURGLASS_N: int = 58
    FLAGSHIP_N: int = 59
    ERROR_OPTIONS: int = 60  # how many options the illegal decision offered


Info = _Info()
N_INFO = 61
N_POLICY_INFO = 42
N_SLOTS = 6  # dream slots of a row: L0-L2, R0-R2 (POSTCARD_AT)

#: Layout rows and columns: column 0 city id, 1-3 left dreams, 4-6 right dreams (-1 empty).
MAX_ROWS = 4
SIDE_SLOTS = 3
LAYOUT_COLS = 1 + 2 * SIDE_SLOTS
MAX_SEATS = 2
HAND_SIZE = 4
MAX_OPTIONS = 1024
OPTION_COLS = 4
EMPTY = -1


class _LogEntry(NamedTuple):
    """Column 0 of a fast-engine log row (int64, 8 columns)."""

    DECISION: int = 0  # kind, option columns 0-3, seat
    SHUFFLE: int = 1  # deck size; DATA rows with the deck top first follow
    DATA: int = 2  # up to 7 card ids
    CHECK: int = 3  # turn, deck, success, discard, n_rows; ROW and HAND rows follow
    ROW: int = 4  # city, L0-L2, R0-R2
    HAND: int = 5  # seat, 4 hand slots
    CITY_DECK: int = 6  # the City deck after the opening shuffle, as SHUFFLE
    DREAM_DECK: int = 7  # the Dream deck after the opening shuffle, as SHUFFLE
    GROUP: int = 8  # the dreams of a zero-sum discard (R05.5), as SHUFFLE
    BOOK_DECK: int = 9  # the 8 Books after shuffling, as SHUFFLE
    POSTCARD_DECK: int = 10  # the Postcard deck after shuffling, as SHUFFLE
    REMOVED: int = 11  # the 8 discards a polarity swap removes, as SHUFFLE
    EXTRA_CHECK: int = 12  # ends a CHECK: inhabitants, wise, emptiness cards, row, flat,
    #                        polarity (read where the expansion or variant is in play)


LogEntry = _LogEntry()
LOG_COLS = 8


class _Result(NamedTuple):
    """Columns of the per-game result matrix written by the batch kernel.

    The tallies (Chaos placed ... Exchanges) count trace entries, so the reference engine's
    results can be derived from its traces and compared column for column.
    """

    OUTCOME: int = 0
    REASON: int = 1
    TURNS: int = 2
    PACIFIED: int = 3
    DECK_LEFT: int = 4
    CHAOS_PLACED: int = 5
    CHAOS_CLEARED: int = 6
    CHAOS_REVEALED: int = 7
    CENSUSES: int = 8
    EXCHANGES: int = 9
    CHROMATIC: int = 10  # Chromatic Chaos resolved (R07)
    REBUILDS: int = 11  # special action Rebuild (R08.4)
    SIDES_CHANGED: int = 12  # special action Change Sides (R08.4)
    INHABITANTS: int = 13  # sum of the Inhabitant pile (R11.9)
    EMPTINESS_LEFT: int = 14  # Emptiness cards left in the pile (R12)
    BOOKS_KEPT: int = 15  # Books revealed and laid out (R09.1)
    WISE_USED: int = 16  # Wise Chaos used (R11.3)
    SEATS: int = 17  # 1 solo, 2 team (R10)
    BOOK_ACTIONS: int = 18  # Book actions carried out (R09.2)
    ALLIES: int = 19  # Ally against the Emptiness (R12.3)
    POLARITY_SWAPS: int = 20  # team polarity swaps (R10.4)


Result = _Result()
N_RESULT = 21


class _Stream(NamedTuple):
    """Independent random streams of one game (core/rng)."""

    DEAL: int = 0  # shuffles of the decks
    POLICY: int = 1  # a policy's own randomness
    ROLLOUT: int = 2  # a search's imagined orders of the unseen cards (keyed per decision)
    # The Book and Postcard decks' shuffles, derived from the DEAL stream's key: apart from
    # it, so that the Dream deck's reshuffles are the same with or without these expansions
    # (common random numbers when expansion sets are compared).
    BOOK_DECK: int = 3
    POSTCARD_DECK: int = 4


Stream = _Stream()


class EnginePolicy(NamedTuple):
    """A built-in policy that reads the whole game, not only the policy view: the search
    policies (policies/search_nb.py). Passed to the kernels as this tuple, a type of its
    own, so that only runs that use one compile its code."""

    id: int


class _EnginePolicyId(NamedTuple):
    SEARCH: int = 0  # rollouts on imagined orders of the unseen cards
    CLAIRVOYANT: int = 1  # rollouts on the true order of the decks


EnginePolicyId = _EnginePolicyId()
