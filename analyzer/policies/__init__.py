"""Policies: jitted ``choose(kind, options, n_options, state, cards, params, rng) -> int``."""
