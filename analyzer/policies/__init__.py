"""Policies: jitted ``choose(kind, options, n_options, state, cards, rng) -> int``."""
