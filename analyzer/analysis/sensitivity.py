"""Designers' what-ifs: how the win rate moves when the card set moves away from R14.

Each variant changes one thing of the R14 card set (RULINGS R14 is an assumption: the
printed card list is not known), and plays the same games of the same seed as the R14
set. The decks differ, so the runs are compared as independent samples: the difference of
win rates gets Newcombe's hybrid score interval, built from the two Wilson intervals.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from analyzer.analysis.stats import wilson_interval
from analyzer.cards.loader import CardSet, card_set_from_data, default_card_data

ELEMENTS = ("earth", "water", "fire", "air")


def _per_element(kind: str, edit: Callable[[list[int]], list[int]]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for element in ELEMENTS:
            values = data["dreams"][kind][element]
            data["dreams"][kind][element] = edit(list(values))
    return change


def _chaos(key: str, value: int) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        data["dreams"]["chaos"][key] = value
    return change


def _resize(delta: int) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for element in ELEMENTS:
            sognae, incubi = data["dreams"]["sognae"], data["dreams"]["incubi"]
            if delta < 0:  # the weakest of each kind goes
                sognae[element] = sorted(sognae[element])[1:]
                incubi[element] = sorted(incubi[element], reverse=True)[1:]
            else:  # a middling one of each kind comes
                sognae[element] = sorted(sognae[element] + [2])
                incubi[element] = sorted(incubi[element] + [-2], reverse=True)
    return change


@dataclass(frozen=True)
class Variant:
    """One change to the R14 card set."""

    factor: str
    level: str
    change: Callable[[dict], None]


VARIANTS = (
    Variant("Incubi spread", "narrow: -1 x4, -2 x4",
            _per_element("incubi", lambda v: [-1] * 4 + [-2] * 4)),
    Variant("Incubi spread", "wide: -1 to -4, two each",
            _per_element("incubi", lambda v: [-1, -1, -2, -2, -3, -3, -4, -4])),
    Variant("Chaos influence", "4", _chaos("value", 4)),
    Variant("Chaos influence", "6", _chaos("value", 6)),
    Variant("Chaos count", "6", _chaos("count", 6)),
    Variant("Chaos count", "10", _chaos("count", 10)),
    Variant("Deck size", "64 dreams: one +1 and one -1 fewer per element", _resize(-1)),
    Variant("Deck size", "80 dreams: one +2 and one -2 more per element", _resize(+1)),
)
#: R14 itself, for the table: Incubi -1 x3 -2 x3 -3 x2, Chaos 8 of 5, 72 dreams.
BASELINE_LEVELS = {"Incubi spread": "R14: -1 x3, -2 x3, -3 x2", "Chaos influence": "R14: 5",
                   "Chaos count": "R14: 8", "Deck size": "R14: 72 dreams"}


def variant_card_set(variant: Variant) -> CardSet:
    """The R14 set with ``variant``'s change, named after it."""
    data = copy.deepcopy(default_card_data())
    variant.change(data)
    data["name"] = f"{data['name']} / {variant.factor}: {variant.level}"
    return card_set_from_data(data, f"variant of R14: {variant.factor}: {variant.level}")


def newcombe_difference(wins_a: int, n_a: int, wins_b: int, n_b: int) -> tuple[float, float]:
    """95% interval of p_a - p_b for independent samples (Newcombe's hybrid score method)."""
    p_a, p_b = wins_a / n_a, wins_b / n_b
    low_a, high_a = wilson_interval(wins_a, n_a)
    low_b, high_b = wilson_interval(wins_b, n_b)
    diff = p_a - p_b
    return (diff - math.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2),
            diff + math.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2))


def effect_table(baseline: pd.DataFrame, runs: dict[Variant, pd.DataFrame]) -> pd.DataFrame:
    """Per variant: win rate with its interval, and the change from R14 with its interval."""
    base_wins, base_n = int(baseline["won"].sum()), len(baseline)
    rows = []
    for variant, df in runs.items():
        wins, n = int(df["won"].sum()), len(df)
        low, high = wilson_interval(wins, n)
        d_low, d_high = newcombe_difference(wins, n, base_wins, base_n)
        rows.append({"factor": variant.factor, "level": variant.level, "games": n,
                     "win_rate": wins / n, "ci_low": low, "ci_high": high,
                     "effect": wins / n - base_wins / base_n, "effect_low": d_low,
                     "effect_high": d_high, "card_set_sha256": df.attrs["card_set_sha256"]})
    return pd.DataFrame(rows)
