"""A complete user policy: place a dream when it balances a city, otherwise play it safe.

Run it with ``urbion simulate --policy docs/examples/cautious.py:choose``.
"""

import numba

from analyzer.core.codes import Act, ChaosHow, Decision
from analyzer.rules.state_nb import placed_value_nb, row_total_nb


@numba.njit
def choose(kind, options, n_options, state, cards, params, rng):
    """Balance a city if a card can; otherwise census; reveal every Chaos."""
    layout, hands, info = state
    if kind == Decision.PHASE1:
        census = 0
        for i in range(n_options):
            act, card = options[i, 0], options[i, 1]
            if act == Act.PLACE:
                row, side = options[i, 2], options[i, 3]
                total = row_total_nb(layout, cards, row)
                if total != 0 and total + placed_value_nb(cards, card, side) == 0:
                    return i
            elif act == Act.CENSUS and census == 0:
                census = i
        return census
    if kind == Decision.DRAW_CHAOS:
        for i in range(n_options):
            if options[i, 0] == ChaosHow.REVEAL:
                return i
    return 0
