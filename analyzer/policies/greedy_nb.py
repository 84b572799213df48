"""``greedy``: a one-step heuristic that plays like a careful beginner (docs/policies.md).

Every legal option gets a score from the position it leads to and the best one is taken
(ties: the first in contract order). The weights are the policy's ``params`` so that they
can be changed without recompiling; ``GREEDY_WEIGHTS`` holds the defaults.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    HAND_SIZE,
    MAX_ROWS,
    SIDE_SLOTS,
    Act,
    CardField,
    CardType,
    ChaosHow,
    Decision,
    Info,
    Side,
)
from analyzer.core.jit import jit
from analyzer.rules.chaos_nb import REVEAL_COUNT
from analyzer.rules.state_nb import (
    can_take_side_nb,
    is_balanced_nb,
    placed_value_nb,
    row_total_nb,
    side_count_nb,
)


class _W(NamedTuple):
    """Indices of the greedy weights in ``params``."""

    BALANCE: int = 0  # placing a card that balances a city
    PROGRESS: int = 1  # per point of imbalance removed
    SLOT: int = 2  # cost of filling a slot without balancing
    STUCK: int = 3  # a city that placements can no longer balance
    SETUP: int = 4  # a hand card that would then balance the city
    CENSUS_CITY: int = 5  # per city a census pacifies
    TURN: int = 6  # cost of a turn spent on an action instead of a placement
    PERFECT: int = 7  # a census that pacifies all 4 cities
    PASS: int = 8  # discarding for nothing
    CHAOS_POINT: int = 9  # per point a placed Chaos adds to a city
    CLEAR: int = 10  # cost of clearing a balanced city
    REVEAL_CARD: int = 11  # per Dream card a reveal burns, at even pressure
    RUIN: int = 12  # unbalancing a balanced city
    FLEX: int = 13  # per element an unbalanced city gains by a Rebuild (R08.4)
    # facts of the card set, filled by greedy_params(cards=...), not weights
    MAX_SOGNAE: int = 14  # largest Sognae value
    MAX_INCUBI: int = 15  # largest Incubi magnitude


W = _W()

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
}
CARD_FACTS = ("MAX_SOGNAE", "MAX_INCUBI")


def greedy_params(overrides: dict[str, float] | None = None,
                  cards: np.ndarray | None = None) -> np.ndarray:
    """The parameter vector (float64, (len(W),)): weights with optional overrides by name,
    then facts of the card table ``cards`` (the R14 values when None), so that the policy
    does not rescan the card table at every decision."""
    weights = dict(GREEDY_WEIGHTS)
    for name, value in (overrides or {}).items():
        if name not in weights:
            raise ValueError(f"unknown greedy weight {name!r}")
        weights[name] = float(value)
    weights["MAX_SOGNAE"], weights["MAX_INCUBI"] = (4, 3) if cards is None else \
        extreme_values(cards)
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


@jit
def fixable_nb(total, n_left, n_right, max_pos, max_neg):
    """Can placements still bring ``total`` to 0 with the room left on the needed side?"""
    if total > 0:
        return total <= (SIDE_SLOTS - n_right) * max_neg
    if total < 0:
        return -total <= (SIDE_SLOTS - n_left) * max_pos
    return True


@jit
def row_facts_nb(layout, cards, n_rows):
    """Per row: total, left and right counts, balanced flag (int64 (MAX_ROWS, 4))."""
    facts = np.zeros((MAX_ROWS, 4), dtype=np.int64)
    for r in range(n_rows):
        if layout[r, 0] == EMPTY:
            continue
        facts[r, 0] = row_total_nb(layout, cards, r)
        facts[r, 1] = side_count_nb(layout, r, Side.L)
        facts[r, 2] = side_count_nb(layout, r, Side.R)
        facts[r, 3] = 1 if is_balanced_nb(layout, cards, r) else 0
    return facts


@jit
def place_score_nb(facts, r, value, side, other_fix, params, max_pos, max_neg, n_rows, n_bal):
    """Score of adding a dream of ``value`` to ``side`` of row ``r``.

    ``other_fix`` is True when another hand card could then balance the row exactly.
    """
    if facts[r, 3] == 1:
        return -params[W.RUIN]
    total = facts[r, 0]
    after = total + value
    if after == 0:
        bonus = params[W.PERFECT] * 0.2 if n_bal + 1 == n_rows == MAX_ROWS else 0.0
        return params[W.BALANCE] + bonus
    n_left = facts[r, 1] + (1 if side == Side.L else 0)
    n_right = facts[r, 2] + (1 if side == Side.R else 0)
    score = params[W.PROGRESS] * (abs(total) - abs(after)) - params[W.SLOT]
    if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
        score -= params[W.STUCK]
    if other_fix:
        score += params[W.SETUP]
    return score


@jit
def completes_nb(cards, layout, hand, skip, r, after, n_left, n_right):
    """True when a hand card other than ``skip`` could balance row ``r`` at ``after``."""
    city_elements = cards[layout[r, 0], CardField.ELEMENTS]
    for k in range(HAND_SIZE):
        c = hand[k]
        if c == EMPTY or c == skip:
            continue
        if cards[c, CardField.ELEMENTS] & city_elements == 0:
            continue
        for side in range(2):
            room = n_left < SIDE_SLOTS if side == Side.L else n_right < SIDE_SLOTS
            if room and can_take_side_nb(cards, c, side) and \
                    after + placed_value_nb(cards, c, side) == 0:
                return True
    return False


@jit
def best_exchange_nb(layout, cards, facts, n_rows, params):
    """Best Exchange as (gain, a, b); a and b are -1 when no pair helps."""
    best = -1e9
    best_a = EMPTY
    best_b = EMPTY
    for side in range(2):
        for p in range(n_rows * SIDE_SLOTS):
            ra = p // SIDE_SLOTS
            a = layout[ra, 1 + side * SIDE_SLOTS + p % SIDE_SLOTS]
            if a == EMPTY:
                continue
            va = placed_value_nb(cards, a, side)
            for q in range(p + 1, n_rows * SIDE_SLOTS):
                rb = q // SIDE_SLOTS
                b = layout[rb, 1 + side * SIDE_SLOTS + q % SIDE_SLOTS]
                if b == EMPTY or rb == ra:
                    continue
                vb = placed_value_nb(cards, b, side)
                gain = exchange_gain_nb(facts, ra, rb, va, vb, params)
                if gain > best:
                    best = gain
                    best_a = a
                    best_b = b
    return best, best_a, best_b


@jit
def city_value_nb(total, balanced, params):
    """How good a city's state is, for comparing swaps."""
    if balanced:
        return params[W.BALANCE]
    return -params[W.PROGRESS] * abs(total)


@jit
def exchange_gain_nb(facts, ra, rb, va, vb, params):
    """Change in city values when dreams worth ``va`` (row ra) and ``vb`` (row rb) swap."""
    ta = facts[ra, 0] - va + vb
    tb = facts[rb, 0] - vb + va
    before = city_value_nb(facts[ra, 0], facts[ra, 3] == 1, params) + \
        city_value_nb(facts[rb, 0], facts[rb, 3] == 1, params)
    after = city_value_nb(ta, ta == 0, params) + city_value_nb(tb, tb == 0, params)
    return after - before


@jit
def pressure_nb(info, n_bal):
    """Deck cards still needed per card left (about 1 when the deck is just enough)."""
    unbalanced = info[Info.TOTAL_CITIES] - info[Info.SUCCESS_N] - n_bal
    need = 2 * info[Info.CITY_DECK_N] + 3 * max(unbalanced, 0)
    return need / max(info[Info.DECK_N], 1)


@jit
def phase1_scores_nb(options, n_options, layout, hand, info, cards, params, scores):
    """Score every Phase I option into ``scores`` (float64, (n_options,)); higher is better."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    n_bal = facts[:, 3].sum()
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    keep = np.zeros(HAND_SIZE, dtype=np.float64)
    for i in range(n_options):
        if options[i, 0] != Act.PLACE:
            continue
        c, r, side = options[i, 1], options[i, 2], options[i, 3]
        value = placed_value_nb(cards, c, side)
        after = facts[r, 0] + value
        n_left = facts[r, 1] + (1 if side == Side.L else 0)
        n_right = facts[r, 2] + (1 if side == Side.R else 0)
        other = completes_nb(cards, layout, hand, c, r, after, n_left, n_right)
        scores[i] = place_score_nb(facts, r, value, side, other, params, max_pos, max_neg,
                                   n_rows, n_bal)
        for k in range(HAND_SIZE):
            if hand[k] == c:
                keep[k] = max(keep[k], scores[i])
    exchange_gain = -1e9
    has_exchange = False
    for i in range(n_options):
        if options[i, 0] == Act.EXCHANGE:
            has_exchange = True
    if has_exchange:
        exchange_gain, _, _ = best_exchange_nb(layout, cards, facts, n_rows, params)
    census = census_score_nb(n_bal, n_rows, info, params)
    rebuild_gain = -1e9
    flip_gain = -1e9
    for i in range(n_options):
        if options[i, 0] == Act.REBUILD and rebuild_gain == -1e9:
            rebuild_gain, _, _ = best_rebuild_nb(layout, cards, facts, n_rows, params)
        elif options[i, 0] == Act.CHANGE_SIDES and flip_gain == -1e9:
            flip_gain, _ = best_flip_nb(layout, cards, facts, n_rows, params)
    for i in range(n_options):
        act = options[i, 0]
        if act == Act.PLACE:
            continue
        k_value = 0.0
        for k in range(HAND_SIZE):
            if hand[k] != EMPTY and (hand[k] == options[i, 1] or
                                     (act >= Act.REBUILD and hand[k] == options[i, 2])):
                k_value += keep[k]
        if act == Act.PASS:
            scores[i] = -params[W.PASS] - k_value
        elif act == Act.CENSUS:
            scores[i] = census - k_value
        elif act == Act.EXCHANGE:
            scores[i] = exchange_gain - params[W.TURN] - k_value
        elif act == Act.REBUILD:
            scores[i] = rebuild_gain - params[W.TURN] - k_value
        else:
            scores[i] = flip_gain - params[W.TURN] - k_value


@jit
def flex_nb(cards, city):
    """Elements a City card shows: how many hand cards can reach it."""
    m = cards[city, CardField.ELEMENTS]
    n = 0
    while m:
        n += m & 1
        m >>= 1
    return n


@jit
def rebuild_gain_nb(layout, cards, facts, a, b, params):
    """Gain of swapping the City cards of rows a and b: the elements that unbalanced
    cities gain (a Hanging Garden moved onto balanced dreams is pacified by the next census,
    a city with elements takes its place where cards from hand are needed)."""
    fa, fb = flex_nb(cards, layout[a, 0]), flex_nb(cards, layout[b, 0])
    gain = 0.0
    if facts[a, 3] == 0:
        gain += fb - fa
    if facts[b, 3] == 0:
        gain += fa - fb
    return params[W.FLEX] * gain


@jit
def best_rebuild_nb(layout, cards, facts, n_rows, params):
    """Best Rebuild as (gain, row a, row b)."""
    best, best_a, best_b = -1e9, 0, 1
    for a in range(n_rows):
        for b in range(a + 1, n_rows):
            gain = rebuild_gain_nb(layout, cards, facts, a, b, params)
            if gain > best:
                best, best_a, best_b = gain, a, b
    return best, best_a, best_b


@jit
def best_flip_nb(layout, cards, facts, n_rows, params):
    """Best Change Sides as (gain, card): a Chaos turned over changes its city's total by
    twice its value."""
    best, best_card = -1e9, EMPTY
    for r in range(n_rows):
        for side in range(2):
            if (facts[r, 2] if side == Side.L else facts[r, 1]) >= SIDE_SLOTS:
                continue
            for slot in range(SIDE_SLOTS):
                c = layout[r, 1 + side * SIDE_SLOTS + slot]
                if c == EMPTY:
                    continue
                ctype = cards[c, CardField.TYPE]
                if ctype != CardType.CHAOS and ctype != CardType.CHROMATIC:
                    continue
                after = facts[r, 0] - 2 * placed_value_nb(cards, c, side)
                gain = city_value_nb(after, after == 0, params) - \
                    city_value_nb(facts[r, 0], facts[r, 3] == 1, params)
                if gain > best:
                    best, best_card = gain, c
    return best, best_card


@jit
def phase1_nb(options, n_options, layout, hand, info, cards, params):
    """Best Phase I option (ties: the first in option order)."""
    scores = np.empty(n_options, dtype=np.float64)
    phase1_scores_nb(options, n_options, layout, hand, info, cards, params, scores)
    best = 0
    for i in range(n_options):
        if scores[i] > scores[best]:
            best = i
    return best


@jit
def census_score_nb(n_bal, n_rows, info, params):
    """Value of a Census now: cities pacified, Perfect Balance, the turn it costs."""
    if n_bal == 0:
        return -params[W.TURN] * 2.0
    score = params[W.CENSUS_CITY] * n_bal - params[W.TURN]
    if n_bal == n_rows:
        score += params[W.PERFECT] if n_rows == MAX_ROWS else params[W.CENSUS_CITY]
    if n_bal >= info[Info.TOTAL_CITIES] - info[Info.SUCCESS_N]:
        score += 1000.0  # wins the game
    return score


@jit
def chaos_nb(options, n_options, layout, info, cards, params):
    """Best way to take a Chaos: the cheapest of placing, clearing and revealing."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    n_bal = facts[:, 3].sum()
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    best = 0
    best_cost = 1e18
    for i in range(n_options):
        how = options[i, 0]
        r = options[i, 1]
        if how == ChaosHow.PLACE:
            side = options[i, 2]
            value = placed_value_nb(cards, options[i, 3], side)
            after = facts[r, 0] + value
            n_left = facts[r, 1] + (1 if side == Side.L else 0)
            n_right = facts[r, 2] + (1 if side == Side.R else 0)
            cost = params[W.CHAOS_POINT] * (abs(after) - abs(facts[r, 0]))
            if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
                cost += params[W.STUCK]
        elif how == ChaosHow.CLEAR:
            cost = params[W.CLEAR]
        elif how == ChaosHow.REVEAL:
            burnt = min(REVEAL_COUNT, info[Info.DECK_N])
            cost = params[W.REVEAL_CARD] * burnt * pressure_nb(info, n_bal)
        else:
            cost = 0.0
        if cost < best_cost:
            best_cost = cost
            best = i
    return best


@jit
def deal_side_nb(options, layout, cards, params):
    """Two Chaos dealt together: the side the other side's cards can best answer. A Meta
    or Harmony dealt: the side that brings its city nearer to balance (ties: left)."""
    card = options[0, 2]
    if card == EMPTY:
        max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
        return 1 if max_pos >= max_neg else 0
    total = row_total_nb(layout, cards, options[0, 1])
    left = abs(total + placed_value_nb(cards, card, Side.L))
    right = abs(total + placed_value_nb(cards, card, Side.R))
    return 1 if right < left else 0


@jit
def chromatic_choice_nb(options, n_options, layout, info, cards, params):
    """Where a Chromatic Chaos does least harm, or most good (it may balance a city)."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    best, best_cost = 0, 1e18
    for i in range(n_options):
        r, side = options[i, 0], options[i, 1]
        if r == EMPTY:
            return i
        after = facts[r, 0] + placed_value_nb(cards, options[i, 2], side)
        cost = params[W.CHAOS_POINT] * (abs(after) - abs(facts[r, 0]))
        if facts[r, 3] == 1:
            cost += params[W.RUIN]
        elif after == 0:
            cost -= params[W.BALANCE]
        n_left = facts[r, 1] + (1 if side == Side.L else 0)
        n_right = facts[r, 2] + (1 if side == Side.R else 0)
        if not fixable_nb(after, n_left, n_right, max_pos, max_neg):
            cost += params[W.STUCK]
        if cost < best_cost:
            best, best_cost = i, cost
    return best


@jit
def revealed_choice_nb(options, n_options, layout, info, cards, params):
    """A revealed card placed where a placement from hand would score best."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    n_bal = facts[:, 3].sum()
    max_pos, max_neg = params[W.MAX_SOGNAE], params[W.MAX_INCUBI]
    best, best_score = 0, -1e18
    for i in range(n_options):
        r, side = options[i, 0], options[i, 1]
        if r == EMPTY:
            return i
        value = placed_value_nb(cards, options[i, 2], side)
        score = place_score_nb(facts, r, value, side, False, params, max_pos, max_neg,
                               n_rows, n_bal)
        if score > best_score:
            best, best_score = i, score
    return best


@jit
def second_act_nb(options, n_options, layout, info, cards, params):
    """A Wizard's second action: a census that pacifies, else an exchange that helps."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    n_bal = facts[:, 3].sum()
    if n_bal > 0:
        return 1  # CENSUS
    if n_options > 2:
        gain, _, _ = best_exchange_nb(layout, cards, facts, n_rows, params)
        if gain > 0:
            return 2  # EXCHANGE
    return 0


@jit
def rebuild_rows_nb(options, n_options, layout, info, cards, params):
    """The pair of rows whose swap gains most."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    _, a, b = best_rebuild_nb(layout, cards, facts, n_rows, params)
    for i in range(n_options):
        if options[i, 0] == a and options[i, 1] == b:
            return i
    return 0


@jit
def change_sides_nb(options, n_options, layout, info, cards, params):
    """The Chaos whose turn-over gains most."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    _, card = best_flip_nb(layout, cards, facts, n_rows, params)
    for i in range(n_options):
        if options[i, 0] == card:
            return i
    return 0


@jit
def zero_sum_nb(options, n_options):
    """Discard the largest zero-sum set: it frees the most room and keeps the total."""
    best = 0
    best_bits = -1
    for i in range(n_options):
        bits = 0
        m = options[i, 0]
        while m:
            bits += m & 1
            m >>= 1
        if bits > best_bits:
            best_bits = bits
            best = i
    return best


@jit
def exchange_pair_nb(options, n_options, layout, info, cards, params):
    """The pair whose swap gains the most (the same reckoning as in Phase I)."""
    n_rows = info[Info.N_ROWS]
    facts = row_facts_nb(layout, cards, n_rows)
    _, a, b = best_exchange_nb(layout, cards, facts, n_rows, params)
    for i in range(n_options):
        if options[i, 0] == a and options[i, 1] == b:
            return i
    return 0


@jit
def greedy_nb(kind, options, n_options, state, cards, params, rng):
    """The greedy policy (signature of docs/engine.md)."""
    layout, hands, info = state
    if kind == Decision.PHASE1:
        return phase1_nb(options, n_options, layout, hands[info[Info.SEAT]], info, cards, params)
    if kind == Decision.DRAW_CHAOS or kind == Decision.HAND_CHAOS:
        return chaos_nb(options, n_options, layout, info, cards, params)
    if kind == Decision.DEAL_SIDE:
        return deal_side_nb(options, layout, cards, params)
    if kind == Decision.ZERO_SUM:
        return zero_sum_nb(options, n_options)
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
    return 0

