"""The fast engine against the plain reference engine: the same trace for the same seed.

This is the project's most important test: the reference is written for clarity from the
rulebook and RULINGS.md and shares no rules code with the kernels (docs/engine.md).
"""

from __future__ import annotations

import json

import pytest

import analyzer
from analyzer.cards import default_card_set
from analyzer.policies.registry import resolve_policy
from analyzer.reference import replay
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.tracing import fast_trace

CARDS = default_card_set()
SEEDS = 2000


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
        assert fast == ref, f"seed {seed}: {_first_difference(fast, ref)}"
        assert replay(fast) == fast["result"]
        outcomes.add(fast["result"]["outcome"])
    if policy_name == "greedy":
        assert outcomes == {"win", "loss"}, "the sample should hold wins and losses"


def test_reference_engine_results_equal_fast_results():
    fast = analyzer.simulate(games=150, seed=31, policy="greedy", engine="fast")
    ref = analyzer.simulate(games=150, seed=31, policy="greedy", engine="reference")
    assert fast.equals(ref)
