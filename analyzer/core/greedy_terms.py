"""The fixed numbers of the ``greedy`` policy's scores, beside its weights (``GreedyWeight``).

Shared by greedy's kernel (policies/greedy_nb.py) and its plain-Python twin
(reference/greedy.py): the twin checks how the kernel scores, not these numbers.
"""

from __future__ import annotations

#: What a postcard of each ``PostcardKind`` scores in the end, on average, when its city is
#: not pacified now (rounded from greedy's own games): a Seer or Doves nearly always -2
#: whatever one does, a Hourglass mostly sent away, a Dreamcatcher, Magicians or Planbot
#: often met. A postcard counts by the difference that pacifying now, or sending it away,
#: makes to this.
EXPECTED_POINTS = (0.0, -1.8, -2.0, 0.3, -1.0, 0.0, 0.5, -0.5)
#: Scores of a move that loses the game at once, and of one that wins it.
LOSING = -1e6
WINNING = 1000.0
#: Zero-sum discards (R05.5): an Inhabitant point against the room of this many dreams.
ZERO_SUM_POINT = 4.0
#: Weight of the partner's placements in a polarity swap (R10.4), against the seat's own.
PARTNER_SHARE = 0.5
#: The largest weight, in size, that ``greedy_params`` and a weights file take. Far beyond
#: any use (the win is worth 1e3, a loss -1e6), it keeps every score and sum finite (an
#: overflow to inf, then NaN, would compare unlike in the two copies of greedy), and well
#: above the -1e9 that the searches for the best Exchange, Rebuild, Change Sides or Book
#: move start from in both.
MAX_WEIGHT = 1e12
#: ``MAX_WEIGHT`` as messages print it.
MAX_WEIGHT_TEXT = f"{MAX_WEIGHT:.0e}".replace("+", "")
