"""Load a user's policy by name: ``path/to/file.py:function`` or ``package.module:function``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import marshal
import re
import sys
import threading
import traceback
from pathlib import Path

import numpy as np
from numba.core import types
from numba.core.errors import NumbaError
from numba.core.registry import CPUDispatcher

from analyzer.errors import POLICY_CALL, PolicyError
from analyzer.policies.builtin_nb import POLICY_ARGS
from analyzer.policies.spec import PolicySpec

#: set on a user's policy module once it has loaded: the SHA-256 of the source it ran
_LOADED_SOURCE = "__urbion_source_sha256__"
#: set too: {module name: (file, SHA-256)} of the modules it imported from its folder
_LOADED_SIBLINGS = "__urbion_sibling_sha256__"
#: the modules user policies imported from their folders, in this process, by name
_SIBLING_MODULES: dict[str, object] = {}
#: where this package lies: its modules are never a policy's own
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
_LOADING = threading.RLock()
#: How the module of a user's policy file is named (its path's hash follows): other policy
#: files of a folder are policies of their own, loaded once, never a policy's helpers
USER_MODULE_PREFIX = "urbion_user_policy_"


def _module_from_file(path: Path):
    # one load at a time: a cluster worker's threads resolve a policy side by side, and
    # each load empties and fills the module table
    with _LOADING:
        return _load_module_file(path)


def _load_module_file(path: Path):
    source = _file_sha256(path)
    # a name that is the same in every process: numba's disk cache (cache=True) finds a
    # function's module again by it
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    name = f"{USER_MODULE_PREFIX}{digest}"
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, _LOADED_SOURCE, None) == source and \
            _siblings_unchanged(loaded):
        # the file as loaded before in this process: the same functions, compiled once, and
        # a policy that resolves by its name to itself (a cluster run checks that)
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    folder = path.resolve().parent
    _forget_folder_modules(folder)
    before = set(sys.modules)
    sys.modules[name] = module
    # the file's own folder first, as when Python runs it: it may import modules beside it
    if str(folder) in sys.path:
        sys.path.remove(str(folder))
    sys.path.insert(0, str(folder))
    _execute(spec, module, path)
    setattr(module, _LOADED_SOURCE, source)
    siblings = {n: (file, _file_digest(file)) for n, m in list(sys.modules.items())
                if n != name and n not in before and
                (file := _own_module_file(m, folder)) is not None}
    setattr(module, _LOADED_SIBLINGS, siblings)
    _SIBLING_MODULES.update((n, sys.modules[n]) for n in siblings)
    return module


def _file_sha256(path: Path) -> str:
    """The SHA-256 of the policy file ``path``, refused unless it is a readable file."""
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else \
            "is not a regular file (a pipe or a device)" if path.exists() else "does not exist"
        raise PolicyError(f"policy file {path} {what}")
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise PolicyError(f"policy file {path} cannot be read: {err.strerror or err}") from None


def _forget_folder_modules(folder: Path) -> None:
    """Drop the modules another policy (or an earlier version of this one) imported from
    its folder, and this folder's modules imported before: ``import helpers`` then finds
    ``folder``'s helpers as they are now, and the source hash covers them in every
    process."""
    for stale in [n for n, m in list(sys.modules.items())
                  if n != "__main__" and not n.startswith(USER_MODULE_PREFIX) and (
                      _SIBLING_MODULES.get(n) is m or _own_module_file(m, folder) is not None)]:
        del sys.modules[stale]


def _execute(spec, module, path: Path) -> None:
    """Run the policy file's top level into ``module``; on any failure it is no longer a
    loaded module, and the error names the file."""
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's file may fail in any way
        del sys.modules[spec.name]
        raise PolicyError(f"policy file {path} failed to load: {err}") from None
    except SystemExit as stop:  # a script's sys.exit() at import: no silent exit code
        del sys.modules[spec.name]
        raise PolicyError(f"policy file {path} called sys.exit({stop.code!r}) as it "
                          "loaded (a script's top level runs on import: put it under "
                          "if __name__ == \"__main__\":)") from None


def _own_module_file(module: object, folder: Path) -> Path | None:
    """The file of ``module`` when it lies in ``folder`` (or below) and is a user's module:
    neither this package's, nor an installed one's, nor the standard library's."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return None
    path = Path(file).resolve()
    if not path.is_relative_to(folder) or path.is_relative_to(_PACKAGE_DIR) or \
            {"site-packages", "dist-packages"} & set(path.parts) or \
            path.is_relative_to(Path(sys.base_prefix).resolve()):
        return None
    return path


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def _siblings_unchanged(module: object) -> bool:
    """Whether the modules a loaded policy imported from its folder are as it loaded them."""
    siblings = getattr(module, _LOADED_SIBLINGS, {})
    return all(_file_digest(file) == digest for file, digest in siblings.values())


def load_user_policy(name: str, compiled: bool = True) -> PolicySpec:
    """The jitted function ``name`` names, as a PolicySpec with no parameters; compiled and
    checked as a policy (``check_policy_function``) unless ``compiled`` is False, where
    only its name and source digest are wanted (whether a command plays a run again)."""
    where, _, function = name.rpartition(":")
    if not where or not function:
        raise PolicyError(f"policy {name!r}: expected FILE.py:FUNCTION or MODULE:FUNCTION")
    if where.endswith(".py"):
        module = _module_from_file(Path(where).expanduser())
    elif "/" in where or "\\" in where or where.startswith("."):  # a path, not a module
        raise PolicyError(f"policy {name!r}: {where} is no FILE.py (a path to a file ending "
                          "in .py) nor a MODULE Python can import (dotted names, no path)")
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as err:
            raise PolicyError(f"policy {name!r}: cannot import {where}: "
                              f"{err}{file_form_hint(where, function)}") from None
        except Exception as err:  # a relative name, or a module that fails as it runs
            raise PolicyError(f"policy {name!r}: cannot import {where}: {err}") from None
        except SystemExit as stop:
            raise PolicyError(f"policy {name!r}: {where} called sys.exit({stop.code!r}) "
                              "as it was imported") from None
    func = getattr(module, function, None)
    if func is None:  # another module of that name came first (Python's own random, say)
        raise PolicyError(f"policy {name!r}: {where} has no function {function!r}"
                          f"{file_form_hint(where, function, module)}")
    if compiled:
        check_policy_function(name, func)
    return PolicySpec(name, func, np.zeros(0, dtype=np.float64), f"user policy {name}",
                      source_digest=_source_digest(module))


def file_form_hint(where: str, function: str, imported: object = None) -> str:
    """" (to load the file greedy.py here, name it greedy.py:choose)" when the MODULE of
    ``MODULE:FUNCTION`` is a file here that the name did not load: the current folder is not
    on an installed command's import path, and a module of Python's or a built-in policy
    of that name comes first; else ""."""
    file = Path(*where.split(".")).with_suffix(".py")
    loaded = getattr(imported, "__file__", None)
    if not file.is_file() or (loaded and Path(loaded).resolve() == file.resolve()):
        return ""
    return f" (to load the file {file} here, name it {file}:{function})"


def check_policy_function(name: str, func: object) -> None:
    """Check a user's policy function: jitted, and compiling for the signature every choice
    point calls it with, returning a signed integer; so that a mistake in it is one line naming
    its cause, not numba's page about the kernel.

    Raises
    ------
    PolicyError
    """
    if not callable(func):
        what = "a module" if inspect.ismodule(func) else \
            f"a value of type {type(func).__name__}"
        raise PolicyError(f"policy {name!r} names {what}, not a function")
    if not isinstance(func, CPUDispatcher):
        raise PolicyError(f"policy {name!r}: {getattr(func, '__name__', func)} must be "
                          "compiled with @numba.njit (docs/policies.md)")
    if POLICY_ARGS not in func.overloads and not func._can_compile:
        raise PolicyError(f"policy {name!r} declares its signatures, and none is the policy "
                          "signature (docs/policies.md): leave them out")
    try:
        if POLICY_ARGS not in func.overloads:  # one declared with the signature is ready
            func.compile(POLICY_ARGS)
    except (NumbaError, TypeError) as err:
        raise PolicyError(f"policy {name!r} does not compile as a policy (docs/policies.md): "
                          f"{_first_cause(str(err), func)}") from None
    except Exception as err:  # the user's code may fail in any way while compiling
        raise PolicyError(f"policy {name!r} does not compile as a policy: "
                          f"{type(err).__name__}: {_first_cause(str(err), func)}") from None
    returned = func.overloads[POLICY_ARGS].signature.return_type
    # the kernels compare and index with it among int64 counts, which a uint64 does not mix
    # with (numba makes the mix a float)
    if returned == types.pyobject:
        raise PolicyError(f"policy {name!r} compiles in object mode: compile it with "
                          "@numba.njit (nopython mode), which the engine calls it in")
    if not isinstance(returned, types.Integer) or not returned.signed:
        raise PolicyError(f"policy {name!r} must return a signed integer (the index of an "
                          f"option), not {returned}")
    if _draws_from_global_state(func):
        raise PolicyError(f"policy {name!r} draws from numba's global random state "
                          "(np.random or random), which no seed of a run sets: its games "
                          "could not be played again. Draw from the game's stream, "
                          "analyzer.core.rng.below_nb(rng, n) (docs/policies.md)")


#: What numba's compiled code calls to reach its per-thread random states (np.random's,
#: random's and its own), in the machine code of a function or of any it calls.
GLOBAL_RANDOM_STATES = ("numba_get_np_random_state", "numba_get_py_random_state",
                        "numba_get_internal_random_state")


def _draws_from_global_state(func: CPUDispatcher) -> bool:
    """True when the policy's compiled code, its helpers linked in, reaches one of numba's
    global random states: game g of seed S would not be the same game twice."""
    code = func.overloads[POLICY_ARGS].library.get_llvm_str()
    return any(state in code for state in GLOBAL_RANDOM_STATES)


def policy_failure(spec: PolicySpec, err: BaseException) -> PolicyError | None:
    """The one-line error for ``err`` when a user's policy raised it while playing, else
    None: an exception from anywhere else is not the user's and keeps its traceback.

    The policy's own ``raise`` puts its line in the traceback (numba records it); an error
    numba raises for compiled code (a division by zero, a negative array size, a ``raise``
    in a module the policy imports) names no line of the policy's file, and counts as the
    policy's when it came out of a call that played it (``mark_policy_call``): the rules
    kernels and the built-in policies never raise."""
    if not spec.is_user_policy or isinstance(err, PolicyError):
        return None
    code = getattr(getattr(spec.func, "py_func", None), "__code__", None)
    if code is None:
        return None
    lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__)
             if frame.filename == code.co_filename]
    notes = getattr(err, "__notes__", ())
    if not lines and POLICY_CALL not in notes:
        return None
    cause = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    # the runner notes the game that raised (runner/chunks.py, game_note)
    games = [note.removeprefix(RAISED_IN) for note in notes if note.startswith(RAISED_IN)]
    where = f" in {games[0]}" if games else ""
    elsewhere = _user_frame(err) if not lines else None
    line = (f'("{code.co_filename}", line {lines[-1]})' if lines else
            f'("{elsewhere.filename}", line {elsewhere.lineno})' if elsewhere else
            "(in its code or a function it calls: compiled code names no line)")
    return PolicyError(f"policy {spec.name!r} raised {cause} {line}{where}")


def _user_frame(err: BaseException) -> traceback.FrameSummary | None:
    """The last frame of ``err``'s traceback in a file of neither this package nor an
    installed one: a module the user's policy imports, which raised."""
    package = Path(__file__).resolve().parents[1]
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        path = Path(frame.filename)
        if frame.filename.startswith("<") or "site-packages" in path.parts or \
                package in path.resolve().parents:
            continue
        if path.resolve().is_relative_to(Path(sys.base_prefix).resolve()):
            continue  # the standard library
        return frame
    return None


#: How the note of the game a policy raised in starts (``game_note``).
RAISED_IN = "urbion: raised in "


def game_note(seed: int, game: int) -> str:
    """The note a policy's exception carries of the game it was raised in, which
    ``policy_failure`` puts in its message."""
    return f"{RAISED_IN}seed {seed}, game {game}"


def has_game_note(err: BaseException) -> bool:
    """True when ``err`` already says which game it was raised in."""
    return any(note.startswith(RAISED_IN) for note in getattr(err, "__notes__", ()))


def _first_cause(message: str, func: CPUDispatcher) -> str:
    """numba's error message cut to its cause and where in the user's file it lies."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    causes = [line for line in lines if not line.startswith(("Failed in ", "During:",
                                                             "File ", "^"))]
    where = next((line for line in lines if line.startswith("File ")), None)
    cause = causes[0] if causes else lines[0] if lines else "unknown error"
    if where:
        return f"{cause} ({where.removeprefix('File ').rstrip(':')})"
    return f"{cause} ({_line_of(func, cause)})"


def _line_of(func: CPUDispatcher, cause: str) -> str:
    """Where ``cause`` lies in ``func``'s file when numba does not say (a NameError): the
    first line of the function that names the missing name, else the function's first."""
    code = func.py_func.__code__
    where = f'"{code.co_filename}", line {{}}'
    missing = re.match(r"NameError: name '(\w+)' is not defined", cause)
    try:
        source, first = inspect.getsourcelines(func.py_func)
    except (OSError, TypeError):
        return where.format(code.co_firstlineno)
    if missing:
        word = re.compile(rf"\b{re.escape(missing.group(1))}\b")
        for offset, line in enumerate(source):
            if word.search(line.split("#", 1)[0]):
                return where.format(first + offset)
    return where.format(first)


def function_source_digest(func: object) -> str:
    """SHA-256 of the file a (jitted) function was defined in; for a function with no file
    on disk, of its own source where Python still holds it (a notebook cell's, which
    IPython keeps in ``linecache``); where neither is there (a function read from stdin or
    ``python -c``), of its compiled code, which tells two such functions apart as long as
    one Python version compiles them ("" only for an object with no code)."""
    plain = getattr(func, "py_func", func)
    code = getattr(plain, "__code__", None)
    path = Path(code.co_filename) if code is not None else None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path else ""
    except OSError:
        pass
    try:
        text = inspect.getsource(plain)
    except (OSError, TypeError):
        return "" if code is None else \
            hashlib.sha256(b"function code\n" + marshal.dumps(code)).hexdigest()
    return hashlib.sha256(("function source\n" + text).encode()).hexdigest()


def _source_digest(module) -> str:
    """SHA-256 of the module's source file, so results and resumes tell versions apart;
    with the modules it imported from its own folder, of that file's digest and theirs (by
    module name), so that a changed helper makes another policy too."""
    path = getattr(module, "__file__", None)
    try:
        own = hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except OSError:
        return ""
    siblings = getattr(module, _LOADED_SIBLINGS, {})
    if not own or not siblings:
        return own
    listed = "".join(f"\n{n} {digest}" for n, (_, digest) in sorted(siblings.items()))
    return hashlib.sha256(f"policy {own}{listed}".encode()).hexdigest()
