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


@pytest.mark.parametrize("variant", ["solo", "team"])
def test_search_uses_its_play_outs(variant):
    # with one candidate, search is weighted (in the team game too, whose candidates count
    # the partner's hand); with more it departs from it somewhere
    greedy = analyzer.simulate(games=80, seed=3, policy="weighted", variant=variant)
    one = analyzer.simulate(games=80, seed=3, policy="search:candidates=1,rollouts=1",
                            variant=variant)
    more = analyzer.simulate(games=80, seed=3, policy="search:candidates=4,rollouts=2",
                             variant=variant)
    assert one.drop(columns="game").equals(greedy.drop(columns="game"))
    assert not more["turns"].equals(greedy["turns"])


@pytest.mark.parametrize("name, message", [
    ("search:rollouts=0", "rollouts must be a whole number from 1"),
    ("search:depth=3", "unknown option 'depth'"),
    ("clairvoyant:candidates=x", "candidates must be a whole number"),
    ("search:rollouts=\u00b2", "rollouts must be a whole number"),
    # the true deck order plays out the same at every rollout
    ("clairvoyant:rollouts=3", "unknown option 'rollouts' \\(valid: candidates, weights\\)"),
    # a later value silently winning would hide a typo
    ("search:rollouts=2,rollouts=3", "rollouts is given twice in 'rollouts=2,rollouts=3'"),
    ("search:", "policy 'search:' gives no options: search, or "
                "search:rollouts=N,candidates=N,weights=FILE.toml"),
    ("clairvoyant:", "clairvoyant, or clairvoyant:candidates=N,weights=FILE.toml"),
    ("search:weights=", "policy search: weights names no weights file \\(weights=FILE.toml\\)"),
    ("search:weights=no-such.toml", "cannot read weights file no-such.toml"),
    ("weighted:weights=w.toml", "weighted takes its weights file as weighted:FILE.toml "
                                "\\(weights=FILE.toml is an option of search"),
    ("search:,", "policy 'search:,' gives no options"),
    ("search: ", "policy 'search: ' gives no options"),
    # no "=": a module named search could have had it, but none is found
    ("search:deep", "policy search takes options as search:rollouts=N,candidates=N,"
                    "weights=FILE.toml, not "
                    "'deep'; nor is there a module search with a function deep"),
    # a function's name holds no "=": these are options, not MODULE:FUNCTION
    ("greedy:foo=1", "policy greedy takes no options"),
    ("random:rollouts=2", "policy random takes no options .*weighted:FILE.toml"),
    # no "=": it could have been a module of that name, but none is found
    ("greedy:foo", "policy greedy takes no options .*, not 'foo'; nor is there a module "
                   "greedy with a function foo"),
])
def test_bad_search_options_are_refused(name, message):
    with pytest.raises(PolicyError, match=message):
        resolve_policy(name)


def test_search_takes_each_option_up_to_its_documented_limit():
    """rollouts 1-4,096 and candidates 1-1,024 (docs/policies.md): the largest of each is a
    policy of its own, one more is refused; clairvoyant's default is every candidate."""
    largest = resolve_policy("search:rollouts=4096,candidates=1024")
    assert largest.name == "search:rollouts=4096,candidates=1024"
    assert largest.params[-2:].tolist() == [4096.0, 1024.0]
    assert resolve_policy("clairvoyant:candidates=1024").name == "clairvoyant"
    with pytest.raises(PolicyError, match="rollouts must be a whole number from 1 to 4096, "
                                          "not '4097'"):
        resolve_policy("search:rollouts=4097")
    with pytest.raises(PolicyError, match="candidates must be a whole number from 1 to 1024, "
                                          "not '1025'"):
        resolve_policy("clairvoyant:candidates=1025")


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


def test_search_looks_ahead_with_the_weights_file_it_is_given(tmp_path, capsys):
    """search:weights=FILE follows weighted:FILE: with one candidate it plays its games;
    the name is one for one policy; notes and shared pages treat the file as weighted's."""
    from analyzer.policies.registry import portable_name
    from analyzer.reporting.names import shared_policy
    from tests.test_cli import run

    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nTURN = 40.0\nSETUP = 2.0\n")
    mine = analyzer.simulate(games=40, seed=3, policy=f"weighted:{weights}")
    alone = analyzer.simulate(games=40, seed=3,
                              policy=f"search:candidates=1,weights={weights}")
    shipped = analyzer.simulate(games=40, seed=3, policy="weighted")
    assert alone.drop(columns="game").equals(mine.drop(columns="game"))
    assert not mine["turns"].equals(shipped["turns"])  # the file's weights play otherwise
    spelt = resolve_policy(f"search:rollouts=8,candidates=3,weights={weights}")
    assert spelt.name == f"search:weights={weights}"
    assert resolve_policy(f"search:rollouts=2,weights={weights}").name == \
        f"search:rollouts=2,candidates=3,weights={weights}"
    assert shared_policy(f"clairvoyant:weights={weights}") == "clairvoyant:weights=w.toml"
    assert portable_name("search:rollouts=2,weights=w.toml") == \
        "search:rollouts=2,weights=w.toml"  # no such file here: left for the worker to say
    # a file tuned elsewhere is noted as for weighted:FILE; no note on shipped weights
    from tests.test_duel_tune import _tuned_file

    tuned = _tuned_file(tmp_path / "cc.toml").removeprefix("weighted:")
    code, out, err = run(capsys, "simulate", "--games", "3", "--policy",
                         f"search:candidates=2,rollouts=1,weights={tuned}", "--quiet")
    assert code == 0, err
    assert "were tuned elsewhere: here expansions none (tuned on chromatic_chaos)" in out
    assert "shipped weights" not in out
    # the shipped weights' tuning games, which search looks ahead with, are noted
    lookahead = analyzer.simulate(games=2, seed=2026, policy="search:rollouts=1,candidates=2")
    assert "2 of these games (games 0-1 of seed 2026) are among those the weights of " \
        "search:rollouts=1,candidates=2 were tuned on" in analyzer.weights_note(lookahead)
