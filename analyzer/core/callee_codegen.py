"""Code generation for kernels compiled as another kernel's callee.

numba optimizes and emits machine code for every kernel it compiles, then links that
optimized code into each caller, which optimizes and emits it again. The rules kernels form
a chain about ten calls deep from the batch down to a Phase I option, so the code at the
bottom was optimized and emitted about ten times, and LLVM spent most of a cold start on
machine code that nothing ever called: only the entry kernels are called from Python.

A kernel compiled while another kernel is being typed gets a ``CalleeLibrary`` instead: its
LLVM module is linked into callers as it comes out of lowering (with numba's per-function
passes), and LLVM optimizes the whole chain once, in the entry kernel. The wrapper Python
calls a kernel through, and the machine code behind it, are made only if Python calls the
callee directly (tests do), on that first call.
Optimizing the chain once or at every level gives the same program: LLVM's passes keep the
semantics of the IR, floating point included (the kernels use no fast-math).

Importing this module wraps the last step of numba's ``JITCodeLibrary`` emission for every
library in the process: a library compiled by numba itself (a user's policy) may link
deferred callees, whose environments and recursive-call targets must be set up with it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from numba.core import compiler, typed_passes
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock
from numba.core.compiler_machinery import register_pass
from numba.core.environment import lookup_environment

_STATE = threading.local()


def typing_a_call() -> bool:
    """Whether a kernel is being compiled for a call from another kernel's typing."""
    return getattr(_STATE, "typing_depth", 0) > 0


@contextmanager
def typing_call() -> Iterator[None]:
    """Mark the compiles started inside as callees of the kernel being typed."""
    _STATE.typing_depth = getattr(_STATE, "typing_depth", 0) + 1
    try:
        yield
    finally:
        _STATE.typing_depth -= 1


@contextmanager
def python_call() -> Iterator[None]:
    """Mark a compile asked for by a call from Python (even from within a kernel's typing,
    as an overload's typing function may make): its result must be callable."""
    depth = getattr(_STATE, "typing_depth", 0)
    _STATE.typing_depth = 0
    try:
        yield
    finally:
        _STATE.typing_depth = depth


@contextmanager
def lowering_as_callee(deferred: bool) -> Iterator[None]:
    """Tell the lowering pass of the compile started inside whether to defer its code.

    Compiles nest (typing a kernel compiles its callees first), and each pops its own value
    before the enclosing kernel is lowered, so the top of the stack is always the value of
    the compile being lowered.
    """
    stack = _STATE.__dict__.setdefault("deferred", [])
    stack.append(deferred)
    try:
        yield
    finally:
        stack.pop()


def _lowering_deferred() -> bool:
    stack = getattr(_STATE, "deferred", None)
    return bool(stack and stack[-1])


#: Deferred callees by the symbol of their function, for ``emit_run_time_targets``.
_DEFERRED_BY_SYMBOL: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
#: The environment globals of deferred callees, for ``set_callee_envs``.
_DEFERRED_ENV_NAMES: set[str] = set()


def emit_run_time_targets(codegen) -> None:
    """Emit the deferred callees that code in the engine calls through the run-time linker.

    numba compiles a call to a kernel that is still being compiled (a search policy plays
    turns inside a turn) as a load from a cell, filled when the engine defines the
    target's symbol. A deferred callee defines nothing until emitted.
    """
    for symbol in list(codegen._rtlinker._unresolved):
        library = _DEFERRED_BY_SYMBOL.get(symbol)
        if library is not None:
            library.emit()


def set_callee_envs(library: JITCodeLibrary) -> None:
    """Point the environment globals of deferred callees in ``library`` at their
    environments.

    numba sets a function's environment (what ``print`` and object-mode blocks reach Python
    through) right after emitting it, and code linked elsewhere shares that global; a
    deferred callee's global is first emitted in a caller, so it is set there.
    """
    for gv in library._final_module.global_variables:
        if gv.name in _DEFERRED_ENV_NAMES and not gv.is_declaration:
            env = lookup_environment(gv.name)
            if env is not None:
                library.codegen.set_env(gv.name, env)


_numba_finalize_specific = JITCodeLibrary._finalize_specific


def _finalize_specific(self: JITCodeLibrary) -> None:
    """numba's last step of emitting a library, then what deferred callees linked into it
    need. Every library, not only the package's: a user's policy compiled by numba calls
    the package's kernels."""
    _numba_finalize_specific(self)
    if _DEFERRED_ENV_NAMES:
        set_callee_envs(self)
        emit_run_time_targets(self._codegen)


JITCodeLibrary._finalize_specific = _finalize_specific


class KernelLibrary(JITCodeLibrary):
    """numba's code library, optimizing callee code linked into it once more."""

    def _optimize_final_module(self) -> None:
        super()._optimize_final_module()
        if any(isinstance(library, CalleeLibrary) for library in self._linking_libraries):
            # numba optimized a callee at every level of the chain; optimized once, a
            # chain kept 4% more reference counts per game, and one more pass takes out
            # all but 1% of them for a tenth of the time saved
            manager, builder = self._codegen._module_pass_manager()
            manager.run(self._final_module, builder)


class CalleeLibrary(KernelLibrary):
    """A code library linked into callers unoptimized; optimized and emitted on demand."""

    _emitted = False
    #: True when the callee's CPython wrapper was left out, to be built on a call from
    #: Python (python_entry_library)
    wrapper_deferred = False

    def finalize(self) -> None:
        """Link the libraries this one calls, and close it to additions."""
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = True

    def emit(self) -> None:
        """Optimize the linked module and emit its machine code, once. Takes numba's
        compiler lock (reentrant): inspecting a callee's code may come from outside it."""
        with global_compiler_lock:
            self._ensure_finalized()
            if self._emitted:
                return
            self._emitted = True
            self._optimize_final_module()
            self._final_module.verify()
            self._finalize_final_module()

    def get_pointer_to_function(self, name: str) -> int:
        self.emit()
        return super().get_pointer_to_function(name)

    def get_asm_str(self) -> str:
        self.emit()
        return super().get_asm_str()

    def get_llvm_str(self) -> str:
        # inspect_llvm shows the optimized module, as for any other kernel
        self.emit()
        return super().get_llvm_str()

    def serialize_using_object_code(self):
        self.emit()
        return super().serialize_using_object_code()


def _no_wrapper(*args, **kws) -> None:
    """Stands for the context's ``create_cpython_wrapper`` while a callee is lowered."""


def counting_context(context):
    """``context``, or a copy of it that counts references.

    The wrapper Python calls a kernel through takes a reference to a StructRef argument (a
    game) and gives it back only with counting on: a kernel compiled without counting
    (core/jit.py, ``borrowing_jit``) gets its wrapper from this copy, else each call from
    Python would keep its game alive for good.
    """
    return context if context.enable_nrt else context.subtarget(enable_nrt=True)


def python_entry_library(cres: compiler.CompileResult, release_gil: bool) -> KernelLibrary:
    """The library Python calls the deferred callee compiled as ``cres`` through: its own
    when that holds the CPython wrapper, else a new one holding the wrapper, built now, with
    the callee's code linked in."""
    if not getattr(cres.library, "wrapper_deferred", False):
        return cres.library
    context = counting_context(cres.target_context)
    library = KernelLibrary(context.codegen(), f"{cres.fndesc.qualname}.python_entry")
    # as numba's lowering does: boxing a value may link in code of its own
    with context.push_code_library(library):
        context.create_cpython_wrapper(library, cres.fndesc, cres.environment,
                                       cres.call_helper, release_gil=release_gil)
    library.add_linking_library(cres.library)
    return library


class DeferredEntry:
    """Stands for a callee's Python entry point until Python first calls it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<deferred entry of {self.name}>"


class _SymbolFlags(compiler.Flags):
    """A kernel's flags, mangled into its symbol as if it counted references.

    numba names the target of a recursive call (a search policy plays turns inside a turn)
    with the caller's flags, so a counting kernel calling a borrowing one (core/jit.py,
    ``borrowing_jit``) named a symbol that never existed. A dispatcher compiles with one
    setting only, so no two versions of a kernel share a symbol.
    """

    def get_mangle_string(self) -> str:
        counted = compiler.Flags(self)
        counted.nrt = True
        return counted.get_mangle_string()


@register_pass(mutates_CFG=True, analysis_only=False)
class CalleeLowering(typed_passes.NativeLowering):
    """numba's native lowering into a ``KernelLibrary``; a callee's is a ``CalleeLibrary``,
    not emitted."""

    _name = "urbion_callee_lowering"

    def run_pass(self, state) -> bool:
        flags = state.flags
        state.flags = _SymbolFlags(flags)
        try:
            return self._lower(state)
        finally:
            state.flags = flags

    def _lower(self, state) -> bool:
        deferred = _lowering_deferred()
        if state.library is None:
            library_class = CalleeLibrary if deferred else KernelLibrary
            state.library = library_class(state.targetctx.codegen(), state.func_id.func_qualname)
            # as numba does, so that the library can be cached
            state.library.enable_object_caching()
        if not deferred:
            # the context is this compile's own copy
            state.targetctx.create_cpython_wrapper = \
                counting_context(state.targetctx).create_cpython_wrapper
            try:
                return super().run_pass(state)
            finally:
                state.targetctx.__dict__.pop("create_cpython_wrapper", None)
        entry = DeferredEntry(state.func_id.func_qualname)
        # numba lowers, then takes the executable it registers for callers: here the
        # placeholder. The context is this compile's own copy. (Its symbol is mangled from
        # the flags as ``_SymbolFlags`` gives them: a recursive call names it so.)
        state.targetctx.get_executable = lambda library, fndesc, env: entry
        # the wrapper that Python calls through waits for a call from Python
        # (python_entry_library): for callees it was a tenth of the compile time. A
        # generator has a second wrapper, for its generator object: built as numba does.
        state.library.wrapper_deferred = not state.func_ir.is_generator
        if state.library.wrapper_deferred:
            state.targetctx.create_cpython_wrapper = _no_wrapper
        try:
            super().run_pass(state)
        finally:
            del state.targetctx.get_executable
            state.targetctx.__dict__.pop("create_cpython_wrapper", None)
        lowered = state["cr"]
        _DEFERRED_BY_SYMBOL[lowered.fndesc.mangled_name] = state.library
        _DEFERRED_ENV_NAMES.add(lowered.fndesc.env_name)
        return True


class KernelCompiler(compiler.Compiler):
    """numba's nopython pipeline with ``CalleeLowering`` for its native lowering."""

    def define_pipelines(self):
        pipelines = super().define_pipelines()
        for manager in pipelines:
            manager.passes = [(CalleeLowering if pass_ is typed_passes.NativeLowering else pass_,
                               description) for pass_, description in manager.passes]
        return pipelines
