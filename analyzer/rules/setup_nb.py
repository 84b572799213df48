"""Setup: shuffles, the first row of cities, the Books (R09.1), dealing dreams (R02), the
opening hands (R03, R10.1), and the Chromatic Chaos held meanwhile (R02.5)."""

from __future__ import annotations

import numpy as np

from analyzer.core.codes import (
    ALL_EXPANSIONS,
    HAND_SIZE,
    MAX_ROWS,
    TEAM_VARIANT,
    BookKind,
    BooksChoice,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    LogEntry,
    Result,
    Side,
    Stream,
)
from analyzer.core.jit import borrowing_jit, jit
from analyzer.core.rng import derived_stream_nb, shuffle_nb
from analyzer.rules.chaos_nb import chaos_place_options_nb, resolve_draw_chaos_nb
from analyzer.rules.decide_nb import ask_nb, set_option_nb
from analyzer.rules.deck_nb import draw_city_nb, draw_dream_nb, is_chaos_nb, is_chromatic_nb
from analyzer.rules.log_nb import log_check_nb, log_ids_nb
from analyzer.rules.postcards_nb import deal_postcard_nb, wise_chaos_count_nb
from analyzer.rules.state_nb import (
    add_to_hand_nb,
    append_to_side_nb,
    copy_into_nb,
    discard_nb,
    hand_count_nb,
    is_running_nb,
    is_two_sided_nb,
    natural_side_nb,
)

#: Books put away unseen (R09.1: 4 of the 8; the others may be revealed, so a card file of
#: other than 8 Books keeps 4 away too), and the Dream cards burnt for each Book laid out.
BOOKS_PUT_AWAY = 4
BURN_PER_BOOK = 4


@borrowing_jit
def hold_nb(g, card):
    """R02.5: a Chromatic Chaos drawn while dealing waits on the held list."""
    g.held[g.info[Info.HELD_N]] = card
    g.info[Info.HELD_N] += 1


@borrowing_jit
def draw_for_deal_nb(g, cards):
    """Draw a card to deal; each Chromatic Chaos drawn is held and replaced (R02.5)."""
    card = draw_dream_nb(g)
    while card >= 0 and is_chromatic_nb(cards, card):
        hold_nb(g, card)
        card = draw_dream_nb(g)
    return card


@borrowing_jit
def deal_one_nb(policy, g, cards, row, card, partner):
    """Place a dealt non-Chaos card by its type, or a Meta/Harmony on the side the policy
    chooses (R02.4), with ``partner``, the other card dealt to the row when it is drawn but
    not placed yet (-1: none), in the option rows; return its side, or -1 when the policy
    failed."""
    if not is_two_sided_nb(cards, card):
        side = natural_side_nb(cards, card)
    else:
        set_option_nb(g.options, 0, Side.L, row, card, partner)
        set_option_nb(g.options, 1, Side.R, row, card, partner)
        choice = ask_nb(policy, g, cards, Decision.DEAL_SIDE, 2)
        if choice < 0:
            return -1
        side = g.options[choice, 0]
    append_to_side_nb(g.layout, row, side, card)
    return side


@borrowing_jit
def deal_row_nb(policy, g, cards, row):
    """Deal 2 dreams to ``row``, ignoring elements (R02.1-R02.5). Both cards are revealed
    before a side is chosen (docs/rules-notes.md 17): a card 1 whose type fixes its side
    is placed at once; a Chaos, Meta or Harmony card 1 waits for card 2."""
    first = draw_for_deal_nb(g, cards)
    if first < 0:
        return
    deal_postcard_nb(g, cards, first)  # R02.6
    first_chaos = is_chaos_nb(cards, first)
    first_waits = first_chaos or is_two_sided_nb(cards, first)
    if not first_waits:
        append_to_side_nb(g.layout, row, natural_side_nb(cards, first), first)
    second = draw_for_deal_nb(g, cards)
    if second < 0:
        return  # the game is lost; a waiting card 1 stays in no zone (docs/engine.md)
    second_chaos = is_chaos_nb(cards, second)
    if first_chaos and second_chaos:
        set_option_nb(g.options, 0, Side.L, row, -1, -1)
        set_option_nb(g.options, 1, Side.R, row, -1, -1)
        choice = ask_nb(policy, g, cards, Decision.DEAL_SIDE, 2)
        if choice < 0:
            return
        append_to_side_nb(g.layout, row, g.options[choice, 0], first)
        append_to_side_nb(g.layout, row, g.options[choice, 0], second)
    elif first_chaos:
        # R02.2, R02.4: the Chaos joins the side the other card takes
        side = deal_one_nb(policy, g, cards, row, second, first)
        if side >= 0:
            append_to_side_nb(g.layout, row, side, first)
    elif first_waits:
        side = deal_one_nb(policy, g, cards, row, first, second)
        if side < 0:
            return
        if second_chaos:
            append_to_side_nb(g.layout, row, side, second)
        else:
            deal_one_nb(policy, g, cards, row, second, -1)
    elif second_chaos:
        append_to_side_nb(g.layout, row, natural_side_nb(cards, first), second)
    else:
        deal_one_nb(policy, g, cards, row, second, -1)


@borrowing_jit
def resolve_held_nb(policy, g, cards):
    """Resolve the held Chromatic Chaos in the order drawn (R02.5, R05.10)."""
    k = 0
    while k < g.info[Info.HELD_N] and is_running_nb(g):
        resolve_draw_chaos_nb(policy, g, cards, g.held[k], False)
        k += 1
    g.info[Info.HELD_N] = 0


@borrowing_jit
def deal_empty_rows_nb(policy, g, cards):
    """Deal 2 dreams to every row without dreams, top to bottom (R05.9)."""
    for row in range(g.info[Info.N_ROWS]):
        if g.layout[row, 1] < 0 and g.layout[row, 4] < 0:
            deal_row_nb(policy, g, cards, row)
            if not is_running_nb(g):
                return


@borrowing_jit
def opening_hand_nb(policy, g, cards, seat):
    """Draw 4 cards; a Chaos is placed at once or set aside and shuffled back (R03)."""
    while hand_count_nb(g.hands, seat) < HAND_SIZE:
        card = draw_dream_nb(g)
        if card < 0:
            return
        if is_chromatic_nb(cards, card):
            hold_nb(g, card)  # R02.5
            continue
        if not is_chaos_nb(cards, card):
            add_to_hand_nb(g.hands, seat, card)
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


@borrowing_jit
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
def ids_of_type_nb(cards, ctype):
    """Ids of the cards of type ``ctype``, ascending (Books, Postcards, Emptiness cards)."""
    n = 0
    for card in range(cards.shape[0]):
        if cards[card, CardField.TYPE] == ctype:
            n += 1
    ids = np.empty(n, dtype=np.int64)
    n = 0
    for card in range(cards.shape[0]):
        if cards[card, CardField.TYPE] == ctype:
            ids[n] = card
            n += 1
    return ids


@borrowing_jit
def reveal_books_nb(policy, g, cards, books):
    """R09.1: reveal Books from the shuffled Book deck ``books`` while the policy wants more
    (all but the 4 put away); return how many were laid out."""
    kept = 0
    while kept < books.shape[0] - BOOKS_PUT_AWAY:
        set_option_nb(g.options, 0, BooksChoice.STOP, -1, -1, -1)
        set_option_nb(g.options, 1, BooksChoice.REVEAL, -1, -1, -1)
        choice = ask_nb(policy, g, cards, Decision.BOOKS, 2)
        if choice < 0 or g.options[choice, 0] == BooksChoice.STOP:
            break
        kind = cards[books[kept], CardField.KIND]
        g.info[Info.BOOKS] |= 1 << kind
        if kind == BookKind.PROPHECIES:
            g.info[Info.PROPHECIES] += 1
        kept += 1
    return kept


@borrowing_jit
def burn_for_books_nb(g, cards, kept):
    """R09.1: 4 Dream cards a Book; the Chaos and Chromatic Chaos among them go back and
    the deck is shuffled, the others are discarded."""
    for _ in range(BURN_PER_BOOK * kept):
        card = draw_dream_nb(g)
        if card < 0:
            return
        if is_chaos_nb(cards, card) or is_chromatic_nb(cards, card):
            g.aside[g.info[Info.ASIDE_N]] = card
            g.info[Info.ASIDE_N] += 1
        else:
            discard_nb(g, card)
    if g.info[Info.ASIDE_N] > 0:
        shuffle_aside_back_nb(g)


@jit
def shuffle_extra_decks_nb(g, cards, expansions):
    """Shuffle the Book deck and the Postcard deck of the expansions in play, each with its
    own stream derived from the DEAL stream (docs/engine.md); return the Book deck."""
    books = np.zeros(0, dtype=np.int64)
    if expansions & Expansion.BOOKS:
        books = ids_of_type_nb(cards, CardType.BOOK)
        shuffle_nb(books, 0, books.shape[0], derived_stream_nb(g.deal_rng, Stream.BOOK_DECK))
        log_ids_nb(g, LogEntry.BOOK_DECK, books, 0, books.shape[0])
    if expansions & Expansion.POSTCARDS:
        postcards = ids_of_type_nb(cards, CardType.POSTCARD)
        n = postcards.shape[0]
        shuffle_nb(postcards, 0, n, derived_stream_nb(g.deal_rng, Stream.POSTCARD_DECK))
        copy_into_nb(g.postcard_deck, postcards, n)
        g.info[Info.POSTCARD_N] = n
        log_ids_nb(g, LogEntry.POSTCARD_DECK, g.postcard_deck, 0, n)
    return books


@jit
def start_counters_nb(g, cards, rules):
    """The rules word's expansions and variant, and the expansions' counters (R10-R12)."""
    info = g.info
    expansions = rules & ALL_EXPANSIONS
    info[Info.EXPANSIONS] = expansions
    info[Info.SEATS] = 2 if rules & TEAM_VARIANT else 1
    if expansions & Expansion.POSTCARDS:
        info[Info.WISE_LEFT] = wise_chaos_count_nb(expansions)
    if expansions & Expansion.EMPTINESS:
        info[Info.EMPTINESS_N] = ids_of_type_nb(cards, CardType.EMPTINESS).shape[0]


@jit
def setup_nb(policy, g, cards, city_ids, dream_ids, rules):
    """Shuffle the decks, lay out 4 cities, reveal Books, deal the cities, draw the opening
    hands, then resolve the Chromatic Chaos held meanwhile (R02.5). ``rules``: the
    ``Expansion`` bits, plus ``TEAM_VARIANT`` for the team game."""
    info = g.info
    start_counters_nb(g, cards, rules)
    nc = city_ids.shape[0]
    nd = dream_ids.shape[0]
    copy_into_nb(g.city_deck, city_ids, nc)
    shuffle_nb(g.city_deck, 0, nc, g.deal_rng)
    copy_into_nb(g.deck, dream_ids, nd)
    shuffle_nb(g.deck, 0, nd, g.deal_rng)
    log_ids_nb(g, LogEntry.CITY_DECK, g.city_deck, 0, nc)
    log_ids_nb(g, LogEntry.DREAM_DECK, g.deck, 0, nd)
    books = shuffle_extra_decks_nb(g, cards, info[Info.EXPANSIONS])
    info[Info.CITY_DECK_N] = nc
    info[Info.DECK_N] = nd
    info[Info.TOTAL_CITIES] = nc
    for row in range(min(MAX_ROWS, nc)):
        g.layout[row, 0] = draw_city_nb(g)
        info[Info.N_ROWS] = row + 1
    if books.shape[0] > 0:
        kept = reveal_books_nb(policy, g, cards, books)
        g.stats[Result.BOOKS_KEPT] = kept
        burn_for_books_nb(g, cards, kept)
    if is_running_nb(g):
        deal_empty_rows_nb(policy, g, cards)
    for seat in range(info[Info.SEATS]):
        info[Info.SEAT] = seat
        if is_running_nb(g):
            opening_hand_nb(policy, g, cards, seat)
    info[Info.SEAT] = 0
    if is_running_nb(g):
        resolve_held_nb(policy, g, cards)
    if is_running_nb(g):
        log_check_nb(g)
