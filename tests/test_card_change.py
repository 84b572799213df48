"""compare --against: a change of the cards measured in every expansion set, and whether it
differs from the base game's change."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.analysis.card_change import card_change_table, odds_ratio
from analyzer.analysis.stats import format_p, holm_adjust, mcnemar_exact
from analyzer.cards.writer import card_file_text
from analyzer.errors import RunStopped, UrbionError
from tests.test_cli import run

SETS = "base,chromatic_chaos,emptiness"


def _weak_chaos(folder, name: str = "weak-chaos", value: int = 4):
    """The R14 set with Chaos of influence ``value`` instead of 5, under ``name``: every
    card keeps its place in the deck, so paired games share their deals."""
    text = card_file_text(analyzer.load_cards(None))
    old = "[dreams.chaos]\ncount = 8\nvalue = 5"
    assert old in text
    path = folder / f"{name}.toml"
    path.write_text(text.replace('name = "R14-default"', f'name = "{name}"')
                    .replace(old, f"[dreams.chaos]\ncount = 8\nvalue = {value}"),
                    encoding="utf-8")
    return path


def _stopping_with(name: str, simulate, played: list[str] | None = None):
    """``simulate`` stopped, before any game, when it plays the card set ``name``; the
    card sets it is asked to play noted in ``played``."""
    def stop(**kwargs):
        if played is not None:
            played.append(kwargs["cards"].name)
        if kwargs["cards"].name == name:
            raise RunStopped("interrupted after 0 of 20 games; nothing was saved", True)
        return simulate(**kwargs)
    return stop


def _run(won) -> pd.DataFrame:
    won = np.asarray(won, dtype=bool)
    return pd.DataFrame({"game": np.arange(len(won)), "won": won})


def test_the_table_is_each_sets_paired_change_and_its_departure_from_the_base_games():
    """Counted by hand from the games: the change, McNemar's p over the discordant games,
    and vs base, the mean of the four-way contrast."""
    rng = np.random.default_rng(3)
    n = 400
    cards = {"base": _run(rng.random(n) < 0.30), "books": _run(rng.random(n) < 0.25),
             "emptiness": _run(rng.random(n) < 0.05)}
    against = {"base": _run(rng.random(n) < 0.20), "books": _run(rng.random(n) < 0.24),
               "emptiness": _run(rng.random(n) < 0.04)}
    table = card_change_table(cards, against)
    assert list(table.index) == ["base", "books", "emptiness"]
    p = []
    for label in table.index:
        c, a = (runs[label]["won"].to_numpy() for runs in (cards, against))
        row = table.loc[label]
        assert row.games == n and row.win_rate == c.mean() and row.against_win_rate == a.mean()
        assert (row.cards_only, row.against_only) == ((c & ~a).sum(), (a & ~c).sum())
        assert row.difference == pytest.approx(c.mean() - a.mean())
        assert row.diff_low < row.difference < row.diff_high
        assert row.mcnemar_p == pytest.approx(mcnemar_exact(int((c & ~a).sum()),
                                                            int((a & ~c).sum())))
        p.append(row.mcnemar_p)
        assert row.odds_ratio == pytest.approx(c.mean() / (1 - c.mean()) /
                                               (a.mean() / (1 - a.mean())))
        if label != "base":
            cb, ab = (runs["base"]["won"].to_numpy(dtype=float) for runs in (cards, against))
            contrast = c.astype(float) - a - cb + ab
            assert row.vs_base == pytest.approx(contrast.mean())
            assert row.vs_base == pytest.approx(row.difference - table.loc["base", "difference"])
            assert row.vs_base_low < row.vs_base < row.vs_base_high
            assert row.vs_base_differing == np.count_nonzero(contrast)
    assert table["holm_p"].tolist() == pytest.approx(holm_adjust(p))
    assert (table["holm_family"] == 3).all()
    # the base game gains about 10 points, which any set can gain from where it starts;
    # where the base game loses them, the Emptiness starting from 5% could not: at a
    # bound, never shown
    assert not table["at_bound"].any()
    flipped = card_change_table(against, cards)  # the base game loses 10 points
    assert flipped["at_bound"].tolist() == [False, False, True]
    assert not flipped.loc["emptiness", "vs_base_shown"]
    assert flipped["vs_base"].tolist() == pytest.approx((-table["vs_base"]).tolist(),
                                                        nan_ok=True)
    assert flipped.loc["emptiness", "difference"] == pytest.approx(
        -table.loc["emptiness", "difference"])


def test_a_set_whose_start_and_change_land_exactly_on_0_is_not_at_a_bound():
    """The base game loses 10 points and the set starts at 10%: the sum lands on 0%, not
    past it: the set could have lost the 10 points."""
    n = 100
    cards = {"base": _run(np.arange(n) < 10), "books": _run(np.zeros(n, dtype=bool))}
    against = {"base": _run(np.arange(n) < 20), "books": _run(np.arange(n) < 10)}
    table = card_change_table(cards, against)
    assert table.loc["books", "vs_base"] == pytest.approx(0.0)
    assert not table.loc["books", "at_bound"]


def test_a_set_whose_change_departs_from_the_base_games_is_shown_and_one_alike_is_not():
    """Cards that turn 60 of 400 base games into wins and 60 Books games too depart from
    the base game in none; where they turn none of the Emptiness's games (won 80 times with
    either), they do, and where they turn none of a set that never wins, too: starting
    from 0%, it could have gained the base game's 15 points."""
    n = 400
    lost = np.zeros(n, dtype=bool)
    gained = np.arange(n) < 60
    some = np.arange(n) % 5 == 0
    cards = {"base": _run(gained), "books": _run(gained), "emptiness": _run(some),
             "postcards": _run(lost)}
    against = {"base": _run(lost), "books": _run(lost), "emptiness": _run(some),
               "postcards": _run(lost)}
    table = card_change_table(cards, against)
    assert table.loc["books", "vs_base"] == 0 and not table.loc["books", "vs_base_shown"]
    assert table.loc["emptiness", "vs_base"] == pytest.approx(-0.15)
    assert table.loc["emptiness", "vs_base_shown"] and not table.loc["emptiness", "at_bound"]
    assert not table.loc["postcards", "at_bound"] and table.loc["postcards", "vs_base_shown"]
    assert not table.loc["base", "vs_base_shown"]
    # a set played with one card set only, or without the base game, is no card change
    with pytest.raises(UrbionError, match="needs the base game"):
        card_change_table({"books": _run(gained)}, {"books": _run(lost)})
    with pytest.raises(UrbionError, match="set books was played with one card set only"):
        card_change_table({"base": _run(gained), "books": _run(gained)}, {"base": _run(lost)})
    assert np.isnan(odds_ratio(0.0, 0.2)) and np.isnan(odds_ratio(0.3, 1.0))


@pytest.fixture(scope="module")
def change(tmp_path_factory):
    folder = tmp_path_factory.mktemp("change")
    weak = _weak_chaos(folder)
    result = analyzer.compare(sets=SETS, games=400, seed=2, cards=weak, against="r14",
                              out=folder / "out")
    return weak, folder / "out", result


def test_each_set_is_played_with_both_card_sets_on_the_same_games(change):
    """Each card set's comparison is the one compare plays without --against, and the
    change in each set is that of simulate's games with the one card set and the other."""
    weak, _, result = change
    alone = analyzer.compare(sets=SETS, games=400, seed=2, cards=weak)
    shipped = analyzer.compare(sets=SETS, games=400, seed=2)
    pd.testing.assert_frame_equal(result.cards.table, alone.table)
    pd.testing.assert_frame_equal(result.against.table, shipped.table)
    for label, expansions in (("base", "none"), ("emptiness", "emptiness")):
        mine = analyzer.simulate(games=400, seed=2, cards=weak, expansions=expansions)
        r14 = analyzer.simulate(games=400, seed=2, expansions=expansions)
        assert result.table.loc[label, "difference"] == pytest.approx(
            mine["won"].mean() - r14["won"].mean())
    assert result.attrs["card_set"] == "weak-chaos"
    assert result.attrs["against_card_set"] == "R14-default"
    text = str(result)
    assert "against R14-default" in text and text.count("\n") > 8
    assert "In short: the cards of weak-chaos, against those of R14-default, " in text


def test_the_folder_holds_both_comparisons_and_the_change_pages(change):
    weak, out, result = change
    held = {p.name for p in out.iterdir()}
    assert {"cards", "against", "card-change.csv", "card-change.md", "index.html",
            "card_change.png", "card_change.svg"} <= held
    for name in ("cards", "against"):
        assert (out / name / "index.html").exists() and (out / name / "compare.csv").exists()
    # the designer's cards travel with the folder; the shipped set needs no file
    assert analyzer.load_cards(out / "cards" / "cards.toml").digest == \
        analyzer.load_cards(weak).digest
    assert not (out / "against" / "cards.toml").exists()
    csv = pd.read_csv(out / "card-change.csv", index_col="set")
    assert list(csv.index) == ["base", "chromatic_chaos", "emptiness"]
    assert csv["difference"].tolist() == pytest.approx(result.table["difference"].tolist())
    assert set(csv["against_card_set"]) == {"R14-default"}
    # a row quoted apart names the parameters each card set was played with
    assert set(csv["against_policy_params_sha256"]) == \
        {result.attrs["against_policy_params_sha256"]}
    assert set(csv["policy_params_sha256"]) == {result.attrs["policy_params_sha256"]}
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "src='data:image/png;base64," in page and "href='cards/index.html'" in page
    assert "<th scope='row'>chromatic_chaos</th>" in page
    # the odds scale, where 400 games leave emptiness under 20 wins a run and chromatic over
    table = result.table
    assert csv["odds_vs_base"].tolist() == pytest.approx(table["odds_vs_base"].tolist(),
                                                         nan_ok=True)
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in
            (out / "card-change.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ")}
    head = rows["set"]
    odds_at = head.index("odds vs base (95%)")
    ratio = table.loc["chromatic_chaos", "odds_vs_base"]
    assert rows["chromatic_chaos"][odds_at].startswith(f"x{ratio:.2f} (")
    assert rows["emptiness"][odds_at] == "n/a: too few wins, losses or games differing"
    assert table.loc["emptiness", "against_win_rate"] * 400 < 20


def test_the_play_again_command_run_in_the_folder_gives_the_same_change(change, capsys,
                                                                        monkeypatch):
    _, out, _ = change
    md = (out / "card-change.md").read_text(encoding="utf-8")
    command = md.splitlines()[-1].removeprefix("- **play again**: ")
    args = shlex.split(command)
    assert args[:2] == ["urbion", "compare"] and "--against" in args
    assert args[args.index("--cards") + 1] == "cards/cards.toml"
    assert args[args.index("--against") + 1] == "r14"
    monkeypatch.chdir(out)
    code, text, err = run(capsys, *args[1:], "--out", "again", "--quiet")
    assert code == 0, err
    assert "report     again/index.html" in text
    # the page that exists: the card change's, not a comparison's (those are in cards/ and
    # against/)
    assert "           again/card-change.md\n" in text and "again/compare.md" not in text
    first, again = (pd.read_csv(folder / "card-change.csv").drop(columns="commit")
                    for folder in (out, out / "again"))
    pd.testing.assert_frame_equal(first, again)


def test_a_card_change_keeps_the_weights_file_its_command_plays(tmp_path):
    """The command names weighted:w.toml, to be run from the folder: the folder keeps
    that file, as each card set's comparison keeps its own copy beside its command."""
    weak = _weak_chaos(tmp_path)
    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nBOOKS_KEEP = 1.0\n")
    out = tmp_path / "change"
    analyzer.compare(sets="base", games=20, cards=weak, against="r14",
                     policy=f"weighted:{weights}", out=out)
    command = (out / "card-change.md").read_text(encoding="utf-8").splitlines()[-1]
    assert "--policy weighted:w.toml" in command
    for folder in (out, out / "cards", out / "against"):
        assert (folder / "w.toml").read_bytes() == weights.read_bytes(), folder
    shipped = tmp_path / "shipped"
    analyzer.compare(sets="base", games=20, cards=weak, against="r14", policy="weighted",
                     out=shipped)
    # the shipped weights: no file to keep, the weak cards' file alone
    assert [str(path.relative_to(shipped)) for path in shipped.rglob("*.toml")] == \
        ["cards/cards.toml"]


def test_a_stopped_card_change_resumes_to_the_uninterrupted_table(tmp_path, monkeypatch):
    """Stopped in the second card set's games: the first card set's batches are kept, the
    message points to --resume, and the resume plays the rest only."""
    import analyzer.api as api

    weak = _weak_chaos(tmp_path)
    real = api.simulate
    played: list[str] = []
    stop_in_the_second_card_set = _stopping_with("R14-default", real, played)

    folder = tmp_path / "change"
    with monkeypatch.context() as patch:
        patch.setattr(api.simulation, "simulate", stop_in_the_second_card_set)
        with pytest.raises(RunStopped) as stop:
            analyzer.compare(sets="base,books", games=30, cards=weak, against="r14",
                             out=folder)
    message = str(stop.value)
    assert "none of these games were saved, the batches finished before them are in " \
           f"{folder}; run the same command with --resume" in message
    assert len(list((folder / "cards" / "results").glob("*.parquet"))) == 2
    # a new run beside it is refused until it is resumed
    with pytest.raises(UrbionError, match="holds an earlier comparison with --against"):
        analyzer.compare(sets="base,books", games=30, cards=weak, against="r14", out=folder)
    played.clear()

    def counting(**kwargs):
        played.append(kwargs["cards"].name)
        return real(**kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(api.simulation, "simulate", counting)
        resumed = analyzer.compare(sets="base,books", games=30, cards=weak, against="r14",
                                   out=folder, resume=True)
    assert played == ["R14-default", "R14-default"]  # the first card set's games read back
    whole = analyzer.compare(sets="base,books", games=30, cards=weak, against="r14")
    pd.testing.assert_frame_equal(resumed.table, whole.table)
    assert (folder / "card-change.md").exists()


def test_a_stop_before_any_game_leaves_no_folder(tmp_path, monkeypatch):
    import analyzer.api as api

    def stop(**kwargs):
        raise RunStopped("interrupted after 0 of 30 games; nothing was saved", True)

    monkeypatch.setattr(api.simulation, "simulate", stop)
    with pytest.raises(RunStopped, match="nothing was saved"):
        analyzer.compare(sets="base", games=30, cards=_weak_chaos(tmp_path), against="r14",
                         out=tmp_path / "new")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("extra, message", [
    # the Python names too: analyzer.compare(against=...) was told of flags only
    (["--against", "r14"], "--against (against=) names the cards --cards (cards=) plays "
                           "(R14-default, sha256 "),
    (["--against", "no-such.toml"], "--against (against=): cannot read card-set file"),
    (["--against", "r14", "--cards", "WEAK", "--max-games", "50"],
     "--max-games (max_games=) applies only with --precision (precision=)"),
])
def test_bad_against_is_one_line_and_exit_2(capsys, tmp_path, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    weak = _weak_chaos(tmp_path)
    extra = [str(weak) if word == "WEAK" else word for word in extra]
    code, out, err = run(capsys, "compare", "--sets", "base", "--games", "10", "--out",
                         "out", *extra)
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err + out
    assert not (tmp_path / "out").exists()


def test_a_file_named_r14_is_a_file_and_a_comparisons_folder_is_not_resumed_as_a_change(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    weak = _weak_chaos(tmp_path)
    _weak_chaos(tmp_path, name="r14", value=3).rename(tmp_path / "r14")
    result = analyzer.compare(sets="base", games=20, against="r14")
    assert result.attrs["against_card_set"] == "r14"
    analyzer.compare(sets="base", games=20, out=tmp_path / "plain")
    with pytest.raises(UrbionError, match="not the folder of a comparison with --against"):
        analyzer.compare(sets="base", games=20, cards=weak, against="R14",
                         out=tmp_path / "plain", resume=True)


def test_the_chart_colours_the_sets_whose_change_departs_from_the_base_games(change):
    _, _, result = change
    fig = result.figures()["card_change"]
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    shown = int(result.table["vs_base_shown"].sum())
    assert legend[0] == "base game (dashed)"
    bound = int(result.table["at_bound"].sum())
    assert ("differs from it\nin points\n(Holm p < 0.05)" in legend) == (shown > 0)
    assert ("no difference\nfrom it shown" in legend) == \
        (shown + bound < len(result.table) - 1)
    assert ("too near 0% or\n100% to compare\nin points" in legend) == (bound > 0)
    # the dashed line stands at the base game's change, in points
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert dashed and dashed[0].get_xdata()[0] == pytest.approx(
        result.table.loc["base", "difference"] * 100)


def test_the_verdict_names_the_sets_in_plain_words_against_the_base_games_change():
    n = 400
    lost = np.zeros(n, dtype=bool)
    gained = np.arange(n) < 60
    some = np.arange(n) % 5 == 0
    # the cards lose 15 points of the base game
    against = {"base": _run(gained), "books": _run(gained), "emptiness": _run(some),
               "postcards": _run(np.arange(n) < 120), "squares_metas": _run(lost)}
    cards = {label: _run(some if label == "emptiness" else lost) for label in against}
    from analyzer.analysis.card_change import verdict_lines

    lines = verdict_lines(card_change_table(cards, against), "mine", "R14-default")
    assert lines == [
        "In short: the cards of mine, against those of R14-default, lower the win rate in: "
        "postcards, base, books; no change shown in: emptiness, squares_metas.",
        "Against the base game's change (-15.00 pp), in points, the change leaves more wins "
        "in: emptiness; fewer wins in: postcards; no difference shown in: books; too near 0% "
        "or 100% to compare in points: squares_metas.",
        "On the odds scale, against the base game's odds ratio (n/a): too few wins, losses "
        "or games differing (under 20) to weigh in: books, emptiness, postcards, "
        "squares_metas."]


def test_the_odds_scale_weighs_each_sets_odds_ratio_against_the_base_games():
    """A set near 0% cannot lose the base game's points but can change its odds alike:
    there the odds scale, not the points, says whether the change departs."""
    n = 4_000
    game = np.arange(n)
    few = game % 200 == 0  # 20 wins: weighed; with one fewer it is not
    against = {"base": _run(game < 600), "postcards": _run(game < 60),
               "temples_harmony": _run(few), "squares_metas": _run(few & (game > 0)),
               "gardens_wizards": _run(game < 400),
               "emptiness": _run(game < 400), "chromatic_chaos": _run(game < 400),
               "books": _run(game < 600)}
    cards = {"base": _run(game < 1_200), "postcards": _run(game < 130),
             "temples_harmony": _run(game < 40), "squares_metas": _run(game < 40),
             "gardens_wizards": _run(game < 790),
             "emptiness": _run(game < 420), "chromatic_chaos": _run(game < 2_400),
             "books": _run(game < 1_200)}
    table = card_change_table(cards, against)
    odds = [k / (n - k) for k in (1_200, 600, 130, 60)]
    assert table.loc["postcards", "odds_vs_base"] == pytest.approx(
        odds[2] / odds[3] / (odds[0] / odds[1]))
    # near 0% the points say the change differs; the odds say it is the base game's
    assert table.loc["postcards", "vs_base_shown"]
    assert not table.loc["postcards", "odds_vs_base_shown"]
    assert table.loc["emptiness", "odds_vs_base_shown"]
    assert table.loc["chromatic_chaos", "odds_vs_base_shown"]
    # the base game's very games: no departure, and none to count in Holm's family
    assert table.loc["books", "odds_vs_base_holm_p"] == 1.0
    assert np.isnan(table.loc["books", "odds_vs_base_low"])
    # Holm's family: the five sets with a game that departs, emptiness second smallest
    assert table.loc["chromatic_chaos", "odds_vs_base_p"] < \
        table.loc["emptiness", "odds_vs_base_p"] < table.loc["gardens_wizards", "odds_vs_base_p"]
    assert table.loc["emptiness", "odds_vs_base_holm_p"] == pytest.approx(
        4 * table.loc["emptiness", "odds_vs_base_p"], rel=1e-9, abs=0)
    # a p under 0.05 alone, not after Holm's adjustment: no departure shown
    gardens = table.loc["gardens_wizards"]
    assert gardens.odds_vs_base_p < 0.05 < gardens.odds_vs_base_holm_p
    assert gardens.odds_vs_base_high < 1 and not gardens.odds_vs_base_shown
    from analyzer.reporting.card_change_pages import card_change_rows

    rows = {row[0]: row for row in card_change_rows(table)}
    at = rows["set"].index("Holm p (odds)")
    assert rows["chromatic_chaos"][at:at + 2] == ["<1e-300", "better odds"]
    assert rows["emptiness"][at:at + 2] == [
        format_p(table.loc["emptiness", "odds_vs_base_holm_p"]), "worse odds"]
    assert rows["gardens_wizards"][at:at + 2] == [format_p(gardens.odds_vs_base_holm_p), "no"]
    assert rows["squares_metas"][at - 1] == "n/a: too few wins, losses or games differing"
    from analyzer.analysis.card_change import verdict_lines

    chromatic = odds_ratio(2_400 / n, 400 / n) / odds_ratio(1_200 / n, 600 / n)
    emptiness = odds_ratio(420 / n, 400 / n) / odds_ratio(1_200 / n, 600 / n)
    assert verdict_lines(table, "mine", "R14-default")[-1] == (
        "On the odds scale, against the base game's odds ratio (x2.43): the change "
        f"leaves better odds of winning in: chromatic_chaos (x{chromatic:.2f} the base "
        f"game's); worse odds in: emptiness (x{emptiness:.2f} the base game's); "
        "no difference shown in: temples_harmony, postcards, gardens_wizards, books; too few "
        "wins, losses or games differing (under 20) to weigh in: squares_metas.")


def test_a_set_whose_books_were_never_kept_says_its_change_is_the_base_games(tmp_path):
    """greedy keeps no Book: the Books set's change is the base game's very games', which
    the table's +0.00 vs base must not pass off as the Books changing nothing."""
    result = analyzer.compare(sets="base,books", games=60, cards=_weak_chaos(tmp_path),
                              against="r14", out=tmp_path / "out")
    assert result.table.loc["books", "vs_base"] == 0
    note = "books: the policy kept no Book of Power in any game of books"
    assert str(result).endswith(result.books_note()) and result.books_note().startswith(note)
    assert "Books: the policy kept no Book of Power in any game of books" in \
        (tmp_path / "out" / "card-change.md").read_text(encoding="utf-8")
    assert analyzer.compare(sets="base,emptiness", games=20, cards=_weak_chaos(tmp_path),
                            against="r14").books_note() == ""
    # nor does the verdict, in points or odds, nor a Holm p of a test that cannot be made
    text = str(result)
    verdict = text[text.index("In short"):text.index("change: the win rate")]
    assert "no change shown in: base; not weighed, no Book of Power kept: books.\n" in verdict
    assert "in points: not weighed, no Book of Power kept: books.\n" in verdict
    assert "odds ratio (x2.75): not weighed, no Book of Power kept: books.\n" in verdict
    assert re.search(r"\nbooks .*\+0\.00pp .* —$", text, re.MULTILINE)
    md = (tmp_path / "out" / "card-change.md").read_text(encoding="utf-8")
    books_row = next(line for line in md.splitlines() if line.startswith("| books |"))
    assert "| — |" in books_row and "not weighed, no Book of Power kept: books" in md


def test_a_file_of_the_shipped_cards_is_played_again_as_r14(tmp_path):
    """--against a copy of the R14 file: the folder keeps no file of the shipped cards, so
    the command says --against r14 (it dropped --against, and played a plain comparison)."""
    copy = tmp_path / "r14-copy.toml"
    copy.write_text(card_file_text(analyzer.load_cards(None)), encoding="utf-8")
    analyzer.compare(sets="base", games=20, cards=_weak_chaos(tmp_path), against=copy,
                     out=tmp_path / "out")
    md = (tmp_path / "out" / "card-change.md").read_text(encoding="utf-8")
    assert md.rstrip().endswith("--cards cards/cards.toml --against r14")
    assert not (tmp_path / "out" / "against" / "cards.toml").exists()
    # the other way round: the shipped cards need no --cards
    analyzer.compare(sets="base", games=20, cards=copy, against=_weak_chaos(tmp_path),
                     out=tmp_path / "back")
    last = (tmp_path / "back" / "card-change.md").read_text(encoding="utf-8").rstrip()
    assert last.endswith("--policy greedy --against against/cards.toml")


def test_a_renamed_copy_of_the_cards_is_no_change_to_measure(tmp_path):
    weak = _weak_chaos(tmp_path)
    renamed = _weak_chaos(tmp_path, name="weak-copy")
    with pytest.raises(UrbionError, match=r"--against \(against=, weak-copy\) holds the "
                                          r"cards of --cards \(cards=, weak-chaos\) in the "
                                          "same order, under another name"):
        analyzer.compare(sets="base", games=20, cards=weak, against=renamed,
                         out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_stop_says_which_card_set_it_cut_and_where_the_games_are(tmp_path, monkeypatch):
    import analyzer.api as api
    import analyzer.reporting.card_change_pages as card_change_pages

    weak = _weak_chaos(tmp_path)
    stop_in_the_second_card_set = _stopping_with("R14-default", api.simulate)

    with monkeypatch.context() as patch:
        patch.setattr(api.simulation, "simulate", stop_in_the_second_card_set)
        with pytest.raises(RunStopped) as stop:
            analyzer.compare(sets="base", games=20, cards=weak, against="r14",
                             out=tmp_path / "a")
    assert str(stop.value).startswith("compare, set base with --against (R14-default) "
                                      "(games 0 to 19): ")

    def stop_writing(folder, files):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(card_change_pages, "write_together", stop_writing)
        with pytest.raises(RunStopped) as stop:
            analyzer.compare(sets="base", games=20, cards=weak, against="r14",
                             out=tmp_path / "b")
    games = f"{tmp_path / 'b' / 'cards' / 'results'} and {tmp_path / 'b' / 'against' / 'results'}"
    assert f"every set's games stay in {games}, and the pages as they were" in str(stop.value)
    assert not (tmp_path / "b" / "results").exists()


def test_the_pages_of_both_card_sets_and_the_change_are_written_as_one_set(tmp_path):
    """A resume that adds a set, stopped as the pages are written, left the --cards
    comparison's pages with the new set beside the --against one's and the change's
    without it. Now a failure anywhere leaves all three as they were."""
    weak = _weak_chaos(tmp_path)
    out = tmp_path / "out"
    analyzer.compare(sets="base,books", games=20, cards=weak, against="r14", out=out)
    before = {path: path.read_bytes() for path in out.rglob("*.csv")}
    (out / "against" / "index.html").unlink()
    (out / "against" / "index.html").mkdir()  # a name that refuses the page
    with pytest.raises(RunStopped, match="cannot write .*index.html: it is a folder"):
        analyzer.compare(sets="base,books,emptiness", games=20, cards=weak, against="r14",
                         out=out, resume=True)
    assert {path: path.read_bytes() for path in out.rglob("*.csv")} == before


def test_folders_and_lines_that_are_not_a_card_changes_are_refused_in_one_line(
        tmp_path, monkeypatch, capsys):
    from pathlib import Path

    weak = _weak_chaos(tmp_path)
    analyzer.compare(sets="base", games=20, cards=weak, against="r14", out=tmp_path / "cc")
    # a plain comparison into it, or its resume without --against, says what it is
    with pytest.raises(UrbionError, match="it is the folder of a comparison with --against "
                                          r"\(give --against"):
        analyzer.compare(sets="base", games=20, cards=weak, out=tmp_path / "cc", resume=True)
    # a folder that cannot be listed: one line, not a traceback
    real = Path.iterdir

    def denied(self):
        if self.name == "denied":
            raise PermissionError(13, "Permission denied")
        return real(self)

    (tmp_path / "denied").mkdir()
    monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(UrbionError, match="cannot use .*denied: Permission denied"):
        analyzer.compare(sets="base", games=20, cards=weak, against="r14",
                         out=tmp_path / "denied")
    monkeypatch.undo()
    # the help, whatever else the line holds
    code, out, _ = run(capsys, "compare", "--against", "r14", "--against", "x", "--help")
    assert code == 0 and "--against FILE|r14" in out


def test_the_charts_alternative_text_says_what_it_finds(change):
    _, out, result = change
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "alt='The change in each set, each with its interval: In short: the cards of " \
           "weak-chaos, against those of R14-default, " in page


def test_with_precision_each_set_plays_until_its_change_and_departure_are_that_narrow(
        tmp_path):
    """A set stops after the first batch at which the 95% intervals of its change and of
    its departure from the base game's change are both at most +-precision; the base game
    plays as long as any set, with both card sets in step."""
    weak = _weak_chaos(tmp_path)
    result = analyzer.compare(sets=SETS, games=200, seed=2, cards=weak, against="r14",
                              precision=0.05, max_games=3000)
    games = result.table["games"]
    assert (games % 200 == 0).all() and games["base"] == games.drop("base").max()
    assert games["emptiness"] < games["base"]  # a set stops on its own
    runs = {name: getattr(result, name).runs for name in ("cards", "against")}

    def first(counts: dict[str, int]) -> pd.DataFrame:
        """The change over each set's first ``counts`` games, from the runs played."""
        return card_change_table(*({label: run[run["game"] < counts[label]]
                                    for label, run in runs[name].items()}
                                   for name in ("cards", "against")))

    def narrow(table: pd.DataFrame, label: str) -> bool:
        r = table.loc[label]
        return (r.diff_high - r.diff_low) / 2 <= 0.05 and \
            (label == "base" or (r.vs_base_high - r.vs_base_low) / 2 <= 0.05)

    for label, n in games.items():
        assert narrow(first(dict(games)), label)
        if label != "base":  # one batch before, when every set still playing had n - 200
            assert not narrow(first({other: min(m, n - 200) for other, m in games.items()}),
                              label)
    assert result.table["precise"].all()
    # the games of each set are games 0.. of the seed, as simulate plays them
    mine = analyzer.simulate(games=int(games["emptiness"]), seed=2, cards=weak,
                             expansions="emptiness")
    r14 = analyzer.simulate(games=int(games["emptiness"]), seed=2, expansions="emptiness")
    assert result.table.loc["emptiness", "difference"] == pytest.approx(
        mine["won"].mean() - r14["won"].mean())
    text = str(result)
    assert "games: each set's, in its column" in text and "*" not in text
    note = "vs base: over the set's own games, against the base game's change over its " \
           "first as many"
    assert note in text
    # the chart, whose dashed line is the base game's change over all its games, says so
    caption = result.figures()["card_change"].get_supxlabel()
    assert note in " ".join(caption.split())


def test_the_change_chart_says_which_sets_kept_no_book(tmp_path):
    """Published apart from the page, the chart drew the Books' change without the note
    the page gives (greedy keeps no Book: the set plays the base game's games)."""
    result = analyzer.compare(sets="base,books", games=60, cards=_weak_chaos(tmp_path),
                              against="r14")
    assert "kept no Book of Power in any game" in result.books_note()
    caption = " ".join(result.figures()["card_change"].get_supxlabel().split())
    assert "Books of Power: the policy kept no Book of Power in any game, so this set " \
           "played as without the Books and says nothing about them" in caption


def test_a_precise_change_stopped_at_max_games_is_marked_and_played_again_alike(
        tmp_path, capsys, monkeypatch):
    """A change still wider than asked at --max-games is marked * in the terminal, the
    pages and the CSV, which say why; the folder's play-again command gives the same
    table, and each card set's comparison sends a reader to the change."""
    weak = _weak_chaos(tmp_path)
    out = tmp_path / "change"
    result = analyzer.compare(sets="base,emptiness", games=100, seed=4, cards=weak,
                              against="r14", precision=0.01, max_games=200, out=out)
    assert list(result.table["games"]) == [200, 200]
    assert not result.table["precise"].any()
    note = "* stopped with a 95% interval wider than +-1.00 pp: another batch of 100 " \
           "would pass max-games (200)"
    text = str(result)
    assert note in text and "\nemptiness" in text
    assert [line.split()[1] for line in text.splitlines()
            if line.startswith(("base ", "emptiness "))] == ["200*", "200*"]
    md = (out / "card-change.md").read_text(encoding="utf-8")
    assert "| base | 200* |" in md and note in md
    assert "- **precision**: each set played until the half-widths of the 95% intervals " \
           "of its change" in md
    assert not pd.read_csv(out / "card-change.csv")["precise"].any()
    sub = (out / "cards" / "compare.md").read_text(encoding="utf-8")
    assert "each set played until the card change in the folder above (../index.html) " \
           "was known to +-1.00 percentage points in it, or had 200 games, with these cards " \
           "and the others alike (base and emptiness stopped so, the change still less " \
           "precise: marked * on its page)" in sub
    assert "- **play again**: the card change's command, on its page in the folder " \
           "above" in sub
    command = md.splitlines()[-1].removeprefix("- **play again**: ")
    args = shlex.split(command)
    assert args[args.index("--precision") + 1] == "0.01"
    assert args[args.index("--max-games") + 1] == "200"
    monkeypatch.chdir(out)
    code, _, err = run(capsys, *args[1:], "--out", "again", "--quiet")
    assert code == 0, err
    first, again = (pd.read_csv(folder / "card-change.csv").drop(columns="commit")
                    for folder in (out, out / "again"))
    pd.testing.assert_frame_equal(first, again)


def test_a_precise_change_stopped_mid_way_resumes_to_the_uninterrupted_table(
        tmp_path, monkeypatch):
    """Stopped in its second batch (after both card sets' first): the batches played are
    kept, and --resume plays on to the table of a run never stopped."""
    import analyzer.api as api

    weak = _weak_chaos(tmp_path)
    real = api.simulate
    calls: list[int] = []

    def stop_in_the_second_batch(**kwargs):
        calls.append(kwargs["first_game"])
        if kwargs["first_game"] == 200 and len(calls) > 7:
            raise RunStopped("interrupted after 0 of 200 games; nothing was saved", True)
        return real(**kwargs)

    folder = tmp_path / "change"
    asked = dict(sets=SETS, games=200, seed=2, cards=weak, against="r14", precision=0.05,
                 max_games=3000)
    with monkeypatch.context() as patch:
        patch.setattr(api.simulation, "simulate", stop_in_the_second_batch)
        with pytest.raises(RunStopped, match="run the same command with --resume"):
            analyzer.compare(**asked, out=folder)
    kept = sorted(p.name for p in folder.glob("*/results/*.parquet"))
    assert len(kept) == 7 and "base.games-200-399.parquet" in kept
    resumed = analyzer.compare(**asked, out=folder, resume=True)
    whole = analyzer.compare(**asked)
    pd.testing.assert_frame_equal(resumed.table, whole.table)
    assert (folder / "card-change.md").exists()


def test_a_set_at_a_bound_is_precise_by_its_change_alone():
    """Its departure from the base game's change is no figure any table gives (at 0% or
    100%), so a wide one must not keep it playing with no reason shown."""
    from analyzer.analysis.card_change import precise_changes

    table = pd.DataFrame({"diff_low": [-0.01, -0.01, -0.01, -0.04],
                          "diff_high": [0.01, 0.01, 0.01, 0.04],
                          "vs_base_low": [np.nan, -0.2, -0.2, -0.001],
                          "vs_base_high": [np.nan, 0.2, 0.2, 0.001],
                          "at_bound": [False, True, False, False]},
                         index=["base", "emptiness", "books", "postcards"])
    assert precise_changes(table, 0.02).tolist() == [True, True, False, False]


def test_holm_leaves_out_the_sets_no_game_tells_apart():
    """The base game's cards change no game, books' win 8 more of 20 (McNemar's p
    2 / 2**8), emptiness' lose 6 (p 2 / 2**6): Holm over books and emptiness only,
    2 x 2 / 2**8 and 1 x 2 / 2**6."""
    n = 20
    games = np.arange(n)
    cards = {"base": _run(games < 5), "books": _run(games < 10), "emptiness": _run(games < 2)}
    against = {"base": _run(games < 5), "books": _run(games < 2), "emptiness": _run(games < 8)}
    table = card_change_table(cards, against)
    assert table["cards_only"].tolist() == [0, 8, 0]
    assert table["against_only"].tolist() == [0, 0, 6]
    assert table["mcnemar_p"].tolist() == pytest.approx([1.0, 2 / 2**8, 2 / 2**6])
    assert table["holm_family"].tolist() == [2, 2, 2]
    assert table["holm_p"].tolist() == pytest.approx([1.0, 2 * 2 / 2**8, 2 / 2**6])


def test_holm_over_the_departures_leaves_out_a_set_that_departs_in_no_game():
    """The base game's cards change no game; books' neither, so no game departs from the
    base game's change; emptiness' win 6 more, 6 games departing alike: its departure is
    a family of one, its Holm p its own p."""
    n = 20
    games = np.arange(n)
    cards = {"base": _run(games < 5), "books": _run(games < 10), "emptiness": _run(games < 8)}
    against = {"base": _run(games < 5), "books": _run(games < 10), "emptiness": _run(games < 2)}
    table = card_change_table(cards, against)
    assert table.loc[["books", "emptiness"], "vs_base_differing"].tolist() == [0, 6]
    assert table.at["emptiness", "vs_base_p"] < 0.5
    assert table.at["emptiness", "vs_base_holm_p"] == table.at["emptiness", "vs_base_p"]
