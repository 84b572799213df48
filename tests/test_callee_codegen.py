"""Callee kernels are linked into their callers and emitted only on demand
(analyzer/core/callee_codegen.py)."""

from __future__ import annotations

from numba.core import types

from analyzer.core.callee_codegen import CalleeLibrary, DeferredEntry, KernelLibrary
from analyzer.core.jit import jit


@jit
def _leaf(x):
    return x + 1


@jit
def _middle(x):
    return _leaf(x) * 2


@jit
def _entry(x):
    return _middle(x) - 3


@jit
def _countdown(n):
    if n <= 0:
        return 0
    return 1 + _bounce(n - 1)


@jit
def _bounce(n):
    # typed while _countdown is being compiled: numba calls it through its run-time linker
    return _countdown(n)


@jit
def _recursive_entry(n):
    return _countdown(n)


def _library(kernel):
    (cres,) = kernel.overloads.values()
    return cres


def test_callees_are_linked_into_the_entry_and_not_emitted():
    assert _entry(5) == 9
    entry, middle, leaf = _library(_entry), _library(_middle), _library(_leaf)
    assert type(entry.library) is KernelLibrary
    for callee in (middle, leaf):
        assert isinstance(callee.library, CalleeLibrary)
        assert not callee.library._emitted
        assert isinstance(callee.entry_point, DeferredEntry)
    # the entry's machine code holds the whole chain: nothing else was emitted to run it
    assert _entry(-2) == -5


def test_a_callee_called_from_python_is_emitted_on_its_first_call():
    assert _entry(1) == 1
    assert _middle(4) == 10
    assert _library(_middle).library._emitted
    assert not isinstance(_library(_middle).entry_point, DeferredEntry)
    assert _middle(0) == 2  # now from numba's table of compiled entries
    assert _middle.signatures == [(types.int64,)]


def test_the_target_of_a_recursive_call_is_emitted_for_the_run_time_linker():
    # without the target in the engine this aborts with "unresolved symbol"
    assert _recursive_entry(7) == 7
    assert _library(_countdown).library._emitted
    assert not _library(_bounce).library._emitted
