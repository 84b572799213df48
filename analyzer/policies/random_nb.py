"""``random``: uniform over the legal options of every decision."""

from __future__ import annotations

from analyzer.core.jit import cached_jit
from analyzer.core.rng import below_nb


@cached_jit(borrowing=True)
def random_nb(kind, options, n_options, state, cards, params, rng):
    """Pick one of the ``n_options`` legal options uniformly from the policy stream."""
    return below_nb(rng, n_options)
