"""The progress bar of long runs: games done, games/s and time left, on stderr."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm


def progress_bar(total: int, enabled: bool, label: str = "games",
                 unit: str = "games", initial: int = 0) -> tqdm:
    """A bar counting ``total`` games (or other ``unit``), ``initial`` of them done already;
    draws nothing when not ``enabled``."""
    return tqdm(total=total, desc=label, unit=f" {unit}", unit_scale=True, disable=not enabled,
                file=sys.stderr, dynamic_ncols=True, smoothing=0.05, leave=True,
                initial=initial)


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
