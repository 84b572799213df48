"""Numba jit options, defined once for every kernel in the package.

Kernels are compiled in memory (``jit``), except the entry kernels of the built-in policies
(``cached_jit``): they take no callable argument, so numba can cache them on disk and a
warm start costs about a second instead of half a minute. Numba keys a cache entry by the
kernel's own source file only, so a change to a helper in another module would leave a
stale entry behind; the cache folder is therefore keyed by a hash of every source file of
the kernel folders (``URBION_CACHE_DIR`` moves it; ``URBION_NO_CACHE=1`` turns caching off).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

JIT_OPTIONS = {"nogil": True, "cache": False}
PARALLEL_OPTIONS = {**JIT_OPTIONS, "parallel": True}
_PACKAGE = Path(__file__).resolve().parents[1]
#: The folders whose code is compiled into the kernels.
KERNEL_FOLDERS = ("core", "rules", "policies", "runner")


def source_hash() -> str:
    """SHA-256 (first 16 hex digits) of every Python source file compiled into kernels."""
    digest = hashlib.sha256()
    files = (p for folder in KERNEL_FOLDERS for p in (_PACKAGE / folder).rglob("*.py"))
    for path in sorted(files):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cache_dir() -> str:
    base = os.environ.get("URBION_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "urbion", "numba")
    return os.path.join(base, source_hash())


CACHE_ON_DISK = os.environ.get("URBION_NO_CACHE", "") != "1"
if CACHE_ON_DISK:
    numba.config.CACHE_DIR = _cache_dir()


def jit(func):
    """Compile a rules, policy or runner kernel with the project's options."""
    return numba.njit(**JIT_OPTIONS)(func)


def parallel_jit(func):
    """Compile a batch kernel whose outer loop is a ``numba.prange``."""
    return numba.njit(**PARALLEL_OPTIONS)(func)


def cached_jit(parallel: bool = False):
    """Decorator for an entry kernel that takes no callables: cached on disk."""
    options = {**(PARALLEL_OPTIONS if parallel else JIT_OPTIONS), "cache": CACHE_ON_DISK}
    return numba.njit(**options)
