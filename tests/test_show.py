"""`urbion show`: the text a player follows with the cards on the table, checked against the
trace of the same game."""

from __future__ import annotations

import pytest

import analyzer
from analyzer.trace.show import render_trace


@pytest.fixture(scope="module")
def postcard_traces():
    """Greedy postcard games of seed 11: game 6 pacifies every City card and loses on the
    Inhabitant pile (R11.9)."""
    return {t["game"]: t for t in analyzer.trace(seed=11, game=0, games=7,
                                                 expansions="postcards")}


def _result_line(text: str) -> str:
    return text.splitlines()[-1]


def test_R13_the_result_says_why_the_game_ended_and_the_inhabitant_sum(postcard_traces):
    trace = postcard_traces[6]
    assert trace["result"]["reason"] == "inhabitants"
    checks = [e["check"] for e in trace["log"] if "check" in e]
    line = _result_line(render_trace(trace))
    assert line.startswith("Result: LOSS (inhabitants: every City card is pacified")
    assert line.endswith(f", inhabitants {checks[-1]['inhabitants']:+d}")
    assert checks[-1]["inhabitants"] < 0


def test_R13_2_a_base_game_loss_names_the_empty_dream_deck_and_no_inhabitants():
    trace = analyzer.trace(seed=1, game=0)[0]
    assert trace["result"]["reason"] == "deck_empty"
    line = _result_line(render_trace(trace))
    assert "(deck_empty: a card had to be drawn from the empty Dream deck)" in line
    assert "inhabitants" not in line
