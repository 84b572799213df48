"""Numba jit options, defined once for every kernel in the package.

Kernels are not cached on disk: numba's cache keys a function by its own source file only,
so a cached kernel silently keeps stale code when a helper it calls (in another module)
changes, and kernels that receive a policy callable cannot be cached at all.
"""

from __future__ import annotations

import numba

JIT_OPTIONS = {"nogil": True, "cache": False}
PARALLEL_OPTIONS = {**JIT_OPTIONS, "parallel": True}


def jit(func):
    """Compile a rules, policy or runner kernel with the project's options."""
    return numba.njit(**JIT_OPTIONS)(func)


def parallel_jit(func):
    """Compile a batch kernel whose outer loop is a ``numba.prange``."""
    return numba.njit(**PARALLEL_OPTIONS)(func)
