"""The fast engine against the plain reference engine: the same trace for the same seed.

This is the project's most important test: the reference is written for clarity from the
rulebook and RULINGS.md and shares no rules code with the kernels (docs/engine.md).
"""

from __future__ import annotations

import json

import pytest

import analyzer
from analyzer.cards import default_card_set
from analyzer.cards.loader import parse_expansions
from analyzer.policies.registry import resolve_policy
from analyzer.reference import replay
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.tracing import fast_trace

CARDS = default_card_set()
SEEDS = 2000
EXPANSION_SEEDS = 1000
#: Each of the first four expansions alone, and all four together (issue: Expansions I).
EXPANSION_SETS = ["squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards",
                  "squares_metas,chromatic_chaos,temples_harmony,gardens_wizards"]


def _assert_same_trace(fast: dict, ref: dict, game: str) -> None:
    """The same trace, down to the bytes of its line in a file: keys in the same order."""
    assert fast == ref, f"{game}: {_first_difference(fast, ref)}"
    assert json.dumps(fast) == json.dumps(ref), f"{game}: the same trace, keys in another order"


def _first_difference(a: dict, b: dict) -> str:
    for key in a:
        if key != "log" and a[key] != b.get(key):
            return f"{key}: {a[key]!r} != {b.get(key)!r}"
    for i, (x, y) in enumerate(zip(a["log"], b["log"], strict=False)):
        if x != y:
            return f"log[{i}]: fast {json.dumps(x)} != reference {json.dumps(y)}"
    return f"log lengths {len(a['log'])} != {len(b['log'])}"


@pytest.mark.parametrize("policy_name", ["random", "greedy"])
def test_fast_and_reference_traces_agree_and_replay(policy_name):
    policy = resolve_policy(policy_name)
    outcomes = set()
    for seed in range(SEEDS):
        fast = fast_trace(CARDS, policy, seed, seed % 7)
        ref = run_reference(CARDS, policy, seed, 1, seed % 7)[0]
        _assert_same_trace(fast, ref, f"seed {seed}")
        # the rules, and the shuffles of game g of the seed (the plain stream)
        assert replay(fast, check_deal=True) == {**fast["result"], "deal_of_seed": True,
                                                  "cards_of_set": True, "rules_as_named": True}
        outcomes.add(fast["result"]["outcome"])
    if policy_name == "greedy":
        assert outcomes == {"win", "loss"}, "the sample should hold wins and losses"


@pytest.mark.parametrize("policy_name", ["random", "greedy"])
@pytest.mark.parametrize("expansions", EXPANSION_SETS,
                         ids=["squares_metas", "chromatic_chaos", "temples_harmony",
                              "gardens_wizards", "all_four"])
def test_fast_and_reference_agree_with_expansions(expansions, policy_name):
    cards = CARDS.with_expansions(parse_expansions(expansions))
    policy = resolve_policy(policy_name).for_cards(cards)
    entries = set()
    for seed in range(EXPANSION_SEEDS):
        fast = fast_trace(cards, policy, seed, seed % 5)
        ref = run_reference(cards, policy, seed, 1, seed % 5)[0]
        _assert_same_trace(fast, ref, f"seed {seed}")
        # the rules, and the shuffles of game g of the seed (the plain stream)
        assert replay(fast, check_deal=True) == {**fast["result"], "deal_of_seed": True,
                                                  "cards_of_set": True, "rules_as_named": True}
        entries.update(_entry_kinds(fast))
    expected = {"chromatic_chaos": {"chromatic", "revealed"},
                "gardens_wizards": {"rebuild", "change_sides", "two_acts"},
                "squares_metas": {"meta_L", "meta_R"},
                "temples_harmony": {"harmony_L", "harmony_R"}}
    for name, kinds in expected.items():
        if name in expansions:
            assert kinds <= entries, f"the sample never reached {kinds - entries}"


#: Each of the last three expansions alone, all seven, and the team game with all seven
#: (issue: Expansions II); (expansions, variant).
LAST_SETS = [("books", "solo"), ("postcards", "solo"), ("emptiness", "solo"),
             ("all", "solo"), ("all", "team")]
#: Decisions and events the sample must reach, per expansion or variant.
LAST_EXPECTED = {
    "books": {"books_kept", "book", "prophecies"},
    "books+gardens_wizards": {"book_two"},
    "postcards": {"wise_chaos", "postcard_scored"},
    "emptiness": {"ally", "emptiness_card"},
    "team": {"swap_polarity", "seat_1"},
}


@pytest.mark.parametrize("expansions, variant", LAST_SETS,
                         ids=["books", "postcards", "emptiness", "all_seven", "team_all_seven"])
def test_fast_and_reference_agree_with_the_last_expansions_and_the_team_game(expansions,
                                                                             variant):
    """1,000 seeds a set, random play on even seeds and greedy on odd ones; each fast trace
    equals the reference trace and replays; the sample reaches every new decision."""
    cards = CARDS.with_expansions(parse_expansions(expansions)).with_variant(variant)
    policies = [resolve_policy(name).for_cards(cards) for name in ("random", "greedy")]
    reached = set()
    for seed in range(EXPANSION_SEEDS):
        policy = policies[seed % 2]
        fast = fast_trace(cards, policy, seed, seed % 3)
        ref = run_reference(cards, policy, seed, 1, seed % 3, variant=variant)[0]
        _assert_same_trace(fast, ref, f"seed {seed} {policy.name}")
        # the rules, and the shuffles of game g of the seed (the plain stream)
        assert replay(fast, check_deal=True) == {**fast["result"], "deal_of_seed": True,
                                                  "cards_of_set": True, "rules_as_named": True}
        reached.update(_last_kinds(fast))
    in_play = {*fast["expansions"], variant}
    wanted = set().union(*(kinds for name, kinds in LAST_EXPECTED.items()
                           if set(name.split("+")) <= in_play))
    assert wanted <= reached, f"the sample never reached {wanted - reached}"


def _last_kinds(trace: dict) -> set[str]:
    """The decisions and events of the last expansions a trace holds."""
    kinds = set()
    checks = [e["check"] for e in trace["log"] if "check" in e]
    for entry in trace["log"]:
        do = entry.get("do")
        if do == "books" and entry["keep"] > 0:
            kinds.add("books_kept")
        elif do == "swap_polarity":
            kinds.add("swap_polarity")
        elif entry.get("how") == "wise" or entry.get("wise"):
            kinds.add("wise_chaos")
        elif do == "act":
            books = [act["book"] for act in entry["acts"] if "book" in act]
            kinds.update({"book"} if books else set())
            kinds.update({"book_two"} if len(books) == 2 else set())
            kinds.update({"prophecies"} if "prophecies" in books else set())
            kinds.update({"ally"} if any("ally" in act for act in entry["acts"]) else set())
        if entry.get("seat") == 1:
            kinds.add("seat_1")
    if any(c.get("inhabitants", 0) != 0 for c in checks):
        kinds.add("postcard_scored")
    if any(c.get("emptiness", {}).get("cards", 8) < 8 for c in checks):
        kinds.add("emptiness_card")
    return kinds


def _entry_kinds(trace: dict) -> set[str]:
    """The expansion decisions a trace holds, to check the sample reaches them."""
    kinds = set()
    types = {c["id"]: c["type"] for c in trace["cards"]}
    for entry in trace["log"]:
        for row in entry.get("check", {}).get("rows", []):
            kinds.update(f"{types[c]}_{side}" for side in ("L", "R") for c in row[side])
        do = entry.get("do")
        if do in ("chromatic", "revealed"):
            kinds.add(do)
        elif do == "act":
            kinds.update(k for act in entry["acts"] for k in act)
            if len(entry["acts"]) == 2:
                kinds.add("two_acts")
    return kinds


def test_reference_engine_results_equal_fast_results():
    fast = analyzer.simulate(games=150, seed=31, policy="greedy", engine="fast")
    ref = analyzer.simulate(games=150, seed=31, policy="greedy", engine="reference")
    assert fast.equals(ref)


def test_a_log_that_fills_up_is_played_again_longer_and_keeps_its_last_entry(monkeypatch):
    """The fast engine writes its log into rows given in advance, and plays the game again
    with more when they run out. A log one row longer than its rows, or as long, or
    shorter by far, must give the reference's trace all the same: no entry lost at the
    end of the rows."""
    import numpy as np

    from analyzer.core.codes import N_RESULT, Info
    from analyzer.runner import tracing
    from analyzer.runner.local import one_game_kernel

    cards = CARDS.with_expansions(parse_expansions("all")).with_variant("team")
    policy = resolve_policy("greedy").for_cards(cards)
    seed, game = 3, 1
    ref = run_reference(cards, policy, seed, 1, game, variant="team")[0]
    g = one_game_kernel(policy)(policy.kernel_arg, policy.params, cards.cards,
                                cards.city_ids, cards.dream_ids, cards.rules, seed, game,
                                1 << 16, np.zeros(N_RESULT, dtype=np.int64))
    rows = int(g.info[Info.LOG_N])  # the rows the whole log takes
    for cap in (1, 7, (rows - 1) // 4, rows - 1, rows, rows + 1):
        monkeypatch.setattr(tracing, "FIRST_LOG_CAP", cap)
        assert fast_trace(cards, policy, seed, game) == ref, cap


def test_reference_engine_results_equal_fast_results_with_every_expansion_solo_and_team():
    """Every column of the results, the expansions' too: the fast engine's come from its
    kernel's rows, the reference engine's are counted from its traces."""
    counts, reached = None, set()
    for variant in ("solo", "team"):
        fast, ref = (analyzer.simulate(games=40, seed=7, policy="random", expansions="all",
                                       variant=variant, engine=engine)
                     for engine in ("fast", "reference"))
        assert fast.equals(ref), variant
        counts = fast.columns.drop(["game", "won", "reason"])
        reached |= {name for name in counts if (fast[name] != 0).any()}
    assert reached == set(counts)  # the sample tells every count from zero
