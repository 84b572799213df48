"""Sensitivity to the card set: each variant changes what it says, effects have intervals."""

from __future__ import annotations

import re

import numpy as np
import pytest

import analyzer
from analyzer.analysis.sensitivity import (
    BASELINE_LEVELS,
    SIDE_EFFECTS,
    VARIANTS,
    variant_card_set,
)
from analyzer.analysis.stats import newcombe_difference
from analyzer.cards import default_card_set
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
    """SIDE_EFFECTS and BASELINE_LEVELS are written by hand: their numbers must be the
    variants' and R14's own."""
    by_level = {(v.factor, v.level): _counts(variant_card_set(v)) for v in VARIANTS}
    spreads = [sum(c["incubi"]) // 4 for (factor, _), c in by_level.items()
               if factor == "Incubi spread"]
    decks = [c["dreams"] for (factor, _), c in by_level.items() if factor == "Chaos count"]
    r14 = _counts(default_card_set())
    assert f"sum to {spreads[0]} and {spreads[1]} per element (R14: " \
           f"{sum(r14['incubi']) // 4})" in SIDE_EFFECTS
    assert f"Dream cards {decks[0]} and {decks[1]} (R14: {r14['dreams']};" in SIDE_EFFECTS
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
    assert seen[("Incubi spread", "narrow: -1 x4, -2 x4")] == {"incubi"}
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
    assert page.count("<tr>") == len(VARIANTS) + 1 + 7  # the table, then the provenance
    assert "data:image/png;base64," in page and "urbion-2e/" in page
    for name in ("sensitivity.csv", "sensitivity.svg", "sensitivity.md"):
        assert f"href='{name}'" in page and (tmp_path / "sens" / name).is_file()
    assert f"report     {tmp_path / 'sens'}/index.html" in out
    result = analyzer.sensitivity(games=600, seed=2)
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
    from analyzer.reporting.build import _sensitivity_facts

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "mine",
                "policy_params_sha256": "cd" * 32, "policy_source_sha256": "ef" * 32,
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2}
    played = _sensitivity_facts(baseline)["played"]
    assert "policy mine (parameters sha256 cdcdcdcdcdcd, source sha256 efefefefefef)" in played


def test_the_sensitivity_pages_name_each_interval_and_test_each_change():
    """The Markdown and HTML tables say which interval is which, give McNemar's p and
    Holm's adjustment over the variants (in the CSV, McNemar's p was the only test, and on
    no page), and say when a change is real."""
    import pandas as pd

    from analyzer.analysis.stats import holm_adjust
    from analyzer.reporting.build import sensitivity_markdown, sensitivity_page

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
    assert "<th>McNemar p</th><th>Holm p</th>" in page
    for text in (md, page):
        assert "Holm p is below 0.05" in text and "the 2 variants" in text


def test_the_printed_baseline_names_its_card_sets_hash():
    import pandas as pd

    from analyzer.api import SensitivityResult

    baseline = {"card_set": "R14-default", "card_set_sha256": "ab" * 32, "policy": "greedy",
                "games": 10, "seed": 0, "win_rate": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                "expansions": [], "variant": "solo"}
    text = str(SensitivityResult(baseline, pd.DataFrame(columns=["factor"])))
    assert text.startswith("baseline   R14-default (sha256 abababababab): 10.00%")


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
    assert "adjusted over the 1 variants" in note
    assert lines[-2].startswith("R14's levels: Incubi spread -1 x3, -2 x3, -3 x2;")
    assert lines[-1] == SIDE_EFFECTS
