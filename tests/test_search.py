"""search and clairvoyant: play-outs from a copy of the game, reproducible and legal."""

from __future__ import annotations

import numpy as np
import pytest

import analyzer
from analyzer.errors import PolicyError
from analyzer.policies.registry import BUILTIN_POLICIES, resolve_policy
from analyzer.reference import replay

SEARCH_POLICIES = ["search:rollouts=2,candidates=3", "clairvoyant:candidates=6"]


def value(df):
    """The play-out value of each game: a win counts 1, each city pacified 0.01."""
    return df["won"].astype(float).to_numpy() + 0.01 * df["pacified"].to_numpy()


def test_clairvoyant_never_does_worse_than_weighted_on_a_deal():
    # It takes weighted's option unless a play-out with weighted after it does better, and
    # so at every later decision: on each deal its value is at least weighted's.
    clairvoyant = analyzer.simulate(games=150, seed=31, policy="clairvoyant")
    weighted = analyzer.simulate(games=150, seed=31, policy="weighted")
    assert np.all(value(clairvoyant) >= value(weighted) - 1e-12)
    assert clairvoyant["won"].sum() > weighted["won"].sum()


@pytest.mark.parametrize("name", SEARCH_POLICIES)
def test_search_results_do_not_depend_on_workers(name):
    one = analyzer.simulate(games=60, seed=8, policy=name, workers=1)
    two = analyzer.simulate(games=60, seed=8, policy=name, workers=2, chunk=25)
    assert one.equals(two)
    alone = analyzer.simulate(games=1, seed=8, policy=name, first_game=41)
    assert alone.iloc[0].drop("game").equals(one.iloc[41].drop("game"))


@pytest.mark.parametrize("name", SEARCH_POLICIES)
def test_search_traces_replay_as_legal_games(name):
    for trace in analyzer.trace(seed=5, game=0, games=4, policy=name):
        assert trace["policy"] == resolve_policy(name).name
        replay(trace)  # raises on any illegal decision or wrong result


def test_search_uses_its_play_outs():
    # with one candidate, search is weighted; with more it departs from it somewhere
    greedy = analyzer.simulate(games=80, seed=3, policy="weighted")
    one = analyzer.simulate(games=80, seed=3, policy="search:candidates=1,rollouts=1")
    more = analyzer.simulate(games=80, seed=3, policy="search:candidates=4,rollouts=2")
    assert one.equals(greedy)
    assert not more["turns"].equals(greedy["turns"])


@pytest.mark.parametrize("name, message", [
    ("search:rollouts=0", "rollouts must be a whole number from 1"),
    ("search:depth=3", "unknown option 'depth'"),
    ("clairvoyant:candidates=x", "candidates must be a whole number"),
    ("search:rollouts=\u00b2", "rollouts must be a whole number"),
    # the true deck order plays out the same at every rollout
    ("clairvoyant:rollouts=3", "unknown option 'rollouts' \\(valid: candidates\\)"),
    # a later value silently winning would hide a typo
    ("search:rollouts=2,rollouts=3", "rollouts is given twice in 'rollouts=2,rollouts=3'"),
    ("search:", "policy 'search:' gives no options: search, or "
                "search:rollouts=N,candidates=N"),
    ("clairvoyant:", "clairvoyant, or clairvoyant:candidates=N"),
    ("search:,", "policy 'search:,' gives no options"),
    ("search: ", "policy 'search: ' gives no options"),
    # no "=": a module named search could have had it, but none is found
    ("search:deep", "policy search takes options as search:rollouts=N,candidates=N, not "
                    "'deep'; nor is there a module search with a function deep"),
    # a function's name holds no "=": these are options, not MODULE:FUNCTION
    ("greedy:foo=1", "policy greedy takes no options"),
    ("random:rollouts=2", "policy random takes no options"),
    # no "=": it could have been a module of that name, but none is found
    ("greedy:foo", "policy greedy takes no options .*, not 'foo'; nor is there a module "
                   "greedy with a function foo"),
])
def test_bad_search_options_are_refused(name, message):
    with pytest.raises(PolicyError, match=message):
        resolve_policy(name)


def test_search_plays_on_the_fast_engine_only():
    with pytest.raises(PolicyError, match="fast engine only"):
        analyzer.simulate(games=2, policy="search", engine="reference")


@pytest.mark.parametrize("name", sorted(BUILTIN_POLICIES))
def test_every_builtin_plays_200_games_without_an_illegal_decision(name):
    spec = resolve_policy(name)
    fast_name = name if name not in ("search", "clairvoyant") else {
        "search": "search:rollouts=2", "clairvoyant": "clairvoyant:candidates=4"}[name]
    df = analyzer.simulate(games=200, seed=12, policy=fast_name)
    assert len(df) == 200 and df["reason"].isin(["all_pacified", "deck_empty"]).all()
    if spec.reference_ok:
        ref = analyzer.simulate(games=200, seed=12, policy=name, engine="reference")
        assert ref.equals(df)
