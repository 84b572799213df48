"""``greedy`` written a second time, in plain Python, for the reference engine.

The heuristic of docs/policies.md, as ``analyzer/policies/greedy_nb.py`` plays it, worked
out from the reference engine's own card rules (:class:`CardBook`) and postcard conditions
(:func:`condition_holds`) instead of the kernels' helpers. The reference engine plays
``greedy`` and ``weighted`` with it, so the agreement tests check greedy's kernel decision
for decision, and ``--engine reference`` runs no compiled code.

It reads the policy view only (docs/engine.md, "What a policy sees"): the arrays are turned
into lists once per decision and every score below is a function of them. Scores add up in
the kernel's order, so that the same floating-point sums pick the same option. The weights
are read from ``params`` at the indices of ``GreedyWeight``, and the heuristic's fixed numbers
from ``core/greedy_terms.py``, both shared with the kernel; a change to how one copy scores
fails the agreement tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from analyzer.core.codes import (
    EMPTY,
    MAX_ROWS,
    N_SLOTS,
    SIDE_SLOTS,
    Act,
    BookKind,
    BooksChoice,
    ChaosHow,
    Decision,
    Expansion,
    Info,
    PostcardKind,
    Side,
)
from analyzer.core.codes import GreedyWeight as W
from analyzer.core.greedy_terms import (
    EXPECTED_POINTS,
    LOSING,
    PARTNER_SHARE,
    WINNING,
    ZERO_SUM_POINT,
)
from analyzer.reference.cards import CardBook
from analyzer.reference.engine import (
    BOOK_PERFECT_BALANCE_BONUS,
    CONDITION_MET,
    REVEAL_COUNT,
    SENT_AWAY,
    WISE_CHROMATIC,
)
from analyzer.reference.postcards import NotedRow, condition_holds

#: A dream added beside a lone Dreamcatcher turns its +1 into -2 (R11.4, R11.5).
BROKEN_POINTS = CONDITION_MET - SENT_AWAY
#: Where the searches for the best Exchange, Rebuild, Change Sides and Book move start, as
#: the kernel's do: a move must score above it to be found.
NONE_YET = -1e9


class RowFacts(NamedTuple):
    """One row as greedy weighs it; all 0 for a row without a city."""

    total: int = 0
    left: int = 0
    right: int = 0
    balanced: bool = False
    catcher: tuple[bool, bool] = (False, False)  # a lone dream with a Dreamcatcher, by side

    def count(self, side: int) -> int:
        """Dreams on ``side``."""
        return self.left if side == Side.L else self.right


class Position:
    """One decision's view, read once: the layout, hands and info as lists, the weights,
    and the facts of each row.

    Parameters
    ----------
    book : CardBook
        The cards of the game.
    options : numpy.ndarray
        int64 (MAX_OPTIONS, 4); rows ``0 .. n_options-1`` are the legal options.
    n_options : int
    state : tuple of numpy.ndarray
        ``(layout, hands, info)`` of the policy view.
    params : numpy.ndarray
        float64, the weights at ``GreedyWeight`` indices.
    """

    def __init__(self, book: CardBook, options: np.ndarray, n_options: int,
                 state: tuple[np.ndarray, np.ndarray, np.ndarray], params: np.ndarray) -> None:
        layout, hands, info = state
        self.book = book
        self.options = options[:n_options].tolist()
        self.layout = layout.tolist()
        self.hands = hands.tolist()
        self.info = info.tolist()
        self.w = params.tolist()
        self.n_rows = self.info[Info.N_ROWS]
        self.postcards = self.info[Info.EXPANSIONS] & Expansion.POSTCARDS != 0
        self.facts = [self._row_facts(r) if r < self.n_rows else RowFacts()
                      for r in range(MAX_ROWS)]
        self.n_balanced = sum(f.balanced for f in self.facts)
        self._noted: list[NotedRow] | None = None

    # --- reading the view ---------------------------------------------------------------

    def side_cards(self, r: int, side: int) -> list[int]:
        """The dream slots of one side of row ``r`` (EMPTY where none)."""
        start = 1 + side * SIDE_SLOTS
        return self.layout[r][start: start + SIDE_SLOTS]

    def _row_facts(self, r: int) -> RowFacts:
        if self.layout[r][0] == EMPTY:
            return RowFacts()
        total = 0
        counts = [0, 0]
        for side in (Side.L, Side.R):
            for card in self.side_cards(r, side):
                if card != EMPTY:
                    counts[side] += 1
                    total += self.book.value_on(card, side)
        catcher = [False, False]
        if self.postcards:
            for side in (Side.L, Side.R):
                postcard = self.postcard_at(r, side * SIDE_SLOTS)
                catcher[side] = counts[side] == 1 and postcard != EMPTY and \
                    self.book.postcard_kind(postcard) == PostcardKind.DREAMCATCHER
        balanced = counts[0] + counts[1] > 0 and total == 0  # R01.3
        return RowFacts(total, counts[0], counts[1], balanced, (catcher[0], catcher[1]))

    def postcard_at(self, r: int, pos: int) -> int:
        """The postcard on the dream at ``pos`` (0-2 left, 3-5 right) of row ``r``, or EMPTY."""
        return self.info[Info.POSTCARD_AT + r * N_SLOTS + pos]

    def postcard_kind(self, r: int, pos: int) -> int:
        """Kind of that postcard; EMPTY for none, or without Postcards in play."""
        if not self.postcards:
            return EMPTY
        postcard = self.postcard_at(r, pos)
        return EMPTY if postcard == EMPTY else self.book.postcard_kind(postcard)

    def noted(self) -> list[NotedRow]:
        """The layout as a census would note it now (R05.2), for postcard conditions."""
        if self._noted is None:
            self._noted = [NotedRow(row[0], tuple(c for c in row[1:1 + SIDE_SLOTS] if c != EMPTY),
                                    tuple(c for c in row[1 + SIDE_SLOTS:] if c != EMPTY))
                           for row in self.layout[: self.n_rows]]
        return self._noted

    def is_chaos_like(self, card: int) -> bool:
        return self.book.is_chaos_like(card)

    def figure_row(self) -> int:
        """The row whose city the Emptiness figure stands on, or EMPTY."""
        return EMPTY if self.info[Info.EMPTINESS_N] == 0 else self.info[Info.EMPTINESS_ROW]

    def next_figure_row(self) -> int:
        """The row the figure stands on next turn (R12.1), or EMPTY."""
        if self.info[Info.EMPTINESS_N] == 0 or self.info[Info.EMPTINESS_FLAT] == 1:
            return EMPTY
        row = self.info[Info.EMPTINESS_ROW]
        return 0 if row == EMPTY or row + 1 >= self.n_rows else row + 1

    def cities_to_win(self) -> int:
        return self.info[Info.TOTAL_CITIES] - self.info[Info.SUCCESS_N]

    def inhabitants_ok(self, points: int) -> bool:
        """R11.9: the Inhabitant sum, with ``points`` more, at 0 or above."""
        return self.info[Info.INHABITANTS] + points >= 0

    # --- values ------------------------------------------------------------------------

    def fixable(self, total: int, n_left: int, n_right: int) -> bool:
        """Can placements still bring ``total`` to 0 with the room left on the needed side?"""
        if total > 0:
            return total <= (SIDE_SLOTS - n_right) * self.w[W.MAX_INCUBI]
        if total < 0:
            return -total <= (SIDE_SLOTS - n_left) * self.w[W.MAX_SOGNAE]
        return True

    def city_value(self, total: int, balanced: bool) -> float:
        """How good a city's state is: ``BALANCE`` when balanced, else ``-PROGRESS`` a point."""
        return self.w[W.BALANCE] if balanced else -self.w[W.PROGRESS] * abs(total)

    def catcher_cost(self, r: int, side: int) -> float:
        """A dream added beside a lone Dreamcatcher on ``side`` of row ``r``."""
        return self.w[W.POSTCARD] * BROKEN_POINTS if self.facts[r].catcher[side] else 0.0

    def sent_away_cost(self, r: int, pos: int) -> float:
        """The dream at ``pos`` of row ``r`` discarded: its postcard scores -2."""
        kind = self.postcard_kind(r, pos)
        points = 0.0 if kind == EMPTY else EXPECTED_POINTS[kind] - SENT_AWAY
        return self.w[W.POSTCARD] * points

    def rocket_cost(self, r: int, pos: int) -> float:
        """The dream at ``pos`` of row ``r`` moved: a Resting Rocket goes (R11.8)."""
        if self.postcard_kind(r, pos) == PostcardKind.ROCKET:
            return self.sent_away_cost(r, pos)
        return 0.0

    def row_sent_away_cost(self, r: int) -> float:
        cost = 0.0
        for pos in range(N_SLOTS):
            cost += self.sent_away_cost(r, pos)
        return cost

    def pacify_points(self, r: int, perfect: bool) -> tuple[int, float]:
        """Inhabitant points row ``r``'s postcards score if pacified now (R11.4), and the
        gain over their expected score."""
        points = 0
        gain = 0.0
        for pos in range(N_SLOTS):
            kind = self.postcard_kind(r, pos)
            if kind == EMPTY:
                continue
            dream = self.layout[r][1 + pos]
            met = condition_holds(kind, dream, r, self.noted(), self.book, perfect)
            scored = CONDITION_MET if met else SENT_AWAY
            points += scored
            gain += scored - EXPECTED_POINTS[kind]
        return points, gain

    def pressure(self) -> float:
        """Deck cards still needed per card left (about 1 when the deck is just enough)."""
        unbalanced = self.cities_to_win() - self.n_balanced
        need = 2 * self.info[Info.CITY_DECK_N] + 3 * max(unbalanced, 0)
        return need / max(self.info[Info.DECK_N], 1)


# --- placements --------------------------------------------------------------------------


def place_score(pos: Position, row: RowFacts, value: int, side: int, other_fix: bool) -> float:
    """A dream of ``value`` added to ``side`` of a row; ``other_fix``: another hand card
    could then balance it exactly."""
    w = pos.w
    if row.balanced:
        return -w[W.RUIN]
    after = row.total + value
    if after == 0:
        fourth = pos.n_balanced + 1 == pos.n_rows == MAX_ROWS
        return w[W.BALANCE] + (w[W.PERFECT] * 0.2 if fourth else 0.0)
    n_left = row.left + (1 if side == Side.L else 0)
    n_right = row.right + (1 if side == Side.R else 0)
    score = w[W.PROGRESS] * (abs(row.total) - abs(after)) - w[W.SLOT]
    if not pos.fixable(after, n_left, n_right):
        score -= w[W.STUCK]
    if other_fix:
        score += w[W.SETUP]
    return score


def side_placements(pos: Position, hand: list[int], only_side: int) -> tuple[float, float]:
    """Best placement of a card of ``hand`` on the left and on the right (a side other
    than ``only_side``, or none: ``-PASS``)."""
    best = [-pos.w[W.PASS], -pos.w[W.PASS]]
    book = pos.book
    for card in hand:
        if card == EMPTY:
            continue
        for side in book.sides(card):
            if only_side >= 0 and side != only_side:
                continue
            value = book.value_on(card, side)
            for r in range(pos.n_rows):
                city = pos.layout[r][0]
                if city == EMPTY or pos.facts[r].count(side) >= SIDE_SLOTS or \
                        not book.shows_element(city, card):
                    continue
                score = place_score(pos, pos.facts[r], value, side, False) - \
                    pos.catcher_cost(r, side)
                best[side] = max(best[side], score)
    return best[0], best[1]


def best_placement(pos: Position, hand: list[int], only_side: int) -> float:
    return max(side_placements(pos, hand, only_side))


def completes(pos: Position, mate: list[int], r: int, skip: int, after: int, n_left: int,
              n_right: int, only_side: int) -> bool:
    """True when a card of ``mate`` other than ``skip`` could then balance row ``r`` at
    ``after`` (on ``only_side``; EMPTY: either side)."""
    book = pos.book
    city = pos.layout[r][0]
    for card in mate:
        if card == EMPTY or card == skip or not book.shows_element(city, card):
            continue
        for side in (Side.L, Side.R):
            if only_side >= 0 and side != only_side:
                continue
            room = (n_left if side == Side.L else n_right) < SIDE_SLOTS
            if room and side in book.sides(card) and after + book.value_on(card, side) == 0:
                return True
    return False


def placement_score(pos: Position, card: int, r: int, side: int, mate: list[int],
                    mate_side: int) -> tuple[float, int]:
    """Placing ``card`` from hand on ``side`` of row ``r``, before its postcards, and the
    row's total after it."""
    row = pos.facts[r]
    value = pos.book.value_on(card, side)
    after = row.total + value
    n_left = row.left + (1 if side == Side.L else 0)
    n_right = row.right + (1 if side == Side.R else 0)
    skip = card if mate_side == EMPTY else EMPTY
    other = completes(pos, mate, r, skip, after, n_left, n_right, mate_side)
    return place_score(pos, row, value, side, other), after


# --- exchanges, rebuilds, change sides -----------------------------------------------------


class _Dream(NamedTuple):
    card: int
    row: int
    value: int
    total: int
    worth: float
    rocket: float


def best_exchange(pos: Position) -> tuple[float, int, int]:
    """Best Exchange (R04.4) as (gain, a, b); pairs in option order, ties to the first."""
    sides: tuple[list[_Dream], list[_Dream]] = ([], [])
    for r in range(pos.n_rows):
        row = pos.facts[r]
        worth = pos.city_value(row.total, row.balanced)
        for p in range(N_SLOTS):
            card = pos.layout[r][1 + p]
            if card == EMPTY:
                continue
            side = p // SIDE_SLOTS
            rocket = pos.rocket_cost(r, p) if pos.postcards else 0.0
            sides[side].append(_Dream(card, r, pos.book.value_on(card, side), row.total,
                                      worth, rocket))
    best, best_a, best_b = NONE_YET, EMPTY, EMPTY
    for dreams in sides:
        for i, a in enumerate(dreams):
            rest_a = a.total - a.value
            for b in dreams[i + 1:]:
                if b.row == a.row:
                    continue
                ta = rest_a + b.value
                tb = b.total - b.value + a.value
                after = pos.city_value(ta, ta == 0) + pos.city_value(tb, tb == 0)
                gain = after - (a.worth + b.worth) - a.rocket - b.rocket
                if gain > best:
                    best, best_a, best_b = gain, a.card, b.card
    return best, best_a, best_b


def city_flex(pos: Position, r: int) -> int:
    """Elements row ``r``'s City card shows: how many hand cards can reach it."""
    return bin(pos.book[pos.layout[r][0]].elements).count("1")


def best_rebuild(pos: Position) -> tuple[float, int, int]:
    """Best Rebuild (R08.4) as (gain, row a, row b); never the Emptiness row (R12)."""
    barred = pos.figure_row()
    flex = [city_flex(pos, r) for r in range(pos.n_rows)]
    best, best_a, best_b = NONE_YET, 0, 1
    for a in range(pos.n_rows):
        for b in range(a + 1, pos.n_rows):
            if barred in (a, b):
                continue
            gain = 0.0
            if not pos.facts[a].balanced:
                gain += flex[b] - flex[a]
            if not pos.facts[b].balanced:
                gain += flex[a] - flex[b]
            gain = pos.w[W.FLEX] * gain
            if gain > best:
                best, best_a, best_b = gain, a, b
    return best, best_a, best_b


def best_flip(pos: Position) -> tuple[float, int]:
    """Best Change Sides (R08.4) as (gain, card): a Chaos turned over changes its city's
    total by twice its value."""
    best, best_card = NONE_YET, EMPTY
    for r in range(pos.n_rows):
        row = pos.facts[r]
        before = pos.city_value(row.total, row.balanced)
        for side in (Side.L, Side.R):
            if row.count(1 - side) >= SIDE_SLOTS:
                continue
            for slot, card in enumerate(pos.side_cards(r, side)):
                if card == EMPTY or not pos.is_chaos_like(card):
                    continue
                after = row.total - 2 * pos.book.value_on(card, side)
                p = side * SIDE_SLOTS + slot
                rocket = pos.rocket_cost(r, p) if pos.postcards else 0.0
                gain = pos.city_value(after, after == 0) - before - rocket
                if gain > best:
                    best, best_card = gain, card
    return best, best_card


# --- the Emptiness (R12) and the census (R05) ------------------------------------------------


def emptiness_card(pos: Position) -> float:
    """An Emptiness card leaving: the last brings the top City card (R12.4)."""
    gain = pos.w[W.EMPTINESS_CARD]
    if pos.info[Info.EMPTINESS_N] == 1 and pos.info[Info.CITY_DECK_N] > 0:
        gain += pos.w[W.CENSUS_CITY]
    return gain


def figure_loss(pos: Position, r: int) -> float:
    """The Emptiness check on row ``r`` unbalanced (R12.2): its dreams and postcards lost
    (a relief when stuck); LOSING when it has none."""
    row = pos.facts[r]
    dreams = row.left + row.right
    if dreams == 0:
        return LOSING
    loss = pos.w[W.EMPTINESS_DREAM] * dreams + pos.row_sent_away_cost(r)
    if not pos.fixable(row.total, row.left, row.right):
        loss -= pos.w[W.STUCK]
    return -loss


def figure_check(pos: Position) -> tuple[float, int]:
    """The Emptiness check of a census now, as (score, City cards it brings)."""
    e = pos.figure_row()
    if e < 0:
        return 0.0, 0
    if pos.facts[e].balanced:
        last = pos.info[Info.EMPTINESS_N] == 1 and pos.info[Info.CITY_DECK_N] > 0
        return emptiness_card(pos), 1 if last else 0
    return figure_loss(pos, e), 0


def census_gain(pos: Position, bonus: int) -> float:
    """A census now, before the turn it costs: cities pacified, Perfect Balance (``bonus``
    City cards, R05.4, R09.6), their postcards, the Emptiness check, a win."""
    w = pos.w
    e = pos.figure_row()
    figure, cities = figure_check(pos)
    if figure <= LOSING:
        return LOSING
    pacified = [r for r in range(pos.n_rows) if r != e and pos.facts[r].balanced]
    n_bal = len(pacified)
    if n_bal == 0 and figure <= 0:
        return figure - w[W.TURN]
    perfect = n_bal == pos.n_rows == MAX_ROWS
    points = 0
    postcards = 0.0
    for r in pacified:
        row_points, row_gain = pos.pacify_points(r, perfect)
        points += row_points
        postcards += row_gain
    gain = w[W.CENSUS_CITY] * n_bal + figure + w[W.POSTCARD] * postcards
    cities += n_bal
    if n_bal == pos.n_rows:
        if perfect:
            gain += w[W.PERFECT] + w[W.CENSUS_CITY] * (bonus - 1)
            cities += min(bonus, pos.info[Info.CITY_DECK_N])
        else:
            gain += w[W.CENSUS_CITY]
    if cities >= pos.cities_to_win() and pos.inhabitants_ok(points):
        gain += WINNING
    return gain


def ally_gain(pos: Position) -> float:
    """Ally against the Emptiness (R12.3): an Emptiness card, and when a census now would
    pay for the figure's check, next turn's census spared the check of its next city."""
    gain = emptiness_card(pos)
    nxt = pos.next_figure_row()
    if nxt < 0:
        return gain
    if pos.facts[nxt].balanced:
        return gain + (pos.w[W.CENSUS_CITY] if nxt == pos.figure_row() else 0.0)
    now, _ = figure_check(pos)
    if pos.n_balanced > 0 and now < 0:
        gain -= max(figure_loss(pos, nxt), -pos.w[W.CENSUS_CITY] * pos.n_balanced)
    return gain


# --- Books of Power (R09) ------------------------------------------------------------------


def book_movable(pos: Position, side: int) -> Iterator[tuple[int, int, int]]:
    """(row, slot, card) of each dream on ``side`` that a Book may move or remove: any but
    a Chaos or Chromatic Chaos (R09.3, R09.4)."""
    for r in range(pos.n_rows):
        for slot, card in enumerate(pos.side_cards(r, side)):
            if card != EMPTY and not pos.is_chaos_like(card):
                yield r, slot, card


def without(pos: Position, r: int, card: int, side: int) -> tuple[float, float]:
    """Row ``r``'s value before and after ``card`` leaves ``side`` (balanced after only with
    dreams left)."""
    row = pos.facts[r]
    after = row.total - pos.book.value_on(card, side)
    others = row.left + row.right - 1
    return (pos.city_value(row.total, row.balanced),
            pos.city_value(after, after == 0 and others > 0))


def best_invisible(pos: Position, side: int) -> tuple[float, int]:
    """Best dream for an Invisible Book on ``side`` (R09.4) as (gain, card)."""
    best, best_card = NONE_YET, EMPTY
    for r, slot, card in book_movable(pos, side):
        before, after = without(pos, r, card, side)
        gain = after - before - pos.sent_away_cost(r, side * SIDE_SLOTS + slot)
        if gain > best:
            best, best_card = gain, card
    return best, best_card


def best_flying(pos: Position, side: int) -> tuple[float, int, int]:
    """Best move for a Flying Book on ``side`` (R09.3) as (gain, card, to_row)."""
    best, best_card, best_to = NONE_YET, EMPTY, EMPTY
    for ra, slot, card in book_movable(pos, side):
        before_a, after_a = without(pos, ra, card, side)
        gain_a = after_a - before_a - pos.rocket_cost(ra, side * SIDE_SLOTS + slot)
        v = pos.book.value_on(card, side)
        for rb in range(pos.n_rows):
            row_b = pos.facts[rb]
            if rb == ra or pos.layout[rb][0] == EMPTY or row_b.count(side) >= SIDE_SLOTS:
                continue
            tb = row_b.total + v
            gain = gain_a + pos.city_value(tb, tb == 0) - \
                pos.city_value(row_b.total, row_b.balanced) - pos.catcher_cost(rb, side)
            if gain > best:
                best, best_card, best_to = gain, card, rb
    return best, best_card, best_to


def freedom_row(pos: Position) -> int:
    """The dreamless city the Book of Freedom pacifies (R09.5): the Emptiness's (R12.5),
    else the top one; EMPTY when there is none."""
    dreamless = [r for r in range(pos.n_rows)
                 if pos.layout[r][0] != EMPTY and pos.facts[r].left + pos.facts[r].right == 0]
    if pos.figure_row() in dreamless:
        return pos.figure_row()
    return dreamless[0] if dreamless else EMPTY


def freedom_gain(pos: Position) -> float:
    if freedom_row(pos) == EMPTY:
        return NONE_YET
    gain = pos.w[W.FREEDOM]
    if pos.cities_to_win() == 1 and pos.inhabitants_ok(0):
        gain += WINNING
    return gain


FLYING_SIDE = {BookKind.FLYING_SOGNAE: Side.L, BookKind.FLYING_INCUBI: Side.R}
INVISIBLE_SIDE = {BookKind.INVISIBLE_SOGNAE: Side.L, BookKind.INVISIBLE_INCUBI: Side.R}


def book_gain(pos: Position, kind: int) -> float:
    """The best action of Book ``kind`` now, before the turn it costs."""
    if kind in FLYING_SIDE:
        return best_flying(pos, FLYING_SIDE[kind])[0]
    if kind in INVISIBLE_SIDE:
        return best_invisible(pos, INVISIBLE_SIDE[kind])[0]
    if kind == BookKind.FREEDOM:
        return freedom_gain(pos)
    if kind == BookKind.PERFECT_BALANCE:
        return census_gain(pos, BOOK_PERFECT_BALANCE_BONUS)
    return pos.w[W.TURN] - pos.w[W.PASS] + pos.w[W.PROPHECY]


# --- the decisions ---------------------------------------------------------------------------


def first_best(scores: list[float]) -> int:
    """Index of the highest score; ties go to the first."""
    best = 0
    for i, score in enumerate(scores):
        if score > scores[best]:
            best = i
    return best


def first_cheapest(costs: list[float]) -> int:
    """Index of the lowest cost; ties go to the first."""
    best = 0
    for i, cost in enumerate(costs):
        if cost < costs[best]:
            best = i
    return best


def index_of(pos: Position, matches: Callable[[list[int]], bool]) -> int:
    """The first option that ``matches``, else 0."""
    return next((i for i, option in enumerate(pos.options) if matches(option)), 0)


def phase1(pos: Position) -> int:
    """R04: the best card to place, pass or act with."""
    seat = pos.info[Info.SEAT]
    hand = pos.hands[seat]
    if pos.info[Info.SEATS] > 1:  # R10: the partner plays next, on the other polarity
        mate_side = Side.R if pos.info[Info.POLARITY] == seat else Side.L
        return first_best(phase1_scores(pos, hand, pos.hands[1 - seat], mate_side))
    return first_best(phase1_scores(pos, hand, hand, EMPTY))


def phase1_scores(pos: Position, hand: list[int], mate: list[int],
                  mate_side: int) -> list[float]:
    """Every Phase I option's score: placements, then the actions less the turn they cost
    and the placements of the cards they spend."""
    w = pos.w
    scores = [0.0] * len(pos.options)
    keep = [0.0] * len(hand)  # the best placement of each hand card
    balance_gains: dict[int, float] = {}
    for i, (act, card, r, side) in enumerate(pos.options):
        if act != Act.PLACE:
            continue
        score, after = placement_score(pos, card, r, side, mate, mate_side)
        if pos.postcards:
            score -= pos.catcher_cost(r, side)
            if after == 0 and not pos.facts[r].balanced:
                if r not in balance_gains:
                    balance_gains[r] = w[W.POSTCARD] * pos.pacify_points(r, False)[1]
                score += balance_gains[r]
        scores[i] = score
        for k, held in enumerate(hand):
            if held == card:
                keep[k] = max(keep[k], score)
    gains = action_gains(pos)
    for i, (act, first, second, kind) in enumerate(pos.options):
        if act == Act.PLACE:
            continue
        spent = 0.0
        for k, held in enumerate(hand):
            if held != EMPTY and (held == first or (act >= Act.REBUILD and held == second)):
                spent += keep[k]
        if act == Act.PASS:
            scores[i] = -w[W.PASS] - spent
        elif act == Act.BOOK:
            scores[i] = gains[(Act.BOOK, kind)] - w[W.TURN] - spent
        else:
            scores[i] = gains[(act, EMPTY)] - w[W.TURN] - spent
    return scores


def action_gains(pos: Position) -> dict[tuple[int, int], float]:
    """Gain of each kind of action on offer, keyed by (act, BookKind or EMPTY)."""
    gains = {(Act.CENSUS, EMPTY): census_gain(pos, 1)}
    for act, _, _, kind in pos.options:
        key = (act, kind if act == Act.BOOK else EMPTY)
        if act < Act.EXCHANGE or key in gains:
            continue
        if act == Act.EXCHANGE:
            gains[key] = best_exchange(pos)[0]
        elif act == Act.REBUILD:
            gains[key] = best_rebuild(pos)[0]
        elif act == Act.CHANGE_SIDES:
            gains[key] = best_flip(pos)[0]
        elif act == Act.ALLY:
            gains[key] = ally_gain(pos)
        else:
            gains[key] = book_gain(pos, kind)
    return gains


def second_act(pos: Position) -> int:
    """A Wizard's second action (R08.3): a census or Perfect Balance that gains, else the
    Exchange or Book action that gains most, else none (option 0)."""
    best, best_gain = 0, 0.0
    best_other, other_gain = 0, 0.0
    for i, (act, _, _, kind) in enumerate(pos.options):
        if i == 0:
            continue
        if act == Act.CENSUS or (act == Act.BOOK and kind == BookKind.PERFECT_BALANCE):
            gain = census_gain(pos, 1 if act == Act.CENSUS else BOOK_PERFECT_BALANCE_BONUS)
            if gain > best_gain:
                best, best_gain = i, gain
            continue
        gain = best_exchange(pos)[0] if act == Act.EXCHANGE else book_gain(pos, kind)
        if gain > other_gain:
            best_other, other_gain = i, gain
    return best if best > 0 else best_other


def chaos_cost(pos: Position, option: list[int]) -> float:
    """What taking a Chaos this way costs (R06.2, R03, R11.3)."""
    w = pos.w
    how, r, side, chaos = option
    if how == ChaosHow.PLACE:
        row = pos.facts[r]
        after = row.total + pos.book.value_on(chaos, side)
        cost = w[W.CHAOS_POINT] * (abs(after) - abs(row.total)) + pos.catcher_cost(r, side)
        n_left = row.left + (1 if side == Side.L else 0)
        n_right = row.right + (1 if side == Side.R else 0)
        if not pos.fixable(after, n_left, n_right):
            cost += w[W.STUCK]
        return cost
    if how == ChaosHow.CLEAR:
        return w[W.CLEAR] + (pos.row_sent_away_cost(r) if pos.postcards else 0.0)
    if how == ChaosHow.REVEAL:
        burnt = min(REVEAL_COUNT, pos.info[Info.DECK_N])
        return w[W.REVEAL_CARD] * burnt * pos.pressure()
    if how == ChaosHow.WISE:
        return w[W.WISE]
    return 0.0  # set aside from the opening hand (R03)


def chaos(pos: Position) -> int:
    """The cheapest way to take a Chaos."""
    return first_cheapest([chaos_cost(pos, option) for option in pos.options])


def deal_side(pos: Position) -> int:
    """R02.3: two Chaos dealt together go right (1), where Sognae answer them, unless the
    Incubi answer them better; R02.4: a Meta or Harmony dealt takes the side that brings
    its city nearer to balance with the other card dealt to it, when that card is not
    placed yet (ties: left)."""
    _, r, card, partner = pos.options[0]
    if card == EMPTY:
        return 1 if pos.w[W.MAX_SOGNAE] >= pos.w[W.MAX_INCUBI] else 0
    total = sum(pos.book.value_on(c, side) for side in (Side.L, Side.R)
                for c in pos.side_cards(r, side) if c != EMPTY)
    left = deal_gap(pos, total + pos.book.value_on(card, Side.L), partner, Side.L)
    right = deal_gap(pos, total + pos.book.value_on(card, Side.R), partner, Side.R)
    return 1 if right < left else 0


def deal_gap(pos: Position, total: int, partner: int, side: int) -> int:
    """How far from balance a city at ``total`` ends once ``partner`` (-1: none), dealt
    with a card on ``side``, is placed: a Chaos joins that side (R02.4), a Meta or Harmony
    takes its nearer side, any other card its own."""
    if partner == EMPTY:
        return abs(total)
    if pos.book.is_two_sided(partner):
        return min(abs(total + pos.book.value_on(partner, s)) for s in (Side.L, Side.R))
    return abs(total + pos.book.value_on(partner, side))


def chromatic_cost(pos: Position, r: int, side: int, card: int) -> float:
    """A Chromatic Chaos on ``side`` of row ``r`` (R07.1); negative when it helps."""
    w = pos.w
    row = pos.facts[r]
    after = row.total + pos.book.value_on(card, side)
    cost = w[W.CHAOS_POINT] * (abs(after) - abs(row.total)) + pos.catcher_cost(r, side)
    if row.balanced:
        cost += w[W.RUIN]
    elif after == 0:
        cost -= w[W.BALANCE]
    n_left = row.left + (1 if side == Side.L else 0)
    n_right = row.right + (1 if side == Side.R else 0)
    if not pos.fixable(after, n_left, n_right):
        cost += w[W.STUCK]
    return cost


def chromatic(pos: Position) -> int:
    """Where a Chromatic Chaos does least harm; a Wise Chaos (R11.3) when all cost more."""
    costs = []
    for i, (r, side, card, _) in enumerate(pos.options):
        if r == EMPTY:
            return i  # no side has room: the discard costs nothing
        costs.append(pos.w[W.WISE] if r == WISE_CHROMATIC else
                     chromatic_cost(pos, r, side, card))
    return first_cheapest(costs)


def revealed(pos: Position) -> int:
    """The card a Chromatic Chaos reveals (R07.2), where a placement would score best."""
    scores = []
    for i, (r, side, card, _) in enumerate(pos.options):
        if r == EMPTY:
            return i
        value = pos.book.value_on(card, side)
        scores.append(place_score(pos, pos.facts[r], value, side, False) -
                      pos.catcher_cost(r, side))
    return first_best(scores)


def zero_sum_score(pos: Position, mask: int, r: int) -> float:
    """A zero-sum set's worth (R05.5): the room it frees, and ``ZERO_SUM_POINT`` per
    Inhabitant point its postcards win or lose (R11.4)."""
    if not pos.postcards:
        return float(bin(mask).count("1"))
    score = 0.0
    for side in (Side.L, Side.R):
        removed, catcher = 0, False
        for slot in range(SIDE_SLOTS):
            p = side * SIDE_SLOTS + slot
            kind = pos.postcard_kind(r, p)
            if mask >> p & 1:
                removed += 1
                lost = 0.0 if kind == EMPTY else EXPECTED_POINTS[kind] - SENT_AWAY
                score += 1.0 - ZERO_SUM_POINT * lost
            elif kind == PostcardKind.DREAMCATCHER:
                catcher = True
        on_side = sum(c != EMPTY for c in pos.side_cards(r, side))
        if catcher and removed > 0 and on_side - removed == 1:
            score += ZERO_SUM_POINT * (CONDITION_MET - EXPECTED_POINTS[PostcardKind.DREAMCATCHER])
    return score


def zero_sum(pos: Position) -> int:
    return first_best([zero_sum_score(pos, mask, r) for mask, r, _, _ in pos.options])


def exchange_pair(pos: Position) -> int:
    _, a, b = best_exchange(pos)
    return index_of(pos, lambda option: option[0] == a and option[1] == b)


def rebuild_rows(pos: Position) -> int:
    _, a, b = best_rebuild(pos)
    return index_of(pos, lambda option: option[0] == a and option[1] == b)


def change_sides(pos: Position) -> int:
    _, card = best_flip(pos)
    return index_of(pos, lambda option: option[0] == card)


def books(pos: Position) -> int:
    """R09.1: reveal while the Books kept stay at or below ``BOOKS_KEEP``."""
    bits = pos.info[Info.BOOKS] & ~(1 << BookKind.PROPHECIES)
    kept = pos.info[Info.PROPHECIES] + bin(bits).count("1")
    want = BooksChoice.REVEAL if kept + 1 <= pos.w[W.BOOKS_KEEP] else BooksChoice.STOP
    return 1 if pos.options[1][0] == want else 0


def book_target(pos: Position) -> int:
    """The dream or row a Book action works on, the one its Phase I score counted on:
    Flying ``[card, from, to, side]``, Invisible ``[card, row, side, -1]``, Freedom
    ``[row, -1, -1, -1]``."""
    first = pos.options[0]
    if first[3] != EMPTY:
        _, card, to = best_flying(pos, first[3])
        return index_of(pos, lambda option: option[0] == card and option[2] == to)
    if first[1] != EMPTY:
        _, card = best_invisible(pos, first[2])
        return index_of(pos, lambda option: option[0] == card)
    row = freedom_row(pos)
    return index_of(pos, lambda option: option[0] == row)


def draw_value(pos: Position, card: int) -> float:
    """How welcome ``card`` is as the next draw: a Chaos costs its points, another card is
    worth its best placement for the seat that draws."""
    if pos.is_chaos_like(card):
        return -pos.w[W.CHAOS_POINT] * pos.book[card].value
    side = EMPTY
    if pos.info[Info.SEATS] > 1:
        side = Side.L if pos.info[Info.POLARITY] == pos.info[Info.SEAT] else Side.R
    return best_placement(pos, [card], side)


def prophecy_order(pos: Position) -> int:
    """R09.7: the order that draws the most welcome cards first."""
    seen = [card for card in pos.options[0] if card != EMPTY]
    m = len(seen)
    values = {card: draw_value(pos, card) for card in seen}
    scores = []
    for option in pos.options:
        score = 0.0
        for k in range(m):
            score += values[option[k]] * (m - k)
        scores.append(score)
    return first_best(scores)


def swap_polarity(pos: Position) -> int:
    """R10.4: swap (1) when the seat to play, and half as much its partner, would place
    clearly better with the other polarity."""
    seat = pos.info[Info.SEAT]
    side = Side.L if pos.info[Info.POLARITY] == seat else Side.R
    own = side_placements(pos, pos.hands[seat], EMPTY)
    partner = side_placements(pos, pos.hands[1 - seat], EMPTY)
    mine = own[1 - side] - own[side]
    theirs = partner[side] - partner[1 - side]
    return 1 if mine + PARTNER_SHARE * theirs > pos.w[W.SWAP] else 0


DECISIONS: dict[int, Callable[[Position], int]] = {
    Decision.PHASE1: phase1,
    Decision.DRAW_CHAOS: chaos,
    Decision.HAND_CHAOS: chaos,
    Decision.DEAL_SIDE: deal_side,
    Decision.ZERO_SUM: zero_sum,
    Decision.EXCHANGE_PAIR: exchange_pair,
    Decision.CHROMATIC: chromatic,
    Decision.REVEALED: revealed,
    Decision.SECOND_ACT: second_act,
    Decision.REBUILD_ROWS: rebuild_rows,
    Decision.CHANGE_SIDES_CARD: change_sides,
    Decision.BOOKS: books,
    Decision.BOOK_TARGET: book_target,
    Decision.PROPHECY_ORDER: prophecy_order,
    Decision.SWAP_POLARITY: swap_polarity,
}


class PlainGreedy:
    """``greedy`` with the policy signature of docs/policies.md, in plain Python.

    Parameters
    ----------
    book : CardBook
        The cards of the game it plays.
    """

    def __init__(self, book: CardBook) -> None:
        self.book = book

    def __call__(self, kind: int, options: np.ndarray, n_options: int,
                 state: tuple[np.ndarray, np.ndarray, np.ndarray], cards: np.ndarray,
                 params: np.ndarray, rng: np.ndarray) -> int:
        """The index of the chosen option; ``cards`` and ``rng`` are not read (greedy draws
        nothing at random, and reads the cards from its book)."""
        return DECISIONS[kind](Position(self.book, options, n_options, state, params))
