"""A table taken out of a result object still names the run it comes from: its ``attrs``
are the result's (a copy), as ``simulate``'s frame carries its own."""

import pandas as pd
import pytest
from scipy import stats

import analyzer
from tests.test_card_change import _weak_chaos


@pytest.fixture(scope="module")
def duel():
    return analyzer.duel("greedy,random", games=60, seed=7)


def test_each_table_of_a_duel_carries_the_duels_configuration(duel):
    for table in (duel.policies, duel.pairs, duel.play, duel.play_half_widths):
        assert table.attrs == duel.attrs
        assert table.attrs["card_set"] == "R14-default" and table.attrs["seed"] == 7
    duel.policies.attrs["seed"] = -1  # a copy: the result's own stays as it was
    try:
        assert duel.attrs["seed"] == 7 and duel.pairs.attrs["seed"] == 7
    finally:
        duel.policies.attrs["seed"] = 7


def test_a_duels_half_widths_are_each_policys_95_percent_t_interval(duel):
    """The +- the printed duel shows beside each mean, as a table of the means' shape."""
    halves = duel.play_half_widths
    assert halves.shape == duel.play.shape
    assert list(halves.columns) == ["greedy", "random"]
    for name in ("greedy", "random"):
        turns = duel.runs[name]["turns"].to_numpy(dtype=float)
        half = stats.t.ppf(0.975, len(turns) - 1) * stats.sem(turns)
        assert halves.at["turns", name] == pytest.approx(half, rel=1e-12)
        shown = f"{duel.play.at['turns', name]:.2f} +-{half:.2f}"
        assert shown in str(duel)


def test_a_table_written_to_parquet_keeps_the_run_it_comes_from(duel, tmp_path):
    path = tmp_path / "pairs.parquet"
    duel.pairs.to_parquet(path)
    back = pd.read_parquet(path)
    assert back.attrs["card_set_sha256"] == duel.attrs["card_set_sha256"]
    assert back.attrs["policies"] == ["greedy", "random"]


def test_both_tables_of_a_comparison_carry_its_configuration():
    result = analyzer.compare(sets="emptiness", games=40, seed=3)
    for table in (result.table, result.interactions):
        assert table.attrs == result.attrs
        assert table.attrs["sets"] == ["base", "emptiness"]


def test_a_card_changes_tables_name_both_card_sets_and_its_stopping_rule(tmp_path):
    """The change's table names both card sets; each card set's comparison, whose attrs
    gain the change's precision once it is known, has its tables named anew."""
    weak = _weak_chaos(tmp_path)
    result = analyzer.compare(sets="base,emptiness", games=50, seed=4, cards=weak,
                              against="r14", precision=0.01, max_games=100)
    assert result.table.attrs == result.attrs
    assert result.table.attrs["card_set"] == "weak-chaos"
    assert result.table.attrs["against_card_set"] == "R14-default"
    for side in (result.cards, result.against):
        assert side.table.attrs["card_change_cut"] == ["base", "emptiness"]
        assert side.interactions.attrs == side.attrs


def test_a_sensitivity_table_carries_its_baseline():
    result = analyzer.sensitivity(games=10, seed=3)
    assert result.table.attrs == result.baseline
    assert result.table.attrs["card_set"] == "R14-default"
    assert "win_rate" in result.table.attrs and "baseline_levels" in result.table.attrs
