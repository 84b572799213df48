"""Interval estimates for win rates."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Returns (nan, nan) for zero games.
    """
    if games <= 0:
        return (math.nan, math.nan)
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    # At 0 or all wins the bound is exactly p; rounding must not put it past p.
    low = 0.0 if wins == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if wins == games else max(p, min(1.0, centre + half))
    return (low, high)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs.

    ``only_a``: games won by A and lost by B on the same deal; ``only_b`` the reverse.
    Under the null hypothesis each discordant game is A's with probability 1/2, so the
    p-value is the exact two-sided binomial test of ``only_a`` out of ``only_a + only_b``
    (1.0 when there is no discordant game).
    """
    from scipy.stats import binomtest

    n = only_a + only_b
    if n == 0:
        return 1.0
    return float(binomtest(only_a, n, 0.5).pvalue)


def holm_adjust(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment of p-values for multiple comparisons (same order).

    The k-th smallest of m p-values is multiplied by (m - k + 1), made non-decreasing
    along the sorted order, and capped at 1.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
