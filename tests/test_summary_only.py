"""--summary-only: running totals give the same summary as the full per-game rows."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.analysis.summary import format_summary
from analyzer.runner.tally import SUMMED, TURN_BINS, histogram_median
from tests.test_cli import run


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_summary_only_equals_the_summary_of_all_rows(policy):
    full = analyzer.summarize(analyzer.simulate(games=3001, seed=17, policy=policy))
    totals = analyzer.simulate_summary(games=3001, seed=17, policy=policy, chunk=640)
    assert totals["loss_reasons"] == full["loss_reasons"]
    for key in ("games", "wins", "win_rate", "ci_low", "ci_high", "mean_turns",
                "median_turns", "mean_pacified", "turns_ci", "pacified_ci"):
        assert totals[key] == pytest.approx(full[key], rel=1e-12), key


@pytest.mark.parametrize("expansions, variant", [("none", "solo"), ("postcards", "solo"),
                                                 ("all", "team")])
def test_losses_by_cities_short_agree_in_rows_and_totals(expansions, variant):
    """How many City cards each loss left unpacified: from the rows, and from a tally's
    histogram less the wins (a win pacifies every City card); with the Postcards some
    losses pacified them all (R11.9)."""
    settings = dict(games=1500, seed=5, expansions=expansions, variant=variant)
    df = analyzer.simulate(**settings)
    full = analyzer.summarize(df)
    lost = df.loc[~df["won"]]
    assert sum(full["losses_short"].values()) == len(lost)
    assert full["losses_short"].get(1, 0) == int((lost["pacified"] ==
                                                  df.attrs["city_cards"] - 1).sum())
    assert analyzer.simulate_summary(**settings)["losses_short"] == full["losses_short"]
    if expansions == "postcards":
        assert full["losses_short"].get(0, 0) > 0


@pytest.mark.parametrize("city_cards, pacified, short", [
    (70, [70, 65, 60], None),  # a loss in the last bin: how many short is not known
    (70, [70, 60, 62], {10: 1, 8: 1}),  # none there: the rest is exact
    (63, [63, 63, 50], {0: 1, 13: 1}),  # the last bin holds the City cards alone
    (12, [12, 11, 3], {1: 1, 9: 1})])
def test_losses_short_from_totals_of_a_set_of_many_cities(city_cards, pacified, short):
    """A tally's pacified histogram stops at PACIFIED_BINS - 1 cities or more: a set of
    more City cards (a card file holds up to 112) never has its losses miscounted, the
    first game being the win."""
    from analyzer.analysis.summary import _losses_short, _tally_losses_short
    from analyzer.core.codes import Outcome, Reason
    from analyzer.runner.results import RESULT_DTYPE
    from analyzer.runner.tally import tally_results

    results = np.zeros(len(pacified), dtype=RESULT_DTYPE)
    results["pacified"] = pacified
    results["outcome"] = [Outcome.WIN] + [Outcome.LOSS] * (len(pacified) - 1)
    results["reason"] = [Reason.ALL_PACIFIED] + [Reason.DECK_EMPTY] * (len(pacified) - 1)
    df = pd.DataFrame({"won": results["outcome"] == Outcome.WIN, "pacified": pacified})
    df.attrs["city_cards"] = city_cards
    exact = _losses_short(df)
    tallied = _tally_losses_short(tally_results(results), 1, city_cards)
    assert tallied == ({} if short is None else short)
    assert short is None or exact == short


def test_the_summary_says_how_near_the_losses_came():
    df = analyzer.simulate(games=2000, seed=0)
    lost = df.loc[~df["won"], "pacified"]
    one, two = int((lost == 11).sum()), int((lost == 10).sum())
    more = len(lost) - one - two
    line = next(line for line in format_summary(analyzer.summarize(df), df.attrs).splitlines()
                if line.startswith("short"))
    assert line == (f"short      losses by City cards left unpacified: 1: {one:,} "
                    f"({one / len(lost):.0%}), 2: {two:,} ({two / len(lost):.0%}), 3 or more: "
                    f"{more:,} ({more / len(lost):.0%})")


def test_a_share_of_the_losses_that_rounds_to_0pct_says_under_1pct():
    from analyzer.analysis.summary import short_text

    assert short_text({"1": 9_000, "2": 14, "3": 986}) == \
        "1: 9,000 (90%), 2: 14 (<1%), 3 or more: 986 (10%)"
    assert short_text({"1": 19_990, "2": 10}) == "1: 19,990 (>99%), 2: 10 (<1%)"
    assert short_text({"1": 50}) == "1: 50 (100%)"
    assert short_text({"1": 199, "2": 1}) == "1: 199 (>99%), 2: 1 (<1%)"  # 0.5% is "0%"


def test_a_mean_comes_with_its_t_interval():
    """Mean turns and cities pacified, in the rows' summary, the report headline and the
    terminal, with scipy's own 95% t-interval of the per-game values."""
    from scipy import stats

    from analyzer.analysis.run_stats import headline
    from analyzer.analysis.summary import format_summary
    from analyzer.reporting.balance_report import headline_rows

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
    from analyzer.analysis.stats import mean_interval, sums_mean_interval

    assert mean_interval(np.array([0, 30]), low=0.0)[0] == 0.0
    assert mean_interval(np.array([0, 30]))[0] < 0.0  # unbounded unless told
    assert np.isnan(mean_interval(np.array([4, 4, 4]))).all()
    assert np.isnan(sums_mean_interval(3, 12, 48)).all()  # a tally of 4, 4 and 4
    assert sums_mean_interval(2, 30, 900, 0.0)[0] == 0.0  # of 0 and 30
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


@pytest.mark.parametrize("expansions", ["postcards", "books,emptiness"])
def test_each_per_game_mean_has_its_t_interval_from_rows_and_from_running_totals(
        expansions):
    """Each mean of the `per game` line carries the 95% t-interval scipy gives for its
    rows; the running totals of --summary-only (sums and sums of squares) give the same."""
    from scipy import stats

    kwargs = {"games": 300, "seed": 4, "expansions": expansions, "policy": "weighted"}
    df = analyzer.simulate(**kwargs)
    full = analyzer.summarize(df)
    totals = analyzer.simulate_summary(**kwargs)
    for column, (low, high) in full["means_ci"].items():
        values = df[column].to_numpy()
        if values.std() == 0:  # all alike (no Book laid out): no interval of no width
            expected = (np.nan, np.nan)
        else:
            expected = stats.t.interval(0.95, len(values) - 1, loc=values.mean(),
                                        scale=stats.sem(values))
        if column != "inhabitants":  # a count: never below 0
            expected = (max(0.0, expected[0]) if np.isfinite(expected[0]) else np.nan,
                        expected[1])
        assert (low, high) == pytest.approx(expected, rel=1e-9, nan_ok=True), column
        assert totals["means_ci"][column] == pytest.approx((low, high), rel=1e-9,
                                                           nan_ok=True), column
    line = format_summary(full, df.attrs).split("per game   ")[1].split("\n")[0]
    shown = [column for column, span in full["means_ci"].items() if np.isfinite(span).all()]
    assert shown  # every case has a mean that varies
    for column in shown:
        assert f"{full['means'][column]:.2f} ({full['means_ci'][column][0]:.2f} to " in line


def test_the_cities_interval_stops_at_the_city_cards_of_the_game():
    """A policy that pacifies nearly every city: the t-interval would pass the 12 City
    cards (11.90 to 12.03 was printed); it ends at 12, from rows and from totals."""
    from analyzer.analysis.summary import mean_columns, summarize_tally
    from analyzer.runner.tally import tally_results

    df = analyzer.simulate(games=60, seed=1, policy="weighted",
                           expansions="chromatic_chaos")
    assert df.attrs["city_cards"] == 12
    assert (df.loc[df["won"], "pacified"] == 12).all() and df["won"].any()
    nearly = df.copy()
    nearly["pacified"] = 12
    nearly.loc[:2, "pacified"] = 11
    assert mean_columns(nearly)["pacified_high"] == 12.0
    unbounded = nearly.copy()
    unbounded.attrs = {}  # a frame without its configuration: no bound known
    assert mean_columns(unbounded)["pacified_high"] > 12.0
    results = np.zeros(60, dtype=[("outcome", "i1"), ("reason", "i1")] + [
        (name, "i4") for name in SUMMED])
    results["pacified"] = nearly["pacified"].to_numpy()
    results["turns"] = 20
    assert summarize_tally(tally_results(results), [], 12)["pacified_ci"][1] == 12.0


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
    assert f"wins       {int(rows['won'].sum()):,}" in out


def test_cli_summary_only_refuses_a_parquet_out(capsys, tmp_path):
    path = tmp_path / "s.parquet"
    code, _, err = run(capsys, "simulate", "--games", "50", "--summary-only", "--out",
                       str(path))
    assert code == 2
    assert err.count("\n") == 1 and "--summary-only run (simulate_summary in Python) writes a " \
        "summary file: --out (out=) must end in .json" in err
    assert not path.exists()


def test_progress_bar_redraws_on_a_terminal_and_quiet_turns_it_off(capsys, monkeypatch):
    from analyzer.runner import progress
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    code, out, err = run(capsys, "simulate", "--games", "3000", "--chunk", "1000")
    assert code == 0
    assert "games/s" in err and "3.00k/3.00k" in err and "\r" in err
    assert "\r" not in out and "it/s" not in out
    code, _, err = run(capsys, "simulate", "--games", "3000", "--quiet")
    assert code == 0 and err == ""


def test_progress_in_a_log_file_is_whole_lines_and_silent_for_a_short_run(capsys,
                                                                          monkeypatch):
    from analyzer.runner import progress
    # shorter than LOG_INTERVAL (as long as a compile may take: set long here): nothing
    monkeypatch.setattr(progress, "LOG_INTERVAL", 3600.0)
    code, _, err = run(capsys, "simulate", "--games", "3000", "--chunk", "1000")
    assert code == 0 and err == ""
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    code, _, err = run(capsys, "simulate", "--games", "3000", "--chunk", "1000")
    assert code == 0 and "\r" not in err
    lines = err.splitlines()
    assert len(lines) >= 2 and len(set(lines)) == len(lines)
    assert "0/3.00k" in lines[0] and "3.00k/3.00k" in lines[-1] and "games/s" in lines[-1]


def test_a_notebooks_stderr_redraws_the_bar():
    """Jupyter's kernel streams say they are no terminal, yet a notebook shows a bar
    redrawn in place: they are not taken for a log file."""
    from analyzer.runner.progress import is_terminal

    kernel_stream = type("OutStream", (), {"__module__": "ipykernel.iostream",
                                           "isatty": lambda self: False})()
    log = type("Log", (), {"isatty": lambda self: False})()
    assert is_terminal(kernel_stream) and not is_terminal(log) and not is_terminal(object())


def test_a_summary_file_is_strict_json_with_null_where_there_is_no_figure(tmp_path):
    """No Book laid out: the mean of Books kept has no interval; the file says null, which
    strict JSON readers take, not NaN, which they refuse."""
    out = tmp_path / "s.json"
    analyzer.simulate_summary(games=100, seed=1, expansions="books", out=out)

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    document = json.loads(out.read_text(), parse_constant=refuse)
    assert document["summary"]["means_ci"]["books_kept"] == [None, None]
    assert document["summary"]["means"]["books_kept"] == 0.0


def test_a_summary_file_keeps_its_cards_for_a_report(tmp_path):
    """As a results file does: the packed card table, which unpacks to the set's very cards
    (their hash), beside the card set's readable name and hash."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import unpacked_table

    out = tmp_path / "s.json"
    analyzer.simulate_summary(games=20, out=out)
    config = json.loads(out.read_text())["config"]
    shipped = default_card_set()
    cards = unpacked_table(config["card_set_table"], config["card_set"],
                           config["card_set_sha256"], config["card_set_source"])
    assert config["card_set_sha256"] == shipped.digest and cards is not None
    assert np.array_equal(cards.cards, shipped.cards)


def test_a_per_game_mean_without_interval_is_printed_as_every_games_value(capsys):
    """greedy lays out no Book: Books kept is 0 in every game, which has no interval; the
    line says so instead of promising intervals it does not give."""
    for args in (["--expansions", "books"], ["--expansions", "books", "--summary-only"]):
        code, out, err = run(capsys, "simulate", "--games", "200", "--quiet", *args)
        assert code == 0, err
        line = next(line for line in out.splitlines() if line.startswith("per game"))
        assert line == "per game   Books kept 0 in every game, Book actions 0 in every game"
    code, out, _ = run(capsys, "simulate", "--games", "200", "--quiet", "--expansions",
                       "books,postcards")
    line = next(line for line in out.splitlines() if line.startswith("per game"))
    assert line.startswith("per game   Books kept 0 in every game, Book actions 0 in every "
                           "game, inhabitant sum -") and line.endswith(" (means, 95% intervals)")
    assert re.search(r"inhabitant sum -\d\.\d\d \(-\d\.\d\d to -\d\.\d\d\)", line)


def test_the_team_game_summary_gives_polarity_swaps_per_game(capsys):
    """The team game's own figure, from rows and from totals; never in a solo game."""
    df = analyzer.simulate(games=200, seed=2, variant="team")
    swaps = df["polarity_swaps"]
    assert swaps.mean() > 0
    for args in ([], ["--summary-only"]):
        code, out, err = run(capsys, "simulate", "--games", "200", "--seed", "2", "--quiet",
                             "--variant", "team", *args)
        assert code == 0, err
        line = next(line for line in out.splitlines() if line.startswith("per game"))
        assert line.startswith(f"per game   polarity swaps {swaps.mean():.2f} (")
    assert analyzer.summarize(df)["means"] == {"polarity_swaps": swaps.mean()}
    code, out, _ = run(capsys, "simulate", "--games", "200", "--quiet")
    assert "polarity" not in out


def test_a_resume_that_played_no_game_gives_no_speed():
    """Every game saved before the stop: the summary says so, not "0 games/s"."""
    df = analyzer.simulate(games=50, seed=2)
    text = format_summary(analyzer.summarize(df), {**df.attrs, "games_resumed": 50}, 0.08)
    assert "speed" not in text and "resumed    50 games were saved" in text
    assert "speed " in format_summary(analyzer.summarize(df), df.attrs, 0.08)


def test_a_run_that_kept_no_book_says_it_played_as_without_them(tmp_path):
    """greedy keeps no Book by default: its summary says so, from the rows and from a
    tally alike, and a policy that keeps one gets no such line."""
    df = analyzer.simulate(games=50, expansions="books")
    line = ("books      the policy kept no Book of Power in any game: this run played as "
            "without the Books")
    assert line in format_summary(analyzer.summarize(df), df.attrs)
    totals = analyzer.simulate_summary(games=50, expansions="books")
    assert line in format_summary(totals, totals["config"])
    keeping = tmp_path / "keep.toml"
    keeping.write_text("[weights]\nBOOKS_KEEP = 1.0\n")
    kept = analyzer.simulate(games=50, expansions="books", policy=f"weighted:{keeping}")
    assert kept["books_kept"].any()
    assert "books      " not in format_summary(analyzer.summarize(kept), kept.attrs)


@pytest.mark.parametrize("terminal", [True, False])
def test_a_progress_report_that_cannot_be_written_stops_only_itself(monkeypatch, tmp_path,
                                                                    terminal):
    """stderr on a full disk, or a pipe whose reader is gone: the run it reports on goes
    on to its end and writes its results (it stopped with exit 1 and no file)."""
    import sys

    from analyzer.runner import progress

    class Full:
        writes = 0

        def write(self, text):
            Full.writes += 1
            raise OSError(28, "No space left on device")

        def flush(self):
            raise OSError(28, "No space left on device")

        def isatty(self):
            return terminal

    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    monkeypatch.setattr(sys, "stderr", Full())
    out = tmp_path / "r.parquet"
    df = analyzer.simulate(games=3000, chunk=500, workers=1, progress=True, out=out)
    assert Full.writes == 1  # tried once, then left alone
    assert len(df) == 3000 and out.exists()


def test_a_summary_file_says_what_each_entry_of_its_tally_is(tmp_path):
    """The tally was bare arrays: a reader of the file had to guess which position was
    which reason or column. Read through its key, it gives the rows' own figures."""
    import json

    import analyzer

    path = tmp_path / "s.json"
    analyzer.simulate_summary(games=400, seed=4, expansions="emptiness", out=path)
    rows = analyzer.simulate(games=400, seed=4, expansions="emptiness")
    document = json.loads(path.read_text(encoding="utf-8"))
    tally, key = document["tally"], document["tally_key"]
    assert set(key) == set(tally)
    labelled = {name: dict(zip(key[name], tally[name], strict=True))
                for name in tally if isinstance(key[name], list)}
    lost = rows.loc[~rows["won"], "reason"].astype(str).value_counts()
    for reason in ("deck_empty", "emptiness"):
        assert labelled["loss_reasons"][f"games lost: {reason}"] == lost.get(reason, 0)
    for column in ("censuses", "exchanges", "chaos_placed", "emptiness_left"):
        assert labelled["sums"][f"sum over the games of {column}"] == rows[column].sum()
    assert len(tally["turns_hist"]) == 512 and "0 to 511" in key["turns_hist"]


@pytest.mark.parametrize("games, said", [("abc", "'abc', not a count of games"),
                                         (499, "games is 499, its tally counts 500"),
                                         (7.5, "7.5, not a count of games")])
def test_a_summary_whose_game_count_is_not_its_tallys_is_refused(capsys, tmp_path, games,
                                                                  said):
    """A summary edited to say 'abc' or 499 games was reported as a run of its tally's 500,
    and read for its cards, without a word."""
    path = tmp_path / "s.json"
    code, _, err = run(capsys, "simulate", "--games", "500", "--summary-only", "--out",
                       str(path), "--quiet")
    assert code == 0, err
    document = json.loads(path.read_text())
    document["config"]["games"] = games
    path.write_text(json.dumps(document))
    for args in (["report", str(path), "--out", str(tmp_path / "rep")],
                 ["simulate", "--cards", str(path), "--games", "10", "--quiet"]):
        code, _, err = run(capsys, *args)
        assert code == 2 and err.count("\n") == 1, err
        assert said in err and ("is not a whole urbion summary file" in err or
                                "is not an urbion summary file" in err), err
    assert not (tmp_path / "rep").exists()
    code, _, err = run(capsys, "report", str(tmp_path / "missing.json"), "--out",
                       str(tmp_path / "rep"))
    assert code == 2 and "cannot read summary file" in err and "no such file" in err
    document["config"]["games"] = "500"  # text, but the tally's count: read as it
    path.write_text(json.dumps(document))
    code, _, err = run(capsys, "report", str(path), "--out", str(tmp_path / "rep"))
    assert code == 0, err


def test_the_terminal_summary_names_a_users_policy_by_its_source_hash_too():
    """Two versions of one policy file play under one name: the summary said which only
    in the results file, where a report and show give the hash."""
    df = analyzer.simulate(games=20, seed=3)
    summary = analyzer.summarize(df)
    assert "    engine fast" in format_summary(summary, df.attrs).splitlines()[3]
    attrs = {**df.attrs, "policy": "mine.py:choose", "policy_source_sha256": "ab12" * 16}
    assert format_summary(summary, attrs).splitlines()[3].startswith(
        "policy     mine.py:choose (source sha256 ab12ab12ab12)    engine fast")


def _hand_run() -> pd.DataFrame:
    """Six games: one won, three lost to the Emptiness, two to the Dream deck."""
    df = pd.DataFrame({"game": np.arange(6), "won": [False] * 5 + [True],
                       "reason": ["deck_empty", "emptiness", "emptiness", "deck_empty",
                                  "emptiness", "all_pacified"],
                       "turns": [20, 21, 22, 23, 24, 25], "pacified": [9, 10, 11, 9, 10, 12]})
    df.attrs.update(expansions=["emptiness"], city_cards=12)
    return df


def test_the_terminal_summary_lists_the_loss_reasons_most_first():
    text = format_summary(analyzer.summarize(_hand_run()), _hand_run().attrs)
    assert "losses     emptiness 3, deck_empty 2" in text.splitlines()


def test_the_speed_of_a_resumed_run_counts_only_the_games_it_played():
    """100 games, 40 of them saved by the interrupted run: the 60 played in 0.5 s are 120
    games a second, not 200."""
    summary = {**analyzer.summarize(_hand_run()), "games": 100}
    lines = format_summary(summary, {"games_resumed": 40, "compile_seconds": 1.5},
                           0.5).splitlines()
    assert "speed      120 games/s (0.50 s, plus 1.5 s to compile or load the engine)" in lines
    assert "resumed    40 games were saved by the interrupted run" in lines


def test_the_terminal_summary_gives_the_median_turns_beside_the_mean():
    """Four games of 10 turns and two of 40: a mean of 20, a median of 10."""
    df = _hand_run().assign(turns=[10, 10, 10, 10, 40, 40])
    line = next(line for line in format_summary(analyzer.summarize(df), df.attrs).splitlines()
                if line.startswith("turns"))
    assert line.startswith("turns      mean 20.0 (") and line.endswith(", median 10")
