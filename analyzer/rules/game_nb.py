"""One whole game: setup, turns (R13.3), and the per-game result row."""

from __future__ import annotations

from analyzer.core.codes import (
    HAND_SIZE,
    SWAP_REMOVES,
    Decision,
    Info,
    LogEntry,
    Outcome,
    Result,
)
from analyzer.core.jit import borrowing_jit
from analyzer.rules.chaos_nb import is_any_chaos_nb, resolve_draw_chaos_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import draw_dream_nb
from analyzer.rules.emptiness_nb import move_emptiness_nb
from analyzer.rules.log_nb import log_check_nb, log_ids_nb
from analyzer.rules.phase1_nb import phase1_nb
from analyzer.rules.postcards_nb import sail_flagships_nb, turn_hourglasses_nb
from analyzer.rules.setup_nb import setup_nb
from analyzer.rules.state_nb import add_to_hand_nb, copy_into_nb, hand_count_nb, is_running_nb


@borrowing_jit
def phase2_nb(policy, g, cards, seat):
    """R06.1: draw until the hand holds 4 cards, resolving each Chaos and Chromatic Chaos
    drawn (R06.2, R07; a Wise Chaos may put it back, R11.3)."""
    while hand_count_nb(g.hands, seat) < HAND_SIZE:
        card = draw_dream_nb(g)
        if card < 0:
            return
        if is_any_chaos_nb(cards, card):
            resolve_draw_chaos_nb(policy, g, cards, card, True)
            if not is_running_nb(g):
                return
        else:
            add_to_hand_nb(g.hands, seat, card)


@borrowing_jit
def swap_polarity_nb(policy, g, cards):
    """R10.4: with 8 or more discards, the seat may remove the 8 most recent from the game
    and swap polarities."""
    info = g.info
    if info[Info.DISCARD_N] < SWAP_REMOVES:
        return
    set_option_nb(g.options, 0, 0, -1, -1, -1)
    set_option_nb(g.options, 1, 1, -1, -1, -1)
    choice = ask_nb(policy, g, cards, Decision.SWAP_POLARITY, 2)
    if choice != 1:
        return
    n = info[Info.DISCARD_N] - SWAP_REMOVES
    log_ids_nb(g, LogEntry.REMOVED, g.discard, n, n + SWAP_REMOVES)
    info[Info.DISCARD_N] = n
    info[Info.REMOVED_N] += SWAP_REMOVES
    info[Info.POLARITY] = 1 - info[Info.POLARITY]
    g.stats[Result.POLARITY_SWAPS] += 1


@borrowing_jit
def start_turn_nb(policy, g, cards):
    """A turn's first steps (R13.3): its number and seat, the Flagships (R11.7), the
    Emptiness (R12.1), and in the team game the polarity swap (R10.4)."""
    info = g.info
    info[Info.TURN] += 1
    info[Info.SEAT] = (info[Info.TURN] - 1) % info[Info.SEATS]
    sail_flagships_nb(g, cards)
    move_emptiness_nb(g)
    if info[Info.SEATS] == 2:
        swap_polarity_nb(policy, g, cards)


@borrowing_jit
def finish_turn_nb(policy, g, cards):
    """Phase I, Phase II, the Hourglasses (R11.6), the check; nothing once it is over."""
    seat = g.info[Info.SEAT]
    if is_running_nb(g):
        phase1_nb(policy, g, cards, seat)
    if is_running_nb(g):
        phase2_nb(policy, g, cards, seat)
    if is_running_nb(g):
        turn_hourglasses_nb(g, cards)
        log_check_nb(g)


@borrowing_jit
def play_turn_nb(policy, g, cards):
    """One whole turn (R13.3); nothing once the game is over."""
    if not is_running_nb(g):
        return
    start_turn_nb(policy, g, cards)
    finish_turn_nb(policy, g, cards)


@borrowing_jit
def play_game_nb(policy, g, cards, city_ids, dream_ids, rules):
    """Play a game on the fresh arrays ``g`` to its end; finish with one last check.

    ``city_ids`` and ``dream_ids`` (int64) are the cards in play, ``rules`` the
    ``Expansion`` bits of the expansion set plus ``TEAM_VARIANT`` for the team game.
    """
    setup_nb(policy, g, cards, city_ids, dream_ids, rules)
    while is_running_nb(g):
        play_turn_nb(policy, g, cards)
    if g.info[Info.OUTCOME] != Outcome.ERROR:
        log_check_nb(g)


@borrowing_jit
def result_row_nb(g, out):
    """Write the game's result into ``out`` (int64, (N_RESULT,), columns per ``Result``)."""
    copy_into_nb(out, g.stats, out.shape[0])
    out[Result.OUTCOME] = g.info[Info.OUTCOME]
    out[Result.REASON] = g.info[Info.REASON]
    out[Result.TURNS] = g.info[Info.TURN]
    out[Result.PACIFIED] = g.info[Info.SUCCESS_N]
    out[Result.DECK_LEFT] = g.info[Info.DECK_N]
    out[Result.INHABITANTS] = g.info[Info.INHABITANTS]
    out[Result.EMPTINESS_LEFT] = g.info[Info.EMPTINESS_N]
    out[Result.SEATS] = g.info[Info.SEATS]
