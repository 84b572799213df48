"""Load a user's policy by name: ``path/to/file.py:function`` or ``package.module:function``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
from numba.core.registry import CPUDispatcher

from analyzer.errors import PolicyError
from analyzer.policies.registry import PolicySpec


def _module_from_file(path: Path):
    if not path.is_file():
        raise PolicyError(f"policy file {path} does not exist")
    name = f"urbion_user_policy_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's file may fail in any way
        raise PolicyError(f"policy file {path} failed to load: {err}") from None
    return module


def load_user_policy(name: str) -> PolicySpec:
    """The jitted function ``name`` names, as a PolicySpec with no parameters."""
    where, _, function = name.rpartition(":")
    if not where or not function:
        raise PolicyError(f"policy {name!r}: expected FILE.py:FUNCTION or MODULE:FUNCTION")
    if where.endswith(".py"):
        module = _module_from_file(Path(where))
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise PolicyError(f"policy {name!r}: cannot import {where}: {err}") from None
    func = getattr(module, function, None)
    if func is None:
        raise PolicyError(f"policy {name!r}: {where} has no function {function!r}")
    if not isinstance(func, CPUDispatcher):
        raise PolicyError(f"policy {name!r}: {function} must be compiled with @numba.njit "
                          "(docs/policies.md)")
    return PolicySpec(name, func, np.zeros(0, dtype=np.float64), f"user policy {name}",
                      source_digest=_source_digest(module))


def _source_digest(module) -> str:
    """SHA-256 of the module's source file, so results and resumes tell versions apart."""
    path = getattr(module, "__file__", None)
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except OSError:
        return ""
