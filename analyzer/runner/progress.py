"""The progress bar of long runs: games done, games/s and time left, on stderr."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from tqdm import tqdm

#: Seconds between lines when stderr is a file or a pipe: a log of a long run gets a line
#: now and then, not a redraw per second.
LOG_INTERVAL = 30.0


class LineLog:
    """A text stream for ``tqdm`` that turns its redraws into whole lines.

    On a terminal a bar redraws itself in place with carriage returns; written to a log
    file those redraws pile up into one long line. This writes each state as a line of its
    own, and no line twice in a row.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = ""

    def write(self, text: str) -> None:
        line = text.replace("\r", "").rstrip()
        if line and line != self.last:
            self.stream.write(line + "\n")
            self.last = line

    def flush(self) -> None:
        self.stream.flush()


class BestEffort:
    """A text stream that stops writing, silently, the first time a write fails (stderr to
    a full disk, a pipe whose reader is gone): a progress report is no reason to stop the
    run it reports on. Anything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.failed = False

    def write(self, text: str) -> None:
        if not self.failed:
            try:
                self.stream.write(text)
            except (OSError, ValueError):  # ValueError: a stream closed under it
                self.failed = True

    def flush(self) -> None:
        if not self.failed:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.failed = True

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def is_terminal(stream: TextIO) -> bool:
    """True when ``stream`` redraws a bar in place: an interactive terminal, or a Jupyter
    kernel's stderr, which a notebook shows as one (a stream without ``isatty`` is not)."""
    if type(stream).__module__.split(".")[0] == "ipykernel":
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def progress_bar(total: int, enabled: bool, label: str = "games",
                 unit: str = "games", initial: int = 0) -> tqdm:
    """A bar counting ``total`` games (or other ``unit``), ``initial`` of them done already;
    draws nothing when not ``enabled``. On a terminal it redraws in place; otherwise (a
    log file, a pipe) a run longer than ``LOG_INTERVAL`` seconds writes a line every
    ``LOG_INTERVAL`` seconds and one at the end, and a shorter one writes nothing."""
    terminal = is_terminal(sys.stderr)
    stream = BestEffort(sys.stderr) if terminal else LineLog(BestEffort(sys.stderr))
    # on a terminal tqdm draws its blocks where the terminal's encoding has them
    return tqdm(total=total, desc=label, unit=f" {unit}", unit_scale=True, disable=not enabled,
                file=stream, dynamic_ncols=terminal, smoothing=0.05, leave=True,
                initial=initial, ascii=None if terminal else True,
                mininterval=0.1 if terminal else LOG_INTERVAL,
                # tqdm's monitor otherwise writes every 10 s whatever the interval
                maxinterval=10.0 if terminal else LOG_INTERVAL,
                delay=0.0 if terminal else LOG_INTERVAL)


@contextmanager
def clearing_on_error(bar: tqdm) -> Iterator[tqdm]:
    """Close ``bar`` after the block; when the block raises, clear it from the terminal
    first, so that the error stays one line instead of following a half-drawn bar."""
    try:
        yield bar
    except BaseException:
        bar.leave = False
        raise
    finally:
        bar.close()
