"""Checks of the Python API's arguments: the limits the CLI's options enforce, with the same
one-line errors, so that a notebook gets an UrbionError rather than a deep TypeError.

Whole numbers are returned as Python ints: a numpy integer is welcome, but the run's
configuration is written as JSON (Parquet metadata, summary files) and must hold plain ints.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from analyzer.errors import UrbionError

MAX_SEED = 2**63 - 1


def whole_number(name: str, value: object, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int of at least ``low`` (and at most ``high``).

    Floats, strings and bools are refused: a float seed would be truncated into another
    batch's games.
    """
    try:
        if isinstance(value, bool):
            raise TypeError
        number = operator.index(value)
    except TypeError:
        raise UrbionError(f"{option(name)} must be a whole number, not {value!r}") from None
    if number < low or (high is not None and number > high):
        limit = f"at least {low}" if high is None else f"from {low} to {high}"
        raise UrbionError(f"{option(name)} must be {limit}, not {number}")
    return number


def game_counts(games: object, seed: object, first_game: object = 0,
                first_name: str = "first_game") -> tuple[int, int, int]:
    """``(games, seed, first_game)`` checked: at least one game, and every game number of
    the batch (``first_game .. first_game + games - 1``) within 0..2**63-1. ``first_name``:
    the first game's parameter name, for the error."""
    games = whole_number("games", games, 1)
    seed = whole_number("seed", seed, 0, MAX_SEED)
    first_game = whole_number(first_name, first_game, 0, MAX_SEED)
    if first_game + games - 1 > MAX_SEED:
        raise UrbionError(f"game numbers must stay below 2**63: {option(first_name)} "
                          f"{first_game} plus {games} games goes past it")
    return games, seed, first_game


#: The most threads (``workers``) or local cluster processes (``local:N``) a run starts:
#: far more than any machine has cores, and few enough that the system can start them.
MAX_WORKERS = 256


def workers(value: object) -> int | None:
    """None, or a number of threads from 1 to ``MAX_WORKERS``."""
    count = optional_count("workers", value)
    if count is not None and count > MAX_WORKERS:
        raise UrbionError(f"--workers (workers=) {count:,}: at most {MAX_WORKERS} (threads "
                          "beyond the machine's cores only wait for them)")
    return count


def optional_count(name: str, value: object, low: int = 1) -> int | None:
    """None, or a whole number of at least ``low`` (``workers``, ``chunk``)."""
    return None if value is None else whole_number(name, value, low)


def text(name: str, value: object, optional: bool = False) -> str | None:
    """A string argument (a policy or engine name, a variant, a scheduler address)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise UrbionError(f"{name} must be a string, not {value!r}")
    return value


#: Arguments a command takes by their place, not as an option, or that only Python has
#: (``card_differences(against=)``): named as they are.
NAMED_BY_PLACE = ("traces", "path", "against")


def path(name: str, value: object, optional: bool = True, flag: str | None = None,
         kinds: str = "a path") -> Path | None:
    """A file or folder argument: a string or a path (None when optional), ``~`` read as
    the home folder, as a shell and pandas read it. ``flag``: the command's option, where it
    is not ``name``'s (``--template`` for ``out=``); ``kinds``: what the argument may be, as
    a refusal says it."""
    if value is None and optional:
        return None
    if not isinstance(value, str | Path) or value == "":
        said = f"{flag} ({name}=)" if flag else \
            name if name in NAMED_BY_PLACE or not name.isidentifier() else option(name)
        raise UrbionError(f"{said} must be {kinds}, not {kind_of(value)}")
    try:
        return Path(value).expanduser()
    except RuntimeError:  # no home folder to read ~ as: the name as it is
        return Path(value)


def names(name: str, value: object, optional: bool = True) -> str | list[str] | None:
    """Names given as one comma-separated string or as a list or tuple of strings."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return list(value)
    raise UrbionError(f"{name} must be a comma-separated string or a list of names, "
                      f"not {kind_of(value)}")


def kind_of(value: object) -> str:
    """What a wrong argument is, in a few words ("a list holding PolicySpec"): its repr
    can run to pages (a DataFrame, a compiled function)."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        held = sorted({type(item).__name__ for item in value if not isinstance(item, str)})
        return f"a {type(value).__name__} holding {', '.join(held)}"
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def name_list(name: str, value: object) -> list[str]:
    """Names as a list, from a comma-separated string or a list of strings."""
    given = names(name, value, optional=False)
    if isinstance(given, str):
        given = given.split(",")
    return [item.strip() for item in given if item.strip()]


def fraction(name: str, value: object, low: float, high: float) -> float:
    """A real number strictly between ``low`` and ``high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UrbionError(f"{name} must be a number, not {value!r}")
    if not low < float(value) < high:
        raise UrbionError(f"{name} must be above {low}" + (
            "" if math.isinf(high) else f" and below {high}") + f", not {value}")
    return float(value)


#: The widest --precision taken: a half-width of 10 points says next to nothing, and a
#: larger figure is most likely meant in percentage points.
MAX_PRECISION = 0.1


def choice(name: str, value: object, valid: Sequence[str]) -> str:
    """One of the ``valid`` names (an engine, a variant, a baseline), taken in any case as
    the command takes it, and returned in lower case."""
    given = text(name, value)
    if given.lower() not in valid:
        raise UrbionError(f"{option(name)}: unknown {name} {given!r} (valid: "
                          f"{', '.join(valid)})")
    return given.lower()


def option(name: str) -> str:
    """An argument as both a command and a notebook name it: ``--max-games (max_games=)``."""
    return f"--{name.replace('_', '-')} ({name}=)"


def precision(value: object) -> float:
    """A half-width for ``compare(precision=...)``: a share of games, above 0 and at most
    :data:`MAX_PRECISION`; a figure written in percentage points (0.5 for half a point)
    is named as such."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and \
            math.isinf(value):
        raise UrbionError(f"{option('precision')} must be a finite share of games, not "
                          f"{value}")
    share = fraction(option("precision"), value, 0, math.inf)
    if share > MAX_PRECISION:
        raise UrbionError(f"{option('precision')} is a share of games, not percentage "
                          f"points: {value} asks for intervals of +-{share:.0%}; half a "
                          f"point is 0.005 (at most {MAX_PRECISION})")
    return share


def flag(name: str, value: object) -> bool:
    """A yes/no argument: True or False, numpy's too (a string such as "no" would read as
    yes)."""
    if not isinstance(value, bool | np.bool_):
        raise UrbionError(f"{name} must be True or False, not {value!r}")
    return bool(value)
