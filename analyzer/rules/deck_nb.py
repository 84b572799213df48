"""Drawing from the decks, the Success pile, and the end of the game (R13)."""

from __future__ import annotations

from analyzer.core.codes import EMPTY, CardField, CardType, Info, Outcome, Reason
from analyzer.core.jit import borrowing_jit


@borrowing_jit
def end_game_nb(g, outcome, reason):
    """Finish the game (only the first end counts)."""
    if g.info[Info.OUTCOME] == Outcome.RUNNING:
        g.info[Info.OUTCOME] = outcome
        g.info[Info.REASON] = reason


@borrowing_jit
def take_top_nb(deck, info, top_field, count_field):
    """Take the top card of a deck kept as ``deck[info[top_field]:][:info[count_field]]``.

    Returns -1 when the deck is empty.
    """
    n = info[count_field]
    if n == 0:
        return EMPTY
    top = info[top_field]
    info[top_field] = top + 1
    info[count_field] = n - 1
    return deck[top]


@borrowing_jit
def draw_dream_nb(g):
    """Top Dream card, or -1 and a loss when the deck is empty (R13.2, R06.3)."""
    card = take_top_nb(g.deck, g.info, Info.DECK_TOP, Info.DECK_N)
    if card == EMPTY:
        end_game_nb(g, Outcome.LOSS, Reason.DECK_EMPTY)
    return card


@borrowing_jit
def draw_city_nb(g):
    """Top City card, or -1 when the City deck is empty (not a loss)."""
    return take_top_nb(g.city_deck, g.info, Info.CITY_TOP, Info.CITY_DECK_N)


@borrowing_jit
def add_success_nb(g):
    """One more City card in the Success pile; the game ends the moment all are there
    (R13.1): won, unless the Inhabitant pile sums below 0 (R11.9)."""
    g.info[Info.SUCCESS_N] += 1
    if g.info[Info.SUCCESS_N] >= g.info[Info.TOTAL_CITIES]:
        if g.info[Info.INHABITANTS] < 0:
            end_game_nb(g, Outcome.LOSS, Reason.INHABITANTS)
        else:
            end_game_nb(g, Outcome.WIN, Reason.ALL_PACIFIED)


@borrowing_jit
def is_chaos_nb(cards, card):
    """True for a (plain) Chaos card."""
    return cards[card, CardField.TYPE] == CardType.CHAOS


@borrowing_jit
def is_chromatic_nb(cards, card):
    """True for a Chromatic Chaos (R07)."""
    return cards[card, CardField.TYPE] == CardType.CHROMATIC
