"""A figure of the team game says so wherever it is shown: duel, compare, sensitivity and
report output, so that it is never quoted as a solo figure (R10)."""

from __future__ import annotations

import pandas as pd

import analyzer
from analyzer.analysis.run_stats import run_label
from analyzer.core.codes import PLAYABLE_EXPANSIONS
from analyzer.reporting.compare_pages import compare_facts
from analyzer.reporting.facts import provenance
from analyzer.reporting.sensitivity_pages import sensitivity_markdown


def test_a_duel_names_its_expansions_and_variant():
    text = str(analyzer.duel("greedy,random", games=30, expansions="chromatic_chaos",
                             variant="team"))
    assert "expansions chromatic_chaos    team game" in text.splitlines()[1]
    solo = str(analyzer.duel("greedy,random", games=30))
    assert "expansions none (base game)    solo game" in solo.splitlines()[1]


def test_a_duel_keeps_its_columns_aligned_for_long_policy_names(tmp_path):
    path = tmp_path / "a_rather_long_folder_name_for_weights" / "weights.toml"
    path.parent.mkdir()
    path.write_text("[weights]\nTURN = 9.0\n")
    text = str(analyzer.duel(["greedy", f"weighted:{path}"], games=30))
    table = text.splitlines()[3:6]  # the header and one row per policy, fixed widths
    assert all(len(line) == len(table[0]) for line in table), table


def test_a_comparison_names_the_team_game():
    result = analyzer.compare(sets="base,books", games=30, variant="team")
    assert result.attrs["variant"] == "team"
    assert "team game" in str(result).splitlines()[0]
    assert compare_facts(result.attrs)["variant"] == "the team game"


def test_sensitivity_names_the_team_game():
    result = analyzer.sensitivity(games=20, variant="team")
    assert result.baseline["variant"] == "team"
    assert "the team game" in str(result).splitlines()[0]
    assert "the team game" in sensitivity_markdown(result.table, result.baseline)


def test_a_report_tells_a_team_run_from_a_solo_one():
    team = analyzer.simulate(games=20, variant="team")
    solo = analyzer.simulate(games=20)
    assert run_label(team.attrs, "x") == "greedy / base / team / seed 0"
    assert run_label(solo.attrs, "x") == "greedy / base / seed 0"
    # --expansions all, as --expansions takes it: seven names would fill a chart's legend
    every = {**solo.attrs, "expansions": list(reversed(PLAYABLE_EXPANSIONS))}
    assert run_label(every, "x") == "greedy / all / seed 0"
    assert run_label({**solo.attrs, "expansions": ["books", "postcards"]}, "x") == \
        "greedy / books+postcards / seed 0"
    runs: dict[str, pd.DataFrame] = {"a": team, "b": solo}
    assert "engine fast, expansions none, team game" in provenance(runs)["runs"]
    assert "engine fast, expansions none, solo game" in provenance(runs)["runs"]
