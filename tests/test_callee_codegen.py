"""Callee kernels are linked into their callers and emitted only on demand
(analyzer/core/callee_codegen.py)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numba
from numba.core import types

from analyzer.core.callee_codegen import CalleeLibrary, DeferredEntry, KernelLibrary
from analyzer.core.jit import jit


def _chain():
    """Three kernels, each calling the next. A new chain for each test that needs one
    whose callees are not emitted yet."""
    @jit
    def leaf(x):
        return x + 1

    @jit
    def middle(x):
        return leaf(x) * 2

    @jit
    def entry(x):
        return middle(x) - 3

    return entry, middle, leaf


_entry, _middle, _leaf = _chain()
_inspected_entry, _inspected_middle, _ = _chain()


def _cycle():
    """Two kernels calling each other; numba types the call back while the first is still
    being compiled, and calls it through its run-time linker. A new pair for each test."""
    @jit
    def down(n):
        if n <= 0:
            return 0
        return 1 + up(n - 1)

    @jit
    def up(n):
        return down(n)

    return down, up


_countdown, _bounce = _cycle()
_down, _up = _cycle()
_down_again, _up_again = _cycle()


@jit
def _recursive_entry(n):
    return _countdown(n)


@numba.njit
def _plain_numba_entry(n):
    # a user's policy is compiled by numba itself
    return _down_again(n)


@jit
def _pair_with_flag(x):
    # boxing the literal True reaches a context implementation, which links code
    return (x, True)


@jit
def _first_of_pair(x):
    return _pair_with_flag(x)[0]


@jit
def _frozen_leaf(x):
    return x - 1


@jit
def _frozen_entry(x):
    return _frozen_leaf(x) * 3


def _defines(library, symbol: str) -> bool:
    return any(f.name == symbol and not f.is_declaration
               for f in library._final_module.functions)


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
        assert not _defines(callee.library, callee.fndesc.llvm_cpython_wrapper_name)
    # the entry's machine code holds the whole chain: nothing else was emitted to run it
    assert _entry(-2) == -5


def test_a_callee_called_from_python_gets_its_wrapper_on_its_first_call():
    assert _entry(1) == 1
    assert _middle(4) == 10
    middle = _library(_middle)
    assert not isinstance(middle.entry_point, DeferredEntry)
    assert middle.entry_point.__name__ == "middle"
    # from now on inspecting it shows the wrapper, as for any kernel
    (ir,) = _middle.inspect_llvm().values()
    assert middle.fndesc.llvm_cpython_wrapper_name in ir


def test_a_callee_wrapper_built_late_can_box_a_literal():
    assert _first_of_pair(4) == 4
    assert _pair_with_flag(2) == (2, True)


def test_a_generator_callee_called_from_python_yields(tmp_path):
    # a generator has two wrappers; leaving out one of them crashed the interpreter, so
    # the check runs in a child process
    (tmp_path / "counting.py").write_text(textwrap.dedent("""
        from analyzer.core.jit import jit

        @jit
        def count_up(n):
            for i in range(n):
                yield i

        @jit
        def total(n):
            s = 0
            for i in count_up(n):
                s += i
            return s

        print(total(4), list(count_up(3)))
    """))
    child = subprocess.run([sys.executable, str(tmp_path / "counting.py")], capture_output=True,
                           text=True, timeout=300, cwd=tmp_path)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "6 [0, 1, 2]"


def test_the_target_of_a_recursive_call_is_emitted_for_the_run_time_linker():
    # without the target in the engine this aborts with "unresolved symbol"
    assert _recursive_entry(7) == 7
    assert _library(_countdown).library._emitted
    assert not _library(_bounce).library._emitted


def test_a_callee_that_prints_reaches_python_through_its_environment(tmp_path):
    # print in nopython code goes through the function's environment; with a callee's
    # environment left unset the entry kernel hung, so the check runs in a child process
    (tmp_path / "noisy.py").write_text(textwrap.dedent("""
        from analyzer.core.jit import jit

        @jit
        def say(x):
            print("callee says", x)
            return x + 1

        @jit
        def entry(x):
            return say(x) * 2

        print("entry gives", entry(3))
    """))
    child = subprocess.run([sys.executable, str(tmp_path / "noisy.py")], capture_output=True,
                           text=True, timeout=300, cwd=tmp_path)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split("\n")[:2] == ["callee says 3", "entry gives 8"]


def test_a_recursive_kernel_called_from_python_finds_its_deferred_partner():
    # _up is deferred and calls _down, being compiled for Python, through the run-time
    # linker: by the symbol _down has, which must not depend on deferring
    assert _down(6) == 6


def test_a_kernel_compiled_by_numba_itself_runs_deferred_callees_in_a_cycle():
    assert _plain_numba_entry(4) == 4


def test_a_callee_stays_callable_from_python_after_compilation_is_disabled():
    # with compilation disabled numba looks up emitted entries only: the callee's is
    # emitted when compilation is disabled
    assert _frozen_entry(2) == 3
    assert isinstance(_library(_frozen_leaf).entry_point, DeferredEntry)
    _frozen_leaf.disable_compile()
    assert _frozen_leaf(5) == 4
    assert _frozen_leaf.signatures == [(types.int64,)]


def test_inspect_llvm_on_a_callee_shows_its_optimized_module():
    assert _inspected_entry(1) == 1
    assert not _library(_inspected_middle).library._emitted
    (ir,) = _inspected_middle.inspect_llvm().values()
    functions = {re.search(r"@(\S+?)\(", block).group(1): block.split("\n}")[0]
                 for block in ir.split("\ndefine ")[1:]}
    (kernel,) = [body for name, body in functions.items()
                 if "middle" in name and not name.startswith("_ZN7cpython")]
    # the module optimized as a whole: the call to the leaf is inlined
    assert "leaf" not in kernel
    assert "call " not in kernel
