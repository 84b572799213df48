"""A cold start compiles a built-in policy in a second process beside the batch kernel."""

from __future__ import annotations

import os
import subprocess
import sys

import analyzer
from analyzer.cards import default_card_set
from analyzer.policies.registry import resolve_policy
from analyzer.runner.batch_nb import play_batch_nb
from analyzer.runner.local import batch_kernel_types, compile_kernels

CARDS = default_card_set()

# Run in a fresh process with an empty cache folder; prints what the parent process saw.
_COLD_START = """
import os, sys
os.cpu_count = lambda: 2  # the decision, not this machine, is under test
from analyzer.cards import default_card_set
from analyzer.policies.builtin_nb import BuiltinId, builtin_address
from analyzer.policies.random_nb import random_nb
from analyzer.runner import compile_aside
from analyzer.runner.batch_nb import play_batch_nb
from analyzer.runner.local import batch_kernel_types
if sys.argv[1] == "failing-child":
    compile_aside._CHILD_CODE = "raise SystemExit(3)"
cards = default_card_set()
kernel_types = batch_kernel_types(play_batch_nb, (
    __import__("numpy").zeros(0), cards.cards, cards.city_ids, cards.dream_ids,
    cards.rules, 0, 0, 0))
before = compile_aside.wants_child(BuiltinId.RANDOM, play_batch_nb, kernel_types)
with compile_aside.policy_compiled_aside(BuiltinId.RANDOM, play_batch_nb,
                                         kernel_types) as child:
    pass
builtin_address(BuiltinId.RANDOM)
after = compile_aside.wants_child(BuiltinId.RANDOM, play_batch_nb, kernel_types)
print(before, child is not None, child.returncode if child else None,
      sum(random_nb.stats.cache_hits.values()), sum(random_nb.stats.cache_misses.values()),
      after)
"""


def _cold_start(tmp_path, mode: str, **env) -> list[str]:
    base = {k: v for k, v in os.environ.items() if k != "URBION_NO_CACHE"}
    env = {**base, "URBION_CACHE_DIR": str(tmp_path), **env}
    proc = subprocess.run([sys.executable, "-c", _COLD_START, mode], capture_output=True,
                          text=True, env=env, check=True)
    return proc.stdout.split()


def test_a_cold_start_loads_the_policy_the_child_compiled(tmp_path):
    before, started, code, hits, misses, after = _cold_start(tmp_path, "child")
    assert (before, started, code) == ("True", "True", "0")
    assert (hits, misses) == ("1", "0")  # loaded from the child's cache entry, not compiled
    assert after == "False"  # once the policy is cached, no child is started


def test_a_failed_child_leaves_the_policy_to_this_process(tmp_path):
    before, started, code, hits, misses, _ = _cold_start(tmp_path, "failing-child")
    assert (before, started, code) == ("True", "True", "3")
    assert (hits, misses) == ("0", "1")


def test_no_child_without_a_disk_cache(tmp_path):
    before, started, _, hits, misses, _ = _cold_start(tmp_path, "child", URBION_NO_CACHE="1")
    assert (before, started) == ("False", "False")
    assert (hits, misses) == ("0", "1")


def test_the_kernel_is_compiled_ahead_for_the_types_a_run_calls_it_with():
    spec = resolve_policy("random")
    compile_kernels(CARDS, spec)
    args = (spec.params, CARDS.cards, CARDS.city_ids, CARDS.dream_ids, CARDS.rules, 0, 0, 0)
    assert batch_kernel_types(play_batch_nb, args) in play_batch_nb.overloads
    compiled = set(play_batch_nb.overloads)
    analyzer.simulate(games=20, seed=3, policy="random", workers=1)
    assert set(play_batch_nb.overloads) == compiled


def test_a_child_that_cannot_start_leaves_the_policy_to_this_process(monkeypatch):
    from analyzer.runner import compile_aside

    def no_process(*args, **kwargs):
        raise OSError("no process for you")

    monkeypatch.setattr(compile_aside, "wants_child", lambda *args: True)
    monkeypatch.setattr(compile_aside.subprocess, "Popen", no_process)
    with compile_aside.policy_compiled_aside(1, play_batch_nb, ()) as child:
        assert child is None
