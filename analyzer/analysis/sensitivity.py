"""Designers' what-ifs: how the win rate moves when the card set moves away from a baseline.

The baseline is the shipped R14 set (RULINGS R14 is an assumption: the printed card list
is not known) or a designer's own card file. Each variant changes one thing of the
baseline's data, and plays the same games of the same seed as the baseline. Game g of a
variant is paired with game g of the baseline (they share the random streams of
(seed, g)), so the change of win rate gets the paired interval of ``analysis.compare``
(Newcombe's square-and-add), as expansion sets against the base game do.

A variant whose cards are the baseline's own (a file whose Incubi have the narrow spread
already, say) or
that the card-set check refuses (a deck made too small) is not played: the table keeps its
row, with the reason, so that every factor's levels stay in view.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analyzer.analysis.stats import holm_adjust, holm_family, paired_difference, wilson_interval
from analyzer.cards.loader import (
    MAX_CHAOS,
    MAX_VALUE,
    CardSet,
    CardSetError,
    card_set_from_data,
    default_card_data,
    default_card_set,
    same_cards,
)
from analyzer.core.codes import ELEMENTS

#: How every text names the shipped set as a baseline (the docs call the assumption R14).
SHIPPED_LABEL = "R14"


def _per_element(kind: str, edit: Callable[[list[int]], list[int]]) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        for element in ELEMENTS:
            values = data["dreams"][kind][element]
            data["dreams"][kind][element] = edit(list(values))
    return change


def narrowed(values: list[int]) -> list[int]:
    """One element's Incubi as near their mean as whole values allow, with the same number
    of cards and the same total (R14's -1 x3, -2 x3, -3 x2 become -1 x1, -2 x7); nearest 0
    first, as the shipped file lists them."""
    n, total = len(values), sum(values)
    if not n:
        return values
    low = total // n
    above = total - low * n
    return [low + 1] * above + [low] * (n - above)


def widened(values: list[int]) -> list[int]:
    """One element's Incubi at the two ends of their range, widened one step each way
    (within -1 and -``MAX_VALUE``), with one card between where the total needs it: the same
    number of cards and the same total (R14's become -1 x5, -2 x1, -4 x2); nearest 0 first."""
    n, total = len(values), sum(values)
    near, far = min(max(values, default=-1) + 1, -1), max(min(values, default=-1) - 1,
                                                           -MAX_VALUE)
    if not n or near == far:
        return values
    strong, rest = divmod(n * near - total, near - far)
    middle = [near - rest] if rest else []
    return [near] * (n - strong - len(middle)) + middle + [far] * strong


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
    """One change to the baseline card set; ``beyond`` says why its level is beyond what a
    card file may hold ("" when it is not)."""

    factor: str
    level: str
    change: Callable[[dict], None]
    beyond: str = ""


def _chaos_variant(factor: str, key: str, level: int, label: str) -> Variant:
    """A Chaos influence or count variant, its level checked against a card file's limits."""
    low, high, text = (1, MAX_VALUE, f"±1 to ±{MAX_VALUE}") if key == "value" else \
        (0, MAX_CHAOS, f"0 to {MAX_CHAOS} Chaos")
    beyond = "" if low <= level <= high else f"beyond what a card file may hold ({text})"
    return Variant(factor, label, _chaos(key, level), beyond)


@dataclass(frozen=True)
class NotPlayed:
    """A variant left out of the games, and why (``reason`` completes "not played: ")."""

    reason: str


#: Why a variant whose cards are the baseline's own is not played: its games would be the
#: baseline's games again (or, in another card order, a reshuffle), and the "change" noise.
SAME_AS_BASELINE = "the baseline's own level"
#: Why a Chaos influence variant of a set without Chaos is not played: it changes no card.
NO_CHAOS = "the baseline has no Chaos whose influence could change"


def changed_data(variant: Variant, data: dict) -> dict:
    """A copy of card-set ``data`` with ``variant``'s change (``data`` stays as it is)."""
    changed = copy.deepcopy(data)
    variant.change(changed)
    return changed


def base_game_dreams(data: dict) -> int:
    """The base game's Dream cards of card-set ``data``: Sognae, Incubi and Chaos."""
    dreams = data["dreams"]
    return (sum(len(dreams[kind][element]) for kind in ("sognae", "incubi")
                for element in ELEMENTS) + dreams["chaos"]["count"])


def _deck_level(data: dict, delta: int) -> str:
    """A deck-size variant's level: its dreams, and which cards go or come."""
    dreams = base_game_dreams(changed_data(Variant("", "", _resize(delta)), data))
    if delta > 0:
        return f"{dreams} base-game dreams: one +2 and one -2 more per element"
    sognae, incubi = data["dreams"]["sognae"], data["dreams"]["incubi"]
    weakest_sognae = {min(sognae[e]) for e in ELEMENTS if sognae[e]}
    weakest_incubi = {max(incubi[e]) for e in ELEMENTS if incubi[e]}
    every_element = all(sognae[e] and incubi[e] for e in ELEMENTS)
    if every_element and len(weakest_sognae) == len(weakest_incubi) == 1:
        return (f"{dreams} base-game dreams: one +{weakest_sognae.pop()} and one "
                f"{weakest_incubi.pop()} fewer per element")
    return f"{dreams} base-game dreams: the weakest Sognae and Incubi of each element fewer"


def variants_of(data: dict) -> tuple[Variant, ...]:
    """The variants of card-set ``data``: each element's Incubi narrowed and widened with
    its count and total kept (:func:`narrowed`, :func:`widened`), so that the spread alone
    changes; the Chaos influence one step either side of the baseline's and the Chaos count
    two cards either side (R14: ±4 and ±6, 6 and 10); the deck one card of each kind per
    element smaller and larger. A level the card-set check refuses (no Chaos of influence
    0) is not played."""
    chaos = data["dreams"]["chaos"]
    value, count = chaos["value"], chaos["count"]
    # without Chaos in the baseline its file's influence is nowhere in view: say it
    of = f" (of ±{value})" if not count else ""
    return (
        *(_spread_variant(data, name, spread) for name, spread in (("narrow", narrowed),
                                                                   ("wide", widened))),
        *(_chaos_variant("Chaos influence", "value", level, f"±{level}")
          for level in (value - 1, value + 1)),
        *(_chaos_variant("Chaos count", "count", level, f"{level}{of}")
          for level in (count - 2, count + 2)),
        Variant("Deck size", _deck_level(data, -1), _resize(-1)),
        Variant("Deck size", _deck_level(data, +1), _resize(+1)),
    )


def _spread_variant(data: dict, name: str, spread: Callable[[list[int]], list[int]]
                    ) -> Variant:
    """An Incubi spread of card-set ``data``, each element's count and total kept, its level
    the values it gives."""
    change = _per_element("incubi", spread)
    incubi = {element: spread(list(data["dreams"]["incubi"][element])) for element in ELEMENTS}
    return Variant("Incubi spread", f"{name}, same total: {_spread_text(incubi)}", change)


def _spread_text(incubi: dict) -> str:
    """The Incubi values of one element as "-1 x3, -2 x3, -3 x2"; per element where the
    elements differ."""
    def of(values: list[int]) -> str:
        counts = sorted(Counter(values).items(), reverse=True)
        return ", ".join(f"{value} x{count}" for value, count in counts) or "none"

    texts = {element: of(incubi[element]) for element in ELEMENTS}
    if len(set(texts.values())) == 1:
        return texts[ELEMENTS[0]]
    return " / ".join(f"{element} {text}" for element, text in texts.items())


def baseline_levels(data: dict) -> dict[str, str]:
    """The level of each factor in card-set ``data`` (a table's ``baseline_level``)."""
    chaos = data["dreams"]["chaos"]
    return {"Incubi spread": _spread_text(data["dreams"]["incubi"]),
            "Chaos influence": f"±{chaos['value']}" if chaos["count"] else "none (no Chaos)",
            "Chaos count": str(chaos["count"]),
            "Deck size": f"{base_game_dreams(data)} base-game dreams"}


def _listed(items: Iterable[object]) -> str:
    """"a", "a and b", "a, b and c"."""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _count_effect(counts: list[Variant], data: dict, label: str) -> str:
    """What the Chaos counts ``counts`` do to the size of the deck."""
    decks = [base_game_dreams(changed_data(variant, data)) for variant in counts]
    numbers = [changed_data(variant, data)["dreams"]["chaos"]["count"] for variant in counts]
    return (f"{_listed(numbers)} Chaos make the base game's Dream cards "
            f"{_listed(decks)} ({label}: {base_game_dreams(data)}; an expansion's dreams "
            "come on top)")


def side_effects(data: dict, label: str, played: Iterable[Variant]) -> str:
    """What the ``played`` variants of card-set ``data`` (the baseline, named ``label``)
    change besides their factor, as a sentence ("" when nothing)."""
    played = list(played)
    parts = []  # the Incubi spreads keep each element's count and total: nothing to say
    counts = [v for v in played if v.factor == "Chaos count"]
    if counts:
        parts.append(_count_effect(counts, data, label))
    if not parts:
        return ""
    return f"A factor also changes what follows from it: {'; '.join(parts)}."


VARIANTS = variants_of(default_card_data())
#: R14's level of each factor, computed as any baseline's (a table built without levels
#: is R14's).
BASELINE_LEVELS = baseline_levels(default_card_data())
#: What R14's variants change besides their factor, computed as any baseline's.
SIDE_EFFECTS = side_effects(default_card_data(), SHIPPED_LABEL, VARIANTS)


def baseline_label(name: str, digest: str) -> str:
    """How the texts name a baseline card set: "R14" for the shipped set, otherwise its name
    and the start of its SHA-256, as every result names a card set. The loader renames a
    changed copy of the shipped file, so the name alone tells the shipped set."""
    if name == default_card_set().name:
        return SHIPPED_LABEL
    return f"{name} (sha256 {digest[:12]})"


def variant_card_set(variant: Variant, data: dict | None = None,
                     label: str = SHIPPED_LABEL) -> CardSet:
    """The baseline set (card-set ``data``, named ``label``; default R14) with
    ``variant``'s change, named after it.

    Raises
    ------
    CardSetError
        When the changed data is no valid card set (the check of every card file).
    """
    data = default_card_data() if data is None else data
    changed = changed_data(variant, data)
    changed["name"] = f"{str(data['name']).strip()} / {variant.factor}: {variant.level}"
    return card_set_from_data(changed, f"variant of {label}: {variant.factor}: {variant.level}")


def plan_variants(baseline: CardSet, data: dict,
                  label: str) -> dict[Variant, CardSet | NotPlayed]:
    """Each variant of the baseline (``baseline``, read from ``data``, named ``label``): its
    card set, or why it is not played."""
    plan: dict[Variant, CardSet | NotPlayed] = {}
    for variant in variants_of(data):
        if variant.factor == "Chaos influence" and not data["dreams"]["chaos"]["count"]:
            plan[variant] = NotPlayed(NO_CHAOS)  # whatever the level: it changes no card
            continue
        if variant.beyond:
            plan[variant] = NotPlayed(variant.beyond)
            continue
        try:
            card_set = variant_card_set(variant, data, label)
        except CardSetError as err:
            plan[variant] = NotPlayed(f"the changed card set is not valid ({err})")
            continue
        plan[variant] = card_set if not same_cards(card_set, baseline) else NotPlayed(
            SAME_AS_BASELINE)
    return plan


def variants_family(table: pd.DataFrame) -> str:
    """Holm's family of an effect table, "the 8 variants played ...": those with a game won
    by the variant or the baseline alone (a table of an older version, without
    ``differing``, counts every variant played)."""
    played = played_mask(table)
    differ = int((table.loc[played, "differing"] > 0).sum()) if "differing" in table \
        else int(played.sum())
    return holm_family(differ, "variant", int(played.sum()) - differ, " played")


def played_mask(table: pd.DataFrame) -> np.ndarray:
    """bool (n_variants,): which variants of an :func:`effect_table` were played (a table
    without ``played`` holds played ones only)."""
    return (table["played"].to_numpy(dtype=bool) if "played" in table
            else np.ones(len(table), dtype=bool))


def level_heading(label: str, what: str = "level") -> str:
    """How the baseline's level (or ``what``) is headed: "R14's level", "level of NAME
    (sha256 …)"."""
    return f"{label}'s {what}" if label == SHIPPED_LABEL else f"{what} of {label}"


def baseline_side_effects(baseline: dict) -> str:
    """What a sensitivity baseline's variants change besides their factor; R14's for a
    summary without it (one built by hand)."""
    return baseline.get("side_effects", SIDE_EFFECTS)


def effect_table(baseline: pd.DataFrame, runs: Mapping[Variant, pd.DataFrame | NotPlayed],
                 levels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Per variant: win rate with its interval, and the change from the baseline on the
    same games with its interval, McNemar's p and that p adjusted by Holm's method over the
    variants played (``holm_p``). ``levels``: the baseline's level of each factor (default
    R14's). A variant not played keeps its row: ``played`` False, its reason in ``note``,
    no figures."""
    levels = BASELINE_LEVELS if levels is None else levels
    base = baseline.sort_values("game")
    rows = []
    for variant, run in runs.items():
        row = {"factor": variant.factor, "level": variant.level,
               "baseline_level": levels[variant.factor]}
        row.update(_not_played(run) if isinstance(run, NotPlayed)
                   else _effect(variant, run, base))
        rows.append(row)
    differ = [row.get("differing", 0) > 0 for row in rows]
    for row, adjusted in zip(rows, holm_adjust([row["mcnemar_p"] for row in rows], differ),
                             strict=True):
        row["holm_p"] = adjusted
    return pd.DataFrame(rows)


def _effect(variant: Variant, df: pd.DataFrame, base: pd.DataFrame) -> dict:
    """A played variant's figures against the baseline's games ``base``."""
    df = df.sort_values("game")
    if not np.array_equal(df["game"].to_numpy(), base["game"].to_numpy()):
        raise ValueError(f"variant {variant.factor}: {variant.level} was not played on "
                         "the baseline set's games")
    wins, n = int(df["won"].sum()), len(df)
    low, high = wilson_interval(wins, n)
    paired = paired_difference(df["won"].to_numpy(), base["won"].to_numpy())
    return {"games": n, "win_rate": wins / n, "ci_low": low, "ci_high": high,
            "effect": wins / n - base["won"].sum() / len(base),
            "effect_low": paired["diff_low"], "effect_high": paired["diff_high"],
            "mcnemar_p": paired["mcnemar_p"], "holm_p": np.nan,
            "differing": paired["set_only"] + paired["base_only"],
            "card_set_sha256": df.attrs["card_set_sha256"],
            # a built-in reads the card set's largest values into its parameters
            "policy_params_sha256": df.attrs.get("policy_params_sha256", ""),
            "played": True, "note": ""}


def _not_played(skipped: NotPlayed) -> dict:
    """A variant left out: no games, no figures (a NaN p is left out of Holm's count)."""
    return {"games": 0, "win_rate": np.nan, "ci_low": np.nan, "ci_high": np.nan,
            "effect": np.nan, "effect_low": np.nan, "effect_high": np.nan,
            "mcnemar_p": np.nan, "holm_p": np.nan, "differing": 0, "card_set_sha256": "",
            "policy_params_sha256": "", "played": False,
            "note": f"not played: {skipped.reason}"}
