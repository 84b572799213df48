"""One whole game: setup, turns (R13.3), and the per-game result row."""

from __future__ import annotations

from analyzer.core.codes import HAND_SIZE, Info, Outcome, Result
from analyzer.core.jit import jit
from analyzer.rules.chaos_nb import is_any_chaos_nb, resolve_draw_chaos_nb
from analyzer.rules.deck_nb import draw_dream_nb
from analyzer.rules.log_nb import log_check_nb
from analyzer.rules.phase1_nb import phase1_nb
from analyzer.rules.setup_nb import setup_nb
from analyzer.rules.state_nb import add_to_hand_nb, hand_count_nb, is_running_nb


@jit
def phase2_nb(policy, g, cards, seat):
    """R06.1: draw until the hand holds 4 cards, resolving each Chaos and Chromatic Chaos
    drawn (R06.2, R07)."""
    while hand_count_nb(g.hands, seat) < HAND_SIZE:
        card = draw_dream_nb(g)
        if card < 0:
            return
        if is_any_chaos_nb(cards, card):
            resolve_draw_chaos_nb(policy, g, cards, card)
            if not is_running_nb(g):
                return
        else:
            add_to_hand_nb(g.hands, seat, card)


@jit
def play_turn_nb(policy, g, cards):
    """Phase I then Phase II, then the end-of-turn check (R13.3); nothing once it is over."""
    if not is_running_nb(g):
        return
    seat = g.info[Info.SEAT]
    g.info[Info.TURN] += 1
    phase1_nb(policy, g, cards, seat)
    if is_running_nb(g):
        phase2_nb(policy, g, cards, seat)
    if is_running_nb(g):
        log_check_nb(g)


@jit
def play_game_nb(policy, g, cards, city_ids, dream_ids, expansions):
    """Play a game on the fresh arrays ``g`` to its end; finish with one last check.

    ``city_ids`` and ``dream_ids`` (int64) are the cards in play, ``expansions`` the
    ``Expansion`` bits of the expansion set.
    """
    setup_nb(policy, g, cards, city_ids, dream_ids, expansions)
    while is_running_nb(g):
        play_turn_nb(policy, g, cards)
    if g.info[Info.OUTCOME] != Outcome.ERROR:
        log_check_nb(g)


@jit
def result_row_nb(g, out):
    """Write the game's result into ``out`` (int64, (N_RESULT,), columns per ``Result``)."""
    out[:] = g.stats
    out[Result.OUTCOME] = g.info[Info.OUTCOME]
    out[Result.REASON] = g.info[Info.REASON]
    out[Result.TURNS] = g.info[Info.TURN]
    out[Result.PACIFIED] = g.info[Info.SUCCESS_N]
    out[Result.DECK_LEFT] = g.info[Info.DECK_N]
