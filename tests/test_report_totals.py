"""Reports of runs read from summary files (``--summary-only``): what their totals give,
the same as the rows would; what they cannot give, left out and said."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

import analyzer
from analyzer.analysis import run_stats
from analyzer.analysis.results_io import read_results, read_run
from analyzer.analysis.totals import Totals
from analyzer.errors import ResultsFileError, UrbionError
from tests.test_cli import run


@pytest.fixture(scope="module")
def same_run(tmp_path_factory):
    """One configuration played twice: kept as rows and as totals."""
    folder = tmp_path_factory.mktemp("same")
    rows, summary = folder / "rows.parquet", folder / "totals.json"
    analyzer.simulate(games=2500, seed=5, expansions="chromatic_chaos", out=rows)
    analyzer.simulate_summary(games=2500, seed=5, expansions="chromatic_chaos", out=summary)
    return read_results(rows), read_run(summary)


def test_a_summary_gives_the_figures_its_rows_give(same_run):
    """Headline, survival curve, loss reasons and Chaos choices of the totals are those of
    the same games' rows."""
    rows, totals = same_run
    assert isinstance(totals, Totals) and len(totals) == len(rows) == 2500
    from_rows = run_stats.headline({"run": rows})
    from_totals = run_stats.headline({"run": totals})
    pd.testing.assert_frame_equal(from_totals, from_rows, check_exact=False, rtol=1e-12)
    pd.testing.assert_series_equal(run_stats.survival(totals), run_stats.survival(rows))
    assert run_stats.loss_reasons(totals).to_dict() == run_stats.loss_reasons(rows).to_dict()
    assert run_stats.played_chromatic(totals) and run_stats.played_chromatic(rows)
    pd.testing.assert_series_equal(run_stats.chaos_choices(totals, True),
                                   run_stats.chaos_choices(rows, True))


def test_a_report_of_summaries_leaves_out_what_needs_each_game_and_says_so(tmp_path):
    """No margin, pacified-at-defeat or convergence chart, no pairing: the page says why,
    and the difference is Fisher's, from the two runs' counts."""
    base, postcards = tmp_path / "base.json", tmp_path / "postcards.json"
    analyzer.simulate_summary(games=3000, seed=2, out=base)
    analyzer.simulate_summary(games=3000, seed=2, expansions="postcards", out=postcards)
    out = analyzer.report([base, postcards], tmp_path / "rep")
    drawn = {path.stem for path in out.glob("*.png")}
    assert drawn == {"win_rates", "survival", "loss_reasons", "chaos_choices"}
    md = (out / "report.md").read_text()
    assert "Every run here was read from a summary file (--summary-only), or joined with " \
           "one, which keeps totals, not each game: the charts that need each game (margin " \
           "at victory, cities pacified at defeat, convergence of the estimate)" in md
    assert "read from a summary file (--summary-only), or joined with one, which keeps totals" in \
        (out / "index.html").read_text()
    counts = [json.loads(path.read_text())["tally"] for path in (postcards, base)]
    wins = [part["wins"][0] for part in counts]
    p = fisher_exact([[wins[0], 3000 - wins[0]], [wins[1], 3000 - wins[1]]]).pvalue
    row = next(line for line in md.splitlines()
               if line.startswith("| greedy / postcards / seed 2 | greedy / base / seed 2 |"))
    assert "| independent, 3,000 and 3,000 games |" in row and f"| {p:.3g} (Fisher) |" in row


def test_a_report_mixing_summaries_and_results_names_the_summaries(tmp_path, monkeypatch):
    """The charts of each game draw the results files' runs and list the summary's without
    a line, in the style it has in every chart; the note names the summary's run."""
    from analyzer.reporting import charts

    rows, summary = tmp_path / "emptiness.parquet", tmp_path / "base.json"
    analyzer.simulate(games=1500, seed=3, expansions="emptiness", out=rows)
    analyzer.simulate_summary(games=1500, seed=3, out=summary)
    legends = {}

    def recording(name):
        draw = getattr(charts, name)

        def drawing(runs, against=None):
            fig = draw(runs, against)
            legends[name] = [(line.get_label(), len(line.get_xdata()))
                             for line in fig.axes[0].get_lines()]
            return fig
        return drawing

    for name in ("margin_at_victory", "pacified_at_defeat", "convergence"):
        monkeypatch.setattr(charts, name, recording(name))
    out = analyzer.report([summary, rows], tmp_path / "rep")
    md = (out / "report.md").read_text()
    assert "The run greedy / base / seed 3 was read from a summary file (--summary-only)" in md
    assert (out / "convergence.png").exists() and (out / "margin_at_victory.png").exists()
    for name, lines in legends.items():
        assert lines[0] == (f"greedy / base / seed 3 ({charts.NO_GAMES})", 0), name
        assert lines[1][0].startswith("greedy / emptiness / seed 3") and lines[1][1] > 0, name
    assert "| greedy / emptiness / seed 3 | greedy / base / seed 3 |" in md
    assert "| independent, " in md


def test_a_join_of_huge_summaries_lists_no_game(tmp_path):
    """Pieces of a run of 10**12 games each: their ranges are compared, not their games
    listed (which would take terabytes)."""
    from analyzer.runner.tally import LAYOUT, empty_tally

    def piece(first):
        tally = empty_tally()
        tally[LAYOUT["games"]] = 10**12
        tally[LAYOUT["loss_reasons"].start] = 10**12
        return Totals(tally, {"seed": 0, "policy": "greedy", "first_game": first})

    runs = run_stats.join_pieces([(tmp_path / "b.json", piece(10**12)),
                                  (tmp_path / "a.json", piece(0))])
    assert len(runs) == 1 and len(runs[0][1]) == 2 * 10**12
    with pytest.raises(UrbionError, match="hold the same games"):
        run_stats.join_pieces([(tmp_path / "a.json", piece(0)),
                               (tmp_path / "c.json", piece(10**12 - 1))])


def test_a_run_that_lost_no_game_draws_its_charts():
    """Every game won: the loss-reason chart says so instead of failing to plot."""
    from analyzer.reporting import charts
    from analyzer.runner.tally import LAYOUT, empty_tally

    tally = empty_tally()
    tally[LAYOUT["games"]] = tally[LAYOUT["wins"]] = 3
    tally[LAYOUT["turns_hist"].start + 20] = 3
    fig = charts.loss_reasons({"won": Totals(tally, {"seed": 0})})
    assert "no game lost" in [text.get_text() for text in fig.axes[0].texts]
    rows = pd.DataFrame({"game": [0, 1], "won": [True, True], "turns": [20, 22],
                         "reason": ["", ""]})
    fig = charts.loss_reasons({"rows": rows})
    assert "no game lost" in [text.get_text() for text in fig.axes[0].texts]


def test_pieces_of_a_summary_run_are_joined_and_a_repeated_game_refused(tmp_path):
    """Summaries of consecutive games of one configuration add up to the whole run's; a
    summary beside a results file of the same games is a run compared with itself."""
    first, second, whole = (tmp_path / name for name in ("a.json", "b.json", "w.json"))
    analyzer.simulate_summary(games=700, seed=4, out=first)
    analyzer.simulate_summary(games=500, seed=4, first_game=700, out=second)
    analyzer.simulate_summary(games=1200, seed=4, out=whole)
    runs = run_stats.join_pieces([(path, read_run(path)) for path in (second, first)])
    assert len(runs) == 1
    joined = runs[0][1]
    assert joined.attrs["joined_files"] == 2 and len(joined) == 1200
    assert np.array_equal(joined.tally, read_run(whole).tally)
    rows = tmp_path / "rows.parquet"
    analyzer.simulate(games=300, seed=4, first_game=600, out=rows)
    with pytest.raises(UrbionError, match="hold the same games of one configuration"):
        analyzer.report([first, rows], tmp_path / "rep")


def _swap_turns(hist):
    """One game a turn longer and another a turn shorter: the sum of turns kept, the spread
    (the sum of squares) not."""
    busy = [turn for turn, count in enumerate(hist) if count >= 2][0]
    hist[busy] -= 2
    hist[busy - 1] += 1
    hist[busy + 1] += 1


def _broken(path, edit):
    document = json.loads(path.read_text())
    edit(document)
    return json.dumps(document)


@pytest.mark.parametrize("name, edit, message", [
    ("format", lambda d: d.update(format="urbion-summary/9"),
     "its format is 'urbion-summary/9', not 'urbion-summary/1'"),
    ("no_config", lambda d: d.pop("config"), "no run configuration"),
    ("short", lambda d: d["tally"]["turns_hist"].pop(), "its tally's turns_hist is missing"),
    ("negative", lambda d: d["tally"]["wins"].__setitem__(0, -1), "its tally's wins"),
    ("counts", lambda d: d["tally"]["wins"].__setitem__(0, d["tally"]["wins"][0] + 1),
     "its counts do not add up to its 200 games"),
    ("null_sum", lambda d: d["tally"]["sums"].__setitem__(0, None), "its tally's sums"),
    ("text_sum", lambda d: d["tally"]["sums"].__setitem__(0, "x"), "its tally's sums"),
    ("float_sum", lambda d: d["tally"]["sums"].__setitem__(0, 27.9), "its tally's sums"),
    ("huge", lambda d: d["tally"]["squares"].__setitem__(0, 2**63), "its tally's squares"),
    ("first_game", lambda d: d["config"].update(first_game="a"), "first_game"),
    # hand edits that contradict the rest of the file (the walk of a tester)
    ("turns_sum", lambda d: d["tally"]["sums"].__setitem__(0, -5), "its sum of turns"),
    ("turns_shifted", lambda d: d["tally"]["turns_hist"].__setitem__(
        slice(None), [0] * 5 + d["tally"]["turns_hist"][:-5]), "its sum of turns"),
    ("squares", lambda d: d["tally"]["squares"].__setitem__(1, 0), "its sum of pacified"),
    ("no_cities", lambda d: d["tally"]["pacified_hist"].__setitem__(
        slice(None), [0] * 64), "its counts do not add up"),
    ("city_cards", lambda d: d["config"].update(city_cards=0), "city_cards"),
    ("few_cities", lambda d: d["config"].update(city_cards=1), "its sum of pacified"),
    ("expansions", lambda d: d["config"].update(expansions="chromatic_chaos"), "expansions"),
    ("unknown", lambda d: d["config"].update(expansions=["nonsense"]), "expansions"),
    ("variant", lambda d: d["config"].update(variant="trio"), "variant"),
    ("policy", lambda d: d["config"].update(policy=None), "policy"),
    ("seed", lambda d: d["config"].update(seed="nine"), "seed"),
    ("negative_seed", lambda d: d["config"].update(seed=-1), "seed"),
    ("seconds", lambda d: d["config"].update(seconds="abc"), "seconds"),
    ("games_resumed", lambda d: d["config"].update(games_resumed="x"), "games_resumed"),
    ("tuned_for", lambda d: d["config"].update(policy_tuned_for={
        "card_set": "x", "card_set_sha256": "y", "expansions": [1, 2], "variant": "solo"}),
     "policy_tuned_for"),
    ("tuned_for_text", lambda d: d["config"].update(policy_tuned_for="books"),
     "policy_tuned_for"),
    ("no_reason", lambda d: (d["tally"]["wins"].__setitem__(0, d["tally"]["wins"][0] - 1),
                             d["tally"]["loss_reasons"].__setitem__(0, 1)),
     "lost for no reason"),
    ("same_sum_other_spread", lambda d: _swap_turns(d["tally"]["turns_hist"]),
     "its sum of turns"),
    ("beyond_cities", lambda d: (d["tally"]["pacified_hist"].__setitem__(12, d["tally"][
        "pacified_hist"][12] - 1), d["tally"]["pacified_hist"].__setitem__(13, 1),
        d["tally"]["sums"].__setitem__(1, d["tally"]["sums"][1] + 1),
        d["tally"]["squares"].__setitem__(1, d["tally"]["squares"][1] + 13**2 - 12**2)),
     "its sum of pacified"),
    # losses no game of the run ends with, once reported without a word
    ("lost_all_pacified", lambda d: (d["tally"]["wins"].__setitem__(0, d["tally"]["wins"][0]
                                                                     - 1),
                                     d["tally"]["loss_reasons"].__setitem__(1, 1)),
     "it counts 1 game lost with reason all_pacified"),
    ("emptiness_base", lambda d: (d["tally"]["loss_reasons"].__setitem__(2, d["tally"][
        "loss_reasons"][2] - 2), d["tally"]["loss_reasons"].__setitem__(3, 2)),
     "it counts 2 games lost with reason emptiness"),
    ("won_as_lost", lambda d: (d["tally"]["wins"].__setitem__(0, d["tally"]["wins"][0] - 1),
                               d["tally"]["loss_reasons"].__setitem__(2, d["tally"][
                                   "loss_reasons"][2] + 1)),
     "its games with all 12 City cards pacified are not the"),
    ("past_last_game", lambda d: d["config"].update(first_game=2**63 - 100),
     "its games from 9,223,372,036,854,775,708 pass 2**63 - 1"),
])
def test_a_damaged_summary_is_one_line_and_no_folder(tmp_path, capsys, name, edit, message):
    good = tmp_path / "good.json"
    analyzer.simulate_summary(games=200, seed=1, out=good)
    bad = tmp_path / f"{name}.json"
    bad.write_text(_broken(good, edit))
    code, out, err = run(capsys, "report", str(bad), "--out", str(tmp_path / "rep"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err, err
    assert not (tmp_path / "rep").exists()
    with pytest.raises(ResultsFileError):
        read_run(bad)


def test_a_summary_keeps_its_cards_for_the_report(tmp_path):
    """A designer's summary shows the cards it was played with, though the file is gone."""
    cards = tmp_path / "mine.toml"
    analyzer.write_card_template(cards)
    cards.write_text(cards.read_text().replace('name = "R14-default"', 'name = "mine"')
                     .replace("count = 8\nvalue = 5", "count = 6\nvalue = 5"))
    summary = tmp_path / "mine.json"
    analyzer.simulate_summary(games=200, seed=1, cards=cards, out=summary)
    cards.unlink()
    out = analyzer.report([summary], tmp_path / "rep")
    md = (out / "report.md").read_text()
    assert "## Card sets" in md and "cannot be shown" not in md


def test_a_summary_with_a_byte_order_mark_is_read(tmp_path):
    """Saved by an editor that marks UTF-8: still the summary, not a Parquet complaint."""
    plain = tmp_path / "plain.json"
    analyzer.simulate_summary(games=100, seed=1, out=plain)
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert np.array_equal(read_run(marked).tally, read_run(plain).tally)


def test_a_summary_named_in_capitals_is_read_as_a_summary(tmp_path):
    """.JSON is .json: a marked summary so named is its totals, and an emptied one is named
    as no summary, not as a Parquet file."""
    plain = tmp_path / "plain.json"
    analyzer.simulate_summary(games=100, seed=1, out=plain)
    marked = tmp_path / "MARKED.JSON"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    totals = read_run(marked)
    assert isinstance(totals, Totals) and len(totals) == 100
    emptied = tmp_path / "EMPTIED.JSON"
    emptied.write_bytes(b"")
    with pytest.raises(ResultsFileError, match="is not an urbion summary file"):
        read_run(emptied)


def test_a_summary_read_as_a_results_file_is_named_as_a_summary(tmp_path):
    """read_results wants rows: a summary file is refused as what it is, a --summary-only
    run's totals, not as some file that is not Parquet."""
    summary = tmp_path / "totals.json"
    analyzer.simulate_summary(games=100, seed=1, out=summary)
    with pytest.raises(ResultsFileError, match=r"^cannot read results file .*totals\.json: "
                       r"it is the summary of a --summary-only run \(simulate_summary in "
                       r"Python\), which keeps no rows per game$"):
        analyzer.read_results(summary)


def test_consecutive_pieces_join_across_a_gap_and_across_kinds(tmp_path):
    """Games 0-699 kept as totals and 700-1199 as rows are one run of 1,200 games, its
    tally that of the whole run; games 1500-1799 after the gap stay a run of their own."""
    first, rows, later, whole = (tmp_path / name for name in
                                 ("a.json", "b.parquet", "c.json", "whole.json"))
    analyzer.simulate_summary(games=700, seed=8, out=first)
    analyzer.simulate(games=500, seed=8, first_game=700, out=rows)
    analyzer.simulate_summary(games=300, seed=8, first_game=1500, out=later)
    analyzer.simulate_summary(games=1200, seed=8, out=whole)
    runs = run_stats.join_pieces([(path, read_run(path)) for path in (later, rows, first)])
    assert [len(run) for _, run in runs] == [300, 1200]
    joined = runs[1][1]
    assert isinstance(joined, Totals) and joined.attrs["joined_files"] == 2
    assert np.array_equal(joined.tally, read_run(whole).tally)
    # rows alone chain the same way: games 0-399 and 400-699 join, 900-999 does not
    parts = [tmp_path / f"r{n}.parquet" for n in range(3)]
    for path, (first_game, games) in zip(parts, ((0, 400), (400, 300), (900, 100)),
                                         strict=True):
        analyzer.simulate(games=games, seed=8, first_game=first_game, out=path)
    runs = run_stats.join_pieces([(path, read_results(path)) for path in parts])
    assert [len(run) for _, run in runs] == [700, 100]
    assert runs[0][1]["game"].tolist() == list(range(700))


@pytest.mark.parametrize("content", [b"", b"null", b"[]", b'"x"', b"\xef\xbb\xbf"])
def test_an_empty_or_other_json_file_is_named_as_no_summary(tmp_path, capsys, content):
    """A .json file is a summary or nothing: not a Parquet reader's complaint."""
    path = tmp_path / "emptied.json"
    path.write_bytes(content)
    code, _, err = run(capsys, "report", str(path), "--out", str(tmp_path / "rep"))
    assert code == 2 and err.count("\n") == 1
    assert "is not an urbion summary file" in err and "Parquet" not in err, err


def test_a_report_of_summaries_has_no_section_asking_for_what_they_cannot_give(tmp_path):
    """Base, singles and the pair as summaries: the interactions need each game, which the
    note at the top says; no section below asks for the very files given."""
    paths = []
    for expansions in (None, "chromatic_chaos", "books", "chromatic_chaos,books"):
        paths.append(tmp_path / f"{expansions or 'base'}.json")
        analyzer.simulate_summary(games=200, seed=1, expansions=expansions, out=paths[-1])
    md = (analyzer.report(paths, tmp_path / "rep") / "report.md").read_text()
    assert "Pairwise interactions" not in md
    assert "and the pairwise interactions are left out" in md


def test_a_results_file_named_json_is_still_read_as_results(tmp_path):
    """A Parquet file saved under .json is read for what it is."""
    rows = tmp_path / "rows.parquet"
    analyzer.simulate(games=50, seed=1, out=rows)
    misnamed = tmp_path / "rows.json"
    misnamed.write_bytes(rows.read_bytes())
    assert read_run(misnamed)["won"].tolist() == read_results(rows)["won"].tolist()


def test_a_policy_without_a_name_is_refused():
    """Every result names its policy: a nameless PolicySpec would write a summary no report
    reads back."""
    import dataclasses

    from analyzer.policies.registry import resolve_policy

    nameless = dataclasses.replace(resolve_policy("greedy"), name=" ")
    with pytest.raises(UrbionError, match="PolicySpec needs a name"):
        analyzer.simulate_summary(games=5, policy=nameless)
    # the arguments in another order: the name is a function, which the error says
    spec = resolve_policy("greedy")
    swapped = dataclasses.replace(spec, name=spec.func, func="greedy")
    with pytest.raises(UrbionError, match=r"PolicySpec needs a name \(it names the policy in "
                                          r"every result\), not .*: PolicySpec\(NAME, "
                                          r"FUNCTION, PARAMS\)$"):
        analyzer.simulate_summary(games=5, policy=swapped)


def test_many_pieces_join_and_an_overlap_among_them_names_its_pair(tmp_path):
    """A comparison run to a precision leaves a hundred pieces or more of a set: they join
    into one run, and a piece that repeats games of one of them is named with it."""
    from analyzer.runner.tally import LAYOUT, empty_tally

    def piece(first, games=10**6):
        tally = empty_tally()
        tally[LAYOUT["games"]] = tally[LAYOUT["loss_reasons"].start + 2] = games
        return Totals(tally, {"seed": 0, "policy": "greedy", "first_game": first})

    pieces = [(tmp_path / f"p{n}.json", piece(n * 10**6)) for n in range(200)][::-1]
    runs = run_stats.join_pieces(pieces)
    assert len(runs) == 1 and len(runs[0][1]) == 200 * 10**6
    assert runs[0][1].attrs["joined_files"] == 200
    repeat = (tmp_path / "again.json", piece(120 * 10**6 + 5, games=10))
    with pytest.raises(UrbionError, match=r"p120\.json and .*again\.json hold the same games "
                                          r"of one configuration \(10 games from game "
                                          r"120000005 of seed 0"):
        run_stats.join_pieces([*pieces, repeat])


def test_a_summary_joined_from_pieces_given_last_first_starts_at_the_first_game():
    """Games 700-999 and 0-699 as two tallies, the later given first: one run of games
    0-999, which took the two pieces' seconds together."""
    from analyzer.analysis.totals import joined_totals
    from analyzer.runner.tally import empty_tally, part

    def piece(first, games, seconds):
        tally = empty_tally()
        part(tally, "games")[0] = games
        return Totals(tally, {"seed": 8, "first_game": first, "games": games,
                              "seconds": seconds, "games_resumed": 0})

    joined = joined_totals([piece(700, 300, 2.5), piece(0, 700, 4.0)])
    assert len(joined) == 1000 and joined.games_range == (0, 1000)
    assert joined.attrs["first_game"] == 0 and joined.attrs["games"] == 1000
    assert joined.attrs["seconds"] == 6.5 and joined.attrs["joined_files"] == 2
