"""Weights files of the ``weighted`` policy: TOML, one number per feature, validated.

```toml
# any comments: how the weights were tuned
[weights]
BALANCE = 50.0
PROGRESS = 8.0
```

Every feature of ``greedy_nb.GREEDY_WEIGHTS`` may be given; a missing one keeps the shipped
weights' value (``weighted-default.toml``, itself greedy's value for a feature it does not
give): ``weighted:FILE`` is the weighted policy with the file's changes. An unknown name
or a value that is not a finite number of at most 1e12 in size (``MAX_WEIGHT``) is an
error naming the key.
"""

from __future__ import annotations

import math
import tomllib
from importlib import resources
from pathlib import Path

from analyzer.atomic import check_writable, write_atomically
from analyzer.core.greedy_terms import MAX_WEIGHT, MAX_WEIGHT_TEXT
from analyzer.errors import PolicyError
from analyzer.policies.greedy_nb import GREEDY_WEIGHTS

DEFAULT_WEIGHTS_FILE = "weighted-default.toml"


def parse_weights(text: str, source: str,
                  base: dict[str, float] | None = None) -> dict[str, float]:
    """The full weight table from a weights file's text; missing names keep their value in
    ``base`` (greedy's weights when None)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"weights file {source}: not valid TOML: {err}") from None
    extra = sorted(set(data) - {"weights"})
    if extra or not isinstance(data.get("weights"), dict):
        raise PolicyError(f"weights file {source}: expected one [weights] table"
                          + (f", found {', '.join(extra)}" if extra else ""))
    weights = dict(GREEDY_WEIGHTS if base is None else base)
    for name, value in data["weights"].items():
        if name not in GREEDY_WEIGHTS:
            valid = ", ".join(GREEDY_WEIGHTS)
            raise PolicyError(f"weights file {source}: unknown weight weights.{name} "
                              f"(valid: {valid})")
        try:
            number = float(value) if isinstance(value, int | float) and \
                not isinstance(value, bool) else math.nan
        except OverflowError:
            number = math.inf
        if not math.isfinite(number) or abs(number) > MAX_WEIGHT:
            raise PolicyError(f"weights file {source}: weights.{name} must be a finite number "
                              f"from -{MAX_WEIGHT_TEXT} to {MAX_WEIGHT_TEXT}")
        weights[name] = number
    return weights


def load_weights(path: str | Path | None = None) -> dict[str, float]:
    """Weights from a file, over the shipped tuned default, or that default for None."""
    if path is None:
        text = resources.files("analyzer.policies").joinpath(DEFAULT_WEIGHTS_FILE).read_text()
        return parse_weights(text, f"builtin:{DEFAULT_WEIGHTS_FILE}")
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:  # a UnicodeDecodeError has no strerror
        raise PolicyError(f"cannot read weights file {path}: "
                          f"{getattr(err, 'strerror', None) or err}") from None
    return parse_weights(text, str(path), base=load_weights(None))


def format_weights(weights: dict[str, float], comments: list[str]) -> str:
    """A weights file's text: ``comments`` as ``#`` lines, then the [weights] table."""
    lines = [f"# {line}" if line else "#" for line in comments]
    lines += ["[weights]"] + [f"{name} = {weights[name]!r}" for name in GREEDY_WEIGHTS]
    return "\n".join(lines) + "\n"


def write_weights(path: str | Path, weights: dict[str, float], comments: list[str]) -> None:
    """Write a weights file, complete or not at all."""
    path = check_writable(path, (".toml",))
    text = format_weights(weights, comments)
    write_atomically(path, lambda tmp: Path(tmp).write_text(text))


def plays_r14_cards(attrs: dict) -> bool:
    """True when a run (its configuration ``attrs``) played R14's cards, kind for kind: the
    shipped set, or a renamed or reordered copy of it that the results file kept."""
    from analyzer.cards import default_card_set
    from analyzer.cards.loader import same_cards, unpacked_table

    shipped = default_card_set()
    digest = str(attrs.get("card_set_sha256"))
    if digest == shipped.digest:
        return True
    kept = unpacked_table(attrs.get("card_set_table"), str(attrs.get("card_set")), digest, "")
    return kept is not None and same_cards(kept, shipped)


def shipped_weights_note(policies: list[str], other_cards: bool, expansions: list[str],
                         variant: str, per_set: bool = False) -> str | None:
    """A note when the shipped ``weighted`` policy plays where its weights were not tuned
    (they were tuned on R14's base game, solo): ``other_cards`` than R14's
    (:func:`plays_r14_cards`), expansions, or the team game; None otherwise, or when
    ``weighted`` does not play. ``per_set``: for a comparison of expansion sets, each of
    which would need its own tune."""
    if "weighted" not in policies:
        return None
    where = []
    if other_cards:
        where.append("other cards")
    if expansions:
        where.append("expansions")
    if variant == "team":
        where.append("the team game")
    if not where:
        return None
    how = ("`urbion tune --expansions SET` for each set (with the same --cards and "
           "--variant)" if per_set else
           "`urbion tune` (with the same --cards, --expansions and --variant)")
    return (f"note: weighted plays weights tuned on R14's base game solo; with "
            f"{' and '.join(where)}, {how} finds weights of their own")
