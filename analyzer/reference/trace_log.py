"""Reading a trace's log one entry at a time, and the value checks every part of the
replayer shares: the error it raises, values as its messages quote them, strict equality.
"""

from __future__ import annotations

import json
from typing import Any

MESSAGE_LIMIT = 240


class ReplayError(ValueError):
    """A trace that does not replay: an illegal decision, a bad shuffle or a wrong state."""


def quoted(value: Any) -> str:
    """One-line JSON of a value, cut to a readable length."""
    text = json.dumps(value, separators=(",", ":"), default=repr)
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that also requires equal types (so ``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return a == b


def is_int(value: Any) -> bool:
    return type(value) is int


def int_list(value: Any) -> list[int] | None:
    """The value if it is a list of ints, else None."""
    if isinstance(value, list) and all(is_int(v) for v in value):
        return value
    return None


def id_multiset(value: Any) -> list[int] | None:
    """A list of ids in sorted order (a multiset to compare), or None for a non-list."""
    ids = int_list(value)
    return None if ids is None else sorted(ids)


def swap_timing_note(entry: Any) -> str:
    """Why a ``swap_polarity`` entry found where the game asks no decision is out of place."""
    if isinstance(entry, dict) and entry.get("do") == "swap_polarity":
        return " (a polarity swap comes before the turn's Phase I decision only, R10.4)"
    return ""


class LogCursor:
    """Reads the log one entry at a time."""

    def __init__(self, log: list) -> None:
        self.log = log
        self.index = 0

    def peek(self) -> Any:
        """The next entry without taking it (None at the end of the log)."""
        return self.log[self.index] if self.index < len(self.log) else None

    def take(self, expecting: str) -> tuple[int, dict]:
        """Return (index, entry) of the next entry; the game expects ``expecting`` there."""
        index = self.index
        if index >= len(self.log):
            raise ReplayError(f"log entry {index}: missing; the game expects {expecting}")
        entry = self.log[index]
        if not isinstance(entry, dict):
            raise ReplayError(f"log entry {index}: expected {expecting}, found {quoted(entry)}")
        self.index += 1
        return index, entry

    def expect_end(self) -> None:
        """The game is over: no entry may be left."""
        if self.index < len(self.log):
            entry = self.log[self.index]
            raise ReplayError(f"log entry {self.index}: left over after the game ended: "
                              f"{quoted(entry)}{swap_timing_note(entry)}")
