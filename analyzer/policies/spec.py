"""A policy ready to play, whichever kind: a built-in, an engine policy or a user's own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from analyzer.cards import CardSet
from analyzer.policies.builtin_nb import builtin_address


@dataclass(frozen=True)
class PolicySpec:
    """A policy ready to play: ``func(kind, options, n_options, state, cards, params, rng)``."""

    name: str
    func: Callable
    params: np.ndarray = field(repr=False)
    description: str = ""
    #: id of a built-in policy (``BuiltinId``): the engine then runs cached kernels
    builtin_id: int | None = None
    #: params for the rows of the Dream cards in play, for policies whose params hold facts
    #: of them (the largest values a card from hand can bring)
    params_for_cards: Callable[[np.ndarray], np.ndarray] | None = None
    #: what the kernels take instead of an id or a function (an EnginePolicy)
    kernel: object | None = None
    #: SHA-256 of a user policy's source file ("" for built-ins: the engine's source hash
    #: covers them)
    source_digest: str = ""
    #: what a weights file's weights were tuned on (its [tuned] table), or None
    tuned_for: dict | None = None
    #: the text of the weights file it plays, kept with its results; None for none or the
    #: shipped weights
    weights_file_text: str | None = field(default=None, repr=False)

    @property
    def cacheable(self) -> bool:
        """True for the id-dispatched built-ins, whose kernels numba caches on disk. Kernels
        taking a function cannot be cached, and those of an engine policy crash numba when
        loaded back from its cache, so both compile in memory on each run."""
        return self.builtin_id is not None

    @property
    def is_user_policy(self) -> bool:
        """True for a user's own function: neither a built-in nor an engine policy (search,
        clairvoyant), whose code is the package's."""
        return self.builtin_id is None and self.kernel is None

    @property
    def reference_ok(self) -> bool:
        """True when the reference engine can play it (it reads the policy view only)."""
        return self.kernel is None

    def for_cards(self, card_set: CardSet) -> PolicySpec:
        """This policy with its params fitted to ``card_set``: to the Dream cards it puts in
        play, not those of expansions left out, which no game of it draws."""
        if self.params_for_cards is None:
            return self
        return replace(self, params=self.params_for_cards(card_set.cards[card_set.dream_ids]))

    @property
    def kernel_arg(self) -> int | Callable:
        """What the entry kernels take as ``policy``: the address of a built-in's compiled
        code in this process, the engine policy, or the function."""
        if self.kernel is not None:
            return self.kernel
        return self.func if self.builtin_id is None else builtin_address(self.builtin_id)
