"""Head to head on paired deals (McNemar), the weighted policy's files, and tuning."""

from __future__ import annotations

import glob
import math
import re
import shlex
import tomllib
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

import analyzer
import cli
from analyzer.analysis.duel import pair_table
from analyzer.analysis.stats import format_p, holm_adjust, mcnemar_exact, paired_difference_interval
from analyzer.errors import PolicyError, UrbionError
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS
from analyzer.policies.registry import resolve_policy
from analyzer.policies.weights import load_weights, tuned_weights_note


@pytest.mark.parametrize("only_a, only_b, p", [
    (1, 6, 2 * (1 + 7) / 2**7),          # 2 * P(X <= 1), X ~ Bin(7, 1/2)
    (0, 5, 2 / 2**5),
    (6, 1, 2 * (1 + 7) / 2**7),
    (3, 3, 1.0),
    (0, 0, 1.0),
    (2, 10, 2 * (1 + 12 + 66) / 2**12),
])
def test_mcnemar_matches_hand_computed_values(only_a, only_b, p):
    assert mcnemar_exact(only_a, only_b) == pytest.approx(p, rel=1e-12)


def _frame(won):
    return pd.DataFrame({"game": range(len(won)), "won": won})


def test_pair_counts_come_from_the_same_games():
    a = _frame([True, True, False, False, True, False])
    b = _frame([True, False, True, False, False, False])
    row = pair_table({"a": a, "b": b}).iloc[0]
    assert (row.a_only, row.b_only, row.both) == (2, 1, 1)
    assert row.difference == pytest.approx(1 / 6)
    assert row.mcnemar_p == pytest.approx(mcnemar_exact(2, 1))
    assert (row.diff_low, row.diff_high) == paired_difference_interval(1, 2, 1, 2)


def test_a_pair_compares_cities_pacified_deal_by_deal():
    """The mean of A's cities minus B's on each deal, with the paired t-interval scipy gives
    for those differences; the duel's text shows it under the pairs."""
    from scipy import stats

    from analyzer.analysis.duel import format_duel

    a = _frame([True, False, False, False, True]).assign(pacified=[12, 10, 8, 11, 12])
    b = _frame([False, False, True, False, True]).assign(pacified=[11, 10, 12, 9, 12])
    row = pair_table({"a": a, "b": b}).iloc[0]
    gaps = np.array([1, 0, -4, 2, 0])
    expected = stats.t.interval(0.95, 4, loc=gaps.mean(), scale=stats.sem(gaps))
    assert row.pacified_diff == pytest.approx(-0.2)
    assert (row.pacified_low, row.pacified_high) == pytest.approx(expected)
    policies = pd.DataFrame({"wins": [2, 2], "win_rate": [0.4, 0.4], "ci_low": [0.1, 0.1],
                             "ci_high": [0.8, 0.8], "mean_pacified": [10.6, 10.8],
                             "games_per_s": [1.0, 1.0]},
                            index=pd.Index(["a", "b"], name="policy"))
    text = format_duel(policies, pair_table({"a": a, "b": b}),
                       {"card_set": "R14", "card_set_sha256": "0" * 64, "seed": 0,
                        "games": 5})
    line = next(ln for ln in text.splitlines() if ln.startswith("a ") and "-0.20" in ln)
    assert f"{expected[0]:+.2f} to {expected[1]:+.2f}" in line


def test_the_cities_difference_of_a_pair_stays_within_the_city_cards():
    """A beats B by all 12 cities on nearly every deal: the interval may not pass 12."""
    a = _frame([True] * 30).assign(pacified=[12] * 29 + [0])
    b = _frame([False] * 30).assign(pacified=[0] * 30)
    a.attrs = b.attrs = {"city_cards": 12}
    row = pair_table({"a": a, "b": b}).iloc[0]
    assert row.pacified_high == 12.0 and row.pacified_low < row.pacified_diff < 12.0
    a.attrs = b.attrs = {}
    assert pair_table({"a": a, "b": b}).iloc[0].pacified_high > 12.0  # no bound known


def test_a_pair_that_pacifies_fewer_cities_keeps_its_whole_interval_below_zero():
    """A pacifies fewer cities than B on most deals: the difference A - B is negative, and
    the paired t-interval scipy gives for it lies well within -12 to +12 (the city cards):
    no bound of the cards cuts it."""
    from scipy import stats

    a = _frame([False, True, False, False, False]).assign(pacified=[8, 10, 9, 11, 7])
    b = _frame([True, True, True, True, False]).assign(pacified=[11, 10, 12, 12, 9])
    a.attrs = b.attrs = {"city_cards": 12}
    row = pair_table({"a": a, "b": b}).iloc[0]
    gaps = np.array([-3, 0, -3, -1, -2])
    expected = stats.t.interval(0.95, 4, loc=gaps.mean(), scale=stats.sem(gaps))
    assert row.pacified_diff == pytest.approx(-1.8)
    assert (row.pacified_low, row.pacified_high) == pytest.approx(expected)
    assert row.pacified_high < 0


def test_a_pair_is_counted_deal_by_deal_whatever_order_its_rows_come_in():
    """The two runs of test_pair_counts_come_from_the_same_games, B's rows in reverse order
    of deal: each deal is still paired with the same deal, 2 won by A alone, 1 by B alone,
    1 by both."""
    a = _frame([True, True, False, False, True, False])
    b = _frame([True, False, True, False, False, False]).iloc[::-1]
    row = pair_table({"a": a, "b": b}).iloc[0]
    assert (row.a_only, row.b_only, row.both) == (2, 1, 1)
    assert row.difference == pytest.approx(1 / 6)
    assert row.mcnemar_p == pytest.approx(mcnemar_exact(2, 1))


def test_a_duels_speed_is_games_a_second():
    """100 games in 2 seconds is 50 games a second; in half a second, 200."""
    from analyzer.analysis.duel import policy_table

    slow = _frame([True] * 30 + [False] * 70).assign(turns=20, pacified=8)
    fast = slow.copy()
    slow.attrs, fast.attrs = {"seconds": 2.0}, {"seconds": 0.5}
    table = policy_table({"slow": slow, "fast": fast})
    assert table["games_per_s"].tolist() == pytest.approx([50.0, 200.0])
    assert table["win_rate"].tolist() == pytest.approx([0.3, 0.3])


def test_duel_adjusts_its_pairs_p_values_by_holm():
    """Three policies make three tests: each McNemar p is adjusted for the family."""
    games = 40
    a = _frame([True] * 12 + [False] * 28)                    # 12 only a against c
    b = _frame([False] * 2 + [True] * 2 + [False] * 36)       # 2 against a's 12
    c = _frame([False] * games)
    pairs = pair_table({"a": a, "b": b, "c": c}).set_index(["a", "b"])
    raw = [pairs.at[("a", "b"), "mcnemar_p"], pairs.at[("a", "c"), "mcnemar_p"],
           pairs.at[("b", "c"), "mcnemar_p"]]
    assert list(pairs["holm_p"]) == pytest.approx(holm_adjust(raw))
    # a against c: 12 discordant games, all a's: p = 2 / 2^12, the smallest of three
    assert pairs.at[("a", "c"), "holm_p"] == pytest.approx(3 * 2 * 0.5 ** 12)


def test_duel_pairs_add_up_and_a_policy_ties_with_itself(tmp_path):
    greedy_file = _greedy_file(tmp_path)
    duel = analyzer.duel(["greedy", "random", "weighted:" + greedy_file], games=1500,
                         seed=4)
    table, pairs = duel.policies, duel.pairs
    assert list(table.index) == ["greedy", "random", "weighted:" + greedy_file]
    for row in pairs.itertuples():
        wins_a, wins_b = table.loc[row.a, "wins"], table.loc[row.b, "wins"]
        assert row.a_only + row.both == wins_a and row.b_only + row.both == wins_b
        assert row.difference == pytest.approx((wins_a - wins_b) / 1500)
    same = pairs[(pairs.a == "greedy") & (pairs.b.str.startswith("weighted"))].iloc[0]
    assert same.a_only == 0 and same.b_only == 0 and same.mcnemar_p == 1.0
    assert same.diff_low < 0 < same.diff_high  # no game differs, yet 1,500 games are few
    text = str(duel)
    # greedy and its copy never differ: that pair leaves Holm's family
    assert "Holm p" in text and ("adjusted for the 2 pairs with a game won by one side and "
                                 "lost by the other (one pair whose every game ended as the "
                                 "other side's, which cannot reject, is left out)") in text
    assert pairs.at[pairs.index[0], "holm_p"] == pytest.approx(
        min(1.0, 2 * pairs.at[pairs.index[0], "mcnemar_p"]))
    assert table.loc["greedy", "wins"] > 0 and table.loc["random", "wins"] == 0
    # the per-game results: the deals one policy won and the other lost, found directly
    assert list(duel.runs) == list(table.index)
    alone = analyzer.simulate(games=1500, seed=4, policy="greedy")
    assert duel.runs["greedy"]["won"].equals(alone["won"])
    greedy_row = pairs[(pairs.a == "greedy") & (pairs.b == "random")].iloc[0]
    assert greedy_row.a_only == int((duel.runs["greedy"]["won"]
                                     & ~duel.runs["random"]["won"]).sum())


def test_a_duel_records_each_policys_hashes_and_shares_none_of_them(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nTURN = 80.0\n")
    mine = tmp_path / "first.py"
    mine.write_text("import numba\n\n@numba.njit\n"
                    "def choose(kind, options, n_options, state, cards, params, rng):\n"
                    "    return 0\n")
    # the first policy's source hash is its own, not the duel's
    names = [f"{mine}:choose", f"weighted:{path}", "greedy"]
    duel = analyzer.duel(names, games=20)
    alone = {name: analyzer.simulate(games=20, policy=name).attrs for name in names}
    for key in ("policy_params_sha256", "policy_source_sha256"):
        assert duel.attrs[key] == {name: alone[name].get(key, "") for name in names}
    assert "policy" not in duel.attrs and duel.attrs["policies"] == names


def _greedy_file(folder: Path) -> str:
    """A weights file in ``folder`` holding greedy's own weights."""
    from analyzer.policies.weights import format_weights

    path = folder / "greedy.toml"
    path.write_text(format_weights(GREEDY_WEIGHTS, ["greedy's weights"]))
    return str(path)


def test_cli_duel_prints_both_tables(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["duel", "--policies", "greedy,random", "--games", "400", "--quiet"])
    out, _ = capsys.readouterr()
    assert stop.value.code == 0
    assert "95% interval" in out and "McNemar p" in out and "greedy" in out


def test_the_pairs_table_keeps_its_columns_under_their_headers():
    """A band of 19 characters (-100.00 to -98.30pp) used to push the p-values
    out from under their headers."""
    from analyzer.analysis.duel import format_duel

    policies = pd.DataFrame({"wins": [0, 990], "win_rate": [0.0, 0.99], "ci_low": [0.0, 0.98],
                             "ci_high": [0.004, 0.995], "mean_pacified": [0.8, 11.9],
                             "games_per_s": [50_000.0, 100.0]},
                            index=pd.Index(["random", "clairvoyant"], name="policy"))
    pairs = pd.DataFrame({"a": ["random", "random"], "b": ["clairvoyant", "random"],
                          "a_only": [0, 0], "b_only": [990, 0], "difference": [-0.99, 0.0],
                          "diff_low": [-1.0, -0.004], "diff_high": [-0.983, 0.004],
                          "mcnemar_p": [1e-298, 1.0], "holm_p": [2e-298, 1.0]})
    attrs = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "seed": 0,
             "games": 1000}
    lines = format_duel(policies, pairs, attrs).splitlines()
    header = next(line for line in lines if line.startswith("A "))
    rows = lines[lines.index(header) + 1:lines.index(header) + 3]
    for name in ("McNemar p", "Holm p"):
        end = header.index(name) + len(name)
        for row in rows:
            assert row[end - 1] != " " and (len(row) == end or row[end] == " "), (name, row)
    assert "-99.00pp" in rows[0]


def test_a_duel_shows_how_each_policy_plays_the_same_deals():
    """Mean tallies per game side by side, only those the expansions in play give meaning
    to: what the stronger policy does differently."""
    duel = analyzer.duel("greedy,random", games=300, seed=6, expansions="emptiness")
    play = duel.play
    assert list(play.columns) == ["greedy", "random"]
    alone = analyzer.simulate(games=300, seed=6, expansions="emptiness", policy="random")
    assert play.at["Chaos drawn: revealed", "random"] == alone["chaos_revealed"].mean()
    assert play.at["Allies against the Emptiness", "random"] == alone["allies"].mean()
    assert play.at["turns", "greedy"] == duel.runs["greedy"]["turns"].mean()
    assert "Books kept" not in play.index and "inhabitant sum" not in play.index
    assert "polarity swaps" not in play.index
    text = str(duel)
    assert "How each plays the same deals:" in text and "Emptiness cards left" in text
    # each mean with its 95% t-interval's half-width, scipy's own
    from scipy import stats

    turns = alone["turns"].to_numpy(dtype=float)
    half = stats.t.ppf(0.975, len(turns) - 1) * stats.sem(turns)
    row = next(line for line in text.splitlines() if line.startswith("turns "))
    assert f"{turns.mean():.2f} +-{half:.2f}" in row and "+-: half the width" in text
    # a cell holds a space itself: the columns stand apart by more than one
    assert row.split("   ")[-1].strip() == f"{turns.mean():.2f} +-{half:.2f}"
    team = analyzer.duel("greedy,random", games=50, seed=6, variant="team").play
    assert "polarity swaps" in team.index and "Allies against the Emptiness" not in team.index


def test_a_duel_needs_two_policies():
    with pytest.raises(UrbionError, match="at least two"):
        analyzer.duel(["greedy", "greedy"], games=10)


def test_the_shipped_weights_load_and_name_every_feature():
    weights = load_weights()
    assert set(weights) == set(GREEDY_WEIGHTS)
    assert all(math.isfinite(v) and v > 0 for v in weights.values())


@pytest.mark.parametrize("text, message", [
    ("[weights]\nBOGUS = 1.0\n", "unknown weight weights.BOGUS"),
    ("[weights]\nBALANCE = 'high'\n", "weights.BALANCE must be a finite number"),
    ("[weights]\nBALANCE = nan\n", "weights.BALANCE must be a finite number"),
    ("[weights]\nBALANCE = 1" + "0" * 400 + "\n", "weights.BALANCE must be a finite number"),
    ("[weights]\nCLEAR = 1.1e12\n", "weights.CLEAR must be a finite number from -1e12 to 1e12"),
    ("[weights]\nCLEAR = -2e12\n", "weights.CLEAR must be a finite number from -1e12 to 1e12"),
    ("BALANCE = 1.0\n", "expected one \\[weights\\] table"),
    ("[weights\n", "not valid TOML"),
    # TOML's true is no number: read as 1.0 it would play a weight nobody wrote
    ("[weights]\nBALANCE = true\n", "weights.BALANCE must be a finite number"),
    # a misspelt second table beside [weights]: its weights would be dropped unsaid
    ("[weights]\nTURN = 3.0\n[weigths]\nCLEAR = 1.0\n",
     "expected one \\[weights\\] table, found weigths"),
])
def test_bad_weights_files_are_refused_naming_the_key(tmp_path, text, message):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(PolicyError, match=message):
        resolve_policy(f"weighted:{path}")


def test_weights_at_the_bound_of_1e12_in_size_load(tmp_path):
    """The bound is "at most 1e12 in size" (docs/policies.md): 1e12 and -1e12 themselves
    are weights a file may give."""
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nCLEAR = 1e12\nWISE = -1e12\n")
    weights = load_weights(path)
    assert weights["CLEAR"] == 1_000_000_000_000.0
    assert weights["WISE"] == -1_000_000_000_000.0


@pytest.mark.parametrize("key, value, message", [
    ("expansions", '["books", "chromatic_chaoss"]', "tuned.expansions must be a list of "
                                                    "expansion names"),
    ("variant", '"duo"', "tuned.variant must be solo or team"),
])
def test_a_tuned_table_naming_no_expansion_or_variant_of_the_game_is_refused(
        tmp_path, key, value, message):
    """A [tuned] table edited by hand with a misspelt expansion or variant would make every
    run's note compare against a set no game plays."""
    tuned = {"card_set": '"R14-default"', "card_set_sha256": '"ab12"',
             "expansions": '["books"]', "variant": '"solo"'}
    table = "".join(f"{name} = {text}\n" for name, text in tuned.items())
    path = tmp_path / "w.toml"
    path.write_text(f"[weights]\nTURN = 3.0\n[tuned]\n{table}")
    assert resolve_policy(f"weighted:{path}").tuned_for["expansions"] == ["books"]
    path.write_text(f"[weights]\nTURN = 3.0\n[tuned]\n{table}".replace(
        f"{key} = {tuned[key]}", f"{key} = {value}"))
    with pytest.raises(PolicyError, match=re.escape(f"weights file {path}: {message}")):
        resolve_policy(f"weighted:{path}")


def test_a_weights_file_that_is_not_text_is_refused_in_one_line(tmp_path):
    path = tmp_path / "w.toml"
    path.write_bytes(b"\xff\xfe[weights]\n")
    with pytest.raises(PolicyError, match=f"cannot read weights file {path}: not UTF-8 text"):
        resolve_policy(f"weighted:{path}")


def test_weights_change_play(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nCENSUS_CITY = 0.5\nTURN = 80.0\n")
    mine = analyzer.simulate(games=400, seed=3, policy=f"weighted:{path}")
    greedy = analyzer.simulate(games=400, seed=3, policy="greedy")
    assert not mine["turns"].equals(greedy["turns"])
    assert mine.attrs["policy"] == f"weighted:{path}"
    assert mine.attrs["policy_params_sha256"] != greedy.attrs["policy_params_sha256"]


def test_a_weights_file_changes_the_shipped_weights_by_the_names_it_gives(tmp_path):
    """weighted:FILE is the weighted policy with the file's changes: a file giving one
    weight leaves the others at the shipped tuned values, not at greedy's."""
    from analyzer.policies.weights import load_weights

    path = tmp_path / "w.toml"
    path.write_text("[weights]\nBOOKS_KEEP = 1.0\n")
    shipped = tomllib.loads((Path(analyzer.__file__).parent / "policies" /
                             "weighted-default.toml").read_text())["weights"]
    weights = load_weights(path)
    assert weights["BOOKS_KEEP"] == 1.0
    for name in GREEDY_WEIGHTS:
        if name != "BOOKS_KEEP":
            assert weights[name] == shipped.get(name, GREEDY_WEIGHTS[name]), name
    assert weights["BALANCE"] != GREEDY_WEIGHTS["BALANCE"]


def test_tune_writes_loadable_weights_and_is_reproducible(tmp_path):
    first = analyzer.tune(games=300, seed=2, evaluations=12, heldout_games=300,
                          out=tmp_path / "a.toml")
    # without out= no file is written; write() writes the file out= would have
    second = analyzer.tune(games=300, seed=2, evaluations=12, heldout_games=300)
    assert not (tmp_path / "b.toml").exists()
    assert second.write(tmp_path / "b.toml") == tmp_path / "b.toml"
    assert first.weights == second.weights
    undated = [re.sub(r"\d{4}-\d\d-\d\d[T ]?[\d:.+Z]*", "DATE", (tmp_path / name).read_text())
               for name in ("a.toml", "b.toml")]
    assert undated[0] == undated[1] and undated[0].count("DATE") <= 1
    with pytest.raises(UrbionError, match="must end in .toml"):
        second.write(tmp_path / "b.txt")
    assert load_weights(tmp_path / "a.toml") == pytest.approx(first.weights)
    written = (tmp_path / "a.toml").read_text()
    assert "held out: games 300-599 of seed 2" in written
    # the planned comparison alone goes unadjusted; the other is one of the duel's family
    pairs = first.heldout.pairs.set_index(["a", "b"])
    greedy = pairs.loc[("greedy", "tuned")]
    assert "tuned against weighted: McNemar p = " in written
    assert "(the planned comparison)" in written
    assert (f"tuned against greedy: McNemar p = {format_p(greedy.mcnemar_p)}, Holm p = "
            f"{format_p(greedy.holm_p)} over the held-out duel's pairs") in written
    start = analyzer.simulate(games=300, seed=2, policy="weighted")
    floor = start["won"].mean() + 1e-3 * start["pacified"].mean()
    assert first.fitness >= floor - 1e-12  # never worse than where the search started
    assert first.evaluations == 12  # the budget is exact, not rounded up to generations
    assert list(first.heldout.policies.index) == ["greedy", "weighted", "tuned"]


def test_tune_refuses_a_bad_out_before_playing(tmp_path):
    with pytest.raises(UrbionError, match="must end in .toml"):
        analyzer.tune(games=10, evaluations=2, heldout_games=10, out=tmp_path / "w.txt")


def test_tune_on_an_expansion_set_plays_that_set(tmp_path):
    result = analyzer.tune(games=200, seed=3, evaluations=4, heldout_games=200,
                           expansions="gardens_wizards", out=tmp_path / "w.toml")
    heldout = analyzer.simulate(games=200, seed=3, first_game=200, policy="greedy",
                                expansions="gardens_wizards")
    assert result.heldout.policies.loc["greedy", "wins"] == int(heldout["won"].sum())
    assert result.heldout.attrs["expansions"] == ["gardens_wizards"]
    assert "expansions gardens_wizards, the solo game;" in (tmp_path / "w.toml").read_text()
    team = analyzer.tune(games=40, seed=3, evaluations=2, heldout_games=40, variant="team",
                         out=tmp_path / "team.toml")
    assert team.heldout.attrs["variant"] == "team"
    assert "expansions none, the team game;" in (tmp_path / "team.toml").read_text()
    start = analyzer.simulate(games=200, seed=3, policy="weighted",
                              expansions="gardens_wizards")
    floor = start["won"].mean() + 1e-3 * start["pacified"].mean()
    assert result.fitness >= floor - 1e-12  # weighted on this set is the first candidate


def test_tune_says_its_fitness_is_in_sample_and_the_held_out_games_are_the_estimate(
        tmp_path, capsys):
    """The best of many candidates on the tuning games flatters them: only the held-out
    comparison estimates how the weights play."""
    from tests.test_cli import run

    code, out, err = run(capsys, "tune", "--games", "100", "--evaluations", "2",
                         "--heldout-games", "100", "--out", str(tmp_path / "w.toml"),
                         "--quiet")
    assert code == 0, err
    assert "on those games (the best of 2 tries on the same games" in out
    assert "not an estimate" in out
    assert "held-out comparison (games never seen in tuning: the estimate):" in out
    # the held-out games are games 100-199 of the seed, not a count that reads as 0-99
    assert "seed 0    games 100-199 (the same deals" in out


def test_tuned_weights_that_cannot_be_written_are_shown_not_lost(tmp_path, capsys,
                                                                   monkeypatch):
    """The disk fills while the tune runs (an empty file could be made at the start): the
    weights, the fruit of hours of play, are printed as the file's text, then one line of
    error; in Python they stay on the error."""
    import tomllib

    from analyzer.errors import OutputNotWritten
    from analyzer.policies import weights
    from tests.test_cli import run

    def disk_full(path, write):
        raise UrbionError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(weights, "write_atomically", disk_full)
    out = tmp_path / "w.toml"
    code, printed, err = run(capsys, "tune", "--games", "40", "--evaluations", "2",
                             "--heldout-games", "40", "--out", str(out), "--quiet")
    assert code == 2 and not out.exists()
    # the tune's warning, if it has one, then the error
    assert err.splitlines()[-1] == (f"urbion: error: cannot write {out}: No space left on "
                                    "device: the weights found are printed above; save them "
                                    "from [weights] on as a .toml file to play them")
    assert all(line.startswith("warning: ") for line in err.splitlines()[:-1])
    shown = tomllib.loads(printed[printed.index("[weights]"):])
    assert set(shown["weights"]) == set(weights.GREEDY_WEIGHTS)
    with pytest.raises(OutputNotWritten) as lost:
        analyzer.tune(games=40, evaluations=2, heldout_games=40, out=out)
    assert lost.value.result.weights == shown["weights"]
    assert tomllib.loads(lost.value.text)["weights"] == shown["weights"]
    from analyzer.reporting import duel_pages

    monkeypatch.setattr(duel_pages, "write_folder", lambda out, fill, kind: disk_full(out, fill))
    code, printed, err = run(capsys, "duel", "--policies", "greedy,random", "--games", "50",
                             "--out", str(tmp_path / "duel"), "--quiet")
    assert code == 2 and "McNemar" in printed
    assert err.endswith("No space left on device: the tables are printed above\n")


def test_a_duel_with_out_keeps_each_policys_games_for_report(tmp_path, capsys):
    """--out: each policy's per-game results, which report pairs game by game to the same
    McNemar p as the duel, the tables and the text; a folder of the user's is refused
    before any game is played."""
    from analyzer.reporting.duel_pages import duel_file_names
    from tests.test_cli import run

    out = tmp_path / "duel"
    code, printed, err = run(capsys, "duel", "--policies", "greedy,weighted:" + str(
        Path(analyzer.__file__).parent / "policies" / "weighted-default.toml"),
        "--games", "300", "--seed", "4", "--out", str(out), "--quiet")
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir() if p.suffix == ".parquet")
    assert names[0] == "1-greedy.parquet" and names[1].startswith("2-weighted_")
    # the command it says to run next runs as printed (it lacked --out), FOLDER filled in
    hint = printed.rstrip().splitlines()[-1]
    assert hint == (f"results    {out}/ (urbion report {shlex.quote(str(out))}/*.parquet "
                    "--out FOLDER: charts and tables)")
    words = shlex.split(hint[hint.index("(urbion ") + 1:hint.index(": charts")])
    assert words[:2] == ["urbion", "report"] and words[3:] == ["--out", "FOLDER"]
    code, _, err = run(capsys, "report", *sorted(glob.glob(words[2])), "--out",
                       str(tmp_path / "hinted"))
    assert code == 0 and (tmp_path / "hinted" / "index.html").exists(), err
    assert duel_file_names(["search:rollouts=4", "x/../y"]) == [
        "1-search_rollouts=4.parquet", "2-x_y.parquet"]
    # what the terminal showed, the weights file named without its folders
    text = (out / "duel.txt").read_text()
    assert text.split("\n")[:2] == printed.split("\n")[:2]
    assert "\nweighted:weighted-default.toml " in text and "policies/weighted" not in text
    assert "\nplay again urbion duel --policies greedy,weighted --games 300 --seed 4\n" in text
    play = pd.read_csv(out / "play.csv", index_col=0)  # in the order the duel was given
    assert play.index.name == "measure" and "turns" in play.index  # no nameless column
    assert list(play.columns) == ["column", "greedy", "greedy half_width",
                                  "weighted:weighted-default.toml",
                                  "weighted:weighted-default.toml half_width",
                                  "card_set", "card_set_sha256"]
    # each measure names the results column it averages (the labels are the terminal's)
    greedy = pd.read_parquet(out / "1-greedy.parquet")
    assert play.at["Chaos placed (opening hand too)", "column"] == "chaos_placed"
    for measure, row in play.iterrows():
        assert row["greedy"] == pytest.approx(greedy[row["column"]].mean()), measure
    pairs = pd.read_csv(out / "pairs.csv")
    report = analyzer.report(sorted(out.glob("*.parquet")), tmp_path / "rep")
    md = (report / "report.md").read_text()
    assert f"| {pairs.at[0, 'mcnemar_p']:.3g} (McNemar) |" in md and "paired, 300 games" in md
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    code, printed, err = run(capsys, "duel", "--policies", "greedy,random", "--games", "10",
                             "--out", str(mine), "--quiet")
    assert code == 2 and printed == "" and "is not a folder `urbion duel` wrote" in err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def _changed_games(card_set, weights, name, games):
    """Games of seed 11 that end otherwise when weight ``name`` moves to either end of
    tune's search box around ``weights``."""
    from analyzer.analysis.tune import LOG_BOUND, weighted_spec
    from analyzer.runner.run import run_fast

    base = run_fast(card_set, weighted_spec(weights, card_set, "w"), 11, games)
    changed = 0
    for factor in (math.exp(LOG_BOUND), math.exp(-LOG_BOUND)):
        moved = dict(weights, **{name: weights[name] * factor})
        changed += int((run_fast(card_set, weighted_spec(moved, card_set, "w"), 11,
                                 games) != base).sum())
    return changed


@pytest.mark.parametrize("expansions, variant", [(None, "solo"), (None, "team")] + [
    (name, "solo") for name in ("squares_metas", "chromatic_chaos", "temples_harmony",
                                "gardens_wizards", "books", "postcards", "emptiness")])
def test_tune_searches_exactly_the_weights_a_sets_games_feel(expansions, variant):
    """WEIGHT_USERS: a weight tune leaves out for a set changes none of its games, even at
    the ends of the search box; each weight it searches changes some. (Books laid out for
    the Books' own weights to be felt: BOOKS_KEEP 8.)"""
    from analyzer.analysis.tune import tuned_names
    from analyzer.api import load_cards

    card_set = load_cards(None, expansions, variant)
    weights = dict(load_weights(None), BOOKS_KEEP=8.0)
    searched = tuned_names(card_set)
    for name in GREEDY_WEIGHTS:
        changed = _changed_games(card_set, weights, name, 1500)
        if name in searched:
            assert changed > 0, f"{name} is tuned but changes no game"
        else:
            assert changed == 0, f"{name} is left out but changes {changed} games"


def test_tune_keeps_the_start_value_of_every_weight_it_does_not_search(tmp_path):
    """Tuning on the base game moves none of the expansions' weights (they used to drift:
    POSTCARD 18.5 after a base-game tune, 400 shipped), here from a start file of one's own."""
    from analyzer.analysis.tune import tuned_names
    from analyzer.api import load_cards

    start = tmp_path / "start.toml"
    start.write_text("[weights]\nPOSTCARD = 123.0\nSWAP = 7.5\nBALANCE = 60.0\n")
    result = analyzer.tune(games=200, seed=5, evaluations=8, heldout_games=200,
                           start=f"weighted:{start}", out=tmp_path / "w.toml")
    begin = load_weights(start)
    searched = tuned_names(load_cards(None))
    assert result.tuned == searched and "POSTCARD" not in searched and "RUIN" not in searched
    written = load_weights(tmp_path / "w.toml")
    for name in GREEDY_WEIGHTS:
        if name not in searched:
            assert result.weights[name] == begin[name] == written[name], name
    assert any(result.weights[name] != begin[name] for name in searched)
    assert list(result.heldout.policies.index) == ["greedy", f"weighted:{start}", "tuned"]
    text = (tmp_path / "w.toml").read_text()
    assert f"tuned with CMA-ES from weighted:{start}'s weights" in text
    kept = ", ".join(name for name in GREEDY_WEIGHTS if name not in searched)
    assert f"kept at weighted:{start}'s value (no game of this set feels them): {kept}." in text


def test_tune_from_greedy_compares_with_greedy_once(tmp_path):
    result = analyzer.tune(games=100, seed=6, evaluations=2, heldout_games=100,
                           start="greedy")
    assert list(result.heldout.policies.index) == ["greedy", "tuned"]
    assert len(result.heldout.pairs) == 1


@pytest.mark.parametrize("start, message", [
    ("random", "tuning starts from greedy, weighted or weighted:FILE.toml, not 'random'"),
    ("weighted:", "tuning start 'weighted:' names no weights file"),
])
def test_tune_refuses_a_start_it_cannot_search_from(start, message):
    with pytest.raises(PolicyError, match=message):
        analyzer.tune(games=10, evaluations=2, heldout_games=10, start=start)


def test_tune_takes_a_start_in_any_letter_case_as_policies_are_taken():
    """--policy Weighted plays the shipped weights: --start Weighted starts from them."""
    result = analyzer.tune(games=20, evaluations=2, heldout_games=20, start="Weighted")
    assert result.start == "weighted"
    assert list(result.heldout.policies.index) == ["greedy", "weighted", "tuned"]


def test_tune_refuses_a_start_weight_that_factors_cannot_move(tmp_path, capsys):
    from tests.test_cli import run

    start = tmp_path / "zero.toml"
    start.write_text("[weights]\nSETUP = 0.0\nPOSTCARD = 0.0\n")
    out = tmp_path / "w.toml"
    code, printed, err = run(capsys, "tune", "--games", "10", "--evaluations", "2",
                             "--heldout-games", "10", "--start", f"weighted:{start}",
                             "--out", str(out))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    # POSTCARD is not tuned for the base game, so its 0 is no obstacle
    assert "each weight it tunes must be positive: SETUP = 0" in err and "POSTCARD" not in err
    assert not out.exists()


def _pairs(a_only, b_only, start="weighted"):
    """A held-out pair table of start against tuned with these discordant counts."""
    from analyzer.analysis.stats import mcnemar_exact

    return pd.DataFrame([{"a": "greedy", "b": "tuned", "a_only": 0, "b_only": 50,
                          "mcnemar_p": 1e-15},
                         {"a": start, "b": "tuned", "a_only": a_only, "b_only": b_only,
                          "mcnemar_p": mcnemar_exact(a_only, b_only)}])


@pytest.mark.parametrize("a_only, b_only, says", [
    (30, 30, "no better than weighted, which remains the one to play"),
    (40, 25, "no better than weighted"),
    (145, 0, "significantly worse than weighted, which remains the one to play"),
    (25, 35, "not a significant gain over weighted"),
    (10, 60, None),
])
def test_tune_warns_when_the_tuned_weights_do_not_beat_their_start(a_only, b_only, says):
    from analyzer.api.duels import tuning_warning

    warning = tuning_warning(_pairs(a_only, b_only).iloc[1], "weighted")
    if says is None:
        assert warning is None
    else:
        assert says in warning
        assert f"won {b_only} held-out deals that weighted lost and lost {a_only}" in warning


def test_tune_prints_its_warning_apart_and_keeps_it_in_the_file(tmp_path, capsys):
    """Two candidates on 60 games: the held-out games cannot show a significant gain (or
    the start stays the best on the tuning games)."""
    from tests.test_cli import run

    out = tmp_path / "w.toml"
    code, printed, err = run(capsys, "tune", "--games", "60", "--evaluations", "2",
                             "--heldout-games", "60", "--out", str(out), "--quiet")
    assert code == 0, err
    assert err.startswith("warning: ") and err.count("\n") == 1
    assert "warning:" not in printed
    assert f"# {err.strip()}." in out.read_text()
    assert " 12 weights from weighted's on games 0-59 of seed 0: BALANCE," in printed
    assert "(the others keep weighted's values: no game of this set feels them)" in printed


def test_tune_says_when_no_candidate_beat_its_start(tmp_path, capsys, monkeypatch):
    """Every candidate as good as the start on the tuning games (a flat objective): the
    file holds the start's weights, and the user is told to keep playing the start."""
    import analyzer.analysis.tune as tune_module
    from tests.test_cli import run

    monkeypatch.setattr(tune_module, "fitness", lambda results: 0.5)
    out = tmp_path / "w.toml"
    code, printed, err = run(capsys, "tune", "--games", "30", "--evaluations", "3",
                             "--heldout-games", "30", "--out", str(out), "--quiet")
    assert code == 0, err
    assert err == ("warning: no candidate did better than weighted on the tuning games: the "
                   "weights found are weighted's own, unchanged\n")
    assert load_weights(out) == load_weights(None)
    assert f"weights    {out}  (written, but weighted is the one to play)" in printed
    assert printed.startswith("searched 12 weights from weighted's")
    # a notebook shows the result itself: the warning and the advice are in it
    shown = str(analyzer.tune(games=30, evaluations=3, heldout_games=30))
    assert shown.startswith("searched 12 weights from weighted's") and \
        "warning: no candidate did better than weighted on the tuning games" in shown and \
        "weighted is the one to play: these weights did no better" in shown


def test_tune_for_the_whole_game_searches_every_weight_and_says_so(tmp_path, capsys):
    from tests.test_cli import run

    code, printed, err = run(capsys, "tune", "--games", "20", "--evaluations", "2",
                             "--heldout-games", "20", "--expansions", "all", "--variant",
                             "team", "--out", str(tmp_path / "w.toml"), "--quiet")
    assert code == 0, err
    assert f" {len(GREEDY_WEIGHTS)} weights from weighted's" in printed
    assert "the others keep" not in printed
    code, printed, err = run(capsys, "tune", "--games", "20", "--start", "weighted: ")
    assert code == 2 and "tuning start 'weighted: ' names no weights file" in err


def test_a_duel_takes_a_policy_object_and_says_when_two_play_every_deal_alike(capsys):
    """A PolicySpec (a notebook's own policy) duels as simulate plays it; the shipped
    weights under a second name end every deal as weighted does, and the duel says so,
    while greedy and weighted are not called alike."""
    from dataclasses import replace

    mine = replace(resolve_policy("weighted"), name="mine")
    result = analyzer.duel(["greedy", "weighted", mine], games=150, seed=8)
    alone = analyzer.simulate(games=150, seed=8, policy="weighted")
    assert result.policies.loc["mine", "wins"] == int(alone["won"].sum())
    alike = result.pairs.set_index(["a", "b"])["all_alike"]
    assert alike[("weighted", "mine")] and not alike[("greedy", "weighted")]
    text = str(result)
    assert "weighted and mine ended each of the 150 deals alike" in text
    assert re.search(r"\nweighted +mine +\+0\.00  \(every deal alike\)\n", text)
    # left out of Holm's family: its Holm p is no test made, as in a comparison
    row = next(line for line in text.splitlines() if re.match(r"weighted +mine +0 +0 ", line))
    assert row.split()[-2:] == ["1", "—"]
    assert "greedy and weighted ended" not in text


def test_a_duel_refuses_two_different_policies_of_one_name_and_plays_one_given_twice():
    from dataclasses import replace

    other = replace(resolve_policy("random"), name="greedy")
    with pytest.raises(UrbionError, match="two different policies are named 'greedy'"):
        analyzer.duel(["greedy", other], games=5)
    weighted = replace(resolve_policy("weighted"), params=resolve_policy("weighted").params
                       * 2.0)
    with pytest.raises(UrbionError, match="two different policies are named 'weighted'"):
        analyzer.duel(["weighted", weighted], games=5)
    # the same policy by its name and as an object, or resolved twice: played once
    twice = analyzer.duel(["weighted", resolve_policy("weighted"), "greedy",
                           resolve_policy("greedy")], games=5)
    assert list(twice.policies.index) == ["weighted", "greedy"]
    # a name in another case is the same built-in, as --policy takes it
    with pytest.raises(UrbionError, match="a duel needs at least two different policies"):
        analyzer.duel("greedy,GREEDY", games=5)
    assert list(analyzer.duel("Greedy,random", games=5).policies.index) == ["greedy", "random"]
    with pytest.raises(UrbionError, match="an empty name in 'greedy,,random'"):
        analyzer.duel("greedy,,random", games=5)
    with pytest.raises(UrbionError, match="an empty name in"):
        analyzer.duel(["greedy", " ", "random"], games=5)
    # options stay as given: the label a user reads results back by
    assert "search:candidates=2" in analyzer.duel("Greedy,Search:candidates=2",
                                                  games=2).runs
    with pytest.raises(UrbionError, match="policy names or PolicySpec objects, not a list "
                                          "holding int"):
        analyzer.duel(["greedy", 5], games=5)


def test_a_policy_defined_in_a_notebook_cell_is_told_apart_by_its_source(tmp_path):
    """A cell's function has no file on disk; IPython keeps its text in linecache, and the
    fingerprint reads it there, so an edited cell is another policy."""
    import linecache

    from analyzer.policies.loader import function_source_digest

    digests = []
    for body in ("return 0", "return n_options - 1"):
        name = f"<cell-{len(digests)}>"
        text = f"def choose(kind, options, n_options, state, cards, params, rng):\n    {body}\n"
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        scope: dict = {}
        exec(compile(text, name, "exec"), scope)
        digests.append(function_source_digest(scope["choose"]))
    assert all(len(d) == 64 for d in digests) and digests[0] != digests[1]
    # no file, no source (read from stdin, or python -c): its compiled code tells two apart
    bare = []
    for body in ("return 0", "return n_options - 1", "return 0"):
        scope = {}
        exec(compile(f"def bare(kind, options, n_options):\n    {body}\n", "<stdin>",
                     "exec"), scope)
        bare.append(function_source_digest(scope["bare"]))
    assert all(len(d) == 64 for d in bare) and bare[0] != bare[1] and bare[0] == bare[2]
    assert function_source_digest(len) == ""


def test_the_shipped_weights_say_where_they_were_not_tuned(tmp_path, capsys):
    """weighted's shipped weights were tuned on R14's base game solo: elsewhere the output
    says so and points to tune; not for greedy, not for a weights file of one's own, not on
    R14's base game."""
    from analyzer.policies.weights import shipped_weights_note
    from tests.test_cli import run

    assert shipped_weights_note(["weighted"], False, [], "solo") is None
    assert shipped_weights_note(["greedy"], True, ["books"], "team") is None
    assert shipped_weights_note(["weighted:mine.toml"], False, ["books"], "solo") is None
    # search beside weighted is named too: it looks ahead with those weights
    assert shipped_weights_note(["greedy", "weighted", "search"], False, ["books"],
                                "solo").startswith(
        "note: weighted plays weights tuned on R14's base game solo (search looks ahead with "
        "them); with expansions, `urbion tune`")
    note = shipped_weights_note(["greedy", "weighted"], True, ["books"], "team")
    assert note.startswith("note: weighted plays weights tuned on R14's base game solo; "
                           "with other cards and expansions and the team game, `urbion tune`")
    code, out, err = run(capsys, "duel", "--policies", "greedy,weighted", "--games", "20",
                         "--variant", "team", "--quiet")
    assert code == 0 and out.rstrip().endswith(
        "with the team game, `urbion tune` (with the same --cards, --expansions and "
        "--variant) finds weights of their own")
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", "weighted",
                         "--quiet")
    assert "note:" not in out
    # R14's cards under another name and in another order: the cards the weights know
    copy = tmp_path / "copy.toml"
    analyzer.write_card_template(copy)
    text = copy.read_text().replace('name = "R14-default"', 'name = "copy"')
    copy.write_text(text.replace("earth = [1, 1, 2, 2, 3, 3, 4, 4]",
                                 "earth = [4, 4, 3, 3, 2, 2, 1, 1]", 1))
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", "weighted",
                         "--cards", str(copy), "--quiet")
    assert code == 0 and "note:" not in out
    text = copy.read_text()
    start = text.index("[dreams.chaos]")
    copy.write_text(text[:start] + text[start:].replace("count = 8", "count = 6", 1))
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", "weighted",
                         "--cards", str(copy), "--quiet")
    assert "note: weighted plays weights tuned on R14's base game solo; with other cards" \
        in out
    code, out, err = run(capsys, "compare", "--sets", "base,books", "--games", "20",
                         "--policy", "weighted", "--quiet")
    assert "with expansions, `urbion tune --expansions SET` for each set (with the same " \
        "--cards and --variant) finds weights of their own" in out


def test_a_tuned_weights_file_says_where_it_plays_off_its_tuning(tmp_path, capsys):
    """tune writes what it tuned on into the file's [tuned] table: a run of weighted:FILE
    on other cards, expansions or variant says so, in simulate's output and in a report
    of the run, and a run where the file was tuned says nothing."""
    from analyzer.policies.weights import load_weights, write_weights
    from tests.test_cli import run

    result = analyzer.tune(games=60, seed=2, evaluations=2, heldout_games=60,
                           expansions="chromatic_chaos", out=tmp_path / "w.toml")
    text = (tmp_path / "w.toml").read_text()
    assert '[tuned]\ncard_set = "R14-default"' in text
    assert 'expansions = ["chromatic_chaos"]\nvariant = "solo"' in text
    assert load_weights(tmp_path / "w.toml") == pytest.approx(result.weights)
    policy = f"weighted:{tmp_path / 'w.toml'}"
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", policy,
                         "--expansions", "chromatic_chaos", "--quiet")
    assert code == 0 and "note:" not in out, err
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", policy,
                         "--variant", "team", "--quiet", "--out", str(tmp_path / "r.parquet"))
    assert code == 0, err
    note = (f"note: the weights of {policy} were tuned elsewhere: here expansions none (tuned on "
            "chromatic_chaos); the team game (tuned on the solo game); `urbion tune` with "
            "this run's --cards, --expansions and --variant finds weights of its own")
    assert note in out
    md = (analyzer.report([tmp_path / "r.parquet"], tmp_path / "rep") / "report.md").read_text()
    # named without its folders: the page is shared
    assert "Note: the weights of weighted:w.toml were tuned elsewhere: here expansions none" in md
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "<code>urbion tune</code> with this run" in page and "`" not in page
    # a renamed copy of R14 holds the cards the weights were tuned on: no card note
    from analyzer.cards.loader import default_card_text

    renamed = tmp_path / "copy.toml"
    renamed.write_text(default_card_text().replace('name = "R14-default"', 'name = "copy"', 1))
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", policy,
                         "--expansions", "chromatic_chaos", "--cards", str(renamed), "--quiet")
    assert code == 0 and "tuned elsewhere" not in out, err
    # and the other way: weights tuned on the copy play R14 itself, the same cards
    analyzer.tune(games=60, seed=2, evaluations=2, heldout_games=60, cards=renamed,
                  out=tmp_path / "copy-w.toml")
    assert "cards_sha256 = " in (tmp_path / "copy-w.toml").read_text()
    on_copy = f"weighted:{tmp_path / 'copy-w.toml'}"
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", on_copy, "--quiet")
    assert code == 0 and "tuned elsewhere" not in out, err
    edited = tmp_path / "edited.toml"  # a card changed: the note names the two sets
    edited.write_text(renamed.read_text().replace("count = 8", "count = 6", 1))
    code, out, err = run(capsys, "simulate", "--games", "20", "--policy", on_copy, "--cards",
                         str(edited), "--quiet")
    assert code == 0 and "here card set copy sha256" in out, err
    # a malformed [tuned] table is refused in one line, naming it
    write_weights(tmp_path / "bad.toml", result.weights, [], {
        "card_set": "x", "card_set_sha256": "y", "expansions": "books", "variant": "solo"})
    code, _, err = run(capsys, "simulate", "--games", "5", "--policy",
                       f"weighted:{tmp_path / 'bad.toml'}")
    assert code == 2 and err.count("\n") == 1 and "tuned.expansions must be a list" in err
    # a weight added at the end of a tuned file lands in [tuned]: named, not the table's
    # keys listed
    added = tmp_path / "added.toml"
    added.write_text((tmp_path / "copy-w.toml").read_text() + "DRAGON = 1.0\n")
    code, _, err = run(capsys, "simulate", "--games", "5", "--policy", f"weighted:{added}")
    assert code == 2 and err.count("\n") == 1 and "unknown key tuned.DRAGON (a weight goes " \
        "in the [weights] table, above [tuned])" in err
    # the file names its rules and tuning games, and the code that wrote it
    from analyzer.core.codes import RULES_VERSION
    from analyzer.runner.config import package_commit

    assert f'rules_version = "{RULES_VERSION}"\nseed = 2\ngames = 60\n' in text
    assert f"commit {package_commit()}, rules {RULES_VERSION}, " in text


def _tuned_file(path: Path, **tuned) -> str:
    """A weights file tuned (by its [tuned] table) on chromatic_chaos solo, games 0-99 of
    seed 3; ``weighted:PATH``."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import cards_digest
    from analyzer.core.codes import RULES_VERSION
    from analyzer.policies.weights import load_weights, write_weights

    shipped = default_card_set()
    table = {"card_set": shipped.name, "card_set_sha256": shipped.digest,
             "expansions": ["chromatic_chaos"], "variant": "solo",
             "cards_sha256": cards_digest(shipped), "rules_version": RULES_VERSION,
             "seed": 3, "games": 100, **tuned}
    write_weights(path, load_weights(None), ["by hand"], table)
    return f"weighted:{path}"


def test_tuned_weights_are_noted_where_they_were_not_tuned_and_on_their_tuning_games(
        tmp_path, capsys):
    """duel, compare and sensitivity say where a tuned file plays off its tuning, as
    simulate does, and a run of the games it was tuned on says so."""
    from analyzer.cards import default_card_set
    from analyzer.core.codes import RULES_VERSION
    from tests.test_cli import run

    policy = _tuned_file(tmp_path / "cc.toml")
    code, out, err = run(capsys, "simulate", "--games", "150", "--seed", "3", "--policy",
                         policy, "--expansions", "chromatic_chaos", "--quiet")
    assert code == 0, err
    assert (f"note: 100 of these games (games 0-99 of seed 3) are among those the weights "
            f"of {policy} were tuned on (games 0-99)") in out
    frame = analyzer.simulate(games=20, seed=3, policy=policy, expansions="chromatic_chaos",
                              out=tmp_path / "r.parquet")
    md = (analyzer.report([tmp_path / "r.parquet"], tmp_path / "rep") / "report.md").read_text()
    assert "Note: 20 of these games (games 0-19 of seed 3) are among those the weights of " \
        "weighted:cc.toml were tuned on" in md and frame.attrs["seed"] == 3
    shipped = analyzer.simulate(games=10, seed=2026, first_game=29_995, policy="weighted")
    assert tuned_weights_note(shipped.attrs) == (
        "note: 5 of these games (games 29,995-29,999 of seed 2026) are among those the "
        "weights of weighted were tuned on (games 0-29,999), where they win more than on new "
        "deals: play another --seed to measure them")
    old_file = _tuned_file(tmp_path / "older.toml")  # written before seed and games were kept
    text = (tmp_path / "older.toml").read_text()
    (tmp_path / "older.toml").write_text(text.replace("seed = 3\ngames = 100\n", ""))
    assert tuned_weights_note(analyzer.simulate(games=5, seed=3, policy=old_file,
                                                expansions="chromatic_chaos").attrs) is None
    code, out, err = run(capsys, "simulate", "--games", "50", "--seed", "3", "--first-game",
                         "100", "--policy", policy, "--expansions", "chromatic_chaos", "--quiet")
    assert code == 0 and "note:" not in out, err  # the games after them are new deals
    duel = analyzer.duel([policy, "greedy"], games=20, seed=4)
    assert duel.weights_note() == (
        f"note: the weights of {policy} were tuned elsewhere: here expansions none (tuned on "
        "chromatic_chaos); `urbion tune` with this run's --cards, --expansions and --variant "
        "finds weights of its own")
    compared = analyzer.compare(sets="chromatic_chaos,temples_harmony", games=20, seed=3,
                                policy=policy)
    note = compared.weights_note().splitlines()
    place = (f"note: the weights of {policy} were tuned on card set R14-default (sha256 "
             f"{default_card_set().digest[:12]}), chromatic_chaos, the solo game, rules "
             f"{RULES_VERSION}; ")
    assert note[0] == (f"{place}sets base and temples_harmony play them elsewhere, where they "
                       "fit less well than where they were tuned; `urbion tune --expansions "
                       "SET` for each set (with the same --cards and --variant) finds weights "
                       "of its own")
    assert note[1].startswith("note: set chromatic_chaos: 20 of these games (games 0-19 of "
                              "seed 3) are among")
    sensitivity = analyzer.sensitivity(games=10, seed=3, policy=policy,
                                       expansions="chromatic_chaos")
    assert sensitivity.weights_note().splitlines() == [
        f"{place}every card-set variant plays them elsewhere, where they fit less well than "
        "where they were tuned; `urbion tune --cards FILE` for each card set (with the same "
        "--expansions and --variant) finds weights of its own",
        "note: the baseline: 10 of these games (games 0-9 of seed 3) are among those the "
        f"weights of {policy} were tuned on (games 0-99), where they win more than on new "
        "deals: play another --seed to measure them"]
    base = analyzer.sensitivity(games=10, seed=5, policy=policy)  # no expansion: elsewhere
    assert "; the baseline and every card-set variant play them elsewhere" in \
        base.weights_note()
    page = analyzer.compare(sets="chromatic_chaos", games=20, seed=3, policy=policy,
                            out=tmp_path / "cmp")
    text = (tmp_path / "cmp" / "compare.md").read_text()
    assert "weights of weighted:cc.toml were tuned on" in text and str(tmp_path) not in text
    assert page.weights_note() is not None
    old = _tuned_file(tmp_path / "old.toml", rules_version="urbion-2e/expansions-1")
    frame = analyzer.simulate(games=5, seed=9, policy=old, expansions="chromatic_chaos")
    assert "tuned under urbion-2e/expansions-1" in tuned_weights_note(frame.attrs)


def test_the_tuning_games_note_names_the_games_shared_and_only_games_dealt_alike(tmp_path):
    """The note counts and names the games both ranges hold; a copy of the cards in another
    order deals other games (no note), a renamed copy in the same order the same ones."""
    from analyzer.cards.loader import default_card_text

    one = analyzer.simulate(games=3, seed=2026, first_game=29_999, policy="weighted")
    assert analyzer.weights_note(one).startswith(
        "note: 1 of these games (game 29,999 of seed 2026) is among")
    text = default_card_text().replace('name = "R14-default"', 'name = "copy"', 1)
    renamed = tmp_path / "renamed.toml"
    renamed.write_text(text)
    reordered = tmp_path / "reordered.toml"
    reordered.write_text(text.replace("[1, 1, 2, 2, 3, 3, 4, 4]", "[4, 4, 3, 3, 2, 2, 1, 1]",
                                      1))
    same = analyzer.simulate(games=20, seed=2026, policy="weighted", cards=renamed)
    other = analyzer.simulate(games=20, seed=2026, policy="weighted", cards=reordered)
    shipped = analyzer.simulate(games=20, seed=2026, policy="weighted")
    assert same.drop(columns="game").equals(shipped.drop(columns="game"))
    assert not other["turns"].equals(shipped["turns"])  # other deals indeed
    assert "among those the weights of weighted were tuned on" in analyzer.weights_note(same)
    assert analyzer.weights_note(other) is None


def test_changed_cards_of_an_expansion_not_in_play_are_not_other_cards(tmp_path, capsys):
    """A card file that changes only Chromatic Chaos plays R14's base game: no note that
    the shipped weights, or weights tuned on such a file, play other cards there."""
    from analyzer.cards.loader import default_card_text
    from tests.test_cli import run

    def chromatic(value: int, name: str) -> Path:
        path = tmp_path / f"{name}.toml"
        text = default_card_text().replace('name = "R14-default"', f'name = "{name}"', 1)
        start = text.index("[dreams.chromatic]")
        path.write_text(text[:start] + text[start:].replace("value = 4", f"value = {value}",
                                                              1))
        return path

    soft, softer = chromatic(3, "soft"), chromatic(2, "softer")
    assert analyzer.weights_note(analyzer.simulate(games=5, policy="weighted",
                                                   cards=soft)) is None
    played = analyzer.simulate(games=5, policy="weighted", cards=soft,
                               expansions="chromatic_chaos")
    assert "with other cards and expansions" in analyzer.weights_note(played)
    analyzer.tune(games=40, seed=2, evaluations=2, heldout_games=40, cards=soft,
                  out=tmp_path / "w.toml")
    policy = f"weighted:{tmp_path / 'w.toml'}"
    code, out, err = run(capsys, "simulate", "--games", "5", "--policy", policy, "--cards",
                         str(softer), "--quiet")
    assert code == 0 and "note:" not in out, err
    code, out, err = run(capsys, "simulate", "--games", "5", "--policy", policy, "--cards",
                         str(softer), "--expansions", "chromatic_chaos", "--quiet")
    assert code == 0 and "expansions chromatic_chaos (tuned on none)" in out, err
    compared = analyzer.compare(sets="base,chromatic_chaos", games=5, policy="weighted",
                                cards=soft)
    assert "with other cards and expansions" in compared.weights_note()


@pytest.mark.parametrize("policy", ["greedy", "weighted"])
def test_cards_of_an_expansion_not_in_play_change_no_game(tmp_path, policy):
    """greedy's facts of the cards (the largest values a card from hand can bring) are
    those of the Dream cards in play: a Meta of 7 left out of the base game plays R14's
    games, and plays its own when City Squares & Metas is in play."""
    from analyzer.cards.loader import default_card_text

    path = tmp_path / "big-meta.toml"
    text = default_card_text().replace('name = "R14-default"', 'name = "big-meta"', 1)
    path.write_text(text.replace("earth = [[2, -2], [3, -3]]", "earth = [[2, -2], [7, -7]]",
                                 1))
    base = analyzer.simulate(games=200, seed=2026, policy=policy, cards=path)
    shipped = analyzer.simulate(games=200, seed=2026, policy=policy)
    assert base.drop(columns="game").equals(shipped.drop(columns="game"))
    assert base.attrs["policy_params_sha256"] == shipped.attrs["policy_params_sha256"]
    metas = analyzer.simulate(games=5, policy=policy, cards=path, expansions="squares_metas")
    r14_metas = analyzer.simulate(games=5, policy=policy, expansions="squares_metas")
    assert metas.attrs["policy_params_sha256"] != r14_metas.attrs["policy_params_sha256"]


def test_the_shipped_weights_note_their_tuning_games_in_every_command():
    """compare's base game and sensitivity's baseline on seed 2026 play the shipped weights'
    tuning games, as simulate and duel say."""
    compared = analyzer.compare(sets="base,chromatic_chaos", games=20, seed=2026,
                                policy="weighted")
    assert "note: set base: 20 of these games (games 0-19 of seed 2026) are among those " \
        "the weights of weighted were tuned on" in compared.weights_note()
    assert "set chromatic_chaos:" not in compared.weights_note()
    varied = analyzer.sensitivity(games=10, seed=2026, policy="weighted")
    assert "note: the baseline: 10 of these games (games 0-9 of seed 2026) are among " \
        "those the weights of weighted were tuned on" in varied.weights_note()
    assert analyzer.compare(sets="base", games=20, seed=7,
                            policy="weighted").weights_note() is None


def test_tune_refuses_to_write_over_its_start_or_card_file(tmp_path):
    from analyzer.cards.loader import default_card_text

    start = tmp_path / "s.toml"
    policy = _tuned_file(start)
    before = start.read_text()
    cards = tmp_path / "c.toml"
    cards.write_text(default_card_text())
    for options, option in (({"start": policy, "out": start}, "--start"),
                            ({"cards": cards, "out": tmp_path / "." / "c.toml"}, "--cards")):
        with pytest.raises(UrbionError, match=f"is the {option} file .*the tune would "
                                              "replace what it reads"):
            analyzer.tune(games=10, evaluations=2, heldout_games=10, **options)
    assert start.read_text() == before and cards.read_text() == default_card_text()
    link = tmp_path / "link.toml"
    link.symlink_to(start)
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    with pytest.raises(UrbionError, match="is the --start file"):
        analyzer.tune(games=10, evaluations=2, heldout_games=10, start=policy, out=link)
    for options in ({"cards": loop}, {"start": f"weighted:{loop}"}):  # one line, no traceback
        with pytest.raises(UrbionError, match="loop.toml"):
            analyzer.tune(games=10, evaluations=2, heldout_games=10, out=tmp_path / "o.toml",
                          **options)
    with pytest.raises(UrbionError, match="--games 2 and --heldout-games 9223372036854775807 "
                                          r"\(games=, heldout_games= in Python\)"):
        analyzer.tune(games=2, evaluations=2, heldout_games=2**63 - 1)


def test_a_notebook_shows_each_result_as_its_table(tmp_path):
    """The last line of a notebook cell shows repr(): the printed table, not the fields'
    frames and the packed card table."""
    duel = analyzer.duel(policies="greedy,random", games=20, seed=1)
    tuned = analyzer.tune(games=20, seed=1, evaluations=2, heldout_games=20)
    compared = analyzer.compare(sets="books", games=20, seed=1)
    for result in (duel, tuned, compared):
        assert repr(result) == str(result), type(result).__name__
        assert "card_set_table" not in repr(result) and "DataFrame" not in repr(result)
    assert repr(tuned).startswith("tuned ") and "games 0-19 of seed 1" in repr(tuned)
    assert "held-out comparison" in repr(tuned)


def test_a_duels_folder_names_weights_files_without_their_folders_and_says_its_origin(
        tmp_path):
    """duel.txt and its tables are passed on as the other pages are: two weights files of
    one name are numbered, each with its hash, and the versions and commit are given."""
    from analyzer.runner.config import package_commit

    files = [tmp_path / folder / "w.toml" for folder in ("private", "other")]
    for path, turn in zip(files, ("20", "30"), strict=True):
        path.parent.mkdir()
        path.write_text(f"[weights]\nTURN = {turn}\n")
    result = analyzer.duel([f"weighted:{files[0]}", f"weighted:{files[1]}", "greedy"],
                           games=30, out=tmp_path / "duel")
    folder = tmp_path / "duel"
    text = (folder / "duel.txt").read_text()
    for path in folder.iterdir():
        assert str(tmp_path) not in path.name
        if path.suffix in (".txt", ".csv"):
            assert str(tmp_path) not in path.read_text(), path.name
    hashes = result.attrs["policy_params_sha256"]
    assert (f"policies   weighted:w.toml #1 (parameters sha256 "
            f"{hashes[f'weighted:{files[0]}']}); weighted:w.toml #2") in text
    assert f"\ncommit     {package_commit()}\n" in text
    assert "card file  none (the shipped set)" in text
    # "w.toml #1" names no file to play with
    assert "\nplay again no command: weighted:w.toml #1 shares its file name with another " \
        "policy of the duel\n" in text
    assert list(pd.read_csv(folder / "pairs.csv")["a"])[:1] == ["weighted:w.toml #1"]


@numba.njit
def _first_option(kind, options, n_options, state, cards, params, rng):
    return 0


def test_a_duel_of_a_policy_made_in_python_gives_no_command_to_play_it_again(tmp_path):
    from analyzer.policies.registry import PolicySpec

    mine = tmp_path / "w.toml"
    mine.write_text("[weights]\nTURN = 20\n")
    spec = PolicySpec("last", _first_option, np.zeros(0))
    analyzer.duel([spec, "greedy"], games=20, out=tmp_path / "a")
    assert "\nplay again no command: last cannot be played again from its name (a policy " \
        "made in Python, or a file changed since the run, say)\n" in \
        (tmp_path / "a" / "duel.txt").read_text()
    analyzer.duel([f"weighted:{mine}", "greedy"], games=20, out=tmp_path / "b")
    assert ("\nplay again urbion duel --policies weighted:w.toml,greedy --games 20 --seed 0\n"
            in (tmp_path / "b" / "duel.txt").read_text())


def test_a_duels_command_names_its_expansions_variant_and_card_file():
    from analyzer.reporting.duel_pages import duel_command

    attrs = {"games": 500, "seed": 2, "expansions": ["books", "emptiness"], "variant": "team",
             "card_set_source": "/home/someone/my cards.toml"}
    assert duel_command(["greedy", "mine.py:choose"], attrs) == (
        "urbion duel --policies greedy,mine.py:choose --games 500 --seed 2 --expansions "
        "books,emptiness --variant team --cards 'my cards.toml'")
    assert duel_command(["search:rollouts=4,candidates=2", "greedy"],
                        {"games": 9, "seed": 0, "expansions": [], "variant": "solo",
                         "card_set_source": "builtin:r14"}) == (
        "urbion duel --policies search:rollouts=4,candidates=2,greedy --games 9 --seed 0")


def test_a_duels_command_plays_a_designers_cards_from_its_own_folder(tmp_path, capsys,
                                                                      monkeypatch):
    """The command named the designer's card file, which stays on the designer's machine:
    run from the folder it failed. A results file of the folder holds the cards."""
    import shlex

    from tests.test_card_change import _weak_chaos
    from tests.test_cli import run

    (tmp_path / "sub").mkdir()
    cards = _weak_chaos(tmp_path / "sub")
    out = tmp_path / "duel"
    analyzer.duel(["greedy", "random"], games=40, seed=2, cards=cards, out=out)
    text = (out / "duel.txt").read_text(encoding="utf-8")
    assert "\ncard file  weak-chaos.toml; 1-greedy.parquet, in this folder, holds its cards\n" \
        in text
    command = next(line for line in text.splitlines() if line.startswith("play again "))
    assert command.endswith("--games 40 --seed 2 --cards 1-greedy.parquet")
    monkeypatch.chdir(out)
    code, _, err = run(capsys, *shlex.split(command.removeprefix("play again "))[1:],
                       "--out", "again")
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_csv(out / "pairs.csv"),
                                  pd.read_csv(out / "again" / "pairs.csv"))
    # each table names the cards, quoted apart from the folder
    digest = analyzer.load_cards(cards).digest
    for name in ("policies.csv", "pairs.csv", "play.csv"):
        table = pd.read_csv(out / name)
        assert set(table["card_set"]) == {"weak-chaos"}, name
        assert set(table["card_set_sha256"]) == {digest}, name


def test_policies_of_one_shared_name_are_numbered_among_themselves():
    from analyzer.reporting.duel_pages import shared_policy_names

    names = ["greedy", "weighted:/a/w.toml", "weighted:/b/w.toml", "c/pol.py:f"]
    assert shared_policy_names(names) == {
        "greedy": "greedy", "weighted:/a/w.toml": "weighted:w.toml #1",
        "weighted:/b/w.toml": "weighted:w.toml #2", "c/pol.py:f": "pol.py:f"}
    # a name already reading like a numbered one: the names are kept as given
    odd = ["weighted:/a/w.toml", "weighted:/b/w.toml", "weighted:w.toml #1"]
    assert shared_policy_names(odd) == {name: name for name in odd}


def test_the_note_names_the_shipped_weights_set_by_hand_where_their_expansions_play():
    """FLEX and POSTCARD were set by hand, not tuned: a note on the sets they play says so,
    and that weighted stalls with the Postcards; a set without them keeps the plain note."""
    from analyzer.policies.weights import shipped_weights_note

    assert shipped_weights_note(["weighted"], False, ["base", "books+postcards"], "solo",
                                per_set=True).startswith(
        "note: weighted plays weights tuned on R14's base game solo, but for POSTCARD, set "
        "by hand for the Postcards, with which weighted stalls (docs/policies.md); with "
        "expansions, `urbion tune --expansions SET`")
    assert shipped_weights_note(["search"], False, ["all"], "team").startswith(
        "note: search looks ahead with weighted's shipped weights, tuned on R14's base game "
        "solo, but for FLEX and POSTCARD, set by hand for Hanging Gardens & Wizards and the "
        "Postcards, and with the Postcards weighted stalls (docs/policies.md); with")
    assert ", but for FLEX, set by hand for Hanging Gardens & Wizards (docs/policies.md); " \
        in shipped_weights_note(["weighted"], False, ["chromatic_chaos,gardens_wizards"],
                                "solo")
    assert "by hand" not in shipped_weights_note(["weighted"], False, ["books", "emptiness"],
                                                 "solo")


def test_search_and_clairvoyant_are_noted_to_look_ahead_with_the_shipped_weights():
    from analyzer.policies.weights import shipped_weights_note

    assert shipped_weights_note(["search:rollouts=2,candidates=3"], False, ["books"],
                                "solo") == (
        "note: search:rollouts=2,candidates=3 looks ahead with weighted's shipped weights, "
        "tuned on R14's base game solo; with expansions, `urbion tune` (with the same "
        "--cards, --expansions and --variant) finds weights that play better there, given as "
        "the option weights=FILE.toml")
    assert shipped_weights_note(["greedy", "search", "clairvoyant"], True, [], "team") == (
        "note: search and clairvoyant look ahead with weighted's shipped weights, tuned on "
        "R14's base game solo; with other cards and the team game, `urbion tune` (with the "
        "same --cards, --expansions and --variant) finds weights that play better there, "
        "given as the option weights=FILE.toml")
    assert shipped_weights_note(["search"], False, [], "solo") is None  # where they were tuned
    assert shipped_weights_note(["weighted", "search"], False, ["books"], "solo").startswith(
        "note: weighted plays weights tuned on R14's base game solo")


def test_the_shipped_weights_rebuild_where_the_gardens_call_for_it():
    """FLEX on the scale of the tuned weights: with Hanging Gardens & Wizards weighted
    Rebuilds about twice a game and wins most games; with greedy's FLEX it did neither."""
    shipped = analyzer.simulate(games=1000, seed=5, policy="weighted",
                                expansions="gardens_wizards")
    assert shipped["won"].mean() > 0.45 and shipped["rebuilds"].mean() > 1.5
    from analyzer.policies.weights import load_weights

    assert load_weights(None)["FLEX"] == 100


def test_the_lessons_of_playing_better_hold_on_the_same_deals():
    """docs/playing-better.md: on the same deals weighted places Chaos where greedy reveals
    them, exchanges and takes censuses more, never clears a balanced city, and lasts
    longer; its losses are narrower."""
    duel = analyzer.duel(["greedy", "weighted"], games=600, seed=1)
    greedy, weighted = (duel.runs[name].mean(numeric_only=True)
                        for name in ("greedy", "weighted"))
    assert weighted["chaos_placed"] > 2 * greedy["chaos_placed"]
    assert weighted["chaos_revealed"] < greedy["chaos_revealed"] / 2
    assert weighted["exchanges"] > 1.5 * greedy["exchanges"]
    assert weighted["censuses"] > greedy["censuses"]
    assert weighted["chaos_cleared"] == 0 < greedy["chaos_cleared"]
    assert weighted["turns"] > greedy["turns"] + 5
    short = {name: 12 - run.loc[~run["won"], "pacified"] for name, run in duel.runs.items()}
    assert (short["weighted"] == 1).mean() > (short["greedy"] == 1).mean() + 0.2
    # the weights the page quotes, as shipped and as greedy's
    from analyzer.policies.greedy_nb import GREEDY_WEIGHTS as hand_set
    from analyzer.policies.weights import load_weights

    tuned = load_weights(None)
    assert (round(tuned["CHAOS_POINT"], 1), round(tuned["REVEAL_CARD"], 1)) == (3.1, 16.6)
    assert (hand_set["CHAOS_POINT"], hand_set["REVEAL_CARD"]) == (8, 8)
    assert round(tuned["CLEAR"]) == 1143 and round(tuned["CLEAR"] / tuned["BALANCE"], 1) == 4.5
    assert (round(tuned["TURN"], 1), hand_set["TURN"]) == (2.3, 20)
    assert (round(tuned["SETUP"]), hand_set["SETUP"]) == (163, 12)
    assert round(tuned["PROGRESS"] / hand_set["PROGRESS"]) == 14


def _scored_search(monkeypatch, score, evaluations, seed=0, start=None):
    """tune_weights with no game played: each candidate's games are replaced by games won
    by none, whose cities pacified are ``score`` of the candidate's weights. Returns the
    outcome and every candidate's weights in the order played."""
    import analyzer.analysis.tune as tune_module
    from analyzer.core.codes import Outcome

    played = []

    def games(card_set, weights, seed, games, workers=None):
        played.append(weights)
        results = np.zeros(games, dtype=[("outcome", "i1"), ("pacified", "f8")])
        results["outcome"] = Outcome.LOSS
        results["pacified"] = score(weights)
        return results

    monkeypatch.setattr(tune_module, "weighted_spec", lambda weights, cards, name: weights)
    monkeypatch.setattr(tune_module, "run_fast", games)
    found = tune_module.tune_weights(analyzer.load_cards(None), 4, seed, evaluations,
                                     start=start)
    return found, played


@pytest.mark.parametrize("direction", [1, -1])
def test_tune_follows_the_score_to_e_cubed_of_the_start_either_way_and_no_further(
        monkeypatch, direction):
    """Weights are searched as factors e**-3 .. e**3 of the start's (docs/policies.md): a
    score that grows as every tuned weight moves one way takes the search up to a factor
    of e**3 (or down to e**-3), and no candidate goes past it."""
    from analyzer.analysis.tune import tuned_names

    start = load_weights(None)
    names = tuned_names(analyzer.load_cards(None))

    def logs(weights):
        return [math.log(weights[name] / start[name]) for name in names]

    found, played = _scored_search(monkeypatch, lambda weights: direction * sum(logs(weights)),
                                   300, start=start)
    moves = [move for weights in played for move in logs(weights)]
    assert all(-3 - 1e-9 <= move <= 3 + 1e-9 for move in moves)
    assert max(direction * move for move in moves) > 2.9
    assert all(direction * move > 1 for move in logs(found.weights))


def test_tuning_weighs_a_city_pacified_a_game_as_a_tenth_of_a_point_of_win_rate():
    """docs/policies.md: 1/1000 of a win per city; one more city a game is worth 0.1
    points of win rate."""
    from analyzer.analysis.tune import fitness
    from analyzer.core.codes import Outcome

    results = np.zeros(4, dtype=[("outcome", "i1"), ("pacified", "i1")])
    results["outcome"] = [Outcome.WIN, Outcome.LOSS, Outcome.LOSS, Outcome.LOSS]
    results["pacified"] = [12, 3, 5, 0]  # 5 a game
    assert fitness(results) == pytest.approx(0.25 + 0.005)
    results["pacified"] += 1
    assert fitness(results) == pytest.approx(0.25 + 0.006)


def test_tune_from_greedy_starts_from_greedys_hand_set_weights(monkeypatch):
    """--start greedy: with no candidate better on the tuning games, the weights found are
    greedy's own (TURN 20, CHAOS_POINT 8), not the shipped tuned ones."""
    import analyzer.analysis.tune as tune_module

    monkeypatch.setattr(tune_module, "fitness", lambda results: 0.5)
    result = analyzer.tune(games=20, evaluations=2, heldout_games=20, start="greedy")
    assert not result.improved
    assert (result.weights["TURN"], result.weights["CHAOS_POINT"]) == (20, 8)
    assert result.weights == dict(GREEDY_WEIGHTS) != load_weights(None)


@pytest.mark.parametrize("a_only, b_only, keep", [(30, 30, True), (31, 30, True),
                                                  (30, 31, False)])
def test_tuned_weights_that_win_no_more_held_out_deals_than_their_start_leave_it_to_play(
        a_only, b_only, keep):
    """The verdict is the start's pair's, not greedy's (whom the tuned weights beat 50 to
    0 here): a tie with the start on the held-out deals is no gain, and the start remains
    the one to play."""
    from types import SimpleNamespace

    from analyzer.analysis.tune import TuneOutcome
    from analyzer.api.duels import _tune_outcome

    found = TuneOutcome(dict(GREEDY_WEIGHTS), 0.3, 12, ("TURN",), improved=True)
    outcome = _tune_outcome(found, SimpleNamespace(pairs=_pairs(a_only, b_only)), "weighted",
                            100, 0)
    assert bool(outcome.keep_start) is keep
    assert f"won {b_only} held-out deals that weighted lost and lost {a_only}" in \
        outcome.warning
    assert ("weighted is the one to play" in outcome.text()) is keep


def test_the_tune_command_hands_its_defaults_to_the_search(capsys, monkeypatch):
    """As its --help says: 20,000 tuning games of seed 0, 300 candidates, 50,000 held-out
    games, from the shipped weights, into weights.toml."""
    from tests.test_cli import handed_on

    asked = handed_on(capsys, monkeypatch, "tune")
    assert {key: asked[key] for key in ("games", "seed", "evaluations", "heldout_games",
                                        "start", "out", "expansions", "variant")} == {
        "games": 20_000, "seed": 0, "evaluations": 300, "heldout_games": 50_000,
        "start": "weighted", "out": "weights.toml", "expansions": "none", "variant": "solo"}


def test_tune_refuses_a_negative_start_weight_as_it_refuses_a_0(tmp_path):
    """Factors e**-3 .. e**3 keep a weight's sign: a negative weight could never become
    positive, so each weight tuned must be positive in the start (docs/policies.md)."""
    start = tmp_path / "negative.toml"
    start.write_text("[weights]\nSETUP = -5.0\n")
    with pytest.raises(PolicyError, match="each weight it tunes must be positive: SETUP = -5$"):
        analyzer.tune(games=10, evaluations=2, heldout_games=10, start=f"weighted:{start}")


def test_tune_in_python_refuses_fewer_than_two_candidates_as_the_command_does():
    """The start is the first candidate: one alone searches nothing."""
    with pytest.raises(UrbionError, match="--evaluations \\(evaluations=\\) must be at least 2"):
        analyzer.tune(games=10, evaluations=1, heldout_games=10)


def test_tune_holds_out_games_up_to_the_last_game_number_and_no_further(monkeypatch):
    """Games 0-1 to tune and 2 to 2**63 - 1 held out reach the last game number, which is
    within bounds; one held-out game more is past it."""
    import analyzer.api.duels as duels

    def searched(*args, **kwargs):
        raise UrbionError("the search begins")

    monkeypatch.setattr(duels, "_searched_weights", searched)
    with pytest.raises(UrbionError, match="^the search begins$"):
        analyzer.tune(games=2, evaluations=2, heldout_games=2**63 - 2)
    with pytest.raises(UrbionError, match="game numbers must stay below 2\\*\\*63"):
        analyzer.tune(games=2, evaluations=2, heldout_games=2**63 - 1)
