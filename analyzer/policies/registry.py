"""Built-in policies by name: the jitted function, its parameters and a description."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from analyzer.cards import CardSet
from analyzer.errors import PolicyError
from analyzer.policies.builtin_nb import BuiltinId
from analyzer.policies.greedy_nb import greedy_nb, greedy_params
from analyzer.policies.random_nb import random_nb


@dataclass(frozen=True)
class PolicySpec:
    """A policy ready to play: ``func(kind, options, n_options, state, cards, params, rng)``."""

    name: str
    func: Callable
    params: np.ndarray = field(repr=False)
    description: str = ""
    #: id of a built-in policy (``BuiltinId``): the engine then runs cached kernels
    builtin_id: int | None = None
    #: params for a given card table, for policies whose params hold card-set facts
    params_for_cards: Callable[[np.ndarray], np.ndarray] | None = None

    def for_cards(self, card_set: CardSet) -> PolicySpec:
        """This policy with its params fitted to ``card_set``."""
        if self.params_for_cards is None:
            return self
        return replace(self, params=self.params_for_cards(card_set.cards))

    @property
    def kernel_arg(self) -> int | Callable:
        """What the entry kernels take as ``policy``: the built-in id, or the function."""
        return self.func if self.builtin_id is None else self.builtin_id


def _builtins() -> dict[str, PolicySpec]:
    return {
        "random": PolicySpec("random", random_nb, np.zeros(0, dtype=np.float64),
                             "uniform over the legal options of every decision",
                             BuiltinId.RANDOM),
        "greedy": PolicySpec("greedy", greedy_nb, greedy_params(),
                             "one-step heuristic of a careful beginner (docs/policies.md)",
                             BuiltinId.GREEDY, lambda cards: greedy_params(cards=cards)),
        "weighted": weighted_policy(None),
    }


WEIGHTED_PREFIX = "weighted:"


def weighted_policy(path: str | None) -> PolicySpec:
    """``weighted`` with the weights of a TOML file (``urbion tune`` writes them), or with
    the shipped tuned default for None. It plays with greedy's features and kernel."""
    from analyzer.policies.weights import load_weights

    weights = load_weights(path)
    name = "weighted" if path is None else f"{WEIGHTED_PREFIX}{path}"
    return PolicySpec(name, greedy_nb, greedy_params(weights),
                      "greedy's features with tuned weights; weighted:FILE.toml for others",
                      BuiltinId.GREEDY, lambda cards: greedy_params(weights, cards))


BUILTIN_POLICIES = _builtins()


def resolve_policy(name: str) -> PolicySpec:
    """A built-in policy by name, ``weighted:FILE.toml``, or a user's ``FILE.py:FUNCTION`` /
    ``MODULE:FUNCTION``."""
    if name in BUILTIN_POLICIES:
        return BUILTIN_POLICIES[name]
    if name.startswith(WEIGHTED_PREFIX):
        return weighted_policy(name.removeprefix(WEIGHTED_PREFIX))
    if ":" in name:
        from analyzer.policies.loader import load_user_policy

        return load_user_policy(name)
    valid = ", ".join(sorted(BUILTIN_POLICIES))
    raise PolicyError(f"unknown policy {name!r} (valid: {valid}, or FILE.py:FUNCTION)")
