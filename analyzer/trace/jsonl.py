"""Trace files: JSON Lines, one ``urbion-trace/1`` trace per line."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer import atomic

TRACE_SUFFIXES = (".jsonl", ".json")


def check_trace_path(path: str | Path) -> Path:
    """Fail early when the trace file cannot be written."""
    return atomic.check_writable(path, TRACE_SUFFIXES)


def write_traces(traces: list[dict], path: str | Path) -> None:
    """Write ``traces`` as JSON Lines, complete or not at all."""
    path = check_trace_path(path)
    text = "".join(json.dumps(t) + "\n" for t in traces)
    atomic.write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
