"""Info.HOURGLASS_N and Info.FLAGSHIP_N, which let the Hourglass (R11.6) and Flagship
(R11.7) passes skip a turn, never count fewer than the postcards of that kind on dreams."""

from __future__ import annotations

import pytest

import analyzer
from analyzer.core.codes import EMPTY, SIDE_SLOTS, CardField, Expansion, Info, PostcardKind
from analyzer.policies.registry import resolve_policy
from analyzer.rules.game_nb import finish_turn_nb, start_turn_nb
from analyzer.rules.postcards_nb import sail_flagships_nb, turn_hourglasses_nb
from analyzer.rules.setup_nb import deal_row_nb, setup_nb
from analyzer.rules.state_nb import copy_game_nb, is_running_nb, new_game_nb
from tests.positions import CARDS, city, incubi, position, postcard, scripted_nb, sognae

PC = Expansion.POSTCARDS
HOUR, FLAG = postcard(PostcardKind.HOURGLASS), postcard(PostcardKind.FLAGSHIP)
CATCHER = postcard(PostcardKind.DREAMCATCHER)
S2, I2 = sognae(2), incubi(-2)
COUNTERS = ((PostcardKind.HOURGLASS, Info.HOURGLASS_N), (PostcardKind.FLAGSHIP, Info.FLAGSHIP_N))


def on_dreams(g, cards, kind) -> int:
    """Postcards of ``kind`` lying on the layout's dreams."""
    n = 0
    for row in range(g.info[Info.N_ROWS]):
        for pos in range(2 * SIDE_SLOTS):
            dream = g.layout[row, 1 + pos]
            on = g.postcard_on[dream] if dream != EMPTY else EMPTY
            if on != EMPTY and cards[on, CardField.KIND] == kind:
                n += 1
    return n


@pytest.mark.parametrize("top, hourglasses, flagships", [(HOUR, 1, 0), (FLAG, 0, 1),
                                                         (CATCHER, 0, 0)])
def test_R02_6_dealing_a_postcard_counts_it_by_kind(top, hourglasses, flagships):
    g = position([(city(3), [], [])], deck=[S2, I2], postcard_deck=[top], expansions=PC)
    deal_row_nb(scripted_nb, g, CARDS.cards, 0)
    counts = (g.info[Info.HOURGLASS_N], g.info[Info.FLAGSHIP_N])
    assert counts == (hourglasses, flagships)
    copy = copy_game_nb(g)  # the search policy's imagined play-outs
    assert (copy.info[Info.HOURGLASS_N], copy.info[Info.FLAGSHIP_N]) == counts


def test_R11_7_a_flagship_sent_away_at_a_full_side_is_no_longer_counted():
    full = [sognae(1), sognae(3), sognae(4)]
    g = position([(city(3), [S2], []), (city(5), full, [])], postcards={S2: FLAG},
                 expansions=PC)
    assert g.info[Info.FLAGSHIP_N] == 1
    sail_flagships_nb(g, CARDS.cards)
    assert g.info[Info.FLAGSHIP_N] == 0 == on_dreams(g, CARDS.cards, PostcardKind.FLAGSHIP)


def test_R11_6_an_hourglass_sent_away_on_its_fifth_turn_is_no_longer_counted():
    g = position([(city(3), [S2], [I2])], postcards={S2: HOUR}, hourglass={HOUR: 4},
                 expansions=PC)
    turn_hourglasses_nb(g, CARDS.cards)
    assert g.info[Info.HOURGLASS_N] == 0


@pytest.mark.parametrize("policy, variant", [("greedy", "solo"), ("random", "solo"),
                                             ("greedy", "team")])
def test_R11_6_R11_7_counters_never_fall_below_the_postcards_on_dreams(policy, variant):
    card_set = analyzer.load_cards(None, expansions="all", variant=variant)
    spec = resolve_policy(policy)
    cards = card_set.cards
    seen = {kind: 0 for kind, _ in COUNTERS}

    def check(game):
        for kind, field in COUNTERS:
            n = on_dreams(g, cards, kind)
            seen[kind] += n
            assert g.info[field] >= n, (game, kind, int(g.info[field]), n)

    for game in range(40):
        g = new_game_nb(cards.shape[0], 17, game, 0, spec.params)
        setup_nb(spec.kernel_arg, g, cards, card_set.city_ids, card_set.dream_ids,
                 card_set.rules)
        while is_running_nb(g):
            check(game)  # before the Flagships sail
            start_turn_nb(spec.kernel_arg, g, cards)
            check(game)  # before the Hourglasses turn
            finish_turn_nb(spec.kernel_arg, g, cards)
    assert all(n > 0 for n in seen.values())  # both kinds were on dreams at some point
