"""Sensitivity to the card set: each variant changes what it says, effects have intervals."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.analysis.sensitivity import (
    BASELINE_LEVELS,
    SIDE_EFFECTS,
    VARIANTS,
    variant_card_set,
)
from analyzer.analysis.stats import newcombe_difference
from analyzer.cards import default_card_set, load_card_set
from analyzer.core.codes import CardField, CardType
from tests.test_cli import run


def _counts(card_set):
    types = card_set.cards[:, CardField.TYPE]
    values = card_set.cards[:, CardField.VALUE]
    return {"chaos": int((types == CardType.CHAOS).sum()),
            "chaos_value": set(values[types == CardType.CHAOS].tolist()),
            "incubi": sorted(values[types == CardType.INCUBI].tolist()),
            "dreams": len(card_set.dream_ids)}


def test_the_stated_side_effects_and_r14_levels_match_the_card_sets():
    """SIDE_EFFECTS and BASELINE_LEVELS are computed from the card data: their numbers must
    be the ones the variants' and R14's card sets hold."""
    by_level = {(v.factor, v.level): _counts(variant_card_set(v)) for v in VARIANTS}
    decks = [c["dreams"] for (factor, _), c in by_level.items() if factor == "Chaos count"]
    r14 = _counts(default_card_set())
    assert SIDE_EFFECTS == ("A factor also changes what follows from it: 6 and 10 Chaos make "
                            f"the base game's Dream cards {decks[0]} and {decks[1]} (R14: "
                            f"{r14['dreams']}; an expansion's dreams come on top).")
    assert BASELINE_LEVELS["Chaos count"] == str(r14["chaos"])
    assert BASELINE_LEVELS["Chaos influence"] == f"±{r14['chaos_value'].pop()}"
    assert BASELINE_LEVELS["Deck size"] == f"{r14['dreams']} base-game dreams"


def test_each_variant_changes_only_its_factor():
    base = _counts(default_card_set())
    assert base == {"chaos": 8, "chaos_value": {5}, "dreams": 72,
                    "incubi": sorted([-1, -1, -1, -2, -2, -2, -3, -3] * 4)}
    seen = {}
    for variant in VARIANTS:
        cards = variant_card_set(variant)
        counts = _counts(cards)
        changed = {k for k in base if counts[k] != base[k]}
        seen[(variant.factor, variant.level)] = changed
        assert cards.name.startswith("R14-default / ") and cards.digest != \
            default_card_set().digest
    assert seen[("Chaos influence", "±4")] == {"chaos_value"}
    assert seen[("Chaos count", "10")] == {"chaos", "dreams"}
    assert seen[("Incubi spread", "narrow, same total: -1 x1, -2 x7")] == {"incubi"}
    assert seen[("Incubi spread", "wide, same total: -1 x5, -2 x1, -4 x2")] == {"incubi"}
    deck = [v for v in VARIANTS if v.factor == "Deck size"]
    assert [_counts(variant_card_set(v))["dreams"] for v in deck] == [64, 80]


def test_newcombe_interval_matches_a_published_example():
    # Newcombe (1998), Statistics in Medicine 17:873, Table II example (a): 56/70 vs 48/80,
    # method 10 gives 0.0524 to 0.3339
    low, high = newcombe_difference(56, 70, 48, 80)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


def test_sensitivity_reports_every_variant_with_intervals(tmp_path, capsys):
    code, out, err = run(capsys, "sensitivity", "--games", "600", "--seed", "2",
                         "--out", str(tmp_path / "sens"), "--quiet")
    assert code == 0, err
    md = (tmp_path / "sens" / "sensitivity.md").read_text()
    assert md.count("| Chaos") == 4 and "R14-default" in md
    assert all((tmp_path / "sens" / f).is_file()
               for f in re.findall(r"\]\(([^)]+)\)", md))
    assert "**rules version**: urbion-2e/" in md and "**package version**" in md
    page = (tmp_path / "sens" / "index.html").read_text()
    # the table, then the provenance, with lines for the Incubi spreads' parameters, the
    # baseline's card file kept beside the page, the command that plays it again and the
    # software that played it, and the policy with its whole hash
    assert page.count("<tr>") == len(VARIANTS) + 1 + 12
    assert "data:image/png;base64," in page and "urbion-2e/" in page
    for name in ("sensitivity.csv", "sensitivity.svg", "sensitivity.md"):
        assert f"href='{name}'" in page and (tmp_path / "sens" / name).is_file()
    assert f"report     {tmp_path / 'sens'}/index.html" in out
    result = analyzer.sensitivity(games=600, seed=2)
    assert f"(parameters sha256 {result.baseline['policy_params_sha256']})" in page
    table = result.table
    assert len(table) == len(VARIANTS)
    assert np.all(table["effect_low"] <= table["effect"])
    assert np.all(table["effect"] <= table["effect_high"])
    base = analyzer.simulate(games=600, seed=2)
    assert result.baseline["wins"] == int(base["won"].sum())
    assert result.baseline["policy_params_sha256"] == base.attrs["policy_params_sha256"]
    six = table[(table.factor == "Chaos count") & (table.level == "6")].iloc[0]
    assert six.effect == pytest.approx(six.win_rate - base["won"].mean())
    figure = result.figure()
    assert len(figure.axes[0].get_yticklabels()) == len(VARIANTS)
    assert figure._repr_png_().startswith(b"\x89PNG\r\n")  # a notebook cell shows it


def test_sensitivity_on_an_expansion_set_plays_every_variant_with_it():
    result = analyzer.sensitivity(games=300, seed=4, expansions="chromatic_chaos")
    base = analyzer.simulate(games=300, seed=4, expansions="chromatic_chaos")
    assert result.baseline["wins"] == int(base["won"].sum())
    assert result.baseline["policy_params_sha256"] == base.attrs["policy_params_sha256"]
    assert result.baseline["expansions"] == ["chromatic_chaos"]
    assert "expansions chromatic_chaos" in str(result)
    plain = analyzer.sensitivity(games=300, seed=4)
    assert not result.table["win_rate"].equals(plain.table["win_rate"])


def test_a_variant_is_compared_with_R14_game_by_game():
    """The variants play R14's games: the change gets the paired interval and McNemar's p
    from the games one set won and the other lost."""
    import numpy as np
    import pandas as pd

    from analyzer.analysis.sensitivity import effect_table
    from analyzer.analysis.stats import mcnemar_exact, paired_difference_interval

    def frame(won):
        df = pd.DataFrame({"game": np.arange(len(won)), "won": np.array(won, dtype=bool)})
        df.attrs["card_set_sha256"] = "0" * 64
        return df

    base = frame([1, 1, 0, 0, 0, 1, 0, 0, 0, 0])
    variant = frame([1, 0, 1, 1, 1, 1, 0, 0, 0, 0])
    every = frame([1] * 10)  # only it won 7, only R14 none
    table = effect_table(base, {VARIANTS[0]: variant, VARIANTS[1]: every})
    row = table.iloc[0]
    assert row["effect"] == pytest.approx(0.2)
    # both won 2, only the variant 3, only R14 1, neither 4
    assert (row["effect_low"], row["effect_high"]) == paired_difference_interval(2, 3, 1, 4)
    assert row["mcnemar_p"] == pytest.approx(mcnemar_exact(3, 1))
    # Holm over the two variants: the smaller p doubled, the larger times one
    assert table.iloc[1]["holm_p"] == pytest.approx(2 * mcnemar_exact(7, 0))
    assert row["holm_p"] == pytest.approx(mcnemar_exact(3, 1))


def test_the_sensitivity_facts_name_the_policys_parameters_and_source():
    from analyzer.reporting.sensitivity_pages import _sensitivity_facts

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "mine",
                "policy_params_sha256": "cd" * 32, "policy_source_sha256": "ef" * 32,
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2}
    played = _sensitivity_facts(pd.DataFrame(), baseline)["played"]
    assert "policy mine (parameters sha256 cdcdcdcdcdcd, source sha256 efefefefefef)" in played


def test_a_variant_greedy_plays_with_other_parameters_names_its_own_hash(tmp_path):
    """Greedy reads a card set's largest Incubi into its parameters, so a spread that moves
    it plays greedy with other parameters than the baseline: each row names the hash its
    games were played with (that of a run of the variant's card file), and the provenance,
    whose hash is the baseline's, names those variants."""
    from analyzer.analysis.sensitivity import variant_card_set
    from analyzer.cards.writer import card_file_text
    from analyzer.reporting.sensitivity_pages import write_sensitivity

    result = analyzer.sensitivity(games=20, seed=1)
    table, base_hash = result.table, result.baseline["policy_params_sha256"]
    moved = []
    for variant, row in zip(VARIANTS, table.itertuples(), strict=True):
        card_file = tmp_path / f"{row.Index}.toml"
        card_file.write_text(card_file_text(variant_card_set(variant)))
        played = analyzer.simulate(games=1, cards=card_file).attrs["policy_params_sha256"]
        assert row.policy_params_sha256 == played, (row.factor, row.level)
        if played != base_hash:
            moved.append(f"{row.factor}: {row.level} (sha256 {played[:12]})")
    assert [m.split(":")[0] for m in moved] == ["Incubi spread", "Incubi spread"]
    out = write_sensitivity(table, result.baseline, tmp_path / "sens")
    md = (out / "sensitivity.md").read_text()
    line = next(line for line in md.splitlines() if "variants' parameters" in line)
    assert all(name in line for name in moved) and line.count("(sha256") == len(moved)
    assert f"parameters sha256 {base_hash[:12]}" in md


def test_the_provenance_names_no_variant_when_every_one_plays_the_baselines_parameters():
    from analyzer.reporting.sensitivity_pages import _sensitivity_facts

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "random",
                "policy_params_sha256": "cd" * 32, "games": 10, "seed": 0, "win_rate": 0.1,
                "ci_low": 0.0, "ci_high": 0.2}
    table = pd.DataFrame({"factor": ["Chaos count", "Chaos count"], "level": ["6", "10"],
                          "policy_params_sha256": ["cd" * 32, ""]})  # "": not played
    assert "variants' parameters" not in _sensitivity_facts(table, baseline)


def test_the_sensitivity_pages_name_each_interval_and_test_each_change():
    """The Markdown and HTML tables say which interval is which, give McNemar's p and
    Holm's adjustment over the variants (in the CSV, McNemar's p was the only test, and on
    no page), and say when a change is real."""
    import pandas as pd

    from analyzer.analysis.stats import holm_adjust
    from analyzer.reporting.sensitivity_pages import sensitivity_markdown, sensitivity_page

    table = pd.DataFrame({"factor": ["Chaos count", "Chaos count"], "level": ["6", "10"],
                          "baseline_level": ["8", "8"], "games": [100, 100],
                          "win_rate": [0.2, 0.05],
                          "ci_low": [0.13, 0.02], "ci_high": [0.29, 0.11],
                          "effect": [0.12, -0.03], "effect_low": [0.03, -0.09],
                          "effect_high": [0.21, 0.03], "mcnemar_p": [0.004, 0.45],
                          "holm_p": holm_adjust([0.004, 0.45])})
    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "greedy",
                "policy_params_sha256": "cd" * 32, "games": 100, "seed": 0,
                "win_rate": 0.08, "ci_low": 0.04, "ci_high": 0.15}
    md = sensitivity_markdown(table, baseline)
    page = sensitivity_page(table, baseline, b"")
    holm = holm_adjust([0.004, 0.45])
    header = next(line for line in md.splitlines() if line.startswith("| factor"))
    assert "| 95% Wilson interval |" in header and "Newcombe" in header
    assert "| McNemar p | Holm p |" in md
    assert f"| 0.004 | {holm[0]:.3g} |" in md and f"| 0.45 | {holm[1]:.3g} |" in md
    assert "<th scope='col'>McNemar p</th><th scope='col'>Holm p</th>" in page
    for text in (md, page):
        assert "Holm p is below 0.05" in text and "the 2 variants played" in text
    # the page, like the Markdown and the terminal, opens with the baseline it measures from
    opening = "Baseline: R14-default (sha256 abababababab), "
    assert md.split("\n")[2].startswith(opening)
    assert page.index(f"<p id='baseline'>{opening}") < page.index("<table")
    assert "8.00% (4.00% to 15.00%)." in md.split("\n")[2]


def test_the_printed_baseline_names_its_card_sets_hash():
    import pandas as pd

    from analyzer.api import SensitivityResult

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "greedy",
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                "expansions": [], "variant": "solo"}
    result = SensitivityResult(baseline, pd.DataFrame(columns=["factor"]))
    text = str(result)
    assert text.startswith("baseline   R14-default (sha256 abababababab): 10.00%")
    assert repr(result) == text  # what a notebook shows


def test_the_printed_sensitivity_table_gives_each_change_its_holm_p():
    """8 variants at once: the terminal table, like the pages and the CSV, adjusts each
    variant's McNemar p for the others (it printed only unadjusted intervals)."""
    import pandas as pd

    from analyzer.api import SensitivityResult

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "greedy",
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                "expansions": [], "variant": "solo"}
    table = pd.DataFrame({"factor": ["Chaos count"], "level": ["6"], "win_rate": [0.2],
                          "effect": [0.1], "effect_low": [0.05], "effect_high": [0.15],
                          "mcnemar_p": [0.004], "holm_p": [0.032]})
    lines = str(SensitivityResult(baseline, table)).splitlines()
    assert "Holm p" in lines[2] and lines[3].endswith(" 0.032")
    note = next(line for line in lines if line.startswith("Holm p:"))
    assert "adjusted over the 1 variant played;" in note
    assert "the Holm p decides." in note  # an interval off zero beside p > 0.05
    assert lines[-2].startswith("R14's levels: Incubi spread -1 x3, -2 x3, -3 x2;")
    assert lines[-1] == (
        "A factor also changes what follows from it: 6 and 10 Chaos make the base game's "
        "Dream cards 70 and 74 (R14: 72; an expansion's dreams come on top).")
    assert "10 games, seed 0" in lines[0]
    one = str(SensitivityResult({**baseline, "games": 1}, table)).splitlines()[0]
    assert "1 game, seed 0" in one


# A designer's own card file as the baseline (``--cards``)

SOGNAE = "[1, 1, 2, 2, 3, 3, 4, 4]"
INCUBI = "[-1, -1, -1, -2, -2, -2, -3, -3]"
CHAOS = "[dreams.chaos]\ncount = 8\nvalue = 5"


def _card_file(tmp_path, name, *edits):
    """The shipped template renamed ``name``, with each (old, new) text edit made: the
    designer's way of writing a card file."""
    path = tmp_path / f"{name}.toml"
    analyzer.write_card_template(path)
    text = path.read_text().replace('name = "R14-default"', f'name = "{name}"')
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    return path


def _six_chaos(tmp_path, name="six-chaos", *edits):
    return _card_file(tmp_path, name, (CHAOS, "[dreams.chaos]\ncount = 6\nvalue = 5"), *edits)


#: The text edits that make each variant of the six-Chaos file, written out by hand: what
#: the variants must play, found without the code that builds them.
VARIANT_EDITS = {
    ("Incubi spread", "narrow, same total: -1 x1, -2 x7"): [
        (INCUBI, "[-1, -2, -2, -2, -2, -2, -2, -2]")],
    ("Incubi spread", "wide, same total: -1 x5, -2 x1, -4 x2"): [
        (INCUBI, "[-1, -1, -1, -1, -1, -2, -4, -4]")],
    ("Chaos influence", "±4"): [("count = 6\nvalue = 5", "count = 6\nvalue = 4")],
    ("Chaos influence", "±6"): [("count = 6\nvalue = 5", "count = 6\nvalue = 6")],
    ("Chaos count", "4"): [("count = 6\nvalue = 5", "count = 4\nvalue = 5")],
    ("Chaos count", "8"): [("count = 6\nvalue = 5", "count = 8\nvalue = 5")],
    ("Deck size", "62 base-game dreams: one +1 and one -1 fewer per element"): [
        (SOGNAE, "[1, 2, 2, 3, 3, 4, 4]"), (INCUBI, "[-1, -1, -2, -2, -2, -3, -3]")],
    ("Deck size", "78 base-game dreams: one +2 and one -2 more per element"): [
        (SOGNAE, "[1, 1, 2, 2, 2, 3, 3, 4, 4]"), (INCUBI, "[-1, -1, -1, -2, -2, -2, -2, -3, -3]")],
}


def test_a_designers_file_is_the_baseline_and_its_levels_move_around_its_own(tmp_path, capsys):
    """With --cards, the variants change the designer's set: a file with 6 Chaos shows 6 as
    its level and plays 4 and 8 (two cards either side, as R14's 8 plays 6 and 10), and
    every variant wins the games its card file, edited by hand, wins; every text names the
    designer's set."""
    mine = _six_chaos(tmp_path)
    games, seed = 300, 5
    result = analyzer.sensitivity(games=games, seed=seed, cards=mine)
    table, baseline = result.table, result.baseline
    base = analyzer.simulate(games=games, seed=seed, cards=mine)
    assert baseline["card_set"] == "six-chaos"
    assert baseline["card_set_sha256"] == base.attrs["card_set_sha256"]
    assert baseline["wins"] == int(base["won"].sum())
    assert set(table[table.factor == "Chaos count"]["baseline_level"]) == {"6"}
    assert baseline["baseline_levels"]["Deck size"] == "70 base-game dreams"

    assert list(table[table.factor == "Chaos count"]["level"]) == ["4", "8"]
    played = table[table.played]
    assert len(played) == len(VARIANTS) == len(VARIANT_EDITS)
    assert not played["holm_p"].isna().any()
    for number, ((factor, level), edits) in enumerate(VARIANT_EDITS.items()):
        row = played[(played.factor == factor) & (played.level == level)].iloc[0]
        alone = analyzer.simulate(games=games, seed=seed,
                                  cards=_six_chaos(tmp_path, f"by-hand-{number}", *edits))
        assert row.win_rate == alone["won"].mean(), (factor, level)
        assert row.effect == pytest.approx(alone["won"].mean() - base["won"].mean())

    label = f"six-chaos (sha256 {baseline['card_set_sha256'][:12]})"
    text = str(result)
    assert f"Levels of {label}: Incubi spread -1 x3, -2 x3, -3 x2;" in text
    assert "Chaos count 6; Deck size 70 base-game dreams" in text
    assert "adjusted over the 8 variants" in text and "not played" not in text
    assert f"4 and 8 Chaos make the base game's Dream cards 68 and 72 ({label}: 70;" in text
    assert "R14" not in text
    title = result.figure().axes[0].get_title().replace("\n", " ")
    assert title.startswith(f"Win-rate change from {label} (")

    out = tmp_path / "sens"
    code, printed, err = run(capsys, "sensitivity", "--cards", str(mine), "--games",
                             str(games), "--seed", str(seed), "--out", str(out), "--quiet")
    assert code == 0, err
    assert printed.startswith(text)
    md, page = (out / "sensitivity.md").read_text(), (out / "index.html").read_text()
    page = re.sub(r"data:image/png;base64,[^'\"]*", "", page)  # the chart's bytes are no text
    for written in (md, page):
        assert "R14" not in written and f"level of {label}" in written
        assert "not played" not in written and "for the 8 variants" in written
        # the card file, in the provenance, by its name: the page is shared, its folder
        # would name the designer's machine
        assert f"card file**: {mine.name}" in written or \
            f"card file</th><td>{mine.name}" in written
        assert str(mine.parent) not in written
    csv = pd.read_csv(out / "sensitivity.csv", keep_default_na=False)
    assert list(csv.columns[:3]) == ["factor", "level", "baseline_level"]
    assert list(csv.columns[-11:]) == ["played", "note", "baseline_win_rate",
                                       "baseline_card_set", "baseline_card_set_sha256",
                                       "variant", "policy", "seed", "expansions",
                                       "rules_version", "commit"]
    # the code that played it, on every row: the file quoted apart from its page names it
    assert set(csv["rules_version"]) == {result.baseline["rules_version"]}
    assert set(csv["commit"]) == {result.baseline["commit"]}
    # whose cards the variants move around, and with which expansions
    assert set(csv["baseline_card_set"]) == {baseline["card_set"]}
    assert set(csv["expansions"]) == {"none"}
    # the baseline's own win rate and the run, on every row: a file read alone says them
    assert (csv["win_rate"] - csv["effect"]).round(9).nunique() == 1
    assert (csv["baseline_win_rate"] - (csv["win_rate"] - csv["effect"])).abs().max() < 1e-9
    assert set(csv["variant"]) == {"solo"} and set(csv["policy"]) == {"greedy"}


@pytest.mark.parametrize("case", ["missing", "not TOML", "no Chaos", "no expansion cards",
                                  "a folder"])
def test_a_bad_card_file_for_sensitivity_is_one_line_and_writes_nothing(tmp_path, capsys,
                                                                          monkeypatch, case):
    from analyzer import api

    def no_games(*args, **kwargs):
        raise AssertionError("played games with a bad card file")

    monkeypatch.setattr(api.simulation, "simulate", no_games)
    cards, message, extra = {
        "missing": (tmp_path / "nope.toml", "cannot read card-set file", []),
        "not TOML": (tmp_path / "bad.toml", "not valid TOML", []),
        # the Chaos a variant edits: the check of every card file asks for them
        "no Chaos": (tmp_path / "no-chaos.toml", "dreams.chaos: missing table", []),
        "no expansion cards": (tmp_path / "base-only.toml", "has no cards for expansion "
                               "chromatic_chaos", ["--expansions", "chromatic_chaos"]),
        "a folder": (tmp_path, "it is a folder, not a file", []),
    }[case]
    if case == "not TOML":
        cards.write_text("name = [unclosed\n")
    elif case == "no Chaos":
        cards = _card_file(tmp_path, "no-chaos", (CHAOS, ""))
    elif case == "no expansion cards":
        cards = _card_file(tmp_path, "base-only",
                           ("[dreams.chromatic]\n# Chromatic Chaos (expansion chromatic_chaos): "
                            "placed +4 left, -4 right (R07).\ncount = 8\nvalue = 4", ""))
    out = tmp_path / "sens"
    code, printed, err = run(capsys, "sensitivity", "--cards", str(cards), "--games", "50",
                             "--out", str(out), "--quiet", *extra)
    assert code == 2 and printed == "" and "Traceback" not in err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_loaded_set_is_the_baseline_played_with_its_own_expansions_and_variant():
    """A notebook's loaded set was refused: the variants edit the data of the card file
    that loads into it, and every card set plays the set's expansions and variant."""
    loaded = analyzer.load_cards(None, expansions="chromatic_chaos", variant="team")
    from_set = analyzer.sensitivity(games=60, seed=4, cards=loaded)
    named = analyzer.sensitivity(games=60, seed=4, expansions="chromatic_chaos",
                                 variant="team")
    pd.testing.assert_frame_equal(from_set.table, named.table)
    assert from_set.baseline["wins"] == named.baseline["wins"]
    assert from_set.baseline["expansions"] == ["chromatic_chaos"]
    assert from_set.baseline["variant"] == "team"
    # given, the expansions and variant are played as they are given
    base_game = analyzer.sensitivity(games=60, seed=4, cards=loaded, expansions="none",
                                     variant="solo")
    pd.testing.assert_frame_equal(base_game.table,
                                  analyzer.sensitivity(games=60, seed=4).table)


def test_the_result_keeps_each_card_sets_games_and_cards_to_play_again(tmp_path):
    """A designer had the table alone: neither the games behind a row nor the card set a
    variant played, to look into or to write out."""
    result = analyzer.sensitivity(games=200, seed=2, expansions="chromatic_chaos")
    played = result.table[result.table["played"]]
    keys = [("baseline", ""), *zip(played["factor"], played["level"], strict=True)]
    assert list(result.runs) == keys and list(result.card_sets) == keys
    for (factor, level), rate in zip(keys[1:], played["win_rate"], strict=True):
        assert result.runs[factor, level]["won"].mean() == pytest.approx(rate)
    count = next(key for key in keys if key[0] == "Chaos count")
    again = analyzer.simulate(games=200, seed=2, cards=result.card_sets[count])
    assert again["won"].equals(result.runs[count]["won"])
    assert again.attrs["expansions"] == ["chromatic_chaos"]
    assert result.runs["baseline", ""]["won"].sum() == result.baseline["wins"]
    written = analyzer.write_card_template(tmp_path / "v.toml", result.card_sets[count])
    assert load_card_set(written).digest == result.card_sets[count].digest


def test_a_hand_built_set_or_a_number_as_the_baseline_is_one_clear_error():
    from dataclasses import replace

    from analyzer.cards import CardSetError
    from analyzer.cards.loader import set_digest
    from analyzer.errors import UrbionError

    r14 = default_card_set()
    backwards = r14.cards[::-1].copy()
    by_hand = replace(r14, cards=backwards,
                      digest=set_digest(r14.name, backwards, r14.owner)).with_expansions(0)
    with pytest.raises(CardSetError, match="no card file describes"):
        analyzer.sensitivity(games=10, cards=by_hand)
    with pytest.raises(UrbionError, match="--cards \\(cards=\\) must be a path"):
        analyzer.sensitivity(games=10, cards=3)


def test_a_variant_the_card_check_refuses_keeps_its_row_with_the_reason(tmp_path):
    """One Sognae in all: the smaller deck would have none, which no card file may; that
    variant is left out, with the check's message, and the others are planned."""
    from analyzer.analysis.sensitivity import NotPlayed, baseline_label, plan_variants
    from analyzer.cards.loader import load_card_file

    thin = _card_file(tmp_path, "thin", *[(f"{element} = {SOGNAE}", f"{element} = {new}")
                                          for element, new in (("earth", "[3]"),
                                                               ("water", "[]"), ("fire", "[]"),
                                                               ("air", "[]"))])
    card_set, data = load_card_file(thin)
    plan = plan_variants(card_set, data, baseline_label(card_set.name, card_set.digest))
    refused = {(v.factor, v.level): p.reason for v, p in plan.items()
               if isinstance(p, NotPlayed)}
    assert refused == {("Deck size", "36 base-game dreams: the weakest Sognae and Incubi of each "
                                     "element fewer"):
                       "the changed card set is not valid (dreams.sognae: no cards)"}


def _left_out(path) -> dict[tuple[str, str], str]:
    """The variants of the card file ``path`` that are not played, with why."""
    from analyzer.analysis.sensitivity import NotPlayed, baseline_label, plan_variants
    from analyzer.cards.loader import load_card_file

    card_set, data = load_card_file(path)
    plan = plan_variants(card_set, data, baseline_label(card_set.name, card_set.digest))
    return {(v.factor, v.level): p.reason for v, p in plan.items()
            if isinstance(p, NotPlayed)}


def test_a_set_without_chaos_says_its_chaos_influence_cannot_change(tmp_path):
    """0 Chaos: ±4 and ±6 would change no card, not because ±5 is the file's level (it
    has none)."""
    from analyzer.analysis.sensitivity import (
        NO_CHAOS,
        baseline_levels,
        side_effects,
        variants_of,
    )
    from analyzer.cards.loader import load_card_file

    none = _card_file(tmp_path, "chaosless", (CHAOS, "[dreams.chaos]\ncount = 0\nvalue = 5"))
    # fewer than none is beyond a card file; the influence the file gives (for the 2 Chaos
    # added) is said, as the baseline shows none
    assert _left_out(none) == {("Chaos influence", "±4"): NO_CHAOS,
                               ("Chaos influence", "±6"): NO_CHAOS,
                               ("Chaos count", "-2 (of ±5)"):
                                   "beyond what a card file may hold (0 to 64 Chaos)"}
    assert baseline_levels(load_card_file(none)[1])["Chaos influence"] == "none (no Chaos)"
    data = load_card_file(none)[1]
    assert [v.level for v in variants_of(data) if v.factor == "Chaos count"] == [
        "-2 (of ±5)", "2 (of ±5)"]
    played = [v for v in variants_of(data) if v.level == "2 (of ±5)"]
    assert ": 2 Chaos make the base game's Dream cards 66 (x: 64;" in \
        side_effects(data, "x", played)
    # the file loaded in Python keeps the influence its file gives: not the card file
    # written from its cards, which shows no Chaos to read one from
    from analyzer.api.sensitivity_runs import _sensitivity_baseline

    loaded = analyzer.load_cards(none)
    assert _sensitivity_baseline(loaded)[1]["dreams"]["chaos"] == {"count": 0, "value": 5}
    # at the highest influence too, no Chaos is the reason, not the limit
    top = _card_file(tmp_path, "top", (CHAOS, "[dreams.chaos]\ncount = 0\nvalue = 9"))
    assert _left_out(top)[("Chaos influence", "±10")] == NO_CHAOS


@pytest.mark.parametrize("count, value, beyond", [
    (8, 1, ("Chaos influence", "±0", "±1 to ±9")),
    (8, 9, ("Chaos influence", "±10", "±1 to ±9")),
    (1, 5, ("Chaos count", "-1", "0 to 64 Chaos")),
    (63, 5, ("Chaos count", "65", "0 to 64 Chaos")),
])
def test_a_level_beyond_a_card_files_limits_says_so(tmp_path, count, value, beyond):
    """One step or two cards past what a card file may hold: not played, and said so (not
    "the baseline's own level", nor the card check's message); the other side is played."""
    path = _card_file(tmp_path, "edge", (CHAOS, f"[dreams.chaos]\ncount = {count}\n"
                                                f"value = {value}"))
    factor, level, limits = beyond
    assert _left_out(path) == {(factor, level): f"beyond what a card file may hold ({limits})"}


def test_a_level_the_baseline_already_has_is_not_played(tmp_path):
    """A file whose Incubi are the narrow spread already: that variant would play the
    baseline's games again, and its "change" would be noise."""
    from analyzer.analysis.sensitivity import SAME_AS_BASELINE

    narrow = _card_file(tmp_path, "narrow", (INCUBI, "[-1, -2, -2, -2, -2, -2, -2, -2]"))
    assert _left_out(narrow) == {
        ("Incubi spread", "narrow, same total: -1 x1, -2 x7"): SAME_AS_BASELINE}


def test_a_long_level_keeps_the_printed_columns_apart(tmp_path):
    """The deck-size level of a thin file is longer than the usual column."""
    import pandas as pd

    from analyzer.api import SensitivityResult

    level = ("36 base-game dreams: the weakest Sognae and Incubi of each element fewer and "
             "more words")
    baseline = {"card_set": "thin", "card_set_sha256": "ab" * 32, "policy": "greedy",
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                "expansions": [], "variant": "solo"}
    table = pd.DataFrame({"factor": ["Deck size", "Chaos count"], "level": [level, "6"],
                          "win_rate": [0.2, 0.3], "effect": [0.1, 0.2],
                          "effect_low": [0.05, 0.1], "effect_high": [0.15, 0.3],
                          "mcnemar_p": [0.004, 0.001], "holm_p": [0.008, 0.002],
                          "played": [True, True], "note": ["", ""]})
    lines = str(SensitivityResult(baseline, table)).splitlines()
    rows = [line for line in lines if line.startswith(("Deck size", "Chaos count"))]
    assert f"{level}    20.00%" in rows[0]
    assert rows[0].index("20.00%") == rows[1].index("30.00%")


def test_the_same_cards_in_another_order_are_the_baseline_s_own_level(tmp_path):
    """A file whose Incubi are already the narrow spread, listed the other way round: the
    narrow variant would only reshuffle the same deck, so it is not played."""
    from analyzer.analysis.sensitivity import SAME_AS_BASELINE
    from analyzer.cards.loader import same_cards

    narrow = _card_file(tmp_path, "narrow", (INCUBI, "[-2, -2, -2, -2, -2, -2, -2, -1]"))
    assert _left_out(narrow) == {
        ("Incubi spread", "narrow, same total: -1 x1, -2 x7"): SAME_AS_BASELINE}
    assert not same_cards(load_card_set(narrow), default_card_set())


def test_the_levels_and_side_effects_are_the_baselines_own(tmp_path):
    """Computed from the baseline's data, named after it, and about the variants played."""
    from analyzer.analysis.sensitivity import (
        VARIANTS,
        baseline_label,
        baseline_levels,
        side_effects,
        variants_of,
    )
    from analyzer.cards.loader import default_card_data, load_card_file

    # the spreads keep each element's count and total: alone they change nothing else
    assert side_effects(default_card_data(), "R14", VARIANTS[:2]) == ""
    mine = _six_chaos(tmp_path, "uneven", ("water = [-1, -1, -1, -2, -2, -2, -3, -3]",
                                           "water = [-1, -1, -2, -2, -2, -3, -3, -4]"))
    card_set, data = load_card_file(mine)
    label = baseline_label(card_set.name, card_set.digest)
    assert label == f"uneven (sha256 {card_set.digest[:12]})"
    assert baseline_levels(data) == {
        "Incubi spread": "earth -1 x3, -2 x3, -3 x2 / water -1 x2, -2 x3, -3 x2, -4 x1 / "
                         "fire -1 x3, -2 x3, -3 x2 / air -1 x3, -2 x3, -3 x2",
        "Chaos influence": "±5", "Chaos count": "6", "Deck size": "70 base-game dreams"}
    played = [v for v in variants_of(data) if (v.factor, v.level) != ("Chaos count", "4")]
    assert side_effects(data, label, played) == (
        "A factor also changes what follows from it: 8 Chaos make the base game's Dream "
        f"cards 72 ({label}: 70; an expansion's dreams come on top).")
    assert side_effects(data, label, []) == ""
    # each element's spread is its own: water's from its own values
    assert [v.level for v in variants_of(data) if v.factor == "Incubi spread"] == [
        "narrow, same total: earth -1 x1, -2 x7 / water -2 x6, -3 x2 / fire -1 x1, -2 x7 / "
        "air -1 x1, -2 x7",
        "wide, same total: earth -1 x5, -2 x1, -4 x2 / water -1 x5, -3 x1, -5 x2 / "
        "fire -1 x5, -2 x1, -4 x2 / air -1 x5, -2 x1, -4 x2"]


def test_an_edited_copy_named_like_r14_is_not_called_r14(tmp_path):
    from analyzer.analysis.sensitivity import baseline_label
    from analyzer.cards.loader import load_card_file

    path = tmp_path / "copy.toml"
    analyzer.write_card_template(path)
    path.write_text(path.read_text().replace(CHAOS, "[dreams.chaos]\ncount = 7\nvalue = 5"))
    card_set, data = load_card_file(path)
    assert card_set.name == data["name"] == "R14-default (edited)"
    assert baseline_label(card_set.name, card_set.digest).startswith("R14-default (edited) (")


def test_holm_counts_only_the_variants_played():
    import pandas as pd

    from analyzer.analysis.sensitivity import NotPlayed, effect_table
    from analyzer.analysis.stats import mcnemar_exact

    base = pd.DataFrame({"game": np.arange(10), "won": np.zeros(10, bool)})
    every = pd.DataFrame({"game": np.arange(10), "won": np.ones(10, bool)})
    every.attrs["card_set_sha256"] = "0" * 64
    table = effect_table(base, {VARIANTS[0]: every, VARIANTS[1]: NotPlayed("why")})
    assert table["holm_p"].iloc[0] == pytest.approx(mcnemar_exact(10, 0))
    assert list(table["played"]) == [True, False] and table["note"].iloc[1] == "not played: why"


def test_sensitivity_plays_a_policy_object_as_simulate_does():
    """A PolicySpec (a notebook's own policy) is played under its own name."""
    from dataclasses import replace

    from analyzer.policies.registry import resolve_policy

    mine = replace(resolve_policy("weighted"), name="mine")
    result = analyzer.sensitivity(games=40, seed=1, policy=mine)
    alone = analyzer.simulate(games=40, seed=1, policy="weighted")
    assert result.baseline["policy"] == "mine"
    assert result.baseline["wins"] == int(alone["won"].sum())


def _stop_at(call, monkeypatch):
    """Make the ``call``-th card set's run stop before it saves a game."""
    import analyzer.api as api
    from analyzer.errors import RunStopped

    real, calls = api.simulate, []

    def stopping(**kwargs):
        calls.append(1)
        if len(calls) == call:
            raise RunStopped("interrupted after 0 of 30 games; nothing was saved", True)
        return real(**kwargs)

    monkeypatch.setattr(api.simulation, "simulate", stopping)


def test_an_interrupted_sensitivity_run_resumes_to_the_uninterrupted_table(tmp_path,
                                                                         monkeypatch):
    """The card sets finished before a stop are kept beside --out; --resume plays the
    rest only, gives the table of a run never stopped, and tidies up."""
    from analyzer.errors import RunStopped, UrbionError

    out = tmp_path / "sens"
    work = tmp_path / ".sens.sensitivity-partial"
    with monkeypatch.context() as patch:
        _stop_at(3, patch)
        with pytest.raises(RunStopped) as stop:
            analyzer.sensitivity(games=30, seed=2, out=out)
    message = str(stop.value)
    assert message.startswith("sensitivity, card set 3 of ") and "\n" not in message
    assert f"none of these games were saved, the card sets finished before them are in " \
           f"{work / 'results'}" in message
    assert "--resume" in message and not out.exists()
    assert len(list((work / "results").glob("*.parquet"))) == 2
    with pytest.raises(UrbionError, match="holds an interrupted sensitivity run: add --resume"):
        analyzer.sensitivity(games=30, seed=2, out=out)
    with pytest.raises(UrbionError, match="not a batch of 40 games"):
        analyzer.sensitivity(games=40, seed=2, out=out, resume=True)
    with monkeypatch.context() as patch:
        import analyzer.api as api

        played = []
        real = api.simulate
        patch.setattr(api.simulation, "simulate", lambda **kw: played.append(1) or real(**kw))
        resumed = analyzer.sensitivity(games=30, seed=2, out=out, resume=True)
    whole = analyzer.sensitivity(games=30, seed=2)
    pd.testing.assert_frame_equal(resumed.table, whole.table)
    assert len(played) == int(whole.table["played"].sum()) + 1 - 2  # two sets read back
    assert (out / "index.html").exists() and not work.exists()


def test_sensitivity_resume_needs_out_and_something_to_resume(tmp_path, monkeypatch):
    from analyzer.errors import RunStopped, UrbionError

    with pytest.raises(UrbionError, match="--resume needs --out"):
        analyzer.sensitivity(games=10, resume=True)
    with pytest.raises(UrbionError, match="nothing to resume"):
        analyzer.sensitivity(games=10, out=tmp_path / "s", resume=True)
    # a stop before any card set is finished leaves nothing: the same command runs anew
    with monkeypatch.context() as patch:
        _stop_at(1, patch)
        with pytest.raises(RunStopped, match="nothing was saved"):
            analyzer.sensitivity(games=10, out=tmp_path / "s")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert analyzer.sensitivity(games=10, out=tmp_path / "s").table is not None
    # a resume of the finished analysis: it named a hidden folder it said did not exist
    with pytest.raises(UrbionError, match=f"^nothing to resume: the analysis in "
                                          f"{tmp_path / 's'} is whole.*without --resume it "
                                          "is made again$"):
        analyzer.sensitivity(games=10, out=tmp_path / "s", resume=True)


def test_a_resume_after_the_weights_file_changed_says_so_in_words(tmp_path, monkeypatch):
    from analyzer.errors import RunStopped, UrbionError

    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nTURN = 3.0\n")
    out = tmp_path / "sens"
    with monkeypatch.context() as patch:
        _stop_at(2, patch)
        with pytest.raises(RunStopped):
            analyzer.sensitivity(games=20, out=out, policy=f"weighted:{weights}")
    weights.write_text("[weights]\nTURN = 4.0\n")
    with pytest.raises(UrbionError) as err:
        analyzer.sensitivity(games=20, out=out, policy=f"weighted:{weights}", resume=True)
    message = str(err.value)
    assert "the policy's parameters (its weights file, say) have changed since the run was " \
           "saved: sha256 " in message
    assert not re.search(r"[0-9a-f]{64}", message)


def test_a_spread_keeps_each_elements_count_and_total():
    """The spreads change the spread alone: every element keeps its number of Incubi and
    their total (6 fire Incubi stay 6), values stay within -1 to -9, and the narrow spread is
    the flattest, the wide one the steepest, of the file's own spread."""
    import copy

    import numpy as np

    from analyzer.analysis.sensitivity import changed_data, side_effects, variants_of
    from analyzer.cards.loader import default_card_data

    data = copy.deepcopy(default_card_data())
    data["dreams"]["incubi"]["fire"] = [-1, -1, -2, -2, -3, -3]
    data["dreams"]["incubi"]["air"] = [-9, -9, -8, -1]
    data["dreams"]["incubi"]["water"] = [-2] * 8
    spreads = [v for v in variants_of(data) if v.factor == "Incubi spread"]
    assert side_effects(data, "mine", spreads) == ""
    before = data["dreams"]["incubi"]
    # worked out by hand: as near the mean as whole values allow; at the ends of the range
    # widened a step (never past -1 or -9), one card between for the total
    expected = {"narrow": {"earth": [-1] + [-2] * 7, "fire": [-2] * 6,
                           "air": [-6, -7, -7, -7], "water": [-2] * 8},
                "wide": {"earth": [-1] * 5 + [-2, -4, -4], "fire": [-1] * 4 + [-4, -4],
                         "air": [-1, -8, -9, -9], "water": [-1] * 4 + [-3] * 4}}
    for variant, name in zip(spreads, ("narrow", "wide"), strict=True):
        after = changed_data(variant, data)["dreams"]["incubi"]
        assert after == expected[name], name
        for element in before:
            old, new = before[element], after[element]
            assert len(new) == len(old) and sum(new) == sum(old), (variant.level, element)
            assert all(-9 <= value <= -1 for value in new)
        # the spread moves as named, except where it cannot (air, at -1 and -9 already;
        # water, whose values are all alike, narrows to itself)
        for element in ("earth", "fire"):
            moved = np.std(after[element]) - np.std(before[element])
            assert moved < 0 if name == "narrow" else moved > 0, (name, element)


def test_a_sensitivity_folder_keeps_its_baselines_cards_and_the_command_to_play_it_again(
        tmp_path, capsys, monkeypatch):
    """The folder named its cards by hash only: a designer's file stayed on the designer's
    machine, and a reader could not confirm a reconstruction. It now keeps the baseline's
    card file, and its command, run in the folder, gives the same table."""
    import shlex

    from analyzer.cards import load_card_set
    from tests.test_cli import run

    mine = tmp_path / "mine.toml"
    text = analyzer.cards.writer.card_file_text(default_card_set())
    mine.write_text(text.replace('name = "R14-default"', 'name = "seven"')
                    .replace("count = 8", "count = 7", 1), encoding="utf-8")
    out = tmp_path / "sens"
    code, _, err = run(capsys, "sensitivity", "--games", "60", "--seed", "5", "--cards",
                       str(mine), "--expansions", "books", "--out", str(out), "--quiet")
    assert code == 0, err
    kept = load_card_set(out / "baseline-cards.toml")
    assert kept.digest == load_card_set(mine).digest
    md = (out / "sensitivity.md").read_text(encoding="utf-8")
    assert f"(sha256 {kept.digest})" in md and "[baseline cards](baseline-cards.toml)" in md
    command = next(line for line in md.splitlines() if line.startswith("- **play again**: "))
    args = shlex.split(command.removeprefix("- **play again**: "))
    assert args[:2] == ["urbion", "sensitivity"] and "--cards" in args
    monkeypatch.chdir(out)
    code, _, err = run(capsys, *args[1:], "--out", str(tmp_path / "again"), "--quiet")
    assert code == 0, err
    first, again = (pd.read_csv(folder / "sensitivity.csv") for folder in (out,
                                                                           tmp_path / "again"))
    pd.testing.assert_frame_equal(first, again)


def test_a_variant_of_other_games_than_the_baselines_is_refused_not_paired():
    """A variant's game 10 paired with the baseline's game 0 pairs nothing."""
    from analyzer.analysis.sensitivity import VARIANTS, effect_table

    def run_of(first: int) -> pd.DataFrame:
        games = np.arange(first, first + 10)
        return pd.DataFrame({"game": games, "won": games % 3 == 0})

    with pytest.raises(ValueError, match="was not played on the baseline set's games"):
        effect_table(run_of(0), {VARIANTS[0]: run_of(10)})


def test_holm_leaves_out_a_variant_played_that_no_game_tells_from_the_baseline():
    """Two variants played: one wins all 10 games the baseline lost (McNemar's p 2 / 2**10),
    the other wins none, as the baseline: its p of 1 cannot reject, and the first's Holm p
    is its own p, a family of one."""
    import pandas as pd

    from analyzer.analysis.sensitivity import effect_table, variants_family

    base = pd.DataFrame({"game": np.arange(10), "won": np.zeros(10, bool)})
    every = pd.DataFrame({"game": np.arange(10), "won": np.ones(10, bool)})
    every.attrs["card_set_sha256"] = "0" * 64
    none = pd.DataFrame({"game": np.arange(10), "won": np.zeros(10, bool)})
    none.attrs["card_set_sha256"] = "1" * 64
    table = effect_table(base, {VARIANTS[0]: every, VARIANTS[1]: none})
    assert table["mcnemar_p"].tolist() == pytest.approx([2 / 2**10, 1.0])
    assert table["holm_p"].tolist() == pytest.approx([2 / 2**10, 1.0])
    assert table["differing"].tolist() == [10, 0]
    assert table["effect"].tolist() == [1.0, 0.0]
    assert variants_family(table).startswith("the 1 variant")


@pytest.mark.parametrize("count, value, factor, levels", [
    (2, 5, "Chaos count", ["0", "4"]),
    (62, 5, "Chaos count", ["60", "64"]),
    (8, 2, "Chaos influence", ["±1", "±3"]),
    (8, 8, "Chaos influence", ["±7", "±9"]),
])
def test_a_level_at_a_card_files_limits_is_played(tmp_path, count, value, factor, levels):
    """0 and 64 Chaos, ±1 and ±9 are what a card file may hold: a baseline one step or two
    cards inside them plays both sides, the limit itself included."""
    from analyzer.analysis.sensitivity import variants_of
    from analyzer.cards.loader import load_card_file

    path = _card_file(tmp_path, "inside", (CHAOS, f"[dreams.chaos]\ncount = {count}\n"
                                                  f"value = {value}"))
    assert [v.level for v in variants_of(load_card_file(path)[1]) if v.factor == factor] == \
        levels
    assert _left_out(path) == {}


@pytest.mark.parametrize("edit", [
    # water's Incubi nearest 0 are -2 where the other elements' are -1
    ("water = [-1, -1, -1, -2, -2, -2, -3, -3]", "water = [-2, -2, -2, -2, -2, -2, -3, -3]"),
    # earth's lowest Sognae is +2 where the other elements' is +1
    ("earth = [1, 1, 2, 2, 3, 3, 4, 4]", "earth = [2, 2, 2, 2, 3, 3, 4, 4]"),
])
def test_a_smaller_deck_names_its_cards_only_when_every_element_loses_the_same(tmp_path,
                                                                               edit):
    """"one +1 and one -1 fewer per element" is true only where each element's weakest
    Sognae is +1 and its weakest Incubi -1; otherwise the level says what goes in words."""
    from analyzer.analysis.sensitivity import variants_of
    from analyzer.cards.loader import load_card_file

    data = load_card_file(_card_file(tmp_path, "uneven", edit))[1]
    assert [v.level for v in variants_of(data) if v.factor == "Deck size"] == [
        "64 base-game dreams: the weakest Sognae and Incubi of each element fewer",
        "80 base-game dreams: one +2 and one -2 more per element"]


def test_each_variant_card_set_is_named_after_its_change_and_level(tmp_path):
    """docs/sensitivity.md: `R14-default / Chaos count: 6`, and around a file of 8 Chaos
    named `mine`, `mine / Chaos count: 10`; no two variants share a name."""
    names = {(v.factor, v.level): variant_card_set(v).name for v in VARIANTS}
    assert names[("Chaos count", "6")] == "R14-default / Chaos count: 6"
    assert names[("Chaos influence", "±4")] == "R14-default / Chaos influence: ±4"
    assert names[("Incubi spread", "wide, same total: -1 x5, -2 x1, -4 x2")] == \
        "R14-default / Incubi spread: wide, same total: -1 x5, -2 x1, -4 x2"
    assert len(set(names.values())) == len(VARIANTS)
    from analyzer.analysis.sensitivity import baseline_label, variants_of
    from analyzer.cards.loader import load_card_file

    card_set, data = load_card_file(_card_file(tmp_path, "mine"))
    label = baseline_label(card_set.name, card_set.digest)
    ten = next(v for v in variants_of(data) if (v.factor, v.level) == ("Chaos count", "10"))
    played = variant_card_set(ten, data, label)
    assert played.name == "mine / Chaos count: 10"
    # where its cards come from names the designer's set, not R14
    assert played.source == f"variant of mine (sha256 {card_set.digest[:12]}): Chaos count: 10"


def test_each_variant_row_names_the_hash_of_the_cards_it_played(tmp_path):
    """The row's card_set_sha256 is its own card set's: the hash of the card file that
    makes that variant by hand (the template named after the change, with 6 Chaos), and
    no two played rows, nor a row and the baseline, share one."""
    result = analyzer.sensitivity(games=10, seed=1)
    played = result.table[result.table["played"]]
    assert len(set(played["card_set_sha256"])) == len(played) == len(VARIANTS)
    assert result.baseline["card_set_sha256"] not in set(played["card_set_sha256"])
    by_hand = tmp_path / "six.toml"
    analyzer.write_card_template(by_hand)
    by_hand.write_text(by_hand.read_text()
                       .replace('name = "R14-default"', 'name = "R14-default / Chaos count: 6"')
                       .replace(CHAOS, "[dreams.chaos]\ncount = 6\nvalue = 5"))
    six = played[(played.factor == "Chaos count") & (played.level == "6")].iloc[0]
    assert six.card_set_sha256 == load_card_set(by_hand).digest


def test_the_side_effects_speak_only_of_the_chaos_counts_played(tmp_path):
    """A file without Chaos plays 2 Chaos, not -2: the note says what 2 do to its deck of
    64 dreams, and nothing of a count that was never played."""
    none = _card_file(tmp_path, "chaosless", (CHAOS, "[dreams.chaos]\ncount = 0\nvalue = 5"))
    result = analyzer.sensitivity(games=10, seed=1, cards=none)
    label = f"chaosless (sha256 {result.baseline['card_set_sha256'][:12]})"
    said = ("A factor also changes what follows from it: 2 Chaos make the base game's Dream "
            f"cards 66 ({label}: 64; an expansion's dreams come on top).")
    assert result.baseline["side_effects"] == said
    assert str(result).splitlines()[-1] == said


def test_a_stop_names_the_card_set_by_its_place_among_those_played(monkeypatch):
    """R14's 8 variants are all played: the last of them is card set 9 of 9, the
    baseline being the first."""
    from analyzer.errors import RunStopped

    _stop_at(9, monkeypatch)
    with pytest.raises(RunStopped) as stop:
        analyzer.sensitivity(games=10, seed=2)
    assert str(stop.value).startswith(
        "sensitivity, card set 9 of 9 (Deck size 80 base-game dreams: one +2 and one -2 more "
        "per element)")


def test_r14_as_the_card_file_is_the_shipped_baseline():
    """--cards r14 (cards="r14"), as every command takes it, is the shipped set: named R14
    as the default is."""
    named = analyzer.sensitivity(games=10, seed=1, cards="r14")
    shipped = analyzer.sensitivity(games=10, seed=1)
    assert named.baseline["card_set_sha256"] == default_card_set().digest
    assert str(named) == str(shipped)


def test_the_sensitivity_command_hands_its_options_and_defaults_to_the_analysis(
        capsys, monkeypatch, tmp_path):
    """By default 20,000 games of seed 0 with greedy, the solo base game of R14 (as its
    --help says); each option given reaches the analysis, --expansions and --variant
    among them."""
    from tests.test_cli import handed_on

    asked = handed_on(capsys, monkeypatch, "sensitivity")
    assert {key: asked[key] for key in ("games", "seed", "policy", "expansions", "variant",
                                        "cards", "out", "resume")} == {
        "games": 20_000, "seed": 0, "policy": "greedy", "expansions": "none",
        "variant": "solo", "cards": None, "out": None, "resume": False}
    mine = tmp_path / "mine.toml"
    asked = handed_on(capsys, monkeypatch, "sensitivity", "--games", "30", "--seed", "4",
                      "--policy", "weighted", "--expansions", "books", "--variant", "team",
                      "--cards", str(mine))
    assert {key: asked[key] for key in ("games", "seed", "policy", "expansions", "variant",
                                        "cards")} == {
        "games": 30, "seed": 4, "policy": "weighted", "expansions": "books",
        "variant": "team", "cards": str(mine)}
