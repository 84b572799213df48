"""Compile a built-in policy in a second process while this one compiles the batch kernel.

On a cold start the batch kernel and a built-in policy are compiled apart (the kernel calls
the policy at its address, policies/builtin_nb.py), and numba compiles one function at a
time per process. With an empty disk cache and a second core, a child process compiles the
policy into the cache while this process compiles the batch kernel, then this process
loads the policy from the cache: greedy's half minute runs beside the kernel's instead of
after it. Without a disk cache, or with either already cached, nothing is started.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from numba.core.dispatcher import Dispatcher

from analyzer.core import jit
from analyzer.policies.builtin_nb import BUILTIN_FUNCTIONS, POLICY_ARGS

_CHILD_CODE = ("import sys; from analyzer.policies.builtin_nb import builtin_address; "
               "builtin_address(int(sys.argv[1]))")


def in_disk_cache(kernel: Dispatcher, arg_types: tuple) -> bool:
    """True when ``kernel`` has an entry for ``arg_types`` in its disk cache, or when that
    cannot be told (then no second process is worth starting)."""
    try:
        cache = kernel._cache
        key = cache._index_key(arg_types, kernel.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # numba's cache internals differ: fall back to one process
        return True


def _start_child(builtin_id: int) -> subprocess.Popen | None:
    """The child process, or None when it cannot be started (this process then compiles
    the policy itself)."""
    package_parent = str(Path(jit.__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p)
    try:
        return subprocess.Popen([sys.executable, "-c", _CHILD_CODE, str(builtin_id)],
                                env={**os.environ, "PYTHONPATH": path},
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def wants_child(builtin_id: int | None, kernel: Dispatcher, kernel_types: tuple) -> bool:
    """A child pays off for a built-in when the disk cache is on, the machine has a second
    core, and neither the policy nor the kernel is cached yet."""
    if builtin_id is None or jit.CACHE_DIR is None or (os.cpu_count() or 1) < 2:
        return False
    policy = BUILTIN_FUNCTIONS[builtin_id]
    return not in_disk_cache(policy, POLICY_ARGS) and not in_disk_cache(kernel, kernel_types)


@contextmanager
def policy_compiled_aside(builtin_id: int | None, kernel: Dispatcher,
                          kernel_types: tuple) -> Iterator[subprocess.Popen | None]:
    """Compile the built-in ``builtin_id`` into the disk cache in a child process while the
    body runs (when :func:`wants_child`; the child, or None, is yielded); wait for it on
    leaving, or kill it if the body fails. If the child fails, the policy is simply
    compiled here when first asked for."""
    child = _start_child(builtin_id) if wants_child(builtin_id, kernel, kernel_types) else None
    try:
        yield child
    except BaseException:
        if child is not None:
            child.kill()
        raise
    finally:
        if child is not None:
            child.wait()
