"""Telling a run's file (a results file, Parquet, or a summary file, JSON) from a card or
weights file (TOML), and reading the configuration it keeps, unchecked: for the layers
below ``analysis.results_io``, which checks what it reads, such as the weights loader
taking a run's kept weights."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.core.codes import SUMMARY_FORMAT
from analyzer.textfiles import UnreadableText, read_small_text

#: Where a results file's metadata keeps the run's configuration.
METADATA_KEY = b"urbion"
#: Where pandas' ``DataFrame.to_parquet`` writes ``df.attrs``.
PANDAS_ATTRS_KEY = b"PANDAS_ATTRS"


def head(path: str | Path) -> bytes:
    """The first bytes of a regular file, without a byte-order mark or leading blanks; b""
    for anything else (opening a pipe would wait for a writer)."""
    if not Path(path).is_file():
        return b""
    try:
        with Path(path).open("rb") as file:
            return file.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:
        return b""


def is_run_file(path: str | Path) -> bool:
    """True for a file that begins as a results file (Parquet) or a summary file (JSON)
    does: no card or weights file (TOML) begins so."""
    return head(path).startswith((b"PAR1", b"{"))


def kept_config(path: str | Path) -> dict | None:
    """The configuration a run's file keeps, as it is (None when it keeps none that can be
    read): from a results file's metadata alone, or a summary file's ``config``."""
    try:
        if head(path).startswith(b"PAR1"):
            import pyarrow.parquet as pq

            with Path(path).open("rb") as file:  # any name the system has
                metadata = pq.read_schema(file).metadata or {}
            config = json.loads(metadata.get(METADATA_KEY, metadata.get(PANDAS_ATTRS_KEY, b"")))
        else:
            document = json.loads(read_small_text(Path(path)))
            is_summary = isinstance(document, dict) and document.get("format") == SUMMARY_FORMAT
            config = document.get("config") if is_summary else None
    except (OSError, ValueError, RecursionError, UnreadableText):  # ArrowInvalid: a ValueError
        return None
    return config if isinstance(config, dict) else None
