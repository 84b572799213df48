"""Tests of the reference engine and the trace replayer (solo base game).

Replaying a trace uses the same rules code that wrote it, so a clean replay shows only that
play and replay agree. The rules themselves are checked by evidence computed here:

- invariants recomputed from each trace alone (zones, side limits, sides by sign, turns);
- a jitted policy that re-derives, from the state it is shown, whether every option it is
  offered is legal, in the contract's order, and whether any legal option is missing;
- an audit of every card's zone, by id, at every check;
- hand-built traces of a small card table whose ``check`` entries were worked out by hand
  from the rules, one scenario per ruling, and tampered traces that must be rejected.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import numba
import numpy as np
import pytest

from analyzer.cards import default_card_set
from analyzer.cards.loader import parse_card_set
from analyzer.core.codes import (
    Act,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    Outcome,
    Stream,
)
from analyzer.core.rng import PyStream, below_nb
from analyzer.reference import IllegalDecision, ReplayError, play_reference, replay
from analyzer.reference.cards import CardBook
from analyzer.reference.engine import SoloGame

CARD_SET = default_card_set()
N_RANDOM_GAMES = 200

# Plain ints for the jitted test policies.
DEAL_SIDE, HAND_CHAOS, DRAW_CHAOS = Decision.DEAL_SIDE, Decision.HAND_CHAOS, Decision.DRAW_CHAOS
PHASE1, ZERO_SUM, EXCHANGE_PAIR = Decision.PHASE1, Decision.ZERO_SUM, Decision.EXCHANGE_PAIR
A_PLACE, A_PASS, A_CENSUS, A_EXCHANGE = Act.PLACE, Act.PASS, Act.CENSUS, Act.EXCHANGE
C_PLACE, C_CLEAR, C_REVEAL, C_ASIDE = (ChaosHow.PLACE, ChaosHow.CLEAR, ChaosHow.REVEAL,
                                       ChaosHow.ASIDE)
T_CITY, T_SOGNAE, T_INCUBI, T_CHAOS = (CardType.CITY, CardType.SOGNAE, CardType.INCUBI,
                                       CardType.CHAOS)
T_CHROMATIC, T_META, T_HARMONY, T_WIZARD = (CardType.CHROMATIC, CardType.META,
                                            CardType.HARMONY, CardType.WIZARD)
X_SQUARES_METAS, X_CHROMATIC = Expansion.SQUARES_METAS, Expansion.CHROMATIC_CHAOS
X_TEMPLES_HARMONY, X_GARDENS_WIZARDS = Expansion.TEMPLES_HARMONY, Expansion.GARDENS_WIZARDS
I_EXPANSIONS = Info.EXPANSIONS
F_TYPE, F_ELEMENTS, F_VALUE = CardField.TYPE, CardField.ELEMENTS, CardField.VALUE
I_N_ROWS, I_DECK_N, I_CITY_DECK_N = Info.N_ROWS, Info.DECK_N, Info.CITY_DECK_N
I_SUCCESS_N, I_DISCARD_N, I_TOTAL_CITIES = Info.SUCCESS_N, Info.DISCARD_N, Info.TOTAL_CITIES


# ---------------------------------------------------------------------- test policies


@numba.njit
def uniform_policy(kind, options, n_options, state, cards, params, rng):
    """Uniformly random choice."""
    return below_nb(rng, n_options)


@numba.njit
def last_option_policy(kind, options, n_options, state, cards, params, rng):
    """Always the last option: reveals every Chaos, exchanges or censuses every turn."""
    return n_options - 1


@numba.njit
def first_option_policy(kind, options, n_options, state, cards, params, rng):
    """Always the first option."""
    return 0


@numba.njit
def parameter_policy(kind, options, n_options, state, cards, params, rng):
    """A policy with a parameter vector: picks option ``params[0]`` where it exists."""
    return min(int(params[0]), n_options - 1)


@numba.njit
def out_of_range_policy(kind, options, n_options, state, cards, params, rng):
    """Breaks the contract on its first Phase I decision."""
    return n_options if kind == PHASE1 else 0


@numba.njit
def _value_at(layout, row, col, cards):
    """Signed value of the dream in a layout cell (Chaos +v left, -v right)."""
    card = layout[row, col]
    value = cards[card, F_VALUE]
    if cards[card, F_TYPE] == T_CHAOS and col > 3:
        return -value
    return value


@numba.njit
def _side_count(layout, row, side):
    n = 0
    for col in range(1 + 3 * side, 4 + 3 * side):
        if layout[row, col] >= 0:
            n += 1
    return n


@numba.njit
def _side_sum(layout, row, side, cards):
    total = 0
    for col in range(1 + 3 * side, 4 + 3 * side):
        if layout[row, col] >= 0:
            total += _value_at(layout, row, col, cards)
    return total


@numba.njit
def _more_influential(layout, row, cards):
    left = abs(_side_sum(layout, row, 0, cards))
    right = abs(_side_sum(layout, row, 1, cards))
    if left == right:
        return -1
    return 0 if left > right else 1


@numba.njit
def _balanced(layout, row, cards):
    n = _side_count(layout, row, 0) + _side_count(layout, row, 1)
    return n > 0 and _side_sum(layout, row, 0, cards) + _side_sum(layout, row, 1, cards) == 0


@numba.njit
def _dreams_in_play(cards, expansions):
    """Dream cards in play: the table holds every card of the set, the base game's dreams
    and those of the expansions in play (each expansion's own dream type)."""
    n = 0
    for card in range(cards.shape[0]):
        t = cards[card, F_TYPE]
        if t == T_SOGNAE or t == T_INCUBI or t == T_CHAOS:
            n += 1
        elif ((t == T_META and expansions & X_SQUARES_METAS)
              or (t == T_CHROMATIC and expansions & X_CHROMATIC)
              or (t == T_HARMONY and expansions & X_TEMPLES_HARMONY)
              or (t == T_WIZARD and expansions & X_GARDENS_WIZARDS)):
            n += 1
    return n


@numba.njit
def _check_accounting(kind, layout, hands, info, cards):
    n_rows = info[I_N_ROWS]
    for r in range(n_rows, layout.shape[0]):
        for c in range(layout.shape[1]):
            if layout[r, c] != -1:
                raise ValueError("a layout row beyond N_ROWS is not empty")
    for k in range(hands.shape[1]):
        if hands[1, k] != -1:
            raise ValueError("seat 1 holds cards in the solo game")
    cities = 0
    dreams = 0
    for r in range(n_rows):
        if layout[r, 0] >= 0:
            cities += 1
        for c in range(1, 7):
            if layout[r, c] >= 0:
                dreams += 1
    if cities + info[I_CITY_DECK_N] + info[I_SUCCESS_N] != info[I_TOTAL_CITIES]:
        raise ValueError("City cards do not add up")
    for k in range(hands.shape[1]):
        if hands[0, k] >= 0:
            dreams += 1
    dreams += info[I_DECK_N] + info[I_DISCARD_N]
    n_dreams = _dreams_in_play(cards, info[I_EXPANSIONS])
    settled = kind == PHASE1 or kind == ZERO_SUM or kind == EXCHANGE_PAIR
    if settled and dreams != n_dreams:
        raise ValueError("Dream cards do not add up at a settled decision")
    if not settled and dreams >= n_dreams:
        raise ValueError("the card being resolved is also in a zone")


@numba.njit
def _check_phase1(options, n_options, layout, hands, info, cards):
    for k in range(hands.shape[1]):
        if hands[0, k] < 0:
            raise ValueError("Phase I with fewer than 4 cards in hand")
    exchange_possible = False
    for side in range(2):
        n = 0
        for r in range(info[I_N_ROWS]):
            n += _side_count(layout, r, side)
        if n >= 2:
            exchange_possible = True
    i = 0
    for k in range(hands.shape[1]):
        card = hands[0, k]
        side = 0 if cards[card, F_TYPE] == T_SOGNAE else 1
        for r in range(info[I_N_ROWS]):
            shows = cards[layout[r, 0], F_ELEMENTS] & cards[card, F_ELEMENTS]
            if shows != 0 and _side_count(layout, r, side) < 3:
                if not (options[i, 0] == A_PLACE and options[i, 1] == card
                        and options[i, 2] == r and options[i, 3] == side):
                    raise ValueError("PHASE1: a placement is missing or out of order")
                i += 1
        if options[i, 0] != A_PASS or options[i, 1] != card:
            raise ValueError("PHASE1: pass missing")
        if options[i + 1, 0] != A_CENSUS or options[i + 1, 1] != card:
            raise ValueError("PHASE1: census missing")
        i += 2
        if exchange_possible:
            if options[i, 0] != A_EXCHANGE or options[i, 1] != card:
                raise ValueError("PHASE1: exchange missing")
            i += 1
    if i != n_options:
        raise ValueError("PHASE1: unexpected options")


@numba.njit
def _check_chaos(kind, options, n_options, layout, info, cards):
    i = 0
    for r in range(info[I_N_ROWS]):
        side = _more_influential(layout, r, cards)
        if side >= 0 and _side_count(layout, r, side) < 3:
            if options[i, 0] != C_PLACE or options[i, 1] != r or options[i, 2] != side:
                raise ValueError("Chaos: a placement is missing, wrong or out of order")
            i += 1
    if kind == HAND_CHAOS:
        if i == 0:
            if options[0, 0] != C_ASIDE:
                raise ValueError("HAND_CHAOS: aside missing")
            i = 1
    else:
        for r in range(info[I_N_ROWS]):
            if _balanced(layout, r, cards):
                if options[i, 0] != C_CLEAR or options[i, 1] != r:
                    raise ValueError("DRAW_CHAOS: a clear is missing or out of order")
                i += 1
        if options[i, 0] != C_REVEAL:
            raise ValueError("DRAW_CHAOS: reveal is not last")
        i += 1
    if i != n_options:
        raise ValueError("Chaos: unexpected options")
    for k in range(n_options):
        if cards[options[k, 3], F_TYPE] != T_CHAOS:
            raise ValueError("Chaos: column 3 is not a Chaos card")


@numba.njit
def _check_zero_sum(options, n_options, layout, cards):
    r = options[0, 1]
    i = 0
    for mask in range(64):
        ok = True
        total = 0
        for bit in range(6):
            if mask >> bit & 1:
                col = 1 + bit
                if layout[r, col] < 0:
                    ok = False
                else:
                    total += _value_at(layout, r, col, cards)
        if ok and (mask == 0 or total == 0):
            if options[i, 0] != mask or options[i, 1] != r:
                raise ValueError("ZERO_SUM: a mask is missing or out of order")
            i += 1
    if i != n_options:
        raise ValueError("ZERO_SUM: unexpected options")


@numba.njit
def _check_exchange(options, n_options, layout, info):
    expected = 0
    for side in range(2):
        n = 0
        for r in range(info[I_N_ROWS]):
            n += _side_count(layout, r, side)
        expected += n * (n - 1) // 2
    if expected != n_options:
        raise ValueError("EXCHANGE_PAIR: wrong number of pairs")
    for i in range(n_options):
        side = options[i, 2]
        found = 0
        for r in range(info[I_N_ROWS]):
            for col in range(1 + 3 * side, 4 + 3 * side):
                if layout[r, col] == options[i, 0] or layout[r, col] == options[i, 1]:
                    found += 1
        if found != 2 or options[i, 0] == options[i, 1]:
            raise ValueError("EXCHANGE_PAIR: not two dreams on the named side")


@numba.njit
def checking_policy(kind, options, n_options, state, cards, params, rng):
    """Uniformly random, after re-deriving every legal option from the visible state."""
    layout, hands, info = state
    for i in range(n_options, options.shape[0]):
        for c in range(options.shape[1]):
            if options[i, c] != -1:
                raise ValueError("an unused option row is not -1")
    _check_accounting(kind, layout, hands, info, cards)
    if kind != ZERO_SUM:
        for r in range(info[I_N_ROWS]):
            if layout[r, 0] < 0:
                raise ValueError("a pacified row outlived its census")
    if kind == PHASE1:
        _check_phase1(options, n_options, layout, hands, info, cards)
    elif kind == HAND_CHAOS or kind == DRAW_CHAOS:
        _check_chaos(kind, options, n_options, layout, info, cards)
    elif kind == ZERO_SUM:
        _check_zero_sum(options, n_options, layout, cards)
    elif kind == EXCHANGE_PAIR:
        _check_exchange(options, n_options, layout, info)
    elif kind == DEAL_SIDE:
        if n_options != 2 or options[0, 0] != 0 or options[1, 0] != 1:
            raise ValueError("DEAL_SIDE: expected L then R")
    return below_nb(rng, n_options)


# ---------------------------------------------------------------------- random games


def _seed_and_game(i: int) -> tuple[int, int]:
    return 1000 + i, i % 3


@pytest.fixture(scope="module")
def random_traces() -> list[dict]:
    return [play_reference(CARD_SET, *_seed_and_game(i), uniform_policy, "uniform")
            for i in range(N_RANDOM_GAMES)]


def test_random_games_replay_cleanly(random_traces):
    for trace in random_traces:
        assert replay(trace) == trace["result"]


def test_traces_survive_a_json_round_trip(random_traces):
    for trace in random_traces[:50]:
        copied = json.loads(json.dumps(trace))
        assert copied == trace
        assert replay(copied) == trace["result"]


def _assert_plain(value, where="trace"):
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) is str, where
            _assert_plain(item, f"{where}.{key}")
    elif isinstance(value, list):
        for k, item in enumerate(value):
            _assert_plain(item, f"{where}[{k}]")
    else:
        assert type(value) in (int, str), f"{where} is {type(value).__name__}"


def test_traces_hold_only_plain_python_values(random_traces):
    for trace in random_traces[:20]:
        _assert_plain(trace)


def test_trace_header_and_setup_follow_the_deal_stream(random_traces):
    trace = random_traces[0]
    seed, game = _seed_and_game(0)
    deal = PyStream(seed, game, Stream.DEAL)
    cities = list(range(12))
    deal.shuffle(cities)
    dreams = list(range(12, 84))
    deal.shuffle(dreams)
    assert trace["setup"] == {"city_deck": cities, "dream_deck": dreams,
                              "postcard_deck": [], "book_deck": []}
    assert (trace["format"], trace["seed"], trace["game"]) == ("urbion-trace/1", seed, game)
    assert (trace["variant"], trace["expansions"], trace["policy"]) == ("solo", [], "uniform")
    assert trace["card_set"] == trace["result"]["card_set"] == "R14-default"
    assert trace["cards"] == CARD_SET.describe()


def test_same_seed_gives_the_same_trace_and_games_differ(random_traces):
    again = play_reference(CARD_SET, *_seed_and_game(0), uniform_policy, "uniform")
    assert again == random_traces[0]
    assert random_traces[0]["log"] != random_traces[3]["log"]


def _check_invariants(trace: dict) -> None:
    """Zone accounting and layout rules, computed from the trace alone."""
    cards = {card["id"]: card for card in trace["cards"]}
    n_cities = sum(card["type"] == "city" for card in cards.values())
    n_dreams = len(cards) - n_cities
    n_chaos = sum(card["type"] == "chaos" for card in cards.values())
    checks = [entry["check"] for entry in trace["log"] if "check" in entry]
    result = trace["result"]
    assert [c["turn"] for c in checks] == list(range(result["turns"] + 1))
    for number, check in enumerate(checks):
        final = number == len(checks) - 1
        seen = list(check["hand"])
        cities = [row["city"] for row in check["rows"]]
        assert len(cities) == len(set(cities)) <= 4
        assert all(cards[c]["type"] == "city" for c in cities)
        if len(cities) < 4:  # R01.5: rows go only when the City deck is empty
            assert len(cities) + check["success"] == n_cities
        for row in check["rows"]:
            for side, own_type in (("L", "sognae"), ("R", "incubi")):
                assert len(row[side]) <= 3
                assert all(cards[c]["type"] in (own_type, "chaos") for c in row[side])
                seen += row[side]
        assert len(seen) == len(set(seen))
        assert all(cards[c]["type"] in ("sognae", "incubi") for c in check["hand"])
        in_zones = len(seen) + check["dream_deck"] + check["discard"]
        if not final:
            assert len(check["hand"]) == 4
            assert in_zones == n_dreams
        elif check["turn"] > 0:
            # Only a Chaos waiting for its partner while dealing can be in no zone.
            assert in_zones in (n_dreams, n_dreams - 1)
            if in_zones != n_dreams:
                assert result["reason"] == "deck_empty"
        else:
            # A setup loss may also leave opening-hand Chaos set aside (R03.2).
            assert 0 <= n_dreams - in_zones <= n_chaos
    for before, after in zip(checks, checks[1:], strict=False):
        assert after["success"] >= before["success"]
        assert after["discard"] >= before["discard"]
        assert after["dream_deck"] < before["dream_deck"] or after is checks[-1]
    final = checks[-1]
    assert result["pacified"] == final["success"]
    assert result["deck_left"] == final["dream_deck"]
    assert (result["outcome"] == "win") == (final["success"] == n_cities)
    if result["outcome"] == "win":
        assert result["reason"] == "all_pacified" and final["rows"] == []
    else:
        assert result["reason"] == "deck_empty" and final["dream_deck"] == 0


def test_invariants_hold_at_every_check(random_traces):
    for trace in random_traces:
        _check_invariants(trace)


def test_random_games_reach_the_interesting_rules(random_traces):
    """The random sample must exercise what the other tests rely on it for."""
    entries = [entry for trace in random_traces for entry in trace["log"]]
    dos = Counter(entry.get("do") for entry in entries)
    hows = Counter(entry.get("how") for entry in entries if entry.get("do") == "chaos")
    groups = [g for e in entries if e.get("do") == "act" and "census" in e["acts"][0]
              for g in e["acts"][0]["census"]["zero_sum"]]
    assert dos["side"] > 0 and dos["place"] > 0 and dos["pass"] > 0 and dos["act"] > 0
    assert hows["place"] > 0 and hows["clear"] > 0 and hows["reveal"] > 0
    assert groups
    assert any(trace["result"]["pacified"] > 0 for trace in random_traces)


@pytest.mark.parametrize("policy", [checking_policy, last_option_policy])
def test_options_match_the_visible_state(policy):
    for game in range(40):
        trace = play_reference(CARD_SET, 77, game, policy, "checked")
        assert replay(trace) == trace["result"]
        _check_invariants(trace)


def tiny_card_set(cities: list[list[str]], sognae: list[int], chaos: int):
    """A card set small enough for games to end in setup, or be won by chance."""
    city_list = ", ".join(json.dumps(pair) for pair in cities)
    incubi = [-v for v in sognae]
    return parse_card_set(
        f'name = "tiny-{len(cities)}"\n[cities]\nbase = [{city_list}]\n'
        f"[dreams.sognae]\nearth = {sognae}\nwater = {sognae}\nfire = {sognae}\n"
        f"air = {sognae}\n[dreams.incubi]\nearth = {incubi}\nwater = {incubi}\n"
        f"fire = {incubi}\nair = {incubi}\n[dreams.chaos]\ncount = {chaos}\nvalue = 5\n",
        "test",
    )


TINY_SETS = [
    tiny_card_set([["earth", "water"], ["fire", "air"]], [1, 1], 6),
    tiny_card_set([["earth", "water"], ["fire", "air"], ["earth", "fire"], ["water", "air"]],
                  [1], 3),
    tiny_card_set([["earth", "water"], ["fire", "air"], ["earth", "fire"], ["water", "air"],
                   ["earth", "air"]], [1, 2, 1], 6),
]


def test_tiny_card_sets_reach_wins_setup_losses_and_reshuffles():
    seen = Counter()
    for card_set in TINY_SETS:
        for game in range(150):
            trace = play_reference(card_set, 9, game, checking_policy, "checked")
            assert replay(trace) == trace["result"]
            _check_invariants(trace)
            seen[trace["result"]["outcome"]] += 1
            seen["setup loss"] += trace["result"]["turns"] == 0
            seen["shuffle"] += any("shuffle" in entry for entry in trace["log"])
    assert seen["win"] > 0 and seen["setup loss"] > 0 and seen["shuffle"] > 0


class _RandomDecider:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, kind, options, game) -> int:
        return self.rng.randrange(len(options))

    def act_done(self) -> None:
        pass


class _RandomShuffler:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def shuffle(self, cards: list[int]) -> list[int]:
        order = list(cards)
        self.rng.shuffle(order)
        return order


class _ZoneAudit:
    """At every check: each card in exactly one zone, by id."""

    def __init__(self) -> None:
        self.game: SoloGame | None = None
        self.checks = 0

    def check(self, snapshot: dict) -> None:
        game = self.game
        dreams = [c for row in game.rows for c in row.dreams()]
        dreams += game.hand + game.dream_deck + game.discard + game.in_transit
        assert sorted(dreams) == game.book.dream_ids
        cities = [row.city for row in game.rows if not row.is_placeholder]
        assert sorted(cities + game.city_deck + game.success) == game.book.city_ids
        self.check_in_transit(game)
        self.checks += 1

    def check_in_transit(self, game: SoloGame) -> None:
        """Nothing moving between turns; at the end, at most a Chaos waiting for a partner."""
        running = game.outcome == Outcome.RUNNING
        if running or game.turn > 0:
            assert len(game.in_transit) <= (0 if running else 1)


@pytest.mark.parametrize("card_set", [CARD_SET, *TINY_SETS], ids=lambda c: c.name)
def test_every_card_is_in_exactly_one_zone_at_every_check(card_set):
    book = CardBook.from_card_set(card_set)
    for game_index in range(60):
        rng = random.Random(game_index)
        cities, dreams = list(book.city_ids), list(book.dream_ids)
        rng.shuffle(cities)
        rng.shuffle(dreams)
        audit = _ZoneAudit()
        game = SoloGame(book, cities, dreams, _RandomDecider(rng), _RandomShuffler(rng), audit)
        audit.game = game
        game.play()
        assert audit.checks == game.turn + 1


def test_a_parameter_vector_is_passed_to_the_policy():
    with_params = play_reference(CARD_SET, 8, 1, parameter_policy, "p", np.zeros(1))
    assert with_params == play_reference(CARD_SET, 8, 1, first_option_policy, "p")
    other = play_reference(CARD_SET, 8, 1, parameter_policy, "p", np.full(1, 2.0))
    assert other["log"] != with_params["log"]


def test_out_of_range_choice_raises_illegal_decision():
    with pytest.raises(IllegalDecision) as err:
        play_reference(CARD_SET, 5, 2, out_of_range_policy, "broken")
    message = str(err.value)
    for part in ("'broken'", "seed 5", "game 2", "turn 1", "PHASE1"):
        assert part in message, message


# ---------------------------------------------------------------------- tampering


def _first(trace: dict, predicate) -> int:
    return next(i for i, entry in enumerate(trace["log"]) if predicate(entry))


def _expect_replay_error(trace: dict, *fragments: str) -> None:
    with pytest.raises(ReplayError) as err:
        replay(trace)
    message = str(err.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def _census_with_groups(traces: list[dict], at_least: int) -> tuple[dict, dict]:
    """A copy of the first trace with a census of ``at_least`` zero-sum groups, and that
    census (in the copy)."""
    for trace in traces:
        for i, entry in enumerate(trace["log"]):
            for act in entry.get("acts", []):
                if len(act.get("census", {}).get("zero_sum", [])) >= at_least:
                    copied = copy.deepcopy(trace)
                    j = entry["acts"].index(act)
                    return copied, copied["log"][i]["acts"][j]["census"]
    raise AssertionError("no such census")


def test_replay_takes_zero_sum_groups_in_any_order(random_traces):
    # TRACE.md gives the groups of a census no order
    trace, census = _census_with_groups(random_traces, 2)
    census["zero_sum"].reverse()
    assert replay(trace) == trace["result"]


def test_replay_still_refuses_two_zero_sum_groups_of_one_row(random_traces):
    trace, census = _census_with_groups(random_traces, 1)
    census["zero_sum"].append(list(census["zero_sum"][0]))
    _expect_replay_error(trace, "zero-sum groups", "all discard from row")


def test_replay_leaves_keys_added_to_rows_and_acts_alone(random_traces):
    # TRACE.md: the format is extended by adding keys, which a checker leaves alone
    trace = copy.deepcopy(random_traces[0])
    for entry in trace["log"]:
        for row in entry.get("check", {}).get("rows", []):
            row["note"] = "added"
        for act in entry.get("acts", []):
            act["note"] = 1
    assert any("acts" in entry for entry in trace["log"])
    assert replay(trace) == trace["result"]


def _city_renumbered(trace: dict, new_id: int) -> dict:
    """A copy of the trace whose first City card has id ``new_id`` everywhere."""
    trace = copy.deepcopy(trace)
    old = trace["setup"]["city_deck"][0]
    next(c for c in trace["cards"] if c["id"] == old)["id"] = new_id
    trace["setup"]["city_deck"][0] = new_id
    for entry in trace["log"]:
        for row in entry.get("check", {}).get("rows", []):
            if row["city"] == old:
                row["city"] = new_id
    return trace


def test_replay_takes_any_card_ids_minus_1_too(random_traces):
    """TRACE.md: any unique integers; -1, the engines' "no card", is replayed under an id
    of its own, which a message names."""
    for new_id in (-7, -1):
        assert replay(_city_renumbered(random_traces[0], new_id)) == \
            random_traces[0]["result"]
    broken = _city_renumbered(random_traces[0], -1)
    broken["log"][-1]["check"]["rows"][0]["city"] = 99
    with pytest.raises(ReplayError) as err:
        replay(broken)
    alias = max(card["id"] for card in broken["cards"]) + 1
    assert str(err.value).endswith(f"(card -1 is replayed as card {alias})")


def test_a_count_of_minus_1_beside_a_card_of_id_minus_1_stays_a_count(random_traces):
    broken = _city_renumbered(random_traces[0], -1)
    broken["log"][-1]["check"]["discard"] = -1
    with pytest.raises(ReplayError) as err:
        replay(broken)
    assert "check discard differs: log -1," in str(err.value)


def test_show_names_a_card_of_id_minus_1_by_the_id_it_is_replayed_under(random_traces):
    from analyzer.trace.show import render_trace

    text = render_trace(_city_renumbered(random_traces[0], -1))
    heading = text.split("\nSetup\n")[0].splitlines()
    assert any(line.startswith("Card -1 of the trace is shown as card ") for line in heading)


def test_replay_rejects_a_placement_on_the_wrong_side(random_traces):
    trace = copy.deepcopy(random_traces[0])
    i = _first(trace, lambda e: e.get("do") == "place")
    trace["log"][i]["side"] = "L" if trace["log"][i]["side"] == "R" else "R"
    _expect_replay_error(trace, f"log entry {i}:", "not a legal PHASE1")


def test_replay_rejects_a_placement_next_to_a_city_without_the_element(random_traces):
    for original in random_traces:
        trace = copy.deepcopy(original)
        cards = {card["id"]: card for card in trace["cards"]}
        for i, entry in enumerate(trace["log"]):
            if entry.get("do") != "place":
                continue
            rows = [e["check"]["rows"] for e in trace["log"][:i] if "check" in e][-1]
            element = cards[entry["card"]]["element"]
            wrong = [r for r, row in enumerate(rows)
                     if element not in cards[row["city"]]["elements"]
                     and len(row[entry["side"]]) < 3]
            if wrong:
                entry["row"] = wrong[0]
                _expect_replay_error(trace, f"log entry {i}:", "not a legal PHASE1")
                return
    pytest.fail("no placement to tamper with")


def test_replay_rejects_a_changed_check(random_traces):
    trace = copy.deepcopy(random_traces[1])
    i = _first(trace, lambda e: "check" in e and e["check"]["turn"] == 3)
    trace["log"][i]["check"]["discard"] += 1
    _expect_replay_error(trace, f"log entry {i}:", "check discard differs")

    trace = copy.deepcopy(random_traces[1])
    first_row = trace["log"][i]["check"]["rows"][0]
    source, target = ("L", "R") if first_row["L"] else ("R", "L")
    first_row[target].append(first_row[source].pop(0))
    _expect_replay_error(trace, f"log entry {i}:", "check rows differs")


def test_replay_compares_sides_and_hands_as_multisets(random_traces):
    trace = copy.deepcopy(random_traces[2])
    for entry in trace["log"]:
        if "check" in entry:
            entry["check"]["hand"].reverse()
            for row in entry["check"]["rows"]:
                row["L"].reverse()
    assert replay(trace) == trace["result"]


def test_replay_rejects_a_wrong_result(random_traces):
    changes = {"turns": 1, "outcome": "win", "deck_left": 7, "pacified": 1, "card_set": "x"}
    for key, value in changes.items():
        trace = copy.deepcopy(random_traces[3])
        if isinstance(value, int):
            value += trace["result"][key]
        trace["result"][key] = value
        _expect_replay_error(trace, f"result: {key} is {json.dumps(value)} in the trace's "
                                    "result, ")


def test_replay_rejects_missing_and_left_over_entries(random_traces):
    trace = copy.deepcopy(random_traces[4])
    trace["log"].append({"do": "pass", "card": 20})
    _expect_replay_error(trace, f"log entry {len(trace['log']) - 1}:", "left over")

    trace = copy.deepcopy(random_traces[4])
    trace["log"].pop()
    _expect_replay_error(trace, f"log entry {len(trace['log'])}:", "missing")

    trace = copy.deepcopy(random_traces[4])
    i = _first(trace, lambda e: "check" in e and e["check"]["turn"] == 2)
    del trace["log"][i]
    _expect_replay_error(trace, f"log entry {i}:")


def test_replay_rejects_a_check_value_of_another_type_a_wrong_hand_and_a_repeated_card(
        random_traces):
    trace = copy.deepcopy(random_traces[4])
    i = _first(trace, lambda e: "check" in e and e["check"]["turn"] == 1)
    trace["log"][i]["check"]["turn"] = True  # JSON true is not the number 1
    _expect_replay_error(trace, f"log entry {i}:", "check turn differs: log true, replay 1")

    trace = copy.deepcopy(random_traces[4])
    hand = trace["log"][i]["check"]["hand"]
    hand[0] = next(card["id"] for card in trace["cards"] if card["id"] not in hand)
    _expect_replay_error(trace, f"log entry {i}:", "check hand differs")

    trace = copy.deepcopy(random_traces[4])
    trace["cards"].append(copy.deepcopy(trace["cards"][-1]))
    _expect_replay_error(trace, f"card id {trace['cards'][-1]['id']} appears twice")


def test_replay_rejects_an_expansions_check_key_outside_it(random_traces):
    trace = copy.deepcopy(random_traces[5])
    trace["log"][-1]["check"]["wise_chaos"] = 3
    _expect_replay_error(trace, "wise_chaos")


def test_replay_leaves_a_check_key_trace_md_does_not_list_alone(random_traces):
    """TRACE.md: extend the format only by adding keys; a checker compares the keys present
    (it knows)."""
    trace = copy.deepcopy(random_traces[5])
    i = _first(trace, lambda e: "check" in e)
    trace["log"][i]["check"]["aside"] = [3, 4]
    assert replay(trace) == trace["result"]


def test_replay_rejects_a_setup_deck_that_is_not_a_permutation(random_traces):
    trace = copy.deepcopy(random_traces[6])
    trace["setup"]["dream_deck"][0] = trace["setup"]["dream_deck"][1]
    _expect_replay_error(trace, "setup.dream_deck")


def test_replay_rejects_a_trace_naming_an_expansion_without_its_cards():
    trace = play_reference(CARD_SET, 3, 0, uniform_policy, "uniform")
    trace["expansions"] = ["emptiness"]
    _expect_replay_error(trace, "variant")


# ---------------------------------------------------------------------- hand-built games
#
# A small card table with ids chosen for readability. Cities 0-5; Sognae 10-19; Incubi
# 30-39; Chaos 50-53 (value 5). Every card of a scenario's decks is in its table.

CITY_ELEMENTS = {0: ["earth", "water"], 1: ["fire", "air"], 2: ["earth", "fire"],
                 3: ["water", "air"], 4: ["earth", "air"], 5: ["water", "fire"]}
DREAMS = {
    10: ("sognae", "earth", 1), 11: ("sognae", "earth", 2), 12: ("sognae", "water", 1),
    13: ("sognae", "water", 2), 14: ("sognae", "fire", 1), 15: ("sognae", "fire", 2),
    16: ("sognae", "air", 1), 17: ("sognae", "air", 2), 18: ("sognae", "earth", 3),
    19: ("sognae", "fire", 3),
    30: ("incubi", "earth", -1), 31: ("incubi", "earth", -2), 32: ("incubi", "water", -1),
    33: ("incubi", "water", -2), 34: ("incubi", "fire", -1), 35: ("incubi", "fire", -2),
    36: ("incubi", "air", -1), 37: ("incubi", "air", -2), 38: ("incubi", "earth", -3),
    39: ("incubi", "fire", -3),
}
CHAOS_IDS = (50, 51, 52, 53)


def _card(card_id: int) -> dict:
    if card_id in CITY_ELEMENTS:
        return {"id": card_id, "type": "city", "kind": "base",
                "elements": CITY_ELEMENTS[card_id]}
    if card_id in CHAOS_IDS:
        return {"id": card_id, "type": "chaos", "value": 5}
    card_type, element, value = DREAMS[card_id]
    return {"id": card_id, "type": card_type, "element": element, "value": value}


def scenario(city_deck, dream_deck, log, outcome, turns, pacified, deck_left) -> dict:
    ids = sorted(city_deck + dream_deck)
    return {
        "format": "urbion-trace/1", "seed": 0, "game": 0, "variant": "solo",
        "expansions": [], "policy": "scripted", "card_set": "mini",
        "cards": [_card(i) for i in ids],
        "setup": {"city_deck": city_deck, "dream_deck": dream_deck,
                  "postcard_deck": [], "book_deck": []},
        "log": log,
        "result": {"outcome": outcome,
                   "reason": "all_pacified" if outcome == "win" else "deck_empty",
                   "card_set": "mini", "turns": turns, "pacified": pacified,
                   "deck_left": deck_left},
    }


def check(turn, rows, hand, dream_deck, success, discard) -> dict:
    return {"check": {"turn": turn, "rows": rows, "hand": hand, "dream_deck": dream_deck,
                      "success": success, "discard": discard}}


def row(city, left, right) -> dict:
    return {"city": city, "L": left, "R": right}


def census(card, *groups) -> dict:
    return {"do": "act", "discard": [card], "acts": [{"census": {"zero_sum": list(groups)}}]}


def pass_(card) -> dict:
    return {"do": "pass", "card": card}


def chaos(how, row_index=None) -> dict:
    entry = {"do": "chaos", "how": how}
    if row_index is not None:
        entry["row"] = row_index
    return entry


def observed(trace) -> list[dict]:
    snapshots: list[dict] = []
    replay(trace, observe=snapshots.append)
    return snapshots


# Row 0 leans left, row 1 right, rows 2 and 3 left; no zero-sum set in rows 1-3.
LEANING = [11, 30, 14, 35, 15, 34, 17, 36]
LEANING_ROWS = [row(0, [11], [30]), row(1, [14], [35]), row(2, [15], [34]), row(3, [17], [36])]
# Every row +1 / -1: balanced, and no more influential side anywhere.
EVEN = [10, 30, 14, 34, 12, 32, 16, 36]
EVEN_ROWS = [row(0, [10], [30]), row(1, [14], [34]), row(2, [12], [32]), row(3, [16], [36])]


def two_chaos_trace(side="R") -> dict:
    rows = [row(0, [], [50, 51]), row(1, [10], [30]), row(2, [14], [34]), row(3, [12], [32])]
    log = [{"do": "side", "side": side},
           check(0, rows, [11, 13, 31, 33], 0, 0, 0),
           pass_(11),
           check(1, rows, [13, 31, 33], 0, 0, 1)]
    deck = [50, 51, 10, 30, 14, 34, 12, 32, 11, 13, 31, 33]
    return scenario([0, 1, 2, 3], deck, log, "loss", 1, 0, 0)


def test_R02_3_two_chaos_dealt_together_side_decision():
    trace = two_chaos_trace()
    assert replay(trace) == trace["result"]
    assert observed(trace)[0]["rows"][0] == row(0, [], [50, 51])  # card 1 first

    _expect_replay_error(two_chaos_trace(side="L"), "log entry 1:", "check rows differs")
    missing = two_chaos_trace()
    del missing["log"][0]
    _expect_replay_error(missing, "log entry 0:", "DEAL_SIDE")


def test_R02_2_chaos_joins_its_partners_side_after_it():
    rows = [row(0, [], [30, 50]), row(1, [11, 51], []), row(2, [14], [34]),
            row(3, [12], [32])]
    deck = [50, 30, 11, 51, 14, 34, 12, 32, 10, 13, 31, 33]
    log = [check(0, rows, [10, 13, 31, 33], 0, 0, 0), pass_(10),
           check(1, rows, [13, 31, 33], 0, 0, 1)]
    trace = scenario([0, 1, 2, 3], deck, log, "loss", 1, 0, 0)
    assert replay(trace) == trace["result"]
    assert observed(trace)[0]["rows"][:2] == rows[:2]  # exact order, not only multisets

    extra_side = copy.deepcopy(trace)
    extra_side["log"].insert(0, {"do": "side", "side": "R"})
    _expect_replay_error(extra_side, "log entry 0:", "expected a check")


def opening_chaos_trace(entry, shown_row_1) -> dict:
    rows = LEANING_ROWS[:1] + [shown_row_1] + LEANING_ROWS[2:]
    log = [entry, check(0, rows, [10, 12, 13, 31], 0, 0, 0), pass_(10),
           check(1, rows, [12, 13, 31], 0, 0, 1)]
    return scenario([0, 1, 2, 3], LEANING + [50, 10, 12, 13, 31], log, "loss", 1, 0, 0)


def test_R03_1_opening_chaos_goes_to_the_more_influential_side():
    trace = opening_chaos_trace(chaos("place", 1), row(1, [14], [35, 50]))
    assert replay(trace) == trace["result"]
    wrong_side = opening_chaos_trace(chaos("place", 1), row(1, [14, 50], [35]))
    _expect_replay_error(wrong_side, "log entry 1:", "check rows differs")
    aside = opening_chaos_trace(chaos("aside"), row(1, [14], [35]))
    _expect_replay_error(aside, "log entry 0:", "not a legal HAND_CHAOS")


def aside_trace(shuffle=(35, 50, 15), first=None) -> dict:
    log = [first or chaos("aside"),
           {"shuffle": list(shuffle)},
           check(0, EVEN_ROWS, [11, 13, 31, 33], 3, 0, 0),
           pass_(11),
           check(1, EVEN_ROWS, [13, 31, 33, 35], 2, 0, 1),
           pass_(13),
           chaos("reveal"),  # draws 50: no side to place it; reveals 15
           check(2, EVEN_ROWS, [31, 33, 35], 0, 0, 4)]
    deck = EVEN + [50, 11, 13, 31, 33, 15, 35]
    return scenario([0, 1, 2, 3], deck, log, "loss", 2, 0, 0)


def test_R03_2_opening_chaos_no_city_can_take_is_set_aside_and_shuffled_back():
    trace = aside_trace()
    assert replay(trace) == trace["result"]
    _expect_replay_error(aside_trace(first=chaos("place", 0)), "log entry 0:",
                         "not a legal HAND_CHAOS")


@pytest.mark.parametrize("bad", [(35, 50, 50), (35, 50), (35, 50, 15, 16), (35, 50, 14)])
def test_R03_2_replay_rejects_a_shuffle_that_is_not_a_permutation(bad):
    _expect_replay_error(aside_trace(shuffle=bad), "log entry 1:", "not a permutation")


def test_R03_2_shuffle_order_is_taken_from_the_log():
    # With 50 on top instead, turn 1 would draw the Chaos and need a decision.
    _expect_replay_error(aside_trace(shuffle=(50, 35, 15)), "log entry 4:")


def test_R05_4_perfect_balance_takes_the_bonus_city_card():
    log = [check(0, EVEN_ROWS, [11, 13, 31, 33], 1, 0, 0),
           census(11),
           check(1, [], [13, 31, 33], 1, 5, 9)]
    trace = scenario([0, 1, 2, 3, 4], EVEN + [11, 13, 31, 33, 15], log, "win", 1, 5, 1)
    assert replay(trace) == trace["result"]


def test_R05_4_no_bonus_unless_all_four_and_R01_5_rows_move_up():
    rows = EVEN_ROWS[:3] + [row(3, [16], [37])]
    log = [check(0, rows, [11, 13, 31, 33], 3, 0, 0),
           census(11),  # rows 0-2 pacified, row 0 takes City 4, rows 1 and 2 go
           check(1, [row(4, [15], [35]), row(3, [16], [37])], [13, 31, 33, 19], 0, 3, 7),
           {"do": "place", "card": 33, "row": 1, "side": "R"},  # row 1 is now City 3
           check(2, [row(4, [15], [35]), row(3, [16], [37, 33])], [13, 31, 19], 0, 3, 7)]
    deck = EVEN[:7] + [37, 11, 13, 31, 33, 15, 35, 19]
    trace = scenario([0, 1, 2, 3, 4], deck, log, "loss", 2, 3, 0)
    assert replay(trace) == trace["result"]


def zero_sum_trace(group=(11, 33), place=None) -> dict:
    log = [check(0, LEANING_ROWS, [33, 10, 12, 13], 2, 0, 0),
           place or {"do": "place", "card": 33, "row": 0, "side": "R"},
           check(1, [row(0, [11], [30, 33])] + LEANING_ROWS[1:], [10, 12, 13, 16], 1, 0, 0),
           census(10, list(group)),
           check(2, [row(0, [], [30])] + LEANING_ROWS[1:], [12, 13, 16, 37], 0, 0, 3),
           pass_(12),
           check(3, [row(0, [], [30])] + LEANING_ROWS[1:], [13, 16, 37], 0, 0, 4)]
    deck = LEANING + [33, 10, 12, 13, 16, 37]
    return scenario([0, 1, 2, 3], deck, log, "loss", 3, 0, 0)


def test_R05_5_census_discards_a_zero_sum_set_of_an_unbalanced_city():
    assert replay(zero_sum_trace())["turns"] == 3
    assert replay(zero_sum_trace(group=(33, 11)))["turns"] == 3  # a group is a set


@pytest.mark.parametrize("group", [(11, 30), (14, 35), (11, 33, 30), (11, 33, 14, 34)])
def test_R05_5_replay_rejects_a_group_that_is_not_a_zero_sum_set(group):
    _expect_replay_error(zero_sum_trace(group=group), "log entry 3:", "zero-sum group")


def test_R04_1_replay_rejects_a_placement_that_breaks_the_placement_rules():
    wrong_city = {"do": "place", "card": 33, "row": 1, "side": "R"}  # city 1: fire, air
    _expect_replay_error(zero_sum_trace(place=wrong_city), "log entry 1:", "not a legal PHASE1")
    wrong_side = {"do": "place", "card": 33, "row": 0, "side": "L"}
    _expect_replay_error(zero_sum_trace(place=wrong_side), "log entry 1:", "not a legal PHASE1")


def exchange_trace(pair) -> dict:
    rows = [row(0, [15], [30]), row(1, [14], [35]), row(2, [11], [34]), row(3, [17], [36])]
    log = [check(0, LEANING_ROWS, [10, 12, 13, 31], 0, 0, 0),
           {"do": "act", "discard": [10], "acts": [{"exchange": list(pair)}]},
           check(1, rows, [12, 13, 31], 0, 0, 1)]
    return scenario([0, 1, 2, 3], LEANING + [10, 12, 13, 31], log, "loss", 1, 0, 0)


def test_R04_4_exchange_swaps_two_dreams_on_the_same_side():
    assert replay(exchange_trace((11, 15)))["turns"] == 1


@pytest.mark.parametrize("pair", [(11, 30), (11, 11), (11,)])
def test_R04_4_replay_rejects_an_exchange_across_sides(pair):
    _expect_replay_error(exchange_trace(pair), "log entry 1:", "exchange")


def reveal_trace(first_place=0, second_place=1) -> dict:
    rows = [row(0, [11, 53], [30]), row(1, [14], [35, 52])] + LEANING_ROWS[2:]
    log = [check(0, LEANING_ROWS, [10, 12, 13, 31], 10, 0, 0),
           pass_(10),
           chaos("reveal"),  # 50 reveals 16, 51, 37, 52
           chaos("reveal"),  # 51 reveals 18, 53, 38, 39
           chaos("place", first_place),  # 53, revealed by 51: resolved before 52
           chaos("place", second_place),  # 52
           check(1, rows, [12, 13, 31, 32], 0, 0, 8),
           pass_(12),
           check(2, rows, [13, 31, 32], 0, 0, 9)]
    deck = LEANING + [10, 12, 13, 31, 50, 16, 51, 37, 52, 18, 53, 38, 39, 32]
    return scenario([0, 1, 2, 3], deck, log, "loss", 2, 0, 0)


def test_R06_2c_reveal_resolves_each_revealed_chaos_depth_first():
    assert replay(reveal_trace())["turns"] == 2
    # Breadth first would put 52 in row 0 and 53 in row 1: the check must then differ.
    _expect_replay_error(reveal_trace(first_place=1, second_place=0), "log entry 6:",
                         "check rows differs")


def clear_trace(clear_row) -> dict:
    rows = [row(0, [], [])] + LEANING_ROWS[1:]
    log = [check(0, [row(0, [10], [30])] + LEANING_ROWS[1:], [11, 12, 13, 31], 1, 0, 0),
           pass_(11),
           chaos("clear", clear_row),
           check(1, rows, [12, 13, 31], 0, 0, 4)]
    deck = [10, 30] + LEANING[2:] + [11, 12, 13, 31, 50]
    return scenario([0, 1, 2, 3], deck, log, "loss", 1, 0, 0)


def test_R06_2b_clear_discards_a_balanced_citys_dreams_and_the_chaos():
    assert replay(clear_trace(0))["turns"] == 1
    _expect_replay_error(clear_trace(1), "log entry 2:", "not a legal DRAW_CHAOS")


def test_R05_9_a_city_left_without_dreams_by_a_chaos_clear_is_dealt_at_census():
    cleared = [row(0, [], [])] + LEANING_ROWS[1:]
    dealt = [row(0, [16], [37])] + LEANING_ROWS[1:]
    log = [check(0, [row(0, [10], [30])] + LEANING_ROWS[1:], [11, 13, 31, 33], 5, 0, 0),
           pass_(11),
           chaos("clear", 0),  # 10, 30 and the Chaos discarded; 12 drawn
           check(1, cleared, [13, 31, 33, 12], 3, 0, 4),
           census(13),  # nothing to pacify: row 0 has no dreams (R01.3)
           check(2, dealt, [31, 33, 12, 18], 0, 0, 5),
           pass_(31)]
    deck = [10, 30] + LEANING[2:] + [11, 13, 31, 33, 50, 12, 16, 37, 18]
    trace = scenario([0, 1, 2, 3], deck, log + [check(3, dealt, [33, 12, 18], 0, 0, 6)],
                     "loss", 3, 0, 0)
    assert replay(trace) == trace["result"]


def test_R05_8_R05_9_pacified_rows_take_city_cards_and_dreams_top_to_bottom():
    unbalanced = [row(2, [15], [36]), row(3, [17], [32])]
    refilled = [row(4, [12], [37]), row(5, [16], [35])] + unbalanced
    log = [check(0, [row(0, [10], [30]), row(1, [14], [34])] + unbalanced, [11, 13, 31, 33],
                 5, 0, 0),
           census(11),  # rows 0 and 1 pacified: 2 of 4, no Perfect Balance
           check(1, refilled, [13, 31, 33, 18], 0, 2, 5),
           pass_(13),
           check(2, refilled, [31, 33, 18], 0, 2, 6)]
    deck = [10, 30, 14, 34, 15, 36, 17, 32, 11, 13, 31, 33, 12, 37, 16, 35, 18]
    trace = scenario([0, 1, 2, 3, 4, 5], deck, log, "loss", 2, 2, 0)
    assert replay(trace) == trace["result"]


@pytest.mark.parametrize("last, shown", [(50, []), (16, [16])])
def test_R13_2_dream_deck_running_out_during_a_refill_loses(last, shown):
    rows = [row(4, shown, []), row(1, [14], [35]), row(2, [15], [34]), row(3, [17], [36])]
    log = [check(0, [row(0, [10], [30])] + LEANING_ROWS[1:], [11, 12, 13, 31], 1, 0, 0),
           census(11),
           check(1, rows, [12, 13, 31], 0, 1, 3)]
    deck = [10, 30] + LEANING[2:] + [11, 12, 13, 31, last]
    trace = scenario([0, 1, 2, 3, 4], deck, log, "loss", 1, 1, 0)
    assert replay(trace) == trace["result"]


def test_R13_1_a_census_zero_sum_group_after_the_winning_pacification_is_rejected():
    log = [check(0, EVEN_ROWS, [11, 13, 31, 33], 0, 0, 0),
           census(11, [10, 30]),
           check(1, [], [13, 31, 33], 0, 4, 9)]
    trace = scenario([0, 1, 2, 3], EVEN + [11, 13, 31, 33], log, "win", 1, 4, 0)
    _expect_replay_error(trace, "log entry 1:", "zero-sum group")
    trace["log"][1] = census(11)
    assert replay(trace) == trace["result"]


def test_policy_play_writes_census_groups_into_the_act_entry(random_traces):
    """A census act's groups must each be one row's dreams, listed rows top to bottom."""
    for trace in random_traces:
        rows = None
        for entry in trace["log"]:
            if "check" in entry:
                rows = entry["check"]["rows"]
            elif entry.get("do") == "act" and "census" in entry["acts"][0]:
                where = []
                for group in entry["acts"][0]["census"]["zero_sum"]:
                    owners = {r for r, row_ in enumerate(rows) for c in group
                              if c in row_["L"] + row_["R"]}
                    assert len(owners) == 1
                    where += owners
                assert where == sorted(where) and len(set(where)) == len(where)
