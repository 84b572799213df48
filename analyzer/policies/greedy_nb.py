"""``greedy``: a one-step heuristic that plays like a careful beginner (docs/policies.md).

Every legal option gets a score from the position it leads to and the best one is taken
(ties: the first in contract order). The weights are the policy's ``params`` so that they
can be changed without recompiling; ``GREEDY_WEIGHTS`` holds the defaults.

It reads the policy view only (docs/engine.md): with Books of Power, Postcards & Wise Chaos,
The Emptiness and the team game it also reads the Books laid out, the Wise Chaos left, the
Inhabitant sum, the Emptiness figure and cards, the postcard on each dream, and both hands.

A decision's tables (row facts, scores, gains) live on the stack of the kernel that fills
them (``stack_array``), so that no helper allocates and all of them compile without
reference counting (core/jit.py, ``borrowing_jit``).
"""

from __future__ import annotations

import math

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    MAX_OPTIONS,
    MAX_ROWS,
    N_BOOK_KINDS,
    N_SLOTS,
    SIDE_SLOTS,
    Act,
    BookKind,
    BooksChoice,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Expansion,
    GreedyWeight,
    Info,
    PostcardKind,
    Side,
)
from analyzer.core.greedy_terms import (
    EXPECTED_POINTS,
    LOSING,
    MAX_WEIGHT,
    MAX_WEIGHT_TEXT,
    PARTNER_SHARE,
    WINNING,
    ZERO_SUM_POINT,
)
from analyzer.core.jit import borrowing_jit, cached_jit, inline_jit
from analyzer.core.scratch import stack_array
from analyzer.rules.books_nb import BOOK_PERFECT_BONUS
from analyzer.rules.chaos_nb import REVEAL_COUNT
from analyzer.rules.chromatic_nb import WISE_ROW
from analyzer.rules.deck_nb import is_chaos_nb
from analyzer.rules.postcards_nb import kind_met_nb
from analyzer.rules.state_nb import (
    is_two_sided_nb,
    placed_value_nb,
    row_total_nb,
    side_count_nb,
    type_takes_side_nb,
    value_on_side_nb,
)

#: Inhabitant points of a postcard scored with its condition met, and otherwise or sent
#: away (R11.4).
MET_POINTS = 1
SENT_POINTS = -2
#: A dream added beside a lone Dreamcatcher turns its +1 into -2.
BROKEN_POINTS = MET_POINTS - SENT_POINTS


#: Indices of the greedy weights in ``params`` (core/codes.py, shared with the plain-Python
#: twin in reference/greedy.py).
W = GreedyWeight

GREEDY_WEIGHTS: dict[str, float] = {
    "BALANCE": 50.0,
    "PROGRESS": 8.0,
    "SLOT": 3.0,
    "STUCK": 30.0,
    "SETUP": 12.0,
    "CENSUS_CITY": 25.0,
    "TURN": 20.0,
    "PERFECT": 150.0,
    "PASS": 5.0,
    "CHAOS_POINT": 8.0,
    "CLEAR": 60.0,
    "REVEAL_CARD": 8.0,
    "RUIN": 100.0,
    "FLEX": 15.0,
    "BOOKS_KEEP": 0.5,
    "FREEDOM": 60.0,
    "PROPHECY": 3.0,
    "EMPTINESS_CARD": 15.0,
    "EMPTINESS_DREAM": 2.0,
    "WISE": 10.0,
    "SWAP": 10.0,
    "POSTCARD": 20.0,
}
#: The params after the weights: facts of the Dream cards in play, which greedy_params fills.
CARD_FACTS = ("MAX_SOGNAE", "MAX_INCUBI")

#: The expansions (and "team", the team variant) whose decisions make a weight matter; an
#: empty tuple: every game. ``urbion tune`` searches only the weights of the set it tunes
#: for, so the others keep their start value instead of drifting where no game feels them.
#: RUIN prices a dream put on a balanced city. Every placement reads it, but in the base
#: game solo such a placement never comes near being chosen (RUIN from 0 to 20 times its
#: value changed none of 30,000 games); a Chromatic Chaos's side (R07), a postcard's score
#: (R11) and a seat's polarity (R10.3) make it felt. tests/test_duel_tune.py checks the
#: table against every single expansion and the team game.
WEIGHT_USERS: dict[str, tuple[str, ...]] = {
    **{name: () for name in ("BALANCE", "PROGRESS", "SLOT", "STUCK", "SETUP",
                             "CENSUS_CITY", "TURN", "PERFECT", "PASS", "CHAOS_POINT",
                             "CLEAR", "REVEAL_CARD")},
    "RUIN": ("chromatic_chaos", "postcards", "team"),
    "FLEX": ("gardens_wizards",),  # Rebuild (R08)
    "BOOKS_KEEP": ("books",),
    "FREEDOM": ("books",),
    "PROPHECY": ("books",),
    "EMPTINESS_CARD": ("emptiness",),
    "EMPTINESS_DREAM": ("emptiness",),
    "WISE": ("postcards",),
    "SWAP": ("team",),
    "POSTCARD": ("postcards",),
}


def greedy_params(overrides: dict[str, float] | None = None,
                  cards: np.ndarray | None = None) -> np.ndarray:
    """The parameter vector (float64, (len(W),)): weights with optional overrides by name,
    then facts of the card table ``cards`` (the R14 values when None), so that the policy
    does not rescan the card table at every decision."""
    weights = dict(GREEDY_WEIGHTS)
    for name, value in (overrides or {}).items():
        if name not in weights:
            raise ValueError(f"unknown greedy weight {name!r}")
        if not math.isfinite(float(value)) or abs(float(value)) > MAX_WEIGHT:
            raise ValueError(f"greedy weight {name} must be a finite number from "
                             f"-{MAX_WEIGHT_TEXT} to {MAX_WEIGHT_TEXT}, not {value!r}")
        weights[name] = float(value)
    # R14's largest Sognae and Incubi values when no cards are given
    weights.update(zip(CARD_FACTS, (4, 3) if cards is None else extreme_values(cards),
                       strict=True))
    return np.array([weights[name] for name in W._fields], dtype=np.float64)


def extreme_values(cards: np.ndarray) -> tuple[int, int]:
    """Largest Sognae value and largest Incubi magnitude a card from hand can bring
    (Sognae, Incubi, Wizards, and both values of Metas and Harmony)."""
    types = cards[:, CardField.TYPE]
    values = cards[:, CardField.VALUE]
    two_sided = (types == CardType.META) | (types == CardType.HARMONY)
    wizard = types == CardType.WIZARD
    pos = np.concatenate([values[(types == CardType.SOGNAE) | two_sided],
                          values[wizard & (values > 0)]]).max(initial=1)
    neg = np.concatenate([-values[(types == CardType.INCUBI) | (wizard & (values < 0))],
                          -cards[two_sided, CardField.VALUE2]]).max(initial=1)
    return int(pos), int(neg)


@inline_jit
def fixable_nb(total, n_left, n_right, max_pos, max_neg):
    """Can placements still bring ``total`` to 0 with the room left on the needed side?"""
    if total > 0:
        return total <= (SIDE_SLOTS - n_right) * max_neg
    if total < 0:
        return -total <= (SIDE_SLOTS - n_left) * max_pos
    return True


#: Column of ``fill_row_facts_nb`` for the left side's Dreamcatcher flag; the right's follows.
CATCHER = 4
#: Columns of the row facts.
FACT_COLS = CATCHER + 2
#: Slots of one side over all rows: the most dreams ``exchange_inputs_nb`` lists.
SIDE_POSITIONS = MAX_ROWS * SIDE_SLOTS
#: Entries of the gains of the actions on offer, by ``Act``; with a flag per Book kind,
#: the kinds of action ``act_gains_nb`` has weighed.
N_ACT_GAINS = Act.ALLY + 1
N_ACT_KINDS = N_ACT_GAINS + N_BOOK_KINDS


@inline_jit
def slot_value_nb(cards, card, side):
    """``value_on_side_nb`` of the card in a slot, without a branch (selects only), for
    loops over every slot of a row; an empty slot (-1) reads card 0, and its value is
    meaningless."""
    card = max(card, 0)
    ctype, value = cards[card, CardField.TYPE], cards[card, CardField.VALUE]
    right = side == Side.R
    turned = right & ((ctype == CardType.CHAOS) | (ctype == CardType.CHROMATIC))
    second = right & ((ctype == CardType.META) | (ctype == CardType.HARMONY))
    value = -value if turned else value
    return cards[card, CardField.VALUE2] if second else value


@inline_jit
def tally_row_nb(layout, cards, r):
    """A city's total (R01.2) and its dreams on the left and on the right, without
    a branch per slot: which slots hold dreams is as unpredictable as a coin, and a branch
    that guesses wrong costs more than reading an empty slot's card."""
    total = n_left = n_right = 0
    for pos in range(N_SLOTS):
        card = layout[r, 1 + pos]
        held = card != EMPTY
        side = pos // SIDE_SLOTS
        total += slot_value_nb(cards, card, side) if held else 0
        n_left += 1 if held and side == Side.L else 0
        n_right += 1 if held and side == Side.R else 0
    return total, n_left, n_right


@borrowing_jit
def fill_row_facts_nb(facts, layout, cards, info):
    """Fill ``facts`` (int64 (MAX_ROWS, FACT_COLS), a ``stack_array``) per row: total, left
    and right counts, balanced flag, then for the left and the right side 1 when it holds a
    single dream carrying a Dreamcatcher (R11.5: a dream added there turns its +1 into -2);
    rows not in play all 0. Read once per decision, so that loops over placements hand no
    array to a postcard helper."""
    facts[:] = 0
    pc = postcards_nb(info)
    for r in range(info[Info.N_ROWS]):
        if layout[r, 0] == EMPTY:
            continue
        total, n_left, n_right = tally_row_nb(layout, cards, r)
        facts[r, 0] = total
        facts[r, 1] = n_left
        facts[r, 2] = n_right
        facts[r, 3] = 1 if n_left + n_right > 0 and total == 0 else 0  # R01.3
        if pc:
            for side in range(2):
                postcard = info[Info.POSTCARD_AT + r * N_SLOTS + side * SIDE_SLOTS]
                alone = (n_left if side == Side.L else n_right) == 1 and postcard != EMPTY \
                    and cards[postcard, CardField.KIND] == PostcardKind.DREAMCATCHER
                facts[r, CATCHER + side] = 1 if alone else 0


@inline_jit
def is_chaos_like_nb(cards, card):
    """A Chaos or a Chromatic Chaos: no Book moves or removes it (R09.3, R09.4)."""
    ctype = cards[card, CardField.TYPE]
    return ctype == CardType.CHAOS or ctype == CardType.CHROMATIC


# --- postcards (R11) -----------------------------------------------------------------------


@inline_jit
def postcards_nb(info):
    """True with Postcards to the Oniverse in play. Hot loops test this once and skip the
    postcard helpers: each call passes arrays, and a call boundary costs reference counts."""
    return info[Info.EXPANSIONS] & Expansion.POSTCARDS != 0


@inline_jit
def postcard_kind_nb(info, cards, r, pos):
    """Kind of the postcard on the dream at ``pos`` (0-2 left, 3-5 right) of row ``r``,
    or -1 (none, or no postcards in play)."""
    if info[Info.EXPANSIONS] & Expansion.POSTCARDS == 0:
        return EMPTY
    postcard = info[Info.POSTCARD_AT + r * N_SLOTS + pos]
    return EMPTY if postcard == EMPTY else cards[postcard, CardField.KIND]


@borrowing_jit
def pacify_points_nb(layout, cards, info, r, n_rows, perfect):
    """Inhabitant points the postcards of row ``r`` would score if pacified now (R11.4),
    and what that gains over their expected score (``EXPECTED_POINTS``)."""
    points = 0
    gain = 0.0
    for pos in range(N_SLOTS):
        kind = postcard_kind_nb(info, cards, r, pos)
        if kind != EMPTY:
            # would it score +1 if its city were pacified now (R11.4, R11.5)?
            met = kind_met_nb(layout, cards, n_rows, r, pos // SIDE_SLOTS, kind, perfect)
            points += MET_POINTS if met else SENT_POINTS
            gain += (MET_POINTS if met else SENT_POINTS) - EXPECTED_POINTS[kind]
    return points, gain


@inline_jit
def catcher_cost_nb(facts, r, side, params):
    """Cost of adding a dream to ``side`` of row ``r`` for its postcards, from
    ``fill_row_facts_nb``."""
    return params[W.POSTCARD] * BROKEN_POINTS if facts[r, CATCHER + side] == 1 else 0.0


@inline_jit
def sent_away_points_nb(info, cards, r, pos):
    """Expected points lost when the postcard at ``pos`` of row ``r`` is sent away (-2)."""
    kind = postcard_kind_nb(info, cards, r, pos)
    return 0.0 if kind == EMPTY else EXPECTED_POINTS[kind] - SENT_POINTS


@inline_jit
def sent_away_cost_nb(info, cards, r, pos, params):
    """Cost of discarding the dream at ``pos`` of row ``r``: its postcard scores -2."""
    return params[W.POSTCARD] * sent_away_points_nb(info, cards, r, pos)


@inline_jit
def rocket_cost_nb(info, cards, r, pos, params):
    """Cost of moving the dream at ``pos`` of row ``r``: a Resting Rocket goes (R11.8)."""
    if postcard_kind_nb(info, cards, r, pos) == PostcardKind.ROCKET:
        return sent_away_cost_nb(info, cards, r, pos, params)
    return 0.0


@borrowing_jit
def row_sent_away_cost_nb(info, cards, r, params):
    """Cost of discarding every dream of row ``r`` other than by pacifying it."""
    cost = 0.0
    for pos in range(N_SLOTS):
        cost += sent_away_cost_nb(info, cards, r, pos, params)
    return cost


@borrowing_jit
def balance_postcards_nb(layout, cards, info, r, params):
    """What pacifying row ``r`` at the next census gains for its postcards (a placement
    that balances it; R11.4)."""
    _, gain = pacify_points_nb(layout, cards, info, r, info[Info.N_ROWS], False)
    return params[W.POSTCARD] * gain


@inline_jit
def inhabitants_ok_nb(info, points):
    """R11.9: a win needs the Inhabitant sum, with ``points`` more, at 0 or above."""
    return info[Info.INHABITANTS] + points >= 0


# --- placements ----------------------------------------------------------------------------


@inline_jit
def place_weights_nb(params):
    """The weights ``place_score_nb`` reads, as a tuple of floats, read once per decision:
    an array handed to an inlined helper with branches costs reference counts on every
    call, a tuple of floats none."""
    return (params[W.RUIN], params[W.PERFECT], params[W.BALANCE], params[W.PROGRESS],
            params[W.SLOT], params[W.STUCK], params[W.SETUP], params[W.MAX_SOGNAE],
            params[W.MAX_INCUBI])


@inline_jit
def facts_row_nb(facts, r):
    """Row ``r`` of ``fill_row_facts_nb`` as a tuple (total, left, right, balanced)."""
    return facts[r, 0], facts[r, 1], facts[r, 2], facts[r, 3]


@inline_jit
def place_score_nb(row, value, side, other_fix, weights, n_rows, n_bal):
    """Score of adding a dream of ``value`` to ``side`` of a row with facts ``row``
    (``facts_row_nb``), under ``weights`` (``place_weights_nb``).

    ``other_fix`` is True when another hand card could then balance the row exactly.
    """
    total, n_left, n_right, balanced = row
    ruin, perfect, balance, progress, slot, stuck, setup, max_pos, max_neg = weights
    if balanced == 1:
        return -ruin
    after = total + value
    if after == 0:
        bonus = perfect * 0.2 if n_bal + 1 == n_rows == MAX_ROWS else 0.0
        return balance + bonus
    n_left += 1 if side == Side.L else 0
    n_right += 1 if side == Side.R else 0
    score = progress * (abs(total) - abs(after)) - slot
    if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
        score -= stuck
    if other_fix:
        score += setup
    return score


#: Columns of ``fill_mate_nb``'s table: the card, its elements, then the total at which it
#: balances a row from the left and from the right (two columns; ``NO_NEED`` when it cannot
#: take that side or the side is not asked for).
MATE_CARD, MATE_ELEMENTS, MATE_NEED = 0, 1, 2
MATE_COLS = 4
#: A total no row reaches (a few card values at most): a side no card balances a row from.
NO_NEED = -(1 << 62)


@inline_jit
def fill_mate_nb(table, cards, hand, only_side):
    """Fill ``table`` (int64 (HAND_SIZE, MATE_COLS), a ``stack_array``) with what each card
    of ``hand`` brings to a side (``only_side``; -1: either), read once per decision for
    ``completes_nb``; an empty hand slot shows no element and balances nothing."""
    for k in range(HAND_SIZE):
        c = hand[k]
        table[k, MATE_CARD] = c
        table[k, MATE_ELEMENTS] = 0
        table[k, MATE_NEED + Side.L] = NO_NEED
        table[k, MATE_NEED + Side.R] = NO_NEED
        if c == EMPTY:
            continue
        ctype, value = cards[c, CardField.TYPE], cards[c, CardField.VALUE]
        table[k, MATE_ELEMENTS] = cards[c, CardField.ELEMENTS]
        for side in range(2):
            if (only_side < 0 or side == only_side) and type_takes_side_nb(ctype, value, side):
                table[k, MATE_NEED + side] = -value_on_side_nb(ctype, value,
                                                               cards[c, CardField.VALUE2], side)


@inline_jit
def completes_nb(mates, city_elements, skip, after, n_left, n_right):
    """True when a card of the ``fill_mate_nb`` table ``mates`` other than ``skip`` could
    balance a row whose city shows ``city_elements`` at ``after``, on a side with room.
    Bitwise, without branches: it runs for most placements on offer, and which card
    answers is as unpredictable as a coin."""
    room_left = n_left < SIDE_SLOTS
    room_right = n_right < SIDE_SLOTS
    hit = False
    for k in range(HAND_SIZE):
        fits = (mates[k, MATE_ELEMENTS] & city_elements != 0) & (mates[k, MATE_CARD] != skip)
        left = (mates[k, MATE_NEED + Side.L] == after) & room_left
        right = (mates[k, MATE_NEED + Side.R] == after) & room_right
        hit |= fits & (left | right)
    return hit


@borrowing_jit
def best_placement_nb(layout, cards, facts, info, hand, side, params):
    """Best score of placing a card of ``hand`` on ``side`` (-1: either), or -PASS when
    none can be placed: what a seat of that polarity makes of its hand (R10.3)."""
    best_left, best_right = side_placements_nb(layout, cards, facts, info, hand, side, params)
    return max(best_left, best_right)


@borrowing_jit
def side_placements_nb(layout, cards, facts, info, hand, side, params):
    """``best_placement_nb`` on the left and on the right side at once, as (left, right);
    a side other than ``side`` (-1: either) is -PASS. One pass serves both polarities."""
    n_rows = info[Info.N_ROWS]
    n_bal = facts[:, 3].sum()
    weights = place_weights_nb(params)
    # what a row offers each side, read once: its city's elements (0: no city, no room, or
    # a side not asked for) and the cost of its postcards
    reach = stack_array((2, MAX_ROWS), np.int64)
    catcher = stack_array((2, MAX_ROWS), np.float64)
    pc = postcards_nb(info)
    for s in range(2):
        for r in range(n_rows):
            open_side = layout[r, 0] != EMPTY and facts[r, 1 + s] < SIDE_SLOTS and \
                (side < 0 or s == side)
            reach[s, r] = cards[layout[r, 0], CardField.ELEMENTS] if open_side else 0
            catcher[s, r] = catcher_cost_nb(facts, r, s, params) if pc else 0.0
    best_left = best_right = -params[W.PASS]
    for k in range(HAND_SIZE):
        c = hand[k]
        if c == EMPTY:
            continue
        ctype, cvalue = cards[c, CardField.TYPE], cards[c, CardField.VALUE]
        elements = cards[c, CardField.ELEMENTS]
        for s in range(2):
            if not type_takes_side_nb(ctype, cvalue, s):
                continue
            value = value_on_side_nb(ctype, cvalue, cards[c, CardField.VALUE2], s)
            best = best_left if s == Side.L else best_right
            for r in range(n_rows):
                if reach[s, r] & elements == 0:
                    continue
                score = place_score_nb(facts_row_nb(facts, r), value, s, False, weights,
                                       n_rows, n_bal) - catcher[s, r]
                best = max(best, score)
            if s == Side.L:
                best_left = best
            else:
                best_right = best
    return best_left, best_right


# --- exchanges, rebuilds, change sides -------------------------------------------------------


#: Fields of ``exchange_inputs_nb``'s dreams table (int64) and worths table (float64).
CARD, ROW, VALUE, TOTAL = 0, 1, 2, 3
WORTH, ROCKET = 0, 1


@borrowing_jit
def best_exchange_nb(layout, cards, facts, n_rows, params, info):
    """Best Exchange as (gain, a, b); a and b are -1 when no pair helps.

    Pairs are tried in option order (side, then position row-major), over the positions
    that hold a dream only: ties go to the first pair, as in the option list (R04.4).
    """
    best = -1e9
    best_a = EMPTY
    best_b = EMPTY
    balance, progress = params[W.BALANCE], params[W.PROGRESS]
    dreams = stack_array((2, 4, SIDE_POSITIONS), np.int64)
    worths = stack_array((2, 2, SIDE_POSITIONS), np.float64)
    n_left, n_right = exchange_inputs_nb(dreams, worths, layout, cards, facts, info, n_rows,
                                         params)
    for side in range(2):
        m = n_left if side == Side.L else n_right
        for i in range(m):
            ra, va = dreams[side, ROW, i], dreams[side, VALUE, i]
            rest_a = dreams[side, TOTAL, i] - va
            worth_a, rocket_a = worths[side, WORTH, i], worths[side, ROCKET, i]
            for j in range(i + 1, m):
                if dreams[side, ROW, j] == ra:
                    continue
                vb = dreams[side, VALUE, j]
                ta = rest_a + vb
                tb = dreams[side, TOTAL, j] - vb + va
                after = city_worth_nb(ta, ta == 0, balance, progress) + \
                    city_worth_nb(tb, tb == 0, balance, progress)
                gain = after - (worth_a + worths[side, WORTH, j]) - rocket_a - \
                    worths[side, ROCKET, j]
                if gain > best:
                    best = gain
                    best_a = dreams[side, CARD, i]
                    best_b = dreams[side, CARD, j]
    return best, best_a, best_b


@inline_jit
def exchange_inputs_nb(dreams, worths, layout, cards, facts, info, n_rows, params):
    """Fill the tables of the dreams of each side in position order (row-major) and return
    how many each side holds, as (n_left, n_right): ``dreams[side, CARD | ROW | VALUE |
    TOTAL, k]`` (int64 (2, 4, SIDE_POSITIONS)) is the k-th dream's card, row, placed value
    and its city's total; ``worths[side, WORTH | ROCKET, k]`` (float64 (2, 2,
    SIDE_POSITIONS)) its city's ``city_worth_nb`` and what moving it costs. Read once per
    call, so that the loop over pairs reads contiguous rows of these tables only.

    Every slot is written at its side's next entry, and counted only when it holds a dream:
    which slots do is as unpredictable as a coin, and a branch that guesses wrong costs
    more than the stores (an empty slot's entry is overwritten, or lies past the count; a
    slot's entry never passes the slots before it on its side)."""
    balance, progress = params[W.BALANCE], params[W.PROGRESS]
    pc = postcards_nb(info)
    n_left = 0
    n_right = 0
    # one pass over the rows fills both sides' lists, each still in position order
    for r in range(n_rows):
        total = facts[r, 0]
        worth = city_worth_nb(total, facts[r, 3] == 1, balance, progress)
        for pos in range(N_SLOTS):
            card = layout[r, 1 + pos]
            side = pos // SIDE_SLOTS
            m = n_left if side == Side.L else n_right
            dreams[side, CARD, m] = card
            dreams[side, ROW, m] = r
            dreams[side, VALUE, m] = slot_value_nb(cards, card, side)
            dreams[side, TOTAL, m] = total
            worths[side, WORTH, m] = worth
            worths[side, ROCKET, m] = rocket_cost_nb(info, cards, r, pos, params) if pc \
                else 0.0
            held = 1 if card != EMPTY else 0
            if side == Side.L:
                n_left += held
            else:
                n_right += held
    return n_left, n_right


@inline_jit
def city_worth_nb(total, balanced, balance, progress):
    """How good a city's state is, for comparing swaps, from the two weights: scalars
    only, so that inner loops pass no array."""
    return balance if balanced else -progress * abs(total)


@inline_jit
def city_value_nb(total, balanced, params):
    """``city_worth_nb`` with the weights read from ``params``."""
    return city_worth_nb(total, balanced, params[W.BALANCE], params[W.PROGRESS])


@borrowing_jit
def pressure_nb(info, n_bal):
    """Deck cards still needed per card left (about 1 when the deck is just enough)."""
    unbalanced = info[Info.TOTAL_CITIES] - info[Info.SUCCESS_N] - n_bal
    need = 2 * info[Info.CITY_DECK_N] + 3 * max(unbalanced, 0)
    return need / max(info[Info.DECK_N], 1)


@borrowing_jit
def flex_nb(cards, city):
    """Elements a City card shows: how many hand cards can reach it."""
    m = cards[city, CardField.ELEMENTS]
    n = 0
    while m:
        n += m & 1
        m >>= 1
    return n


@inline_jit
def rebuild_gain_nb(fa, fb, a_balanced, b_balanced, weight):
    """Gain of swapping the City cards of rows a and b, whose cities show ``fa`` and ``fb``
    elements (``flex_nb``): the elements that unbalanced cities gain (a Hanging Garden moved
    onto balanced dreams is pacified by the next census, a city with elements takes its
    place where cards from hand are needed). Scalars only: it runs once per pair of rows."""
    gain = 0.0
    if not a_balanced:
        gain += fb - fa
    if not b_balanced:
        gain += fa - fb
    return weight * gain


@borrowing_jit
def best_rebuild_nb(layout, cards, facts, n_rows, params, barred):
    """Best Rebuild as (gain, row a, row b); never the Emptiness row ``barred`` (R12)."""
    best, best_a, best_b = -1e9, 0, 1
    weight = params[W.FLEX]
    flex = stack_array(MAX_ROWS, np.int64)
    for r in range(n_rows):
        flex[r] = flex_nb(cards, layout[r, 0])
    for a in range(n_rows):
        if a == barred:
            continue
        for b in range(a + 1, n_rows):
            if b == barred:
                continue
            gain = rebuild_gain_nb(flex[a], flex[b], facts[a, 3] == 1, facts[b, 3] == 1,
                                   weight)
            if gain > best:
                best, best_a, best_b = gain, a, b
    return best, best_a, best_b


@borrowing_jit
def best_flip_nb(layout, cards, facts, n_rows, params, info):
    """Best Change Sides as (gain, card): a Chaos turned over changes its city's total by
    twice its value."""
    best, best_card = -1e9, EMPTY
    balance, progress = params[W.BALANCE], params[W.PROGRESS]
    pc = postcards_nb(info)
    for r in range(n_rows):
        before = city_worth_nb(facts[r, 0], facts[r, 3] == 1, balance, progress)
        for side in range(2):
            if (facts[r, 2] if side == Side.L else facts[r, 1]) >= SIDE_SLOTS:
                continue
            for slot in range(SIDE_SLOTS):
                c = layout[r, 1 + side * SIDE_SLOTS + slot]
                if c == EMPTY or not is_chaos_like_nb(cards, c):
                    continue
                after = facts[r, 0] - 2 * placed_value_nb(cards, c, side)
                rocket = rocket_cost_nb(info, cards, r, side * SIDE_SLOTS + slot, params) \
                    if pc else 0.0
                gain = city_worth_nb(after, after == 0, balance, progress) - before - rocket
                if gain > best:
                    best, best_card = gain, c
    return best, best_card


# --- the Emptiness (R12) and the census (R05) ------------------------------------------------


@inline_jit
def figure_row_nb(info):
    """The row whose city the Emptiness figure stands on, or -1 (on its pile, lying flat,
    out of the game, or not in play)."""
    if info[Info.EMPTINESS_N] == 0:
        return EMPTY
    return info[Info.EMPTINESS_ROW]


@inline_jit
def next_figure_row_nb(info):
    """The row the figure will stand on next turn (R12.1), or -1."""
    if info[Info.EMPTINESS_N] == 0 or info[Info.EMPTINESS_FLAT] == 1:
        return EMPTY
    row = info[Info.EMPTINESS_ROW]
    return 0 if row == EMPTY or row + 1 >= info[Info.N_ROWS] else row + 1


@borrowing_jit
def emptiness_card_nb(info, params):
    """Value of an Emptiness card leaving: the last brings the top City card (R12.4)."""
    gain = params[W.EMPTINESS_CARD]
    if info[Info.EMPTINESS_N] == 1 and info[Info.CITY_DECK_N] > 0:
        gain += params[W.CENSUS_CITY]
    return gain


@borrowing_jit
def figure_loss_nb(cards, facts, info, r, params):
    """What the Emptiness check brings on row ``r`` when not balanced (R12.2): the loss of
    its dreams and their postcards (a relief when they are stuck); LOSING when it has
    none."""
    dreams = facts[r, 1] + facts[r, 2]
    if dreams == 0:
        return LOSING
    loss = params[W.EMPTINESS_DREAM] * dreams + row_sent_away_cost_nb(info, cards, r, params)
    if not fixable_nb(facts[r, 0], facts[r, 1], facts[r, 2], params[W.MAX_SOGNAE],
                      params[W.MAX_INCUBI]):
        loss -= params[W.STUCK]  # dreams that placements could no longer balance
    return -loss


@borrowing_jit
def figure_check_nb(cards, facts, info, params):
    """The Emptiness check of a census now, as (score, City cards it brings)."""
    e = figure_row_nb(info)
    if e < 0:
        return 0.0, 0
    if facts[e, 3] == 1:
        bonus = 1 if info[Info.EMPTINESS_N] == 1 and info[Info.CITY_DECK_N] > 0 else 0
        return emptiness_card_nb(info, params), bonus
    return figure_loss_nb(cards, facts, info, e, params), 0


@borrowing_jit
def census_gain_nb(layout, cards, facts, info, params, bonus):
    """Value of a census now, before the turn it costs: cities pacified, Perfect Balance
    (``bonus`` City cards, R09.6), their postcards, the Emptiness check, a win."""
    n_rows = info[Info.N_ROWS]
    e = figure_row_nb(info)
    figure, cities = figure_check_nb(cards, facts, info, params)
    if figure <= LOSING:
        return LOSING
    n_bal = 0
    for r in range(n_rows):
        if r != e and facts[r, 3] == 1:
            n_bal += 1
    if n_bal == 0 and figure <= 0:
        return figure - params[W.TURN]
    perfect = n_bal == n_rows and n_rows == MAX_ROWS
    points = 0
    postcards = 0.0
    for r in range(n_rows):
        if r != e and facts[r, 3] == 1:
            row_points, row_gain = pacify_points_nb(layout, cards, info, r, n_rows, perfect)
            points += row_points
            postcards += row_gain
    gain = params[W.CENSUS_CITY] * n_bal + figure + params[W.POSTCARD] * postcards
    cities += n_bal
    if n_bal == n_rows:
        if perfect:
            gain += params[W.PERFECT] + params[W.CENSUS_CITY] * (bonus - 1)
            cities += min(bonus, info[Info.CITY_DECK_N])
        else:
            gain += params[W.CENSUS_CITY]
    if cities >= info[Info.TOTAL_CITIES] - info[Info.SUCCESS_N] and \
            inhabitants_ok_nb(info, points):
        gain += WINNING
    return gain


@borrowing_jit
def ally_gain_nb(layout, cards, facts, info, params):
    """Value of Ally against the Emptiness (R12.3) before the turn and cards it costs: an
    Emptiness card (the last brings a City card), and, when a census now would pay for the
    check of the figure's city, next turn's census spared the check of the city the figure
    would move to (the figure stands up on its pile instead)."""
    gain = emptiness_card_nb(info, params)
    nxt = next_figure_row_nb(info)
    if nxt < 0:
        return gain
    if facts[nxt, 3] == 1:
        # one row left: the figure comes back to it every turn, and only an Ally lets a
        # census pacify it
        return gain + (params[W.CENSUS_CITY] if nxt == figure_row_nb(info) else 0.0)
    now, _ = figure_check_nb(cards, facts, info, params)
    waiting = facts[:, 3].sum()
    if waiting > 0 and now < 0:
        gain -= max(figure_loss_nb(cards, facts, info, nxt, params),
                    -params[W.CENSUS_CITY] * waiting)
    return gain


# --- Books of Power (R09) --------------------------------------------------------------------


@borrowing_jit
def best_invisible_nb(layout, cards, facts, info, side, params):
    """Best dream for an Invisible Book on ``side`` as (gain, card): the city nearest to
    balance once it is gone, less its postcard (R09.4)."""
    best, best_card = -1e9, EMPTY
    for r in range(info[Info.N_ROWS]):
        before = city_value_nb(facts[r, 0], facts[r, 3] == 1, params)
        left = facts[r, 1] + facts[r, 2] - 1
        for slot in range(SIDE_SLOTS):
            c = layout[r, 1 + side * SIDE_SLOTS + slot]
            if c == EMPTY or is_chaos_like_nb(cards, c):
                continue
            after = facts[r, 0] - placed_value_nb(cards, c, side)
            gain = city_value_nb(after, after == 0 and left > 0, params) - before - \
                sent_away_cost_nb(info, cards, r, side * SIDE_SLOTS + slot, params)
            if gain > best:
                best, best_card = gain, c
    return best, best_card


@borrowing_jit
def best_flying_nb(layout, cards, facts, info, side, params):
    """Best move for a Flying Book on ``side`` as (gain, card, to_row), valued like an
    Exchange, less a Resting Rocket or a lone Dreamcatcher it spoils (R09.3)."""
    n_rows = info[Info.N_ROWS]
    best, best_card, best_to = -1e9, EMPTY, EMPTY
    for ra in range(n_rows):
        before_a = city_value_nb(facts[ra, 0], facts[ra, 3] == 1, params)
        left = facts[ra, 1] + facts[ra, 2] - 1
        for slot in range(SIDE_SLOTS):
            c = layout[ra, 1 + side * SIDE_SLOTS + slot]
            if c == EMPTY or is_chaos_like_nb(cards, c):
                continue
            v = placed_value_nb(cards, c, side)
            ta = facts[ra, 0] - v
            gain_a = city_value_nb(ta, ta == 0 and left > 0, params) - before_a - \
                rocket_cost_nb(info, cards, ra, side * SIDE_SLOTS + slot, params)
            for rb in range(n_rows):
                if rb == ra or layout[rb, 0] == EMPTY or facts[rb, 1 + side] >= SIDE_SLOTS:
                    continue
                tb = facts[rb, 0] + v
                gain = gain_a + city_value_nb(tb, tb == 0, params) - \
                    city_value_nb(facts[rb, 0], facts[rb, 3] == 1, params) - \
                    catcher_cost_nb(facts, rb, side, params)
                if gain > best:
                    best, best_card, best_to = gain, c, rb
    return best, best_card, best_to


@borrowing_jit
def freedom_row_nb(layout, facts, info):
    """The dreamless city the Book of Freedom pacifies: the Emptiness's (R12.5), else the
    top one; -1 when there is none."""
    e = figure_row_nb(info)
    best = EMPTY
    for r in range(info[Info.N_ROWS]):
        if layout[r, 0] != EMPTY and facts[r, 1] + facts[r, 2] == 0:
            if r == e:
                return r
            if best == EMPTY:
                best = r
    return best


@borrowing_jit
def freedom_gain_nb(layout, facts, info, params):
    """A City card for a Book of Freedom action (R09.5); a win when it is the last."""
    if freedom_row_nb(layout, facts, info) == EMPTY:
        return -1e9
    gain = params[W.FREEDOM]
    if info[Info.TOTAL_CITIES] - info[Info.SUCCESS_N] == 1 and inhabitants_ok_nb(info, 0):
        gain += WINNING
    return gain


@borrowing_jit
def book_gain_nb(kind, layout, cards, facts, info, params):
    """Value of the best action of Book ``kind`` now, before the turn it costs: scored like
    an Exchange (Flying, Invisible), a City card (Freedom), a census (Perfect Balance), or
    a pass that sees the next cards (Prophecies)."""
    if kind == BookKind.FLYING_SOGNAE or kind == BookKind.FLYING_INCUBI:
        side = Side.L if kind == BookKind.FLYING_SOGNAE else Side.R
        gain, _, _ = best_flying_nb(layout, cards, facts, info, side, params)
        return gain
    if kind == BookKind.INVISIBLE_SOGNAE or kind == BookKind.INVISIBLE_INCUBI:
        side = Side.L if kind == BookKind.INVISIBLE_SOGNAE else Side.R
        gain, _ = best_invisible_nb(layout, cards, facts, info, side, params)
        return gain
    if kind == BookKind.FREEDOM:
        return freedom_gain_nb(layout, facts, info, params)
    if kind == BookKind.PERFECT_BALANCE:
        return census_gain_nb(layout, cards, facts, info, params, BOOK_PERFECT_BONUS)
    return params[W.TURN] - params[W.PASS] + params[W.PROPHECY]


@borrowing_jit
def books_nb(options, info, params):
    """R09.1: reveal Books while that keeps their number at or below ``BOOKS_KEEP`` (each
    burns 4 Dream cards, which costs greedy more than an average Book brings: 0.5, none, by
    default), then stop."""
    kept = info[Info.PROPHECIES]
    bits = info[Info.BOOKS] & ~(1 << BookKind.PROPHECIES)
    while bits:
        kept += bits & 1
        bits >>= 1
    want = BooksChoice.REVEAL if kept + 1 <= params[W.BOOKS_KEEP] else BooksChoice.STOP
    return 1 if options[1, 0] == want else 0


@borrowing_jit
def book_target_nb(options, n_options, layout, info, cards, params):
    """The target of a Book action, the one its Phase I score counted on: Flying options
    are ``[card, from, to, side]``, Invisible ``[card, row, side, -1]``, Freedom
    ``[row, -1, -1, -1]``."""
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    if options[0, 3] != EMPTY:
        _, card, to = best_flying_nb(layout, cards, facts, info, options[0, 3], params)
        for i in range(n_options):
            if options[i, 0] == card and options[i, 2] == to:
                return i
        return 0
    if options[0, 1] != EMPTY:
        _, card = best_invisible_nb(layout, cards, facts, info, options[0, 2], params)
        for i in range(n_options):
            if options[i, 0] == card:
                return i
        return 0
    row = freedom_row_nb(layout, facts, info)
    for i in range(n_options):
        if options[i, 0] == row:
            return i
    return 0


@borrowing_jit
def draw_value_nb(card, layout, cards, facts, info, params):
    """How welcome ``card`` is as the next card drawn: a Chaos costs its points, another
    card is worth its best placement for the seat that draws (R09.7)."""
    if is_chaos_like_nb(cards, card):
        return -params[W.CHAOS_POINT] * cards[card, CardField.VALUE]
    seat = info[Info.SEAT]
    side = EMPTY
    if info[Info.SEATS] > 1:
        side = Side.L if info[Info.POLARITY] == seat else Side.R
    hand = stack_array(HAND_SIZE, np.int64)
    hand[:] = EMPTY
    hand[0] = card
    return best_placement_nb(layout, cards, facts, info, hand, side, params)


@borrowing_jit
def prophecy_order_nb(options, n_options, layout, info, cards, params):
    """R09.7: the order that draws the most welcome cards first (Chaos deepest)."""
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    m = 0
    while m < 4 and options[0, m] != EMPTY:
        m += 1
    values = stack_array(4, np.float64)
    values[:] = 0.0
    for k in range(m):
        values[k] = draw_value_nb(options[0, k], layout, cards, facts, info, params)
    best, best_score = 0, -np.inf
    for i in range(n_options):
        score = 0.0
        for k in range(m):
            for j in range(m):
                if options[0, j] == options[i, k]:
                    score += values[j] * (m - k)
        if score > best_score:
            best, best_score = i, score
    return best


# --- Phase I ---------------------------------------------------------------------------------


@borrowing_jit
def act_gains_nb(options, n_options, layout, info, cards, facts, params, gains, books):
    """Gains of the actions on offer, before the turn and cards they cost, into ``gains``
    by ``Act`` (float64 (N_ACT_GAINS,)); those of the Book actions by ``BookKind`` into
    ``books``. Actions not on offer keep the values they had."""
    n_rows = info[Info.N_ROWS]
    done = stack_array(N_ACT_KINDS, np.bool_)
    done[:] = False
    gains[Act.CENSUS] = census_gain_nb(layout, cards, facts, info, params, 1)
    for i in range(n_options):
        act = options[i, 0]
        slot = act if act != Act.BOOK else Act.ALLY + 1 + options[i, 3]
        if act < Act.EXCHANGE or done[slot]:
            continue
        done[slot] = True
        if act == Act.EXCHANGE:
            gains[act], _, _ = best_exchange_nb(layout, cards, facts, n_rows, params, info)
        elif act == Act.REBUILD:
            gains[act], _, _ = best_rebuild_nb(layout, cards, facts, n_rows, params,
                                               figure_row_nb(info))
        elif act == Act.CHANGE_SIDES:
            gains[act], _ = best_flip_nb(layout, cards, facts, n_rows, params, info)
        elif act == Act.ALLY:
            gains[act] = ally_gain_nb(layout, cards, facts, info, params)
        else:
            books[options[i, 3]] = book_gain_nb(options[i, 3], layout, cards, facts, info,
                                                params)


@borrowing_jit
def phase1_scores_nb(options, n_options, layout, hand, info, cards, params, scores):
    """Score every Phase I option into ``scores`` (float64, (n_options,)); higher is better.
    A placement sets up a balance for another card of ``hand``."""
    team_scores_nb(options, n_options, layout, hand, hand, EMPTY, info, cards, params, scores)


@borrowing_jit
def team_scores_nb(options, n_options, layout, hand, mate, mate_side, info, cards, params,
                   scores):
    """``phase1_scores_nb``, where a placement sets up a balance for a card of ``mate``
    placed on ``mate_side`` (-1: either): the seat's own hand in solo, the partner's, who
    plays next, in the team game (R10)."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    mates = stack_array((HAND_SIZE, MATE_COLS), np.int64)
    fill_mate_nb(mates, cards, mate, mate_side)
    keep = stack_array(HAND_SIZE, np.float64)
    keep[:] = 0.0
    n_bal = facts[:, 3].sum()
    weights = place_weights_nb(params)
    pc = postcards_nb(info)
    # what pacifying a row gains for its postcards, worked out for the first placement
    # that balances it (NaN until then)
    balance_gains = stack_array(MAX_ROWS, np.float64)
    balance_gains[:] = np.nan
    slot_card, slot = EMPTY, EMPTY  # the hand slot of the card of the last option scored
    for i in range(n_options):
        if options[i, 0] == Act.PLACE:
            c, r, side = options[i, 1], options[i, 2], options[i, 3]
            score, after = placement_score_nb(c, r, side, layout, facts, n_bal, mates,
                                              mate_side, cards, weights, n_rows)
            if pc:
                score -= catcher_cost_nb(facts, r, side, params)
                if after == 0 and facts[r, 3] == 0:
                    if np.isnan(balance_gains[r]):
                        balance_gains[r] = balance_postcards_nb(layout, cards, info, r, params)
                    score += balance_gains[r]
            scores[i] = score
            if c != slot_card:  # a card's placements come together: find its slot once
                slot_card, slot = c, hand_slot_nb(hand, c)
            if slot >= 0:
                keep[slot] = max(keep[slot], score)
    books = stack_array(N_BOOK_KINDS, np.float64)
    books[:] = -1e9
    gains = stack_array(N_ACT_GAINS, np.float64)
    gains[:] = -1e9
    act_gains_nb(options, n_options, layout, info, cards, facts, params, gains, books)
    for i in range(n_options):
        act = options[i, 0]
        if act == Act.PLACE:
            continue
        k_value = 0.0
        if act < Act.REBUILD:  # paid with one card: what it could have scored placed
            if options[i, 1] != slot_card:
                slot_card, slot = options[i, 1], hand_slot_nb(hand, options[i, 1])
            if slot >= 0:
                k_value += keep[slot]
        else:
            for k in range(HAND_SIZE):
                if hand[k] != EMPTY and (hand[k] == options[i, 1] or hand[k] == options[i, 2]):
                    k_value += keep[k]
        if act == Act.PASS:
            scores[i] = -params[W.PASS] - k_value
        elif act == Act.BOOK:
            scores[i] = books[options[i, 3]] - params[W.TURN] - k_value
        else:
            scores[i] = gains[act] - params[W.TURN] - k_value


@inline_jit
def hand_slot_nb(hand, card):
    """The slot of ``card`` in ``hand`` (a card is held once), or -1 (none, or ``card`` is
    -1)."""
    slot = EMPTY
    for k in range(HAND_SIZE):
        if card != EMPTY and hand[k] == card:
            slot = k
    return slot


@inline_jit
def placement_score_nb(c, r, side, layout, facts, n_bal, mates, mate_side, cards, weights,
                       n_rows):
    """Score of placing card ``c`` on ``side`` of row ``r`` from hand before its postcards,
    and the row's total after it, as (score, after); ``n_bal`` balanced cities, ``mates``
    the ``fill_mate_nb`` table of the hand that may then balance it, ``weights`` from
    ``place_weights_nb``. Inlined: it runs once per placement on offer."""
    value = value_on_side_nb(cards[c, CardField.TYPE], cards[c, CardField.VALUE],
                             cards[c, CardField.VALUE2], side)
    after = facts[r, 0] + value
    n_left = facts[r, 1] + (1 if side == Side.L else 0)
    n_right = facts[r, 2] + (1 if side == Side.R else 0)
    skip = c if mate_side == EMPTY else EMPTY
    # only a placement that neither ruins nor balances the row reads whether another card
    # could balance it next
    other = facts[r, 3] == 0 and after != 0 and \
        completes_nb(mates, cards[layout[r, 0], CardField.ELEMENTS], skip, after, n_left,
                     n_right)
    return place_score_nb(facts_row_nb(facts, r), value, side, other, weights, n_rows,
                          n_bal), after


@borrowing_jit
def seat_scores_nb(options, n_options, layout, hands, info, cards, params, scores):
    """Score every Phase I option of the seat to play into ``scores``: in the team game a
    set-up counts on the partner's hand, who plays next (R10), in solo on the seat's own."""
    seat = info[Info.SEAT]
    if info[Info.SEATS] > 1:
        mate_side = Side.R if info[Info.POLARITY] == seat else Side.L
        team_scores_nb(options, n_options, layout, hands[seat], hands[1 - seat], mate_side,
                       info, cards, params, scores)
    else:
        phase1_scores_nb(options, n_options, layout, hands[seat], info, cards, params, scores)


@borrowing_jit
def phase1_nb(options, n_options, layout, hands, info, cards, params):
    """Best Phase I option (ties: the first in option order)."""
    scores = stack_array(MAX_OPTIONS, np.float64)
    seat_scores_nb(options, n_options, layout, hands, info, cards, params, scores)
    best = 0
    for i in range(n_options):
        if scores[i] > scores[best]:
            best = i
    return best


@borrowing_jit
def second_act_nb(options, n_options, layout, info, cards, params):
    """A Wizard's second action (R08.3, R09): a census (or Perfect Balance) that gains, else
    the exchange or Book action that gains most, else none."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    best, best_gain = 0, 0.0
    best_other, other_gain = 0, 0.0
    for i in range(1, n_options):
        act, kind = options[i, 0], options[i, 3]
        if act == Act.CENSUS or (act == Act.BOOK and kind == BookKind.PERFECT_BALANCE):
            bonus = 1 if act == Act.CENSUS else BOOK_PERFECT_BONUS
            gain = census_gain_nb(layout, cards, facts, info, params, bonus)
            if gain > best_gain:
                best, best_gain = i, gain
            continue
        if act == Act.EXCHANGE:
            gain, _, _ = best_exchange_nb(layout, cards, facts, n_rows, params, info)
        else:
            gain = book_gain_nb(kind, layout, cards, facts, info, params)
        if gain > other_gain:
            best_other, other_gain = i, gain
    return best if best > 0 else best_other


# --- Chaos, Chromatic Chaos, the card a Chromatic reveals -----------------------------------


@borrowing_jit
def chaos_nb(options, n_options, layout, info, cards, params):
    """Best way to take a Chaos: the cheapest of placing, clearing and revealing; a Wise
    Chaos (R11.3) only when all of them cost more than ``WISE``."""
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    n_bal = facts[:, 3].sum()
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    best = 0
    best_cost = np.inf
    for i in range(n_options):
        how = options[i, 0]
        r = options[i, 1]
        if how == ChaosHow.PLACE:
            side = options[i, 2]
            value = placed_value_nb(cards, options[i, 3], side)
            after = facts[r, 0] + value
            n_left = facts[r, 1] + (1 if side == Side.L else 0)
            n_right = facts[r, 2] + (1 if side == Side.R else 0)
            cost = params[W.CHAOS_POINT] * (abs(after) - abs(facts[r, 0])) + \
                catcher_cost_nb(facts, r, side, params)
            if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
                cost += params[W.STUCK]
        elif how == ChaosHow.CLEAR:
            cost = params[W.CLEAR]
            if postcards_nb(info):
                cost += row_sent_away_cost_nb(info, cards, r, params)
        elif how == ChaosHow.REVEAL:
            burnt = min(REVEAL_COUNT, info[Info.DECK_N])
            cost = params[W.REVEAL_CARD] * burnt * pressure_nb(info, n_bal)
        elif how == ChaosHow.WISE:
            cost = params[W.WISE]
        else:
            cost = 0.0
        if cost < best_cost:
            best_cost = cost
            best = i
    return best


@borrowing_jit
def deal_side_nb(options, layout, cards, params):
    """Two Chaos dealt together: the side the other side's cards can best answer. A Meta
    or Harmony dealt: the side that brings its city nearer to balance with the other card
    dealt to it, when that card is not placed yet (ties: left)."""
    card = options[0, 2]
    if card == EMPTY:
        max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
        return 1 if max_pos >= max_neg else 0
    total = row_total_nb(layout, cards, options[0, 1])
    left = deal_gap_nb(cards, total + placed_value_nb(cards, card, Side.L), options[0, 3],
                       Side.L)
    right = deal_gap_nb(cards, total + placed_value_nb(cards, card, Side.R), options[0, 3],
                        Side.R)
    return 1 if right < left else 0


@inline_jit
def deal_gap_nb(cards, total, partner, side):
    """How far from balance a city at ``total`` ends once ``partner`` (-1: none), dealt
    with a card on ``side``, is placed: a Chaos joins that side (R02.4), a Meta or Harmony
    takes its nearer side, any other card its own."""
    if partner == EMPTY:
        return abs(total)
    if is_chaos_nb(cards, partner):
        return abs(total + placed_value_nb(cards, partner, side))
    if is_two_sided_nb(cards, partner):
        return min(abs(total + placed_value_nb(cards, partner, Side.L)),
                   abs(total + placed_value_nb(cards, partner, Side.R)))
    return abs(total + placed_value_nb(cards, partner, side))


@borrowing_jit
def chromatic_choice_nb(options, n_options, layout, info, cards, params):
    """Where a Chromatic Chaos does least harm, or most good (it may balance a city); a Wise
    Chaos (row -2, R11.3) only when every side costs more than ``WISE``."""
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    best, best_cost = 0, np.inf
    for i in range(n_options):
        r, side = options[i, 0], options[i, 1]
        if r == EMPTY:
            return i  # no side has room: the discard costs nothing
        if r == WISE_ROW:
            cost = params[W.WISE]
        else:
            cost = chromatic_cost_nb(cards, facts, r, side, options[i, 2], params, max_pos,
                                     max_neg)
        if cost < best_cost:
            best, best_cost = i, cost
    return best


@borrowing_jit
def chromatic_cost_nb(cards, facts, r, side, card, params, max_pos, max_neg):
    """Cost of a Chromatic Chaos on ``side`` of row ``r`` (negative when it helps)."""
    after = facts[r, 0] + placed_value_nb(cards, card, side)
    cost = params[W.CHAOS_POINT] * (abs(after) - abs(facts[r, 0])) + \
        catcher_cost_nb(facts, r, side, params)
    if facts[r, 3] == 1:
        cost += params[W.RUIN]
    elif after == 0:
        cost -= params[W.BALANCE]
    n_left = facts[r, 1] + (1 if side == Side.L else 0)
    n_right = facts[r, 2] + (1 if side == Side.R else 0)
    if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
        cost += params[W.STUCK]
    return cost


@borrowing_jit
def revealed_choice_nb(options, n_options, layout, info, cards, params):
    """A revealed card placed where a placement from hand would score best."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    n_bal = facts[:, 3].sum()
    weights = place_weights_nb(params)
    best, best_score = 0, -np.inf
    for i in range(n_options):
        r, side = options[i, 0], options[i, 1]
        if r == EMPTY:
            return i
        value = placed_value_nb(cards, options[i, 2], side)
        score = place_score_nb(facts_row_nb(facts, r), value, side, False, weights, n_rows,
                               n_bal) - catcher_cost_nb(facts, r, side, params)
        if score > best_score:
            best, best_score = i, score
    return best


# --- the other decisions ----------------------------------------------------------------------


@borrowing_jit
def rebuild_rows_nb(options, n_options, layout, info, cards, params):
    """The pair of rows whose swap gains most."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    _, a, b = best_rebuild_nb(layout, cards, facts, n_rows, params, figure_row_nb(info))
    for i in range(n_options):
        if options[i, 0] == a and options[i, 1] == b:
            return i
    return 0


@borrowing_jit
def change_sides_nb(options, n_options, layout, info, cards, params):
    """The Chaos whose turn-over gains most."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    _, card = best_flip_nb(layout, cards, facts, n_rows, params, info)
    for i in range(n_options):
        if options[i, 0] == card:
            return i
    return 0


@borrowing_jit
def zero_sum_score_nb(mask, row, layout, info, cards):
    """A zero-sum set's worth (R05.5): the room it frees, and ``ZERO_SUM_POINT`` per
    Inhabitant point: less for the postcards it sends away, more for a Dreamcatcher it
    leaves alone on its side (R11.4)."""
    score = 0.0
    if not postcards_nb(info):
        for pos in range(N_SLOTS):
            score += mask >> pos & 1
        return score
    for side in range(2):
        removed, catcher = 0, False
        for slot in range(SIDE_SLOTS):
            pos = side * SIDE_SLOTS + slot
            if mask >> pos & 1:
                removed += 1
                score += 1.0 - ZERO_SUM_POINT * sent_away_points_nb(info, cards, row, pos)
            elif postcard_kind_nb(info, cards, row, pos) == PostcardKind.DREAMCATCHER:
                catcher = True
        if catcher and removed > 0 and side_count_nb(layout, row, side) - removed == 1:
            score += ZERO_SUM_POINT * (MET_POINTS - EXPECTED_POINTS[PostcardKind.DREAMCATCHER])
    return score


@borrowing_jit
def zero_sum_nb(options, n_options, layout, info, cards):
    """Discard the largest zero-sum set: it frees the most room and keeps the total (and
    spares the postcards)."""
    best = 0
    best_score = -np.inf
    for i in range(n_options):
        score = zero_sum_score_nb(options[i, 0], options[i, 1], layout, info, cards)
        if score > best_score:
            best_score = score
            best = i
    return best


@borrowing_jit
def exchange_pair_nb(options, n_options, layout, info, cards, params):
    """The pair whose swap gains the most (the same reckoning as in Phase I)."""
    n_rows = info[Info.N_ROWS]
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    _, a, b = best_exchange_nb(layout, cards, facts, n_rows, params, info)
    for i in range(n_options):
        if options[i, 0] == a and options[i, 1] == b:
            return i
    return 0


@borrowing_jit
def swap_polarity_nb(layout, hands, info, cards, params):
    """R10.4: swap (option 1) when the seat to play, and half as much its partner, would
    place clearly better with the other polarity."""
    facts = stack_array((MAX_ROWS, FACT_COLS), np.int64)
    fill_row_facts_nb(facts, layout, cards, info)
    seat = info[Info.SEAT]
    side = Side.L if info[Info.POLARITY] == seat else Side.R
    own = side_placements_nb(layout, cards, facts, info, hands[seat], EMPTY, params)
    partner = side_placements_nb(layout, cards, facts, info, hands[1 - seat], EMPTY, params)
    mine = own[1 - side] - own[side]
    theirs = partner[side] - partner[1 - side]
    return 1 if mine + PARTNER_SHARE * theirs > params[W.SWAP] else 0


@cached_jit(borrowing=True)
def greedy_nb(kind, options, n_options, state, cards, params, rng):
    """The greedy policy (signature of docs/engine.md)."""
    layout, hands, info = state
    if kind == Decision.PHASE1:
        return phase1_nb(options, n_options, layout, hands, info, cards, params)
    if kind == Decision.DRAW_CHAOS or kind == Decision.HAND_CHAOS:
        return chaos_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.DEAL_SIDE:
        return deal_side_nb(options, layout, cards, params)
    if kind == Decision.ZERO_SUM:
        return zero_sum_nb(options, n_options, layout, info, cards)
    if kind == Decision.EXCHANGE_PAIR:
        return exchange_pair_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.CHROMATIC:
        return chromatic_choice_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.REVEALED:
        return revealed_choice_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.SECOND_ACT:
        return second_act_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.REBUILD_ROWS:
        return rebuild_rows_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.CHANGE_SIDES_CARD:
        return change_sides_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.BOOKS:
        return books_nb(options, info, params)
    if kind == Decision.BOOK_TARGET:
        return book_target_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.PROPHECY_ORDER:
        return prophecy_order_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.SWAP_POLARITY:
        return swap_polarity_nb(layout, hands, info, cards, params)
    return 0
