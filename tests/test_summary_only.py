"""--summary-only: running totals give the same summary as the full per-game rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.runner.tally import TURN_BINS, histogram_median
from tests.test_cli import run


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_summary_only_equals_the_summary_of_all_rows(policy):
    full = analyzer.summarize(analyzer.simulate(games=3001, seed=17, policy=policy))
    totals = analyzer.simulate_summary(games=3001, seed=17, policy=policy, chunk=640)
    assert totals["loss_reasons"] == full["loss_reasons"]
    for key in ("games", "wins", "win_rate", "ci_low", "ci_high", "mean_turns",
                "median_turns", "mean_pacified", "turns_ci", "pacified_ci"):
        assert totals[key] == pytest.approx(full[key], rel=1e-12), key


def test_a_mean_comes_with_its_t_interval():
    """Mean turns and cities pacified, in the rows' summary, the report headline and the
    terminal, with scipy's own 95% t-interval of the per-game values."""
    from scipy import stats

    from analyzer.analysis.run_stats import headline
    from analyzer.analysis.summary import format_summary
    from analyzer.reporting.build import headline_rows

    df = analyzer.simulate(games=400, seed=3)
    summary = analyzer.summarize(df)
    for column in ("turns", "pacified"):
        values = df[column].to_numpy(dtype=float)
        expected = stats.t.interval(0.95, len(values) - 1, loc=values.mean(),
                                    scale=stats.sem(values))
        assert summary[f"{column}_ci"] == pytest.approx(expected, rel=1e-12)
    low, high = summary["turns_ci"]
    assert f"turns      mean {df['turns'].mean():.1f} (95% interval {low:.1f} to {high:.1f})" \
        in format_summary(summary, df.attrs)
    row = headline_rows(headline({"a": df}))[1]
    low, high = summary["pacified_ci"]
    assert row[-1] == f"{df['pacified'].mean():.2f} ({low:.2f} to {high:.2f})"
    # counts: never a negative bound; all alike: no interval of no width
    from analyzer.analysis.stats import histogram_mean_interval, mean_interval

    assert mean_interval(np.array([0, 30]))[0] == 0.0
    assert np.isnan(mean_interval(np.array([4, 4, 4]))).all()
    assert np.isnan(histogram_mean_interval(np.bincount([4, 4, 4], minlength=9))).all()
    assert histogram_mean_interval(np.bincount([0, 30]))[0] == 0.0
    one = analyzer.summarize(analyzer.simulate(games=1, seed=3))
    assert "interval" not in format_summary(one, df.attrs).split("turns")[1].split("\n")[0]


def test_the_per_game_means_are_those_of_the_expansions_in_play():
    """A mean of an expansion not in play would read as a fact (0 Emptiness cards left),
    in the rows' summary and the running totals alike."""
    kwargs = {"games": 200, "seed": 2, "expansions": "chromatic_chaos,emptiness"}
    full = analyzer.summarize(analyzer.simulate(**kwargs))
    totals = analyzer.simulate_summary(**kwargs)
    assert set(full["means"]) == set(totals["means"]) == {"emptiness_left", "allies"}
    assert totals["means"] == pytest.approx(full["means"], rel=1e-12)
    assert analyzer.summarize(analyzer.simulate(games=50, seed=2))["means"] == {}


@pytest.mark.parametrize("values", [[3], [3, 9], [1, 2, 2, 7], [5, 1, 4, 4, 0, 9, 9],
                                    list(np.random.default_rng(1).integers(0, 60, 1001))])
def test_histogram_median_matches_pandas(values):
    hist = np.bincount(np.array(values), minlength=TURN_BINS)
    assert histogram_median(hist) == pd.Series(values).median()


def test_histogram_median_of_nothing_is_nan():
    assert np.isnan(histogram_median(np.zeros(TURN_BINS, dtype=np.int64)))


def test_cli_summary_only_writes_a_json_summary(capsys, tmp_path):
    path = tmp_path / "s.json"
    code, out, err = run(capsys, "simulate", "--games", "500", "--seed", "3",
                         "--summary-only", "--out", str(path), "--quiet")
    assert code == 0, err
    document = json.loads(path.read_text())
    assert document["format"] == "urbion-summary/1"
    assert document["config"]["seed"] == 3 and document["config"]["card_set"]
    rows = analyzer.simulate(games=500, seed=3)
    assert document["summary"]["wins"] == int(rows["won"].sum())
    assert sum(document["tally"]["turns_hist"]) == 500
    assert f"wins       {int(rows['won'].sum())}" in out


def test_cli_summary_only_refuses_a_parquet_out(capsys, tmp_path):
    path = tmp_path / "s.parquet"
    code, _, err = run(capsys, "simulate", "--games", "50", "--summary-only", "--out",
                       str(path))
    assert code == 2
    assert err.count("\n") == 1 and "must end in .json" in err
    assert not path.exists()


def test_progress_bar_goes_to_stderr_and_quiet_turns_it_off(capsys):
    code, out, err = run(capsys, "simulate", "--games", "3000", "--chunk", "1000")
    assert code == 0
    assert "games/s" in err and "3.00k/3.00k" in err
    assert "\r" not in out and "it/s" not in out
    code, _, err = run(capsys, "simulate", "--games", "3000", "--quiet")
    assert code == 0 and err == ""
