"""Trace files: JSON Lines, one ``urbion-trace/1`` trace per line."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer import atomic
from analyzer.errors import UrbionError

TRACE_SUFFIXES = (".jsonl", ".json")


def check_trace_path(path: str | Path) -> Path:
    """Fail early when the trace file cannot be written."""
    return atomic.check_writable(path, TRACE_SUFFIXES)


def write_traces(traces: list[dict], path: str | Path) -> None:
    """Write ``traces`` as JSON Lines, complete or not at all."""
    path = check_trace_path(path)
    text = "".join(json.dumps(t) + "\n" for t in traces)
    atomic.write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def read_traces(path: str | Path) -> list[tuple[int, dict | str]]:
    """The traces of a JSON Lines file as ``(line number, trace)`` pairs, blank lines left
    out; a line that is not JSON comes as ``(line number, why)``, so that one bad line does
    not hide the verdict on the others.

    Raises
    ------
    UrbionError
        For a file that cannot be read, is not UTF-8 text, or holds no line at all.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = getattr(err, "strerror", None) or err
        raise UrbionError(f"cannot read trace file {path}: {why}") from None
    traces: list[tuple[int, dict | str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            traces.append((number, json.loads(line)))
        except json.JSONDecodeError as err:
            traces.append((number, f"not JSON: {err.msg} at column {err.colno}"))
    if not traces:
        raise UrbionError(f"{path} holds no trace")
    return traces
