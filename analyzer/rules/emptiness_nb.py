"""The Emptiness (R12): the figure's walk down the rows, its census check, Ally against the
Emptiness, and the bonus City card of the last Emptiness card."""

from __future__ import annotations

from analyzer.core.codes import EMPTY, Info, Outcome, Reason
from analyzer.core.jit import borrowing_jit
from analyzer.rules.chaos_nb import clear_row_nb
from analyzer.rules.deck_nb import add_success_nb, draw_city_nb, end_game_nb
from analyzer.rules.state_nb import emptiness_row_nb, is_balanced_nb, row_dreams_nb


@borrowing_jit
def move_emptiness_nb(g):
    """R12.1, at the start of every turn (after the Flagships, R13.3)."""
    info = g.info
    if info[Info.EMPTINESS_N] == 0 or info[Info.N_ROWS] == 0:
        return
    if info[Info.EMPTINESS_FLAT] == 1:
        info[Info.EMPTINESS_FLAT] = 0  # stood up on the pile instead of moving
        return
    row = emptiness_row_nb(g)
    target = 0 if row == EMPTY or row + 1 >= info[Info.N_ROWS] else row + 1
    info[Info.EMPTINESS_CITY] = g.layout[target, 0]


@borrowing_jit
def remove_emptiness_card_nb(g, flat):
    """The top Emptiness card leaves the game; the figure goes to the pile (lying ``flat``
    after an Ally), or with the last card leaves too and the top City card goes to Success
    (R12.2-R12.4)."""
    info = g.info
    info[Info.EMPTINESS_N] -= 1
    info[Info.EMPTINESS_CITY] = EMPTY
    if info[Info.EMPTINESS_N] > 0:
        info[Info.EMPTINESS_FLAT] = flat
        return
    info[Info.EMPTINESS_FLAT] = 0
    if draw_city_nb(g) != EMPTY:
        add_success_nb(g)


@borrowing_jit
def check_emptiness_city_nb(g, cards, row):
    """R12.2, at a census: balanced, a card leaves; dreams, they are discarded; none, the
    game is lost."""
    if is_balanced_nb(g.layout, cards, row):
        remove_emptiness_card_nb(g, 0)
    elif row_dreams_nb(g.layout, row) > 0:
        clear_row_nb(g, row)
    else:
        end_game_nb(g, Outcome.LOSS, Reason.EMPTINESS)


@borrowing_jit
def ally_nb(g):
    """R12.3 Ally against the Emptiness (its two cards are paid by Phase I)."""
    remove_emptiness_card_nb(g, 1)
