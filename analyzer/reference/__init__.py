"""Plain-Python reference engine of Urbion (base game, all seven expansions, solo and team),
and the trace replayer.

The oracle the fast engine (``analyzer.rules``) is checked against, trace for trace. It
shares no rules code with it: only ``analyzer.core`` (codes, random streams) and
``analyzer.cards`` (the card table).
"""

from analyzer.reference.play import IllegalDecision, play_reference
from analyzer.reference.replay import ReplayError, replay

__all__ = ["IllegalDecision", "ReplayError", "play_reference", "replay"]
