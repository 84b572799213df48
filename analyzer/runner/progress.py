"""The progress bar of long runs: games done, games/s and time left, on stderr."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(total: int, enabled: bool, label: str = "games",
                 unit: str = "games") -> tqdm:
    """A bar counting ``total`` games (or other ``unit``); draws nothing when not
    ``enabled``."""
    return tqdm(total=total, desc=label, unit=f" {unit}", unit_scale=True, disable=not enabled,
                file=sys.stderr, dynamic_ncols=True, smoothing=0.05, leave=True)
