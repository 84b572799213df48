"""Designers' what-ifs: how the win rate moves when the card set moves away from R14.

Each variant changes one thing of the R14 card set (RULINGS R14 is an assumption: the
printed card list is not known), and plays the same games of the same seed as the R14
set. Game g of a variant is paired with game g of the R14 set (they share the random
streams of (seed, g)), so the change of win rate gets the paired interval of
``analysis.compare`` (Newcombe's square-and-add), as expansion sets against the base game do.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzer.analysis.compare import paired_difference
from analyzer.analysis.stats import holm_adjust, wilson_interval
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
    # a Chaos counts +5 on the left side and -5 on the right in R14
    Variant("Chaos influence", "±4", _chaos("value", 4)),
    Variant("Chaos influence", "±6", _chaos("value", 6)),
    Variant("Chaos count", "6", _chaos("count", 6)),
    Variant("Chaos count", "10", _chaos("count", 10)),
    Variant("Deck size", "64 dreams: one +1 and one -1 fewer per element", _resize(-1)),
    Variant("Deck size", "80 dreams: one +2 and one -2 more per element", _resize(+1)),
)
#: R14's level of each factor, for the table (``r14_level``).
BASELINE_LEVELS = {"Incubi spread": "-1 x3, -2 x3, -3 x2", "Chaos influence": "±5",
                   "Chaos count": "8", "Deck size": "72 base-game dreams"}
#: What a factor changes besides itself (tests/test_sensitivity.py checks the numbers
#: against the variants' card sets).
SIDE_EFFECTS = ("A factor also changes what follows from it: the narrow and wide Incubi "
                "spreads sum to -12 and -20 per element (R14: -15), so they move the "
                "Incubi's total as well as their spread; 6 and 10 Chaos make the base "
                "game's Dream cards 70 and 74 (R14: 72; an expansion's dreams come on "
                "top).")


def variant_card_set(variant: Variant) -> CardSet:
    """The R14 set with ``variant``'s change, named after it."""
    data = copy.deepcopy(default_card_data())
    variant.change(data)
    data["name"] = f"{data['name']} / {variant.factor}: {variant.level}"
    return card_set_from_data(data, f"variant of R14: {variant.factor}: {variant.level}")


def effect_table(baseline: pd.DataFrame, runs: dict[Variant, pd.DataFrame]) -> pd.DataFrame:
    """Per variant: win rate with its interval, and the change from R14 on the same games
    with its interval, McNemar's p and that p adjusted by Holm's method over the variants
    (``holm_p``)."""
    base = baseline.sort_values("game")
    base_wins, base_n = int(base["won"].sum()), len(base)
    rows = []
    for variant, df in runs.items():
        df = df.sort_values("game")
        if not np.array_equal(df["game"].to_numpy(), base["game"].to_numpy()):
            raise ValueError(f"variant {variant.factor}: {variant.level} was not played on "
                             "the R14 set's games")
        wins, n = int(df["won"].sum()), len(df)
        low, high = wilson_interval(wins, n)
        paired = paired_difference(df["won"].to_numpy(), base["won"].to_numpy())
        rows.append({"factor": variant.factor, "level": variant.level,
                     "r14_level": BASELINE_LEVELS[variant.factor], "games": n,
                     "win_rate": wins / n, "ci_low": low, "ci_high": high,
                     "effect": wins / n - base_wins / base_n, "effect_low": paired["diff_low"],
                     "effect_high": paired["diff_high"], "mcnemar_p": paired["mcnemar_p"],
                     "holm_p": np.nan, "card_set_sha256": df.attrs["card_set_sha256"]})
    for row, adjusted in zip(rows, holm_adjust([row["mcnemar_p"] for row in rows]),
                             strict=True):
        row["holm_p"] = adjusted
    return pd.DataFrame(rows)
