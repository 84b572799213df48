"""Kernels compiled without reference counting (``borrowing_jit``, core/jit.py) stay sound.

A borrowing kernel must not return an array (its caller would free it early) and must not
keep an array a counting kernel returns (nothing would free it). A table on a kernel's
stack (core/scratch.py) is made in borrowing kernels only, so that it cannot be returned
either. numba refuses the rest (allocating, storing into ``g``) at compile time. One
process, with no disk cache so that every kernel is compiled and can be inspected, compiles
the engine for each kind of policy (a built-in's address, greedy linked into a search
policy, a user's jitted function, the traced game), checks every compiled kernel's types,
then plays games of every rule, bounds checked, and counts numba's allocations: each must
be freed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from analyzer.cards import default_card_set
from analyzer.core.codes import Info
from analyzer.core.jit import borrowing_jit
from analyzer.rules.state_nb import new_game_nb

ROOT = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent('''
    import gc, json, sys
    from numba.core import types
    from numba.core.runtime import rtsys
    import analyzer
    from analyzer.core.jit import KernelDispatcher

    def holds_array(cres, typ):
        return cres.target_context.data_model_manager[typ].contains_nrt_meminfo()

    def faults(dispatcher):
        """Returned arrays, and arrays kept from a counting kernel's call."""
        found = []
        for cres in list(dispatcher.overloads.values()):
            name = dispatcher.py_func.__qualname__
            if holds_array(cres, cres.signature.return_type):
                found.append(f"{name} returns {cres.signature.return_type}")
            typemap = cres.type_annotation.typemap
            for expr, sig in cres.type_annotation.calltypes.items():
                if getattr(expr, "op", None) != "call" or sig is None:
                    continue
                callee = typemap[expr.func.name]
                kernel = isinstance(callee, (types.Dispatcher, types.RecursiveCall))
                if kernel and holds_array(cres, sig.return_type):
                    found.append(f"{name} keeps {sig.return_type} from {expr.loc.short()}")
        return found

    def makes_stack_tables(dispatcher):
        return any("stack_array" in str(cres.type_annotation.typemap.get(expr.func.name))
                   for cres in list(dispatcher.overloads.values())
                   for expr in cres.type_annotation.calltypes
                   if getattr(expr, "op", None) == "call")

    games = []
    for policy in ("random", "greedy", "search:rollouts=1,candidates=2", sys.argv[1]):
        for expansions, variant in ((None, "solo"), ("all", "solo"), ("all", "team")):
            n = 3 if policy.startswith("search") else 300
            games.append((policy, expansions, variant, n))
    for policy, expansions, variant, _ in games:  # compile everything first
        analyzer.simulate(games=2, policy=policy, expansions=expansions, variant=variant,
                          workers=1)
    analyzer.trace(seed=0, game=0, games=2, expansions="all", variant="team")
    kernels = [d for d in gc.get_objects() if isinstance(d, KernelDispatcher)]
    borrowing = [d for d in kernels if d.targetoptions.get("_nrt") is False]
    found = [f for d in borrowing for f in faults(d)]
    # a stack table lives in a borrowing kernel only, so that it cannot be returned
    found += [f"{d.py_func.__qualname__} makes a stack table but counts references"
              for d in kernels if d not in borrowing and makes_stack_tables(d)]
    stats = {}
    for policy, expansions, variant, n in games:
        before = rtsys.get_allocation_stats()
        df = analyzer.simulate(games=n, seed=1, policy=policy, expansions=expansions,
                               variant=variant, workers=1)
        traces = analyzer.trace(seed=1, game=0, games=2, policy=policy,
                                expansions=expansions, variant=variant)
        del df, traces
        gc.collect()
        after = rtsys.get_allocation_stats()
        stats[f"{policy} {expansions} {variant}"] = [after.alloc - before.alloc,
                                                    after.free - before.free]
    print(json.dumps({"borrowing": sorted({d.py_func.__qualname__ for d in borrowing}),
                      "stack_tables": sorted({d.py_func.__qualname__ for d in kernels
                                              if makes_stack_tables(d)}),
                      "overloads": sum(len(d.overloads) for d in borrowing),
                      "faults": found, "allocations": stats}))
''')

USER_POLICY = textwrap.dedent('''
    import numba

    @numba.njit
    def last(kind, options, n_options, state, cards, params, rng):
        return n_options - 1
''')


def _probe(tmp_path) -> dict:
    (tmp_path / "last_option.py").write_text(USER_POLICY)
    # bounds checked: a table on the stack sized for fewer entries than a rule writes
    # would overwrite the kernel's frame instead of raising
    env = {**os.environ, "URBION_NO_CACHE": "1", "NUMBA_NRT_STATS": "1",
           "NUMBA_BOUNDSCHECK": "1"}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "last_option.py:last")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_borrowing_kernels_return_and_keep_no_array_and_every_allocation_is_freed(tmp_path):
    report = _probe(tmp_path)
    # the scan saw the rules kernels, the random streams and greedy's helpers
    assert {"play_game_nb", "resolve_draw_chaos_nb", "shuffle_nb",
            "phase1_scores_nb"} <= set(report["borrowing"])
    # each kind of policy compiles the kernels that take it once (249 overloads here; a
    # user's policy file loaded again used to compile them all again)
    assert report["overloads"] > 200
    assert {"census_nb", "team_scores_nb", "best_exchange_nb"} <= set(report["stack_tables"])
    assert report["faults"] == []
    for run, (allocated, freed) in report["allocations"].items():
        assert allocated > 0, run
        assert allocated == freed, run


@borrowing_jit
def _turn_of(g):
    return g.info[Info.TURN]


@borrowing_jit
def _turn_through_a_callee(g):
    return _turn_of_callee(g)


@borrowing_jit
def _turn_of_callee(g):
    return g.info[Info.TURN]


def test_a_game_passed_from_python_to_a_borrowing_kernel_is_not_kept():
    """The wrapper of a kernel compiled without counting takes a reference to the game
    and must give it back, whether Python compiled the kernel or a caller did first."""
    g = new_game_nb(default_card_set().cards.shape[0], 0, 0, 0, np.zeros(0))
    _turn_through_a_callee(g)  # compiles _turn_of_callee as a callee first
    before = g._meminfo.refcount
    for _ in range(50):
        assert _turn_of(g) == 0
        assert _turn_of_callee(g) == 0
    assert g._meminfo.refcount == before
