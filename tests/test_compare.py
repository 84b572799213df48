"""compare: expansion sets on the same deals, the paired table, precision, resume, files."""

from __future__ import annotations

import html
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.analysis.compare import (
    books_unplayed_note,
    compare_table,
    format_compare,
    rank_ranges,
    rank_text,
)
from analyzer.analysis.expansion_sets import expansion_sets
from analyzer.analysis.interactions import (
    format_interactions,
    interaction_band,
    interaction_matrix,
    interactions,
)
from analyzer.analysis.stats import (
    format_p,
    paired_difference,
    paired_difference_interval,
    signed_pp,
)
from analyzer.errors import RunStopped, UrbionError
from tests.test_cli import run

SEED = 5


@pytest.fixture(scope="module")
def singles():
    return analyzer.compare(sets="chromatic_chaos,squares_metas", games=600, seed=SEED)


def test_every_set_plays_the_same_games_of_the_seed(singles):
    for label, expansions in (("base", "none"), ("chromatic_chaos", "chromatic_chaos"),
                              ("squares_metas", "squares_metas")):
        alone = analyzer.simulate(games=600, seed=SEED, expansions=expansions)
        assert singles.runs[label].equals(alone), label
    assert list(singles.table.index) == ["base", "chromatic_chaos", "squares_metas"]


def test_a_set_compared_with_itself_has_no_discordant_game(singles):
    again = analyzer.simulate(games=600, seed=SEED, expansions="chromatic_chaos")
    again.attrs = {**again.attrs}
    table = compare_table({"base": singles.runs["chromatic_chaos"], "again": again})
    row = table.loc["again"]
    assert (row.set_only, row.base_only, row.difference, row.mcnemar_p) == (0, 0, 0.0, 1.0)
    other = compare_table({"base": singles.runs["base"], "cc": again}).loc["cc"]
    assert other.set_only + other.base_only > 0, "different sets do disagree on some deals"


def test_table_counts_and_holm_by_hand():
    base = pd.DataFrame({"game": range(10), "won": [1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
                         "turns": 20, "pacified": 8}).astype({"won": bool})
    a = base.assign(won=[1, 1, 1, 1, 1, 1, 1, 1, 0, 0]).astype({"won": bool})
    b = base.assign(won=[0, 1, 1, 0, 0, 0, 0, 0, 0, 0]).astype({"won": bool})
    table = compare_table({"base": base, "a": a, "b": b})
    assert (table.at["a", "set_only"], table.at["a", "base_only"]) == (6, 0)
    assert (table.at["b", "set_only"], table.at["b", "base_only"]) == (1, 1)
    assert table.at["a", "mcnemar_p"] == pytest.approx(2 * 0.5 ** 6)  # 0.03125
    assert table.at["b", "mcnemar_p"] == 1.0
    assert table.at["a", "holm_p"] == pytest.approx(2 * 0.03125)
    assert table.at["b", "holm_p"] == 1.0
    assert table.at["a", "difference"] == pytest.approx(0.6)
    assert list(table["rank"]) == [1, 3, 1]  # base and b tie lowest at 20%
    assert math.isnan(table.at["base", "holm_p"])


def test_a_sets_win_rate_counts_all_its_games_its_difference_the_paired_ones():
    """With --precision a set may play more games than the base game: its win rate and
    Wilson interval are over all its games (15 of 20; the interval from scipy's
    binomtest(15, 20).proportion_ci(method="wilson")), the paired difference over the 10
    games both played ((5 - 3) / 10)."""
    base = pd.DataFrame({"game": range(10), "won": [True] * 3 + [False] * 7, "turns": 20,
                         "pacified": 8})
    a = pd.DataFrame({"game": range(20), "won": [True] * 5 + [False] * 5 + [True] * 10,
                      "turns": 20, "pacified": 8})
    table = compare_table({"base": base, "a": a})
    assert table.at["a", "win_rate"] == pytest.approx(0.75)
    assert table.at["a", "ci_low"] == pytest.approx(0.531299, abs=1e-6)
    assert table.at["a", "ci_high"] == pytest.approx(0.888138, abs=1e-6)
    assert table.at["a", "paired_games"] == 10
    assert table.at["a", "difference"] == pytest.approx(0.2)


def _games(won: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"game": range(len(won)), "won": np.array(won, dtype=bool),
                         "turns": 20, "pacified": 8})


def test_rank_ranges_place_a_set_only_where_a_pairwise_test_separates_it():
    """20 games: a wins all, base and b none. a vs base and a vs b: 20 discordant games to
    none (exact p 2 * 0.5**20, under 0.05 after Holm over the 3 pairs); base vs b: no game
    differs. a is shown easier than both (rank 3 of 3); base and b tie, each shown harder
    than a only, so each can hold rank 1 or 2."""
    base, a, b = _games([0] * 20), _games([1] * 20), _games([0] * 20)
    table = compare_table({"base": base, "a": a, "b": b})
    assert table.loc["a", ["rank", "rank_low", "rank_high"]].tolist() == [3, 3, 3]
    for label in ("base", "b"):
        assert table.loc[label, ["rank", "rank_low", "rank_high"]].tolist() == [1, 1, 2]
    assert [rank_text(r) for _, r in table.iterrows()] == ["1 (1-2)", "3", "1 (1-2)"]


def test_rank_ranges_without_a_separating_test_span_every_rank():
    """5 games: 2 discordant games at most, exact p >= 0.5: nothing is separated."""
    runs = {"base": _games([0, 0, 0, 0, 0]), "a": _games([1, 1, 0, 0, 0]),
            "b": _games([1, 0, 0, 0, 0])}
    table = compare_table(runs)
    assert table["rank_low"].tolist() == [1, 1, 1]
    assert table["rank_high"].tolist() == [3, 3, 3]
    assert table["rank"].tolist() == [1, 3, 2]


def test_a_set_that_plays_the_base_games_shares_its_rank_when_it_stopped_sooner():
    """--precision can stop a set before the base game: books (as greedy plays it) has the
    base game's own games, here its first 20, all lost, while the base game went on to win
    its next 20. On their own games books wins 0% and the base game 50%, yet books is no
    harder: the rank is read from the paired difference, which is 0."""
    base = _games([0] * 20 + [1] * 20)
    books = _games([0] * 20)
    table = compare_table({"base": base, "books": books})
    assert table.at["books", "win_rate"] == 0.0 and table.at["base", "win_rate"] == 0.5
    assert table["rank"].tolist() == [1, 1]
    assert table["rank_low"].tolist() == [1, 1] and table["rank_high"].tolist() == [2, 2]


def test_an_interactions_interval_stays_within_what_a_mean_of_contrasts_can_be():
    """Each game's contrast won(AB) - won(A) - won(B) + won(base) lies in [-2, 2]; over 3
    games of contrasts 2, -2, 2 Student's interval is +0.67 +- 5.7, which only [-2, 2]
    can hold. With no base-game win, "multiplied" has nothing to divide by: n/a."""
    runs = {"base": _games([1, 0, 1]), "a": _games([0, 1, 0]), "b": _games([0, 1, 0]),
            "a+b": _games([1, 0, 1])}
    row = interactions(runs).iloc[0]
    assert row.interaction == pytest.approx(2 / 3)
    assert (row.low, row.high) == (-2.0, 2.0)
    lost = {**runs, "base": _games([0, 0, 0])}
    text = format_interactions(interactions(lost))
    assert "n/a" in text.splitlines()[3] and "nan" not in text


def test_multiplied_stays_a_win_rate_where_both_singles_make_the_game_easier():
    """Two easier expansions of the team game with weighted: 0.58 and 0.40 against a base
    game of 0.20 multiplied as ratios to 116%, printed as the pair's predicted win rate."""
    from analyzer.analysis.interactions import multiplied_odds

    predicted = multiplied_odds(0.58, 0.40, 0.20)
    odds = (0.58 / 0.42) * (0.40 / 0.60) / (0.20 / 0.80)
    assert predicted == pytest.approx(odds / (1 + odds)) and 0.78 < predicted < 0.79
    assert multiplied_odds(0.2, 0.4, 0.2) == pytest.approx(0.4)  # a single without effect
    assert multiplied_odds(0.0, 0.4, 0.2) == 0.0 and multiplied_odds(1.0, 0.4, 0.2) == 1.0
    for undefined in ((0.3, 0.4, 0.0), (0.3, 0.4, 1.0), (0.0, 1.0, 0.5)):
        assert math.isnan(multiplied_odds(*undefined))
    runs = {"base": _games([1, 0, 0, 0, 0]), "a": _games([1, 1, 1, 0, 0]),
            "b": _games([1, 1, 1, 1, 0]), "a+b": _games([1, 1, 1, 1, 1])}
    assert 0.0 <= interactions(runs).iloc[0].multiplied <= 1.0  # ratios: 240%


def test_a_rank_the_pairwise_tests_rule_out_gives_way_to_them():
    """--precision stops sets at different lengths. b wins 12 of its 20 games (+60 points
    on the base game's first 20), a 20 of its 40 (+50): by the estimates b ranks above a.
    But over the 20 games both played a won every one and b only 12 (8 to 0, p 0.0078), and
    with the other two pairs also separated (Holm over 3 pairs), the tests order the sets
    base, b, a: the ranks follow them."""
    runs = {"base": _games([0] * 40), "a": _games([1] * 20 + [0] * 20),
            "b": _games([1] * 12 + [0] * 8)}
    table = compare_table(runs)
    assert table["difference"].tolist() == [0.0, 0.5, 0.6]
    assert table["rank_low"].tolist() == [1, 3, 2] == table["rank_high"].tolist()
    assert table["rank"].tolist() == [1, 3, 2]


@pytest.mark.parametrize("pair_won, interaction", [(0, 0.0), (1, 1.0)])
def test_games_all_alike_are_no_proof_of_their_interaction(pair_won, interaction):
    """20 games, each with the same contrast: a spread of zero, but 20 games cannot rule out
    that up to 1 - 0.025**(1/20) (16.8%) of games would differ, each by as much as a
    contrast can (to -2 or +2)."""
    runs = {"base": _games([0] * 20), "a": _games([0] * 20), "b": _games([0] * 20),
            "a+b": _games([pair_won] * 20)}
    row = interactions(runs).iloc[0]
    share = 0.168433  # 1 - 0.025**(1/20)
    assert row.interaction == interaction
    assert row.low == pytest.approx(interaction - share * (interaction + 2), abs=1e-5)
    assert row.high == pytest.approx(interaction + share * (2 - interaction), abs=1e-5)
    # the sign test: 20 games of one sign, 2 * 0.5**20; none of any sign, nothing shown
    assert row.p == pytest.approx(2 * 0.5 ** 20 if interaction else 1.0, rel=1e-12)
    assert row.holm_p == row.p


def test_rank_ranges_hold_the_pairwise_tests_to_holms_family_error():
    """a wins games 0-6 of 20, b game 18, c game 19, base none: a against base is 7 games
    to 0, exact p 2 * 0.5**7 = 0.0156, under 0.05 alone; every pair has a game that
    differs, so over the 6 pairs Holm makes the smallest 6 * 0.0156 = 0.094: no pair is
    separated and every set may hold any rank."""
    lost = [0] * 20
    runs = {"base": _games(lost), "a": _games([1] * 7 + [0] * 13),
            "b": _games([0] * 18 + [1, 0]), "c": _games([0] * 19 + [1])}
    ranges = rank_ranges(runs)
    assert ranges["rank_low"].tolist() == [1, 1, 1, 1]
    assert ranges["rank_high"].tolist() == [4, 4, 4, 4]


def test_pairs_whose_games_never_differ_leave_holms_family():
    """a wins 7 of 20 games, base, b and c none: the pairs of base, b and c play alike and
    cannot reject; over a's 3 pairs Holm makes 3 * 0.0156 = 0.047, under 0.05: a is the
    easiest, the others share ranks 1-3."""
    lost = [0] * 20
    runs = {"base": _games(lost), "a": _games([1] * 7 + [0] * 13), "b": _games(lost),
            "c": _games(lost)}
    ranges = rank_ranges(runs)
    assert ranges["rank_low"].tolist() == [1, 4, 1, 1]
    assert ranges["rank_high"].tolist() == [3, 4, 3, 3]
    # against the base game only a differs: a family of one
    table = compare_table(runs)
    assert table["holm_p"].tolist()[1:] == pytest.approx([2 * 0.5**7, 1.0, 1.0])


def test_holm_leaves_out_tests_that_cannot_reject():
    from analyzer.analysis.stats import holm_adjust

    assert holm_adjust([0.02, 1.0, 0.03]) == pytest.approx([0.06, 1.0, 0.06])
    assert holm_adjust([0.02, 1.0, 0.03], [True, False, True]) == \
        pytest.approx([0.04, 1.0, 0.04])


@pytest.mark.parametrize("seed", range(6))
def test_the_sign_flip_p_is_the_share_of_all_sign_flips_as_far_from_zero(seed):
    """Against every one of the 2**m flips of m nonzero contrasts, written out."""
    from itertools import product

    from analyzer.analysis.stats import sign_flip_p

    rng = np.random.default_rng(seed)
    values = rng.choice([-2, -1, 0, 0, 1, 2], size=14)
    nonzero = values[values != 0]
    total = abs(int(values.sum()))
    flips = [abs(int(np.dot(signs, nonzero))) >= total
             for signs in product((1, -1), repeat=len(nonzero))]
    assert sign_flip_p(values) == pytest.approx(np.mean(flips), rel=1e-12)


def test_a_few_games_that_differ_among_many_are_not_taken_for_more():
    """5 games of +1 among 1,000: 2 * 0.5**5, whatever the zeros (Student's t gave 0.025);
    and less evidence never gives a smaller p (nine +1 and a 0 against ten +1)."""
    from analyzer.analysis.stats import sign_flip_p

    assert sign_flip_p(np.array([1] * 5 + [0] * 995)) == pytest.approx(2 * 0.5 ** 5)
    assert sign_flip_p(np.array([1] * 9 + [0])) == pytest.approx(2 * 0.5 ** 9)
    assert sign_flip_p(np.array([1] * 10)) == pytest.approx(2 * 0.5 ** 10)
    assert sign_flip_p(np.zeros(50, dtype=int)) == 1.0
    # many games: the normal approximation of the same distribution, with half a step of
    # continuity correction (the sum moves by 2)
    big = np.random.default_rng(3).choice([-2, -1, 0, 0, 0, 1, 2, 2], size=200_000)
    from scipy.stats import norm

    z = (abs(big.sum()) - 1) / np.sqrt((big ** 2).sum())
    assert sign_flip_p(big) == pytest.approx(2 * norm.sf(z), rel=1e-9)


def test_the_sign_flip_normal_approximation_is_as_near_the_exact_p_as_it_can_be(monkeypatch):
    """2,300 games of +-1 and 850 of +-2 summing to 200: exact 0.00838; the normal
    approximation without its continuity correction gave 0.00807, on the side that
    rejects too often."""
    from analyzer.analysis import stats

    values = np.array([1] * 1250 + [-1] * 1050 + [2] * 425 + [-2] * 425)
    assert values.sum() == 200
    exact = stats.sign_flip_p(values)
    monkeypatch.setattr(stats, "EXACT_SIGN_FLIP_WORK", 0)
    normal = stats.sign_flip_p(values)
    assert exact == pytest.approx(0.00838, abs=5e-5)
    assert normal == pytest.approx(exact, rel=0.005)


def test_the_sign_flip_normal_approximation_of_contrasts_of_two_takes_half_their_step(
        monkeypatch):
    """3,000 games of +-2 alone summing to 120: the sum moves in steps of 4, so half a step
    is 2; a correction of 1 gave 0.277 against the exact 0.281 (a p too small)."""
    from analyzer.analysis import stats

    values = np.array([2] * 1530 + [-2] * 1470)
    exact = stats.sign_flip_p(values)
    monkeypatch.setattr(stats, "EXACT_SIGN_FLIP_WORK", 0)
    assert stats.sign_flip_p(values) == pytest.approx(exact, rel=0.002)


def test_mcnemar_for_many_pairs_at_once_equals_the_exact_test_one_by_one():
    from analyzer.analysis.stats import mcnemar_exact, mcnemar_exact_many

    grid = np.array([(a, b) for a in range(31) for b in range(31)])
    many = mcnemar_exact_many(grid[:, 0], grid[:, 1])
    one = [mcnemar_exact(int(a), int(b)) for a, b in grid]
    assert many == pytest.approx(one, rel=1e-12)


def test_paired_interval_matches_altmans_worked_example():
    """Altman et al., Statistics with Confidence (2000), table 6.2: 14 pairs both positive,
    5 positive only first, none only second, 22 neither: difference 0.122, 95% interval
    0.011 to 0.226 by Newcombe's method."""
    low, high = paired_difference_interval(14, 5, 0, 22)
    assert (round(low, 3), round(high, 3)) == (0.011, 0.226)


def test_paired_interval_has_width_when_no_game_differs():
    """The Wald interval was [0, 0] here: no uncertainty claimed from 100 games."""
    low, high = paired_difference_interval(10, 0, 0, 90)
    assert low < -0.01 and high > 0.01 and low == pytest.approx(-high)
    assert paired_difference_interval(0, 1, 0, 0) == (pytest.approx(-0.1221, abs=1e-4), 1.0)
    assert paired_difference_interval(0, 9, 0, 1)[1] <= 1.0


def test_paired_interval_agrees_with_mcnemar_on_few_discordant_games():
    """4 games won only by the set, none only by the base game, of 1,000: McNemar's p is
    0.125, so the interval must hold zero (Wald's was +0.0001 to +0.0079)."""
    low, high = paired_difference_interval(0, 4, 0, 996)
    assert low < 0 < high


def test_paired_interval_covers_at_its_level_where_games_rarely_differ():
    """Simulated paired tables with rare discordance (0.4% and 0.2% of 500 games)."""
    rng = np.random.default_rng(7)
    probs = [0.05, 0.004, 0.002, 0.944]  # both, set only, base only, neither
    tables = rng.multinomial(500, probs, size=3000)
    true = probs[1] - probs[2]
    covered = 0
    for both, only_a, only_b, neither in tables:
        low, high = paired_difference_interval(both, only_a, only_b, neither)
        covered += low <= true <= high
    assert covered / len(tables) >= 0.93


def test_paired_difference_counts_the_discordant_games():
    won = np.array([1, 1, 1, 0, 0, 1, 0, 0], dtype=bool)
    base = np.array([0, 1, 0, 0, 1, 1, 0, 0], dtype=bool)
    d = paired_difference(won, base)
    assert (d["paired_games"], d["set_only"], d["base_only"]) == (8, 2, 1)
    assert d["difference"] == pytest.approx(1 / 8)
    assert (d["diff_low"], d["diff_high"]) == paired_difference_interval(2, 2, 1, 3)


def _run(won: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"game": np.arange(len(won)), "won": np.array(won, dtype=bool)})


def test_interaction_is_the_pair_effect_minus_the_single_effects_game_by_game():
    """Six games four times over: 12 of 24 differ, enough for Student's t alone."""
    runs = {"base": _run([1, 0, 0, 1, 0, 0] * 4), "x": _run([1, 1, 0, 1, 0, 0] * 4),
            "y": _run([0, 0, 0, 1, 0, 0] * 4), "x+y": _run([1, 1, 1, 0, 0, 0] * 4)}
    table = interactions(runs)
    row = table.loc["x+y"]
    # per game: pair - x - y + base = [1, 0, 1, -1, 0, 0]
    contrast = np.array([1, 0, 1, -1, 0, 0] * 4)
    half = 2.0686576104190486 * contrast.std(ddof=1) / math.sqrt(24)  # Student's t, 23 df
    assert (row["first"], row["second"], row["games"], row["differing"]) == ("x", "y", 24, 12)
    assert row["interaction"] == pytest.approx(1 / 6)
    assert (row["low"], row["high"]) == (pytest.approx(1 / 6 - half), pytest.approx(1 / 6 + half))
    assert row["pair_win_rate"] == pytest.approx(0.5)
    # the odds of x (1:1) and y (1:5) over the base game's (1:2): 2:5, a win rate of 2/7
    assert row["multiplied"] == pytest.approx(2 / 7)
    matrix = interaction_matrix(table)
    assert matrix.loc["y", "x"] == matrix.loc["x", "y"] == row["interaction"]
    assert math.isnan(matrix.loc["x", "x"])


def test_near_0pct_the_odds_scale_tells_effects_that_multiply_from_a_pair_that_compounds():
    """Two expansions that each take the win rate near 0%: the additive interaction is at
    the floor whatever the pair does; the odds scale tells a pair whose effects multiply
    from one that is harder still."""
    n = 20_000
    game = np.arange(n)
    # odds: base 1:4 (4,000 wins); each single divides them by 8 (1:32, 606 wins)
    base, single = game < 4_000, game < 606
    multiply = game < 84  # 1:256 is 78 wins; 84 is near
    compound = game < 25
    runs = {"base": _run(base), "postcards": _run(single), "emptiness": _run(single),
            "books": _run(single), "postcards+emptiness": _run(multiply),
            "postcards+books": _run(compound), "emptiness+books": _run(game < 10)}
    table = interactions(runs)
    alike, harder = table.loc["postcards+emptiness"], table.loc["postcards+books"]
    assert alike["at_floor"] and harder["at_floor"]
    odds = [k / (n - k) for k in (84, 4_000, 606, 606)]
    assert alike["odds_interaction"] == pytest.approx(odds[0] * odds[1] / odds[2] / odds[3])
    assert not alike["odds_shown"] and alike["odds_low"] < 1 < alike["odds_high"]
    assert harder["odds_shown"] and harder["odds_interaction"] < 1
    # 10 wins is too few to weigh, and out of Holm's family
    assert math.isnan(table.loc["emptiness+books", "odds_p"])
    assert harder["odds_holm_p"] == pytest.approx(
        min(1.0, 2 * min(harder["odds_p"], alike["odds_p"])))
    from analyzer.analysis.interactions import format_interactions

    lines = {line.split()[0]: line for line in format_interactions(table).splitlines()
             if line.startswith(("postcards+", "emptiness+"))}
    assert lines["postcards+books"].endswith("fewer wins")
    assert lines["postcards+emptiness"].endswith(" no")
    assert lines["emptiness+books"].endswith("n/a")
    from analyzer.reporting.interactions import interaction_rows

    rows = {row[0]: row for row in interaction_rows(table)}
    at = rows["pair"].index("Holm p (odds)")
    assert rows["postcards+books"][at:] == [format_p(harder["odds_holm_p"]), "fewer wins"]
    assert rows["postcards+emptiness"][at - 1].startswith(
        f"x{alike['odds_interaction']:.2f} ({alike['odds_low']:.2f} to ")
    assert rows["emptiness+books"][at - 1:] == ["n/a", "n/a", "n/a"]


def test_an_odds_interval_is_clear_of_1_as_the_tables_write_it():
    """Holm p below 0.05 with an interval that reads 1.00 at one end is not shown: the
    reader sees a 1 in it."""
    from analyzer.analysis.interactions import shown_on_odds

    holm = pd.Series([0.01, 0.01, 0.01, 0.01, 0.2, np.nan])
    low = pd.Series([1.004, 1.006, 0.5, 0.5, 1.2, np.nan])
    high = pd.Series([1.5, 1.5, 0.996, 0.994, 1.5, np.nan])
    assert shown_on_odds(holm, low, high).tolist() == [False, True, False, True, False, False]


def test_the_interaction_matrix_lists_the_expansions_in_the_games_order():
    """Pairs given in any order, by name or by title: the heatmap's axes follow the game,
    not the order the pairs' first names were met in."""
    from analyzer.analysis.expansion_sets import EXPANSION_TITLES

    pairs = [("squares_metas", "chromatic_chaos"), ("temples_harmony", "books"),
             ("postcards", "emptiness")]
    for title in (str, EXPANSION_TITLES.get):
        table = pd.DataFrame({"first": [title(a) for a, _ in pairs],
                              "second": [title(b) for _, b in pairs],
                              "interaction": [0.01, 0.02, 0.03]})
        expected = [title(name) for name in ("squares_metas", "chromatic_chaos",
                                             "temples_harmony", "books", "postcards",
                                             "emptiness")]
        assert list(interaction_matrix(table).index) == expected


def _heatmap_colours(table: pd.DataFrame) -> np.ndarray:
    from analyzer.reporting import charts

    ax = charts.interactions(table).axes[0]
    return np.isfinite(np.ma.filled(ax.images[1].get_array(), np.nan))


def test_an_interaction_at_the_0_percent_floor_is_not_shown_in_the_tables_either():
    """base wins 30 of 40 games, each expansion alone and the pair none: the interaction
    reads +75 pp with a tiny p, only because a win rate cannot fall below 0%. The table
    must not call it shown while the heatmap greys it."""
    runs = {"base": _run([1] * 30 + [0] * 10), "x": _run([0] * 40), "y": _run([0] * 40),
            "x+y": _run([0] * 40)}
    table = interactions(runs)
    row = table.loc["x+y"]
    assert row["holm_p"] < 0.001 and row["low"] > 0  # the test and the interval reject
    assert bool(row["at_floor"]) and not bool(row["shown"])
    line = next(line for line in format_interactions(table).splitlines()
                if line.startswith("x+y"))
    assert "no, 0% floor" in line
    assert not _heatmap_colours(table).any()


def test_on_few_differing_games_the_exact_test_decides_in_table_and_heatmap():
    """8 games of 1,000 won by the pair alone: the exact sign-flip p is 2 x 0.5^8 = 0.0078;
    the interval on so few differing games is widened to bounds that hold whatever they
    are, and holds zero. The test decides, the same in the table and the heatmap, whose
    cell says so."""
    from analyzer.reporting import charts

    runs = {"base": _run([0] * 1000), "x": _run([0] * 1000), "y": _run([0] * 1000),
            "x+y": _run([1] * 8 + [0] * 992)}
    table = interactions(runs)
    row = table.loc["x+y"]
    assert row["holm_p"] == pytest.approx(2 * 0.5 ** 8) and row["low"] < 0 < row["high"]
    assert bool(row["shown"])
    line = next(line for line in format_interactions(table).splitlines()
                if line.startswith("x+y"))
    assert line.split("(few differ)")[1].split()[:3] == ["0.00781", "more", "wins"]
    assert _heatmap_colours(table).sum() == 2
    cells = [t.get_text() for t in charts.interactions(table).axes[0].texts]
    assert sum("few differ" in cell for cell in cells) == 2


@pytest.mark.parametrize("low, high", [(-0.001, 0.02), (0.00002, 0.0002)])
def test_an_interaction_whose_interval_as_written_holds_zero_is_not_shown(low, high):
    """Many games differ and the test rejects, but the interval, as the tables write it
    (two decimals of a point: -0.10 to +2.00, or +0.00 to +0.02), holds zero: not shown,
    in the table or the heatmap."""
    table = pd.DataFrame([{"pair": "x+y", "first": "x", "second": "y", "games": 5000,
                           "differing": 400, "interaction": (low + high) / 2, "low": low,
                           "high": high, "holm_p": 0.01, "pair_win_rate": 0.2,
                           "multiplied": 0.1}]).set_index("pair")
    line = next(line for line in format_interactions(table).splitlines()
                if line.startswith("x+y"))
    assert line.split()[6:8] == ["0.01", "no"]
    assert not _heatmap_colours(table).any()


def test_a_hand_built_table_at_the_floor_reads_alike_in_table_and_heatmap():
    """No shown or at_floor column (a table made in Python): worked out by the same rule,
    not read from the Holm p alone."""
    table = pd.DataFrame([{"pair": "x+y", "first": "x", "second": "y", "games": 2000,
                           "interaction": 0.0395, "low": 0.0254, "high": 0.0536,
                           "holm_p": 1e-6, "pair_win_rate": 0.001,
                           "multiplied": 0.0}]).set_index("pair")
    from analyzer.reporting.interactions import interaction_rows

    assert interaction_rows(table)[1][5] == "no, 0% floor"
    assert "no, 0% floor" in format_interactions(table)
    assert not _heatmap_colours(table).any()


def test_an_interaction_shown_says_which_way_in_the_table_and_is_coloured():
    """The pair wins 30 games of 300 that neither single nor the base game wins."""
    runs = {"base": _run([0] * 300), "x": _run([0] * 300), "y": _run([0] * 300),
            "x+y": _run([1] * 30 + [0] * 270)}
    table = interactions(runs)
    assert bool(table.at["x+y", "shown"])
    line = next(line for line in format_interactions(table).splitlines()
                if line.startswith("x+y"))
    assert " more wins " in line
    assert _heatmap_colours(table).sum() == 2  # the cell and its mirror


def test_interaction_uses_only_the_games_all_four_sets_played():
    runs = {"base": _run([1, 0, 0, 1]), "x": _run([1, 1, 0]), "y": _run([0, 0, 0, 1]),
            "x+y": _run([1, 1, 1, 1])}
    assert interactions(runs).at["x+y", "games"] == 3


def test_interaction_of_sets_that_share_no_game_is_blank_and_quiet():
    """urbion report of batches of other games (base 0-1, x 2-3): no game to pair."""
    runs = {"base": _run([1, 0]), "x": _run([1, 1]), "y": _run([0, 0]), "x+y": _run([1, 0])}
    runs["x"]["game"] += 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = interactions(runs).loc["x+y"]
    assert row["games"] == 0 and row[["interaction", "low", "high", "multiplied"]].isna().all()


def test_set_names():
    assert expansion_sets("singles")[0] == () and len(expansion_sets("singles")) == 8
    assert len(expansion_sets("pairs")) == 1 + 7 + 21
    assert len(expansion_sets("all")) == 128
    assert expansion_sets("gardens_wizards+squares_metas") == \
        [(), ("squares_metas", "gardens_wizards")]
    with pytest.raises(UrbionError, match="unknown expansion 'moon' in "
                                          "'moon\\+chromatic_chaos' \\(expansions "):
        expansion_sets("base,moon+chromatic_chaos")
    # a slip one letter away says which name was meant, and a set of one name is not
    # named twice
    with pytest.raises(UrbionError, match=re.escape(
            "sets: unknown expansion 'postcard' (did you mean 'postcards'? expansions ")):
        expansion_sets("base,postcard")
    for slip, meant in (("single", "singles"), ("pair", "pairs")):  # a group's word too
        with pytest.raises(UrbionError, match=re.escape(f"(did you mean '{meant}'? ")):
            expansion_sets(slip)
    assert expansion_sets("base+books") == [(), ("books",)]  # every set is on the base game


@pytest.mark.parametrize("spec, message", [
    ("base,base", "'base' is listed twice"),
    ("base+books,books", "'books' is listed twice (as 'base+books')"),
    ("books,chromatic_chaos+books,books+chromatic_chaos",
     "'books+chromatic_chaos' is listed twice (as 'chromatic_chaos+books')"),
])
def test_a_set_listed_twice_is_refused_as_an_expansion_named_twice_is(spec, message):
    with pytest.raises(UrbionError, match=re.escape(message)):
        expansion_sets(spec)


@pytest.mark.parametrize("spec, message", [
    ("base,books+postcards,all", "'all' stands alone: it cannot be listed with other sets "
                                 "(the set of every expansion is squares_metas+chromatic_chaos"
                                 "+temples_harmony+gardens_wizards+books+postcards+"
                                 "emptiness)"),
    ("singles,base", "'singles' stands alone: it cannot be listed with other sets"),
    ("books+pairs", "'pairs' stands alone: it cannot be joined with expansions (in "
                    "'books+pairs')"),
    ("none+books", "'none' stands alone"),
])
def test_a_set_word_mixed_with_names_says_it_stands_alone(spec, message):
    with pytest.raises(UrbionError, match=re.escape(message)):
        expansion_sets(spec)


@pytest.mark.parametrize("spec, message", [
    ("books+", "an empty expansion name in 'books+'"),
    ("base,books++emptiness", "an empty expansion name in 'books++emptiness'"),
    ("base,books,", "an empty set in 'base,books,'"),
])
def test_an_empty_name_in_sets_is_refused_as_in_expansions(spec, message):
    with pytest.raises(UrbionError, match=re.escape(message)):
        expansion_sets(spec)
    with pytest.raises(UrbionError, match=re.escape(message)):
        analyzer.compare(sets=spec, games=10)


def test_an_expansion_named_twice_in_a_set_is_refused():
    # most likely a slip for another expansion: the set asked for is not the one meant
    with pytest.raises(UrbionError, match=re.escape("'books' is named twice in "
                                                    "'emptiness+books+books'")):
        expansion_sets("books+postcards,emptiness+books+books")
    # the base game named twice was taken for the base game without a word
    with pytest.raises(UrbionError, match=re.escape("'base' is named twice in 'base+base'")):
        expansion_sets("books,base+base")
    assert expansion_sets("base+books") == [(), ("books",)]  # played on the base game


def test_precision_adds_batches_until_each_interval_is_narrow_enough():
    result = analyzer.compare(sets="chromatic_chaos", games=400, seed=3, precision=0.03,
                              max_games=4000)
    table = result.table
    for label, row in table.iterrows():
        assert row.games % 400 == 0 and row.games <= 4000
        half = (row.ci_high - row.ci_low) / 2
        diff_half = (row.diff_high - row.diff_low) / 2
        assert row.precise == (half <= 0.03 and (label == "base" or diff_half <= 0.03))
        assert row.precise or row.games == 4000
        assert row.paired_games == row.games  # the base game kept pace
    set_games = int(table.at["chromatic_chaos", "games"])
    assert table.at["base", "games"] == set_games
    if set_games > 400:  # one batch fewer was not enough for one of the two intervals
        fewer = {label: result.runs[label].iloc[: set_games - 400] for label in result.runs}
        before = compare_table(fewer).loc["chromatic_chaos"]
        assert max(before.ci_high - before.ci_low, before.diff_high - before.diff_low) > 0.06
    again = analyzer.compare(sets="chromatic_chaos", games=400, seed=3, precision=0.03,
                             max_games=4000)
    assert again.table.equals(table), "deterministic"
    assert "against the base game's first as many" not in str(result)  # the same games


def test_each_run_of_a_precision_comparison_names_all_its_batches_games():
    """A set that played two batches of 100 is a run of 200 games from game 0: its frame
    says so, as a run's frame of those games played at once would."""
    result = analyzer.compare(sets="chromatic_chaos", games=100, seed=3, precision=0.001,
                              max_games=200)
    for played in result.runs.values():
        assert (played.attrs["games"], played.attrs["first_game"], len(played)) == (200, 0, 200)


def test_a_set_that_stopped_before_the_base_game_says_over_which_games_it_differs():
    """base ~9% and books (the base game's very games under greedy) reach +-5% within 200
    games; chromatic_chaos (~29%) needs more, so the base game plays on past books."""
    result = analyzer.compare(sets="books,chromatic_chaos", games=100, seed=3,
                              precision=0.05, max_games=2000)
    table = result.table
    assert table.at["books", "paired_games"] < table.at["base", "games"]
    assert "vs base: the difference over the set's own games, against the base game's " \
           "first as many" in str(result)
    # the column it names is one a reader has: no table on the terminal or a page shows it
    assert "the base_rate column of compare.csv and of the table in Python" in str(result)
    assert "base_rate" in table.columns
    # the rate the difference is taken from: the base game's over the set's games, which
    # a reader cannot work out from the table's rows
    paired = int(table.at["books", "paired_games"])
    base_rate = result.runs["base"].sort_values("game")["won"].iloc[:paired].mean()
    assert table.at["books", "base_rate"] == pytest.approx(base_rate)
    assert table.at["books", "difference"] == pytest.approx(
        table.at["books", "win_rate"] - base_rate)
    from analyzer.reporting.compare_pages import compare_note

    assert "against the base game's first as many" in compare_note(table)  # page, Markdown
    assert "first as many" not in compare_note(table.assign(paired_games=table["games"].max()))


def test_a_precision_comparison_read_back_without_its_stopping_rule_is_refused(tmp_path):
    """Read back with resume=True but no --precision, a comparison of 4 batches a set
    stopped at the first and rewrote its pages from a quarter of its games, unsaid."""
    out = tmp_path / "p"
    played = analyzer.compare(sets="chromatic_chaos", games=100, seed=3, precision=0.05,
                              max_games=400, out=out)
    assert played.table["games"].max() > 100
    pages = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    for other in ({}, {"precision": 0.05, "max_games": 200}, {"precision": 0.1}):
        with pytest.raises(UrbionError, match="^cannot resume: .* holds games this "
                                              "comparison would not use \\("):
            analyzer.compare(sets="chromatic_chaos", games=100, seed=3, out=out,
                             resume=True, **other)
        assert {path.name: path.read_bytes() for path in out.iterdir()
                if path.is_file()} == pages
    again = analyzer.compare(sets="chromatic_chaos", games=100, seed=3, precision=0.05,
                             max_games=400, out=out, resume=True)
    pd.testing.assert_frame_equal(again.table, played.table)


def test_precision_bounds_the_difference_to_the_base_game_not_only_the_win_rates():
    """base (~9%) and chromatic_chaos (~29%) reach +-0.6% win-rate intervals at different
    sizes; the difference was once taken over the base game's fewer games, +-1.05%."""
    result = analyzer.compare(sets="chromatic_chaos", games=5000, seed=0, precision=0.006,
                              max_games=60_000)
    row = result.table.loc["chromatic_chaos"]
    assert row.precise and (row.diff_high - row.diff_low) / 2 <= 0.006
    assert row.paired_games == row.games == result.table.at["base", "games"]


def test_out_folder_files_and_resume(tmp_path):
    out = tmp_path / "cmp"
    first = analyzer.compare(sets="temples_harmony", games=300, seed=2, out=out)
    names = {p.name for p in out.iterdir()}
    assert {"compare.csv", "compare.md", "index.html", "win_rates.png", "differences.svg",
            "results"} <= names
    saved = sorted(p.name for p in (out / "results").iterdir())
    assert saved == ["base.games-0-299.parquet", "temples_harmony.games-0-299.parquet"]
    md = (out / "compare.md").read_text()
    for link in [part.split(")")[0] for part in md.split("](")[1:]]:
        assert (out / link).exists(), link
    (out / "results" / saved[1]).unlink()
    # chunks left by a kill that cut short their removal once the batch was written
    (out / "results" / f"{saved[0]}.partial").mkdir()
    (out / "results" / f"{saved[0]}.partial" / "run.json").write_text("{}")
    resumed = analyzer.compare(sets="temples_harmony", games=300, seed=2, out=out,
                               resume=True)
    assert resumed.table.equals(first.table)
    assert sorted(p.name for p in (out / "results").iterdir()) == saved
    with pytest.raises(UrbionError, match="another seed"):
        analyzer.compare(sets="temples_harmony", games=300, seed=9, out=out, resume=True)
    # a batch damaged since it was written whole: the way on is said
    batch = out / "results" / saved[1]
    batch.write_bytes(batch.read_bytes()[:-100])
    with pytest.raises(UrbionError, match="cannot resume: cannot read results file .*"
                                          "damaged or cut short.*; remove it, and --resume "
                                          "plays its games again"):
        analyzer.compare(sets="temples_harmony", games=300, seed=2, out=out, resume=True)


@pytest.mark.parametrize("low, high, text", [
    (-0.012, 0.034, "-1.20 to +3.40pp"), (0.0, 0.0, "none: every game alike"),
    (0.01, 0.01, "none: every game alike"), (math.nan, math.nan, "n/a")])
def test_an_interaction_interval_of_no_width_says_so(low, high, text):
    assert interaction_band(low, high) == text


@pytest.mark.parametrize("differing, rough", [(None, False), (0, False), (3, True), (9, True),
                                              (10, False), (float("nan"), False)])
def test_an_interaction_interval_on_few_games_that_differ_is_marked(differing, rough):
    """Student's t on a handful of nonzero contrasts covers about 92%, not 95%: the interval
    is widened, and says why."""
    text = interaction_band(-0.012, 0.034, differing=differing)
    assert text.startswith("-1.20 to +3.40pp") and text.endswith(" (few differ)") == rough


@pytest.mark.parametrize("contrasts", [[1], [1, 1, 1, 1], [1, 1, 1, 1, 1, 1], [2, -1, 1]])
def test_an_interaction_on_few_differing_games_never_narrows_past_what_they_allow(contrasts):
    """Among 2,000 games, k games of +1: the t interval of 4 such games leaves zero out
    beside an exact p of 0.125, and that of 1 is narrower than that of none. The widened
    interval holds zero, reaches up to twice the exact bound of the share of positive
    games, and still holds the t interval."""
    from scipy.stats import beta

    from analyzer.analysis.interactions import four_set_interaction

    n = 2000
    values = np.zeros(n)
    values[:len(contrasts)] = contrasts
    # the pair wins where the contrast is +1 or +2, a single where it is -1
    def frame(won):
        return pd.DataFrame({"game": range(n), "won": won})

    # +2: the base game won, the pair too, both singles lost
    row = four_set_interaction(frame(values == 2), frame(values < 0),
                               frame(np.zeros(n, dtype=bool)), frame(values > 0))
    assert row["differing"] == len(contrasts)
    assert row["interaction"] == pytest.approx(sum(contrasts) / n)
    positive = sum(c > 0 for c in contrasts)
    assert row["high"] >= 2 * beta.ppf(0.975, positive + 1, n - positive) - 1e-12
    negative = sum(c < 0 for c in contrasts)
    assert row["low"] <= -2 * beta.ppf(0.975, negative + 1, n - negative) + 1e-12
    assert row["low"] < 0 < row["high"]


@pytest.mark.parametrize("fraction, text", [(-0.00001, "-0.00"), (0.0, "+0.00"), (-0.0, "+0.00"),
                                            (0.00001, "+0.00"), (-0.00006, "-0.01"),
                                            (0.1234, "+12.34")])
def test_a_difference_or_bound_just_below_zero_keeps_its_sign(fraction, text):
    assert signed_pp(fraction) == text


def test_a_tiny_difference_prints_inside_its_own_interval():
    """200,000 games, 8 won by the base game alone: -0.004 pp, an interval wholly below
    zero that rounds to -0.01 to -0.00; the difference read +0.00, outside it."""
    n = 200_000
    base, other = np.zeros(n, bool), np.zeros(n, bool)
    base[:8] = True
    runs = {}
    for label, won, expansions in (("base", base, []), ("books", other, ["books"])):
        df = pd.DataFrame({"game": np.arange(n), "won": won, "reason": "deck_empty",
                           "turns": np.full(n, 25, np.int16),
                           "pacified": np.full(n, 10, np.int16)})
        df.attrs = {"expansions": expansions, "city_cards": 12}
        runs[label] = df
    table = compare_table(runs)
    assert table.loc["books", "diff_high"] < 0
    text = format_compare(table, {"card_set": "R14-default", "card_set_sha256": "0" * 64,
                                  "policy": "greedy", "seed": 0})
    row = next(line for line in text.splitlines() if line.startswith("books "))
    assert re.search(r"  -0\.00pp  -0\.01 to -0\.00pp ", row), row


def test_a_bound_written_minus_zero_does_not_leave_zero_out_in_any_verdict_or_chart():
    """An interaction whose high bound is -0.001 pp: -0.00 in the tables and, as the
    tables write it, not clear of zero, so not shown; the heatmap wrote +0.00."""
    import pandas as pd

    from analyzer.analysis.interactions import shown_interactions
    from analyzer.reporting.charts import _band

    pair = pd.DataFrame({"low": [-0.012], "high": [-1e-5], "holm_p": [0.01],
                         "differing": [5_000], "interaction": [-0.006],
                         "pair_win_rate": [0.2]}, index=["a+b"])
    assert interaction_band(-0.012, -1e-5) == "-1.20 to -0.00pp"
    assert not shown_interactions(pair)["a+b"]
    assert _band(-0.6, -1.2, -0.001) == "-1.20 to\n-0.00"
    assert shown_interactions(pair.assign(high=-5e-5))["a+b"]  # -0.01: clear


def test_a_sensitivity_interval_that_ends_just_below_zero_reads_so():
    """Incubi narrowed: -3.00 pp (-6.14 to +0.00) where the bound was -0.000019, an
    interval that leaves zero out read as one that reaches it."""
    import pandas as pd

    from analyzer import api
    from analyzer.reporting.sensitivity_pages import _sensitivity_rows

    table = pd.DataFrame([{"factor": "Incubi spread", "level": "narrow", "played": True,
                           "baseline_level": "R14", "win_rate": 0.05, "ci_low": 0.04,
                           "ci_high": 0.06, "effect": -0.03, "effect_low": -0.0614,
                           "effect_high": -0.000019, "mcnemar_p": 0.065, "holm_p": 0.065,
                           "note": ""}])
    line = api.results._sensitivity_line(next(table.itertuples()), 8)
    assert "-3.00 pp (-6.14 to -0.00)" in line
    assert "-6.14 to -0.00 pp" in _sensitivity_rows(table)[1]


def test_the_terminal_table_says_what_its_columns_mean_and_shows_the_interactions():
    result = analyzer.compare(sets="books,chromatic_chaos,books+chromatic_chaos", games=300,
                              seed=4)
    text = str(result)
    assert "percentage points (pp)" in text and "rank: 1 is the hardest set" in text
    assert "intervals are not adjusted" in text
    # greedy keeps no Book: books plays the base game's very games and leaves the family
    assert ("adjusted over the 2 sets with a game won by one side and lost by the other (one "
            "set whose every game ended as the other side's, which cannot reject, is left "
            "out)") in text
    # the same count on every row of the table and compare.csv: a row quoted apart says it
    assert result.table["holm_family"].tolist() == [2, 2, 2, 2]
    assert "Near the edge a test and the interval beside it can disagree" in text
    one = str(analyzer.compare(sets="books", games=50, seed=4))
    assert "(one set: nothing to adjust)" in one and "over the 1 sets" not in one
    alone = str(analyzer.compare(sets="base", games=50, seed=4)).split("vs base: ")[1]
    assert "Holm p" not in alone and "rank: 1 is the hardest" not in alone  # nothing ranked
    assert "only the base game was played: nothing is compared with it" in alone
    from analyzer.reporting.compare_pages import compare_note
    base_only = analyzer.compare(sets="base", games=20, seed=4)
    assert "Only the base game was played" in compare_note(base_only.table, base_only.runs)
    assert "nothing is compared" not in one
    pair = result.interactions.iloc[0]
    section = text.split("Pairwise interactions")[1]
    row = next(line for line in section.splitlines()
               if line.startswith(result.interactions.index[0]))
    assert f"{signed_pp(pair.interaction)}pp" in row
    assert interaction_band(pair.low, pair.high) in row
    # books is never played by greedy: books+chromatic_chaos contrasts alike in every game,
    # and 300 such games bound the interaction as the exact binomial interval of 0 in 300
    # bounds the share of games that would differ (each by at most 2)
    from scipy.stats import binomtest

    bound = 2 * binomtest(0, 300).proportion_ci(0.95, method="exact").high
    assert (pair.interaction, pair.low, pair.high) == pytest.approx((0.0, -bound, bound))
    assert "-2.44 to +2.44pp" in row
    singles = analyzer.compare(sets="books,chromatic_chaos", games=300, seed=4)
    assert "Pairwise interactions" not in str(singles)


def test_a_set_whose_books_were_never_kept_is_said_to_say_nothing_about_them(tmp_path):
    """greedy keeps no Book by default: books plays the base game's games, and its +0.00
    must not read as 'Books change nothing'."""
    result = analyzer.compare(sets="books,chromatic_chaos", games=100, seed=2,
                              out=tmp_path / "cmp")
    note = "the policy kept no Book of Power in any game of books, so this set played as " \
           "without the Books (books alone as the base game)"
    assert note in str(result)
    assert note[1:] in (tmp_path / "cmp" / "compare.md").read_text()
    assert "harder or easier than the base game for the greedy policy" in \
        (tmp_path / "cmp" / "compare.md").read_text()
    # the charts, published apart from the table, carry it under them
    figures = result.figures()
    for stem in ("win_rates", "differences"):
        assert "Books of Power: the policy kept no Book of Power in any game" in \
            figures[stem]._supxlabel.get_text(), stem
        # a notebook shows a chart as a cell's last value (IPython's _repr_png_), though
        # pyplot, whose inline backend would, never made it
        assert figures[stem]._repr_png_().startswith(b"\x89PNG\r\n"), stem
    with pytest.raises(AttributeError, match=r"no window outside a notebook: save it"):
        figures["win_rates"].show()
    # and a report of the same results files, at the top and under its charts
    files = sorted((tmp_path / "cmp" / "results").glob("*.parquet"))
    md = (analyzer.report(files, tmp_path / "rep") / "report.md").read_text()
    assert "Books: the policy kept no Book of Power in any game of greedy / books / seed 2" in md
    assert "so this run played as without the Books (books alone as the base game)" in md


def test_a_set_whose_books_were_kept_gets_no_such_note():
    played = pd.DataFrame({"game": [0, 1], "won": [False, True], "books_kept": [0, 2],
                           "book_actions": [0, 1]})
    unplayed = played.assign(books_kept=0, book_actions=0)
    assert books_unplayed_note({"base": unplayed, "books": played}) == ""
    assert books_unplayed_note({"base": unplayed, "chromatic_chaos": unplayed}) == ""
    assert "of books+postcards," in books_unplayed_note({"books": played,
                                                         "books+postcards": unplayed})


def test_cli_compare_and_its_errors(capsys, tmp_path):
    code, out, err = run(capsys, "compare", "--sets", "gardens_wizards", "--games", "200",
                         "--quiet")
    assert code == 0, err
    assert "gardens_wizards" in out and "Holm p" in out
    code, _, err = run(capsys, "compare", "--sets", "books+moon", "--games", "200")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "unknown expansion" in err
    code, _, err = run(capsys, "compare", "--resume", "--games", "200")
    assert code == 2 and "--resume needs --out" in err
    blocker = tmp_path / "r.txt"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, "compare", "--games", "20", "--out", str(blocker / "cmp"))
    assert code == 2 and f"{blocker} is a file, not a folder" in err
    code, out, err = run(capsys, "compare", "--games", "200", "--max-games", "500")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--max-games (max_games=) applies only with --precision (precision=)" in err
    folder = tmp_path / "cmp"
    code, out, err = run(capsys, "compare", "--sets", "base", "--games", "50", "--quiet",
                         "--out", f"{folder}/")  # as the docs write it
    assert code == 0, err
    assert f"report     {folder / 'index.html'}\n" in out and "//" not in out
    assert f"           {folder / 'compare.md'}\n" in out and "card-change" not in out


@pytest.mark.parametrize("scheduler", ["bogus", "local:0"])
def test_compare_with_a_bad_scheduler_writes_no_folder(capsys, tmp_path, scheduler):
    folder = tmp_path / "cmp"
    code, out, err = run(capsys, "compare", "--sets", "base", "--games", "20", "--out",
                         str(folder), "--scheduler", scheduler)
    assert code == 2 and out == "" and err.count("\n") == 1 and "scheduler" in err
    assert not folder.exists()


def test_a_comparison_stopped_before_any_batch_leaves_no_folder(tmp_path, monkeypatch):
    """As a run stopped before its first chunk: nothing saved, nothing left (a lost
    cluster, a Ctrl-C while the policy compiles); the same command then runs as new."""
    import analyzer.api as api

    def unreachable(**_):
        raise UrbionError("cannot reach the Dask scheduler tcp://nowhere:8786")

    _failed_comparisons_leave_their_folders_as_found(
        tmp_path, monkeypatch, lambda patch: patch.setattr(api.simulation, "simulate", unreachable),
        "cannot reach")


def _failed_comparisons_leave_their_folders_as_found(tmp_path, monkeypatch, fail,
                                                     message: str) -> None:
    """A new folder, and an empty one, given to a comparison that ``fail`` (given the
    monkeypatch) makes fail with ``message``: gone, or empty again, and the same command
    then runs as new."""
    for folder in (tmp_path / "new", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        with monkeypatch.context() as patch:
            fail(patch)
            with pytest.raises(UrbionError, match=message):
                analyzer.compare(sets="base", games=20, out=folder)
        assert not folder.exists() if folder.name == "new" else \
            list(folder.iterdir()) == []
        analyzer.compare(sets="base", games=20, out=folder)


def test_a_comparison_folder_that_cannot_be_made_whole_is_taken_back(tmp_path, monkeypatch):
    """A full disk while the folder is set up: nothing of it is left, so that the same
    command, once there is room, runs as new rather than as "not a comparison's folder"."""
    import errno
    from pathlib import Path

    from analyzer.reporting.folders import FOLDER_MARK

    real = Path.write_text

    def disk_full(self, *args, **kwargs):
        if self.name == FOLDER_MARK:
            self.open("w").close()  # made, then no room for its text
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *args, **kwargs)

    _failed_comparisons_leave_their_folders_as_found(
        tmp_path, monkeypatch, lambda patch: patch.setattr(Path, "write_text", disk_full),
        "No space left")


def test_a_stop_before_a_sets_first_chunk_says_the_finished_sets_wait_for_resume(
        tmp_path, monkeypatch):
    """The second set's run saved none of its games, but the first set's file is kept:
    the message says so and points to --resume, which then plays the second set only."""
    import analyzer.api as api

    real = api.simulate
    played = []

    def stop_second_set(**kwargs):
        played.append(kwargs["cards"].name)
        if len(played) == 2:
            raise RunStopped("interrupted after 0 of 20 games; nothing was saved", True)
        return real(**kwargs)

    folder = tmp_path / "cmp"
    with monkeypatch.context() as patch:
        patch.setattr(api.simulation, "simulate", stop_second_set)
        with pytest.raises(RunStopped) as stop:
            analyzer.compare(sets="base,books", games=20, out=folder)
    message = str(stop.value)
    assert stop.value.interrupted and "\n" not in message
    assert "nothing was saved" not in message
    assert f"none of these games were saved, the batches finished before them are in " \
           f"{folder / 'results'}" in message and "--resume" in message
    assert len(list((folder / "results").glob("*.parquet"))) == 1
    resumed = analyzer.compare(sets="base,books", games=20, out=folder, resume=True)
    whole = analyzer.compare(sets="base,books", games=20)
    assert list(resumed.table["wins"]) == list(whole.table["wins"])


@pytest.mark.parametrize("failure", [KeyboardInterrupt, lambda: UrbionError(
    "cannot write x.svg: No space left on device")])
def test_a_stop_while_the_pages_are_written_leaves_the_pages_before(tmp_path, monkeypatch,
                                                                    failure):
    """Ctrl-C or a full disk while a resumed comparison writes its pages: each file was
    written whole, but new charts sat beside the old page and table. Now the pages are
    the ones before, and the message sends the user to --resume."""
    from analyzer.errors import RunStopped
    from analyzer.reporting import compare_pages

    out = tmp_path / "cmp"
    analyzer.compare(sets="chromatic_chaos", games=60, seed=3, out=out)
    for page in out.iterdir():  # pages of before, told apart from any written now
        if page.is_file() and not page.name.startswith("."):
            page.write_bytes(b"before " + page.name.encode())
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    real = compare_pages.chart_files
    drawn = []

    def stopped_at_the_second_chart(fig, stem):
        drawn.append(stem)
        if len(drawn) == 2:
            raise failure()
        return real(fig, stem)

    monkeypatch.setattr(compare_pages, "chart_files", stopped_at_the_second_chart)
    with pytest.raises(RunStopped) as stop:
        analyzer.compare(sets="chromatic_chaos", games=60, seed=3, out=out, resume=True)
    assert str(stop.value).endswith(f": every set's games stay in {out / 'results'}, and the "
                                    "pages as they were; run the same command with --resume "
                                    "(resume=True in Python) to write them")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    monkeypatch.setattr(compare_pages, "chart_files", real)
    analyzer.compare(sets="chromatic_chaos", games=60, seed=3, out=out, resume=True)
    assert pd.read_csv(out / "compare.csv")["games"].tolist() == [60, 60]
    assert not any(p.read_bytes().startswith(b"before") for p in out.iterdir() if p.is_file())


def test_a_stop_held_while_the_pages_are_renamed_says_they_are_written(tmp_path,
                                                                        monkeypatch):
    """Ctrl-C as the pages are renamed into place waits for the last of them: the pages
    are whole and new, and the message must not say they are as before."""
    import os
    import signal

    from analyzer import atomic
    from analyzer.errors import RunStopped

    out = tmp_path / "cmp"
    real = os.replace
    renamed = []

    def interrupted_replace(src, dst):
        if os.path.dirname(dst) == str(out):  # a page, not a batch of results
            if not renamed:
                os.kill(os.getpid(), signal.SIGINT)
            renamed.append(dst)
        return real(src, dst)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        monkeypatch.setattr(atomic.os, "replace", interrupted_replace)
        with pytest.raises(RunStopped) as stop:
            analyzer.compare(sets="chromatic_chaos", games=60, seed=3, out=out)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert stop.value.interrupted
    assert str(stop.value) == f"interrupted as the pages were written: they are whole in {out}"
    assert (out / "index.html").read_text().startswith("<!doctype html>")


def test_a_killed_compare_resumes_to_the_uninterrupted_table(tmp_path):
    """SIGKILL part-way through the second set, then --resume: the table of an
    uninterrupted run, the first set read back, the second continued from its chunks."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.test_checkpoint import ROOT

    out = tmp_path / "cmp"
    args = ["compare", "--sets", "chromatic_chaos", "--games", "60000", "--seed", "8",
            "--policy", "random", "--workers", "1", "--out", str(out), "--quiet"]
    proc = subprocess.Popen([sys.executable, "-c", "import cli; cli.main()", *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    partial = out / "results" / "chromatic_chaos.games-0-59999.parquet.partial"
    deadline = time.monotonic() + 300
    while len(list(partial.glob("chunk-*.npy"))) < 1:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert (out / "results" / "base.games-0-59999.parquet").exists()
    assert not (out / "compare.csv").exists()
    done = subprocess.run([sys.executable, "-c", "import cli; cli.main()", *args, "--resume"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    whole = analyzer.compare(sets="chromatic_chaos", games=60000, seed=8, policy="random")
    saved = pd.read_csv(out / "compare.csv", index_col="set")
    assert list(saved["wins"]) == list(whole.table["wins"])
    assert list(saved["set_only"]) == list(whole.table["set_only"])
    assert not partial.exists() and sorted(os.listdir(out / "results")) == [
        "base.games-0-59999.parquet", "chromatic_chaos.games-0-59999.parquet"]


def test_runs_without_a_single_win_still_chart(tmp_path):
    """random wins no base game: the interval's lower bound must be exactly 0 (rounding
    once put it a hair above the estimate, and matplotlib refused the error bar)."""
    from analyzer.analysis.stats import wilson_interval

    for n in (1, 7, 60000, 10**7):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
        low, high = wilson_interval(1, n)
        assert low <= 1 / n <= high
    result = analyzer.compare(sets="base", games=300, seed=1, policy="random",
                              out=tmp_path / "c")
    assert result.table.at["base", "wins"] == 0
    assert (tmp_path / "c" / "win_rates.png").stat().st_size > 1000


def test_a_resumed_comparison_refuses_batches_of_the_other_variant(tmp_path):
    out = tmp_path / "cmp"
    analyzer.compare(sets="base", games=40, out=out)
    with pytest.raises(UrbionError, match="another variant \\('solo', this run 'team'\\)"):
        analyzer.compare(sets="base", games=40, out=out, resume=True, variant="team")


def test_a_resumed_comparison_refuses_batches_another_version_played(tmp_path, monkeypatch):
    """`urbion report` joins batches of one version only into one run: a resume does not
    put batches of two versions in one comparison either."""
    from analyzer.runner import config

    out = tmp_path / "cmp"
    analyzer.compare(sets="base", games=40, out=out)
    played = config.package_version()
    monkeypatch.setattr(config, "package_version", lambda: "9.9.9")
    with pytest.raises(UrbionError, match=re.escape(f"another version of the package "
                                                    f"('{played}', this run '9.9.9')")):
        analyzer.compare(sets="base", games=40, out=out, resume=True)


def test_a_team_comparisons_pages_say_so_in_their_title(tmp_path):
    analyzer.compare(sets="base,books", games=20, out=tmp_path / "team", variant="team")
    for name in ("compare.md", "index.html"):
        text = (tmp_path / "team" / name).read_text()
        assert "Urbion expansion sets compared, team game, with greedy" in text, name
        assert "one policy plays both seats" in text, name
        # a set not shown harder is not shown to play alike either
        assert "A Holm p of 0.05 or more shows no difference, not that there is none" in \
            text.replace("\n", " "), name


def test_a_comparison_never_mixes_its_files_with_another_folders(tmp_path):
    out = tmp_path / "cmp"
    analyzer.compare(sets="base", games=40, out=out)
    with pytest.raises(UrbionError, match="holds an earlier comparison \\(add --resume"):
        analyzer.compare(sets="base", games=20, out=out)
    with pytest.raises(UrbionError, match="is not a batch of 20 games"):
        analyzer.compare(sets="base", games=20, out=out, resume=True)
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(UrbionError, match="not a comparison's folder"):
        analyzer.compare(sets="base", games=20, out=other, resume=True)
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]
    again = analyzer.compare(sets="base", games=40, out=out, resume=True)
    assert int(again.table.loc["base", "games"]) == 40
    # a resume with nothing there is refused, as simulate's and sensitivity's are: it
    # began a new comparison, so that a folder's name mistyped played every game again
    with pytest.raises(UrbionError, match=f"^nothing to resume: {tmp_path / 'cnp'} does "
                                          "not exist$"):
        analyzer.compare(sets="base", games=40, out=tmp_path / "cnp", resume=True)
    assert not (tmp_path / "cnp").exists()


def test_a_set_stopped_by_max_games_is_marked_in_every_table():
    from analyzer.reporting.compare_pages import compare_facts, compare_rows

    result = analyzer.compare(sets="base,chromatic_chaos", games=100, precision=0.01,
                              max_games=200)
    assert not result.table["precise"].any()  # +-1% needs thousands of games
    text = str(result)
    assert "200*" in text and "another batch of 100 would pass max-games (200)" in text
    assert all(row[1] == "200*" for row in compare_rows(result.table)[1:])
    fact = compare_facts(result.attrs)["precision"]
    assert "at most 1.00 percentage points or it had 200 games" in fact
    assert fact.endswith("* marks a set stopped because another batch of 100 would pass "
                         "that limit, its intervals still wider. Stopping on the results biases "
                         "the estimates a little: for a figure to cite, play the sets again "
                         "with a fixed --games and another --seed (docs/compare.md)")
    loose = analyzer.compare(sets="base", games=100, precision=0.1, max_games=200)
    assert loose.table["precise"].all() and "*" not in str(loose)


def test_a_set_stopped_by_max_games_is_marked_in_the_charts_too():
    """base reaches +-5% in 200 games (~8% won), chromatic_chaos (~30%) does not: only its
    name carries the table's *, and the charts naming it explain the mark."""
    result = analyzer.compare(sets="base,chromatic_chaos", games=100, precision=0.05,
                              max_games=200)
    assert list(result.table["precise"]) == [True, False]
    note = "* stopped with a 95% interval wider than +-5.00 pp: another batch of 100 " \
        "would pass max-games (200)"
    figures = result.figures()
    for stem, names in (("win_rates", ["base game", "Chromatic Chaos*"]),
                        ("differences", ["Chromatic Chaos*"])):
        fig = figures[stem]
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == names, stem
        assert fig.get_supxlabel().splitlines()[-1] == note, stem
    alone = analyzer.compare(sets="base", games=100, precision=0.05, max_games=200)
    fig = alone.figures()["win_rates"]
    assert "*" not in fig.get_supxlabel()


def test_a_win_rate_chart_of_sets_of_different_lengths_says_the_bars_are_apart():
    """Under --precision a set stops at its own length and the base game plays on: the
    Books' bar (its games, 200) beside the base game's line (more games) is no comparison;
    the chart's caption says which one is."""
    result = analyzer.compare(sets="books,chromatic_chaos", games=100, precision=0.05,
                              max_games=400)
    games = result.table["games"]
    assert games["books"] < games["base"]
    caption = result.figures()["win_rates"].get_supxlabel().replace("\n", " ")
    assert (f"Sets played different numbers of games: each bar is over its own, the line "
            f"over the base game's {int(games['base']):,}; only the paired change") in caption
    assert "different numbers" not in result.figures()["differences"].get_supxlabel()
    # the changes' chart says over which games each change is
    pairs = result.table.drop(index="base")["paired_games"]
    assert pairs.nunique() == 2
    assert (f"Each set's change is over its own games ({int(pairs.min()):,} to "
            f"{int(pairs.max()):,}), paired with the base game's first as many.") in \
        result.figures()["differences"].get_supxlabel().replace("\n", " ")
    even = analyzer.compare(sets="books", games=100)
    for stem in ("win_rates", "differences"):
        assert "own games" not in even.figures()[stem].get_supxlabel().replace("\n", " ")
        assert "different numbers" not in even.figures()[stem].get_supxlabel()


def test_the_charts_show_the_hardest_set_first_by_the_names_on_the_box(singles):
    """Charts are read, and published, apart from the table: sets by difficulty, named as
    the expansions are printed, the reference line still the base game's."""
    table = singles.table
    # greedy on these 600 games: Squares & Metas about 5%, base 9%, Chromatic Chaos 29%
    assert table["rank"].to_dict() == {"base": 2, "chromatic_chaos": 3, "squares_metas": 1}
    expected = ["City Squares & Metas", "base game", "Chromatic Chaos"]
    figures = singles.figures()
    fig = figures["win_rates"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == expected
    line = [artist for artist in fig.axes[0].lines if artist.get_linestyle() == "--"][0]
    assert line.get_xdata()[0] == pytest.approx(table.at["base", "win_rate"] * 100)
    assert [t.get_text() for t in figures["differences"].axes[0].get_yticklabels()] == \
        [name for name in expected if name != "base game"]


def test_a_resumed_comparison_refuses_other_sets_and_other_batches_in_progress(tmp_path):
    out = tmp_path / "cmp"
    analyzer.compare(sets="base,books", games=40, out=out)
    with pytest.raises(UrbionError, match="holds games of set 'books', which this comparison "
                                          "does not play"):
        analyzer.compare(sets="base,postcards", games=40, out=out, resume=True)
    (out / "results" / "base.games-0-999.parquet.partial").mkdir()  # an interrupted batch
    with pytest.raises(UrbionError, match="base.games-0-999.parquet.partial is not a batch "
                                          "of 40 games"):
        analyzer.compare(sets="base,books", games=40, out=out, resume=True)
    (out / "results" / "base.games-0-999.parquet.partial").rmdir()
    (out / "results" / "junk.parquet").write_text("junk")  # no batch: said so, not a set ''
    with pytest.raises(UrbionError, match=r"junk.parquet is no batch of this comparison \(a "
                                          r"batch's file is NAME.games-FIRST-LAST.parquet\): "
                                          "move it out of its folder"):
        analyzer.compare(sets="base,books", games=40, out=out, resume=True)


def test_a_resume_with_another_card_set_names_both_sets(tmp_path):
    from analyzer.cards.loader import card_set_from_data, default_card_data

    out = tmp_path / "cmp"
    analyzer.compare(sets="base", games=40, out=out)
    data = default_card_data()
    data["name"] = "six chaos"
    data["dreams"]["chaos"]["count"] = 6
    six = card_set_from_data(data, "test")
    with pytest.raises(UrbionError, match=r"another card set \(R14-default \([0-9a-f]{12}\), "
                                          r"this run six chaos \([0-9a-f]{12}\)\)"):
        analyzer.compare(sets="base", games=40, out=out, resume=True, cards=six)


def test_a_comparison_with_a_users_policy_records_its_source(tmp_path):
    from analyzer.reporting.compare_pages import compare_facts

    path = tmp_path / "mine.py"
    path.write_text("import numba\n\n@numba.njit\n"
                    "def choose(kind, options, n_options, state, cards, params, rng):\n"
                    "    return 0\n")
    result = analyzer.compare(sets="books", games=50, policy=f"{path}:choose")
    source = result.runs["base"].attrs["policy_source_sha256"]
    assert result.attrs["policy_source_sha256"] == source
    assert f"source sha256 {source[:12]}" in compare_facts(result.attrs)["policy"]
    assert compare_facts(result.attrs, [3000, 3000])["games"].startswith(
        "games 0-2,999 for every set of seed")
    assert compare_facts(result.attrs, [4000, 2000])["games"].startswith(
        "games 0 to 1,999 for the shortest set and 0 to 3,999 for the longest")
    # a built-in has no source of its own: the rules version and package version cover it
    assert "source" not in compare_facts({**result.attrs, "policy_source_sha256": ""})[
        "policy"]


def test_the_pages_name_each_interval_and_test_and_say_when_a_difference_is_real(singles,
                                                                               tmp_path):
    """A reader of compare.md or index.html alone learns which interval is which (Wilson
    for a win rate, Newcombe's paired one for a difference), that the intervals are not
    adjusted for the sets compared while Holm's p is, and what a rank does not test."""
    from analyzer.reporting.compare_pages import write_compare

    write_compare(singles, tmp_path)
    md = (tmp_path / "compare.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| set |"))
    assert "95% Wilson interval" in header and "Newcombe" in header
    page = (tmp_path / "index.html").read_text()
    assert "<th scope='col'>95% Wilson interval</th>" in page
    for text in (md, page):
        assert "Holm p is below 0.05" in text
        assert "the 2 sets compared with the base game" in text
        assert "not adjusted" in text and "Rank: 1 is the hardest set" in text
        assert "Every figure here is of the greedy policy playing the R14-default card " \
            "set" in text
        assert "the ranks it can hold" in text
    figures = singles.figures()
    assert "Newcombe" in figures["differences"].axes[0].get_title()
    assert "Wilson" in figures["win_rates"].axes[0].get_title()


def test_the_terminal_table_keeps_its_columns_with_long_set_names():
    """Six or seven expansions make names longer than the set column: every row's columns
    still start where the header's do."""
    from analyzer.analysis.compare import format_compare

    long_name = ("squares_metas+chromatic_chaos+temples_harmony+gardens_wizards+books+"
                 "postcards+emptiness")
    table = pd.DataFrame({"games": [100, 100], "win_rate": [0.08, 0.0],
                          "ci_low": [0.04, 0.0], "ci_high": [0.15, 0.04],
                          "difference": [0.0, -0.08], "diff_low": [-0.01, -0.15],
                          "diff_high": [0.01, -0.04], "holm_p": [np.nan, 0.008],
                          "mean_turns": [25.0, 41.6], "rank": [2, 1],
                          "rank_low": [2, 1], "rank_high": [2, 1],
                          "paired_games": [100, 100]}, index=["base", long_name])
    attrs = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "greedy",
             "seed": 0}
    lines = format_compare(table, attrs).splitlines()
    header, rows = lines[3], lines[4:6]
    for row in rows:
        assert len(row.rstrip()) == len(header.rstrip()), row
    assert rows[1].startswith(long_name + " ")


def test_a_missing_p_is_no_test_and_never_prints_as_strong_evidence():
    """A NaN p printed as "<1e-300" (NaN > 0 is false) and Holm sorted it anywhere, so the
    same p-values in another order gave other adjustments."""
    import math

    from analyzer.analysis.stats import holm_adjust

    assert format_p(math.nan) == "n/a" and format_p(0.0) == "<1e-300"
    # below floats' normal range p keeps a digit or two: 4.94e-324 beside <1e-300 read apart
    assert format_p(5e-324) == format_p(1.98e-323) == format_p(9e-301) == "<1e-300"
    assert format_p(1.2e-300) == "1.2e-300"
    for ps in ([math.nan, 0.01, 0.02], [0.02, math.nan, 0.01], [0.01, 0.02, math.nan]):
        adjusted = holm_adjust(ps)
        assert sorted(a for a in adjusted if not math.isnan(a)) == [0.02, 0.02]
        assert math.isnan(adjusted[ps.index(next(p for p in ps if math.isnan(p)))])


def test_a_p_just_under_the_level_does_not_print_as_the_level():
    from analyzer.analysis.stats import format_p

    assert format_p(0.04995) == "0.04995" and format_p(0.0499) == "0.0499"
    assert format_p(0.05) == "0.05" and format_p(0.123456) == "0.123"


def test_intervals_of_an_empty_sample_are_missing_and_impossible_counts_are_refused():
    import math

    from analyzer.analysis.stats import newcombe_difference, wilson_interval

    assert all(math.isnan(x) for x in newcombe_difference(0, 0, 1, 2))
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    for wins in (-1, 11):
        with pytest.raises(ValueError, match="wins must be from 0 to the 10 games"):
            wilson_interval(wins, 10)


def test_a_p_a_hair_under_the_level_gets_the_digits_that_show_it():
    from analyzer.analysis.stats import format_p

    assert format_p(0.049996) == "0.049996" and format_p(0.0499999) == "0.0499999"


def test_every_comparison_chart_says_what_it_shows_under_its_title(tmp_path):
    from analyzer.reporting.compare_pages import COMPARE_CAPTIONS, COMPARE_TITLES

    sets = "chromatic_chaos,squares_metas,chromatic_chaos+squares_metas"
    analyzer.compare(sets=sets, games=200, seed=SEED, out=tmp_path / "cmp")
    md = (tmp_path / "cmp" / "compare.md").read_text()
    page = (tmp_path / "cmp" / "index.html").read_text()
    assert (tmp_path / "cmp" / "interactions.png").exists()
    for stem, title in COMPARE_TITLES.items():
        caption = COMPARE_CAPTIONS[stem]
        assert len(caption) > 40, stem
        assert caption in md[md.index(f"## {title}\n"):md.index(f"]({stem}.png)")], stem
        assert (f"<h2>{title}</h2><figure><figcaption>{html.escape(caption)}</figcaption>"
                "<img") in page, stem


def test_sets_a_card_file_cannot_play_are_refused_with_the_sets_it_can(tmp_path, capsys):
    """A designer's file without City Squares or Metas: singles would need them; the error
    says which --sets the file can be compared with."""
    from tests.test_cli import run

    path = tmp_path / "nometa.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace("square = 4", "square = 0")
    start, end = text.index("[dreams.meta]"), text.index("[dreams.harmony]")
    path.write_text(text[:start] + "[dreams.meta]\nearth = []\nwater = []\nfire = []\n"
                    "air = []\n\n" + text[end:])
    code, _, err = run(capsys, "compare", "--sets", "singles", "--cards", str(path),
                       "--games", "10", "--quiet")
    assert code == 2 and err.count("\n") == 1
    assert "has no cards for expansion squares_metas" in err
    assert err.rstrip().endswith("this file's expansions can be compared with --sets base,"
                                 "chromatic_chaos,temples_harmony,gardens_wizards,books,"
                                 "postcards,emptiness or sets of them joined by + (such "
                                 "as chromatic_chaos+temples_harmony); sets= in Python")


def test_a_comparisons_provenance_names_the_card_file(tmp_path):
    """As report's and sensitivity's pages do: the file a designer's set came from."""
    from analyzer.reporting.compare_pages import compare_facts

    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "mine"'))
    result = analyzer.compare(sets="base", games=10, cards=mine)
    assert compare_facts(result.attrs)["card set"].endswith(", from mine.toml")  # no folder
    shipped = analyzer.compare(sets="base", games=10)
    assert "from" not in compare_facts(shipped.attrs)["card set"]


def test_a_sets_run_is_found_under_any_order_of_its_expansions():
    """The result names a pair in the game's order; the order a user typed finds it too."""
    result = analyzer.compare(sets="base,chromatic_chaos+squares_metas", games=20)
    assert list(result.runs) == ["base", "squares_metas+chromatic_chaos"]
    typed = result.runs["chromatic_chaos+squares_metas"]
    assert typed is result.runs["squares_metas+chromatic_chaos"]
    assert result.runs["none"] is result.runs["base"]
    assert "chromatic_chaos+squares_metas" in result.runs
    assert result.runs.get("chromatic_chaos+squares_metas") is typed
    assert result.runs.get("books") is None and result.runs.get("books", 0) == 0
    for missing in ("books", "books+nothing", 3, "all"):
        assert missing not in result.runs
        with pytest.raises(KeyError, match="no set .* in this comparison; its sets: base, "
                                           "squares_metas\\+chromatic_chaos"):
            result.runs[missing]
    # all: the set of every expansion, as --expansions and a report's run name it
    from analyzer.core.codes import PLAYABLE_EXPANSIONS

    every = analyzer.compare(sets="base," + "+".join(reversed(PLAYABLE_EXPANSIONS)), games=5)
    assert every.runs["all"] is every.runs[list(every.runs)[1]]


def test_pairs_are_listed_in_the_games_order_whatever_order_the_sets_came_in(tmp_path):
    """compare.md followed --sets, a report of the same results the game's order."""
    sets = ("temples_harmony,chromatic_chaos,books,chromatic_chaos+temples_harmony,"
            "books+temples_harmony,books+chromatic_chaos")
    result = analyzer.compare(sets=sets, games=20, out=tmp_path / "cmp")
    expected = ["chromatic_chaos+temples_harmony", "chromatic_chaos+books",
                "temples_harmony+books"]
    assert list(result.interactions.index) == expected
    reported = analyzer.report(sorted((tmp_path / "cmp" / "results").glob("*.parquet")),
                               tmp_path / "rep")
    assert list(pd.read_csv(reported / "interactions.csv")["pair"]) == expected
    # every row names the run it is of, as compare.csv's do
    pairs = pd.read_csv(tmp_path / "cmp" / "interactions.csv")
    compared = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    for column in ("variant", "policy", "seed", "card_set", "card_set_sha256", "commit"):
        assert set(pairs[column]) == set(compared[column]), column


def test_a_comparison_of_one_set_says_there_is_nothing_to_adjust_on_its_pages(tmp_path):
    """Holm's family of one set, and no ranks' family apart from it: the page said 'Holm's
    method for no set with a game won by one side...' and explained a smaller family."""
    from analyzer.analysis.compare import RANK_FAMILY_NOTE, books_chart_note
    from analyzer.reporting.compare_pages import compare_note
    from analyzer.wording import spoken_list

    result = analyzer.compare(sets="books", games=30)
    note = compare_note(result.table, result.runs, "greedy")
    assert "Holm p: the same (one set compared: nothing to adjust)." in note
    assert RANK_FAMILY_NOTE not in note and RANK_FAMILY_NOTE not in str(result)
    assert "in brackets, where the tests leave it open, the ranks it can hold" in note
    assert books_chart_note(result.runs) == (
        "books: the policy kept no Book of Power in any game, so this set played as without "
        "the Books and says nothing about them")
    assert [spoken_list(x) for x in (["a"], ["a", "b"], ["a", "b", "c"])] == \
        ["a", "a and b", "a, b and c"]


def test_the_interactions_table_keeps_its_columns_in_line_beside_a_few_differ_band():
    """A "(few differ)" band is longer than the others: the columns after it must still
    start where their headers do."""
    runs = {"base": _run([0] * 1000), "x": _run([0] * 1000), "y": _run([0] * 1000),
            "z": _run([1] * 300 + [0] * 700), "x+y": _run([1] * 8 + [0] * 992),
            "x+z": _run([1] * 600 + [0] * 400)}
    lines = format_interactions(interactions(runs)).splitlines()
    header = next(line for line in lines if line.startswith("pair "))
    rows = [line for line in lines if line.startswith(("x+y", "x+z"))]
    assert any("(few differ)" in row for row in rows) and len(rows) == 2
    end = header.index("Holm p") + len("Holm p")  # right-aligned: values end there
    for row in rows:
        assert row[end - 1] != " " and row[end] == " ", row


def test_a_chart_note_of_many_sets_without_a_book_counts_them_rather_than_naming_them():
    """--sets all has 64 sets with the Books: named one by one under each chart they made
    a note of 45 lines; a few are still named."""
    from analyzer.analysis.compare import books_chart_note

    def run(kept: int) -> pd.DataFrame:
        return pd.DataFrame({"books_kept": [kept, 0], "book_actions": [0, 0]})

    unplayed = {f"books+{name}": run(0) for name in "abcdef"}
    note = books_chart_note({**unplayed, "books+g": run(1), "x": run(0)})
    assert note.startswith("6 sets of the 7 with Books of Power (the page's notes name "
                           "them): the policy kept no Book of Power in any game")
    assert books_chart_note({**unplayed, "x": run(0)}, "run").startswith(
        "Every run with Books of Power (6): the policy kept no Book")
    few = books_chart_note({"books+a": run(0), "books+b": run(0), "books+g": run(1)})
    assert few.startswith("books+a and books+b: the policy kept no Book")


def test_the_compare_page_tells_a_reader_without_the_charts_what_they_show(tmp_path):
    """Alternative texts said only each chart's title; the mark of a set stopped at
    max-games was explained in the image alone; nothing linked the tables' names to the
    charts'; and interactions.csv, a header alone without a pair, was offered as data."""
    import html
    import re

    result = analyzer.compare(sets="postcards,chromatic_chaos", games=100, seed=3,
                              precision=0.05, max_games=200, out=tmp_path / "cmp")
    page = (tmp_path / "cmp" / "index.html").read_text(encoding="utf-8")
    alts = [html.unescape(a) for a in re.findall(r"alt='([^']*)'", page)]
    table = result.table
    hardest = table.drop(index="base")["win_rate"].idxmin()
    title = {"postcards": "Postcards & Wise Chaos", "chromatic_chaos": "Chromatic Chaos"}
    assert f"the base game {table.at['base', 'win_rate']:.2%}" in alts[0]
    assert f"hardest {title[hardest]} ({table.at[hardest, 'win_rate']:.2%})" in alts[0]
    for name in ("postcards", "chromatic_chaos"):
        r = table.loc[name]
        said = f"{title[name]} ({r.difference * 100:+.2f} pp)"
        assert (said in alts[1]) == bool(r.holm_p < 0.05), (name, alts[1])
    assert "Names: the tables name a set as --sets takes it" in page
    assert "postcards: Postcards &amp; Wise Chaos" in page
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert not table["precise"].all()
    assert "* stopped with a 95% interval wider than +-5.00 pp" in captions[0]
    assert "interactions.csv" not in page
    markdown = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert f"![{alts[0]}](win_rates.png)" in markdown.replace("\\", "")


def test_the_base_games_row_compares_it_with_itself_exactly():
    """The base game against its own games differs by 0 by construction: compare.csv gave
    it Newcombe's interval of about +-0.12 pp, as if it were an estimate."""
    table = analyzer.compare(sets="base,books", games=300, seed=2).table
    base = table.loc["base"]
    assert (base.difference, base.diff_low, base.diff_high, base.mcnemar_p) == (0, 0, 0, 1)
    assert pd.isna(base.holm_p)
    books = table.loc["books"]  # the same games, by the play of greedy: an estimate still
    assert books.set_only == books.base_only == 0 and books.diff_low < 0 < books.diff_high


def test_compare_csv_names_the_run_on_every_row(tmp_path):
    """A team comparison's CSV and a solo one's could not be told apart once put together."""
    analyzer.compare(sets="books", games=30, seed=6, variant="team", out=tmp_path / "cmp")
    csv = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert set(csv["variant"]) == {"team"} and set(csv["seed"]) == {6}
    assert set(csv["policy"]) == {"greedy"} and set(csv["card_set"]) == {"R14-default"}
    assert csv["card_set_sha256"].str.len().eq(64).all()
    # the code that played it: a file quoted apart from its page still names it
    played = analyzer.simulate(games=1, variant="team").attrs
    for column in ("policy_params_sha256", "rules_version", "commit"):
        assert set(csv[column]) == {played[column]}, column
    # how many expansions a set plays, under a name of its own: sensitivity.csv's
    # `expansions` names them, and the two files are put together
    assert csv.set_index("set")["n_expansions"].to_dict() == {"base": 0, "books": 1}
    assert "expansions" not in csv


def test_the_alternative_texts_of_a_comparison_of_the_base_game_alone_are_whole(tmp_path):
    """With no set besides the base game the differences chart's text read ": ." """
    import re

    analyzer.compare(sets="base", games=40, out=tmp_path / "cmp")
    markdown = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    alts = re.findall(r"!\[([^\]]*)\]", markdown)
    assert any("no set besides the base game." in alt for alt in alts)
    assert not any(": ." in alt or alt.endswith(": ") for alt in alts)


def test_a_long_alternative_text_keeps_the_largest_changes():
    """Cut to five names a group, the easier sets kept the smallest gains (rank order)."""
    from types import SimpleNamespace

    from analyzer.reporting.compare_pages import compare_alts

    gains = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.20]
    names = ["base", *(f"s{i}" for i in range(len(gains)))]
    table = pd.DataFrame({"win_rate": [0.1, *(0.1 + g for g in gains)],
                          "difference": [0.0, *gains], "holm_p": [np.nan] + [0.001] * 7,
                          "rank": range(1, 9)}, index=names)
    alt = compare_alts(SimpleNamespace(table=table, interactions=pd.DataFrame(), runs={}),
                       ["differences"])["differences"]
    assert "easier than the base game, with Holm p below 0.05: s6 (+20.00 pp), s5 (+6.00 pp)" \
        in alt and alt.count("pp)") == 5 and "and 2 more" in alt


def test_a_comparison_names_the_command_that_plays_it_again(tmp_path, capsys):
    """The pages listed the sets, games and seed in prose: a reader pieced the command
    together. Run as the page gives it, it makes the same table."""
    import shlex

    from tests.test_cli import run

    out = tmp_path / "cmp"
    code, _, err = run(capsys, "compare", "--sets", "base,books,chromatic_chaos+books",
                       "--games", "40", "--seed", "3", "--variant", "team", "--precision",
                       "0.09", "--max-games", "80", "--out", str(out), "--quiet")
    assert code == 0, err
    md = (out / "compare.md").read_text(encoding="utf-8")
    command = next(line for line in md.splitlines() if line.startswith("- **play again**: "))
    args = shlex.split(command.removeprefix("- **play again**: "))
    assert args[:2] == ["urbion", "compare"]
    assert not (out / "cards.toml").exists()  # the shipped set: no file to keep
    # the policy's whole hash, which a reader checks the results files against
    played = pd.read_parquet(next((out / "results").glob("base.*"))).attrs
    assert f"(parameters sha256 {played['policy_params_sha256']})" in md
    code, _, err = run(capsys, *args[1:], "--out", str(tmp_path / "again"), "--quiet")
    assert code == 0, err
    first, again = (pd.read_csv(folder / "compare.csv") for folder in (out,
                                                                       tmp_path / "again"))
    pd.testing.assert_frame_equal(first, again)


def test_the_terminal_and_pages_say_in_plain_words_which_sets_are_harder_or_easier(tmp_path):
    """A gamer read a table of p-values and a footer of 200 words of statistics; the line
    under the table now says which sets the games show harder or easier, largest first,
    and the pages say it above their table. The Books, of which greedy keeps none, are
    named apart: "no difference shown" read as a verdict on them."""
    result = analyzer.compare(sets="singles", games=600, seed=2, out=tmp_path / "cmp")
    sets = result.table.drop(index="base")
    assert (result.runs["books"]["books_kept"] == 0).all()
    shown = sets[(sets["holm_p"] < 0.05) & (sets["difference"] != 0)]
    harder = shown[shown["difference"] < 0].sort_values("difference").index.tolist()
    easier = shown[shown["difference"] > 0].sort_values("difference",
                                                        ascending=False).index.tolist()
    rest = [name for name in sets.index if name not in shown.index and name != "books"]
    assert harder and easier and rest
    expected = (f"In short: harder than the base game: {', '.join(harder)}; easier than the "
                f"base game: {', '.join(easier)}; no difference shown by these games: ")
    books = "; not weighed, no Book of Power kept in any game: books."
    line = next(line for line in str(result).splitlines() if line.startswith("In short: "))
    assert line.startswith(expected) and line.endswith(books)
    assert sorted(line.removeprefix(expected).removesuffix(books).split(", ")) == sorted(rest)
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert f"\n\n{line}\n\n| set |" in md
    page = html.unescape((tmp_path / "cmp" / "index.html").read_text())
    assert f"<p id='verdict'>{line}</p><table" in page
    # left out of Holm's family, the Books have no Holm p, on the page and the terminal;
    # the chart's alternative text names them apart as the verdict does
    row = next(row for row in md.splitlines() if row.startswith("| books | "))
    assert [cell.strip() for cell in row.split("|")][7:9] == ["1", "—"]  # McNemar, Holm
    books_line = next(row for row in str(result).splitlines() if row.startswith("books "))
    assert books_line.split("pp")[-1].split()[0] == "—"  # Holm p, after the interval
    assert "not weighed, no Book of Power kept in any game: Books of Power" in page
    assert "no difference shown: " not in page or "Books of Power" not in \
        page.split("no difference shown: ")[1].split(";")[0].split(".")[0]


def test_a_books_set_shown_harder_by_its_other_expansion_stays_among_the_harder():
    """books+emptiness, with no Book kept, plays the Emptiness's games: it is harder, and
    the line said only that the Books were not weighed in it."""
    from analyzer.analysis.compare import verdict_line

    table = pd.DataFrame({"difference": [0.0, -0.07, -0.06, 0.0, 0.01],
                          "holm_p": [np.nan, 1e-12, 1e-11, 1.0, 0.4]},
                         index=["base", "emptiness", "books+emptiness", "books",
                                "squares_metas"])
    assert verdict_line(table, ["books+emptiness", "books"]) == (
        "In short: harder than the base game: emptiness, books+emptiness; no difference "
        "shown by these games: squares_metas; not weighed, no Book of Power kept in any "
        "game: books.")


def test_compare_csv_gives_each_set_the_parameters_its_games_were_played_with(tmp_path):
    """greedy reads the largest values of the cards in play into its parameters: Wizards of
    +6 give Hanging Gardens & Wizards a hash of its own. compare.csv gave every row the
    base game's."""
    text = analyzer.cards.writer.card_file_text(analyzer.load_cards(None))
    wizards = tmp_path / "wizards.toml"
    wizards.write_text(text.replace('name = "R14-default"', 'name = "big wizards"')
                       .replace("earth = [2, 3, -1, -2]", "earth = [6, 3, -1, -2]"),
                       encoding="utf-8")
    out = tmp_path / "cmp"
    analyzer.compare(sets="base,gardens_wizards,books", games=30, cards=wizards, out=out)
    csv = pd.read_csv(out / "compare.csv", index_col="set")
    played = {path.name.split(".")[0]: pd.read_parquet(path).attrs["policy_params_sha256"]
              for path in (out / "results").glob("*.parquet")}
    assert played["gardens_wizards"] != played["base"] == played["books"]
    assert csv["policy_params_sha256"].to_dict() == played
    # the provenance named the base game's hash alone
    fact = next(line for line in (out / "compare.md").read_text().splitlines()
                if line.startswith("- **policy**: "))
    assert fact.endswith(f"{played['base']}); gardens_wizards played with other parameters, "
                         "fitted to the larger values of its cards (compare.csv gives each "
                         "set's hash)")
    # with the cards compared against too, each set's as its games played them
    change = tmp_path / "change"
    analyzer.compare(sets="base,gardens_wizards,books", games=30, cards="r14",
                     against=wizards, out=change)
    csv = pd.read_csv(change / "card-change.csv", index_col="set")
    assert csv["against_policy_params_sha256"].to_dict() == played
    assert set(csv["policy_params_sha256"]) == {played["base"]}
    fact = next(line for line in (change / "card-change.md").read_text().splitlines()
                if line.startswith("- **policy**: "))
    assert "; gardens_wizards with the cards compared against played with other " \
           "parameters" in fact


def _designer_files(weights: Path, cards: Path) -> tuple[Path, Path]:
    """A weights file of other than the shipped weights, and R14's cards named "mine", at
    the paths given."""
    weights.write_text("[weights]\nBOOKS_KEEP = 1.0\n")
    cards.write_text(analyzer.cards.writer.card_file_text(analyzer.load_cards(None))
                     .replace('name = "R14-default"', 'name = "mine"'), encoding="utf-8")
    return weights, cards


def test_the_command_of_a_comparison_quotes_its_files_and_names_no_policy_made_in_python(
        tmp_path, capsys, monkeypatch):
    """A weights file and a card file with spaces in their names broke the command into
    extra arguments; a policy made in Python was named as the built-in it copied."""
    import dataclasses
    import shlex
    from pathlib import Path

    from analyzer.policies.registry import resolve_policy
    from tests.test_cli import run

    weights, cards = _designer_files(tmp_path / "my w.toml", tmp_path / "my cards.toml")
    out = tmp_path / "cmp"
    analyzer.compare(sets="base,books", games=30, policy=f"weighted:{weights}", cards=cards,
                     out=out)
    md = (out / "compare.md").read_text(encoding="utf-8")
    command = md.splitlines()[-1].removeprefix("- **play again**: ")
    # the cards from the folder's own copy of them: a designer's file stays behind
    assert "'weighted:my w.toml'" in command and "--cards cards.toml" in command
    assert "my cards.toml; cards.toml, in this folder, holds its cards" in md
    assert analyzer.load_cards(out / "cards.toml").digest == \
        analyzer.load_cards(cards).digest
    # the weights file too, under the name the command gives it
    assert (out / "my w.toml").read_bytes() == weights.read_bytes()
    monkeypatch.chdir(out)
    code, _, err = run(capsys, *shlex.split(command)[1:], "--out", "again", "--quiet")
    assert code == 0, err
    first = pd.read_csv(out / "compare.csv").drop(columns="policy")
    again = pd.read_csv(out / "again" / "compare.csv").drop(columns="policy")
    pd.testing.assert_frame_equal(first.drop(columns="card_set_source", errors="ignore"),
                                  again.drop(columns="card_set_source", errors="ignore"))
    assert "--cards cards.toml" in (out / "again" / "compare.md").read_text().splitlines()[-1]
    example = Path(__file__).resolve().parent.parent / "docs" / "examples" / "cautious.py"
    mine = dataclasses.replace(resolve_policy(f"{example}:choose"), name="careful")
    analyzer.compare(sets="base", games=10, policy=mine, out=tmp_path / "py")
    last = (tmp_path / "py" / "compare.md").read_text(encoding="utf-8").splitlines()[-1]
    assert last == ("- **play again**: no command: the policy careful cannot be played again "
                    "from its name (a policy made in Python, or a file changed since the run, "
                    "say)")


def test_a_weights_file_named_as_the_comparisons_card_file_is_kept_under_another_name(
        tmp_path, capsys, monkeypatch):
    """Weights named cards.toml beside a designer's cards were not kept, and the command
    read the folder's card file as the weights."""
    import shlex

    from tests.test_cli import run

    (tmp_path / "w").mkdir()
    weights, cards = _designer_files(tmp_path / "w" / "cards.toml", tmp_path / "mine.toml")
    out = tmp_path / "cmp"
    analyzer.compare(sets="base,books", games=20, policy=f"weighted:{weights}", cards=cards,
                     out=out)
    command = (out / "compare.md").read_text(encoding="utf-8").splitlines()[-1] \
        .removeprefix("- **play again**: ")
    assert "--policy weighted:weights-cards.toml" in command
    assert (out / "weights-cards.toml").read_bytes() == weights.read_bytes()
    assert analyzer.load_cards(out / "cards.toml").digest == analyzer.load_cards(cards).digest
    monkeypatch.chdir(out)
    code, _, err = run(capsys, *shlex.split(command)[1:], "--out", "again", "--quiet")
    assert code == 0, err
    drop = ["policy", "card_set_source"]
    pd.testing.assert_frame_equal(
        pd.read_csv(out / "compare.csv").drop(columns=drop, errors="ignore"),
        pd.read_csv(out / "again" / "compare.csv").drop(columns=drop, errors="ignore"))
    # with the shipped cards no card file is kept, and the weights keep their name
    analyzer.compare(sets="base", games=10, policy=f"weighted:{weights}", out=tmp_path / "s")
    assert (tmp_path / "s" / "cards.toml").read_bytes() == weights.read_bytes()
    assert "--policy weighted:cards.toml" in \
        (tmp_path / "s" / "compare.md").read_text(encoding="utf-8").splitlines()[-1]


def test_a_table_of_runs_played_under_other_software_names_each(monkeypatch):
    """A comparison named the base game's software only, though a resumed set may have been
    played under other versions."""
    from analyzer.runner import config

    monkeypatch.setattr(config, "software", lambda: "Python 9.9, numba 0.1, numpy 0.2, on X")
    later = analyzer.compare(sets="base,books", games=20)
    assert later.attrs["software"] == "Python 9.9, numba 0.1, numpy 0.2, on X"
    from analyzer.api.common import joined_software

    assert joined_software([{"software": "a"}, {"software": "b"}, {"software": "a"}, {}]) \
        == "a; b"


def test_the_comparison_and_sensitivity_pages_name_the_engine_code_that_played():
    """Their rules-version fact was to name the engine code beside the version, and read
    it from a configuration that did not carry it."""
    import tempfile
    from pathlib import Path

    from analyzer.core.codes import RULES_VERSION
    from analyzer.core.jit import source_hash

    with tempfile.TemporaryDirectory() as folder:
        analyzer.compare(sets="base,books", games=20, out=Path(folder) / "cmp")
        md = (Path(folder) / "cmp" / "compare.md").read_text()
        analyzer.sensitivity(games=20, out=Path(folder) / "sens")
        sens = (Path(folder) / "sens" / "sensitivity.md").read_text()
    for page in (md, sens):
        assert f"**rules version**: {RULES_VERSION}, engine code {source_hash()}" in page


def test_a_set_of_other_games_than_the_base_games_is_refused_not_paired():
    """Game 10 of a set paired with game 0 of the base game would be a difference of
    nothing paired: the table refuses it."""
    def run_of(first: int) -> pd.DataFrame:
        games = np.arange(first, first + 10)
        return pd.DataFrame({"game": games, "won": games % 3 == 0, "turns": 20,
                             "pacified": 9})

    with pytest.raises(UrbionError, match="set books and the base game were not played on "
                                          "the same games"):
        compare_table({"base": run_of(0), "books": run_of(10)})


def test_a_comparisons_pages_name_the_commit_that_played_it(tmp_path):
    """The report's provenance was checked for its commit, a comparison's and a
    sensitivity analysis's not."""
    from analyzer.runner.config import package_commit

    commit = package_commit()
    analyzer.compare(sets="base", games=10, out=tmp_path / "cmp")
    assert f"- **commit**: {commit}\n" in (tmp_path / "cmp" / "compare.md").read_text()
    analyzer.sensitivity(games=10, out=tmp_path / "sens")
    assert f"- **commit**: {commit}\n" in (tmp_path / "sens" / "sensitivity.md").read_text()
    assert pd.read_csv(tmp_path / "cmp" / "compare.csv")["commit"].tolist() == [commit]


def test_a_pair_whose_contrast_is_zero_in_every_game_leaves_both_holm_families():
    """Books of Power as greedy plays it: books alone wins the base game's very games, and
    a pair with books the games of its other expansion, so the contrast of such a pair is 0
    in every game and its odds cancel set for set. Neither test can reject, and neither
    counts in Holm's family: the one pair that departs keeps its own p, on both scales.

    2,000 games: the base game wins games 0-399, squares_metas 100-499, chromatic_chaos
    200-599 and the two together 300-799, so the contrast is +1 in games 0-99 and 600-799
    and -1 in 200-299 and 400-499: (300 - 200) / 2,000 = +0.05; in odds (1:3 for the pair,
    1:4 for each of the other three), 1/3 * 1/4 / (1/4 * 1/4) = 4/3."""
    game = np.arange(2000)
    base, metas = game < 400, (game >= 100) & (game < 500)
    chaos = (game >= 200) & (game < 600)
    runs = {"base": _run(base), "squares_metas": _run(metas), "chromatic_chaos": _run(chaos),
            "books": _run(base),
            "squares_metas+chromatic_chaos": _run((game >= 300) & (game < 800)),
            "squares_metas+books": _run(metas), "chromatic_chaos+books": _run(chaos)}
    table = interactions(runs)
    for pair in ("squares_metas+books", "chromatic_chaos+books"):
        assert table.at[pair, "differing"] == 0 and table.at[pair, "p"] == 1.0
        assert table.at[pair, "odds_p"] == 1.0 and math.isnan(table.at[pair, "odds_low"])
    row = table.loc["squares_metas+chromatic_chaos"]
    assert row["interaction"] == pytest.approx(0.05)
    assert row["odds_interaction"] == pytest.approx(4 / 3)
    assert row["p"] < 0.01 and row["odds_p"] < 0.01
    # a family of one: nothing to adjust for
    assert row["holm_p"] == pytest.approx(row["p"], rel=1e-12)
    assert row["odds_holm_p"] == pytest.approx(row["odds_p"], rel=1e-12)


def test_an_interaction_on_ten_differing_games_takes_students_interval_as_it_is():
    """Ten games of 40 won by the pair alone: from ten differing games on, the interval is
    Student's t on the games' contrasts, neither widened nor marked (few differ): the
    contrasts are ten 1s and thirty 0s, mean 0.25, with scipy's t interval around it."""
    from scipy import stats

    runs = {"base": _run([0] * 40), "x": _run([0] * 40), "y": _run([0] * 40),
            "x+y": _run([1] * 10 + [0] * 30)}
    row = interactions(runs).loc["x+y"]
    contrast = np.array([1.0] * 10 + [0.0] * 30)
    expected = stats.t.interval(0.95, 39, loc=0.25, scale=stats.sem(contrast))
    assert row["differing"] == 10 and row["interaction"] == pytest.approx(0.25)
    assert (row["low"], row["high"]) == pytest.approx(expected)
    assert "few differ" not in interaction_band(row["low"], row["high"],
                                                differing=row["differing"])


def test_an_interaction_on_ten_differing_games_is_shown_only_where_its_interval_clears_zero():
    """From ten differing games on the interval is no longer widened, and it decides with
    the test: a Holm p of 0.01 beside an interval written -0.10 to +2.00 pp is not shown;
    on nine, where the interval is widened, the exact test alone decides."""
    def table(differing):
        return pd.DataFrame([{"pair": "x+y", "first": "x", "second": "y", "games": 5000,
                              "differing": differing, "interaction": 0.0095, "low": -0.001,
                              "high": 0.02, "holm_p": 0.01, "pair_win_rate": 0.2,
                              "multiplied": 0.1}]).set_index("pair")

    from analyzer.analysis.interactions import shown_interactions

    assert not shown_interactions(table(10)).iloc[0]
    assert shown_interactions(table(9)).iloc[0]


def test_the_charts_order_the_sets_by_rank_not_by_win_rate():
    """--precision stops sets at different lengths, and the ranks follow the paired tests
    (base, b, a here: b won 12 of its 20 games, a 20 of its 40 but every one of the 20 both
    played): the charts list the sets hardest first by that rank, not by the win rates
    (base 0%, a 50%, b 60%) of games that are not the same."""
    from analyzer.analysis.compare import chart_members, chart_table

    runs = {"base": _games([0] * 40), "a": _games([1] * 20 + [0] * 20),
            "b": _games([1] * 12 + [0] * 8)}
    table = compare_table(runs)
    assert list(chart_table(table).index) == ["base game", "b", "a"]
    assert list(chart_members(table).index) == ["base game", "b", "a"]


def test_the_base_game_comes_first_wherever_sets_lists_it():
    """Every set is compared with the base game, which leads the table however --sets
    orders it; with all, the singles come next, then the pairs, and so on by size."""
    assert expansion_sets("books,base") == [(), ("books",)]
    assert expansion_sets("postcards,books,base+emptiness,base") == \
        [(), ("postcards",), ("books",), ("emptiness",)]
    every, singles, pairs = (expansion_sets(spec) for spec in ("all", "singles", "pairs"))
    assert every[:8] == singles and set(every[8:29]) == set(pairs[8:])
    assert [len(s) for s in every] == sorted(len(s) for s in every)
    assert every[-1] == ("squares_metas", "chromatic_chaos", "temples_harmony",
                         "gardens_wizards", "books", "postcards", "emptiness")


def test_a_set_is_titled_by_its_expansions_printed_names_joined_by_a_plus():
    """A chart names a set as the box prints its expansions: a comma would read as a list
    of sets, not one set of two expansions."""
    from analyzer.analysis.expansion_sets import set_title

    assert set_title("base") == "base game"
    assert set_title("squares_metas+chromatic_chaos") == \
        "City Squares & Metas + Chromatic Chaos"
    assert set_title("books") == "Books of Power"


def test_a_heatmaps_pairs_name_their_expansions_in_the_games_order():
    """A table of pairs read in another order (a report of files listed so): each pair
    names its expansions, and the pairs follow, in TRACE.md order, by printed name."""
    from analyzer.analysis.interactions import titled_interactions

    table = pd.DataFrame({"first": ["books", "temples_harmony"],
                          "second": ["chromatic_chaos", "squares_metas"],
                          "interaction": [0.01, 0.02]},
                         index=["chromatic_chaos+books", "squares_metas+temples_harmony"])
    titled = titled_interactions(table)
    assert titled[["first", "second"]].values.tolist() == [
        ["City Squares & Metas", "Temples & Harmony"], ["Chromatic Chaos", "Books of Power"]]
    assert titled["interaction"].tolist() == [0.02, 0.01]


def test_a_sets_run_is_found_in_any_letter_case_as_sets_reads_it():
    """--sets takes "Chromatic_Chaos+Squares_Metas" for the pair, so the runs do too."""
    from analyzer.analysis.expansion_sets import SetRuns

    base, pair = _run([1, 0]), _run([0, 0])
    runs = SetRuns({"base": base, "squares_metas+chromatic_chaos": pair})
    assert runs["Chromatic_Chaos+Squares_Metas"] is pair
    assert runs["BASE"] is base and runs["None"] is base


def test_a_pair_not_played_has_no_interaction_even_beside_a_set_that_holds_it():
    """x and y alone and x+y+z, but not x+y: the three-expansion set is no pair, and no
    interaction of x and y can be read from it."""
    runs = {"base": _run([1, 0, 0, 1]), "x": _run([1, 1, 0, 0]), "y": _run([0, 0, 1, 1]),
            "x+y+z": _run([1, 1, 1, 1])}
    assert interactions(runs).empty
    runs["x+y"] = _run([0, 1, 1, 0])
    assert list(interactions(runs).index) == ["x+y"]


def test_the_charts_of_sets_of_different_lengths_name_no_one_number_of_games():
    """With --precision books stops before the base game, which plays on for
    chromatic_chaos (as in test_a_set_that_stopped_before_the_base_game_says_over_which_
    games_it_differs): no one number of games is that of every set, so the charts' source
    line names none; sets of one length name it."""
    from analyzer.reporting import charts

    result = analyzer.compare(sets="books,chromatic_chaos", games=100, seed=3,
                              precision=0.05, max_games=2000)
    assert result.table["games"].nunique() > 1
    assert "games" not in result.attrs
    assert " games " not in f" {charts.source_line(result.attrs)} "
    even = analyzer.compare(sets="books", games=100, seed=3)
    assert even.attrs["games"] == 100 and "games 100" in charts.source_line(even.attrs)
