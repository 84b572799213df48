"""Numba jit options, defined once for every kernel in the package.

Kernels are compiled in memory (``jit``), except the entry kernels for the built-in
policies and those policies themselves (``cached_jit``): they take no callable argument, so
numba can cache them on disk and a warm start costs about a second instead of half a minute.

A kernel compiled for another kernel's call is linked into that caller as it comes out of
lowering and gets machine code of its own only if Python calls it (core/callee_codegen.py):
LLVM optimizes the whole chain once, in the entry kernel.

Numba keys a cache entry by the kernel's own source file only, so a change to a helper in
another module would leave a stale entry behind. The package's kernels are therefore cached
in a folder keyed by a hash of every source file compiled into them, through a cache
locator that applies to this package's files only (other libraries' numba caches are left
alone). When that folder cannot be written, nothing is cached: numba's fallback location
(``__pycache__``) would not see changes to other modules. ``URBION_CACHE_DIR`` moves the
folder; ``URBION_NO_CACHE=1`` turns caching off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from pathlib import Path

from numba.core import caching, sigutils, types
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from analyzer.core.callee_codegen import (
    DeferredEntry,
    KernelCompiler,
    lowering_as_callee,
    python_call,
    python_entry_library,
    typing_a_call,
    typing_call,
)
from analyzer.wording import one_line

#: No C-callable wrapper: nothing takes a kernel's C address (built-in policies are called at
#: their numba entry point, policies/builtin_nb.py), and the wrappers cost about a tenth of
#: the compile time. Reference counting (numba's NRT) is set on every kernel: numba would
#: otherwise let a kernel compiled for a caller take the caller's setting (``borrowing_jit``).
JIT_OPTIONS = {"nogil": True, "cache": False, "no_cfunc_wrapper": True, "_nrt": True}
_PACKAGE = Path(__file__).resolve().parents[1]
#: The code compiled into the kernels: every file of core/, and the ``*_nb.py`` modules of
#: the package (runner modules such as plan.py change without invalidating the cache).
KERNEL_FOLDERS = ("core",)
KERNEL_PATTERN = "*_nb.py"
#: Older source-hash folders kept beside the current one.
KEEP_OLD_CACHES = 3
#: The file that marks a source-hash folder as one this package made: only such folders
#: are ever removed, whatever folder URBION_CACHE_DIR names (a user's own among them).
CACHE_MARK = ".urbion-kernel-cache"


def source_hash() -> str:
    """SHA-256 (first 16 hex digits) of every Python source file compiled into kernels."""
    files = {p for folder in KERNEL_FOLDERS for p in (_PACKAGE / folder).rglob("*.py")}
    return files_digest(_PACKAGE, files | set(_PACKAGE.rglob(KERNEL_PATTERN)))


def files_digest(root: Path, files: set[Path]) -> str:
    """SHA-256 (first 16 hex digits) of ``files`` under ``root``, each by its path there and
    its bytes: a file renamed, moved or edited changes it."""
    digest = hashlib.sha256()
    for path in sorted(files):
        if not path.is_file():  # a broken link (an editor's lock file) is no code
            continue
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # one that cannot be read is hashed as such, not a crash at import
            digest.update(b"\0unreadable")
    return digest.hexdigest()[:16]


def _cache_root() -> Path | None:
    """The folder of the caches of every source; None where there is no home to put it in
    (HOME unset for a user the system does not list: ``~`` would be taken literally)."""
    base = os.environ.get("URBION_CACHE_DIR")
    if not base:
        home_cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        if home_cache.startswith("~"):
            return None
        base = os.path.join(home_cache, "urbion", "numba")
    return Path(base)


#: Why the disk cache is off when it was not turned off (URBION_NO_CACHE), for a note.
CACHE_PROBLEM: str | None = None


#: The values of URBION_NO_CACHE that turn the cache off (any case), as shells spell yes.
NO_CACHE_WORDS = ("1", "true", "yes", "on")


def _writable_cache_dir() -> Path | None:
    """The current source hash's folder, created and tested; None when it cannot be used
    (:data:`CACHE_PROBLEM` says why)."""
    global CACHE_PROBLEM
    if os.environ.get("URBION_NO_CACHE", "").strip().lower() in NO_CACHE_WORDS:
        return None
    root = _cache_root()
    if root is None:
        CACHE_PROBLEM = "no home folder to keep it in (set URBION_CACHE_DIR)"
        return None
    folder = root / source_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
        (folder / CACHE_MARK).touch()
    except OSError as err:
        CACHE_PROBLEM = f"{folder}: {err.strerror or err}"
        return None
    # the default folder is the package's own (urbion/numba): there, folders of versions
    # that made no mark are its caches too
    _prune_old_caches(folder, marked_only=bool(os.environ.get("URBION_CACHE_DIR")))
    return folder


def _prune_old_caches(current: Path, marked_only: bool = True) -> None:
    """Remove all but the newest few folders of earlier sources: folders this package made
    (:func:`is_kernel_cache`) and nothing else beside them."""
    try:
        others = sorted((p for p in current.parent.iterdir()
                         if p != current and is_kernel_cache(p, marked_only)),
                        key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in others[KEEP_OLD_CACHES:]:
        shutil.rmtree(old, ignore_errors=True)


def is_kernel_cache(folder: Path, marked_only: bool = True) -> bool:
    """Whether ``folder`` is a source-hash folder of kernels this package made: named by a
    source hash, not a link, and marked with :data:`CACHE_MARK` (unless not
    ``marked_only``)."""
    return len(folder.name) == 16 and all(c in "0123456789abcdef" for c in folder.name) \
        and not folder.is_symlink() and folder.is_dir() and \
        (not marked_only or (folder / CACHE_MARK).is_file())


#: Read once, as the package is imported: URBION_NO_CACHE, URBION_CACHE_DIR and
#: XDG_CACHE_HOME set later (in a notebook, after ``import analyzer``) change nothing.
CACHE_DIR = _writable_cache_dir()


class _PackageCacheLocator(caching.UserProvidedCacheLocator):
    """Cache this package's kernels under ``CACHE_DIR`` (keyed by the source hash)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        relative = Path(py_file).resolve().relative_to(_PACKAGE).with_suffix("")
        self._cache_path = str(CACHE_DIR / relative)

    @classmethod
    def from_function(cls, py_func, py_file):
        if CACHE_DIR is None or not Path(py_file).resolve().is_relative_to(_PACKAGE):
            return None
        return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)


if CACHE_DIR is not None:
    caching.CacheImpl._locator_classes.insert(0, _PackageCacheLocator)


#: What reading a kept kernel cut short or overwritten raises (pickle's errors, and what
#: unpacking a wrong value into numba's index raises).
DAMAGED_CACHE = (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
                 IndexError, KeyError, ImportError)


class _BestEffortCache(caching.FunctionCache):
    """numba's disk cache of a kernel, where a save that fails (a full disk) is skipped
    with a note, and an entry that cannot be read back (a file cut short or overwritten)
    is compiled again and saved afresh, with a note: the cache only saves time, and the
    kernel compiled runs all the same."""

    def _load_overload(self, sig, target_context):
        # numba's own, with the read of the kept files guarded: what a damaged pickle raises
        # is a miss, and the kernel is compiled and saved into an empty index
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        try:
            data = self._cache_file.load(key)
        except DAMAGED_CACHE as err:
            _note_damaged(err, self._cache_path)
            with contextlib.suppress(OSError):
                self._cache_file.flush()
            return None
        return None if data is None else self._impl.rebuild(target_context, data)

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError as err:
            _note_unsaved(err)


_cache_noted = False


def note_cache_off() -> None:
    """Say, once a process, that the disk cache cannot be used when it was not turned off:
    every run then compiles the engine anew, which a user would otherwise only see as
    slowness."""
    if CACHE_PROBLEM is not None:
        _note_once(f"the compiled engine cannot be kept ({CACHE_PROBLEM}): every run "
                   "compiles it again; URBION_CACHE_DIR names another folder")


def _note_unsaved(err: OSError) -> None:
    """Say, once a process, that a compiled kernel could not be saved, and what it costs."""
    _note_once(f"cannot save the compiled engine in {CACHE_DIR} ({err.strerror or err}): "
               "the next run compiles it again")


def _note_damaged(err: Exception, folder: str) -> None:
    """Say, once a process, that a kernel kept in ``folder`` could not be read back, and
    what it costs."""
    _note_once(f"the compiled engine kept in {folder} is damaged ({type(err).__name__}: "
               f"{one_line(str(err))}): it is compiled again and kept anew")


def _note_once(text: str) -> None:
    """One note about the disk cache a process, on stderr."""
    global _cache_noted
    if not _cache_noted:
        _cache_noted = True
        try:
            print(f"urbion: note: {text}", file=sys.stderr, flush=True)
        except (OSError, ValueError):  # a stderr that takes nothing: the run goes on
            pass


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, compiling one version of a kernel per argument types.

    numba compiles a kernel anew for every combination of constants a call from another
    kernel passes (``set_option_nb(options, 0, 0, -1, -1, -1)`` and ``(.., 1, 0, -1, ..)``
    are two versions): a fifth of the engine's versions were such copies. A kernel here is
    typed with the constants' plain types instead; LLVM still folds a constant wherever it
    inlines the call.
    """

    def get_call_template(self, args, kws):
        with typing_call():
            return super().get_call_template(*_plain(args, kws))

    def compile(self, sig):
        """Compile for ``sig``; a callee's machine code waits for a call from Python
        (core/callee_codegen.py). A cached kernel is always emitted: its cache entry is its
        machine code."""
        as_callee = typing_a_call()
        with lowering_as_callee(as_callee and isinstance(self._cache, NullCache)):
            entry = super().compile(sig)
        if isinstance(entry, DeferredEntry) and not as_callee:
            entry = self._emit(sig)
        return entry

    def _compile_for_args(self, *args, **kws):
        with python_call():
            return super()._compile_for_args(*args, **kws)

    def add_overload(self, cres):
        if isinstance(cres.entry_point, DeferredEntry):
            # numba's table of Python entry points takes compiled functions only
            self.overloads[tuple(cres.signature.args)] = cres
        else:
            super().add_overload(cres)

    def disable_compile(self, val=True):
        """numba's ``disable_compile``; a callee compiled for a caller only is emitted first,
        since Python calls then find compiled entries only."""
        if val:
            for args, cres in list(self.overloads.items()):
                if isinstance(cres.entry_point, DeferredEntry):
                    self._emit(args)
        super().disable_compile(val)

    def _emit(self, sig):
        """Emit a deferred callee's machine code and make it callable from Python."""
        with global_compiler_lock:
            cres = self.overloads[_sig_args(sig)]
            if not isinstance(cres.entry_point, DeferredEntry):  # another thread emitted it
                return cres.entry_point
            library = python_entry_library(cres, release_gil=bool(self.targetoptions.get("nogil")))
            entry = self.targetctx.get_executable(library, cres.fndesc, cres.environment)
            # from now on the kernel is as any other: inspecting it shows its wrapper too
            self.targetctx.insert_user_function(entry, cres.fndesc, [library])
            self.add_overload(cres._replace(entry_point=entry, library=library))
            return entry

    def fold_argument_types(self, args, kws):
        # typing a recursive call (a search policy plays turns inside a turn) folds here
        return super().fold_argument_types(*_plain(args, kws))


def _sig_args(sig) -> tuple:
    args, _ = sigutils.normalize_signature(sig)
    return tuple(args)


def _plain(args, kws):
    """Argument types with constants' literal types made plain."""
    return (tuple(types.unliteral(a) for a in args),
            {name: types.unliteral(a) for name, a in kws.items()})


def _kernel(func, **options):
    # nopython as numba.njit sets it: a kernel that does not type is an error, with no
    # warning about object mode first
    options = {"nopython": True, **JIT_OPTIONS, **options}
    cache = options.pop("cache")
    dispatcher = KernelDispatcher(py_func=func, locals={}, targetoptions=options,
                                  pipeline_class=KernelCompiler)
    if cache:
        dispatcher._cache = _BestEffortCache(func)  # numba's enable_caching, forgiving
    return dispatcher


def jit(func):
    """Compile a rules, policy or runner kernel with the project's options."""
    return _kernel(func)


def inline_jit(func):
    """``jit`` for small leaf helpers called in a policy's inner loops: inlined in numba's
    IR, so that the arrays they take cross no call boundary (each crossing costs reference
    counts). Only for a policy's own helpers that take no policy, never for the rules
    kernels: a search policy compiles the turn a second time inside a decision, and with
    rules kernels inlined numba left symbols of that copy unresolved (tests/test_inlining.py
    keeps them out)."""
    return _kernel(func, inline="always")


def cached_jit(borrowing: bool = False):
    """Decorator for an entry kernel that takes no callables: cached on disk when possible;
    compiled without reference counting if ``borrowing`` (see ``borrowing_jit``)."""
    return lambda func: _kernel(func, cache=CACHE_DIR is not None, _nrt=not borrowing)


def borrowing_jit(func):
    """``jit`` for a kernel that only borrows arrays: it creates none (no ``np.empty``, no
    ``copy``), returns none, keeps none a kernel returns, and stores none in ``g``.

    Such a kernel is compiled without numba's reference counting. Every array a kernel
    reads otherwise costs an atomic count update on the way in and out: more than half of
    a base game's time went to them. numba refuses to compile an allocation or a store into
    ``g`` without counting; keeping an array returned by a counting kernel would leak it, and
    returning a borrowed array would free it early, which tests/test_borrowing_kernels.py
    checks for every borrowing kernel. The wrapper Python calls such a kernel through still
    counts (core/callee_codegen.py, ``counting_context``).
    """
    return _kernel(func, _nrt=False)
