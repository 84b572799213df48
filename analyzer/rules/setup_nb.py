"""Setup: shuffles, the first row of cities, dealing dreams (R02) and the opening hand (R03)."""

from __future__ import annotations

from analyzer.core.codes import (
    HAND_SIZE,
    MAX_ROWS,
    ChaosHow,
    Decision,
    Info,
    LogEntry,
    Result,
    Side,
)
from analyzer.core.jit import jit
from analyzer.core.rng import shuffle_nb
from analyzer.rules.chaos_nb import chaos_place_options_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import draw_city_nb, draw_dream_nb, is_chaos_nb
from analyzer.rules.log_nb import log_check_nb, log_ids_nb
from analyzer.rules.state_nb import (
    add_to_hand_nb,
    append_to_side_nb,
    hand_count_nb,
    is_running_nb,
    natural_side_nb,
)


@jit
def deal_row_nb(policy, g, cards, row):
    """Deal 2 dreams to ``row``, ignoring elements (R02.1-R02.3)."""
    first = draw_dream_nb(g)
    if first < 0:
        return
    if not is_chaos_nb(cards, first):
        append_to_side_nb(g.layout, row, natural_side_nb(cards, first), first)
    second = draw_dream_nb(g)
    if second < 0:
        return  # the game is lost; a waiting Chaos stays in no zone (docs/engine.md)
    if is_chaos_nb(cards, first) and is_chaos_nb(cards, second):
        set_option_nb(g.options, 0, Side.L, row, -1, -1)
        set_option_nb(g.options, 1, Side.R, row, -1, -1)
        choice = ask_nb(policy, g, cards, Decision.DEAL_SIDE, 2)
        if choice < 0:
            return
        append_to_side_nb(g.layout, row, g.options[choice, 0], first)
        append_to_side_nb(g.layout, row, g.options[choice, 0], second)
    elif is_chaos_nb(cards, first):
        # R02.2: the Chaos joins the normal card's side
        side = natural_side_nb(cards, second)
        append_to_side_nb(g.layout, row, side, second)
        append_to_side_nb(g.layout, row, side, first)
    elif is_chaos_nb(cards, second):
        append_to_side_nb(g.layout, row, natural_side_nb(cards, first), second)
    else:
        append_to_side_nb(g.layout, row, natural_side_nb(cards, second), second)


@jit
def deal_empty_rows_nb(policy, g, cards):
    """Deal 2 dreams to every row without dreams, top to bottom (R05.9)."""
    for row in range(g.info[Info.N_ROWS]):
        if g.layout[row, 1] < 0 and g.layout[row, 4] < 0:
            deal_row_nb(policy, g, cards, row)
            if not is_running_nb(g):
                return


@jit
def opening_hand_nb(policy, g, cards):
    """Draw 4 cards; a Chaos is placed at once or set aside and shuffled back (R03)."""
    while hand_count_nb(g.hands, 0) < HAND_SIZE:
        card = draw_dream_nb(g)
        if card < 0:
            return
        if not is_chaos_nb(cards, card):
            add_to_hand_nb(g.hands, 0, card)
            continue
        n = chaos_place_options_nb(g, cards, card, 0)
        if n == 0:
            set_option_nb(g.options, 0, ChaosHow.ASIDE, -1, -1, card)
            n = 1
        choice = ask_nb(policy, g, cards, Decision.HAND_CHAOS, n)
        if choice < 0:
            return
        if g.options[choice, 0] == ChaosHow.PLACE:
            append_to_side_nb(g.layout, g.options[choice, 1], g.options[choice, 2], card)
            g.stats[Result.CHAOS_PLACED] += 1
        else:
            g.aside[g.info[Info.ASIDE_N]] = card
            g.info[Info.ASIDE_N] += 1
    if g.info[Info.ASIDE_N] > 0:
        shuffle_aside_back_nb(g)


@jit
def shuffle_aside_back_nb(g):
    """R03.2: the deck, then the set-aside Chaos, shuffled together."""
    top = g.info[Info.DECK_TOP]
    n = g.info[Info.DECK_N]
    for k in range(n):
        g.deck[k] = g.deck[top + k]
    for k in range(g.info[Info.ASIDE_N]):
        g.deck[n + k] = g.aside[k]
    n += g.info[Info.ASIDE_N]
    g.info[Info.ASIDE_N] = 0
    g.info[Info.DECK_TOP] = 0
    g.info[Info.DECK_N] = n
    shuffle_nb(g.deck, 0, n, g.deal_rng)
    log_ids_nb(g, LogEntry.SHUFFLE, g.deck, 0, n)


@jit
def setup_nb(policy, g, cards, city_ids, dream_ids):
    """Shuffle both decks, lay out 4 cities, deal them and draw the opening hand."""
    info = g.info
    nc = city_ids.shape[0]
    nd = dream_ids.shape[0]
    g.city_deck[:nc] = city_ids
    shuffle_nb(g.city_deck, 0, nc, g.deal_rng)
    g.deck[:nd] = dream_ids
    shuffle_nb(g.deck, 0, nd, g.deal_rng)
    log_ids_nb(g, LogEntry.CITY_DECK, g.city_deck, 0, nc)
    log_ids_nb(g, LogEntry.DREAM_DECK, g.deck, 0, nd)
    info[Info.CITY_DECK_N] = nc
    info[Info.DECK_N] = nd
    info[Info.TOTAL_CITIES] = nc
    for row in range(min(MAX_ROWS, nc)):
        g.layout[row, 0] = draw_city_nb(g)
        info[Info.N_ROWS] = row + 1
    deal_empty_rows_nb(policy, g, cards)
    if is_running_nb(g):
        opening_hand_nb(policy, g, cards)
    if is_running_nb(g):
        log_check_nb(g)
