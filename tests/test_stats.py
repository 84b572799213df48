"""The statistics module against published and hand-worked values: the Wilson interval,
Holm's adjustment, and the log-odds contrast of runs on the same games
(stats.log_odds_contrast): its interval against the textbook one, its error rate where runs
share their games, its power."""

import math

import numpy as np
import pytest

from analyzer.analysis.stats import (
    ODDS_MIN_OUTCOMES,
    holm_adjust,
    log_odds_contrast,
    wilson_interval,
)


def test_wilson_interval_matches_newcombes_published_example():
    # Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3: 81 of 263
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


def test_holm_adjusted_p_values_are_capped_at_1():
    # by hand from Holm's step-down rule: sorted p times (m - k), kept non-decreasing, at
    # most 1: 0.6 * 2 = 1.2 -> 1, then max(1, 0.7 * 1)
    assert holm_adjust([0.6, 0.7]) == [1.0, 1.0]
    # 0.4 * 3 = 1.2 -> 1, 0.5 * 2 = 1.0, 0.9 * 1 kept at 1; back in the input's order
    assert holm_adjust([0.9, 0.4, 0.5]) == [1.0, 1.0, 1.0]
    assert holm_adjust([0.01, 0.04, 0.3]) == pytest.approx([0.03, 0.08, 0.3])


def _logistic(log_odds: float) -> float:
    return 1.0 / (1.0 + math.exp(-log_odds))


def _four_runs(rng, games, base_rate, set_rate, base_factor, set_factor):
    """Won arrays of (set with the cards, set against, base with the cards, base against),
    each pair of one set drawn from the same uniforms as the paired games are, and the
    two sets sharing half of theirs; the cards multiply the odds by the two factors."""
    u, v = rng.random(games), rng.random(games)
    v = np.where(rng.random(games) < 0.5, u, v)
    cards_base = _logistic(math.log(base_rate / (1 - base_rate)) + math.log(base_factor))
    cards_set = _logistic(math.log(set_rate / (1 - set_rate)) + math.log(set_factor))
    return [v < cards_set, v < set_rate, u < cards_base, u < base_rate]


SIGNS = [1, -1, -1, 1]


def test_independent_runs_give_woolfs_interval():
    rng = np.random.default_rng(5)
    rates = (0.3, 0.1, 0.2, 0.05)
    wins = [rng.random(20_000) < rate for rate in rates]
    found = log_odds_contrast(wins, SIGNS)
    counts = [int(w.sum()) for w in wins]
    woolf = math.sqrt(sum(1 / k + 1 / (20_000 - k) for k in counts))
    spread = math.log(found["high"] / found["low"]) / (2 * 1.959963984540054)
    assert spread == pytest.approx(woolf, rel=0.03)
    odds = [k / (20_000 - k) for k in counts]
    assert found["ratio"] == pytest.approx(odds[0] / odds[1] / odds[2] * odds[3])


@pytest.mark.parametrize("games, set_rate, lowest", [(20_000, 0.02, 0.03),
                                                     (3_000, 0.01, 0.01)])
def test_paired_runs_reject_a_true_ratio_of_one_about_one_time_in_twenty(games, set_rate,
                                                                         lowest):
    """The four runs share their games, which narrows the log odds' spread: a variance
    that ignored it would reject next to never, one that took too little would reject
    often. At 3,000 games a set's two runs differ in about 24 games, near the fewest
    weighed: the rounds that differ in fewer are not weighed, and those weighed reject
    less often than one in twenty."""
    rng = np.random.default_rng(11)
    found = [log_odds_contrast(_four_runs(rng, games, 0.09, set_rate, 1.8, 1.8), SIGNS)
             for _ in range(1_000)]
    weighed = [f for f in found if not math.isnan(f["p"])]
    assert len(weighed) >= 600
    assert lowest <= sum(f["p"] < 0.05 for f in weighed) / len(weighed) <= 0.08


def test_runs_that_differ_in_few_games_are_not_weighed_whatever_their_wins():
    """A small card change touches few games: paired runs then carry their contrast in
    those few, where Wald's test rejected a true ratio of 1 in 13% of rounds at 4 games
    differing (docs/compare.md), whatever the hundreds of wins of each run."""
    rng = np.random.default_rng(13)
    base = rng.random(6_000) < 0.05
    other_base, other_against = (base ^ (rng.random(6_000) < 0.05) for _ in range(2))
    some = base.copy()
    changed = rng.choice(6_000, size=ODDS_MIN_OUTCOMES - 1, replace=False)
    some[changed] = ~some[changed]
    assert math.isnan(log_odds_contrast([some, base, other_base, other_against], SIGNS)["p"])
    changed = rng.choice(6_000, size=ODDS_MIN_OUTCOMES, replace=False)
    more = base.copy()
    more[changed] = ~more[changed]
    assert not math.isnan(log_odds_contrast([more, base, other_base, other_against],
                                            SIGNS)["p"])


def test_paired_runs_find_a_change_twice_the_base_games_odds():
    rng = np.random.default_rng(12)
    found = [log_odds_contrast(_four_runs(rng, 10_000, 0.09, 0.02, 1.5, 3.0), SIGNS)
             for _ in range(50)]
    assert sum(f["p"] < 0.05 for f in found) >= 45
    assert 1.6 < np.median([f["ratio"] for f in found]) < 2.4


def test_a_run_with_too_few_wins_or_losses_is_not_weighed():
    rng = np.random.default_rng(2)
    won = [rng.random(5_000) < 0.2 for _ in range(3)]
    few = np.arange(5_000) < ODDS_MIN_OUTCOMES - 1
    assert math.isnan(log_odds_contrast([*won, few], SIGNS)["p"])
    assert math.isnan(log_odds_contrast([won[0], won[1], ~few, won[2]], SIGNS)["ratio"])
    enough = np.arange(5_000) < ODDS_MIN_OUTCOMES
    assert not math.isnan(log_odds_contrast([*won, enough], SIGNS)["p"])


def test_runs_that_cancel_game_for_game_show_no_departure_and_no_interval():
    """Books of Power that greedy never reveals: the set plays the base game's games, and
    no spread is no certainty."""
    cards = np.arange(4_000) % 7 == 0
    against = np.arange(4_000) % 5 == 0
    found = log_odds_contrast([cards, against, cards, against], SIGNS)
    assert found["ratio"] == pytest.approx(1.0) and found["p"] == 1.0
    assert math.isnan(found["low"]) and math.isnan(found["high"])


@pytest.mark.parametrize("base_wins", [600, 3])
def test_a_change_that_leaves_the_base_games_deals_alone_is_weighed_on_the_set(base_wins):
    """Chromatic Chaos of value 2 against 4: the base game plays the same games with both
    card sets, two runs that differ in no game, and the set was called too few games
    differing to weigh, with 1,610 of its games differing and Holm p 7e-64 in points."""
    rng = np.random.default_rng(3)
    base = np.arange(6_000) < base_wins  # 3 wins: too few for a run that weighs
    against = rng.random(6_000) < 0.29
    cards = against & (rng.random(6_000) < 0.55)
    found = log_odds_contrast([cards, against, base, base], SIGNS)
    alone = log_odds_contrast([cards, against], [1, -1])
    assert found["p"] < 1e-12 and found == pytest.approx(alone)
    odds = [w.mean() / (1 - w.mean()) for w in (cards, against)]
    assert found["ratio"] == pytest.approx(odds[0] / odds[1])


def test_runs_that_won_no_game_do_not_cancel():
    """Two runs of no win have no log odds: the same games, yet not a contrast of 0."""
    rng = np.random.default_rng(4)
    none = np.zeros(6_000, dtype=bool)
    against, base = (rng.random(6_000) < rate for rate in (0.3, 0.1))
    assert math.isnan(log_odds_contrast([none, against, none, base], SIGNS)["ratio"])


def test_runs_left_without_a_run_of_the_other_sign_are_weighed_alone():
    """Once a pair cancels, the runs left may all enter with one sign: no two then need
    games differing (min() of no pair raised a ValueError)."""
    rng = np.random.default_rng(6)
    a, b = (rng.random(3_000) < rate for rate in (0.3, 0.2))
    found = log_odds_contrast([a, a, b], [1, -1, 1])
    assert found == pytest.approx(log_odds_contrast([b], [1]))
