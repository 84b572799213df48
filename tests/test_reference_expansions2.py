"""Tests of the reference engine and replayer with the last three expansions and the team game.

Books of Power, Postcards & Wise Chaos, The Emptiness, and the team variant
(docs/engine.md, "Expansions II and the team game"; RULINGS R09-R13). As in the other
reference tests, the rules are checked by evidence computed here, not by the code under
test:

- hand-built positions (rows, hands, decks, postcards, Books, the Emptiness figure) played a
  turn or a few with scripted decisions, whose outcome was worked out by hand from the
  rulebook, one scenario per ruling; the option lists the engine offers are compared with
  lists written out here;
- a hand-built trace of the Books step, replayed when legal and rejected when tampered with;
- random and greedy games of every new expansion, all seven, and the team game, replayed
  and checked against invariants computed from each trace alone.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

import analyzer.cards
from analyzer.cards import default_card_set
from analyzer.core.codes import (
    ALL_EXPANSIONS,
    BOOK_NAMES,
    EXPANSION_NAMES,
    N_POLICY_INFO,
    POSTCARD_NAMES,
    TEAM_VARIANT,
    Act,
    BookKind,
    BooksChoice,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    Outcome,
    PostcardKind,
    Reason,
    Stream,
)
from analyzer.core.rng import PyStream, below_nb
from analyzer.policies.registry import resolve_policy
from analyzer.reference import play_reference, replay
from analyzer.reference.engine import GameOver, Row, SoloGame
from analyzer.reference.play import LogWriter, PolicyDecider
from analyzer.reference.replay import ReplayError
from analyzer.reference.trace_cards import book_from_trace
from analyzer.trace.show import render_trace
from tests.test_reference import CHAOS_IDS, CITY_ELEMENTS, DREAMS, _expect_replay_error
from tests.test_reference_expansions import (
    CHROMATIC_IDS,
    EXPANSION_CITIES,
    HARMONY,
    METAS,
    WIZARDS,
    CheckingPolicy,
    _dreams_in_play,
    chromatic,
    pass_,
    row,
    xcard,
)

FULL_SET = default_card_set()
E = -1  # an unused option column

# ---------------------------------------------------------------------- the card table
#
# The scenario table of the other reference tests (cities 0-9, Sognae 10-19, Incubi 30-39,
# Chaos 50-53, Chromatic Chaos 60-63, Metas 70-72, Harmony 75-76, Wizards 80-83), with
# Books 90-97 (R14 order: Flying Sognae, Flying Incubi, Invisible Sognae, Invisible Incubi,
# Freedom, Perfect Balance, Prophecies twice), Postcards 100-123 (id 100 + 8 * copy + kind,
# kinds in PostcardKind order) and Emptiness cards 130-137.

BOOK_IDS = {90 + k: name for k, name in enumerate(
    ["flying_sognae", "flying_incubi", "invisible_sognae", "invisible_incubi", "freedom",
     "perfect_balance", "prophecies", "prophecies"])}
POSTCARD_IDS = range(100, 124)
EMPTINESS_IDS = range(130, 138)
FLYING_SOGNAE, FLYING_INCUBI, INVISIBLE_SOGNAE, INVISIBLE_INCUBI = 90, 91, 92, 93
FREEDOM, PERFECT_BALANCE, PROPHECIES, PROPHECIES_2 = 94, 95, 96, 97


def postcard(kind: int, copy_number: int = 0) -> int:
    """The id of a Postcard of ``kind`` in the scenario table."""
    return 100 + 8 * copy_number + kind


DREAMCATCHER, DOVES, SEER, MAGICIANS = (postcard(k) for k in range(4))
HOURGLASS, FLAGSHIP, ROCKET, PLANBOT = (postcard(k) for k in range(4, 8))


def card_entry(card_id: int) -> dict:
    """One card of the scenario table as a trace ``cards`` entry."""
    if card_id in BOOK_IDS:
        return {"id": card_id, "type": "book", "kind": BOOK_IDS[card_id]}
    if card_id in POSTCARD_IDS:
        return {"id": card_id, "type": "postcard", "kind": POSTCARD_NAMES[(card_id - 100) % 8]}
    if card_id in EMPTINESS_IDS:
        return {"id": card_id, "type": "emptiness"}
    return xcard(card_id)


ALL_IDS = sorted([*CITY_ELEMENTS, *EXPANSION_CITIES, *DREAMS, *CHAOS_IDS, *CHROMATIC_IDS,
                  *METAS, *HARMONY, *WIZARDS, *BOOK_IDS, *POSTCARD_IDS, *EMPTINESS_IDS])
UNIVERSE = book_from_trace([card_entry(i) for i in ALL_IDS], list(EXPANSION_NAMES))


def mask_of(names) -> int:
    return sum(getattr(Expansion, name.upper()) for name in names)


# ---------------------------------------------------------------------- positions


class ScriptDone(Exception):
    """The script is used up and the game asks for the next turn's card."""


class Scripted:
    """Answers decisions from a script of (kind, option code) pairs, in order.

    A decision of the kind the script expects next takes the option with that code (it
    must be offered). Otherwise a ZERO_SUM decision takes "no discard" and a decision with
    one option takes it and a SWAP_POLARITY keeps; any other decision is a test error,
    except a PHASE1 once the
    script is used up, which ends the scenario. Every decision is recorded with its options.
    """

    def __init__(self, script) -> None:
        self.script = [(kind, tuple(code)) for kind, code in script]
        self.asked: list[tuple[int, list[tuple]]] = []

    def decide(self, kind, options, game) -> int:
        codes = [tuple(option.code) for option in options]
        self.asked.append((kind, codes))
        if self.script and self.script[0][0] == kind:
            _, code = self.script.pop(0)
            assert code in codes, (Decision._fields[kind], code, codes)
            return codes.index(code)
        if kind == Decision.PHASE1 and not self.script:
            raise ScriptDone
        if kind in (Decision.ZERO_SUM, Decision.SWAP_POLARITY) or len(codes) == 1:
            return 0  # no discard, keep the polarity
        raise AssertionError(f"unscripted {Decision._fields[kind]}: {codes}")

    def act_done(self) -> None:
        pass

    def options_of(self, kind: int) -> list[list[tuple]]:
        """The option lists of every decision of ``kind``, in order."""
        return [codes for asked, codes in self.asked if asked == kind]


class NoShuffle:
    def shuffle(self, cards):
        raise AssertionError("no shuffle expected in this scenario")


class Record:
    """Keeps every check payload and narrated event."""

    def __init__(self) -> None:
        self.checks: list[dict] = []
        self.events: list[tuple[str, dict]] = []

    def check(self, snapshot: dict) -> None:
        self.checks.append(snapshot)

    def narrate(self, event: str, details: dict) -> None:
        self.events.append((event, details))

    def of(self, event: str) -> list[dict]:
        return [details for name, details in self.events if name == event]


def position(rows, hand=(), deck=(), *, expansions=("postcards",), script=(), city_deck=(),
             postcards=None, books=(), emptiness=0, figure=None, flat=False, hands=None,
             discard=(), wise=None, polarity=0, total=99, decider=None):
    """A game at a hand-built position, before its next turn.

    ``rows`` are (city, left dreams, right dreams); ``postcards`` maps dreams to the
    postcard on them; ``figure`` is the row whose City card the Emptiness stands on (None:
    on the pile); ``hands`` gives both team hands (then the game has two seats).
    """
    record = Record()
    decider = decider or Scripted(script)
    seats = 2 if hands is not None else 1
    game = SoloGame(UNIVERSE, list(city_deck), list(deck), decider, NoShuffle(), record,
                    record.narrate, expansions=mask_of(expansions), seats=seats)
    game.rows = [Row(city, (list(left), list(right))) for city, left, right in rows]
    game.hands = [list(h) for h in (hands if hands is not None else [hand])]
    game.total_cities = total
    game.discard = list(discard)
    game.postcard_deck = []
    game.postcard_on = dict(postcards or {})
    game.hourglass_turns = {p: 0 for p in game.postcard_on.values()
                            if UNIVERSE.postcard_kind(p) == PostcardKind.HOURGLASS}
    game.book_deck = list(books)
    game.books = list(books)
    game.emptiness_pile = list(EMPTINESS_IDS[:emptiness])
    game.figure_city = rows[figure][0] if figure is not None else E
    game.figure_flat = flat
    game.polarity = polarity
    if wise is not None:
        game.wise_left = wise
    return game, decider, record


def play_turns(game: SoloGame, turns: int) -> None:
    """Play ``turns`` turns (or until the game ends, then the final check) as
    ``SoloGame.play`` does."""
    try:
        for _ in range(turns):
            game._play_turn()
    except GameOver as end:
        game.outcome, game.reason = end.outcome, end.reason
        game.checkpoint.check(game.snapshot())


def layout(game: SoloGame) -> list[tuple]:
    return [(r.city, r.sides[0], r.sides[1]) for r in game.rows]


# Most scenarios play with this hand (the card paid is 18) and draw from a deck of 35; the
# other rows of a scenario are often these three unbalanced ones.
HAND = [18, 19, 38, 39]
FILLER = [(1, [15], []), (2, [13], []), (3, [11], [])]


def census_turn(rows, postcards, expansions=("postcards",), deck=(35,), city_deck=(),
                hand=HAND, **kwargs):
    """One turn: a census paid with the first hand card, then one card drawn."""
    game, decider, record = position(rows, hand, deck, expansions=expansions,
                                     script=[(Decision.PHASE1, (Act.CENSUS, hand[0], E, E))],
                                     city_deck=city_deck, postcards=postcards, **kwargs)
    play_turns(game, 1)
    return game, decider, record


def scored(record: Record) -> list[tuple[int, int, str]]:
    """(postcard, points, why) of every postcard that left the layout, in order."""
    return [(d["postcard"], d["points"], d["why"]) for d in record.of("postcard_scored")]


# ---------------------------------------------------------------------- R11.5 conditions


@pytest.mark.parametrize("left, right, on, points", [
    ([10], [30], 10, 1),  # alone on the left
    ([10, 12], [31], 10, -2),  # a second dream on its side
    ([10, 12], [31], 31, 1),  # alone on the right
])
def test_R11_5_dreamcatcher_scores_when_its_dream_is_alone_on_its_side(left, right, on, points):
    game, _, record = census_turn([(0, left, right), *FILLER], {on: DREAMCATCHER})
    assert scored(record) == [(DREAMCATCHER, points, "pacified")]
    assert game.inhabitants == points and game.inhabitant_pile == [DREAMCATCHER]
    assert game.postcard_on == {}
    assert game.discard == [18, *left, *right]  # scored, not sent away again


@pytest.mark.parametrize("last_row, points", [((3, [16], [36]), 1), ((3, [17], [36]), -2)])
def test_R11_5_doves_score_on_a_perfect_balance(last_row, points):
    rows = [(0, [10], [30]), (1, [14], [34]), (2, [15], [35]), last_row]
    hand = [12, 13, 33, 37]
    game, _, record = position(rows, hand, [18], script=[
        (Decision.PHASE1, (Act.CENSUS, 12, E, E))], postcards={14: DOVES})
    play_turns(game, 1)
    assert scored(record) == [(DOVES, points, "pacified")]
    assert len(game.success) == (4 if points == 1 else 3)


@pytest.mark.parametrize("left, right, on, points, expansions", [
    ([10, 14], [32, 36], 10, 1, ()),  # earth, fire, water, air
    ([75, 76], [30, 32, 34], 30, 1, ("temples_harmony",)),  # 3 elements + 2 wild Harmony
    ([75], [30, 32], 30, -2, ("temples_harmony",)),  # 2 elements + 1 wild: 3
    ([50], [31, 33, 34], 31, -2, ()),  # a Chaos shows no element: 3
])
def test_R11_5_seer_needs_all_four_elements_harmony_wild_chaos_none(left, right, on, points,
                                                                    expansions):
    game, _, record = census_turn([(0, left, right), *FILLER], {on: SEER},
                                  expansions=("postcards", *expansions))
    assert scored(record) == [(SEER, points, "pacified")]


@pytest.mark.parametrize("second, points", [(51, 1), (60, -2)])
def test_R11_5_magicians_count_plain_chaos_of_the_noted_layout(second, points):
    # Chaos 50 lies in the pacified row itself: counted before its dreams are discarded.
    # A Chromatic Chaos (60) does not count.
    rows = [(0, [50], [37, 33, 34]), (1, [second], []), (2, [15], []), (3, [16], [])]
    _, _, record = census_turn(rows, {37: MAGICIANS},
                               expansions=("postcards", "chromatic_chaos"))
    assert scored(record) == [(MAGICIANS, points, "pacified")]


def test_R11_5_R05_2_magicians_read_the_noted_layout_after_an_earlier_city_went():
    # row 0's two Chaos are discarded with their city before row 1's postcard is scored
    rows = [(0, [50], [51]), (1, [17], [37]), (2, [13], []), (3, [11], [])]
    _, _, record = census_turn(rows, {17: MAGICIANS})
    assert scored(record) == [(MAGICIANS, 1, "pacified")]


PLANBOT_HAND = [10, 16, 31, 36]


@pytest.mark.parametrize("rows, on", [
    # magnitudes 3, 4, 1, 2: ascending 1, 2, 3, 4 from row 2, wrapping (rows 2, 3, 0, 1)
    ([(0, [18], []), (1, [60], []), (2, [14], [34]), (3, [17], [])], 14),
    # magnitudes 2, 1, {4, 3, 1}, 3: descending 4, 3, 2, 1 from row 2, wrapping
    ([(0, [11], []), (1, [14], []), (2, [60], [38, 34]), (3, [19], [])], 38),
])
def test_R11_5_planbot_cyclic_sequence_in_both_directions(rows, on):
    _, _, record = census_turn(rows, {on: PLANBOT}, hand=PLANBOT_HAND,
                               expansions=("postcards", "chromatic_chaos"))
    assert scored(record) == [(PLANBOT, 1, "pacified")]


@pytest.mark.parametrize("rows", [
    # magnitudes 1, 3, 2, 4: no run of consecutive values either way, even wrapping
    [(0, [12], [32]), (1, [18], []), (2, [11], []), (3, [60], [])],
    # a run 1, 2, 3 but only 3 rows in the layout
    [(0, [12], [32]), (1, [11], []), (2, [18], [])],
])
def test_R11_5_planbot_without_a_sequence_of_four_rows_scores_minus_two(rows):
    _, _, record = census_turn(rows, {12: PLANBOT}, hand=PLANBOT_HAND,
                               expansions=("postcards", "chromatic_chaos"))
    assert scored(record) == [(PLANBOT, -2, "pacified")]


@pytest.mark.parametrize("card", [HOURGLASS, ROCKET])
def test_R11_4_special_rule_postcards_score_plus_one_when_pacified(card):
    _, _, record = census_turn([(0, [10], [30]), *FILLER], {10: card})
    assert scored(record) == [(card, 1, "pacified")]


def test_R11_4_a_postcard_sent_away_when_its_dream_goes_in_a_zero_sum_discard():
    rows = [(0, [10, 12], [31, 32]), *FILLER]  # +2 -3; bit 0 is 10, bit 4 is 32
    game, _, record = position(rows, HAND, [35], script=[
        (Decision.PHASE1, (Act.CENSUS, 18, E, E)),
        (Decision.ZERO_SUM, (0b10001, 0, E, E))], postcards={10: SEER})
    play_turns(game, 1)
    assert scored(record) == [(SEER, -2, "discarded")]
    assert game.rows[0].sides == ([12], [31])


# ---------------------------------------------------------------------- R11.6 Hourglass


def test_R11_6_hourglass_sent_away_on_fifth_end_of_turn():
    rows = [(0, [10], []), *FILLER]
    game, _, record = position(rows, [12, 14, 16, 17], [30, 31, 32, 33, 34], script=[
        (Decision.PHASE1, (Act.PASS, card, E, E)) for card in (12, 14, 16, 17, 30)],
        postcards={10: HOURGLASS})
    for turn in range(1, 5):
        play_turns(game, 1)
        assert game.hourglass_turns[HOURGLASS] == turn  # turned at the end of each turn
        assert game.postcard_on == {10: HOURGLASS}
    play_turns(game, 1)  # it would be turned a fifth time
    assert scored(record) == [(HOURGLASS, -2, "hourglass")]
    assert game.postcard_on == {} and game.inhabitants == -2
    assert [c["inhabitants"] for c in record.checks] == [0, 0, 0, 0, -2]
    assert game.rows[0].sides == ([10], [])  # its dream stays


def test_R11_6_hourglass_dealt_in_a_census_is_turned_the_same_turn():
    rows = [(0, [10], [30]), *FILLER]
    game, _, record = position(rows, HAND, [12, 31, 14, 16, 17, 32, 33], city_deck=[4],
                               script=[(Decision.PHASE1, (Act.CENSUS, 18, E, E)),
                                       *[(Decision.PHASE1, (Act.PASS, c, E, E))
                                         for c in (19, 38, 39, 14)]])
    game.postcard_deck = [HOURGLASS]
    play_turns(game, 1)
    assert game.postcard_on == {12: HOURGLASS}  # on card 1 of row 0's new deal (R02.6)
    assert game.hourglass_turns[HOURGLASS] == 1
    play_turns(game, 3)
    assert game.hourglass_turns[HOURGLASS] == 4
    play_turns(game, 1)  # the 5th end of turn after it was dealt, that turn included
    assert scored(record) == [(HOURGLASS, -2, "hourglass")]


# ---------------------------------------------------------------------- R11.7 Flagship


def test_R11_7_flagship_wraps_from_the_bottom_row_and_scores_when_pacified():
    # The Flagship's dream moves from row 3 to row 0 at the start of the turn, before the
    # census, and balances row 0.
    rows = [(0, [], [30]), (1, [14], []), (2, [15], []), (3, [16, 10], [])]
    game, _, record = census_turn(rows, {10: FLAGSHIP})
    assert record.of("flagship") == [{"postcard": FLAGSHIP, "card": 10, "from": 3, "to": 0}]
    assert scored(record) == [(FLAGSHIP, 1, "pacified")]


def test_R11_7_flagship_sent_away_at_a_full_side_its_dream_stays():
    rows = [(0, [11, 12, 13], []), (1, [14], []), (2, [15], []), (3, [16, 10], [])]
    game, _, record = position(rows, HAND, [35], postcards={10: FLAGSHIP},
                               script=[(Decision.PHASE1, (Act.PASS, 18, E, E))])
    play_turns(game, 1)
    assert scored(record) == [(FLAGSHIP, -2, "flagship")]
    assert game.rows[3].sides == ([16, 10], []) and game.rows[0].sides == ([11, 12, 13], [])


def test_R11_7_several_flagships_move_once_each_top_row_first():
    rows = [(0, [10], []), (1, [14], [30]), (2, [15], []), (3, [16], [])]
    game, _, record = position(rows, HAND, [35], script=[
        (Decision.PHASE1, (Act.PASS, 18, E, E))],
        postcards={10: FLAGSHIP, 14: postcard(PostcardKind.FLAGSHIP, 1),
                   30: postcard(PostcardKind.FLAGSHIP, 2)})
    play_turns(game, 1)
    # 10 joins row 1 after 14; 14 (listed before 10 arrived) goes on to row 2, once; 30
    # on the right side goes to row 2 as well.
    assert layout(game) == [(0, [], []), (1, [10], []), (2, [15, 14], [30]), (3, [16], [])]
    assert [d["card"] for d in record.of("flagship")] == [10, 14, 30]


def test_R11_7_flagship_with_one_city_does_not_move():
    game, _, record = position([(0, [10], [])], HAND, [35], postcards={10: FLAGSHIP},
                               script=[(Decision.PHASE1, (Act.PASS, 18, E, E))])
    play_turns(game, 1)
    assert record.of("flagship") == [] and game.postcard_on == {10: FLAGSHIP}


# ---------------------------------------------------------------------- R11.8 Rocket


def test_R11_4_a_postcard_moves_with_its_dream_in_an_exchange():
    rows = [(0, [10], []), *FILLER]
    game, _, record = position(rows, HAND, [35], postcards={10: DREAMCATCHER}, script=[
        (Decision.PHASE1, (Act.EXCHANGE, 18, E, E)),
        (Decision.EXCHANGE_PAIR, (10, 15, 0, E))])
    play_turns(game, 1)
    assert layout(game)[:2] == [(0, [15], []), (1, [10], [])]
    assert game.postcard_on == {10: DREAMCATCHER} and scored(record) == []


def test_R11_8_resting_rocket_moved_by_an_exchange_is_sent_away():
    rows = [(0, [10], []), *FILLER]
    game, decider, record = position(rows, HAND, [35], postcards={10: ROCKET}, script=[
        (Decision.PHASE1, (Act.EXCHANGE, 18, E, E)),
        (Decision.EXCHANGE_PAIR, (10, 15, 0, E))])
    play_turns(game, 1)
    assert scored(record) == [(ROCKET, -2, "rocket")]
    assert layout(game)[:2] == [(0, [15], []), (1, [10], [])]


def test_R11_8_resting_rocket_moved_by_change_sides_or_a_flying_book():
    rows = [(0, [50], [30]), (1, [10], []), (2, [15], []), (3, [16], [])]
    wizards = ("postcards", "gardens_wizards", "books")
    game, _, record = position(rows, [80, 19, 36, 37], [35], expansions=wizards,
                               books=[FLYING_SOGNAE], postcards={50: ROCKET, 10: SEER},
                               script=[(Decision.PHASE1, (Act.CHANGE_SIDES, 80, E, E))])
    play_turns(game, 1)
    assert scored(record) == [(ROCKET, -2, "rocket")]
    game, _, record = position(rows, [80, 19, 36, 37], [35], expansions=wizards,
                               books=[FLYING_SOGNAE], postcards={10: ROCKET},
                               script=[(Decision.PHASE1, (Act.BOOK, 19, E,
                                                          BookKind.FLYING_SOGNAE)),
                                       (Decision.BOOK_TARGET, (10, 1, 3, 0))])
    play_turns(game, 1)
    assert scored(record) == [(ROCKET, -2, "rocket")]
    assert layout(game)[3] == (3, [16, 10], [])


def test_R11_8_a_rebuild_does_not_move_the_rocket():
    rows = [(0, [10], []), *FILLER]
    game, _, record = position(rows, [80, 19, 36, 37], [35], postcards={10: ROCKET},
                               expansions=("postcards", "gardens_wizards"),
                               script=[(Decision.PHASE1, (Act.REBUILD, 80, E, E)),
                                       (Decision.REBUILD_ROWS, (0, 1, E, E))])
    play_turns(game, 1)
    assert scored(record) == [] and game.postcard_on == {10: ROCKET}


# ---------------------------------------------------------------------- R11.3 Wise Chaos


def test_R11_3_wise_chaos_puts_a_chaos_fourth_from_the_top():
    rows = [(0, [10], []), *FILLER]
    game, decider, record = position(rows, HAND, [50, 12, 14, 16, 17], wise=3, script=[
        (Decision.PHASE1, (Act.PASS, 18, E, E)),
        (Decision.DRAW_CHAOS, (ChaosHow.WISE, E, E, 50))])
    play_turns(game, 1)
    offered = decider.options_of(Decision.DRAW_CHAOS)[0]
    assert offered[-1] == (ChaosHow.WISE, E, E, 50)  # the last option
    assert offered[-2] == (ChaosHow.REVEAL, E, E, 50)
    # Back as the 4th card ([12, 14, 16, 50, 17]), then drawing goes on: 12 to the hand.
    assert record.of("wise") == [{"card": 50, "left": 2, "depth": 3, "bottom": False}]
    assert game.hand == [19, 38, 39, 12]
    assert game.dream_deck == [14, 16, 50, 17]
    assert game.wise_left == 2 and record.checks[-1]["wise_chaos"] == 2


def test_R11_3_wise_chaos_with_three_cards_or_fewer_goes_to_the_bottom():
    game, decider, record = position([(0, [10], []), *FILLER], HAND, [60, 12, 14], wise=1,
                                     expansions=("postcards", "chromatic_chaos"), script=[
                                         (Decision.PHASE1, (Act.PASS, 18, E, E)),
                                         (Decision.CHROMATIC, (-2, E, 60, E))])
    play_turns(game, 1)
    assert decider.options_of(Decision.CHROMATIC)[0][-1] == (-2, E, 60, E)
    assert game.dream_deck == [14, 60] and game.wise_left == 0
    # told as it happened: below the 2 cards left, at the bottom
    assert record.of("wise") == [{"card": 60, "left": 0, "depth": 2, "bottom": True}]


def test_R11_3_only_a_card_drawn_into_the_hand_may_use_a_wise_chaos():
    # Chaos 50 is drawn and reveals 51: the revealed Chaos gets no Wise option.
    rows = [(0, [10], []), *FILLER]
    game, decider, _ = position(rows, HAND, [50, 51, 12, 14, 16, 17], wise=2, script=[
        (Decision.PHASE1, (Act.PASS, 18, E, E)),
        (Decision.DRAW_CHAOS, (ChaosHow.REVEAL, E, E, 50)),
        (Decision.DRAW_CHAOS, (ChaosHow.PLACE, 0, 0, 51))])
    play_turns(game, 1)
    drawn, revealed = decider.options_of(Decision.DRAW_CHAOS)
    assert drawn[-1][0] == ChaosHow.WISE and revealed[-1][0] == ChaosHow.REVEAL
    # None left: no Wise option.
    game, decider, _ = position(rows, HAND, [50, 12], wise=0, script=[
        (Decision.PHASE1, (Act.PASS, 18, E, E)),
        (Decision.DRAW_CHAOS, (ChaosHow.REVEAL, E, E, 50))])
    play_turns(game, 1)
    assert all(code[0] != ChaosHow.WISE for code in decider.options_of(Decision.DRAW_CHAOS)[0])


@pytest.mark.parametrize("names, count", [
    (["postcards"], 3), (["postcards", "squares_metas"], 4),
    (["postcards", "squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards"], 6),
    (list(EXPANSION_NAMES), 6)])
def test_R11_2_wise_chaos_count(names, count):
    card_set = FULL_SET.with_expansions(mask_of(names))
    trace = play_reference(card_set, 5, 0, resolve_policy("random").func, "random")
    assert trace["log"][[("check" in e) for e in trace["log"]].index(True)]["check"][
        "wise_chaos"] == count


# ---------------------------------------------------------------------- R11.9 inhabitants


@pytest.mark.parametrize("card, outcome, reason", [
    (SEER, Outcome.LOSS, Reason.INHABITANTS), (DREAMCATCHER, Outcome.WIN, Reason.ALL_PACIFIED)])
def test_R11_9_win_needs_inhabitants_zero_or_more(card, outcome, reason):
    # The last City card: the Dreamcatcher scores +1, the Seer -2 (only earth shows).
    game, _, record = census_turn([(0, [10], [30])], {10: card}, total=1)
    assert (game.outcome, game.reason) == (outcome, reason)
    assert game.success == [0] and record.checks[-1]["success"] == 1


# ---------------------------------------------------------------------- R12 the Emptiness


def test_R12_1_the_figure_moves_down_wraps_and_stands_up_after_lying_flat():
    rows = [(0, [10], []), *FILLER]
    game, _, record = position(rows, HAND, [12, 14, 16, 17, 30, 31], expansions=("emptiness",),
                               emptiness=3, flat=True,
                               script=[(Decision.PHASE1, (Act.PASS, c, E, E))
                                       for c in (18, 19, 38, 39, 12, 14)])
    seen = []
    for _ in range(6):
        play_turns(game, 1)
        seen.append((game.emptiness_row(), game.figure_flat))
    assert seen == [(E, False), (0, False), (1, False), (2, False), (3, False), (0, False)]
    assert [c["emptiness"]["at"] for c in record.checks] == [None, 0, 1, 2, 3, 0]


def test_R12_2_emptiness_on_a_dreamless_city_at_census_loses():
    rows = [(0, [10], []), (1, [], []), (2, [15], []), (3, [16], [])]
    game, decider, record = census_turn(rows, {}, expansions=("emptiness",), emptiness=8,
                                        figure=0)
    assert (game.outcome, game.reason) == (Outcome.LOSS, Reason.EMPTINESS)
    assert game.emptiness_row() == 1 and len(game.emptiness_pile) == 8
    assert record.of("emptiness_check") == [{"row": 1, "city": 1, "result": "empty"}]


def test_R12_2_the_emptiness_city_is_never_pacified_nor_asked_a_zero_sum_discard():
    # Row 1 is balanced and holds a zero-sum set, but the figure stands there.
    rows = [(0, [10], [30]), (1, [14, 12], [34, 32]), (2, [15], []), (3, [16], [])]
    game, decider, record = census_turn(rows, {14: SEER}, expansions=("emptiness", "postcards"),
                                        emptiness=8, figure=0, city_deck=[4], deck=[11, 31, 35])
    assert [codes[0][1] for codes in decider.options_of(Decision.ZERO_SUM)] == [2, 3]
    assert game.success == [0]  # row 0 only
    assert record.of("emptiness_check") == [{"row": 1, "city": 1, "result": "balanced"}]
    assert len(game.emptiness_pile) == 7 and game.figure_city == E and not game.figure_flat
    assert layout(game)[1] == (1, [14, 12], [34, 32])  # its dreams stay
    assert game.postcard_on == {14: SEER}


def test_R12_2_an_unbalanced_emptiness_city_loses_its_dreams_and_their_postcards():
    rows = [(0, [10], []), (1, [14], [31]), (2, [15], []), (3, [16], [])]
    game, _, record = census_turn(rows, {31: SEER}, expansions=("emptiness", "postcards"),
                                  emptiness=8, figure=0, deck=[12, 32, 35])
    assert game.discard == [18, 14, 31]
    assert layout(game)[1] == (1, [12], [32])  # then dealt anew as a dreamless row (R05.9)
    assert scored(record) == [(SEER, -2, "discarded")] and len(game.emptiness_pile) == 8


def test_R12_4_last_emptiness_card_brings_the_top_city_card():
    rows = [(0, [10], [30]), *FILLER]
    game, _, record = census_turn(rows, {}, expansions=("emptiness",), emptiness=1,
                                  city_deck=[4, 5])
    # The figure moved from the pile to row 0; balanced there, not pacified.
    assert game.success == [4] and game.city_deck == [5]
    assert layout(game)[0] == (0, [10], [30])
    assert game.emptiness_pile == [] and game.figure_city == E
    assert record.checks[-1]["emptiness"] == {"cards": 0, "at": None, "flat": False}
    assert record.of("bonus") == [{"city": 4, "why": "emptiness"}]


def test_R12_3_R12_4_ally_takes_a_sognae_and_an_incubi_and_the_last_card_wins():
    rows = [(0, [10], []), *FILLER]
    game, decider, record = position(rows, [12, 32, 70, 37], [16, 17], city_deck=[4],
                                     expansions=("emptiness", "squares_metas"), emptiness=1,
                                     total=1, script=[(Decision.PHASE1, (Act.ALLY, 12, 32, E))])
    play_turns(game, 1)
    allies = [c for c in decider.options_of(Decision.PHASE1)[0] if c[0] == Act.ALLY]
    # 12 Sognae, 32 Incubi, 70 a Meta (either), 37 Incubi.
    assert allies == [(Act.ALLY, 12, 32, E), (Act.ALLY, 12, 70, E), (Act.ALLY, 12, 37, E),
                      (Act.ALLY, 32, 70, E), (Act.ALLY, 70, 37, E)]
    assert (game.outcome, game.reason) == (Outcome.WIN, Reason.ALL_PACIFIED)
    assert game.discard == [12, 32] and game.success == [4]


def test_R12_3_ally_lays_the_figure_flat_and_it_stands_up_next_turn():
    rows = [(0, [10], []), *FILLER]
    game, _, record = position(rows, [12, 32, 17, 37], [14, 16, 30], expansions=("emptiness",),
                               emptiness=3, figure=2, script=[
                                   (Decision.PHASE1, (Act.ALLY, 12, 32, E)),
                                   (Decision.PHASE1, (Act.PASS, 17, E, E))])
    play_turns(game, 1)
    assert record.checks[-1]["emptiness"] == {"cards": 2, "at": None, "flat": True}
    assert len(game.hand) == 4  # Phase II drew 2
    play_turns(game, 1)
    assert record.checks[-1]["emptiness"] == {"cards": 2, "at": None, "flat": False}


def test_R12_5_freedom_loving_dreams_on_the_emptiness_city():
    rows = [(0, [10], []), (1, [], []), (2, [15], []), (3, [16], [])]
    game, decider, record = position(rows, HAND, [12, 32, 14], city_deck=[5],
                                     expansions=("emptiness", "books"), books=[FREEDOM],
                                     emptiness=3, figure=0, script=[
                                         (Decision.PHASE1, (Act.BOOK, 18, E, BookKind.FREEDOM))])
    play_turns(game, 1)
    assert decider.options_of(Decision.BOOK_TARGET) == [[(1, E, E, E)]]
    assert game.success == [1] and layout(game)[1] == (5, [12], [32])
    assert game.figure_city == E and not game.figure_flat and len(game.emptiness_pile) == 3
    assert record.checks[-1]["emptiness"] == {"cards": 3, "at": None, "flat": False}


def test_R12_rebuild_never_lists_the_emptiness_row():
    rows = [(0, [10], []), *FILLER]
    game, decider, _ = position(rows, [80, 19, 36, 37], [35], figure=0,
                                expansions=("emptiness", "gardens_wizards"), emptiness=2,
                                script=[(Decision.PHASE1, (Act.REBUILD, 80, E, E)),
                                        (Decision.REBUILD_ROWS, (0, 2, E, E))])
    play_turns(game, 1)  # the figure moved to row 1
    assert decider.options_of(Decision.REBUILD_ROWS) == [
        [(0, 2, E, E), (0, 3, E, E), (2, 3, E, E)]]
    assert [c for c, _, _ in layout(game)] == [2, 1, 0, 3]


def test_R12_rebuild_needs_two_rows_besides_the_emptiness_row():
    game, decider, _ = position([(0, [10], []), (1, [14], [])], [80, 19, 36, 37], [35],
                                figure=1, expansions=("emptiness", "gardens_wizards"),
                                emptiness=2, script=[(Decision.PHASE1, (Act.PASS, 80, E, E))])
    play_turns(game, 1)
    assert all(code[0] != Act.REBUILD for code in decider.options_of(Decision.PHASE1)[0])


# ---------------------------------------------------------------------- R09 Books


def books_trace(keep=2, shuffle=None, discard=5) -> dict:
    """The Books step by hand: keep 2 Books, burn 8 Dream cards, shuffle 3 Chaos back."""
    burn = [10, 50, 30, 60, 11, 31, 51, 12]  # 5 discarded; Chaos 50, 51, Chromatic 60 back
    rest = [13, 32, 14, 33, 15, 34, 16, 17, 36, 18]
    order = shuffle or [13, 32, 14, 50, 33, 60, 15, 51, 34, 16, 17, 36, 18]
    # Dealing: row 0 13 L, 32 R; row 1 14 L, Chaos 50 joins it; row 2 33 R, 60 held, 15 L;
    # row 3 Chaos 51 waits, 34 R, 51 joins it. Opening hand 16, 17, 36, 18. The held 60 goes
    # to row 0, side R, and reveals nothing: the deck is empty.
    rows = [row(0, [13], [32, 60]), row(1, [14, 50], []), row(2, [15], [33]),
            row(3, [], [34, 51])]
    log = [{"do": "books", "keep": keep}, {"shuffle": order}, chromatic(0, "R"),
           {"check": {"turn": 0, "rows": rows, "hand": [16, 17, 36, 18], "dream_deck": 0,
                      "success": 0, "discard": discard}},
           pass_(16),
           {"check": {"turn": 1, "rows": rows, "hand": [17, 36, 18], "dream_deck": 0,
                      "success": 0, "discard": discard + 1}}]
    cities = [0, 1, 2, 3]
    book_deck = [FLYING_SOGNAE, PROPHECIES, PERFECT_BALANCE, FLYING_INCUBI, INVISIBLE_SOGNAE,
                 INVISIBLE_INCUBI, FREEDOM, PROPHECIES_2]
    ids = sorted(cities + burn + rest + book_deck)
    return {
        "format": "urbion-trace/1", "seed": 0, "game": 0, "variant": "solo",
        "expansions": ["chromatic_chaos", "books"], "policy": "scripted", "card_set": "mini",
        "cards": [card_entry(i) for i in ids],
        "setup": {"city_deck": cities, "dream_deck": burn + rest, "postcard_deck": [],
                  "book_deck": book_deck},
        "log": log,
        "result": {"outcome": "loss", "reason": "deck_empty", "card_set": "mini", "turns": 1,
                   "pacified": 0, "deck_left": 0},
    }


def test_R09_1_books_burn_discards_dreams_and_shuffles_chaos_back_once():
    trace = books_trace()
    assert replay(trace) == trace["result"]
    events = []
    replay(trace, narrate=lambda event, details: events.append((event, details)))
    assert ("books", {"kept": [FLYING_SOGNAE, PROPHECIES]}) in events
    assert ("burn", {"burnt": [10, 30, 11, 31, 12], "back": [50, 60, 51]}) in events
    asked = [d["code"] for e, d in events if e == "decision" and d["kind"] == Decision.BOOKS]
    assert asked == [(BooksChoice.REVEAL, E, E, E)] * 2 + [(BooksChoice.STOP, E, E, E)]


def test_R09_1_the_books_step_is_tampered_with():
    # Keeping no Book burns nothing: the logged shuffle is then not expected.
    _expect_replay_error(books_trace(keep=0), "log entry 1:", "CHROMATIC")
    _expect_replay_error(books_trace(keep=5), "log entry 0:", "from 0 to 4")
    trace = books_trace()
    del trace["log"][1]
    _expect_replay_error(trace, "log entry 1:", "expected a shuffle")
    # The shuffle must hold the remaining deck and the three Chaos sent back.
    _expect_replay_error(books_trace(shuffle=[13, 32, 14, 33, 15, 34, 16, 17, 36, 18, 50, 51,
                                              10]), "log entry 1:", "not a permutation")
    _expect_replay_error(books_trace(discard=8), "log entry 3:", "check discard differs")


def test_R09_1_R13_2_the_books_burn_draws_so_an_empty_deck_loses():
    # One Book kept burns 4 cards, but the deck holds 3: the 4th draw loses; Chaos 50, set
    # aside, is then in no zone, and nothing is shuffled. (Six Books: 4 put away, 2 may be
    # revealed, R09.1.)
    decider = Scripted([(Decision.BOOKS, (BooksChoice.REVEAL, E, E, E)),
                        (Decision.BOOKS, (BooksChoice.STOP, E, E, E))])
    record = Record()
    game = SoloGame(UNIVERSE, [0], [50, 10, 30], decider, NoShuffle(), record, record.narrate,
                    expansions=Expansion.BOOKS,
                    book_deck=[PROPHECIES, FREEDOM, *range(FLYING_SOGNAE, FREEDOM)])
    game.play()
    assert (game.outcome, game.reason) == (Outcome.LOSS, Reason.DECK_EMPTY)
    assert game.books == [PROPHECIES] and game.discard == [10, 30] and game.in_transit == [50]
    assert record.checks == [{"turn": 0, "rows": [{"city": 0, "L": [], "R": []}], "hand": [],
                              "dream_deck": 0, "success": 0, "discard": 2}]


def test_R09_1_each_book_revealed_is_shown_to_the_policy_at_once():
    card_set = FULL_SET.with_expansions(Expansion.BOOKS)
    seen = []

    def reveal_all(kind, options, n_options, state, cards, params, rng):
        if kind == Decision.BOOKS:
            info = state[2]
            seen.append((int(info[Info.BOOKS]), int(info[Info.PROPHECIES])))
            return 1
        return 0

    trace = play_reference(card_set, 3, 1, reveal_all, "reveal")
    deal = PyStream(3, 1, Stream.DEAL)
    for ids in (list(card_set.city_ids), list(card_set.dream_ids)):
        deal.shuffle(ids)
    books = [int(c) for c in card_set.other_ids]
    deal.derived(Stream.BOOK_DECK).shuffle(books)  # its own stream, apart from DEAL's draws
    assert trace["setup"]["book_deck"] == books and trace["setup"]["postcard_deck"] == []
    kinds = [int(card_set.cards[c, CardField.KIND]) for c in books[:4]]
    expected = [(sum(1 << k for k in set(kinds[:n])), kinds[:n].count(BookKind.PROPHECIES))
                for n in range(4)]
    assert seen == expected  # four questions, none after the fourth Book
    assert next(e for e in trace["log"] if e.get("do") == "books") == {"do": "books", "keep": 4}
    assert replay(trace) == trace["result"]


def test_R09_7_prophecies_with_both_books_reorder_four_cards():
    rows = [(0, [10], []), *FILLER]
    game, decider, _ = position(rows, HAND, [12, 14, 16, 17, 30], expansions=("books",),
                                books=[PROPHECIES, PROPHECIES_2], script=[
                                    (Decision.PHASE1, (Act.BOOK, 18, E, BookKind.PROPHECIES)),
                                    (Decision.PROPHECY_ORDER, (17, 16, 14, 12))])
    play_turns(game, 1)
    (offered,) = decider.options_of(Decision.PROPHECY_ORDER)
    assert offered == [tuple(p) for p in permutations([12, 14, 16, 17])]  # 24, unchanged first
    assert offered[1] == (12, 14, 17, 16)
    assert game.hand == [19, 38, 39, 17] and game.dream_deck == [16, 14, 12, 30]


def test_R09_7_prophecies_with_one_book_see_two_and_an_empty_deck_none():
    rows = [(0, [10], []), *FILLER]
    game, decider, _ = position(rows, HAND, [12, 14, 16], expansions=("books",),
                                books=[PROPHECIES], script=[
                                    (Decision.PHASE1, (Act.BOOK, 18, E, BookKind.PROPHECIES)),
                                    (Decision.PROPHECY_ORDER, (14, 12, E, E))])
    play_turns(game, 1)
    assert decider.options_of(Decision.PROPHECY_ORDER) == [[(12, 14, E, E), (14, 12, E, E)]]
    assert game.dream_deck == [12, 16]
    game, decider, _ = position(rows, HAND, [], expansions=("books",), books=[PROPHECIES],
                                script=[(Decision.PHASE1, (Act.BOOK, 18, E,
                                                           BookKind.PROPHECIES))])
    play_turns(game, 1)
    assert decider.options_of(Decision.PROPHECY_ORDER) == [[(E, E, E, E)]]
    assert game.reason == Reason.DECK_EMPTY


WIZARD_ROWS = [(0, [10, 12], [30]), (1, [14], [34]), (2, [15], []), (3, [16], [])]


def test_R08_3_R09_a_wizard_pays_two_book_actions():
    script = [(Decision.PHASE1, (Act.BOOK, 80, E, BookKind.INVISIBLE_SOGNAE)),
              (Decision.BOOK_TARGET, (10, 0, 0, E)),
              (Decision.SECOND_ACT, (Act.BOOK, E, E, BookKind.INVISIBLE_SOGNAE)),
              (Decision.BOOK_TARGET, (12, 0, 0, E))]
    game, decider, _ = position(WIZARD_ROWS, [80, 19, 36, 37], [35], script=script,
                                expansions=("books", "gardens_wizards"),
                                books=[INVISIBLE_SOGNAE, INVISIBLE_INCUBI])
    play_turns(game, 1)
    assert decider.options_of(Decision.SECOND_ACT) == [[
        (Act.PASS, E, E, E), (Act.CENSUS, E, E, E), (Act.EXCHANGE, E, E, E),
        (Act.BOOK, E, E, BookKind.INVISIBLE_SOGNAE), (Act.BOOK, E, E, BookKind.INVISIBLE_INCUBI)]]
    assert decider.options_of(Decision.BOOK_TARGET)[0] == [
        (10, 0, 0, E), (12, 0, 0, E), (14, 1, 0, E), (15, 2, 0, E), (16, 3, 0, E)]
    assert game.discard == [80, 10, 12] and layout(game)[0] == (0, [], [30])


def test_R08_3_R09_the_two_book_acts_fold_into_one_act_entry():
    log: list = []

    def policy(kind, options, n_options, state, cards, params, rng):
        codes = [tuple(int(x) for x in options[i]) for i in range(n_options)]
        if kind == Decision.PHASE1:
            return codes.index((Act.BOOK, 80, E, BookKind.INVISIBLE_SOGNAE))
        if kind == Decision.SECOND_ACT:
            return codes.index((Act.BOOK, E, E, BookKind.INVISIBLE_SOGNAE))
        return 0  # the first left dream: 10, then 12

    decider = PolicyDecider(policy, "p", 0, 0, np.zeros((1, 5), np.int64), PyStream(0, 0, 1),
                            log)
    game, _, _ = position(WIZARD_ROWS, [80, 19, 36, 37], [35], decider=decider,
                          expansions=("books", "gardens_wizards"),
                          books=[INVISIBLE_SOGNAE, INVISIBLE_INCUBI])
    game.checkpoint = LogWriter(log)
    play_turns(game, 1)
    assert log[0] == {"do": "act", "discard": [80],
                      "acts": [{"book": "invisible_sognae", "card": 10},
                               {"book": "invisible_sognae", "card": 12}]}
    assert "check" in log[1] and len(log) == 2


def test_R09_3_flying_targets_each_dream_to_every_other_row_with_room():
    rows = [(0, [10, 50], []), (1, [14, 11, 12], []), (2, [15], [34]), (3, [], [])]
    game, decider, _ = position(rows, HAND, [35], expansions=("books",),
                                books=[FLYING_SOGNAE, FLYING_INCUBI], script=[
                                    (Decision.PHASE1, (Act.BOOK, 18, E,
                                                       BookKind.FLYING_INCUBI)),
                                    (Decision.BOOK_TARGET, (34, 2, 0, 1))])
    play_turns(game, 1)
    phase1 = decider.options_of(Decision.PHASE1)[0]
    assert [c for c in phase1 if c[1] == 18 and c[0] == Act.BOOK] == [
        (Act.BOOK, 18, E, BookKind.FLYING_SOGNAE), (Act.BOOK, 18, E, BookKind.FLYING_INCUBI)]
    # Incubi 34 is the only right-side dream: rows 0, 1, 3 have room, ascending.
    assert decider.options_of(Decision.BOOK_TARGET) == [
        [(34, 2, 0, 1), (34, 2, 1, 1), (34, 2, 3, 1)]]
    assert layout(game)[:3] == [(0, [10, 50], [34]), (1, [14, 11, 12], []), (2, [15], [])]


def test_R09_6_book_of_perfect_balance_takes_two_bonus_city_cards():
    rows = [(0, [10], [30]), (1, [14], [34]), (2, [15], [35]), (3, [16], [36])]
    game, _, record = position(rows, HAND, [12, 32, 17], city_deck=[4, 5, 6],
                               expansions=("books",), books=[PERFECT_BALANCE], script=[
                                   (Decision.PHASE1, (Act.BOOK, 18, E,
                                                      BookKind.PERFECT_BALANCE))])
    play_turns(game, 1)
    assert game.success == [0, 1, 2, 3, 4, 5]
    assert layout(game) == [(6, [12], [32])]  # row 0 refilled, rows 1-3 gone (R01.5)


def test_R09_usable_books_need_a_target():
    # No dream on a right side, no dreamless row: Flying and Invisible Incubi and Freedom
    # are not offered; Perfect Balance and Prophecies always are.
    rows = [(0, [10], []), *FILLER]
    game, decider, _ = position(rows, HAND, [35], expansions=("books",),
                                books=[FLYING_INCUBI, INVISIBLE_INCUBI, FREEDOM,
                                       PERFECT_BALANCE, PROPHECIES, INVISIBLE_SOGNAE],
                                script=[(Decision.PHASE1, (Act.PASS, 18, E, E))])
    play_turns(game, 1)
    kinds = [c[3] for c in decider.options_of(Decision.PHASE1)[0] if c[0] == Act.BOOK
             and c[1] == 18]
    assert kinds == [BookKind.INVISIBLE_SOGNAE, BookKind.PERFECT_BALANCE, BookKind.PROPHECIES]


# ---------------------------------------------------------------------- R10 team variant


TEAM_ROWS = [(0, [10], []), (1, [14], [34]), (2, [15], []), (3, [16], [])]


@pytest.mark.parametrize("discards, offered", [(7, False), (8, True)])
def test_R10_4_polarity_swap_with_fewer_than_8_discards_refused(discards, offered):
    pile = [11, 12, 13, 30, 31, 32, 33, 35, 38][:discards]
    game, decider, _ = position(TEAM_ROWS, hands=[[17, 19, 36, 37], [18, 39, 70, 71]],
                                deck=[72], discard=pile, expansions=("squares_metas",),
                                script=[(Decision.PHASE1, (Act.PASS, 17, E, E))])
    play_turns(game, 1)
    assert bool(decider.options_of(Decision.SWAP_POLARITY)) == offered


def test_R10_4_swap_removes_the_eight_most_recent_discards_and_swaps_polarity():
    pile = [11, 12, 13, 30, 31, 32, 33, 35, 38]
    game, decider, record = position(
        TEAM_ROWS, hands=[[17, 19, 36, 70], [18, 39, 37, 71]], deck=[72], discard=pile,
        expansions=("squares_metas",), script=[
            (Decision.SWAP_POLARITY, (1, E, E, E)), (Decision.PHASE1, (Act.PASS, 17, E, E)),
            (Decision.PHASE1, (Act.PASS, 18, E, E))])
    play_turns(game, 1)
    assert decider.options_of(Decision.SWAP_POLARITY) == [[(0, E, E, E), (1, E, E, E)]]
    assert game.removed == pile[1:] and game.discard == [11, 17] and game.polarity == 1
    # Seat 0 now holds the Incubi polarity: its places are on right sides only, the Meta 70
    # included (R10.3).
    places = [c for c in decider.options_of(Decision.PHASE1)[0] if c[0] == Act.PLACE]
    assert places and all(c[3] == 1 for c in places) and {c[1] for c in places} == {36, 70}
    assert record.checks[-1]["polarity"] == 1 and "hand" not in record.checks[-1]
    assert record.checks[-1]["hands"] == [[19, 36, 70, 72], [18, 39, 37, 71]]
    # Turn 2 is seat 1's: the discard pile holds 2, no swap offered, Sognae places only
    # (then its draw finds the Dream deck empty).
    play_turns(game, 1)
    assert game.seat == 1 and len(decider.options_of(Decision.SWAP_POLARITY)) == 1
    places = [c for c in decider.options_of(Decision.PHASE1)[1] if c[0] == Act.PLACE]
    assert places and all(c[3] == 0 for c in places) and {c[1] for c in places} == {18, 71}


def team_trace() -> dict:
    card_set = FULL_SET.with_expansions(ALL_EXPANSIONS)
    return play_reference(card_set, 11, 0, resolve_policy("random").func, "random",
                          variant="team")


def test_R10_4_replay_refuses_a_polarity_swap_that_is_not_offered():
    trace = team_trace()
    first = next(i for i, e in enumerate(trace["log"]) if e.get("seat") is not None
                 and e.get("do") in ("place", "pass", "act"))
    discards = [e["check"]["discard"] for e in trace["log"][:first] if "check" in e][-1]
    assert discards < 8
    pile_guess = [e["card"] for e in trace["log"] if e.get("do") == "pass"][:8]
    trace["log"].insert(first, {"do": "swap_polarity", "removed": pile_guess, "seat": 0})
    _expect_replay_error(trace, f"log entry {first}:", "swap_polarity is not allowed here",
                         "R10.4")


def test_R10_4_replay_refuses_a_second_polarity_swap_in_one_turn_and_says_so():
    trace = team_trace()
    swap = next(i for i, e in enumerate(trace["log"]) if e.get("do") == "swap_polarity")
    trace["log"].insert(swap + 1, copy.deepcopy(trace["log"][swap]))
    _expect_replay_error(trace, f"log entry {swap + 1}:", "swap_polarity is not allowed here",
                         "at most once a turn", "R10.4")


def _team_trace_and_swap_piles(monkeypatch) -> tuple[dict, list[list[int]]]:
    """``team_trace()`` and, for each of its polarity swaps, the discard pile it found."""
    piles = []
    offer = SoloGame._offer_polarity_swap

    def recording(game):
        pile, polarity = list(game.discard), game.polarity
        offer(game)
        if game.polarity != polarity:
            piles.append(pile)

    monkeypatch.setattr(SoloGame, "_offer_polarity_swap", recording)
    trace = team_trace()
    monkeypatch.undo()
    return trace, piles


def test_R10_4_replay_accepts_a_swap_of_any_8_discards_not_only_the_most_recent(monkeypatch):
    trace, piles = _team_trace_and_swap_piles(monkeypatch)
    swaps = [i for i, e in enumerate(trace["log"]) if e.get("do") == "swap_polarity"]
    assert len(swaps) == len(piles) >= 1
    last, pile = swaps[-1], piles[-1]
    assert trace["log"][last]["removed"] == pile[-8:]  # the engines take the most recent
    oldest = pile[:8]
    assert oldest != pile[-8:]  # a pile of more than 8: another choice of 8 exists
    trace["log"][last]["removed"] = oldest[::-1]
    assert replay(trace) == trace["result"]


@pytest.mark.parametrize("change, fragment", [
    ("hand card", "is not in it"), ("twice", "not 8 different cards"),
    ("seven", "not 8 different cards")])
def test_R10_4_replay_refuses_a_swap_of_cards_not_in_the_discard_pile(monkeypatch, change,
                                                                      fragment):
    trace, piles = _team_trace_and_swap_piles(monkeypatch)
    first = next(i for i, e in enumerate(trace["log"]) if e.get("do") == "swap_polarity")
    removed = trace["log"][first]["removed"]
    check = [e["check"] for e in trace["log"][:first] if "check" in e][-1]
    if change == "hand card":
        outsider = next(c for hand in check["hands"] for c in hand if c not in piles[0])
        removed[0] = outsider
        fragment = f"{outsider} {fragment}"
    elif change == "twice":
        removed[1] = removed[0]
    else:
        del removed[0]
    _expect_replay_error(trace, f"log entry {first}: swap_polarity removes", fragment,
                         "R10.4")


def test_replay_compares_the_emptiness_of_a_check_on_the_keys_it_holds():
    # TRACE.md's own example check writes {"cards": 6, "at": 1}, without "flat"
    trace = team_trace()
    held = [e["check"]["emptiness"] for e in trace["log"] if "check" in e]
    assert held and all(set(one) == {"cards", "at", "flat"} for one in held)
    for one in held:
        del one["flat"]
        one["note"] = "added"
    assert replay(trace) == trace["result"]
    held[3]["cards"] += 1
    _expect_replay_error(trace, "check emptiness differs")


def test_R10_every_team_decision_names_its_seat_and_checks_show_both_hands():
    trace = team_trace()
    assert trace["variant"] == "team" and replay(trace) == trace["result"]
    for entry in trace["log"]:
        if "do" in entry:
            assert entry["seat"] in (0, 1)
        else:
            assert "seat" not in entry
        if "check" in entry:
            assert "hand" not in entry["check"] and len(entry["check"]["hands"]) == 2
    tampered = copy.deepcopy(trace)
    i = next(i for i, e in enumerate(tampered["log"]) if e.get("do") == "pass")
    tampered["log"][i]["seat"] = 1 - tampered["log"][i]["seat"]
    _expect_replay_error(tampered, f"log entry {i}:", "seat")


def test_R10_1_team_opening_hands_seat_0_then_seat_1_each_shuffling_its_own_chaos():
    cities = [0, 1, 2, 3]
    deal = [10, 30, 14, 34, 15, 35, 16, 36]  # four balanced rows: no city can take a Chaos
    deck = deal + [11, 51, 12, 13, 17, 18, 31, 32, 33, 37]
    decider = Scripted([])  # a Chaos drawn has one option, set aside
    record = Record()

    class Reverse:
        def shuffle(self, cards):
            record.events.append(("shuffle", {"cards": list(cards)}))
            return list(reversed(cards))

    game = SoloGame(UNIVERSE, cities, deck, decider, Reverse(), record, seats=2)
    with pytest.raises(ScriptDone):
        game.play()
    # Seat 0 draws 11, sets 51 aside, draws 12, 13, 17: its hand holds 4, so the deck
    # [18, 31, 32, 33, 37] + [51] is shuffled (reversed here) before seat 1 draws. Seat 1
    # draws 51 first, sets it aside, draws 37, 33, 32, 31, and shuffles [18] + [51].
    assert record.of("shuffle") == [{"cards": [18, 31, 32, 33, 37, 51]}, {"cards": [18, 51]}]
    assert game.hands == [[11, 12, 13, 17], [37, 33, 32, 31]]
    assert game.dream_deck == [51, 18] and record.checks[0]["hands"] == game.hands
    assert [kind for kind, _ in decider.asked] == [Decision.HAND_CHAOS] * 2 + [Decision.PHASE1]


# ---------------------------------------------------------------------- R02.6 dealing postcards


def test_R02_6_postcards_go_on_card_1_of_every_deal_a_chaos_included():
    cities = [0, 1, 2, 3]
    # row 0: Chaos 50 first (it waits, and carries the postcard), 30; row 1: Chromatic 60
    # held first, so 14 is card 1; row 2: 15, 35; row 3: 16, 36; hand 11, 12, 13, 17.
    deck = [50, 30, 60, 14, 34, 15, 35, 16, 36, 11, 12, 13, 17, 18]
    decider = Scripted([(Decision.CHROMATIC, (0, 0, 60, E)), (Decision.REVEALED, (0, 0, 18, E))])
    record = Record()
    game = SoloGame(UNIVERSE, cities, deck, decider, NoShuffle(), record, record.narrate,
                    expansions=mask_of(["postcards", "chromatic_chaos"]),
                    postcard_deck=[SEER, ROCKET, PLANBOT, DOVES, HOURGLASS])
    with pytest.raises(ScriptDone):
        game.play()
    assert game.postcard_on == {50: SEER, 14: ROCKET, 15: PLANBOT, 16: DOVES}
    assert game.postcard_deck == [HOURGLASS]
    assert [(d["row"], d["card"]) for d in record.of("postcard")] == [(0, 50), (1, 14), (2, 15),
                                                                       (3, 16)]


# ---------------------------------------------------------------------- the policy view


def test_policy_view_shows_postcards_by_slot_emptiness_row_books_and_counters():
    rows = [(0, [10], [30, 31]), (1, [14, 12], []), (2, [15], [35]), (3, [16], [])]
    views = []

    def policy(kind, options, n_options, state, cards, params, rng):
        layout_view, hands, info = state
        views.append((layout_view.copy(), hands.copy(), info.copy()))
        return 0

    decider = PolicyDecider(policy, "p", 0, 0, np.zeros((1, 5), np.int64), PyStream(0, 0, 1),
                            [])
    names = ("postcards", "emptiness", "books")
    game, _, _ = position(rows, hands=[[17, 19, 36, 37], [18, 39, 13, 33]], deck=[11],
                          expansions=names, decider=decider, postcards={31: SEER, 12: ROCKET},
                          books=[PROPHECIES, FLYING_INCUBI, PROPHECIES_2], emptiness=5,
                          figure=1, wise=4, polarity=1)
    game.inhabitants = -3
    game.checkpoint = Record()
    play_turns(game, 1)
    layout_view, hands, info = views[0]  # the Phase I decision of turn 1
    assert info.shape == (N_POLICY_INFO,)
    expected = np.full(24, -1)
    expected[0 * 6 + 3 + 1] = SEER  # row 0, right position 1
    expected[1 * 6 + 1] = ROCKET  # row 1, left position 1
    assert (info[Info.POSTCARD_AT:Info.POSTCARD_AT + 24] == expected).all()
    assert info[Info.EMPTINESS_ROW] == 2 and info[Info.EMPTINESS_N] == 5  # moved to row 2
    assert info[Info.EMPTINESS_FLAT] == 0
    assert info[Info.BOOKS] == (1 << BookKind.FLYING_INCUBI) | (1 << BookKind.PROPHECIES)
    assert info[Info.PROPHECIES] == 2 and info[Info.WISE_LEFT] == 4
    assert info[Info.INHABITANTS] == -3 and info[Info.SEATS] == 2 and info[Info.POLARITY] == 1
    assert info[Info.SEAT] == 0 and info[Info.EXPANSIONS] == mask_of(names)
    assert (hands == [[17, 19, 36, 37], [18, 39, 13, 33]]).all()


def test_policy_view_of_a_base_game_shows_the_new_fields_empty():
    seen = []

    def policy(kind, options, n_options, state, cards, params, rng):
        seen.append(state[2][Info.SEATS:N_POLICY_INFO].copy())
        return 0

    play_reference(FULL_SET, 2, 0, policy, "first")
    expected = np.array([1, 0, 0, 0, 0, 0, 0, -1, 0] + [-1] * 24)
    assert seen and all((view == expected).all() for view in seen)


# ---------------------------------------------------------------------- options re-derived

SETTLED = (Decision.PHASE1, Decision.ZERO_SUM, Decision.EXCHANGE_PAIR, Decision.SECOND_ACT,
           Decision.REBUILD_ROWS, Decision.CHANGE_SIDES_CARD, Decision.BOOKS,
           Decision.BOOK_TARGET, Decision.PROPHECY_ORDER, Decision.SWAP_POLARITY)


class CheckingPolicy2(CheckingPolicy):
    """Uniformly random, after re-deriving every option list from the visible state.

    Extends the Expansions I checker with what docs/engine.md adds: Book, Ally and team
    placement options in Phase I, the Books step, Book targets, Prophecies, the Wise
    options, the polarity swap and the Rebuild rows without the Emptiness row. Written from
    the contract, independently of the engine.
    """

    def __init__(self, mask: int) -> None:
        super().__init__(mask)
        self.removed = 0
        self.book = -1

    # -- the visible state

    def _flying(self, side: int) -> list[tuple]:
        return [(c, r, t, side) for r, rowx in enumerate(self.rows) for c in rowx[1 + side]
                if self._type(c) not in (CardType.CHAOS, CardType.CHROMATIC)
                for t in range(len(self.rows)) if t != r and self._room(t, side)]

    def _invisible(self, side: int) -> list[tuple]:
        return [(c, r, side, -1) for r, rowx in enumerate(self.rows) for c in rowx[1 + side]
                if self._type(c) not in (CardType.CHAOS, CardType.CHROMATIC)]

    def _freedom(self) -> list[tuple]:
        return [(r, -1, -1, -1) for r, (_, left, right) in enumerate(self.rows)
                if not left and not right]

    def _targets(self, kind: int) -> list[tuple]:
        return {BookKind.FLYING_SOGNAE: lambda: self._flying(0),
                BookKind.FLYING_INCUBI: lambda: self._flying(1),
                BookKind.INVISIBLE_SOGNAE: lambda: self._invisible(0),
                BookKind.INVISIBLE_INCUBI: lambda: self._invisible(1),
                BookKind.FREEDOM: self._freedom}.get(kind, lambda: [None])()

    def _usable(self) -> list[int]:
        return [k for k in range(len(BOOK_NAMES)) if self.info[Info.BOOKS] >> k & 1
                and self._targets(k)]

    def _rebuild_rows(self) -> list[int]:
        return [r for r in range(len(self.rows)) if r != self.info[Info.EMPTINESS_ROW]]

    # -- the option lists

    def _phase1(self) -> list[tuple]:
        special = bool(self.mask & Expansion.GARDENS_WIZARDS)
        rebuild = special and len(self._rebuild_rows()) >= 2
        change = special and bool(self._change_targets())
        pairs = bool(self._pairs())
        usable = self._usable()
        seat_side = None
        if self.info[Info.SEATS] == 2:
            seat_side = 0 if self.info[Info.SEAT] == self.info[Info.POLARITY] else 1
        out = []
        for card in self.hand:
            for r, (city, _, _) in enumerate(self.rows):
                for s in self._hand_sides(card):
                    if seat_side is not None and s != seat_side:
                        continue  # R10.3
                    if self._shows(city, card) and self._room(r, s):
                        out.append((Act.PLACE, card, r, s))
            out += [(Act.PASS, card, -1, -1), (Act.CENSUS, card, -1, -1)]
            out += [(Act.EXCHANGE, card, -1, -1)] * pairs
            if special and self._type(card) == CardType.WIZARD:
                out += [(Act.REBUILD, card, -1, -1)] * rebuild
                out += [(Act.CHANGE_SIDES, card, -1, -1)] * change
            out += [(Act.BOOK, card, -1, k) for k in usable]
        for i, a in enumerate(self.hand):
            for b in self.hand[i + 1:]:
                shared = self.cards[a, CardField.ELEMENTS] & self.cards[b, CardField.ELEMENTS]
                if special and shared:
                    out += [(Act.REBUILD, a, b, -1)] * rebuild
                    out += [(Act.CHANGE_SIDES, a, b, -1)] * change
        if self.info[Info.EMPTINESS_N] > 0:
            for i, a in enumerate(self.hand):
                for b in self.hand[i + 1:]:
                    sa, sb = self._hand_sides(a), self._hand_sides(b)
                    if (0 in sa and 1 in sb) or (1 in sa and 0 in sb):
                        out.append((Act.ALLY, a, b, -1))
        return out

    def expected(self, kind: int, first: tuple) -> list[tuple]:
        wise = bool(self.info[Info.WISE_LEFT] > 0)
        if kind == Decision.PHASE1:
            return self._phase1()
        if kind == Decision.DRAW_CHAOS:
            out = self._chaos(kind, first[3])
            # Drawn into the hand, not revealed: the Wise option, last (R11.3).
            return out + [(ChaosHow.WISE, -1, -1, first[3])] * (wise and self.offered_wise)
        if kind == Decision.CHROMATIC:
            out = super().expected(kind, first)
            return out + [(-2, -1, first[2], -1)] * (wise and self.offered_wise)
        if kind == Decision.SECOND_ACT:
            return super().expected(kind, first) + [(Act.BOOK, -1, -1, k)
                                                    for k in self._usable()]
        if kind == Decision.REBUILD_ROWS:
            rows = self._rebuild_rows()
            return [(a, b, -1, -1) for i, a in enumerate(rows) for b in rows[i + 1:]]
        if kind in (Decision.BOOKS, Decision.SWAP_POLARITY):
            return [(0, -1, -1, -1), (1, -1, -1, -1)]
        if kind == Decision.BOOK_TARGET:
            return self._targets(self.book)
        if kind == Decision.PROPHECY_ORDER:
            m = min(2 * self.info[Info.PROPHECIES], self.info[Info.DECK_N])
            top = first[:m]
            return [tuple(p) + (-1,) * (4 - m) for p in permutations(top)]
        return super().expected(kind, first)

    # -- the order of decisions

    def __call__(self, kind, options, n_options, state, cards, params, rng):
        layout_view, hands, info = state
        if info[Info.TURN] < self.turn:  # a new game
            self.expect_next, self.second_due, self.removed = None, False, 0
        self.turn = int(info[Info.TURN])
        self.cards, self.info = cards, info
        assert info[Info.EXPANSIONS] == self.mask & ~TEAM_VARIANT
        assert info[Info.SEATS] == (2 if self.mask & TEAM_VARIANT else 1)
        self.rows = [(int(layout_view[r, 0]), [int(c) for c in layout_view[r, 1:4] if c >= 0],
                      [int(c) for c in layout_view[r, 4:7] if c >= 0])
                     for r in range(int(info[Info.N_ROWS]))]
        self.hand = [int(c) for c in hands[info[Info.SEAT]] if c >= 0]
        offered = [tuple(int(x) for x in options[i]) for i in range(n_options)]
        in_zones = (sum(len(r[1]) + len(r[2]) for r in self.rows) + int((hands >= 0).sum())
                    + int(info[Info.DECK_N]) + int(info[Info.DISCARD_N]) + self.removed)
        n_dreams = _dreams_in_play(cards, self.mask)
        assert in_zones == n_dreams if kind in SETTLED else in_zones < n_dreams
        # A Wise option can only be there for a card drawn in Phase II; the policy cannot
        # tell a drawn card from a revealed one, so it accepts the option only last.
        self.offered_wise = offered[-1][0] in (ChaosHow.WISE, -2) and kind in (
            Decision.DRAW_CHAOS, Decision.CHROMATIC) and (kind == Decision.CHROMATIC) == (
            offered[-1][0] == -2)
        assert offered == self.expected(kind, offered[0]), (Decision._fields[kind], offered)
        choice = int(below_nb(rng, n_options))
        self._order2(kind, offered[choice])
        self.seen[Decision._fields[kind]] += 1
        return choice

    def _order2(self, kind: int, option: tuple) -> None:
        """The Expansions I order (``_order``), with the Book, Ally and Rebuild changes."""
        assert self.expect_next in (None, kind), (Decision._fields[kind], self.expect_next)
        self.expect_next = None
        if kind == Decision.PHASE1:
            assert not self.second_due, "a Wizard's second action was never asked"
        if kind == Decision.SWAP_POLARITY and option[0] == 1:
            self.removed += 8
        if kind in (Decision.PHASE1, Decision.SECOND_ACT) and option[0] == Act.BOOK:
            self.book = option[3]
        if kind == Decision.PHASE1 and option[0] == Act.BOOK:
            self.second_due = self._type(option[1]) == CardType.WIZARD
            return
        if kind == Decision.PHASE1 and option[0] == Act.REBUILD:
            n = len(self._rebuild_rows())
            self._expect(Decision.REBUILD_ROWS, n * (n - 1) // 2)
            self.second_due = False
            return
        if kind == Decision.SECOND_ACT and option[0] == Act.BOOK:
            assert self.second_due
            self.second_due = False
            return
        if kind == Decision.PHASE1 and option[0] == Act.ALLY:
            self.second_due = False
            return
        if kind in (Decision.BOOKS, Decision.SWAP_POLARITY, Decision.BOOK_TARGET,
                    Decision.PROPHECY_ORDER):
            return
        self._order(kind, option)



@pytest.mark.parametrize("mask", [Expansion.BOOKS | Expansion.GARDENS_WIZARDS,
                                  Expansion.POSTCARDS | Expansion.CHROMATIC_CHAOS,
                                  Expansion.EMPTINESS | Expansion.SQUARES_METAS,
                                  ALL_EXPANSIONS, ALL_EXPANSIONS | TEAM_VARIANT])
def test_options_match_the_visible_state(mask):
    card_set = FULL_SET.with_expansions(mask & ~TEAM_VARIANT)
    policy = CheckingPolicy2(mask)
    for game in range(12):
        trace = play_reference(card_set, 93, game, policy, "checked",
                               variant="team" if mask & TEAM_VARIANT else "solo")
        assert replay(trace) == trace["result"]
        check_invariants(trace)
    assert policy.seen["PHASE1"] > 0


# ---------------------------------------------------------------------- random and greedy play

# 250 seeds per configuration, split between the two policies (greedy's first call from
# Python compiles it, about 25 s, so the file stays near a minute).
N_GAMES = {"random": 140, "greedy": 110}
FIRST_SEED = {"random": 7000, "greedy": 8000}
CONFIGS = {"books": (Expansion.BOOKS, "solo"), "postcards": (Expansion.POSTCARDS, "solo"),
           "emptiness": (Expansion.EMPTINESS, "solo"), "all": (ALL_EXPANSIONS, "solo"),
           "team_all": (ALL_EXPANSIONS, "team")}


def _traces(policy_name: str, config: str) -> list[dict]:
    mask, variant = CONFIGS[config]
    card_set = FULL_SET.with_expansions(mask)
    spec = resolve_policy(policy_name).for_cards(card_set)
    first = FIRST_SEED[policy_name]
    return [play_reference(card_set, first + g, g % 4, spec.func, spec.name, spec.params,
                           variant=variant) for g in range(N_GAMES[policy_name])]


@pytest.fixture(scope="module")
def played() -> dict[tuple[str, str], list[dict]]:
    return {(p, c): _traces(p, c) for p in N_GAMES for c in CONFIGS}


def check_invariants(trace: dict) -> None:
    """Zones, counters and seats, computed from the trace alone."""
    cards = {c["id"]: c for c in trace["cards"]}
    types = Counter(c["type"] for c in cards.values())
    n_dreams = sum(n for t, n in types.items()
                   if t not in ("city", "book", "postcard", "emptiness"))
    team = trace["variant"] == "team"
    checks = [e["check"] for e in trace["log"] if "check" in e]
    result = trace["result"]
    assert [c["turn"] for c in checks] == list(range(result["turns"] + 1))
    removed = 0
    swaps_by_turn = Counter()
    turn = 0
    for entry in trace["log"]:
        if "check" in entry:
            turn = entry["check"]["turn"] + 1
        if entry.get("do") == "swap_polarity":
            assert team and len(entry["removed"]) == 8
            swaps_by_turn[turn] += 1
        if team and turn > 0 and entry.get("do") in ("place", "pass", "act", "swap_polarity"):
            assert entry["seat"] == (turn - 1) % 2
        if team and turn == 0 and entry.get("do") in ("books", "side", "chromatic", "revealed"):
            assert entry["seat"] == 0  # setup is seat 0's but for seat 1's opening hand
    assert all(n == 1 for n in swaps_by_turn.values())  # at most once a turn
    for number, chk in enumerate(checks):
        final = number == len(checks) - 1
        removed = 8 * sum(n for t, n in swaps_by_turn.items() if t <= chk["turn"])
        hands = chk["hands"] if team else [chk["hand"]]
        assert ("hands" in chk) == team and ("polarity" in chk) == team
        seen = [c for h in hands for c in h]
        for r in chk["rows"]:
            seen += r["L"] + r["R"]
            assert len(r["L"]) <= 3 and len(r["R"]) <= 3
        assert len(seen) == len(set(seen))
        in_zones = len(seen) + chk["dream_deck"] + chk["discard"] + removed
        if not final:
            assert all(len(h) == 4 for h in hands) and in_zones == n_dreams
        else:
            assert in_zones == n_dreams or result["reason"] == "deck_empty"
        assert ("inhabitants" in chk) == ("postcards" in trace["expansions"])
        assert ("emptiness" in chk) == ("emptiness" in trace["expansions"])
        if "emptiness" in chk:
            empt = chk["emptiness"]
            assert 0 <= empt["cards"] <= types["emptiness"]
            assert not (empt["flat"] and empt["at"] is not None)
            assert empt["at"] is None or 0 <= empt["at"] < 4
    for before, after in zip(checks, checks[1:], strict=False):
        if "wise_chaos" in after:
            assert after["wise_chaos"] <= before["wise_chaos"]
        if "emptiness" in after:
            assert after["emptiness"]["cards"] <= before["emptiness"]["cards"]
    last = checks[-1]
    n_cities = types["city"]
    if result["outcome"] == "win":
        assert last["success"] == n_cities and last.get("inhabitants", 0) >= 0
    elif result["reason"] == "inhabitants":
        assert last["success"] == n_cities and last["inhabitants"] < 0
    elif result["reason"] == "emptiness":
        assert "emptiness" in last
    books = [e for e in trace["log"] if e.get("do") == "books"]
    assert len(books) == ("books" in trace["expansions"])
    assert all(0 <= e["keep"] <= 4 for e in books)


def _features(trace: dict) -> Counter:
    seen = Counter()
    for entry in trace["log"]:
        do = entry.get("do")
        if do == "act":
            for a in entry["acts"]:
                seen["book " + a["book"] if "book" in a else next(iter(a))] += 1
            if len(entry["acts"]) == 2 and "book" in entry["acts"][1]:
                seen["second book"] += 1
        elif do == "chaos" and entry["how"] == "wise":
            seen["wise chaos"] += 1
        elif do == "chromatic" and entry.get("wise"):
            seen["wise chromatic"] += 1
        elif do in ("books", "swap_polarity"):
            seen[do] += 1
    seen[trace["result"]["reason"]] += 1
    return seen


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("policy_name", N_GAMES)
def test_random_and_greedy_traces_replay_cleanly(played, policy_name, config):
    for trace in played[policy_name, config]:
        assert replay(trace) == trace["result"]
        check_invariants(trace)
    for trace in played[policy_name, config][:10]:
        copied = json.loads(json.dumps(trace))
        assert copied == trace and replay(copied) == trace["result"]


def test_random_and_greedy_play_reach_every_new_rule(played):
    seen = Counter()
    for traces in played.values():
        for trace in traces:
            seen += _features(trace)
    for feature in ["ally", "swap_polarity", "wise chaos", "wise chromatic", "second book",
                    "emptiness", "inhabitants", *[f"book {name}" for name in BOOK_NAMES]]:
        assert seen[feature] > 0, feature


def test_show_tells_books_postcards_emptiness_seats_and_wise_chaos(played):
    text = render_trace(next(t for t in played["random", "team_all"]
                             if any(e.get("do") == "swap_polarity" for e in t["log"])))
    assert "Books laid out" in text or "no Book is laid out" in text
    for fragment in ("Urbion team game", "is dealt on", "the Emptiness moves to row",
                     "seat 1 plays",
                     "the seats swap polarities", "inhabitants", "Emptiness cards",
                     "hand of seat 0", "hand of seat 1", "Result:"):
        assert fragment in text, fragment


BOOK_KINDS_NO_PROPHECY = ["flying_sognae", "flying_incubi", "invisible_sognae",
                          "invisible_incubi", "freedom", "perfect_balance"]


@pytest.mark.parametrize("n_books, most", [(3, 0), (6, 2), (8, 4), (12, 8)])
def test_R09_1_four_books_are_put_away_whatever_the_card_file_holds(n_books, most):
    """The rule puts 4 Books away and lets the others be revealed: with a card file of other
    than 8 Books both engines allow all but 4 (rules-notes 39)."""
    import re
    from dataclasses import replace

    from analyzer.cards.loader import parse_card_set
    from analyzer.core.codes import Expansion
    from analyzer.policies.greedy_nb import greedy_params
    from analyzer.runner.reference_runner import run_reference
    from analyzer.runner.tracing import fast_trace

    text = (Path(analyzer.cards.__file__).parent / "r14-default.toml").read_text()
    books = (BOOK_KINDS_NO_PROPHECY * 2)[:n_books]
    text = re.sub(r"(\[books\][^\[]*?)cards = \[[^\]]*\]", lambda m: m.group(1) +
                  "cards = " + json.dumps(books), text, count=1, flags=re.S)
    card_set = parse_card_set(text, "books.toml").with_expansions(Expansion.BOOKS)
    assert len(card_set.other_ids) == n_books
    reveal_all = replace(resolve_policy("greedy"), params_for_cards=lambda cards: greedy_params(
        {"BOOKS_KEEP": 16}, cards)).for_cards(card_set)
    for seed in range(3):
        fast = fast_trace(card_set, reveal_all, seed, 0)
        assert fast == run_reference(card_set, reveal_all, seed, 1)[0], f"seed {seed}"
        step = [e for e in fast["log"] if e.get("do") == "books"]
        assert (step[0]["keep"] if step else 0) == most
        assert replay(fast) == fast["result"]


def test_R10_4_replay_says_a_swap_after_phase_one_is_out_of_place():
    card_set = FULL_SET.with_expansions(ALL_EXPANSIONS)
    policy = resolve_policy("random").func
    for game in range(50):
        trace = play_reference(card_set, 11, game, policy, "random", variant="team")
        log = trace["log"]
        for swap, entry in enumerate(log):
            if entry.get("do") != "swap_polarity" or log[swap + 1].get("do") != "pass":
                continue  # a pass is legal whichever the polarity
            log.insert(swap + 1, log.pop(swap))  # now after that turn's Phase I entry
            with pytest.raises(ReplayError) as err:
                replay(trace)
            assert str(err.value).startswith(f"log entry {swap + 1}: ")
            assert "a polarity swap comes before the turn's Phase I decision only, R10.4" \
                in str(err.value)
            return
    raise AssertionError("no swap before a pass in 50 games")


def _figure_rows_at_rebuilds(trace: dict) -> list[int]:
    """Where the Emptiness figure stands (-1: not on a row) at each Rebuild's choice of
    rows, as the replay tells it."""
    state = {"figure": E, "rows": []}

    def narrate(event, details):
        if event == "emptiness":
            state["figure"] = details["row"]
        elif event == "decision" and details["kind"] == Decision.REBUILD_ROWS:
            state["rows"].append(state["figure"])

    replay(trace, narrate=narrate)
    return state["rows"]


def test_R08_4_replay_names_the_emptiness_city_a_rebuild_may_not_choose():
    card_set = FULL_SET.with_expansions(ALL_EXPANSIONS)
    policy = resolve_policy("random").func
    for game in range(200):
        trace = play_reference(card_set, 5, game, policy, "random")
        acts = [act for entry in trace["log"] for act in entry.get("acts", [])
                if "rebuild" in act]
        for act, at in zip(acts, _figure_rows_at_rebuilds(trace), strict=True):
            if at != E and at not in act["rebuild"]:
                act["rebuild"][1] = at
                _expect_replay_error(trace, "rebuild ", f"row {at} holds the City card "
                                     "with the Emptiness, which Rebuild may not choose (R08.4)")
                return
    raise AssertionError("no rebuild beside the Emptiness in 200 games")


def test_R10_3_replay_says_a_placement_breaks_the_seats_polarity():
    trace = team_trace()
    i, entry = next((i, e) for i, e in enumerate(trace["log"]) if e.get("do") == "place")
    seat = entry["seat"]
    checks = [e["check"] for e in trace["log"][:i] if "check" in e]
    mine = "Sognae" if entry["side"] == "L" else "Incubi"  # a legal placement's polarity
    hand = checks[-1]["hands"][seat]
    cards = {c["id"]: c for c in trace["cards"]}
    wrong = "incubi" if mine == "Sognae" else "sognae"
    other = next((c for c in hand if cards[c]["type"] == wrong), None)
    assert other is not None, "no card of the other polarity in hand"
    entry.update(card=other, side="R" if mine == "Sognae" else "L")
    _expect_replay_error(trace, f"log entry {i}:", "is not a legal PHASE1 decision: seat "
                         f"{seat} holds the {mine} polarity and places on "
                         f"{'left' if mine == 'Sognae' else 'right'} sides only (R10.3)")


@pytest.mark.parametrize("change, reason", [
    ("card", "is not in the hand"), ("row", "there is no row 9"),
    ("side", "does not go on a"), ("full", "holds 3 dreams already (R04.1)")])
def test_replay_names_the_placement_rule_a_place_entry_breaks(change, reason):
    card_set = FULL_SET.with_expansions(0)
    policy = resolve_policy("random").func
    for game in range(100):
        trace = play_reference(card_set, 2, game, policy, "random")
        checks = {}
        for i, entry in enumerate(trace["log"]):
            if "check" in entry:
                checks = entry["check"]
            if entry.get("do") != "place":
                continue
            if change == "card":
                entry["card"] = next(c["id"] for c in trace["cards"]
                                     if c["type"] == "sognae" and c["id"] not in checks["hand"])
            elif change == "row":
                entry["row"] = 9
            elif change == "side":
                entry["side"] = "R" if entry["side"] == "L" else "L"
            else:
                full = [r for r, row in enumerate(checks["rows"])
                        if len(row[entry["side"]]) == 3]
                if not full:
                    continue
                entry["row"] = full[0]
            _expect_replay_error(trace, f"log entry {i}:", "is not a legal PHASE1 decision: ",
                                 reason)
            return
    raise AssertionError("no placement to change")


def test_replay_names_a_book_act_by_its_book_whatever_other_keys_it_holds():
    card_set = FULL_SET.with_expansions(ALL_EXPANSIONS)
    policy = resolve_policy("random").func
    for game in range(100):
        trace = play_reference(card_set, 4, game, policy, "random")
        acts = [a for e in trace["log"] for a in e.get("acts", []) if "book" in a]
        if acts:
            for act in acts:
                act["census"] = "an added key"
            assert replay(trace) == trace["result"]
            return
    raise AssertionError("no Book act in 100 games")


def test_replay_refuses_a_placement_side_of_the_wrong_type_in_one_line():
    trace = team_trace()
    i, entry = next((i, e) for i, e in enumerate(trace["log"]) if e.get("do") == "place")
    entry["side"] = [entry["side"]]
    _expect_replay_error(trace, f"log entry {i}: ", "is not a legal PHASE1 decision")


def _act_with_hand(act_name: str, games: range, expansions: int = ALL_EXPANSIONS):
    """(trace, index, entry, hand) of the first act ``act_name`` random play makes, with the
    hand it was paid from (the seat's, in the team game)."""
    card_set = FULL_SET.with_expansions(expansions)
    for game in games:
        trace = play_reference(card_set, 5, game, resolve_policy("random").func, "random")
        hand = []
        for i, entry in enumerate(trace["log"]):
            if "check" in entry:
                hand = entry["check"]["hand"]
            if entry.get("do") == "act" and act_name in entry["acts"][0]:
                return trace, i, entry, hand
    raise AssertionError(f"no {act_name} in {len(games)} games")


def test_R12_3_replay_says_an_ally_is_paid_with_a_sognae_and_an_incubi():
    trace, i, entry, hand = _act_with_hand("ally", range(300))
    cards = {c["id"]: c for c in trace["cards"]}
    for kind in ("incubi", "sognae"):
        same = [c for c in hand if cards[c]["type"] == kind]
        if len(same) >= 2:
            entry["discard"] = same[:2]
            _expect_replay_error(trace, f"log entry {i}:", "is not a legal PHASE1 decision: "
                                 "Ally is paid with a Sognae and an Incubi from hand (R12.3); "
                                 "it may be paid here with [[")
            return
    raise AssertionError("no two hand cards of one kind beside the Ally")


def test_R04_2_replay_says_a_census_is_paid_with_one_card():
    trace, i, entry, hand = _act_with_hand("census", range(50), expansions=0)
    entry["discard"] = hand[:2]
    _expect_replay_error(trace, f"log entry {i}:", "a Census is paid with one card from hand "
                         f"(R04.2); it may be paid here with [[{hand[0]}],")


def test_replay_says_an_act_is_not_on_offer_and_a_paid_card_not_in_hand():
    trace, i, entry, hand = _act_with_hand("census", range(50), expansions=0)
    entry["acts"] = [{"rebuild": [0, 1]}]  # no special actions without Gardens & Wizards
    _expect_replay_error(copy.deepcopy(trace), f"log entry {i}:",
                         "no rebuild can be played now (acts on offer: census")
    stranger = next(c["id"] for c in trace["cards"]
                    if c["type"] == "sognae" and c["id"] not in hand)
    entry.update(acts=[{"census": {"zero_sum": []}}], discard=[stranger])
    _expect_replay_error(trace, f"log entry {i}:", f"card {stranger} is not in the hand")


def test_replay_names_a_card_a_shuffle_lists_twice():
    trace = books_trace()
    order = trace["log"][1]["shuffle"]
    order[1] = order[0]
    _expect_replay_error(trace, "log entry 1:", "not a permutation",
                         f"missing [{books_trace()['log'][1]['shuffle'][1]}]; listed more "
                         f"than once [{order[0]}])")
