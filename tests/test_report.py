"""Balance reports: every chart written and linked, a self-contained page, one card set."""

from __future__ import annotations

import html
import io
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.analysis import run_stats
from analyzer.analysis.stats import format_p, holm_adjust, mcnemar_exact
from analyzer.errors import UrbionError
from analyzer.reporting.balance_report import CHARTS, load_runs
from tests.test_cli import run


def drawn(fig):
    """Lay ``fig`` out and draw it as a PNG would be; return the renderer, which measures
    where each text landed. The charts are plain Figures, so the Agg canvas is attached
    here."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


TINY_CARDS = Path(__file__).resolve().parents[1] / "analyzer" / "cards" / "r14-default.toml"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    paths = []
    for policy in ("greedy", "random"):
        path = folder / f"{policy}.parquet"
        analyzer.simulate(games=3000, seed=5, policy=policy, out=path)
        paths.append(path)
    return paths


def test_report_writes_every_chart_and_links_only_files_that_exist(results, tmp_path):
    out = analyzer.report(results, tmp_path / "rep")
    for stem, _, _ in CHARTS:
        assert (out / f"{stem}.png").stat().st_size > 1000
        assert (out / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
    md = (out / "report.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", md)
    # PNG, SVG and the chart's numbers (CSV), and the differences' numbers
    assert len(links) == 3 * len(CHARTS) + 1
    assert all((out / link).is_file() for link in links)
    assert "greedy / base / seed 5" in md and "random / base / seed 5" in md
    assert "sha256" in md and "rules version" in md


def test_the_page_is_self_contained_with_the_headline_table(results, tmp_path):
    out = analyzer.report(results, tmp_path / "rep")
    page = (out / "index.html").read_text()
    assert page.count("src='data:image/png;base64,") == len(CHARTS)
    # nothing fetched from outside: the page shows whole on its own; its links lead to the
    # files beside it (each chart's numbers and SVG)
    assert not re.search(r"src=['\"](?!data:)", page)
    links = re.findall(r"href='([^']+)'", page)
    assert len(links) == 2 * len(CHARTS) + 1  # each chart's CSV and SVG, the differences'
    assert all((out / link).is_file() for link in links)
    headline = page[page.index("<table id='headline'>"):]
    greedy = analyzer.simulate(games=3000, seed=5, policy="greedy")
    assert f"{greedy['won'].mean():.2%}" in headline


def test_the_pages_say_whose_play_and_which_cards_the_figures_are_of(results, tmp_path):
    """One player's figures on an assumed card list are not the printed game's: the pages
    name the policies and card sets above the first table."""
    out = analyzer.report(results, tmp_path / "rep")
    md = (out / "report.md").read_text()
    scope = md[:md.index("## Headline")]
    assert "each run's policy (greedy, random) playing the R14-default card set" in scope
    assert "R14-default is an assumed card list" in scope
    page = (out / "index.html").read_text()
    assert page.index("<p id='scope'>Every figure here is of each run") < page.index(
        "<table id='headline'>")
    lone = (analyzer.report(results[:1], tmp_path / "lone") / "report.md").read_text()
    assert "Every figure here is of the greedy policy playing the R14-default card set" in lone


def test_every_chart_of_the_page_can_be_read_without_seeing_it(results, tmp_path):
    """A reader who cannot see a chart (a screen reader, images off, a copied page without
    the CSV files beside it) finds its numbers in a table on the page: every value of
    STEM.csv, shares in %; and the SVG keeps its words as text."""
    from html.parser import HTMLParser

    out = analyzer.report(results, tmp_path / "rep")
    page = (out / "index.html").read_text()

    class Tables(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.current, self.row = {}, None, None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.current = self.tables.setdefault(dict(attrs).get("id"), [])
            elif tag == "tr" and self.current is not None:
                self.row = []
                self.current.append(self.row)

        def handle_endtag(self, tag):
            if tag == "table":
                self.current = None

        def handle_data(self, data):
            if self.row is not None and self.current is not None:
                self.row.append(data)

    parser = Tables()
    parser.feed(page)
    texts = {"loss_reasons": "loss_reasons-table", "win_rates": "headline"}
    for stem, _, _ in CHARTS:
        table = parser.tables[texts.get(stem, f"{stem}-numbers")]
        assert len(table) > 1, stem
        if stem in texts:
            continue
        # the card set of each run is the page's provenance, not a column of its tables
        csv = pd.read_csv(out / f"{stem}.csv")
        assert set(csv["card_set_sha256"]) == {pd.read_parquet(path).attrs["card_set_sha256"]
                                               for path in results}
        csv = csv.drop(columns=["card_set", "card_set_sha256"])
        assert len(table) == len(csv) + 1, stem  # the header, then every row
        for (_, expected), cells in zip(csv.iterrows(), table[1:], strict=True):
            assert cells[0] == expected["run"]
            for column, cell in zip(csv.columns[1:], cells[1:], strict=True):
                if isinstance(expected[column], str):
                    assert cell == expected[column]
                    continue
                value = float(cell.rstrip("%").replace(",", ""))
                wanted = expected[column] * (100 if cell.endswith("%") else 1)
                assert value == pytest.approx(wanted, rel=1e-3, abs=0.006), (stem, column)
    assert "running (%)" in page  # a share's column says it is one
    assert page.count("<details>") == len(CHARTS) - 2
    # the win rates' numbers are the headline table's: the alternative text says so and
    # what the chart finds, not a file that may not travel with the page
    import html
    import re

    alt = html.unescape(re.findall(r"alt='([^']*)'", page)[0])
    header, *rows = parser.tables["headline"]
    rates = {row[0]: row[header.index("win rate")] for row in rows}
    best = max(rates, key=lambda run: float(rates[run].rstrip("%")))
    assert f"highest {best} ({rates[best]})" in alt and "headline table above" in alt
    assert ".csv" not in alt
    svg = (out / "survival.svg").read_text()
    assert "<text" in svg and "Games still running" in svg


def test_the_differences_say_what_a_pp_is(results, tmp_path):
    """A difference of -9.30 pp beside win rates in % reads as -9.30% unless told."""
    out = analyzer.report(results, tmp_path / "rep")
    for name in ("report.md", "index.html"):
        text = (out / name).read_text()
        assert "pp" in text.split("Provenance")[0] and "percentage points (pp)" in text, name


def test_a_chart_of_card_counts_ticks_whole_cards():
    """Counts from 0 to 17, where matplotlib's own ticks would read 2.5, 7.5, ..."""
    from analyzer.reporting import charts

    counts = np.arange(18)
    lost = {"r": pd.DataFrame({"won": False, "pacified": counts, "deck_left": counts})}
    won = {"r": lost["r"].assign(won=True)}
    for draw, runs in ((charts.pacified_at_defeat, lost), (charts.margin_at_victory, won)):
        ticks = draw(runs).axes[0].get_xticks()
        assert len(ticks) > 2 and all(float(t).is_integer() for t in ticks), draw.__name__


def test_a_win_rate_of_zero_is_written_beside_its_missing_bar(tmp_path):
    """random wins no game: its row has no bar, and the chart says 0.00%, not nothing."""
    from analyzer.reporting import charts

    table = pd.DataFrame({"win_rate": [0.09, 0.0], "ci_low": [0.08, 0.0],
                          "ci_high": [0.10, 0.0019]}, index=["greedy", "random"])
    texts = [t.get_text() for t in charts.win_rates(table).axes[0].texts]
    assert texts == ["9.00%", "0.00%"]


def test_every_chart_says_what_it_shows_under_its_title(results, tmp_path):
    from analyzer.reporting.balance_report import CHART_CAPTIONS

    out = analyzer.report(results, tmp_path / "rep")
    md = (out / "report.md").read_text()
    page = (out / "index.html").read_text()
    for stem, title, _ in CHARTS:
        caption = CHART_CAPTIONS[stem]
        assert len(caption) > 40, stem
        section = md[md.index(f"## {title}\n"):md.index(f"]({stem}.png)")]
        assert caption in section, stem
        assert (f"<h2>{title}</h2><figure><figcaption>{html.escape(caption)}</figcaption>"
                "<img") in page, stem
    # a lone run has no differences table for the win-rate caption to send a reader to
    lone = (analyzer.report(results[:1], tmp_path / "lone") / "report.md").read_text()
    assert "Each run's share of games won" in lone and "differences table" not in lone


def test_a_curve_drawn_under_another_says_so_in_the_legend():
    """greedy keeps no Book, so books plays the base game's very games: its survival and
    convergence curves lie exactly under the base game's, which the legend must say."""
    from analyzer.reporting import charts

    runs = {"base": analyzer.simulate(games=300, seed=3),
            "books": analyzer.simulate(games=300, seed=3, expansions="books"),
            "chromatic": analyzer.simulate(games=300, seed=3, expansions="chromatic_chaos")}
    for draw in (charts.survival, charts.convergence):
        fig = draw(runs)
        legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert legend == ["base", "books\n(the curve of base, under it)", "chromatic"], draw
    for draw in (charts.margin_at_victory, charts.pacified_at_defeat):
        fig = draw(runs)
        legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert legend[1].startswith("books (") and \
            legend[1].endswith(")\n(the line of base, under it)"), draw
        assert "under it" not in legend[0] + legend[2], draw


def test_a_report_replaces_an_earlier_one_in_place(results, tmp_path):
    out = tmp_path / "rep"
    analyzer.report(results[:1], out)
    analyzer.report(results, out)
    assert "random / base" in (out / "report.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_a_designer_puts_two_card_sets_side_by_side(results, tmp_path):
    other_cards = tmp_path / "other.toml"
    other_cards.write_text(TINY_CARDS.read_text().replace('name = "R14-default"',
                                                          'name = "what-if"'))
    other = tmp_path / "other.parquet"
    analyzer.simulate(games=50, seed=1, cards=other_cards, out=other)
    same = tmp_path / "same.parquet"
    analyzer.simulate(games=50, seed=1, out=same)
    analyzer.report([same, other], tmp_path / "rep")
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "card set R14-default" in md and "card set what-if" in md
    assert "**card sets**: R14-default (sha256 " in md and "; what-if (sha256 " in md
    # what the second run changes, and that alone: R14's cards under another name
    assert " | card set name or order | " in md


def test_a_run_that_changes_two_things_at_once_says_so(tmp_path):
    """A designer's card set played with another policy and an expansion beside R14 with
    greedy: the difference mixes three changes, which the table must not let pass for the
    card change's."""
    from analyzer.reporting.differences import configuration_changes

    mine, renamed = tmp_path / "mine.toml", tmp_path / "renamed.toml"
    analyzer.write_card_template(renamed)
    text = renamed.read_text().replace('name = "R14-default"', 'name = "mine"')
    renamed.write_text(text)
    chaos = text.index("[dreams.chaos]")
    mine.write_text(text[:chaos] + text[chaos:].replace("count = 8", "count = 6", 1))
    analyzer.simulate(games=40, seed=1, out=tmp_path / "r14.parquet")
    analyzer.simulate(games=40, seed=1, cards=mine, policy="random",
                      expansions="chromatic_chaos", out=tmp_path / "mine.parquet")
    analyzer.simulate(games=40, seed=1, cards=renamed, policy="random",
                      out=tmp_path / "renamed.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "mine.parquet"],
                          tmp_path / "rep") / "report.md").read_text()
    assert "| policy + card set + expansions (3 at once) | " in md
    assert "belongs to no one of them" in md
    base = {"policy": "greedy", "expansions": ["books", "postcards"], "seed": 1}
    assert configuration_changes({**base, "expansions": ["postcards", "books"]}, base) == \
        "none"
    # the same game on other deals: no cause to name
    assert configuration_changes({**base, "seed": 2, "engine": "reference"}, base) == \
        "seed + engine (other deals only: chance)"
    assert configuration_changes({**base, "seed": 2}, base) == \
        "seed (other deals only: chance)"
    # the same seed's other games (--first-game), or some of the same
    games = {**base, "games": 100, "first_game": 0}
    assert configuration_changes({**games, "first_game": 100}, games) == \
        "games (other deals only: chance)"
    assert configuration_changes({**games, "first_game": 99}, games) == "none"
    # the other engine on the seed's other games: the deals differ, not the engines
    assert configuration_changes({**games, "first_game": 100, "engine": "reference"},
                                 {**games, "engine": "fast"}) == \
        "games + engine (other deals only: chance)"
    assert configuration_changes({**games, "first_game": 50, "engine": "reference"},
                                 {**games, "engine": "fast"}) == "engine"
    assert configuration_changes({**games, "first_game": 100}, {**base, "games": None}) == \
        "none"  # a file that does not say how many games it played
    assert configuration_changes({**base, "seed": 2, "policy": "random"}, base) == \
        "policy + seed"
    assert configuration_changes({**base, "policy_params_sha256": "x", "variant": "team"},
                                 base) == "policy + variant (2 at once)"
    # a file of a version before the expansions and the team game: the base game, solo
    old = {"policy": "greedy", "seed": 1}
    assert configuration_changes({**old, "expansions": [], "variant": "solo"}, old) == "none"
    # R14 renamed, played by another policy: one cause, not two
    r14, renamed = (pd.read_parquet(tmp_path / name).attrs for name in ("r14.parquet",
                                                                       "renamed.parquet"))
    assert configuration_changes(renamed, r14) == "policy + card set name or order"


def test_a_report_of_several_runs_gives_each_ones_difference_from_the_first(results,
                                                                           tmp_path):
    """greedy and random played the same games of seed 5: paired; a run of another seed is
    an independent sample. Overlapping win-rate intervals do not make two runs alike."""
    other_seed = tmp_path / "seed6.parquet"
    analyzer.simulate(games=2000, seed=6, policy="greedy", out=other_seed)
    out = analyzer.report([*results, other_seed], tmp_path / "rep")
    md = (out / "report.md").read_text()
    section = md[md.index("## Differences from the first run"):].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows[0] == ("| run | against | changes | win rates compared | difference | "
                       "95% interval | compared | p (test) | Holm p |")
    greedy = pd.read_parquet(results[0])
    rand = pd.read_parquet(results[1])
    seed6 = pd.read_parquet(other_seed)
    only_greedy = int((greedy["won"] & ~rand["won"]).sum())
    assert "| random / base / seed 5 | greedy / base / seed 5 | policy | " in rows[1]
    assert "| greedy / base / seed 6 | greedy / base / seed 5 | seed (other deals only: " \
        "chance) | " in rows[2]
    assert f"| 0.00% vs {greedy['won'].mean():.2%} |" in rows[1]
    assert f"-{greedy['won'].mean() * 100:.2f} pp" in rows[1]
    assert "paired, 3,000 games" in rows[1]
    assert f"| {mcnemar_exact(0, only_greedy):.3g} (McNemar) |" in rows[1]
    # another seed: independent samples, Fisher's exact test of the two whole runs
    from scipy.stats import fisher_exact

    wins, first_wins = int(seed6["won"].sum()), int(greedy["won"].sum())
    fisher = fisher_exact([[wins, 2000 - wins], [first_wins, 3000 - first_wins]]).pvalue
    assert "| greedy / base / seed 6 |" in rows[2]
    assert "| independent, 2,000 and 3,000 games |" in rows[2]
    assert f"| {fisher:.3g} (Fisher) |" in rows[2]
    page = (out / "index.html").read_text()
    assert "<table id='differences'>" in page and "paired, 3,000 games" in page
    lone = analyzer.report(results[:1], tmp_path / "lone")
    assert "Differences from the first run" not in (lone / "report.md").read_text()


def test_baseline_base_ranks_a_run_that_kept_no_book_as_not_weighed(tmp_path):
    """Greedy keeps no Book: its Books run plays its base game's games, and the ranking
    called that "no difference shown", a verdict on the Books, where a comparison's own
    page says they were not weighed."""
    paths = []
    for expansions in ("none", "books", "chromatic_chaos"):
        paths.append(tmp_path / f"{expansions}.parquet")
        analyzer.simulate(games=300, seed=3, expansions=expansions, out=paths[-1])
    md = (analyzer.report(paths, tmp_path / "rep", baseline="base") / "report.md").read_text()
    ranking = md[md.index("| order |"):].split("\n\n")[0].splitlines()
    books = next(line for line in ranking if "| books " in line)
    assert "(1.00x the wins; not weighed, no Book of Power kept)" in books, books
    chromatic = next(line for line in ranking if "| chromatic_chaos " in line)
    assert "not weighed" not in chromatic


def _two_comparisons(folder: Path) -> list[Path]:
    """Two policies' comparisons of the base game and Chromatic Chaos on the same games,
    given out of order: greedy's Chromatic Chaos, random's base game, greedy's, random's
    Chromatic Chaos."""
    paths = []
    for expansions, policy in (("chromatic_chaos", "greedy"), ("none", "random"),
                               ("none", "greedy"), ("chromatic_chaos", "random")):
        path = folder / f"{policy}-{expansions}.parquet"
        analyzer.simulate(games=600, seed=3, policy=policy, expansions=expansions, out=path)
        paths.append(path)
    return paths


def test_baseline_base_weighs_each_run_against_its_own_base_game(tmp_path):
    """A reviewer's two comparisons in one report: each policy's expansion against that
    policy's base game, whatever the files' order, as a report of those two runs alone
    gives it, instead of random's Chromatic Chaos against greedy's (two changes at once)."""
    paths = _two_comparisons(tmp_path)
    out = analyzer.report(paths, tmp_path / "rep", baseline="base")
    table = pd.read_csv(out / "differences.csv", index_col="run")
    labels = {"greedy": "greedy / base / seed 3", "random": "random / base / seed 3"}
    assert table["against"].to_dict() == {
        "greedy / chromatic_chaos / seed 3": labels["greedy"],
        "random / chromatic_chaos / seed 3": labels["random"]}
    assert set(table["changes"]) == {"expansions"}
    # a file quoted alone says whose games each row is
    assert table["policy"].to_dict() == {"greedy / chromatic_chaos / seed 3": "greedy",
                                         "random / chromatic_chaos / seed 3": "random"}
    assert set(table["expansions"]) == {"chromatic_chaos"}
    for policy, base, chromatic in (("greedy", paths[2], paths[0]),
                                    ("random", paths[1], paths[3])):
        pair = run_stats.differences(load_runs([base, chromatic]))
        row = table.loc[f"{policy} / chromatic_chaos / seed 3"]
        for column in ("games", "win_rate", "against_rate", "difference", "low", "high", "p"):
            assert row[column] == pytest.approx(pair[column].iloc[0], abs=0, rel=1e-12)
    md = (out / "report.md").read_text()
    section = md[md.index("## Differences from each run's own base game"):].split("\n## ")[0]
    assert "played alike but for the expansions" in section
    # random wins no game of either: its row is no finding, and says so
    random_row = next(line for line in section.splitlines()
                      if line.startswith("| random / chromatic_chaos"))
    assert "no game won by one run only: no test" in random_row
    # greedy's row is the one test Holm adjusts over, and the notes say how many
    assert "over every comparison in this table that can reject (1 test)" in section
    ranking = section[section.index("| order |"):].splitlines()
    assert ranking[0] == f"| order | {labels['greedy']} | {labels['random']} |"
    greedy = table.loc["greedy / chromatic_chaos / seed 3"]
    ratio = greedy["win_rate"] / greedy["against_rate"]
    assert ratio > 1.5  # Chromatic Chaos helps greedy: shown, with how many times the wins
    assert ranking[2].startswith(f"| 1 | chromatic_chaos {greedy['difference'] * 100:+.2f} pp "
                                 f"({ratio:.2f}x the wins) |")
    # random's base game wins none: no ratio
    assert ranking[2].endswith("| chromatic_chaos +0.00 pp (no difference shown) |")
    assert "Differences from each run&#x27;s own base game" in \
        (out / "index.html").read_text()
    # two comparisons' runs, neither with pairs: what interactions would need
    assert "these runs are of 2 such configurations, and none holds them all (`urbion " \
        "compare --sets pairs --out DIR` writes them)" in md
    # the default still weighs every run against the first
    from analyzer.reporting.differences import compared_runs

    first = compared_runs(load_runs(paths), "first")
    assert set(first.table["against"]) == {"greedy / chromatic_chaos / seed 3"}
    assert first.changes["random / base / seed 3"] == "policy + expansions (2 at once)"


def test_baseline_base_finds_the_base_game_played_alike_but_for_the_expansions():
    """greedy reads its largest Sognae and Incubi from the cards in play, so its
    parameters' hash differs with an expansion: the same policy all the same. Another seed,
    variant or card set is not that run's base game: such a run is listed, not compared."""
    from analyzer.reporting.differences import baselines_of, differences_heading, unmatched_runs

    def run(**attrs: object) -> pd.DataFrame:
        frame = pd.DataFrame({"game": [0], "won": [False]})
        frame.attrs = {"policy": "greedy", "policy_params_sha256": "a",
                       "policy_weights_sha256": "w", "seed": 1, "expansions": [],
                       "card_set_sha256": "r14", **attrs}
        return frame

    runs = {"books": run(expansions=["books"], policy_params_sha256="b"),
            "base": run(), "random": run(policy="random", policy_weights_sha256="r"),
            "random books": run(policy="random", policy_weights_sha256="r",
                                expansions=["books"]),
            "team books": run(expansions=["books"], variant="team"),
            "seed 2 books": run(expansions=["books"], seed=2),
            "mine books": run(expansions=["books"], card_set_sha256="mine")}
    against = baselines_of(runs, "base")
    assert against == {"books": "base", "random books": "random"}
    unmatched = unmatched_runs(runs, against)
    assert unmatched == ["team books", "seed 2 books", "mine books"]
    _, notes = differences_heading("base", 2, unmatched)
    assert "Not compared, with no base game of their own among the runs: team books, seed 2 " \
        "books and mine books." in notes
    assert baselines_of(runs, "first") == {label: "books" for label in list(runs)[1:]}


def test_baseline_base_picks_the_base_game_sharing_the_most_games_whatever_the_order():
    """Two base games of one configuration on other game numbers (not joined: a gap
    between them): a run is paired with the one that played its games, in either order, and
    the other is named as compared with nothing."""
    from analyzer.reporting.differences import baselines_of, differences_heading, idle_bases

    def run(first: int, **attrs: object) -> pd.DataFrame:
        frame = pd.DataFrame({"game": np.arange(first, first + 10), "won": False})
        frame.attrs = {"policy": "greedy", "policy_params_sha256": "a",
                       "policy_weights_sha256": "w", "seed": 5, "expansions": [], **attrs}
        return frame

    early, late = run(0), run(1000)
    chromatic = run(1000, expansions=["chromatic_chaos"], policy_params_sha256="b")
    for runs in ({"early": early, "late": late, "x": chromatic},
                 {"late": late, "early": early, "x": chromatic}):
        against = baselines_of(runs, "base")
        assert against == {"x": "late"}
        assert idle_bases(runs, against) == ["early"]
        _, notes = differences_heading("base", 1, [], idle_bases(runs, against))
        assert notes[1] == "Base games no run is compared with: early."
    # sharing no game with either, it takes the first given
    elsewhere = run(5000, expansions=["chromatic_chaos"], policy_params_sha256="b")
    assert baselines_of({"late": late, "early": early, "x": elsewhere}, "base") == \
        {"x": "late"}


def test_baseline_base_without_a_base_game_to_compare_with_is_one_line(tmp_path, capsys):
    paths = _two_comparisons(tmp_path)
    mixed = [paths[0], paths[1]]  # greedy's Chromatic Chaos, random's base game
    code, _, err = run(capsys, "report", *map(str, mixed), "--baseline", "base", "--out",
                       str(tmp_path / "rep"))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("urbion: error: --baseline (baseline=) base: no run that plays "
                          "expansions has its base game among the runs")
    assert not (tmp_path / "rep").exists()
    code, _, err = run(capsys, "report", *map(str, mixed), "--baseline", "each", "--out",
                       str(tmp_path / "rep"))
    # as the Python API words it, below
    assert code == 2 and err == ("urbion: error: --baseline (baseline=): unknown baseline "
                                 "'each' (valid: first, base)\n")
    with pytest.raises(UrbionError, match=r"^--baseline \(baseline=\): unknown baseline "
                                          r"'each' \(valid: first, base\)$"):
        analyzer.report(mixed, tmp_path / "rep", baseline="each")
    # in any case, as the command takes it: the same one-line error as "base"
    with pytest.raises(UrbionError, match=r"^--baseline \(baseline=\) base: no run that "):
        analyzer.report(mixed, tmp_path / "rep", baseline="BASE")
    # None is the default, as for every optional argument
    none = pd.read_csv(analyzer.report(mixed, tmp_path / "none", baseline=None)
                       / "differences.csv")
    assert list(none["against"]) == ["greedy / chromatic_chaos / seed 3"]
    # one run alone has nothing to be compared with, whatever the baseline
    lone = analyzer.report(paths[:1], tmp_path / "lone", baseline="base")
    assert not (lone / "differences.csv").exists()


def _games_won(won: np.ndarray, first: int = 0, **attrs: object) -> pd.DataFrame:
    frame = pd.DataFrame({"game": np.arange(first, first + len(won)), "won": won})
    frame.attrs = {"seed": 1, "expansions": [], **attrs}
    return frame


#: The normal quantile of Wald's 95% intervals.
Z95 = 1.959963984540054


def test_effect_contrasts_weigh_a_set_on_two_base_games_by_its_odds_factor():
    """Base game A wins 100 of 1,000 games and its set 300, winning together as often as
    chance would (30 games): no pairing narrows the variance, which is then the
    independent runs' sum of 1 / (n p (1 - p)). Base game B's set wins the very games B
    wins: its factor is 1, and the two runs cancel. So the set's factor on A over its
    factor on B is (300 / 700) / (100 / 900) = 27 / 7, with Wald's interval on the log."""
    from scipy.stats import norm

    games = np.arange(1000)
    runs = {"a": _games_won(games % 10 == 0, policy="a"),
            "a+x": _games_won(games < 300, policy="a", expansions=["x"]),
            "a+y": _games_won(games < 200, policy="a", expansions=["y"]),
            "b": _games_won(games % 4 == 0, policy="b"),
            "b+x": _games_won(games % 4 == 0, policy="b", expansions=["x"])}
    table = run_stats.effect_contrasts(runs, {"a+x": "a", "a+y": "a", "b+x": "b"})
    assert len(table) == 1  # y is compared with one base game only
    row = table.iloc[0]
    assert (row.set, row.first, row.second, row.first_run, row.second_run, row.paired,
            row.first_games, row.second_games) == ("x", "a", "b", "a+x", "b+x", True, 1000,
                                                   1000)
    spread = np.sqrt(1 / (1000 * 0.3 * 0.7) + 1 / (1000 * 0.1 * 0.9))
    assert row.first_odds == pytest.approx(27 / 7, rel=1e-12)
    assert row.second_odds == 1.0
    assert row.ratio == pytest.approx(27 / 7, rel=1e-12)
    assert row.low == pytest.approx(27 / 7 * np.exp(-Z95 * spread), rel=1e-9)
    assert row.high == pytest.approx(27 / 7 * np.exp(Z95 * spread), rel=1e-9)
    assert row.p == pytest.approx(2 * norm.sf(np.log(27 / 7) / spread), rel=1e-9)
    assert row.holm_p == row.p  # one test
    assert row.shown
    # the other way round, the factors and their ratio turn over
    turned = run_stats.effect_contrasts(runs, {"b+x": "b", "a+x": "a"}).iloc[0]
    assert (turned.first, turned.second) == ("b", "a")
    assert turned.ratio == pytest.approx(7 / 27, rel=1e-12)
    assert turned.p == pytest.approx(row.p, rel=1e-12)


def test_effect_contrasts_of_a_summary_or_too_few_wins_are_no_test():
    """A summary holds no game to pair; a run of fewer than 20 wins is too few for Wald's
    approximation: no p, and Holm counts neither."""
    from analyzer.analysis.totals import frame_totals

    games = np.arange(1000)
    base = _games_won(games % 10 == 0)
    x = _games_won(games < 300, expansions=["x"])
    few = _games_won(games < 10, expansions=["z"])
    other = _games_won(games % 5 == 0, policy="b")
    summary_runs = {"base": base, "x": x, "z": few, "other": other,
                    "other x": _games_won(games < 400, policy="b", expansions=["x"]),
                    "other z": _games_won(games < 100, policy="b", expansions=["z"])}
    table = run_stats.effect_contrasts(
        summary_runs, {"x": "base", "z": "base", "other x": "other", "other z": "other"})
    by_set = table.set_index("set")
    assert np.isnan(by_set.loc["z", "p"]) and np.isnan(by_set.loc["z", "holm_p"])
    assert not by_set.loc["z", "shown"]
    assert by_set.loc["x", "holm_p"] == by_set.loc["x", "p"]  # a family of one
    played = analyzer.simulate(games=40, seed=1, policy="random")
    tally = frame_totals(played)
    tally.attrs = {"seed": 1, "expansions": ["x"], "policy": "b"}
    summary_runs["other x"] = tally
    summary = run_stats.effect_contrasts(summary_runs, {"x": "base", "other x": "other"})
    aside = summary.iloc[0]
    assert (aside.second_games, aside.paired) == (0, False) and np.isnan(aside.ratio)
    # the other comparison's factor needs no summary
    assert aside.first_games == 1000 and aside.first_odds == pytest.approx(27 / 7)


def test_effect_contrasts_of_other_seeds_or_other_games_add_two_independent_variances():
    """Each comparison chance-free within (its set winning with its base game as often as
    chance would), on seed 1 and seed 2, or on other games of seed 1: the two factors are
    each over their own games, and the log of their ratio has the variance of four
    independent runs, sum of 1 / (n p (1 - p))."""
    from scipy.stats import norm

    games = np.arange(1000)
    spread = np.sqrt(sum(1 / (1000 * rate * (1 - rate)) for rate in (0.3, 0.1, 0.4, 0.2)))
    for other in ({"seed": 2}, {"first": 5000}):
        runs = {"a": _games_won(games % 10 == 0), "a+x": _games_won(games < 300,
                                                                    expansions=["x"]),
                "b": _games_won(games % 5 == 0, policy="b", **other),
                "b+x": _games_won(games < 400, policy="b", expansions=["x"], **other)}
        row = run_stats.effect_contrasts(runs, {"a+x": "a", "b+x": "b"}).iloc[0]
        assert (row.paired, row.first_games, row.second_games) == (False, 1000, 1000)
        assert row.first_odds == pytest.approx(27 / 7, rel=1e-12)
        assert row.second_odds == pytest.approx(8 / 3, rel=1e-12)
        assert row.ratio == pytest.approx(81 / 56, rel=1e-12)
        assert row.low == pytest.approx(81 / 56 * np.exp(-Z95 * spread), rel=1e-9)
        assert row.high == pytest.approx(81 / 56 * np.exp(Z95 * spread), rel=1e-9)
        assert row.p == pytest.approx(2 * norm.sf(np.log(81 / 56) / spread), rel=1e-9)


def test_effect_contrasts_hold_holm_over_the_sets_that_can_differ():
    """A set whose runs win the very games of their base games departs in no game: no
    interval, and Holm leaves it out of the family of the other two; of two runs of one
    set against one base game, the one sharing more games with it is weighed, and the
    other named."""
    games = np.arange(1000)
    base_a, base_b = games % 10 == 0, games % 4 == 0
    runs = {"a": _games_won(base_a), "b": _games_won(base_b, policy="b"),
            "a+x": _games_won(games < 300, expansions=["x"]),
            "b+x": _games_won(base_b, policy="b", expansions=["x"]),
            "a+y": _games_won(base_a, expansions=["y"]),
            "b+y": _games_won(base_b, policy="b", expansions=["y"]),
            "a+z short": _games_won(games[:500] < 150, expansions=["z"]),
            "a+z": _games_won(games < 150, expansions=["z"]),
            "b+z": _games_won(base_b, policy="b", expansions=["z"])}
    against = {label: label[0] for label in runs if "+" in label}
    table = run_stats.effect_contrasts(runs, against).set_index("set")
    assert table.loc["y", "p"] == 1.0 and np.isnan(table.loc["y", "low"])
    assert table.loc["y", "holm_p"] == 1.0 and not table.loc["y", "shown"]  # left out
    assert table.loc["z", "first_run"] == "a+z"
    low, high = sorted(table.loc[["x", "z"], "p"])
    assert sorted(table.loc[["x", "z"], "holm_p"]) == [2 * low, max(2 * low, high)]
    assert run_stats.effect_runs_set_aside(runs, against) == ["a+z short"]
    from analyzer.reporting.differences import effects_note

    note = effects_note(table, ["a+z short"])
    assert "Holm is over the rows with an interval (2 tests)" in note
    assert note.count("a+z short") == 1


def test_baseline_base_weighs_a_set_on_two_policies_base_games(tmp_path):
    """Hanging Gardens & Wizards with greedy and weighted: the report sets the set's
    effect on each policy's base game side by side, in odds, with its test, in the pages
    and in effects.csv, which names each base game's policy."""
    paths = []
    for policy in ("greedy", "weighted"):
        for expansions in ("none", "gardens_wizards"):
            path = tmp_path / f"{policy}-{expansions}.parquet"
            analyzer.simulate(games=3000, seed=2, policy=policy, expansions=expansions,
                              out=path)
            paths.append(path)
    out = analyzer.report(paths, tmp_path / "rep", baseline="base")
    effects = pd.read_csv(out / "effects.csv")
    assert len(effects) == 1
    row = effects.iloc[0]
    assert (row.set, row["first"], row.second) == \
        ("gardens_wizards", "greedy / base / seed 2", "weighted / base / seed 2")
    assert (row.first_policy, row.second_policy, row.first_seed) == ("greedy", "weighted", 2)
    runs = load_runs(paths)
    frames = [runs[label].set_index("game")["won"] for label in
              (row.first_run, row["first"], row.second_run, row.second)]
    odds = [w.mean() / (1 - w.mean()) for w in frames]
    assert row.first_odds == pytest.approx(odds[0] / odds[1], rel=1e-9)
    assert row.second_odds == pytest.approx(odds[2] / odds[3], rel=1e-9)
    assert row.ratio == pytest.approx(odds[0] / odds[1] / (odds[2] / odds[3]), rel=1e-9)
    assert row.holm_p < 0.05 and row.high < 1 and row.shown  # weighted gains far more
    md = (out / "report.md").read_text()
    section = md[md.index("## Each set's effect, base game against base game"):]
    section = section.split("\n## ")[0]
    assert "Holm is over the rows with an interval (1 test)" in section
    line = next(text for text in section.splitlines() if text.startswith("| gardens_wizards"))
    assert "| 3,000 paired |" in line
    assert line.endswith(f"| x{row.ratio:.2f} ({row.low:.2f} to {row.high:.2f}) | "
                         f"{format_p(row.holm_p)} | factor higher on the second |")
    assert "[CSV](effects.csv)" in section
    page = (out / "index.html").read_text()
    assert "<table id='effects'>" in page and "factor higher on the second" in page
    # one comparison, or every run against the first: no such section
    alone = analyzer.report(paths[:2], tmp_path / "alone", baseline="base")
    first = analyzer.report(paths, tmp_path / "first")
    for folder in (alone, first):
        assert not (folder / "effects.csv").exists()
        assert "Each set's effect" not in (folder / "report.md").read_text()


def test_a_books_note_over_runs_of_two_policies_does_not_speak_of_one_policy():
    from analyzer.analysis.compare import books_chart_note, books_unplayed_note

    def books(policy: str) -> pd.DataFrame:
        frame = pd.DataFrame({"books_kept": [0, 0], "book_actions": [0, 0]})
        frame.attrs = {"policy": policy, "expansions": ["books"]}
        return frame

    one = {"a": books("greedy"), "b": books("greedy")}
    two = {"a": books("greedy"), "b": books("weighted")}
    assert books_unplayed_note(one, "run").startswith("books: the policy kept no Book")
    assert books_unplayed_note(two, "run").startswith("books: their policies kept no Book")
    assert "a and b: their policies kept no Book" in books_chart_note(two, "run")


def test_charts_of_baseline_base_draw_each_run_beside_its_own_base_game():
    """One reference line at the first run's rate would put one policy's sets beside the
    other's base game; each row gets a mark at its own, and each panel its own in grey."""
    from analyzer.reporting import charts

    table = pd.DataFrame({"win_rate": [0.3, 0.1, 0.2, 0.05], "ci_low": 0.0, "ci_high": 0.4},
                         index=["w base", "g base", "w x", "g x"])
    against = {"w x": "w base", "g x": "g base"}
    ax = charts.win_rates(table, against=against).axes[0]
    marks = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    rows = dict(zip(table.index, [tick.get_position()[1] for tick in ax.get_yticklabels()],
                    strict=True))
    drawn = {round(float(np.mean(mark.get_ydata()))): float(mark.get_xdata()[0])
             for mark in marks}
    assert drawn == {round(rows["w x"]): 30.0, round(rows["g x"]): 10.0}
    # panels: each run beside the run it is compared with, none beside the base games
    names = [f"run {i}" for i in range(charts.PANELS_FROM)]
    against = {name: names[1] for name in names[2:]}
    grey = {}

    def draw(ax, index, style, label):
        if style is charts.FIRST_RUN_STYLE:
            grey[ax.get_title() or len(grey)] = index
        return True

    fig, axes = charts._lines(dict.fromkeys(names), "t", names, draw, "x", "y",
                              against=against)
    assert len(grey) == len(names) - 2 and set(grey.values()) == {1}
    assert "the run it is compared with in grey" in fig.get_suptitle()


def test_differences_pair_runs_of_one_seed_and_games_only():
    from analyzer.analysis.run_stats import differences
    from analyzer.analysis.stats import newcombe_difference, paired_difference_interval

    def run_of(won, seed, first=0):
        df = pd.DataFrame({"game": np.arange(first, first + len(won)),
                           "won": np.array(won, dtype=bool)})
        df.attrs["seed"] = seed
        return df

    a = run_of([1, 1, 0, 0, 1, 0, 0, 0], seed=3)
    same_games = run_of([1, 0, 1, 1, 1, 0, 0, 0], seed=3)
    other_games = run_of([1, 0, 1, 1, 1, 0, 0, 0], seed=3, first=8)
    other_seed = run_of([1, 0, 1, 1, 1, 0, 0, 0], seed=4)
    table = differences({"a": a, "b": same_games, "c": other_games, "d": other_seed})
    assert table.at["b", "paired"] and table.at["b", "whole"]
    assert not table.at["c", "paired"] and not table.at["d", "paired"]
    assert table.at["b", "difference"] == pytest.approx(1 / 8)
    # both 2, only b 2, only a 1, neither 3
    assert (table.at["b", "low"], table.at["b", "high"]) == paired_difference_interval(2, 2, 1, 3)
    assert (table.at["c", "low"], table.at["c", "high"]) == newcombe_difference(4, 8, 3, 8)
    assert np.isnan(table.at["c", "mcnemar_p"])
    assert table.at["d", "difference"] == pytest.approx(1 / 8)


def test_runs_of_one_seed_that_share_some_games_are_paired_on_those():
    """A run stopped early (a --precision batch) or played on later games of the seed shares
    deals with the first run: those are compared game by game, not as independent samples."""
    from analyzer.analysis.run_stats import differences
    from analyzer.analysis.stats import mcnemar_exact, paired_difference_interval
    from analyzer.reporting.differences import difference_rows

    def run_of(won, first):
        df = pd.DataFrame({"game": np.arange(first, first + len(won))[::-1],
                           "won": np.array(won[::-1], dtype=bool)})  # any row order
        df.attrs["seed"] = 3
        return df

    first = run_of([1, 1, 0, 0, 1, 0, 0, 0], first=0)
    shorter = run_of([1, 1, 0, 0], first=0)  # the first run's first 4 games, the same wins
    later = run_of([0, 0, 1, 1, 1, 1], first=4)  # games 4-9: 4-7 common
    table = differences({"first": first, "shorter": shorter, "later": later})
    assert table.at["shorter", "paired"] and not table.at["shorter", "whole"]
    assert table.at["shorter", "games"] == 4 and table.at["shorter", "difference"] == 0
    assert table.at["shorter", "mcnemar_p"] == 1.0
    # games 4-7: first won 4 only, later won 6 and 7: both 0, only later 2, only first 1
    assert table.at["later", "games"] == 4
    assert table.at["later", "difference"] == pytest.approx(1 / 4)
    assert (table.at["later", "low"], table.at["later", "high"]) == \
        paired_difference_interval(0, 2, 1, 1)
    assert table.at["later", "mcnemar_p"] == mcnemar_exact(2, 1)
    rows = difference_rows(table)
    # shorter ended its 4 games as the first run did: said, as a zero that finds nothing
    assert rows[1][5] == "paired on 4 common games, each ended alike"
    assert rows[2][5] == "paired on 4 common games"
    # shorter won 2 of 4, as the first run did on those 4 (3 of 8 in all): the difference
    # of 0 is between the win rates over the common games, which the row gives
    assert rows[1][2] == "50.00% vs 50.00%" and rows[2][2] == "50.00% vs 25.00%"
    # one game is a game, not "1 games"
    rows = difference_rows(differences({"one": run_of([1], first=0),
                                        "also": run_of([0], first=0)}))
    assert rows[1][5] == "paired, 1 game"


def test_cli_report_errors_are_one_line(results, tmp_path, capsys):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    code, _, err = run(capsys, "report", str(bad), "--out", str(tmp_path / "rep"))
    assert code == 2 and err.count("\n") == 1 and "cannot read results file" in err
    assert not (tmp_path / "rep").exists()
    code, out, err = run(capsys, "report", *map(str, results), "--out", str(tmp_path / "r2"))
    assert code == 0 and "index.html" in out
    # one file twice, under another spelling of its path: a run compared with itself
    again = Path(results[0]).parent / ".." / Path(results[0]).parent.name / Path(results[0]).name
    code, _, err = run(capsys, "report", str(results[0]), str(again), "--out",
                       str(tmp_path / "r3"))
    assert code == 2 and err.count("\n") == 1 and "given twice" in err
    assert not (tmp_path / "r3").exists()


def test_a_file_that_is_not_parquet_is_named_as_such(tmp_path, capsys):
    """A trace file or a CSV given to report: what it is, in words, not the Parquet
    reader's complaint about footers and magic bytes (a summary file is a run it reads)."""
    traces = tmp_path / "t.jsonl"
    assert run(capsys, "trace", "--seed", "1", "--game", "0", "--games", "2", "--out",
               str(traces), "--quiet")[0] == 0
    table = tmp_path / "compare.csv"
    table.write_text("set,games,wins\nbase,20,2\n")
    cut = tmp_path / "cut.parquet"
    analyzer.simulate(games=20, out=cut)
    cut.write_bytes(cut.read_bytes()[:3000])
    for path, what in [(traces, "is not an urbion summary file: it is a trace file"),
                       (table, "not a Parquet file"),
                       (cut, "begins as a Parquet file but is damaged or cut short")]:
        code, _, err = run(capsys, "report", str(path), "--out", str(tmp_path / "rep"))
        assert code == 2 and err.count("\n") == 1 and what in err, err
        assert "magic bytes" not in err and not (tmp_path / "rep").exists()


def _damaged_results(source: Path, folder: Path) -> list[Path]:
    """Copies of a results file, each damaged in one way a report cannot read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(source)
    meta = {b"urbion": table.schema.metadata[b"urbion"]}
    won = table.schema.get_field_index("won")
    damaged = {
        "no_turns": table.drop_columns(["turns"]),
        "text_won": table.set_column(won, "won", pa.array(["x"] * table.num_rows)),
        "no_games": table.slice(0, 0),
    }
    paths = []
    for name, damage in damaged.items():
        paths.append(folder / f"{name}.parquet")
        pq.write_table(damage.replace_schema_metadata(meta), paths[-1])
    paths.append(folder / "bad_config.parquet")
    pq.write_table(table.replace_schema_metadata({b"urbion": b"{not json"}), paths[-1])
    return [*paths, folder / "missing.parquet"]


def test_a_damaged_results_file_is_one_line_and_exit_2(tmp_path, capsys):
    good = tmp_path / "good.parquet"
    analyzer.simulate(games=50, seed=1, out=good)
    for path in _damaged_results(good, tmp_path):
        code, _, err = run(capsys, "report", str(path), "--out", str(tmp_path / "rep"))
        assert code == 2 and err.count("\n") == 1 and str(path) in err, (path, err)
        assert "Traceback" not in err and not (tmp_path / "rep").exists()


def test_holm_matches_a_hand_computed_case():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04 -> monotone
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_survival_and_convergence_on_a_tiny_run():
    df = pd.DataFrame({"game": [0, 1, 2, 3], "turns": [2, 3, 3, 5],
                       "won": [True, False, False, True]})
    curve = run_stats.survival(df)
    assert curve.tolist() == [1.0, 1.0, 0.75, 0.25, 0.25, 0.0]
    # each share as its count over the games, which a CSV prints without float noise
    many = pd.DataFrame({"game": range(10_000), "turns": [1] * 5799 + [2] * 4201,
                         "won": False})
    assert repr(float(run_stats.survival(many)[1])) == "0.4201"
    conv = run_stats.convergence(df)
    assert conv["games"].iloc[-1] == 4 and conv["win_rate"].iloc[-1] == 0.5


def test_a_reports_heatmap_names_and_orders_the_expansions_as_compares_does(tmp_path,
                                                                             monkeypatch):
    """The same results files, in any order, give a heatmap with the expansions' titles in
    the game's order, as ``compare`` draws it, whatever order its sets were listed in: not
    code names in the files' order."""
    from analyzer.reporting import charts

    result = analyzer.compare(sets="base,books,squares_metas,books+squares_metas", games=300,
                              seed=2, out=tmp_path / "cmp")
    compare_fig = result.figures()["interactions"]
    compare_labels = [label.get_text() for label in compare_fig.axes[0].get_yticklabels()]
    assert compare_labels == ["City Squares & Metas", "Books of Power"]
    files = sorted((tmp_path / "cmp" / "results").glob("*.parquet"))
    assert files[0].name.startswith("base") and files[1].name.startswith("books.")
    drawn = []
    draw = charts.interactions

    def interactions(table):
        fig = draw(table)
        drawn.append([label.get_text() for label in fig.axes[0].get_yticklabels()])
        return fig

    monkeypatch.setattr(charts, "interactions", interactions)
    analyzer.report(files, tmp_path / "rep")
    analyzer.report(files[::-1], tmp_path / "reversed")
    assert drawn == [compare_labels, compare_labels]
    # the runs' labels name the expansions as --expansions does: the page says which is which
    page = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "Names: the runs name their expansions as --expansions takes them, the " \
        "interactions by the expansions&#x27; printed names (" in page


def test_a_report_needs_results():
    with pytest.raises(UrbionError, match="at least one results file"):
        analyzer.report([], "rep")


def test_a_report_of_a_designers_comparison_draws_its_interactions_whatever_the_meta_values(
        tmp_path):
    """A Meta of 6 among Sognae of at most 4: greedy's parameters, fitted to the cards in
    play, differ in the sets with City Squares & Metas. The comparison is one all the same,
    and its report draws the pair's interaction as its own page does."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text()
    assert "earth = [[2, -2], [3, -3]]" in text
    mine.write_text(text.replace("earth = [[2, -2], [3, -3]]", "earth = [[2, -2], [6, -6]]"))
    analyzer.compare(sets="base,squares_metas,emptiness,squares_metas+emptiness", games=300,
                     seed=4, cards=mine, out=tmp_path / "cmp")
    files = sorted((tmp_path / "cmp" / "results").glob("*.parquet"))
    runs = load_runs(files)
    assert len({run.attrs["policy_params_sha256"] for run in runs.values()}) == 2
    out = analyzer.report(files, tmp_path / "rep")
    md = (out / "report.md").read_text()
    assert "(interactions.png)" in md and "such configurations" not in md
    assert len(pd.read_csv(out / "interactions.csv")) == 1


def test_runs_of_one_comparison_are_those_played_alike_but_for_the_expansions():
    """As --baseline base pairs a run with its base game: a user's policy edited between
    runs is another comparison, though its parameters hash alike; greedy's parameters
    fitted to a set's cards are not another policy; nor is another engine one comparison."""
    from analyzer.reporting.interactions import comparison_groups

    def run(**attrs: object) -> pd.DataFrame:
        frame = pd.DataFrame({"game": [0], "won": [False]})
        frame.attrs = {"policy": "mine.py:choose", "policy_params_sha256": "p",
                       "policy_weights_sha256": "p", "policy_source_sha256": "v1",
                       "seed": 1, "expansions": [], "card_set_sha256": "r14",
                       "engine": "fast", **attrs}
        return frame

    runs = {"base": run(), "x": run(expansions=["x"]),
            "edited x": run(expansions=["x"], policy_source_sha256="v2"),
            "fitted y": run(expansions=["y"], policy_params_sha256="q"),
            "reference x": run(expansions=["x"], engine="reference")}
    assert [list(group) for group in comparison_groups(runs)] == \
        [["base", "x", "fitted y"], ["edited x"], ["reference x"]]


def test_a_report_of_two_comparisons_draws_each_ones_interactions_as_its_own_report_does(
        tmp_path):
    """greedy's and weighted's base game, singles and pair in one report: each
    comparison's heatmap, named by its base game and its policy under the chart, and its
    table pair by pair, with the numbers a report of that comparison alone gives."""
    sets = "base,chromatic_chaos,emptiness,chromatic_chaos+emptiness"
    files = {}
    for policy in ("greedy", "weighted"):
        analyzer.compare(sets=sets, games=400, seed=5, policy=policy, out=tmp_path / policy)
        files[policy] = sorted((tmp_path / policy / "results").glob("*.parquet"))
    both = analyzer.report(files["greedy"] + files["weighted"], tmp_path / "both",
                           baseline="base")
    md = (both / "report.md").read_text()
    page = (both / "index.html").read_text()
    for number, policy in enumerate(("greedy", "weighted"), 1):
        alone = analyzer.report(files[policy], tmp_path / f"{policy}-alone")
        expected = pd.read_csv(alone / "interactions.csv")
        found = pd.read_csv(both / f"interactions-{number}.csv")
        pd.testing.assert_frame_equal(found, expected)
        # a file quoted apart still names whose games it is of
        assert set(found["policy"]) == {policy} and set(found["seed"]) == {5}
        base = f"{policy} / base / seed 5"
        assert f"## Pairwise interactions of expansions: {base}" in md
        assert f"(interactions-{number}.png)" in md
        section = md[md.index(f"## Interactions, pair by pair: {base}"):].split("\n## ")[0]
        assert "| chromatic_chaos+emptiness | 400 |" in section
        assert f"<table id='interactions-{number}'>" in page
        svg = (both / f"interactions-{number}.svg").read_text()
        assert f"policy {policy}" in svg
    assert "such configurations" not in md and "No interactions are drawn" not in md
    assert all((both / link).is_file() for link in re.findall(r"\]\(([^)]+)\)", md))
    # each heatmap says how to read it, as a report of one comparison's does
    caption = "For each pair of expansions, the pair's change of the win rate"
    assert md.count(caption) == 2 and page.count(html.escape(caption)) == 2
    # a summary beside them holds no game to pair: the others are drawn all the same
    summary = tmp_path / "summary.json"
    analyzer.simulate_summary(games=200, seed=9, policy="random",
                              expansions="chromatic_chaos", out=summary)
    # greedy's comparison without its pair has no interactions, and the page says so
    greedy_singles = [f for f in files["greedy"] if "+" not in f.name]
    assert len(greedy_singles) == 3
    mixed = analyzer.report(greedy_singles + files["weighted"] + [summary],
                            tmp_path / "mixed", baseline="base")
    md = (mixed / "report.md").read_text()
    assert "## Pairwise interactions of expansions: weighted / base / seed 5" in md
    assert "(interactions-1.png)" in md and not (mixed / "interactions-2.png").exists()
    assert "No interactions are drawn for the comparison of greedy / base / seed 5: they " \
        "need its base game, each expansion alone and the pairs, once each." in md
    assert "the pairwise interactions leave it out" in md


def test_a_report_of_base_singles_and_pairs_draws_the_interaction_heatmap(tmp_path):
    result = analyzer.compare(sets="base,chromatic_chaos,gardens_wizards,"
                                   "chromatic_chaos+gardens_wizards",
                              games=500, seed=4, out=tmp_path / "cmp")
    files = sorted((tmp_path / "cmp" / "results").glob("*.parquet"))
    out = analyzer.report(files, tmp_path / "rep")
    assert (out / "interactions.png").stat().st_size > 1000
    md = (out / "report.md").read_text()
    assert "## Pairwise interactions of expansions" in md and "(interactions.png)" in md
    assert all((out / link).is_file() for link in re.findall(r"\]\(([^)]+)\)", md))
    expected = result.interactions.at["chromatic_chaos+gardens_wizards", "interaction"]
    table = result.table
    assert expected == pytest.approx(
        table.at["chromatic_chaos+gardens_wizards", "difference"]
        - table.at["chromatic_chaos", "difference"] - table.at["gardens_wizards", "difference"])
    row = result.interactions.loc["chromatic_chaos+gardens_wizards"]
    compare_md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "## Interactions, pair by pair" in compare_md
    # one pair: Holm's p is the sign-flip test's, scipy's own (Monte Carlo) over the
    # games' contrasts
    from scipy.stats import permutation_test

    won = {label: df.sort_values("game")["won"].to_numpy(dtype=float)
           for label, df in result.runs.items()}
    contrast = (won["chromatic_chaos+gardens_wizards"] - won["chromatic_chaos"]
                - won["gardens_wizards"] + won["base"])
    flipped = permutation_test((contrast,), np.sum, permutation_type="samples",
                               n_resamples=40_000, rng=np.random.default_rng(1))
    assert row.holm_p == pytest.approx(flipped.pvalue, abs=0.01)
    shown = row.holm_p < 0.05 and (row.low > 0 or row.high < 0) and \
        row.pair_win_rate >= row.interaction
    verdict = ("more wins" if row.interaction > 0 else "fewer wins") if shown else "no"
    assert (f"| chromatic_chaos+gardens_wizards | 500 | {row.interaction * 100:+.2f} pp | "
            f"{row.low * 100:+.2f} to {row.high * 100:+.2f} pp | {row.holm_p:.3g} | "
            f"{verdict} | {row.pair_win_rate:.2%} | {row.multiplied:.2%} |"
            ) in compare_md
    assert "<table id='interactions'>" in (tmp_path / "cmp" / "index.html").read_text()
    # the report's heatmap sends the reader to this table: the report carries it too
    pair_row = [line for line in compare_md.splitlines()
                if line.startswith("| chromatic_chaos+gardens_wizards |")][-1]
    assert "if the effects multiplied" not in pair_row and " pp | " in pair_row
    assert "## Interactions, pair by pair" in md and pair_row in md
    assert "<table id='interactions'>" in (out / "index.html").read_text()
    two = analyzer.report(files[:2], tmp_path / "two")  # base and chromatic_chaos only
    assert not (two / "interactions.png").exists()
    assert "needs results of the base game" in (two / "report.md").read_text()
    # no expansion at all: no interactions section to read as a missing result
    lone = analyzer.report(files[:1], tmp_path / "lone")
    assert "Pairwise interactions" not in (lone / "report.md").read_text()
    assert "Pairwise interactions" not in (lone / "index.html").read_text()


def test_a_page_table_keeps_the_sign_of_a_difference_or_bound_just_below_zero():
    """A net difference of a few games in a million, below zero, reads -0.00 as the
    interval's bounds do: +0.00 beside a bound of -0.00 reads outside its interval, and
    +0.00 to -6.14 as an interval that reaches zero where it left it out."""
    from analyzer.reporting.differences import difference_rows
    from analyzer.reporting.interactions import interaction_rows
    from analyzer.reporting.sensitivity_pages import _sensitivity_rows

    tiny = -0.00001
    differences = pd.DataFrame({"against": ["a"], "difference": [tiny], "low": [tiny],
                                "high": [0.001], "paired": [True], "whole": [True],
                                "games": [10**6], "win_rate": [0.1], "against_rate": [0.1],
                                "p": [0.9], "test": ["McNemar"], "mcnemar_p": [0.9]},
                               index=["b"])
    effects = pd.DataFrame({"factor": ["Chaos count"], "level": ["6"], "baseline_level": ["8"],
                            "win_rate": [0.1], "ci_low": [0.09], "ci_high": [0.11],
                            "effect": [tiny], "effect_low": [tiny], "effect_high": [0.01],
                            "mcnemar_p": [0.9], "holm_p": [0.9]})
    pairs = pd.DataFrame({"games": [10**6], "interaction": [tiny], "low": [tiny - 0.01],
                          "high": [0.01], "holm_p": [0.9], "pair_win_rate": [0.1],
                          "multiplied": [0.1]},
                         index=["a+b"])
    for rows in (difference_rows(differences), _sensitivity_rows(effects),
                 interaction_rows(pairs)):
        cells = " ".join(rows[1])
        assert "-0.00 pp" in cells and "+0.00 pp" not in cells
        assert "-0.00 to +" in cells or "-1.00 to +1.00" in cells


def test_a_card_set_name_with_a_bar_or_markup_keeps_the_markdown_tables_whole():
    from analyzer.reporting.markup import md_row, md_table_head

    row = md_row(["greedy / card set A|B <b>", "7.60%"])
    assert row == "| greedy / card set A\\|B &lt;b> | 7.60% |"
    # a p-value bound opens no markup, and an entity in a name stays text
    assert md_row(["<1e-300", "R&amp;D & co"]) == "| <1e-300 | R&amp;amp;D & co |"
    # a renderer splits a row at its unescaped bars only: two cells, as the header has
    assert len(re.split(r"(?<!\\)\|", row.strip("| "))) == 2
    assert md_table_head(["a", "b"]) == ["| a | b |", "|---|---|"]


def test_a_card_set_name_with_markup_stays_text_in_the_reports_prose(tmp_path):
    """The scope line and the provenance name the card set outside any table: there too a
    name such as <b>x</b> must not become markup."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "<b>bold</b>"'))
    analyzer.simulate(games=20, cards=mine, out=tmp_path / "r.parquet")
    md = (analyzer.report([tmp_path / "r.parquet"], tmp_path / "rep") / "report.md").read_text()
    prose, in_code = [], False
    for line in md.splitlines():  # code blocks (the card listings) show text as it is
        in_code ^= line.startswith("```")
        if "bold" in line and not in_code and not line.startswith(("| ", "```")):
            prose.append(line)
    assert len(prose) >= 2
    assert all("<b>" not in line and "&lt;b>bold&lt;/b>" in line for line in prose)


def test_a_results_file_name_with_a_line_break_keeps_its_provenance_line_whole(tmp_path):
    """The provenance names each results file: a line break in a name must not end the
    list item and leave the rest of the name as a paragraph of its own."""
    results = tmp_path / "spring\nrun.parquet"
    analyzer.simulate(games=20, out=results)
    md = (analyzer.report([results], tmp_path / "rep") / "report.md").read_text()
    named = [line for line in md.splitlines() if "run.parquet" in line]
    assert named and all(line.startswith("- **") and "spring\\nrun.parquet" in line
                         for line in named)


def _without_card_table(path):
    """Rewrite the results file ``path`` as a version that did not keep its cards wrote it."""
    from analyzer.analysis.results_io import read_results

    df = read_results(path)
    del df.attrs["card_set_table"]
    df.to_parquet(path)


def test_a_report_of_a_designers_card_set_shows_its_cards_beside_r14s(tmp_path):
    """What a what-if changes is in the report itself, as the results file keeps the cards
    played, though the card file is edited afterwards (a designer's loop); for a file of a
    version that did not keep them, read from the file the run names, and a file changed
    since is said to be, not shown as if it were the one played."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "mine"')
                    .replace("count = 8", "count = 6", 1))
    analyzer.simulate(games=100, seed=3, out=tmp_path / "r14.parquet")
    analyzer.simulate(games=100, seed=3, cards=mine, out=tmp_path / "mine.parquet")
    files = [tmp_path / "r14.parquet", tmp_path / "mine.parquet"]
    md = (analyzer.report(files, tmp_path / "rep") / "report.md").read_text()
    section = md.split("## Card sets")[1].split("\n## ")[0]
    assert "card set   mine" in section and "8 chaos (±5 x6)" not in section
    assert "6 chaos (±5 x6)" in section and "8 chaos (±5 x8)" in section
    # what the designer changed, first and alone: the two Chaos taken out
    change = section.split("```")[1].strip().splitlines()
    assert change[0].startswith("mine (sha256 ") and " against R14-default (sha256 " in change[0]
    assert change[1:] == ["base chaos ±5: 8 -> 6"]
    assert "Pairwise interactions" not in md
    mine.write_text(mine.read_text().replace("count = 6", "count = 7", 1))
    md = (analyzer.report(files, tmp_path / "kept") / "report.md").read_text()
    assert "6 chaos (±5 x6)" in md and "7 chaos" not in md and "cannot be shown" not in md
    _without_card_table(files[1])
    md = (analyzer.report(files, tmp_path / "again") / "report.md").read_text()
    assert "holds other cards now, so its cards cannot be shown" in md
    assert "7 chaos" not in md
    page = (tmp_path / "again" / "index.html").read_text()
    assert "<h2>Card sets</h2><pre>card set   R14-default" in page
    r14_only = analyzer.report(files[:1], tmp_path / "r14")
    assert "Card sets" not in (r14_only / "report.md").read_text()


def test_a_card_file_named_relative_to_where_it_was_played_is_found_beside_the_results(
        tmp_path, monkeypatch):
    """simulate --cards mine.toml in a folder, report from another: the file is looked for
    beside the results files too; a pipe of that name is never read (it would wait)."""
    import os

    played = tmp_path / "work"
    played.mkdir()
    monkeypatch.chdir(played)
    analyzer.write_card_template("mine.toml")
    text = Path("mine.toml").read_text().replace('name = "R14-default"', 'name = "mine"')
    Path("mine.toml").write_text(text.replace("count = 8", "count = 6", 1))
    analyzer.simulate(games=50, seed=1, cards="mine.toml", out="mine.parquet")
    _without_card_table("mine.parquet")  # as an older version wrote it: the file is read
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    md = (analyzer.report([played / "mine.parquet"], "rep") / "report.md").read_text()
    assert "6 chaos (±5 x6)" in md
    (played / "mine.toml").unlink()
    os.mkfifo(played / "mine.toml")
    md = (analyzer.report([played / "mine.parquet"], "rep2") / "report.md").read_text()
    assert "is not at hand or holds other cards now" in md


def test_a_report_folder_that_cannot_be_created_is_one_line_and_exit_2(results, tmp_path,
                                                                         capsys, monkeypatch):
    """The build folder beside ``--out`` cannot be made (a read-only or foreign folder; as
    root a chmod does not stop us, so the refusal is simulated where it happens)."""
    mkdir = Path.mkdir

    def refuse(self, *args, **kwargs):
        if self.name.startswith(".rep."):  # the build folder
            raise PermissionError(13, "Permission denied")
        return mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    code, out, err = run(capsys, "report", str(results[0]), "--out", str(tmp_path / "rep"))
    assert code == 2 and "Traceback" not in out + err
    assert err.strip() == f"urbion: error: cannot write {tmp_path / 'rep'}: Permission denied"
    assert list(tmp_path.iterdir()) == []


def test_a_report_folder_inside_a_file_is_named_so(results, tmp_path, capsys):
    blocker = tmp_path / "r.txt"
    blocker.write_text("not a folder")
    code, out, err = run(capsys, "report", str(results[0]), "--out", str(blocker / "rep"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{blocker} is a file, not a folder" in err


def test_sensitivity_into_a_folder_it_cannot_write_stops_before_playing(tmp_path, capsys,
                                                                          monkeypatch):
    import os


    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == tmp_path
                        else real_access(path, mode))

    _sensitivity_refuses_before_playing(tmp_path / "s", "permission denied", capsys,
                                        monkeypatch)


def _sensitivity_refuses_before_playing(out, message, capsys, monkeypatch):
    """``urbion sensitivity --out out`` exits 2 with ``message`` in one line, no game played."""
    from analyzer import api

    def no_games(*args, **kwargs):
        raise AssertionError("played games before refusing the destination")

    monkeypatch.setattr(api.simulation, "simulate", no_games)
    code, text, err = run(capsys, "sensitivity", "--games", "100", "--out", str(out))
    assert code == 2 and "Traceback" not in text + err
    assert message in err and len(err.strip().splitlines()) == 1


def test_long_set_names_are_wrapped_whole_inside_the_chart():
    """Seven expansions joined by + make a 100-character name: every tick label must lie
    inside the figure, and no layout warning may be raised."""
    import warnings

    from analyzer.reporting import charts

    long_name = ("squares_metas+chromatic_chaos+temples_harmony+gardens_wizards+books+"
                 "postcards+emptiness")
    table = pd.DataFrame({"win_rate": [0.09, 0.01, 0.02], "ci_low": [0.08, 0.0, 0.01],
                          "ci_high": [0.10, 0.02, 0.03], "difference": [0.0, -0.08, -0.07],
                          "diff_low": [0.0, -0.09, -0.08], "diff_high": [0.0, -0.07, -0.06]},
                         index=["base", "books+postcards", long_name])
    for make in (charts.win_rates, charts.differences):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig = make(table)
            renderer = drawn(fig)
        width = fig.get_figwidth() * fig.dpi
        labels = fig.axes[0].get_yticklabels()
        assert long_name.replace("\n", "") in [t.get_text().replace("\n", "") for t in labels]
        for label in labels:
            box = label.get_window_extent(renderer)
            assert box.x0 >= 0 and box.x1 <= width, label.get_text()


def test_wrap_label_breaks_after_joints_and_keeps_the_name():
    from analyzer.reporting.charts import wrap_label

    name = "greedy / squares_metas+chromatic_chaos+temples_harmony / seed 5"
    wrapped = wrap_label(name, width=30)
    assert all(len(line) <= 30 for line in wrapped.splitlines())
    assert "".join(wrapped.split()) == "".join(name.split())
    assert wrap_label("base") == "base"


def test_an_unreadable_report_folder_is_one_line_and_exit_2(results, tmp_path, capsys,
                                                             monkeypatch):
    out = tmp_path / "rep"
    out.mkdir()
    real_iterdir = Path.iterdir

    def refuse(self):
        if self == out:
            raise PermissionError(13, "Permission denied")
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", refuse)
    code, text, err = run(capsys, "report", str(results[0]), "--out", str(out))
    assert code == 2 and "Traceback" not in text + err
    assert err.strip() == f"urbion: error: cannot write report {out}: Permission denied"


def test_a_report_that_cannot_be_moved_in_leaves_the_earlier_one(results, tmp_path,
                                                                  monkeypatch):
    out = tmp_path / "rep"
    analyzer.report(results[:1], out)
    before = (out / "index.html").read_text()
    real_rename = Path.rename

    def refuse_build(self, target):
        building = self.name.startswith(".rep.") and ".old-" not in self.name
        if Path(target) == out and building:
            raise OSError(28, "No space left on device")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", refuse_build)
    with pytest.raises(UrbionError, match="No space left on device"):
        analyzer.report(results, out)
    assert (out / "index.html").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_another_users_report_in_a_sticky_folder_is_refused_before_playing(tmp_path, capsys,
                                                                           monkeypatch):
    """In a sticky folder such as /tmp only a folder's owner may move it: sensitivity must
    say so before its games, not after."""
    import os


    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "s").mkdir()
    (shared / "s" / "index.html").write_text("earlier report")
    (shared / "s" / ".urbion-folder").write_text("sensitivity\nindex.html\n")
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(shared).st_uid + 4321)
    _sensitivity_refuses_before_playing(
        shared / "s", f"cannot write sensitivity {shared / 's'}: permission denied (it "
        "cannot be replaced)", capsys, monkeypatch)


def test_a_folder_not_written_by_the_same_command_is_never_replaced(tmp_path, capsys):
    """A compare folder (with its results), a sensitivity folder and a web page folder all
    hold an index.html: none is a report folder to replace."""
    compare_out = tmp_path / "cmp"
    analyzer.compare(sets="base", games=30, out=compare_out)
    inside = next((compare_out / "results").glob("*.parquet"))
    web = tmp_path / "site"
    web.mkdir()
    (web / "index.html").write_text("my page")
    for folder in (compare_out, web):
        before = sorted(p.name for p in folder.rglob("*"))
        code, _, err = run(capsys, "report", str(inside), "--out", str(folder))
        assert code == 2 and "is not a folder `urbion report` wrote" in err
        assert sorted(p.name for p in folder.rglob("*")) == before
    code, _, _ = run(capsys, "sensitivity", "--games", "20", "--out", str(tmp_path / "s"))
    assert code == 0
    code, _, err = run(capsys, "report", str(inside), "--out", str(tmp_path / "s"))
    assert code == 2 and "is not a folder `urbion report` wrote" in err


def test_a_report_is_replaced_by_the_next_but_never_over_its_own_inputs(tmp_path, capsys):
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, out=results)
    out = tmp_path / "rep"
    for _ in range(2):
        code, _, _ = run(capsys, "report", str(results), "--out", str(out))
        assert code == 0
    kept = out / "r.parquet"
    kept.write_bytes(results.read_bytes())
    for given in (kept, results):  # the report's own input, or any file of the user's
        code, _, err = run(capsys, "report", str(given), "--out", str(out))
        assert code == 2 and "it holds r.parquet, which `urbion report` did not write" in err
        assert kept.exists()


def test_a_user_folder_named_like_the_old_report_is_left_alone(tmp_path, capsys):
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, out=results)
    (tmp_path / ".rep.old").mkdir()
    (tmp_path / ".rep.old" / "keep.txt").write_text("mine")
    for _ in range(2):
        assert run(capsys, "report", str(results), "--out", str(tmp_path / "rep"))[0] == 0
    assert (tmp_path / ".rep.old" / "keep.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".rep.old", "r.parquet", "rep"]


def test_the_current_folder_or_a_link_is_not_a_destination(tmp_path, capsys, monkeypatch):
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, out=results)
    (tmp_path / "real").mkdir()
    (tmp_path / "here").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "here")
    for out, message in ((".", "it is the current folder"), (str(tmp_path), "holds it"),
                         (str(tmp_path / "link"), "it is a symbolic link")):
        code, _, err = run(capsys, "report", str(results), "--out", out)
        assert code == 2 and message in err and "Traceback" not in err
    assert list((tmp_path / "real").iterdir()) == [] == list((tmp_path / "here").iterdir())


def test_a_loop_of_symbolic_links_is_a_one_line_error_in_and_out(tmp_path, capsys):
    """Python reports a loop as a RuntimeError, which no OSError handler takes."""
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, out=results)
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "loop1.parquet").symlink_to(tmp_path / "loop2.parquet")
    (tmp_path / "loop2.parquet").symlink_to(tmp_path / "loop1.parquet")
    loop = str(tmp_path / "loop1")
    for args, message in (
            (["report", loop, "--out", str(tmp_path / "rep")], "cannot read"),
            (["report", str(results), "--out", loop + "/rep"], "cannot write report"),
            (["duel", "--policies", "greedy,random", "--games", "10", "--quiet", "--out",
              loop + "/duel"], "cannot write duel"),
            # a loop has no file to write through to: the link was replaced by a file
            (["simulate", "--games", "10", "--quiet", "--out", str(tmp_path / "loop1.parquet")],
             f"cannot write {tmp_path / 'loop1.parquet'}")):
        code, _, err = run(capsys, *args)
        assert code == 2 and err.count("\n") == 1, err
        assert message in err and "a loop of symbolic links" in err
    assert (tmp_path / "loop1.parquet").is_symlink()


def test_runs_of_two_card_sets_each_name_theirs(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text(TINY_CARDS.read_text().replace('name = "R14-default"', 'name = "Mine"'))
    paths = [tmp_path / "a" / "r.parquet", tmp_path / "b" / "r.parquet", tmp_path / "m.parquet"]
    for path in paths[:2]:
        path.parent.mkdir()
    analyzer.simulate(games=20, out=paths[0])
    _as_other_version(paths[0], paths[1])
    analyzer.simulate(games=20, seed=1, cards=mine, out=paths[2])
    labels = list(load_runs(paths))
    assert labels[2] == "greedy / base / seed 1 / card set Mine"
    assert all("card set R14-default" in label for label in labels[:2])
    # told apart by their folders' names, not the whole path: a shared page names no
    # user's folders
    assert labels[0].endswith(" / a/r.parquet") and labels[1].endswith(" / b/r.parquet")
    assert not any(str(tmp_path) in label for label in labels)


def test_every_chart_says_where_its_numbers_come_from_and_many_runs_fit(tmp_path):
    """A chart copied out of its report still names the card set, policy, seed, variant and
    rules version; eight runs lay out without matplotlib warnings, and a margin line never
    crosses values no game had."""
    import warnings

    from analyzer.reporting import charts

    paths = []
    for number, expansions in enumerate(["none", "books", "chromatic_chaos", "squares_metas",
                                         "postcards", "emptiness", "gardens_wizards",
                                         "temples_harmony"]):
        paths.append(tmp_path / f"r{number}.parquet")
        analyzer.simulate(games=200, expansions=expansions, out=paths[-1])
    runs = load_runs(paths)
    source = charts.source_line(runs[next(iter(runs))].attrs)
    assert all(part in source for part in ("card set R14-default (sha256 ", "policy greedy",
                                           "seed 0", "solo game", "rules urbion-2e/"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analyzer.report(paths, tmp_path / "rep")
        compare = analyzer.compare(sets="base,books", games=50)
        figures = list(compare.figures().values())
    for fig in figures:
        assert "rules urbion-2e/" in fig.get_supxlabel().replace("\n", " ")
    fig = charts.margin_at_victory({"a": runs[next(iter(runs))]})
    xs = fig.axes[0].lines[0].get_xdata()
    assert list(xs) == list(range(int(xs[0]), int(xs[-1]) + 1))  # no gap bridged


def _as_other_version(source, target):
    """``source``'s results as a run of another package version (which a label does not
    show) written to ``target``."""
    from analyzer.analysis.results_io import read_results

    df = read_results(source)
    df.attrs["package_version"] = "0.0.9"
    df.to_parquet(target)


def test_runs_that_share_a_label_are_told_apart_by_what_differs(tmp_path):
    paths = {name: tmp_path / f"{name}.parquet" for name in ("fast", "ref", "later", "copy")}
    analyzer.simulate(games=20, out=paths["fast"])
    analyzer.simulate(games=20, engine="reference", out=paths["ref"])
    analyzer.simulate(games=20, first_game=40, out=paths["later"])  # not a piece: a gap
    _as_other_version(paths["fast"], paths["copy"])
    labels = list(load_runs(list(paths.values())))
    assert labels == ["greedy / base / seed 0 / engine fast / games 0-19 / fast.parquet",
                      "greedy / base / seed 0 / engine reference",
                      "greedy / base / seed 0 / engine fast / games 40-59",
                      "greedy / base / seed 0 / engine fast / games 0-19 / copy.parquet"]
    alone = load_runs([paths["fast"]])
    assert list(alone) == ["greedy / base / seed 0"]


def test_the_pages_show_code_as_code_and_link_the_data(results, tmp_path):
    analyzer.simulate(games=50, seed=5, expansions="books", out=tmp_path / "books.parquet")
    analyzer.report([results[0], tmp_path / "books.parquet"], tmp_path / "rep")
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "`" not in page and "<code>urbion compare --sets pairs --out DIR</code>" in page
    analyzer.compare(sets="base,books", games=30, out=tmp_path / "cmp")
    page = (tmp_path / "cmp" / "index.html").read_text()
    for name in ("compare.csv", "win_rates.svg", "differences.svg"):
        assert f"href='{name}'" in page and (tmp_path / "cmp" / name).is_file()
    analyzer.compare(sets="books,emptiness,books+emptiness", games=30, out=tmp_path / "cmp2")
    page = (tmp_path / "cmp2" / "index.html").read_text()
    assert "href='interactions.csv'" in page and (tmp_path / "cmp2" / "interactions.csv").is_file()


def test_a_card_change_in_an_expansion_no_run_played_says_so(tmp_path):
    """A file that changes the Chromatic Chaos, played without them: the same games as R14's,
    and the change is marked as out of play rather than read as a cause of anything."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text().replace('name = "R14-default"', 'name = "mine"')
    chromatic = text.index("[dreams.chromatic]")
    mine.write_text(text[:chromatic] + text[chromatic:].replace("value = 4", "value = 3", 1))
    analyzer.simulate(games=30, out=tmp_path / "r14.parquet")
    analyzer.simulate(games=30, cards=mine, out=tmp_path / "mine.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "mine.parquet"],
                          tmp_path / "rep") / "report.md").read_text()
    assert "chromatic_chaos chromatic ±3: 0 -> 8  (not in play in these runs)" in md
    # the designer's run alone: what it changes from R14 all the same, as `urbion cards` says
    alone = (analyzer.report([tmp_path / "mine.parquet"], tmp_path / "alone") / "report.md"
             ).read_text()
    assert "against R14-default (sha256 " in alone
    assert "chromatic_chaos chromatic ±3: 0 -> 8  (not in play in these runs)" in alone
    analyzer.simulate(games=30, cards=mine, expansions="chromatic_chaos",
                      out=tmp_path / "played.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "played.parquet"],
                          tmp_path / "rep2") / "report.md").read_text()
    assert "chromatic_chaos chromatic ±3: 0 -> 8  (in play in the run of mine only)" in md
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "mine.parquet",
                           tmp_path / "played.parquet"], tmp_path / "rep3") / "report.md"
          ).read_text()  # mine played once without them, once with them
    assert "chromatic_chaos chromatic ±3: 0 -> 8  (in play in 1 of the 2 runs of mine only)" \
        in md
    alone = (analyzer.report([tmp_path / "played.parquet"], tmp_path / "alone2") / "report.md"
             ).read_text()
    assert "chromatic_chaos chromatic ±3: 0 -> 8\n" in alone  # its one run played them


def test_a_set_of_the_same_cards_in_another_order_says_so(tmp_path):
    """Two cities swapped and a list reversed: no count changes, but each seed deals other
    games, which the report must say rather than show an edited set with nothing changed."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace("earth = [1, 1, 2, 2, 3, 3, 4, 4]",
                                             "earth = [4, 4, 3, 3, 2, 2, 1, 1]"))
    analyzer.simulate(games=20, out=tmp_path / "r14.parquet")
    analyzer.simulate(games=20, cards=mine, out=tmp_path / "mine.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "mine.parquet"],
                          tmp_path / "rep") / "report.md").read_text()
    assert "R14-default (edited) (sha256 " in md
    assert "holds the same cards as R14-default (sha256 " in md
    assert "kind for kind, in another order: each seed deals other games" in md


def test_a_set_kept_by_one_of_its_runs_is_shown_whatever_the_order(tmp_path):
    """Two runs of one edited card file, one written before results kept their cards: the
    cards the other kept are shown, given first or last."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "mine"')
                    .replace("count = 8", "count = 6", 1))
    new, old = tmp_path / "new.parquet", tmp_path / "old.parquet"
    analyzer.simulate(games=20, cards=mine, out=new)
    analyzer.simulate(games=20, cards=mine, policy="random", out=old)
    _without_card_table(old)
    mine.write_text(mine.read_text().replace("count = 6", "count = 7", 1))
    for number, order in enumerate(([new, old], [old, new])):
        md = (analyzer.report(order, tmp_path / f"rep{number}") / "report.md").read_text()
        assert "6 chaos (±5 x6)" in md and "cannot be shown" not in md, order
        # the file named holds 7 now: a reader must not open it for the cards played
        assert "note       mine.toml does not hold these cards now (edited, moved or gone " \
            "since)" in md and str(tmp_path) not in md
    mine.write_text(mine.read_text().replace("count = 7", "count = 6", 1))
    md = (analyzer.report([new], tmp_path / "rep_again") / "report.md").read_text()
    assert "6 chaos (±5 x6)" in md and "does not hold these cards now" not in md


def test_a_card_change_counts_as_played_only_where_both_sets_played_it(tmp_path):
    """R14 with Chromatic Chaos beside a file changing the Chromatic Chaos played without
    them: no game had the file's Chromatic cards."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text().replace('name = "R14-default"', 'name = "mine"')
    chromatic = text.index("[dreams.chromatic]")
    mine.write_text(text[:chromatic] + text[chromatic:].replace("value = 4", "value = 3", 1))
    analyzer.simulate(games=20, expansions="chromatic_chaos", out=tmp_path / "r14.parquet")
    analyzer.simulate(games=20, cards=mine, out=tmp_path / "mine.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "mine.parquet"],
                          tmp_path / "rep") / "report.md").read_text()
    assert "chromatic_chaos chromatic ±3: 0 -> 8  (in play in the run of R14-default only)" \
        in md
    analyzer.simulate(games=20, cards=mine, expansions="chromatic_chaos",
                      out=tmp_path / "both.parquet")
    md = (analyzer.report([tmp_path / "r14.parquet", tmp_path / "both.parquet"],
                          tmp_path / "rep2") / "report.md").read_text()
    assert "chromatic_chaos chromatic ±3: 0 -> 8\n" in md


def test_a_kept_card_table_that_does_not_hash_to_its_set_is_not_shown():
    """A card table edited in the metadata (or damaged) is not taken for the cards played."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import packed_table, unpacked_table

    shipped = default_card_set()
    packed = packed_table(shipped)
    back = unpacked_table(packed, shipped.name, shipped.digest, "x")
    assert back is not None and np.array_equal(back.cards, shipped.cards)
    other = packed_table(replace(shipped, cards=shipped.cards + 1))
    assert unpacked_table(other, shipped.name, shipped.digest, "x") is None
    assert unpacked_table({**packed, "cards": "not base64!"}, shipped.name, shipped.digest,
                          "x") is None
    assert unpacked_table(None, shipped.name, shipped.digest, "x") is None


def test_runs_of_one_configuration_on_common_games_are_refused(tmp_path):
    """A copy of a file, a run played again, or a run and a piece of it: the same games
    played alike, whose difference of exactly zero would read as a measurement."""
    from analyzer.errors import UrbionError

    whole, copy, piece = (tmp_path / f"{name}.parquet" for name in ("whole", "copy", "piece"))
    analyzer.simulate(games=30, seed=4, out=whole)
    copy.write_bytes(whole.read_bytes())
    analyzer.simulate(games=10, seed=4, first_game=10, out=piece)
    for pair, common in (([whole, copy], "30 games from game 0"),
                         ([piece, whole], "10 games from game 10")):
        with pytest.raises(UrbionError) as err:
            load_runs(pair)
        assert f"{pair[0]} and {pair[1]} hold the same games of one configuration " \
               f"({common} of seed 4," in str(err.value)
    # the same games ended otherwise: one file is not what it names
    edited = analyzer.read_results(whole)
    edited.loc[edited["game"] == 3, "turns"] += 1
    edited.to_parquet(tmp_path / "edited.parquet")
    with pytest.raises(UrbionError, match="name one configuration .* but end game 3 "
                                          "differently: one of them was edited"):
        load_runs([whole, tmp_path / "edited.parquet"])
    # a copy whose loss reasons keep other categories: the same games, refused as such
    recoded = analyzer.read_results(whole)
    recoded["reason"] = recoded["reason"].cat.remove_unused_categories()
    recoded.to_parquet(tmp_path / "recoded.parquet")
    with pytest.raises(UrbionError, match="hold the same games of one configuration"):
        load_runs([whole, tmp_path / "recoded.parquet"])
    # two samples of one configuration, apart: compared as they are
    analyzer.simulate(games=10, seed=4, first_game=100, out=tmp_path / "apart.parquet")
    assert len(load_runs([whole, tmp_path / "apart.parquet"])) == 2


def test_pieces_of_one_run_are_joined_into_it(tmp_path):
    """A run played in parts (games 0-9, 10-19, 20-29, given out of order) is the run of
    games 0-29: same games, same results, provenance naming its pieces."""
    whole = analyzer.simulate(games=30, seed=4)
    paths = [tmp_path / f"part{first}.parquet" for first in (20, 0, 10)]
    for path, first in zip(paths, (20, 0, 10), strict=True):
        analyzer.simulate(games=10, seed=4, first_game=first, out=path)
    runs = load_runs(paths)
    assert list(runs) == ["greedy / base / seed 4"]
    joined = runs["greedy / base / seed 4"]
    pd.testing.assert_frame_equal(joined.reset_index(drop=True), whole)
    assert joined.attrs["first_game"] == 0 and joined.attrs["games"] == 30
    analyzer.report(paths, tmp_path / "rep")
    assert "games 0-29 (joined from 3 files)" in (tmp_path / "rep" / "report.md").read_text()


def test_pieces_with_a_gap_or_of_another_configuration_stay_apart(tmp_path):
    paths = {name: tmp_path / f"{name}.parquet" for name in ("first", "gap", "other")}
    analyzer.simulate(games=10, seed=4, out=paths["first"])
    analyzer.simulate(games=10, seed=4, first_game=20, out=paths["gap"])
    analyzer.simulate(games=10, seed=5, first_game=10, out=paths["other"])
    labels = list(load_runs(list(paths.values())))
    assert labels == ["greedy / base / seed 4 / games 0-9", "greedy / base / seed 4 / games 20-29",
                      "greedy / base / seed 5"]


def test_a_precision_comparisons_batches_report_as_one_run_a_set(tmp_path):
    """``compare --precision`` writes a file per batch; its report has one run per set, and
    the base game and Books are compared paired over all their games."""
    analyzer.compare(sets="base,books", games=20, precision=0.01, max_games=60,
                     out=tmp_path / "cmp")
    files = sorted((tmp_path / "cmp" / "results").glob("*.parquet"))
    assert len(files) == 6
    runs = load_runs(files)
    assert sorted(len(df) for df in runs.values()) == [60, 60]
    from analyzer.analysis import run_stats

    difference = run_stats.differences(runs)
    assert difference["paired"].all() and (difference["games"] == 60).all()


def test_a_chart_of_every_set_has_no_empty_band_and_an_axis_at_both_ends():
    """128 sets make a chart thousands of pixels tall: the bars fill it from the top to the
    bottom (no margin of several bars' height), and the scale and its unit are read at the
    top as well as at the bottom."""
    from analyzer.analysis.expansion_sets import expansion_sets, set_label
    from analyzer.reporting import charts

    labels = [set_label(s) for s in expansion_sets("all")]
    rates = np.linspace(0.0, 0.3, len(labels))
    table = pd.DataFrame({"win_rate": rates, "ci_low": rates * 0.9, "ci_high": rates * 1.1,
                          "difference": rates - 0.08, "diff_low": rates - 0.09,
                          "diff_high": rates - 0.07}, index=labels)
    for make in (charts.win_rates, charts.differences):
        fig = make(table)
        ax = fig.axes[0]
        ticks = ax.get_yticks()
        bottom, top = ax.get_ylim()
        # a row's name takes at most 3 lines (7 expansions: 7 lines, each under 1 row)
        assert top == -0.5 and ticks[0] - top < 1.5 and bottom - ticks[-1] < 1.5, \
            make.__name__
        tops = [child for child in ax.get_children()
                if type(child).__name__ == "SecondaryAxis"]
        assert len(tops) == 1 and tops[0].get_xlabel() == ax.get_xlabel(), make.__name__
    small = charts.win_rates(table.iloc[:3])
    assert small.axes[0].get_ylim() == (2.5, -0.5)
    assert not [child for child in small.axes[0].get_children()
                if type(child).__name__ == "SecondaryAxis"]


def test_a_chart_of_many_sets_names_them_by_a_grid_of_their_expansions():
    """128 sets named by their wrapped names made a chart of 13,000 pixels: from
    GRID_FROM sets on, a grid of dots says which expansions each row's set holds, one line
    a row, and the base game, which holds none, is named."""
    from matplotlib.colors import to_rgba

    from analyzer.analysis.compare import chart_members, chart_table
    from analyzer.analysis.expansion_sets import EXPANSION_TITLES, expansion_sets, set_label
    from analyzer.reporting import charts

    labels = [set_label(s) for s in expansion_sets("all")]
    rates = np.linspace(0.3, 0.0, len(labels))  # the base game easiest: ranked last
    table = pd.DataFrame({"win_rate": rates, "ci_low": rates * 0.9, "ci_high": rates * 1.1,
                          "difference": rates - 0.3, "diff_low": rates - 0.31,
                          "diff_high": rates - 0.29, "rank": range(len(labels), 0, -1)},
                         index=labels)
    shown, members = chart_table(table), chart_members(table)
    assert list(members.columns) == list(EXPANSION_TITLES.values())
    assert members.index.equals(shown.index)
    for fig, rows in ((charts.win_rates(shown, "base game", members), shown),
                      (charts.differences(shown.drop(index="base game"), members),
                       shown.drop(index="base game"))):
        ax, grid = fig.axes[0], fig.axes[1]
        assert fig.get_figheight() < 40  # 0.2 inch a row, not up to 1.8
        assert [t.get_text() for t in grid.get_xticklabels()] == list(members.columns)
        assert ax.yaxis.get_tick_params()["labelleft"] is False  # the grid names them
        dark = [c for c in grid.collections if tuple(c.get_facecolor()[0]) == to_rgba("0.2")]
        held = {(round(x), round(y)) for c in dark for x, y in c.get_offsets()}
        expected = {(column, round(y)) for y, name in zip(ax.get_yticks(), rows.index,
                                                         strict=True)
                    for column, on in enumerate(members.loc[name]) if on}
        assert held == expected
    named = [t.get_text() for t in charts.win_rates(shown, "base game", members).axes[1]
             .get_yticklabels()]
    assert named[-1] == "base game" and set(named[:-1]) == {""}
    # 13 sets: the differences chart, of 12 without the base game, names them alike
    thirteen = table.iloc[:13]
    shown, members = chart_table(thirteen), chart_members(thirteen)
    assert len(charts.win_rates(shown, "base game", members).axes) == 2
    assert len(charts.differences(shown.drop(index="base game"), members).axes) == 2
    # a few sets keep their names, and one axes
    few = table.loc[["base", "books", "chromatic_chaos"]]
    fig = charts.win_rates(chart_table(few), "base game", chart_members(few))
    assert len(fig.axes) == 1
    assert "Chromatic Chaos" in [t.get_text() for t in fig.axes[0].get_yticklabels()]


def _fake_run(wins: int, games: int = 40, turns: int = 20) -> pd.DataFrame:
    """A results frame with what the charts read: ``wins`` won games out of ``games``."""
    won = np.arange(games) < wins
    return pd.DataFrame({"game": np.arange(games), "won": won,
                         "turns": turns + np.arange(games) % 7,
                         "reason": np.where(won, "", np.where(np.arange(games) % 5, "deck_empty",
                                                              "inhabitants")),
                         "deck_left": np.where(won, np.arange(games) % 4, 0),
                         "pacified": 8 + np.arange(games) % 3, "chaos_placed": 1.0,
                         "chaos_cleared": 0.5, "chaos_revealed": 4.0})


def test_a_run_keeps_its_line_style_on_every_chart_and_many_runs_stay_distinct():
    """A run with no win draws no margin line, yet the runs after it keep the colours the
    other charts give them, and it is still listed; more runs than colours are told apart
    by the line's dash."""
    from analyzer.reporting import charts

    runs = {f"run {n}": _fake_run(0 if n == 0 else n, turns=20 + n) for n in range(12)}

    def styles(fig):
        return {line.get_label(): (line.get_color(), line.get_linestyle())
                for line in fig.axes[0].get_lines() if not line.get_label().startswith("_")}

    survival = styles(charts.survival(runs))
    assert len(set(survival.values())) == len(runs)
    # not by colour alone: the first twelve runs each have a dash and marker of their own
    assert len({(charts._line_style(n)["linestyle"], charts._line_style(n)["marker"])
                for n in range(12)}) == 12
    bars = charts.chaos_choices({"a": _fake_run(1), "b": _fake_run(2)}).axes[0]
    hatches = [bar.get_hatch() or "" for bars in bars.containers for bar in bars[:1]]
    assert len(hatches) >= 3 and len(set(hatches)) == len(hatches)  # a hatch each
    fig, ax = charts._new_figure(3, 3)
    ax.errorbar([1, 2], [1, 2], yerr=[0.1, 0.1])  # no bars to hatch: left alone
    ax.bar([1, 2], [1, 2])
    charts._hatched(ax)
    assert [bar.get_hatch() or "" for bar in ax.containers[1]] == ["", ""]
    assert len({(charts._line_style(n)["color"], charts._line_style(n)["linestyle"])
                for n in range(40)}) == 40
    # a line hidden under an earlier one (run 8's shares are run 4's) says so on a line of
    # its own
    margin = {label.split("\n")[0]: style
              for label, style in styles(charts.margin_at_victory(runs)).items()}
    for n, label in enumerate(runs):
        if n:  # with how many wins its line rests on
            wins = f"{n} win" if n == 1 else f"{n} wins"
            assert margin[f"{label} ({wins})"] == survival[label], label
    legend = [t.get_text() for t in charts.margin_at_victory(runs).axes[0]
              .get_legend().get_texts()]
    assert any(text.startswith("run 0") for text in legend)
    assert styles(charts.convergence(runs)) == survival


def test_many_runs_draw_a_panel_each_on_common_scales_with_the_first_run_in_grey():
    """Thirteen runs or more over one another could not be followed (a report of a
    comparison's 29 sets drew 29 lines on one plot): each run gets a panel named by it,
    drawn in its own style, on scales common to all, with the first run's line in grey."""
    from analyzer.analysis.totals import frame_totals
    from analyzer.reporting import charts

    runs = {f"run {n}": _fake_run(n % 5 * 8, turns=20 + n) for n in range(13)}
    runs["run 12"] = runs["run 1"]  # a line another run's: the same, not "under it"
    # a summary file: no figures of each game
    runs["run 5"] = frame_totals(analyzer.simulate(games=40, seed=5))
    for draw, key in ((charts.survival, run_stats.survival),
                      (charts.convergence, lambda df: run_stats.convergence(df)["win_rate"]),
                      (charts.margin_at_victory, None)):
        fig = draw(runs)
        panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
        assert len(panels) == len(runs), draw
        assert len({ax.get_xlim() for ax in panels}) == 1, draw
        assert len({ax.get_ylim() for ax in panels}) == 1, draw
        assert fig.axes[0].get_legend() is None, draw
        for index, (name, ax) in enumerate(zip(runs, panels, strict=True)):
            assert ax.get_title().startswith(name), (draw, name)
            lines = [line for line in ax.get_lines() if len(line.get_xdata())]
            own = [line for line in lines if line.get_color() == charts.COLOURS[index % 10]]
            grey = [line for line in lines if line.get_color() == "0.65"]
            if index == 0:
                assert not grey, draw
            elif draw is not charts.margin_at_victory:  # run 0 wins none: no margin line
                assert len(grey) == 1, (draw, name)
                if key is not None:
                    np.testing.assert_allclose(grey[0].get_ydata(),
                                               np.asarray(key(runs["run 0"])) * 100)
            if name == "run 5" and draw is not charts.survival:
                assert not own and charts.NO_GAMES in ax.get_title(), draw
            elif draw is charts.margin_at_victory and index % 5 == 0:
                assert not own and "(no win)" in ax.get_title(), draw
            else:
                assert len(own) == 1, (draw, name)
                assert own[0].get_linestyle() == charts._line_style(index)["linestyle"]
        assert "(the same" in panels[12].get_title() and "run 1" in \
            panels[12].get_title().split("same")[1], draw
        assert not any("under it" in ax.get_title() for ax in panels), draw
        assert "run 0 in grey" in fig.get_suptitle(), draw
        # the common scales' numbers on the left column and under each column's lowest
        # panel only (13 panels: four columns, the last row one panel)
        fig.canvas.draw()

        def numbered(labels) -> bool:
            return any(label.get_visible() and label.get_text() for label in labels)

        assert [numbered(ax.get_yticklabels()) for ax in panels[:5]] == \
            [True, False, False, False, True], draw
        assert [numbered(ax.get_xticklabels()) for ax in panels] == \
            [False] * 9 + [True] * 4, draw
    # a line of few games, off the top, says so within its panel's width
    few = dict(runs, **{"run 3": _fake_run(1, games=40).assign(deck_left=3)})
    titles = [ax.get_title() for ax in charts.margin_at_victory(few).axes
              if ax.get_title().startswith("run 3")]
    assert titles and "off the top" in titles[0]
    assert max(len(line) for line in titles[0].splitlines()) <= charts.PANEL_LABEL_WIDTH
    fewer = charts.survival(dict(list(runs.items())[:12]))
    assert len(fewer.axes) == 1 and fewer.axes[0].get_legend() is not None


def test_results_files_of_one_name_are_told_apart_by_their_last_folders(tmp_path,
                                                                         monkeypatch):
    """Two comparisons' base games, both base.games-0-19.parquet, were listed by the same
    name twice: a reader could not tell which was which."""
    from analyzer.reporting.names import shared_files

    monkeypatch.chdir(tmp_path)
    for name, cards_seed in (("r14", 1), ("weak", 2)):
        (tmp_path / name / "results").mkdir(parents=True)
        analyzer.simulate(games=20, seed=cards_seed,
                          out=tmp_path / name / "results" / "base.games-0-19.parquet")
    analyzer.simulate(games=20, seed=3, out=tmp_path / "r14" / "results" / "other.parquet")
    md = (analyzer.report(["r14/results/base.games-0-19.parquet",
                           str(tmp_path / "weak/results/base.games-0-19.parquet"),
                           "r14/results/other.parquet"], "rep") / "report.md").read_text()
    assert ("- **results files**: r14/results/base.games-0-19.parquet, "
            "weak/results/base.games-0-19.parquet, other.parquet\n") in md
    assert str(tmp_path) not in md
    assert shared_files([r"C:\Users\al\a\x.parquet", "/home/al/b/x.parquet"]) == \
        ["a/x.parquet", "b/x.parquet"]


def test_a_bar_charts_legend_covers_no_bar():
    """Loss reasons and Chaos choices reach across the plot: their legend lies beside it."""
    from analyzer.reporting import charts

    runs = {f"run {n}": _fake_run(1) for n in range(4)}
    tables = pd.DataFrame({"win_rate": [0.10, 0.20, 0.50], "ci_low": [0.05, 0.15, 0.45],
                           "ci_high": [0.15, 0.25, 0.55]}, index=["base", "a", "b"])
    for make in (charts.loss_reasons, charts.chaos_choices,
                 lambda _: charts.win_rates(tables)):
        fig = make(runs)
        renderer = drawn(fig)
        legend = fig.axes[0].get_legend().get_window_extent(renderer)
        for bar in fig.axes[0].patches:
            box = bar.get_window_extent(renderer)
            assert not legend.overlaps(box) or box.width == 0, getattr(make, "__name__", "")


def test_the_chaos_chart_shows_chromatic_chaos_when_a_run_played_them():
    """Chromatic Chaos are Chromatic Chaos' main card: a chart of how Chaos were taken that
    left them out would hide that expansion's card from its own comparison."""
    from analyzer.reporting import charts

    base = analyzer.simulate(games=200, seed=1)
    chromatic = analyzer.simulate(games=200, seed=1, expansions="chromatic_chaos")
    bars = {text.get_text(): text for text in charts.chaos_choices(
        {"base": base, "chromatic": chromatic}).axes[0].get_legend().get_texts()}
    assert "Chromatic Chaos resolved" in bars
    expected = chromatic["chromatic"].mean()
    assert expected > 1 and run_stats.chaos_choices(chromatic, True)[
        "Chromatic Chaos resolved"] == expected
    alone = charts.chaos_choices({"base": base}).axes[0].get_legend().get_texts()
    assert "Chromatic Chaos resolved" not in [text.get_text() for text in alone]
    # the drawn bar of the Chromatic run is its mean, read off the chart itself
    ax = charts.chaos_choices({"chromatic": chromatic}).axes[0]
    widths = [bar.get_width() for bar in ax.patches]
    assert widths[-1] == pytest.approx(expected)
    # a results file of an older version without the count, beside one with it
    older = base.drop(columns="chromatic")
    older.attrs = base.attrs
    charts.chaos_choices({"older": older, "chromatic": chromatic})


def test_the_report_names_the_wilson_interval_and_holm_adjusts_the_paired_tests():
    """With several runs against the first, each McNemar p is one test of several: the
    table gives Holm's adjustment over the paired runs too, and says when a run differs."""
    from analyzer.reporting.balance_report import headline_rows, markdown, page
    from analyzer.reporting.differences import DIFFERENCES_NOTES, difference_rows

    table = pd.DataFrame({"against": ["a"] * 3, "games": [100, 100, 80],
                          "win_rate": [0.15, 0.08, 0.11], "against_rate": [0.1, 0.1, 0.1],
                          "difference": [0.05, -0.02, 0.01], "low": [0.01, -0.06, -0.08],
                          "high": [0.09, 0.02, 0.10], "paired": [True, True, False],
                          "whole": [True, True, False], "p": [0.02, 0.4, 0.7],
                          "test": ["McNemar", "McNemar", "Fisher"],
                          "mcnemar_p": [0.02, 0.4, np.nan]},
                         index=["b", "c", "d"])
    rows = difference_rows(table)
    assert rows[0][-2:] == ["p (test)", "Holm p"]
    # independent runs count in Holm's family as paired ones do
    holm = holm_adjust([0.02, 0.4, 0.7])
    assert [row[-1] for row in rows[1:]] == [f"{h:.3g}" for h in holm]
    assert [row[-2] for row in rows[1:]] == ["0.02 (McNemar)", "0.4 (McNemar)", "0.7 (Fisher)"]
    assert any("Holm p is below 0.05" in note for note in DIFFERENCES_NOTES)
    headline = headline_rows(pd.DataFrame(
        {"games": [100], "wins": [8], "win_rate": [0.08], "ci_low": [0.04], "ci_high": [0.15],
         "mean_turns": [25.0], "mean_pacified": [10.0]}, index=["a"]))
    assert headline[0][4] == "95% Wilson interval"
    md = markdown(headline, {}, [], rows)
    assert "| 95% Wilson interval |" in md and "| p (test) | Holm p |" in md
    html_page = page(headline, {}, {}, [], rows)
    assert "<th scope='col'>Holm p</th>" in html_page
    # the note on the columns is a list, one item a column, not one long paragraph
    assert "\n- Win rates compared: the run's" in md and "\n- Changes: what" in md
    assert "<li>Holm p: that p adjusted" in html_page
    from analyzer.reporting import charts

    fig = charts.convergence({"a": _fake_run(3)})
    assert "95% Wilson" in fig.axes[0].get_title()


def test_a_coloured_heatmap_cell_never_reads_as_an_interval_holding_zero():
    """A cell whose interval just excludes zero (+1.535 +- 1.505 pp) is coloured, and its
    text does not round to '+1.5 +-1.5'; the title says the intervals are not adjusted."""
    import numpy as np

    from analyzer.reporting import charts

    table = pd.DataFrame([{"pair": "books+emptiness", "first": "books", "second": "emptiness",
                           "games": 3000, "interaction": 0.01535, "low": 0.0003,
                           "high": 0.0304}]).set_index("pair")
    fig = charts.interactions(table)
    ax = fig.axes[0]
    coloured = ax.images[1].get_array()
    assert np.isfinite(np.ma.filled(coloured, np.nan)).sum() == 2  # the cell and its mirror
    texts = [t.get_text() for t in ax.texts]
    assert texts and all(t == "+1.54\n±1.51" for t in texts)  # 1.505 rounds either way
    assert "not adjusted for the number of pairs" in fig.get_suptitle()
    # the additive scale's blind spot is said under the chart itself, and stays there when
    # the chart is given its source line
    charts.caption(fig, "card set R14-default · policy greedy · seed 0")
    footer = fig.get_supxlabel().replace("\n", " ")
    assert "effects that multiply (as chances often do) show here as interactions of " \
        "either sign" in footer
    assert footer.endswith("  card set R14-default · policy greedy · seed 0")


@pytest.mark.parametrize("n_expansions", [2, 3, 7])
def test_every_text_of_the_heatmap_lies_within_the_image(n_expansions):
    """With two or three expansions the figure is narrow: its title, colour-bar label, scale
    note and source line are wrapped to fit, none cut off at an edge, and the note and
    source line, under the tick labels, overlap none of them (they ran past the edge with
    two expansions and over the tick labels with three)."""
    from itertools import combinations

    from analyzer.analysis.expansion_sets import set_title
    from analyzer.core.codes import PLAYABLE_EXPANSIONS
    from analyzer.reporting import charts

    names = [set_title(name) for name in PLAYABLE_EXPANSIONS[:n_expansions]]
    table = pd.DataFrame([{"pair": f"{a}+{b}", "first": a, "second": b, "games": 3000,
                           "interaction": -0.1954, "low": -0.21, "high": -0.18}
                          for a, b in combinations(names, 2)]).set_index("pair")
    fig = charts.caption(charts.interactions(table), "card set R14-default (sha256 "
                         "d74bfe7f2d40) · policy greedy · seed 0 · games 5,000 · solo game · "
                         "rules urbion-2e/expansions-4")
    renderer = drawn(fig)
    heatmap, bar = fig.axes
    texts = {"title": fig._suptitle, "colour-bar label": bar.yaxis.label,
             "scale note and source line": fig._supxlabel,
             **{tick.get_text(): tick for tick in heatmap.get_xticklabels()}}
    for name, text in texts.items():
        box = text.get_window_extent(renderer)
        assert text.get_text() and box.x0 >= 0 and box.y0 >= 0, name
        assert box.x1 <= fig.bbox.x1 and box.y1 <= fig.bbox.y1, name
    footer = fig.get_supxlabel().replace("\n", " ")
    assert "effects that multiply" in footer and footer.endswith("expansions-4")
    lowest_tick = min(t.get_window_extent(renderer).y0 for t in heatmap.get_xticklabels())
    assert fig._supxlabel.get_window_extent(renderer).y1 < lowest_tick


def test_a_heatmap_cell_holm_does_not_uphold_stays_grey():
    """Its interval leaves zero out, but over the pairs Holm's adjustment does not show the
    interaction: grey, as its Holm p in the table says."""
    import numpy as np

    from analyzer.reporting import charts

    rows = [{"pair": "a+b", "first": "a", "second": "b", "games": 3000, "interaction": 0.02,
             "low": 0.001, "high": 0.039, "holm_p": 0.12},
            {"pair": "a+c", "first": "a", "second": "c", "games": 3000, "interaction": 0.05,
             "low": 0.03, "high": 0.07, "holm_p": 0.0004}]
    ax = charts.interactions(pd.DataFrame(rows).set_index("pair")).axes[0]
    coloured = np.isfinite(np.ma.filled(ax.images[1].get_array(), np.nan))
    assert coloured.sum() == 2 and coloured[0, 2] and not coloured[0, 1]  # a+c and mirror


def test_a_heatmap_cell_at_the_0_percent_floor_stays_grey_and_says_so():
    """Postcards and the Emptiness each take greedy's win rate near 0%: their effects added
    up would go below it, and the pair reads +3.95 pp however hard it is. Not coloured as
    "more than the single effects add up to"; marked."""
    import numpy as np

    from analyzer.reporting import charts

    rows = [{"pair": "a+b", "first": "a", "second": "b", "games": 2000, "interaction": 0.0395,
             "low": 0.0254, "high": 0.0536, "holm_p": 1e-6, "pair_win_rate": 0.001},
            {"pair": "a+c", "first": "a", "second": "c", "games": 2000, "interaction": 0.05,
             "low": 0.03, "high": 0.07, "holm_p": 0.0004, "pair_win_rate": 0.2}]
    ax = charts.interactions(pd.DataFrame(rows).set_index("pair")).axes[0]
    coloured = np.isfinite(np.ma.filled(ax.images[1].get_array(), np.nan))
    assert coloured.sum() == 2 and coloured[0, 2] and not coloured[0, 1]  # a+c and mirror
    floors = [t.get_text() for t in ax.texts if "at 0% floor" in t.get_text()]
    assert len(floors) == 2 and all(t.startswith("+3.95") for t in floors)
    assert "marked at 0% floor and left grey" in \
        ax.get_figure().get_supxlabel().replace("\n", " ")


def test_an_uneven_interval_is_drawn_as_its_two_ends_and_coloured_as_they_read():
    """Games all alike give an interval uneven about the estimate (compare._alike_interval):
    the cell gives both ends, and is coloured only where they leave zero out."""
    import numpy as np

    from analyzer.reporting import charts

    rows = [{"pair": "a+b", "first": "a", "second": "b", "games": 20, "interaction": 1.0,
             "low": 0.4947, "high": 1.1684},
            {"pair": "a+c", "first": "a", "second": "c", "games": 20, "interaction": 0.0,
             "low": -0.3369, "high": 0.3369},
            {"pair": "b+c", "first": "b", "second": "c", "games": 300, "interaction": 0.01,
             "low": -0.02, "high": 0.0301}]
    ax = charts.interactions(pd.DataFrame(rows).set_index("pair")).axes[0]
    texts = sorted({t.get_text() for t in ax.texts})
    assert texts == ["+0.00\n±33.69", "+1.00\n-2.00 to\n+3.01", "+100.00\n+49.47 to\n+116.84"]
    coloured = np.isfinite(np.ma.filled(ax.images[1].get_array(), np.nan))
    assert coloured.sum() == 2  # a+b and its mirror


@pytest.mark.parametrize("interaction, low, high", [
    (0.015004, 0.0000041, 0.030004),  # excludes zero, but reads "+1.50 +-1.50"
    (0.01, 0.01, 0.01),  # zero width: no interval at all
    (-967 / 20000, -967 / 20000 - 0.0483, -967 / 20000 + 0.0483),  # reads "-4.83 +-4.83"
])
def test_a_heatmap_cell_is_coloured_only_as_it_reads(interaction, low, high):
    import numpy as np

    from analyzer.reporting import charts

    table = pd.DataFrame([{"pair": "books+emptiness", "first": "books", "second": "emptiness",
                           "games": 3, "interaction": interaction, "low": low,
                           "high": high}]).set_index("pair")
    coloured = charts.interactions(table).axes[0].images[1].get_array()
    assert not np.isfinite(np.ma.filled(coloured, np.nan)).any()


def test_two_card_sets_of_one_name_are_told_apart_by_their_hash(tmp_path):
    """Two files named alike with other cards: each run's label and provenance name the
    hash of its own, and no chart claims one card set for both."""
    from analyzer.reporting import charts, facts

    paths = []
    for folder, count in (("a", 6), ("b", 10)):
        cards = tmp_path / f"{folder}.toml"
        cards.write_text(TINY_CARDS.read_text()
                         .replace('name = "R14-default"', 'name = "mine"')
                         .replace("[dreams.chaos]\ncount = 8", f"[dreams.chaos]\ncount = {count}"))
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "r.parquet")
        analyzer.simulate(games=20, cards=cards, out=paths[-1])
    runs = load_runs(paths)
    digests = [df.attrs["card_set_sha256"][:12] for df in runs.values()]
    for label, digest in zip(runs, digests, strict=True):
        assert f"card set mine (sha256 {digest})" in label
    lines = facts.provenance(runs)["runs"].split("; ")
    for line, digest in zip(lines, digests, strict=True):
        assert f"card set mine (sha256 {digest})" in line
    assert "card set" not in charts.source_line(facts.shared_attrs(runs))


def test_a_results_file_with_a_game_twice_is_refused(results, tmp_path):
    """Pairing runs on their common games needs each game once; the tool never writes a
    game twice, so such a file was made by hand."""
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = read_results(results[0])
    twice = pd.concat([df, df.iloc[:1]], ignore_index=True)
    twice.attrs = df.attrs
    path = tmp_path / "twice.parquet"
    write_results(twice, path)
    with pytest.raises(ResultsFileError, match=f"game {int(df['game'].iloc[0])} appears twice"):
        read_results(path)


def _in_a_loss(df: pd.DataFrame, **cells: object) -> pd.DataFrame:
    """``df`` with ``cells`` (column: value) written into its first lost game."""
    edited = df.assign(reason=df["reason"].astype(str))
    first = edited.index[~edited["won"]][0]
    for column, value in cells.items():
        edited.loc[first, column] = value
    return edited


@pytest.mark.parametrize("damage, message", [
    (lambda df: df.assign(won=df["won"].astype("boolean").mask(df.index == 3)),
     "column won has an empty cell in game 3"),
    (lambda df: df.assign(reason=df["reason"].astype(str).replace("deck_empty", "lost")),
     "reason 'lost' is none of none, all_pacified, deck_empty"),
    (lambda df: df.assign(reason=np.arange(len(df))), "reason '0' is none of"),
    # figures no game ends with: the survival chart counted turns with np.bincount
    (lambda df: df.assign(turns=df["turns"].mask(df.index == 4, -5)),
     "column turns holds -5, below zero in game 4"),
    (lambda df: df.assign(pacified=df["pacified"].mask(df.index == 2, -3)),
     "column pacified holds -3, below zero in game 2"),
    (lambda df: df.assign(seats=df["seats"].mask(df.index == 1, 5)),
     "seats is 5, not 1 or 2 in game 1"),
    (lambda df: df.assign(won=df["won"] | (df.index == df.index[~df["won"]][0])),
     "won with reason deck_empty in game"),
    (lambda df: df.assign(won=False), "lost with reason all_pacified in game"),
    # a column of another kind: wins as 0 and 1, turns as floats
    (lambda df: df.assign(won=df["won"].astype("int8")),
     "column won holds values of type int8, where a run writes true/false"),
    (lambda df: df.assign(turns=df["turns"].astype("float64")),
     "column turns holds values of type float64, where a run writes integers"),
    # rows no game of the run's configuration ends with, once reported without a word
    (lambda df: _in_a_loss(df, pacified=99),
     "reason deck_empty with 99 City cards pacified, of the game's 12 in game"),
    (lambda df: _in_a_loss(df, won=True, reason="all_pacified", pacified=3),
     "reason all_pacified with 3 of the game's 12 City cards pacified in game"),
    (lambda df: _in_a_loss(df, reason="emptiness"),
     "reason emptiness: only emptiness gives it, and the run plays none in game"),
    (lambda df: _in_a_loss(df, reason="illegal_decision"),
     "reason illegal_decision: no game of a results file ends so in game"),
    (lambda df: df.assign(books_kept=df["books_kept"].mask(df.index == 7, 5)),
     "5 Books kept by a run without the Books in game 7"),
    (lambda df: df.assign(seats=2), "seats is 2 in a run of the solo game in game 0"),
    # a loss to the empty deck with cards in it (R13.2); inhabitants only the Postcards
    # score (R11.9)
    (lambda df: _in_a_loss(df, deck_left=20),
     "reason deck_empty with 20 cards left in the deck in game"),
    (lambda df: df.assign(inhabitants=df["inhabitants"].mask(df.index == 6, 5)),
     "an inhabitant sum of 5 in a run without the Postcards in game 6"),
])
def test_a_results_file_with_cells_no_run_writes_is_refused(tmp_path, damage, message):
    """Edited by hand: an empty win, a reason no rule gives. Read, they would be counted
    as losses of no reason, or as wins."""
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = analyzer.simulate(games=30, seed=3)
    edited = damage(df)
    edited.attrs = df.attrs
    path = tmp_path / "edited.parquet"
    write_results(edited, path)
    with pytest.raises(ResultsFileError, match=re.escape(message)):
        read_results(path)


@pytest.mark.parametrize("key, value, message", [
    ("variant", "team", "seats is 1 in a run of the team game in game 0"),
    ("engine", "quantum", "its configuration's engine is not one a run writes"),
    # printed on terminals and pages, where an escape sequence would act, not show
    ("commit", "\x1b]0;pwned\x07", "its configuration's commit is not one a run writes"),
    ("policy", "\x1b[2Jgreedy", "its configuration's policy is not one a run writes"),
    ("card_set", "mine\u202ereversed", "its configuration's card_set is not one a run "
                                       "writes"),
    ("expansions", ["books", "books"], "its configuration's expansions is not one a run "
                                       "writes"),
    ("city_cards", 3, "reason all_pacified with 12 of the game's 3 City cards pacified"),
])
def test_a_results_file_whose_configuration_its_rows_deny_is_refused(tmp_path, key, value,
                                                                     message):
    """A solo run relabelled the team game was reported, and its again command played the
    team game."""
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = analyzer.simulate(games=30, seed=3)
    df.attrs[key] = value
    path = tmp_path / "edited.parquet"
    write_results(df, path)
    with pytest.raises(ResultsFileError, match=re.escape(message)):
        read_results(path)


def test_a_results_file_with_a_joiner_in_a_printed_field_is_read(tmp_path):
    """A zero-width non-joiner is ordinary in a Persian file name, and so in a policy's
    path: a run's own file holding one was refused as one no run writes."""
    from analyzer.analysis.results_io import read_results, write_results

    df = analyzer.simulate(games=30, seed=3)
    df.attrs["commit"] = "r\u200cun"
    path = tmp_path / "joined.parquet"
    write_results(df, path)
    assert read_results(path).attrs["commit"] == "r\u200cun"


@pytest.mark.parametrize("games", ["lots", 30.5, -30, True])
def test_a_results_file_whose_game_count_is_no_count_is_refused(tmp_path, games):
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = analyzer.simulate(games=30, seed=3)
    df.attrs["games"] = games
    path = tmp_path / "edited.parquet"
    write_results(df, path)
    with pytest.raises(ResultsFileError, match=f"its configuration's games is "
                                               f"{re.escape(repr(games))}, not a count"):
        read_results(path)


def test_a_run_filtered_before_it_was_saved_is_refused(tmp_path, capsys):
    """The won games of a run, or its last half, saved with pandas: not the games its
    configuration names, so a report would show a 100% win rate or label games 500-999
    as 0-499."""
    from tests.test_cli import run

    df = analyzer.simulate(games=200, seed=3)
    for name, part in (("won", df[df.won]), ("half", df[df.game >= 100])):
        path = tmp_path / f"{name}.parquet"
        part.to_parquet(path)
        code, _, err = run(capsys, "report", str(path), "--out", str(tmp_path / name))
        assert code == 2 and err.count("\n") == 1, err
        assert f"holds {len(part)} of the games of a run of 200 (games 0-199)" in err
        assert not (tmp_path / name).exists()
    df.to_parquet(tmp_path / "whole.parquet")  # the whole run, saved the same way, is read
    code, _, err = run(capsys, "report", str(tmp_path / "whole.parquet"), "--out",
                       str(tmp_path / "whole"))
    assert code == 0, err


def test_the_scope_note_speaks_of_expansions_only_where_they_are_played():
    from analyzer.reporting.facts import scope_note

    base = scope_note([{"policy": "greedy", "card_set": "mine", "expansions": []}])
    assert "expansions" not in base and "meet the same cards very differently" in base
    played = scope_note([{"policy": "greedy", "card_set": "mine", "expansions": ["books"]}])
    assert "in the solo game, Hanging Gardens & Wizards adds about 30 points to the shipped " \
        "weighted policy" in played


def test_the_scope_note_says_the_policies_are_computer_players_and_how_a_team_plays():
    """A reader is not to take a heuristic's figures for a person's, nor the team game's
    for two players who each see one hand."""
    from analyzer.reporting.facts import scope_note

    one = scope_note([{"policy": "greedy", "card_set": "mine", "variant": "solo"}])
    assert "It is a computer player, not a person: a one-step heuristic that plays like a " \
        "careful beginner." in one
    assert "team game" not in one
    team = scope_note([{"policy": "weighted:w.toml", "card_set": "mine", "variant": "team"},
                       {"policy": "mine.py:choose", "card_set": "mine", "variant": "solo"}])
    assert "Each is a computer player, not a person: weighted:w.toml: greedy's heuristic " \
        "with the weights of its file; mine.py:choose: a program of its user's own." in team
    assert "In the team game one policy plays both seats, with both hands in view" in team


def test_the_provenance_names_the_file_a_card_set_was_read_from(tmp_path):
    from analyzer.reporting.facts import provenance

    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "mine"'))
    runs = {"a": analyzer.simulate(games=20, seed=1),
            "b": analyzer.simulate(games=20, seed=1, cards=mine)}
    facts = provenance(runs)["card sets"]
    assert f"mine (sha256 {runs['b'].attrs['card_set_sha256']}), from mine.toml" in facts
    assert "builtin" not in facts


def test_a_run_named_after_a_long_policy_path_is_wrapped_whole():
    """weighted:FILE names a run by its path: cut after its / and :, it fits the charts'
    label width (a one-line label of 90 characters collapsed the plotting area)."""
    from analyzer.reporting.charts import LABEL_WIDTH, wrap_label

    label = ("weighted:/tmp/aaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
             "bbbbbbbbbb/weighted-default.toml / base / seed 4")
    lines = wrap_label(label).split("\n")
    assert all(len(line) <= LABEL_WIDTH for line in lines)
    assert "".join(lines).replace(" ", "") == label.replace(" ", "")
    assert lines[0] == "weighted:/tmp/"


def test_a_run_saved_with_pandas_to_parquet_keeps_its_configuration(tmp_path):
    """A notebook user saves simulate's frame with pandas: its attrs go with it, and report
    reads the run as it reads simulate's own file; a frame of other attrs is refused."""
    from analyzer.analysis.results_io import ResultsFileError, read_results

    df = analyzer.simulate(games=60, seed=2)
    df.to_parquet(tmp_path / "pd.parquet")
    back = read_results(tmp_path / "pd.parquet")
    assert back.attrs == df.attrs and back["won"].tolist() == df["won"].tolist()
    assert (analyzer.report([tmp_path / "pd.parquet"], tmp_path / "rep") / "report.md").exists()
    other = df.copy()
    other.attrs = {"note": "mine"}
    other.to_parquet(tmp_path / "other.parquet")
    with pytest.raises(ResultsFileError, match="no run configuration"):
        read_results(tmp_path / "other.parquet")
    with pytest.raises(ResultsFileError, match="frame 1 is no run of urbion"):
        analyzer.report(other, tmp_path / "rep2")
    assert not (tmp_path / "rep2").exists()


def test_a_notebook_reports_the_frames_simulate_returned_as_their_files(tmp_path):
    """report([df, df2]) reads what the same runs' files give, figure for figure, leaves
    the frames as they were, and checks them as it checks files."""
    greedy = analyzer.simulate(games=80, seed=2)
    rand = analyzer.simulate(games=80, seed=2, policy="random")
    attrs = dict(greedy.attrs)
    greedy.to_parquet(tmp_path / "greedy.parquet")
    rand.to_parquet(tmp_path / "random.parquet")
    from_frames = (analyzer.report([greedy, rand], tmp_path / "frames") / "report.md")
    from_files = (analyzer.report([tmp_path / "greedy.parquet", tmp_path / "random.parquet"],
                                  tmp_path / "files") / "report.md")

    def tables(path):  # the page less its date line
        return [line for line in path.read_text().splitlines() if line.startswith("| ")]

    assert tables(from_frames) == tables(from_files)
    assert greedy.attrs == attrs and len(greedy) == 80
    with pytest.raises(UrbionError, match="frame 2: given twice"):
        analyzer.report([greedy, greedy], tmp_path / "twice")
    with pytest.raises(UrbionError, match="frame 1 holds 8 of the games of a run of 80"):
        analyzer.report([greedy.head(8)], tmp_path / "part")


def test_two_card_sets_of_one_name_lay_out_without_warnings(tmp_path):
    """Their labels carry the hashes; the chart breaks them before the bracket, names the
    reference line by its place rather than repeating a long label, and draws without
    matplotlib's layout warnings."""
    import warnings

    from analyzer.reporting import charts

    files = []
    for count in (6, 7):
        path = tmp_path / f"c{count}.toml"
        analyzer.write_card_template(path)
        text = path.read_text().replace('name = "R14-default"', 'name = "soft"')
        start = text.index("[dreams.chaos]")
        path.write_text(text[:start] + text[start:].replace("count = 8", f"count = {count}", 1))
        files.append(tmp_path / f"c{count}.parquet")
        analyzer.simulate(games=40, cards=path, out=files[-1])
    runs = load_runs(files)
    assert all("card set soft (sha256 " in label for label in runs)
    assert charts.wrap_label(next(iter(runs))).splitlines()[-1].startswith("(sha256 ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analyzer.report(files, tmp_path / "rep")
        figure = charts.win_rates(run_stats.headline(runs))
    legend = figure.axes[0].get_legend().get_texts()[0].get_text()
    assert legend.startswith("the top row: ")


def test_runs_that_end_every_game_alike_are_said_to(tmp_path):
    """weighted beside weighted:FILE holding the shipped weights: two names, one player. The
    differences row says every game ended alike, which a paired zero between two policies
    that differ does not."""
    import shutil

    from analyzer.policies import weights

    copy = tmp_path / "same.toml"
    shutil.copy(Path(weights.__file__).with_name("weighted-default.toml"), copy)
    files = []
    for name, policy in (("shipped", "weighted"), ("copy", f"weighted:{copy}"),
                         ("greedy", "greedy")):
        files.append(tmp_path / f"{name}.parquet")
        analyzer.simulate(games=400, seed=6, policy=policy, out=files[-1])
    md = (analyzer.report(files, tmp_path / "rep") / "report.md").read_text()
    rows = {line.split(" | ")[0]: line for line in md.splitlines()
            if line.startswith("| ") and " | weighted / base / seed 6 | " in line}
    assert len(rows) == 2
    same = next(row for label, row in rows.items() if "same.toml" in label)
    other = next(row for label, row in rows.items() if label.startswith("| greedy"))
    assert "| paired, 400 games, each ended alike |" in same and "| +0.00 pp |" in same
    assert "| paired, 400 games |" in other


def test_a_joined_run_keeps_what_its_weights_were_tuned_on_from_any_piece(tmp_path):
    """A piece played before its weights file had a [tuned] table (the same weights, so
    the same run) gives the joined run no tuning; a later piece that has one still does.
    Pieces played by two commits name both."""
    from analyzer.analysis.run_stats import join_pieces
    from analyzer.analysis.totals import frame_totals

    tuned = {"card_set": "R14-default", "card_set_sha256": "0" * 64,
             "expansions": ["books"], "variant": "solo"}
    pieces = [analyzer.simulate(games=10, seed=4, first_game=first) for first in (0, 10)]
    pieces[1].attrs["policy_tuned_for"] = tuned
    pieces[0].attrs["commit"], pieces[1].attrs["commit"] = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
    for runs in (pieces, [frame_totals(piece) for piece in pieces]):
        [(_, joined)] = join_pieces([(tmp_path / f"p{i}", run) for i, run in enumerate(runs)])
        assert joined.attrs["joined_files"] == 2
        assert joined.attrs["policy_tuned_for"] == tuned
        assert joined.attrs["commit"] == "aaaaaaaaaaaa, bbbbbbbbbbbb"  # both codes named


def test_the_charts_leave_the_callers_matplotlib_backend_alone():
    """A notebook's ``%matplotlib inline`` (or a Qt window) keeps working after a report:
    importing the chart and report code selects no backend."""
    code = ("import importlib, pkgutil, matplotlib; matplotlib.use('svg'); "
            "import analyzer, analyzer.reporting as reporting; "
            "[importlib.import_module(f'analyzer.reporting.{m.name}') "
            "for m in pkgutil.iter_modules(reporting.__path__)]; "
            "print(matplotlib.get_backend())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "svg"


def test_a_chart_is_a_figure_of_its_own_that_saves_without_pyplot(results):
    """The API's figures are not held by pyplot (the autouse guard checks the registry) and
    still draw to a file."""
    from matplotlib.figure import Figure

    from analyzer.reporting import charts

    fig = charts.survival({"base": pd.read_parquet(results[0])})
    assert isinstance(fig, Figure)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=folder,
                   check=True, capture_output=True)


def test_the_commit_recorded_is_the_packages_own_marked_dirty_when_edited(tmp_path,
                                                                          monkeypatch):
    """A results file names the code that played it: the package checkout's commit, with
    -dirty while a tracked file is edited; a package lying untracked inside some other
    repository (a virtual environment in a project) is "unknown", not that project's."""
    from analyzer.runner import config

    package = tmp_path / "repo" / "analyzer"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    (tmp_path / "repo" / "cli.py").write_text("y = 1\n")
    _git(tmp_path / "repo", "init", "-q")
    monkeypatch.setattr(config, "PACKAGE_DIR", package)
    assert config.package_commit.__wrapped__() == "unknown"  # not tracked yet
    _git(tmp_path / "repo", "add", ".")
    _git(tmp_path / "repo", "commit", "-q", "-m", "one")
    head = config.package_commit.__wrapped__()
    assert re.fullmatch(r"[0-9a-f]{12}", head)
    (package / "__init__.py").write_text("x = 2\n")
    assert config.package_commit.__wrapped__() == f"{head}-dirty"
    (package / "notes.txt").write_text("untracked files are no edit of the code\n")
    (package / "__init__.py").write_text("x = 1\n")
    assert config.package_commit.__wrapped__() == head
    (tmp_path / "repo" / "cli.py").write_text("y = 2\n")  # the front end parses options
    assert config.package_commit.__wrapped__() == f"{head}-dirty"
    # a checkout whose root is the package (vendored): no cli.py beside it, and clean
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "__init__.py").write_text("x = 1\n")
    _git(alone, "init", "-q")
    _git(alone, "add", ".")
    _git(alone, "commit", "-q", "-m", "one")
    monkeypatch.setattr(config, "PACKAGE_DIR", alone)
    assert re.fullmatch(r"[0-9a-f]{12}", config.package_commit.__wrapped__())


def test_the_reports_commit_is_the_one_its_runs_recorded_not_the_writers():
    """Results files carry the commit that played them; the report shows theirs, each
    with its runs when they differ, and says when a file recorded none."""
    from analyzer.reporting import facts
    from analyzer.runner.config import package_commit

    runs = {name: analyzer.simulate(games=5, seed=seed) for name, seed in (("a", 1), ("b", 2),
                                                                          ("c", 3))}
    assert runs["a"].attrs["commit"] == package_commit()
    runs["a"].attrs["commit"] = "0123456789ab"
    runs["b"].attrs["commit"] = "0123456789ab-dirty"
    assert facts.provenance(runs)["commit"] == \
        f"0123456789ab (a); 0123456789ab-dirty (b); {package_commit()} (c)"
    for df in runs.values():
        df.attrs["commit"] = "0123456789ab"
    assert facts.provenance(runs)["commit"] == "0123456789ab"
    del runs["c"].attrs["commit"]
    assert facts.provenance(runs)["commit"] == \
        "0123456789ab (a, b); not recorded in the results file (c)"


def test_a_shared_report_names_files_without_their_folders(tmp_path):
    """The page is passed on: card and weights files are named by their names (folders
    name a user's machine), two weights files of one name told apart by their parameters'
    hashes, in the labels, the provenance, the charts and every file written."""
    mine = tmp_path / "private" / "mine.toml"
    mine.parent.mkdir()
    analyzer.write_card_template(mine)
    weights = [tmp_path / folder / "w.toml" for folder in ("one", "two")]
    # tuned for the Postcards: the page notes that these runs play elsewhere, naming them
    tuned = ('[tuned]\ncard_set = "R14-default"\ncard_set_sha256 = "' + "0" * 64 + '"\n'
             'expansions = ["postcards"]\nvariant = "solo"\n')
    for path, value in zip(weights, ("20", "30"), strict=True):
        path.parent.mkdir()
        path.write_text(f"[weights]\nTURN = {value}\n\n{tuned}")
    runs = [analyzer.simulate(games=30, seed=2, policy=f"weighted:{path}", cards=mine)
            for path in weights]
    out = analyzer.report(runs, tmp_path / "rep")
    md = (out / "report.md").read_text()
    hashes = [run.attrs["policy_params_sha256"] for run in runs]
    for digest in hashes:
        assert f"weighted:w.toml / base / seed 2 / parameters sha256 {digest[:12]}" in md
        # the provenance gives the whole hash, which a reader checks a run against
        assert f"policy weighted:w.toml (parameters sha256 {digest})" in md
    assert "from mine.toml" in md
    assert "the weights of weighted:w.toml were tuned elsewhere" in md
    for written in out.iterdir():
        assert str(tmp_path).encode() not in written.read_bytes(), written.name


def test_a_comparisons_pages_name_files_without_their_folders(tmp_path):
    """compare's pages too: its notes name the policy the way the provenance does."""
    weights = tmp_path / "private" / "w.toml"
    weights.parent.mkdir()
    weights.write_text("[weights]\nTURN = 20\n")
    out = tmp_path / "cmp"
    analyzer.compare(sets="base,books", games=30, policy=f"weighted:{weights}", out=out)
    for name in ("compare.md", "index.html", "win_rates.svg", "differences.svg"):
        text = (out / name).read_text()
        assert "weighted:w.toml" in text and str(tmp_path) not in text, name


def test_a_report_written_twice_is_the_same_bytes_but_for_its_date(results, tmp_path):
    """Charts, tables and pages of the same runs do not change from one writing to the
    next (an SVG once carried its date and random ids): a reader can compare two copies."""
    first = analyzer.report(results, tmp_path / "one")
    second = analyzer.report(results, tmp_path / "two")
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    assert any(name.endswith(".svg") for name in names)
    date = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d UTC")
    for name in names:
        a, b = (first / name).read_bytes(), (second / name).read_bytes()
        assert date.sub(b"", a) == date.sub(b"", b), name


def test_a_pair_not_played_is_marked_so_on_the_heatmap_not_left_white_as_zero():
    """A report of hand-picked sets can lack a pair: its cell was white, as the diagonal
    and a zero interaction are."""
    from analyzer.reporting import charts

    rows = [{"pair": "a+b", "first": "a", "second": "b", "games": 20, "interaction": 0.0,
             "low": -0.1, "high": 0.1},
            {"pair": "b+c", "first": "b", "second": "c", "games": 20, "interaction": 0.05,
             "low": -0.1, "high": 0.2}]
    ax = charts.interactions(pd.DataFrame(rows).set_index("pair")).axes[0]
    marked = sorted(t.get_position() for t in ax.texts if t.get_text() == "no\ngames")
    # a+c, both ways round: names in order a, b, c, so cells (2, 0) and (0, 2)
    assert marked == [(0, 2), (2, 0)]
    assert "a pair with no games (not played, or no game in common with its single " \
        "expansions) is marked no games" in ax.get_figure().get_supxlabel().replace("\n", " ")


def test_every_shown_cell_of_the_heatmap_writes_its_number_in_a_colour_that_reads():
    """On the symmetric log scale a cell at half the scale's end is already dark red: its
    number was black on it (-21.65 beside a -36.10 cell), by a rule read on a linear
    scale. Every number now has WCAG's 4.5:1 contrast with its cell."""
    from matplotlib.colors import to_rgba

    from analyzer.reporting import charts

    def luminance(colour):
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
                  for c in colour[:3]]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    effects = {"a+b": -0.361, "a+c": -0.2165, "a+d": -0.1915, "b+c": -0.164, "b+d": -0.06,
               "c+d": 0.25}
    rows = [{"pair": pair, "first": pair[0], "second": pair[2], "games": 2000,
             "interaction": value, "low": value - 0.02, "high": value + 0.02,
             "holm_p": 1e-6} for pair, value in effects.items()]
    fig = charts.interactions(pd.DataFrame(rows).set_index("pair"))
    ax = fig.axes[0]
    image = ax.images[-1]
    data = image.get_array()
    checked = 0
    for text in ax.texts:
        j, i = (round(v) for v in text.get_position())
        if np.ma.is_masked(data[i, j]):
            continue
        cell = luminance(image.cmap(image.norm(data[i, j])))
        ink = luminance(to_rgba(text.get_color()))
        bright, dim = max(cell, ink), min(cell, ink)
        assert (bright + 0.05) / (dim + 0.05) >= 4.5, (text.get_text(), text.get_color())
        checked += 1
    assert checked == 2 * len(effects)


def test_the_differences_chart_tells_the_sets_the_tests_set_apart():
    """Every point was drawn alike: a reader of many sets could not see which the tests
    showed harder or easier without the tables."""
    from analyzer.reporting import charts

    table = pd.DataFrame({"difference": [-0.05, -0.01, 0.0, 0.2],
                          "diff_low": [-0.07, -0.03, 0.0, 0.18],
                          "diff_high": [-0.03, 0.01, 0.0, 0.22],
                          "holm_p": [1e-5, 0.4, 1.0, 1e-30]},
                         index=["Postcards", "Squares", "Books", "Chromatic Chaos"])
    ax = charts.differences(table).axes[0]
    lines = {bars.get_label(): bars.lines[0] for bars in ax.containers}
    assert set(lines) == {"shown: Holm p below 0.05", "not shown"}
    shown, other = lines["shown: Holm p below 0.05"], lines["not shown"]
    assert sorted(shown.get_xdata()) == [-5.0, 20.0] and sorted(other.get_xdata()) == [-1.0, 0.0]
    assert shown.get_markerfacecolor() != "white" and other.get_markerfacecolor() == "white"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["shown: Holm p below 0.05", "not shown"]


def test_the_chance_of_a_false_interval_is_given_for_the_pairs_on_the_page():
    from analyzer.reporting.interactions import interaction_table_note

    assert "1 - 0.95^k (19% for these 4 pairs, 66% for the 21 pairs" in \
        interaction_table_note(4)
    assert "(5% for this pair, 66%" in interaction_table_note(1)


def test_every_interval_on_the_pages_says_which_it_is_and_the_page_has_its_language(
        results, tmp_path):
    out = analyzer.report(results, tmp_path / "rep")
    md, page = (out / "report.md").read_text(), (out / "index.html").read_text()
    for text in (md, page):
        assert "mean pacified: the cities in the Success pile when the game ended" in text
        assert "each with the 95% interval of the mean (Student's t)" in text
    assert page.startswith("<!doctype html><html lang='en'>")
    assert "<table id='headline'><thead><tr><th scope='col'>run</th>" in page
    cmp = tmp_path / "cmp"
    analyzer.compare(sets="base,books", games=20, out=cmp)
    assert "mean turns: how many turns a game lasted, with the 95% interval of the mean " \
        "(Student's t)" in (cmp / "compare.md").read_text()


def test_every_chart_has_its_numbers_beside_it_and_losses_add_up_on_the_page(results,
                                                                            tmp_path):
    """A reader quotes and checks numbers, not pictures: each chart's are in STEM.csv,
    linked under it, and the loss reasons are a table on the page whose counts add up to
    each run's games lost."""
    out = analyzer.report(results, tmp_path / "rep")
    runs = load_runs(results)
    md, page = (out / "report.md").read_text(), (out / "index.html").read_text()
    for stem, _, _ in CHARTS:
        data = pd.read_csv(out / f"{stem}.csv")
        # random wins no game: no margin at victory to list
        everyone = set(runs) - ({"random / base / seed 5"} if stem == "margin_at_victory"
                                else set())
        assert set(data["run"]) == everyone, stem
        assert f"[CSV]({stem}.csv)" in md and f"<a href='{stem}.csv'>" in page, stem
        # each chart's numbers on the page: unfolded under it, a table under it, or for
        # the win rates the headline table, which its alternative text names
        assert f"{stem}-numbers" in page or f"{stem}-table" in page or \
            (stem == "win_rates" and "are in the headline table above.'" in page), stem
    lost = pd.read_csv(out / "loss_reasons.csv")
    wins = pd.read_csv(out / "win_rates.csv").set_index("run")
    for label, df in runs.items():
        mine = lost[lost["run"] == label]
        assert mine["games"].sum() == (~df["won"]).sum() == \
            wins.at[label, "games"] - wins.at[label, "wins"]
        assert f"| {label} | 3,000 | {(~df['won']).sum():,} (" in md
    survival = pd.read_csv(out / "survival.csv")
    first = survival[survival["run"] == next(iter(runs))]
    assert first["running"].iloc[0] == 1.0 and first["running"].iloc[-1] == 0.0
    assert "<table id='loss_reasons-table'>" in page


def test_the_provenance_writes_game_numbers_as_the_compare_page_does():
    from analyzer.reporting.facts import provenance

    runs = {"a": analyzer.simulate(games=10, first_game=9_995)}
    assert ", games 9,995-10,004, policy greedy" in provenance(runs)["runs"]
    # the expansions as the CLI names them, which the run's label writes "base"
    runs["b"] = analyzer.simulate(games=10, expansions="books,emptiness")
    assert "engine fast, expansions none, solo game; b:" in provenance(runs)["runs"]
    assert "engine fast, expansions books, emptiness, solo game" in provenance(runs)["runs"]


def test_files_are_named_without_their_folders_whichever_system_wrote_the_path():
    from analyzer.reporting.names import shared_file, shared_policy

    assert shared_file(r"C:\Users\alice\cards.toml") == "cards.toml"
    assert shared_file("/home/alice/cards.toml") == shared_file("cards.toml") == "cards.toml"
    assert shared_policy(r"weighted:C:\Users\alice\w.toml") == "weighted:w.toml"
    assert shared_policy(r"C:\Users\alice\pol.py:choose") == "pol.py:choose"
    assert shared_policy("/a:b/pol.py:choose") == "pol.py:choose"
    assert shared_policy("search:rollouts=4,candidates=2") == "search:rollouts=4,candidates=2"
    assert shared_policy("greedy") == "greedy"


def test_runs_in_files_of_one_name_in_folders_of_one_name_are_numbered(tmp_path,
                                                                      monkeypatch):
    """Their whole paths would name the user's folders on a shared page: the runs are
    numbered in the order given instead; a file of the current folder is named alone."""
    paths = [tmp_path / "x" / "res" / "r.parquet", tmp_path / "y" / "res" / "r.parquet"]
    for path in paths:
        path.parent.mkdir(parents=True)
    analyzer.simulate(games=20, out=paths[0])
    _as_other_version(paths[0], paths[1])
    labels = list(load_runs(paths))
    assert labels == ["greedy / base / seed 0 / input 1", "greedy / base / seed 0 / input 2"]
    monkeypatch.chdir(tmp_path / "x" / "res")
    _as_other_version(paths[0], tmp_path / "y" / "r.parquet")
    labels = list(load_runs([Path("r.parquet"), tmp_path / "y" / "r.parquet"]))
    assert labels == ["greedy / base / seed 0 / r.parquet",
                      "greedy / base / seed 0 / y/r.parquet"]


def test_a_run_of_batches_names_every_commit_that_played_it(monkeypatch):
    """A comparison resumed after the code changed, or pieces joined from two versions:
    each commit is named, and a piece that recorded none says so."""
    from analyzer.analysis.totals import joined_commit
    from analyzer.runner.config import package_commit

    assert joined_commit([{"commit": "a"}, {"commit": "a"}]) == "a"
    assert joined_commit([{"commit": "a"}, {"commit": "b"}, {}]) == "a, b, not recorded"
    assert joined_commit([{}, {"commit": None}]) is None
    from analyzer.runner import config

    commits = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(config, "package_commit", lambda: next(commits))
    result = analyzer.compare(sets="base,books", games=10)  # a batch each: two commits
    assert result.attrs["commit"] == "aaaaaaaaaaaa, bbbbbbbbbbbb"
    assert result.runs["base"].attrs["commit"] == "aaaaaaaaaaaa"  # a set of one batch
    assert package_commit() not in result.attrs["commit"]


def test_a_report_written_again_removes_what_a_killed_one_left_beside_it(results, tmp_path):
    """SIGKILL part-way leaves the hidden build folder (or the earlier report moved aside);
    the next report of that folder removes them once they are a few minutes old, and
    nothing else: not the user's folders, not one holding a file no report writes, not a
    build another write of the folder may still be filling."""
    import os
    import time

    from analyzer.reporting.folders import LEFTOVER_AGE

    leftovers = [tmp_path / ".rep.0123456789ab", tmp_path / ".rep.old-0123456789ab"]
    kept = [tmp_path / ".rep.notes", tmp_path / ".rep.settings", tmp_path / ".rep.backup01",
            tmp_path / ".report.0123456789ab", tmp_path / "rep2",
            tmp_path / ".rep.fedcba987654", tmp_path / ".rep.111111111111"]
    for folder in leftovers + kept:
        folder.mkdir()
        (folder / "survival.png").write_bytes(b"part")
    (tmp_path / ".rep.fedcba987654" / "mine.doc").write_text("a file no report writes")
    long_ago = time.time() - LEFTOVER_AGE - 60
    for folder in [*leftovers, *kept[:-1]]:  # the last one is fresh: a write under way
        os.utime(folder, (long_ago, long_ago))
    (tmp_path / ".rep.abcdef012345").write_text("a file of the user's, not a folder")
    analyzer.report(results[:1], tmp_path / "rep")
    assert not any(folder.exists() for folder in leftovers)
    assert all(folder.is_dir() for folder in kept)
    assert (tmp_path / ".rep.abcdef012345").is_file()


def test_the_pages_carry_the_note_on_the_shipped_weights_the_terminal_prints(tmp_path):
    """Someone who reads only the page must not miss it: weighted's weights were tuned on
    the base game, and these pages play expansions or other cards."""
    said = "weighted plays weights tuned on R14's base game solo; with expansions"
    cmp = analyzer.compare(sets="base,emptiness", games=20, policy="weighted",
                           out=tmp_path / "cmp")
    assert said in cmp.weights_note()
    for name in ("compare.md", "index.html"):
        assert "Note: " + said in html.unescape((tmp_path / "cmp" / name).read_text()), name
    sens = analyzer.sensitivity(games=20, policy="weighted", expansions="emptiness",
                                out=tmp_path / "sens")
    assert "with other cards and expansions, `urbion tune --cards FILE` for each card set " \
        "(with the same --expansions and --variant)" in sens.weights_note()
    assert "Note: weighted plays weights tuned on R14's base game solo; with other cards " \
        "and expansions" in (tmp_path / "sens" / "sensitivity.md").read_text()
    for page in (tmp_path / "sens" / "index.html", tmp_path / "cmp" / "index.html"):
        assert "<code>urbion tune --" in page.read_text() and "`" not in page.read_text()
    duel = analyzer.duel(["weighted", "greedy"], games=20, expansions="emptiness",
                         out=tmp_path / "duel")
    assert f"\n{duel.weights_note()}\n\npolicies   " in (tmp_path / "duel" / "duel.txt").read_text()
    assert analyzer.duel(["greedy", "random"], games=5).weights_note() is None


def test_the_differences_and_every_loss_reason_in_play_are_in_the_reports_numbers(
        tmp_path):
    """The differences table's numbers beside the page (with Holm p), and a loss reason
    the rules allow but no game met shown as zero rather than left out."""
    runs = [analyzer.simulate(games=300, seed=2),
            analyzer.simulate(games=300, seed=2, expansions="emptiness")]
    out = analyzer.report(runs, tmp_path / "rep")
    table = pd.read_csv(out / "differences.csv")
    page = (out / "report.md").read_text()
    row = table.iloc[0]
    assert row["run"] == "greedy / emptiness / seed 2" and row["changes"] == "expansions"
    assert f"| {row['holm_p']:.3g} |" in page and "[CSV](differences.csv)" in page
    # a file passed on alone names the cards, and the count its Holm p is adjusted over
    assert (row["card_set"], row["holm_family"]) == ("R14-default", 1)
    table = page[page.index("| run | games | games lost |"):].split("\n")
    assert table[0] == "| run | games | games lost | deck_empty | emptiness |"
    assert table[2].endswith(" | - |")  # the base game cannot lose to the Emptiness


def test_an_earlier_report_that_cannot_be_removed_whole_is_said_to_be_left(
        results, tmp_path, monkeypatch, capfd):
    """A file in the earlier folder that the system would not remove (immutable): the new
    report is in place, and what is left of the old one is named, not hidden silently."""
    from analyzer.reporting import folders

    out = analyzer.report(results[:1], tmp_path / "rep")
    monkeypatch.setattr(folders.shutil, "rmtree", lambda path, ignore_errors=False: None)
    analyzer.report(results, out)
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".rep.old-")]
    assert len(left) == 1 and (out / "differences.csv").exists()
    assert capfd.readouterr().err == (f"urbion: note: the earlier rep is replaced, but not "
                                      f"all of it could be removed: what is left is in "
                                      f"{left[0]}\n")


def test_a_charts_numbers_table_writes_large_means_in_full():
    from analyzer.reporting.markup import numbers_rows

    rows = numbers_rows(pd.DataFrame({"run": ["a"], "games": [1_000_000],
                                      "per_game": [1_234_567.25], "running": [0.5]}))
    assert rows == [["run", "games", "per_game", "running (%)"],
                    ["a", "1,000,000", "1,234,567", "50.00%"]]


def test_a_card_set_named_in_a_script_the_font_lacks_draws_quietly(tmp_path):
    """A name in Japanese: matplotlib's font has no glyph for it and warned once per glyph
    per drawing, some 84 lines for one report."""
    import warnings

    from analyzer.cards.writer import card_file_text

    cards = tmp_path / "cjk.toml"
    cards.write_text(card_file_text(analyzer.load_cards(None)).replace(
        'name = "R14-default"', 'name = "カード set"'), encoding="utf-8")
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=60, seed=1, cards=cards, out=results)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analyzer.report([results], tmp_path / "rep")
    assert [str(w.message) for w in caught] == []


def test_the_differences_notes_example_of_pp_is_right():
    """A reader copies the worked example: its difference and relative change must add up,
    and its sign must be the table's (the run's rate less the first run's)."""
    import re

    from analyzer.reporting.differences import DIFFERENCES_NOTES

    note = next(n for n in DIFFERENCES_NOTES if "percentage points (pp)" in n)
    assert "the run's less the first run's" in note
    run, first, pp, more = re.search(
        r"run at ([\d.]+)% against a first run at ([\d.]+)% is \+([\d.]+) pp.*\((\d+)% "
        r"more\)", note).groups()
    assert float(pp) == pytest.approx(float(run) - float(first))
    assert float(more) == pytest.approx(100 * (float(run) / float(first) - 1))


def test_a_set_named_over_many_lines_does_not_run_into_the_next_set():
    """All seven expansions wrap onto seven lines: on a chart of sets each name keeps
    clear of its neighbours', and sits level with its own bar (drawn, not computed)."""
    from analyzer.analysis.expansion_sets import set_title
    from analyzer.reporting import charts

    singles = ["squares_metas", "chromatic_chaos", "temples_harmony", "gardens_wizards",
               "books", "postcards", "emptiness"]
    names = [*singles[:3], "+".join(singles), *singles[3:], "books+emptiness"]
    labels = [set_title(name) for name in names]
    rates = np.linspace(0.0, 0.2, len(names))
    table = pd.DataFrame({"win_rate": rates, "ci_low": rates * 0.9, "ci_high": rates * 1.1,
                          "difference": rates - 0.08, "diff_low": rates - 0.09,
                          "diff_high": rates - 0.07}, index=labels)
    runs = {label: _fake_run(3) for label in labels}
    for fig in (charts.win_rates(table), charts.differences(table),
                charts.loss_reasons(runs), charts.chaos_choices(runs)):
        renderer = drawn(fig)
        ax = fig.axes[0]
        boxes = [label.get_window_extent(renderer) for label in ax.get_yticklabels()]
        assert max(box.height for box in boxes) > 5 * min(box.height for box in boxes)
        for upper, lower in zip(boxes, boxes[1:], strict=False):
            assert upper.y0 > lower.y1, fig.axes[0].get_title()
        ticks = ax.transData.transform([(0, t) for t in ax.get_yticks()])[:, 1]
        assert all(box.y0 <= y <= box.y1 for box, y in zip(boxes, ticks, strict=True))


def test_the_loss_reasons_csv_chart_and_table_agree_on_a_reason_no_game_met():
    """A run with the Emptiness that lost no game to it: the page's table said 0 (0.00%)
    while its CSV and the chart's legend had no such reason, which read as not in play;
    the base game's run, without the Emptiness, has none anywhere."""
    from analyzer.analysis import run_stats
    from analyzer.reporting import charts
    from analyzer.reporting.balance_report import loss_reason_rows

    emptiness, base = _fake_run(5), _fake_run(5)
    emptiness.attrs["expansions"] = ["emptiness", "postcards"]
    base.attrs["expansions"] = []
    runs = {"emptiness": emptiness, "base": base}
    csv = run_stats.chart_data(runs, "loss_reasons")
    rows = csv[csv["reason"] == "emptiness"]
    assert list(rows["run"]) == ["emptiness"] and list(rows["games"]) == [0]
    header, first, second = loss_reason_rows(runs)
    assert first[header.index("emptiness")] == "0 (0.00%)"
    assert second[header.index("emptiness")] == "-"
    legend = [t.get_text() for t in charts.loss_reasons(runs).axes[0].get_legend().get_texts()]
    assert legend == ["deck_empty", "emptiness", "inhabitants"]


def test_the_loss_reasons_table_counts_each_reason_as_a_share_of_all_the_games():
    """Forty games, five won: of the 35 lost, games 5, 10, ..., 35 (7) to the inhabitant
    sum, the other 28 to the Dream deck. Games lost is every loss, not the commonest
    reason's; each share is of the run's 40 games, not of its losses."""
    from analyzer.reporting.balance_report import loss_reason_rows

    run = _fake_run(5)
    run.attrs["expansions"] = ["postcards"]
    header, row = loss_reason_rows({"a": run})
    assert header == ["run", "games", "games lost", "deck_empty", "inhabitants"]
    assert row == ["a", "40", "35 (87.50%)", "28 (70.00%)", "7 (17.50%)"]


def test_the_headline_row_gives_games_wins_win_rate_and_its_wilson_interval():
    """8 wins of 40 games: a win rate of 20%, and Wilson's 95% interval worked out by hand,
    (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n) with z = 1.96, p = 0.2,
    n = 40: 0.1050 to 0.3476."""
    from analyzer.reporting.balance_report import headline_rows

    header, row = headline_rows(run_stats.headline({"a": _fake_run(8)}))
    assert header[:5] == ["run", "games", "wins", "win rate", "95% Wilson interval"]
    assert row[:5] == ["a", "40", "8", "20.00%", "10.50% to 34.76%"]
    # turns 20 to 26 five times over, then 20 to 24: 915 turns in 40 games
    assert header[5].startswith("mean turns") and row[5].startswith("22.9 (")


def test_the_margin_csv_holds_every_point_the_chart_draws():
    """The line goes through 0 at the numbers of cards no win ended with, between the
    fewest and the most; the CSV, one row per point, left those out."""
    from analyzer.analysis import run_stats
    from analyzer.reporting import charts

    run = _fake_run(5).assign(deck_left=[2, 0, 7, 2, 9] + [0] * 35)
    csv = run_stats.chart_data({"a": run}, "margin_at_victory")
    assert list(csv["deck_left"]) == list(range(0, 10))
    assert list(csv["wins"]) == [1, 0, 2, 0, 0, 0, 0, 1, 0, 1]
    line = charts.margin_at_victory({"a": run}).axes[0].get_lines()[0]
    assert list(line.get_xdata()) == list(csv["deck_left"])


def test_a_line_of_one_win_does_not_squash_the_margin_chart():
    """One win is a share of 100% at one number of cards: the axis went to 100% and every
    other line lay under a third of it. The axis fits the lines of many games, and the
    legend says which line runs off the top."""
    from analyzer.reporting import charts

    many = _fake_run(40, games=40).assign(deck_left=np.arange(40) % 8)
    one = _fake_run(1, games=40).assign(deck_left=3)
    ax = charts.margin_at_victory({"many": many, "one": one}).axes[0]
    assert ax.get_ylim()[1] == pytest.approx(12.5 * 1.1)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "many (40 wins)"
    assert legend[1] == "one (1 win)\n(too few to scale: up to 100%, off the top)"
    alone = charts.margin_at_victory({"one": one}).axes[0]
    assert alone.get_ylim()[1] >= 100 and "off the top" not in str(
        [t.get_text() for t in alone.get_legend().get_texts()])


def test_an_alternative_text_names_every_run_of_a_tied_rate_and_breaks_no_tie():
    """Runs of one win rate were called highest and lowest both, or one of many at 0%
    "the hardest" at random."""
    from analyzer.reporting.markup import extremes

    words = ("highest", "lowest")
    tied = pd.Series([0.0, 0.0], index=["a", "b"])
    assert extremes(tied, words, "run") == "both runs at 0.00%"
    assert extremes(pd.Series([0.0] * 3, index=list("abc")), words, "run") == \
        "every run at 0.00%"
    rates = pd.Series([0.0, 0.1, 0.0, 0.1, 0.05], index=list("abcde"))
    assert extremes(rates, words, "run") == "highest b and d (10.00%), lowest a and c (0.00%)"
    assert extremes(rates, ("easiest", "hardest"), "set", least_first=True) == \
        "hardest a and c (0.00%), easiest b and d (10.00%)"
    assert extremes(pd.Series([0.075], index=["books"]), words, "run") == "books 7.50%"


def test_a_run_that_changes_only_the_cards_changes_the_card_set_not_the_policy(tmp_path):
    """greedy reads the largest Incubi into its parameters: a card file with a -4 Incubi
    gave greedy another parameter hash, and the report called the change 'policy + card set
    (2 at once)', whose difference belongs to neither."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text().replace('name = "R14-default"', 'name = "mine"')
    mine.write_text(text.replace("-3, -3]", "-3, -4]", 1))
    r14 = analyzer.simulate(games=40, seed=5)
    played = analyzer.simulate(games=40, seed=5, cards=mine)
    assert played.attrs["policy_params_sha256"] != r14.attrs["policy_params_sha256"]
    assert played.attrs["policy_weights_sha256"] == r14.attrs["policy_weights_sha256"]
    from analyzer.reporting.differences import configuration_changes

    assert configuration_changes(played.attrs, r14.attrs) == "card set"
    weighted = analyzer.simulate(games=40, seed=5, cards=mine, policy="weighted")
    assert configuration_changes(weighted.attrs, r14.attrs) == "policy + card set (2 at once)"
    # files of versions before the key: by the parameters as played, as before
    older = {k: v for k, v in played.attrs.items() if k != "policy_weights_sha256"}
    assert configuration_changes(older, r14.attrs) == "policy + card set (2 at once)"


def test_every_csv_of_a_report_names_the_card_set_of_each_run(tmp_path):
    """A run's label names its card set only where the runs differ: a CSV of a designer's
    cards passed on alone did not say whose cards it was of."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    mine.write_text(mine.read_text().replace('name = "R14-default"', 'name = "proto-b"'))
    analyzer.simulate(games=40, seed=5, cards=mine, out=tmp_path / "pb.parquet")
    out = analyzer.report([tmp_path / "pb.parquet"], tmp_path / "rep")
    for stem, _, _ in CHARTS:
        data = pd.read_csv(out / f"{stem}.csv")
        assert "proto-b" not in " ".join(map(str, data["run"])) and \
            set(data["card_set"]) <= {"proto-b"}, stem
    assert set(pd.read_csv(out / "win_rates.csv")["card_set"]) == {"proto-b"}


def test_every_run_names_the_software_that_played_it_and_the_report_says_so(tmp_path):
    """A paper quoting a win rate could name the commit but not the Python, numba and numpy
    behind it: nothing recorded them."""
    import platform

    import numba
    import numpy

    results = tmp_path / "r.parquet"
    analyzer.simulate(games=20, out=results)
    software = pd.read_parquet(results).attrs["software"]
    assert software == (f"Python {platform.python_version()}, numba {numba.__version__}, "
                        f"numpy {numpy.__version__}, on {platform.system()} "
                        f"{platform.machine()}")
    md = (analyzer.report([results], tmp_path / "rep") / "report.md").read_text()
    assert f"- **software**: {software}" in md
    # and the files it was made of, by name (a folder would name the author's machine)
    assert "- **results files**: r.parquet\n" in md and str(tmp_path) not in md
    older = pd.read_parquet(results)
    older.attrs.pop("software")
    from analyzer.reporting.facts import provenance

    assert "not recorded in the results file" in provenance({"old": older})["software"]


def _package_copy(tmp_path: Path) -> Path:
    """A copy of the package and its command beside it, to change without changing this
    one."""
    import shutil

    package = tmp_path / "copy"
    package.mkdir()
    shutil.copytree(Path(analyzer.__file__).parent, package / "analyzer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(Path(analyzer.__file__).parents[1] / "cli.py", package / "cli.py")
    return package


def _play_reference_piece(package: Path, first_game: int, out: Path) -> None:
    """Games ``first_game`` to ``first_game + 19`` of seed 4, played by the reference engine
    of the package copy at ``package``."""
    env = {**__import__("os").environ, "PYTHONPATH": str(package),
           "XDG_CACHE_HOME": str(package / "cache")}
    subprocess.run([sys.executable, str(package / "cli.py"), "simulate", "--engine",
                    "reference", "--games", "20", "--seed", "4", "--first-game",
                    str(first_game), "--quiet", "--out", str(out)],
                   check=True, capture_output=True, env=env, cwd=package)


def test_pieces_played_before_and_after_a_rule_changed_in_the_code_stay_apart(tmp_path):
    """A contributor changed how many cards a Chaos reveals (R06.2 c) without a new rules
    version and played the run on: the report joined both pieces into one run of games
    0-39 whose win rate mixed two rule sets. Pieces of one code are still joined."""
    package = _package_copy(tmp_path)
    pieces = [tmp_path / f"p{i}.parquet" for i in range(3)]
    _play_reference_piece(package, 0, pieces[0])
    _play_reference_piece(package, 20, pieces[1])
    engine = package / "analyzer" / "reference" / "engine.py"
    assert "\nREVEAL_COUNT = 4\n" in engine.read_text()
    engine.write_text(engine.read_text().replace("\nREVEAL_COUNT = 4\n", "\nREVEAL_COUNT = 3\n"))
    _play_reference_piece(package, 40, pieces[2])
    runs = load_runs(pieces)
    assert [len(df) for df in runs.values()] == [40, 20]  # the first two joined, not the third
    assert len({df.attrs["rules_version"] for df in runs.values()}) == 1  # the same name
    md = (analyzer.report(pieces, tmp_path / "rep") / "report.md").read_text()
    assert "| engine code |" in md
    codes = [df.attrs["engine_source"] for df in runs.values()]
    assert re.search(rf"\*\*rules version\*\*: urbion-2e/\S+, engine code {codes[0]} \(",
                     md) and f"engine code {codes[1]} (" in md
    from analyzer.reporting.differences import configuration_changes

    base = {"policy": "greedy", "seed": 4, "rules_version": "r", "engine_source": "a"}
    assert configuration_changes({**base, "engine_source": "b"}, base) == "engine code"
    assert configuration_changes({**base, "engine_source": "b", "policy": "random"},
                                 base) == "policy + engine code (2 at once)"
    # another rules version, or the other engine, is other code: not a second cause
    assert configuration_changes({**base, "engine_source": "b", "rules_version": "s"},
                                 base) == "rules"
    assert configuration_changes({**base, "engine_source": "b", "engine": "fast"},
                                 {**base, "engine": "reference"}) == "engine"
    from analyzer.core.jit import source_hash

    # the fast engine's code is its kernels', the key of their compiled cache
    assert analyzer.simulate(games=5).attrs["engine_source"] == source_hash()


def test_a_results_file_that_cannot_be_read_says_why_not_that_it_is_no_parquet(
        results, tmp_path, capsys, monkeypatch):
    """A results file the user may not read was "not a Parquet file" to report and to
    --cards (as root a chmod does not stop us, so the refusal is simulated on opening)."""
    locked = tmp_path / "locked.parquet"
    locked.write_bytes(Path(results[0]).read_bytes())
    path_open = Path.open

    def refuse(self, *args, **kwargs):
        if self.name == "locked.parquet":
            raise PermissionError(13, "Permission denied")
        return path_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)
    code, _, err = run(capsys, "report", str(locked), "--out", str(tmp_path / "rep"))
    assert (code, err.strip()) == (2, f"urbion: error: cannot read results file {locked}: "
                                      "Permission denied")
    code, _, err = run(capsys, "cards", "--cards", str(locked))
    assert (code, err.strip()) == (2, f"urbion: error: cannot read {locked}: "
                                      "Permission denied")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["locked.parquet"]


def test_a_results_file_from_before_the_engine_code_was_recorded_joins_only_its_like(
        tmp_path):
    """A file of an older version has no engine_source: its code is not known, so it joins
    no file that names a code, yet is not said to change it; and it takes no part in
    telling other files apart (two codes beside it were joined as one run)."""
    from analyzer.analysis.run_stats import join_pieces
    from analyzer.reporting.differences import configuration_changes

    pieces = [analyzer.simulate(games=10, seed=4, first_game=first) for first in (0, 10)]
    pieces[1].attrs["engine_source"] = "b" * 16  # the continuation, by other code
    old = analyzer.simulate(games=10, seed=7)
    del old.attrs["engine_source"]
    joined = join_pieces([(tmp_path / f"p{i}", run)
                          for i, run in enumerate([*pieces, old])])
    assert [len(run) for _, run in joined] == [10, 10, 10]
    older = analyzer.simulate(games=10, seed=4, first_game=20)
    del older.attrs["engine_source"]
    assert [len(run) for _, run in join_pieces([(tmp_path / "a", pieces[0]),
                                                 (tmp_path / "b", older)])] == [10, 10]
    assert configuration_changes(old.attrs, pieces[0].attrs) == \
        "seed (other deals only: chance)"
    assert configuration_changes({**old.attrs, "engine_source": "x"}, pieces[1].attrs) == \
        "engine code + seed"


def test_a_stray_link_in_the_package_is_no_crash_at_import(tmp_path):
    """An editor's lock file (a broken link named .#engine.py) beside the engine's code
    made every command a traceback once the engine code was hashed at import."""
    package = _package_copy(tmp_path)
    for folder in ("reference", "core", "policies"):
        (package / "analyzer" / folder / ".#engine.py").symlink_to("nobody@host.1234")
    env = {**__import__("os").environ, "PYTHONPATH": str(package),
           "XDG_CACHE_HOME": str(package / "cache")}
    done = subprocess.run([sys.executable, str(package / "cli.py"), "policies"],
                          capture_output=True, text=True, env=env, cwd=package)
    assert done.returncode == 0 and "greedy" in done.stdout, done.stderr


def test_two_runs_that_both_won_every_game_cannot_reject_and_leave_holms_count():
    """Independent runs (other seeds) that both won all their games: Fisher's p is 1 and
    no outcome could have made it smaller, so Holm's count leaves the pair out, and a run
    that differs keeps its own p, in the table and in every row of differences.csv."""
    from analyzer.reporting.differences import differences_csv, differences_holm

    def run_of(seed: int, won: bool) -> pd.DataFrame:
        df = pd.DataFrame({"game": np.arange(10), "won": np.full(10, won)})
        df.attrs = {"seed": seed}
        return df

    table = run_stats.differences({"a": run_of(1, True), "b": run_of(2, True),
                                   "c": run_of(3, False)})
    assert table["test"].tolist() == ["Fisher", "Fisher"]
    assert table["informative"].tolist() == [False, True]
    assert differences_holm(table) == [1.0, table["p"].iloc[1]]
    # by hand, all counted, the p doubles
    assert differences_holm(table.drop(columns="informative"))[1] == \
        pytest.approx(2 * table["p"].iloc[1])
    csv = differences_csv(table, None, {"b": "R14-default", "c": "R14-default"})
    assert csv["holm_family"].tolist() == [1, 1]
    assert csv["holm_p"].tolist() == [1.0, table.at["c", "p"]]


def test_a_run_whose_game_numbers_were_changed_is_refused(tmp_path):
    """As many rows as the run, but games 5-24 of a run of games 0-19: read as games 0-19
    they would be labelled with games they are not. Only the count was checked."""
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = analyzer.simulate(games=20, seed=3)
    df["game"] += 5
    write_results(df, tmp_path / "moved.parquet")
    with pytest.raises(ResultsFileError, match=re.escape(
            "holds 20 games numbered 5-24, where its run played games 0-19: its game "
            "numbers were changed")):
        read_results(tmp_path / "moved.parquet")


def test_a_run_whose_last_game_number_was_changed_is_refused(tmp_path):
    """Games 0-18 and 25 of a run of games 0-19: the first game and the count agree with
    the configuration, the last game does not."""
    from analyzer.analysis.results_io import ResultsFileError, read_results, write_results

    df = analyzer.simulate(games=20, seed=3)
    df.loc[df.index[-1], "game"] = 25
    write_results(df, tmp_path / "gap.parquet")
    with pytest.raises(ResultsFileError, match=re.escape(
            "holds 20 games numbered 0-25, where its run played games 0-19: its game "
            "numbers were changed")):
        read_results(tmp_path / "gap.parquet")


def test_a_process_that_read_a_refused_results_file_exits_with_its_error(tmp_path):
    """Arrow's reading threads, still busy as the process ended, aborted it about one time
    in six after its one-line error ("terminate called without an active exception",
    exit 134): sixteen processes read a refused file and end at once."""
    from analyzer.analysis.results_io import write_results

    df = analyzer.simulate(games=30, seed=3)
    df.attrs["seed"] = "abc"
    path = tmp_path / "edited.parquet"
    write_results(df, path)
    probe = ("import sys; from analyzer.analysis.results_io import ResultsFileError, "
             f"read_results\ntry: read_results({str(path)!r})\n"
             "except ResultsFileError: sys.exit(2)")
    root = Path(__file__).resolve().parents[1]
    codes = []
    for _ in range(4):
        procs = [subprocess.Popen([sys.executable, "-c", probe], cwd=root,
                                  stderr=subprocess.PIPE) for _ in range(4)]
        codes += [(proc.wait(), proc.stderr.read().decode()) for proc in procs]
    assert all(code == 2 for code, _ in codes), codes


def test_the_ranking_orders_each_base_games_runs_and_holm_decides_what_is_shown():
    """Base game won games 0-9 of 20. emptiness won 0-1 (8 games lost that the base game
    won: McNemar's p 2 / 2**8), postcards 0-11 (2 won beyond it: p 2 / 2**2),
    chromatic_chaos 0-15 (6 beyond: p 2 / 2**6). Holm over the three: 3 x 0.0078125 = 0.0234375,
    2 x 0.03125 = 0.0625, 1 x 0.5. Chromatic Chaos' own p is below 0.05, its Holm p is not."""
    from analyzer.reporting.differences import ranking_rows

    games = np.arange(20)
    runs = {"base": _games_won(games < 10),
            "emptiness": _games_won(games < 2, expansions=["emptiness"]),
            "postcards": _games_won(games < 12, expansions=["postcards"]),
            "chromatic": _games_won(games < 16, expansions=["chromatic_chaos"])}
    table = run_stats.differences(runs, {"emptiness": "base", "postcards": "base",
                                         "chromatic": "base"})
    # a run that only lost games the base game won still differs from it in those games
    assert table["informative"].tolist() == [True, True, True]
    assert table["p"].tolist() == pytest.approx([2 / 2**8, 2 / 2**2, 2 / 2**6])
    assert ranking_rows(table, runs) == [
        ["order", "base"],
        ["1", "emptiness -40.00 pp (0.20x the wins)"],
        ["2", "postcards +10.00 pp (1.20x the wins; no difference shown)"],
        ["3", "chromatic_chaos +30.00 pp (1.60x the wins; no difference shown)"]]


def test_a_run_that_played_past_the_first_runs_games_is_paired_on_the_common_ones():
    """The first run played games 0-3, the other 0-7: 4 games in common, not the whole of
    both runs."""
    from analyzer.reporting.differences import difference_rows

    first = _games_won(np.array([1, 0, 0, 0], dtype=bool))
    longer = _games_won(np.array([1, 1, 0, 0, 1, 1, 1, 1], dtype=bool))
    table = run_stats.differences({"first": first, "longer": longer})
    assert table.at["longer", "paired"] and not table.at["longer", "whole"]
    assert table.at["longer", "games"] == 4
    assert table.at["longer", "difference"] == pytest.approx(1 / 4)
    assert difference_rows(table)[1][5] == "paired on 4 common games"


def test_a_policy_recorded_without_its_weights_hash_is_compared_by_its_parameters():
    """A results file of a version before the weights' hash beside one that records it:
    the same policy and parameters change nothing; other parameters change the policy."""
    from analyzer.reporting.differences import configuration_changes

    new = {"policy": "greedy", "policy_params_sha256": "a", "policy_weights_sha256": "w",
           "seed": 1}
    old = {"policy": "greedy", "policy_params_sha256": "a", "seed": 1}
    assert configuration_changes(old, new) == "none"
    assert configuration_changes(new, old) == "none"
    assert configuration_changes({**old, "policy_params_sha256": "b"}, new) == "policy"


def test_of_two_runs_of_a_set_sharing_as_many_games_with_its_base_game_the_first_is_weighed():
    """Two runs of one set, each sharing 500 games with the base game: the first given
    is weighed, the other set aside, in either order."""
    games = np.arange(1000)
    for early, late in ((0, 500), (500, 0)):
        runs = {"a": _games_won(games % 10 == 0),
                "a+x one": _games_won(np.arange(500) < 150, first=early, expansions=["x"]),
                "a+x two": _games_won(np.arange(500) < 150, first=late, expansions=["x"]),
                "b": _games_won(games % 4 == 0, policy="b"),
                "b+x": _games_won(games % 4 == 0, policy="b", expansions=["x"])}
        against = {"a+x one": "a", "a+x two": "a", "b+x": "b"}
        assert run_stats.effect_runs(runs, against) == {"a": {"x": "a+x one"},
                                                        "b": {"x": "b+x"}}
        assert run_stats.effect_runs_set_aside(runs, against) == ["a+x two"]


def test_the_loss_reasons_csv_gives_each_reason_as_a_share_of_all_the_games():
    """The CSV's share_of_games is of the run's 40 games (28 and 7 of them lost to the
    Dream deck and to the inhabitant sum), not of its 35 losses."""
    run = _fake_run(5)
    run.attrs["expansions"] = ["postcards"]
    csv = run_stats.chart_data({"a": run}, "loss_reasons")
    assert list(csv["reason"]) == ["deck_empty", "inhabitants"]
    assert list(csv["games"]) == [28, 7]
    assert list(csv["share_of_games"]) == pytest.approx([0.7, 0.175])


def test_the_convergence_follows_the_games_in_their_order_whatever_the_rows_order():
    """Only game 0 of four won, its row last: after the first game the estimate is 100%,
    then 50%, 33% and 25%, as the games were played, not as the rows lie."""
    run = pd.DataFrame({"game": [3, 2, 1, 0], "won": [False, False, False, True]})
    curve = run_stats.convergence(run)
    assert list(curve["games"]) == [1, 2, 3, 4]
    assert list(curve["win_rate"]) == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])


def test_each_charts_csv_names_each_runs_card_set_by_its_hash_too(tmp_path):
    """Two card files of one name are told apart in the CSV by their hashes: the column of
    hashes holds each run's own, not the name again."""
    from types import SimpleNamespace

    from analyzer.reporting.balance_report import _write_numbers

    one, two = _fake_run(5), _fake_run(8)
    one.attrs.update(card_set="proto", card_set_sha256="a" * 64)
    two.attrs.update(card_set="proto", card_set_sha256="b" * 64)
    runs = {"one": one, "two": two}
    numbers = {"loss_reasons": run_stats.chart_data(runs, "loss_reasons")}
    _write_numbers(tmp_path, numbers, runs, SimpleNamespace(table=None, effects=None))
    data = pd.read_csv(tmp_path / "loss_reasons.csv")
    rows = zip(data["run"], data["card_set"], data["card_set_sha256"], strict=True)
    assert set(rows) == {("one", "proto", "a" * 64), ("two", "proto", "b" * 64)}


def test_the_loss_reasons_chart_stacks_each_reason_as_a_share_of_all_the_games():
    """28 and 7 of 40 games lost to the Dream deck and the inhabitant sum: bars of 70% and
    17.5%, the rest of the way to 100% the games won, not shares of the losses."""
    from analyzer.reporting import charts

    run = _fake_run(5)
    run.attrs["expansions"] = ["postcards"]
    ax = charts.loss_reasons({"a": run}).axes[0]
    assert [patch.get_width() for patch in ax.patches] == pytest.approx([70.0, 17.5])


def test_a_win_rate_bar_spans_its_own_interval_however_lopsided():
    """A Wilson interval is not symmetric: a win rate of 10% between 5% and 20% draws its
    bar from 5 to 20, not from 0 to 15."""
    from analyzer.reporting import charts

    table = pd.DataFrame({"win_rate": [0.1], "ci_low": [0.05], "ci_high": [0.2]}, index=["a"])
    ax = charts.win_rates(table).axes[0]
    bars = next(c for c in ax.containers if getattr(c, "errorbar", None) is not None)
    (segment,) = bars.errorbar.lines[2][0].get_segments()
    assert sorted(segment[:, 0]) == pytest.approx([5.0, 20.0])


def test_the_win_rate_charts_reference_line_is_the_first_runs_rate():
    """Runs compared with the first: the dashed line stands at its rate and names it."""
    from analyzer.reporting import charts

    table = pd.DataFrame({"win_rate": [0.1, 0.3, 0.5], "ci_low": [0.05, 0.2, 0.4],
                          "ci_high": [0.2, 0.4, 0.6]}, index=["a", "b", "c"])
    ax = charts.win_rates(table).axes[0]
    (line,) = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert list(line.get_xdata()) == pytest.approx([10.0, 10.0])
    assert line.get_label() == "a: 10.00%"


def test_a_file_of_the_users_named_as_the_command_in_a_report_folder_is_never_replaced(
        tmp_path):
    """The folder's mark names the command first, then the files it wrote: a file of the
    user's named "report" is not among them, and the folder is not replaced over it."""
    from analyzer.reporting.folders import FOLDER_MARK, check_destination

    out = tmp_path / "rep"
    out.mkdir()
    (out / FOLDER_MARK).write_text("report\nindex.html\n", encoding="utf-8")
    (out / "index.html").write_text("", encoding="utf-8")
    (out / "report").write_text("my notes", encoding="utf-8")
    with pytest.raises(UrbionError, match="it holds report, which `urbion report` did not"):
        check_destination(out, "report")


def test_the_margin_chart_fits_the_tallest_line_of_many_games():
    """Two lines of 40 wins, at 12.5% and at 50% a number of cards, and one of a single
    win: the axis stops above the taller of the two (55%), never cutting it off, and the
    single win's 100% runs off the top."""
    from analyzer.reporting import charts

    flat = _fake_run(40, games=40).assign(deck_left=np.arange(40) % 8)
    peaked = _fake_run(40, games=40).assign(deck_left=np.arange(40) % 2)
    one = _fake_run(1, games=40).assign(deck_left=3)
    ax = charts.margin_at_victory({"flat": flat, "peaked": peaked, "one": one}).axes[0]
    assert ax.get_ylim()[1] == pytest.approx(50 * 1.1)
