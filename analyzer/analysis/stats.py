"""Interval estimates and tests for win rates and their differences."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Returns (nan, nan) for zero games.
    """
    if games <= 0:
        return (math.nan, math.nan)
    if not 0 <= wins <= games:
        raise ValueError(f"wins must be from 0 to the {games} games, not {wins}")
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    # At 0 or all wins the bound is exactly p; rounding must not put it past p.
    low = 0.0 if wins == 0 else min(p, max(0.0, centre - half))
    high = 1.0 if wins == games else max(p, min(1.0, centre + half))
    return (low, high)


def newcombe_difference(wins_a: int, n_a: int, wins_b: int, n_b: int,
                        z: float = Z95) -> tuple[float, float]:
    """Interval of p_a - p_b for independent samples: Newcombe's hybrid score method,
    built from the two Wilson intervals (Newcombe 1998, method 10). (nan, nan) when a
    sample is empty."""
    if n_a <= 0 or n_b <= 0:
        return (math.nan, math.nan)
    p_a, p_b = wins_a / n_a, wins_b / n_b
    low_a, high_a = wilson_interval(wins_a, n_a, z)
    low_b, high_b = wilson_interval(wins_b, n_b, z)
    diff = p_a - p_b
    return (max(-1.0, diff - math.hypot(p_a - low_a, high_b - p_b)),
            min(1.0, diff + math.hypot(high_a - p_a, p_b - low_b)))


def paired_difference_interval(both: int, only_a: int, only_b: int, neither: int,
                               z: float = Z95) -> tuple[float, float]:
    """Interval of p_a - p_b when each game was played by A and by B (paired data).

    Newcombe's square-and-add interval for paired proportions (Newcombe 1998b, method 10),
    which Fagerland, Lydersen and Laake (2014) recommend: the two Wilson intervals combined
    with the estimated correlation of the two win rates (phi, continuity-corrected). Unlike
    the Wald interval it never has zero width when no game differs, and stays in [-1, 1].
    ``both``, ``only_a``, ``only_b``, ``neither`` count the games won by both, by A alone,
    by B alone, by neither.
    """
    n = both + only_a + only_b + neither
    if n == 0:
        return (math.nan, math.nan)
    wins_a, wins_b = both + only_a, both + only_b
    p_a, p_b = wins_a / n, wins_b / n
    low_a, high_a = wilson_interval(wins_a, n, z)
    low_b, high_b = wilson_interval(wins_b, n, z)
    phi = _paired_phi(both, only_a, only_b, neither)
    diff = p_a - p_b
    below = _square_and_add(p_a - low_a, high_b - p_b, phi)
    above = _square_and_add(high_a - p_a, p_b - low_b, phi)
    return (max(-1.0, diff - below), min(1.0, diff + above))


def _paired_phi(both: int, only_a: int, only_b: int, neither: int) -> float:
    """Correlation of the two wins, with Newcombe's continuity correction: an association
    within n/2 of none counts as none, and a margin of zero gives zero."""
    n = both + only_a + only_b + neither
    margins = ((both + only_a) * (only_b + neither) * (both + only_b)
               * (only_a + neither))
    if margins == 0:
        return 0.0
    cross = both * neither - only_a * only_b
    if 0 <= cross <= n / 2:
        return 0.0
    return (cross - n / 2 if cross > 0 else cross) / math.sqrt(margins)


def _square_and_add(a: float, b: float, phi: float) -> float:
    return math.sqrt(max(a * a + b * b - 2.0 * phi * a * b, 0.0))


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


def fisher_exact(wins_a: int, games_a: int, wins_b: int, games_b: int) -> float:
    """Two-sided p-value of Fisher's exact test that two independent samples of games
    (``wins_a`` of ``games_a``, ``wins_b`` of ``games_b``) share one win rate."""
    from scipy.stats import fisher_exact as fisher

    table = [[wins_a, games_a - wins_a], [wins_b, games_b - wins_b]]
    return float(fisher(table, alternative="two-sided").pvalue)


def mcnemar_exact_many(only_a: np.ndarray, only_b: np.ndarray) -> np.ndarray:
    """:func:`mcnemar_exact` for many pairs at once (int arrays of equal shape): twice the
    binomial tail of the smaller discordant count at 1/2, at most 1, and 1 where no game
    differs. A comparison of all 128 sets tests 8,128 pairs."""
    from scipy.stats import binom

    n = only_a + only_b
    tail = binom.cdf(np.minimum(only_a, only_b), np.maximum(n, 1), 0.5)
    return np.where(n == 0, 1.0, np.minimum(1.0, 2.0 * tail))


def holm_adjust(p_values: list[float], informative: list[bool] | None = None) -> list[float]:
    """Holm's step-down adjustment of p-values for multiple comparisons (same order).

    The k-th smallest of m p-values is multiplied by (m - k + 1), made non-decreasing
    along the sorted order, and capped at 1. A missing p (NaN) is no test: it stays NaN and
    is not counted in m. Nor is a test with no game that tells the two sides apart
    (``informative`` False: no game won by one and lost by the other, a contrast of zero in
    every game): McNemar's and the sign-flip test are conditional on those games, so with
    none such a test cannot reject; it keeps its p (1) and leaves the others' family error
    unchanged.
    """
    if informative is None:
        informative = [True] * len(p_values)
    tested = [i for i, p in enumerate(p_values) if not math.isnan(p) and informative[i]]
    m = len(tested)
    order = sorted(tested, key=lambda i: p_values[i])
    adjusted = [p if not informative[i] else math.nan for i, p in enumerate(p_values)]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def holm_family(tested: int, noun: str, alike: int, after: str = "") -> str:
    """The tests of a note on Holm's count, "the 4 sets" (``after`` follows the noun: "the
    4 variants played"): ``tested`` tests with a game won by one side and lost by the
    other, and the ``alike`` without, which cannot reject and are left out of the count
    (:func:`holm_adjust`)."""
    plural = noun if tested == 1 else f"{noun}s"
    family = f"no {noun}{after}" if tested == 0 else f"the {tested} {plural}{after}"
    if not alike:
        return family
    # "whose every game ended as the other side's" holds too where both lost every game
    left_out = f"one {noun}" if alike == 1 else f"{alike} {noun}s"  # "(1 whose" read as a p
    return (f"{family} with a game won by one side and lost by the other ({left_out} whose "
            "every game ended as the other side's, which cannot reject, "
            f"{'is' if alike == 1 else 'are'} left out)")


#: The level the docs and pages name: a Holm p below it counts as a difference shown; one
#: above it shows none, which is not evidence that there is none.
SIGNIFICANCE = 0.05

#: Why an interval that just excludes zero may sit beside a p above 0.05, for every table
#: that shows both.
EDGE_NOTE = ("Near the edge a test and the interval beside it can disagree, either way: "
             "the Holm p decides. A Holm p of 0.05 or more shows no difference, not that "
             "there is none: the interval says how large a difference these games leave "
             "possible, and more games narrow it.")


#: The smallest p-value printed as a figure.
P_FLOOR = 1e-300


def format_p(p: float) -> str:
    """A p-value for print, in 3 significant digits: one below 1e-300, where a float
    rounds to 0 or keeps a digit or two (4.94e-324), shows as that bound, so that p-values
    alike read alike; one just under 0.05 keeps the digits that show it is under; a
    missing one (NaN) as "n/a"."""
    if math.isnan(p):
        return "n/a"
    if p < P_FLOOR:
        return "<1e-300"
    digits = 3
    text = f"{p:.{digits}g}"
    while p < SIGNIFICANCE <= float(text):  # 0.049996 is not "0.05"
        digits += 1
        text = f"{p:.{digits}g}"
    return text


def holm_cell(p: float, differing: int) -> str:
    """A Holm p for a table's cell, or "—" where no game differs: such a test cannot
    reject and is left out of Holm's family (the note under the table says), so a 1 there
    would read as a test made."""
    return "—" if differing == 0 else format_p(p)


def signed_pp(fraction: float) -> str:
    """``fraction`` in percentage points with its sign, two decimals. A value just below
    zero reads -0.00, as an interval's bound does: an interval that leaves zero out by less
    than the last decimal does not read as one that reaches it, and a difference never
    reads outside its own interval (+0.00 beside -0.01 to -0.00). Zero itself reads +0.00."""
    text = f"{fraction * 100:+.2f}"
    return "-0.00" if text == "+0.00" and fraction < 0 else \
        "+0.00" if text == "-0.00" and not fraction < 0 else text


def t95(freedom: int) -> float:
    """Student's t quantile of a two-sided 95% interval with ``freedom`` degrees of freedom
    (the normal quantile undercovers the mean of a few games)."""
    from scipy.stats import t

    return float(t.ppf(0.975, freedom))


def _t_half_width(sd: float, n: int) -> float:
    """Half the width of a mean's 95% t-interval from the values' standard deviation and
    count; NaN for fewer than 2 values, and where every value is the same: a spread of
    zero is no certainty, and an interval of no width would read as one."""
    if n < 2 or sd == 0.0:
        return float("nan")
    return t95(n - 1) * sd / math.sqrt(n)


def _bounded_interval(mean: float, half: float, low: float | None = None,
                      high: float | None = None) -> tuple[float, float]:
    """``mean`` +- ``half``, kept within the values the quantity can take (``low`` ..
    ``high``; None: unbounded): a count's mean is never below 0, the cities pacified never
    above the City cards of the game."""
    lo, hi = mean - half, mean + half
    # floats whichever side wins: a bound of 12 City cards reads 12.0 in JSON, as any other
    if low is not None and math.isfinite(lo):
        lo = float(max(low, lo))
    if high is not None and math.isfinite(hi):
        hi = float(min(high, hi))
    return lo, hi


def mean_half_width(values: np.ndarray) -> float:
    """Half the width of the 95% t-interval of the mean of ``values`` (a per-game
    tally); NaN as :func:`_t_half_width` says."""
    n = len(values)
    return _t_half_width(float(np.std(values, ddof=1)) if n >= 2 else 0.0, n)


def sums_mean_interval(n: int, total: int, squares: int, low: float | None = None,
                       high: float | None = None) -> tuple[float, float]:
    """The 95% t-interval of the mean of ``n`` whole numbers from their sum and their sum
    of squares (a ``--summary-only`` tally), as :func:`mean_interval` gives it from the
    values; the variance is taken in exact integers, so no rounding cancels it."""
    if n == 0:
        return float("nan"), float("nan")
    n, total, squares = int(n), int(total), int(squares)
    variance = (squares * n - total * total) / (n * (n - 1)) if n > 1 else 0.0
    return _bounded_interval(total / n, _t_half_width(math.sqrt(max(variance, 0.0)), n),
                             low, high)


def mean_interval(values: np.ndarray, low: float | None = None,
                  high: float | None = None) -> tuple[float, float]:
    """The 95% t-interval of the mean of ``values`` (NaNs as :func:`mean_half_width`
    says), kept within ``low`` .. ``high`` (None: unbounded; a count's ``low`` is 0)."""
    mean = float(np.mean(values)) if len(values) else float("nan")
    return _bounded_interval(mean, mean_half_width(values), low, high)


#: The largest exact sign-flip distribution computed (grid cells multiplied); beyond it,
#: the normal approximation of the same distribution, accurate with that many games.
EXACT_SIGN_FLIP_WORK = 4_000_000


def sign_flip_p(values: np.ndarray) -> float:
    """Two-sided p of the paired randomization (sign-flip) test that whole-number
    ``values`` in [-2, 2] are centred on zero: each nonzero value's sign is as likely
    flipped. Exact (by convolving the two binomial parts, values of size 1 and 2) while
    that is cheap, else by the normal approximation of the same distribution (mean 0,
    variance the sum of squares). A game whose value is 0 weighs nothing, so a few games
    that differ are not taken for many: 5 games of +1 among 1,000 give 2 * 0.5**5."""
    values = np.asarray(values, dtype=np.int64)
    total = int(values.sum())
    ones = int(np.count_nonzero(np.abs(values) == 1))
    twos = int(np.count_nonzero(np.abs(values) == 2))
    if ones + twos == 0:
        return 1.0
    if (2 * ones + 1) * (4 * twos + 1) > EXACT_SIGN_FLIP_WORK:
        from scipy.stats import norm

        # a flipped sign moves the sum by twice the value: steps of 2, or of 4 where every
        # value is of size 2; half a step of continuity correction
        half_step = 1 if ones else 2
        corrected = max(abs(total) - half_step, 0) / math.sqrt(ones + 4 * twos)
        return float(min(1.0, 2.0 * norm.sf(corrected)))
    from scipy.stats import binom

    # the sum over all sign flips, on a grid of step 1 from -(ones + 2 twos)
    part_ones = np.zeros(2 * ones + 1)
    part_ones[::2] = binom.pmf(np.arange(ones + 1), ones, 0.5)
    part_twos = np.zeros(4 * twos + 1)
    part_twos[::4] = binom.pmf(np.arange(twos + 1), twos, 0.5)
    pmf = np.convolve(part_ones, part_twos)
    sums = np.arange(len(pmf)) - (ones + 2 * twos)
    return float(min(1.0, pmf[np.abs(sums) >= abs(total)].sum()))


#: The fewest wins, and the fewest losses, each run of a log-odds contrast needs, and the
#: fewest games in which two of its runs of opposite signs must differ: with fewer, the
#: normal approximation of the log odds turns liberal (over 8% at 5% with 8 differing
#: games; tests/test_stats.py measures its error rate).
ODDS_MIN_OUTCOMES = 20
#: A log-odds spread below this is none: a real one over even 10**8 games is above 10**-5.
NO_SPREAD = 1e-9


def log_odds_contrast(wins: list[np.ndarray], signs: list[int]) -> dict[str, float]:
    """A signed sum of the log odds of winning of runs that played the same games,
    as a ratio of odds, with its 95% interval and the two-sided p of no departure from 1.

    ``wins`` holds one bool or 0/1 array per run, each of shape (games,), game i of every
    run the same game; ``signs`` (+1 or -1 each) weighs the runs' log odds. The interval
    and test are Wald's on the log scale, with the delta method's variance taken over the
    games (each game's influence summed over the runs), so that the pairing of the runs'
    games, which can narrow the interval or widen it, is counted as it is. Where no
    game's influence departs from zero (runs that cancel game for game), p is 1 and the
    interval NaN: a spread of zero is no certainty. ``spread`` is the standard error of
    the log of the ratio (0 where no game departs). Every figure is NaN where a run has
    fewer than ``ODDS_MIN_OUTCOMES`` wins or losses, or two runs of opposite signs differ
    in fewer games than that: paired runs carry their contrast in the games they differ
    in, and on a few of them the approximation would mislead. Two runs of opposite signs
    that won the same games (some, not all) cancel exactly, and are left out first: a card
    change that leaves the base game's games alone is weighed on the set's own two runs.
    """
    games = len(wins[0])
    wins, signs = _without_cancelling(wins, signs)
    if not wins:
        return {"ratio": 1.0, "low": math.nan, "high": math.nan, "p": 1.0, "spread": 0.0}
    influence = np.zeros(games)
    log_ratio = 0.0
    for won, sign in zip(wins, signs, strict=True):
        won = np.asarray(won, dtype=float)
        n_won = float(won.sum())
        if min(n_won, games - n_won) < ODDS_MIN_OUTCOMES:
            return dict.fromkeys(ODDS_FIGURES, math.nan)
        rate = n_won / games
        log_ratio += sign * math.log(rate / (1.0 - rate))
        influence += sign * (won - rate) / (rate * (1.0 - rate))
    spread = math.sqrt(float(np.square(influence).sum())) / games
    if spread < NO_SPREAD:  # runs that cancel game for game, up to the floats' rounding
        return {"ratio": math.exp(log_ratio), "low": math.nan, "high": math.nan, "p": 1.0,
                "spread": 0.0}
    if _fewest_differing(wins, signs) < ODDS_MIN_OUTCOMES:
        return dict.fromkeys(ODDS_FIGURES, math.nan)
    return _wald_on_log(log_ratio, spread)


#: What :func:`log_odds_contrast` and :func:`independent_odds_ratio` return.
ODDS_FIGURES = ("ratio", "low", "high", "p", "spread")


def _wald_on_log(log_ratio: float, spread: float) -> dict[str, float]:
    """A ratio from its log and that log's standard error ``spread`` (> 0): its 95%
    interval and the two-sided p of no departure from 1."""
    from scipy.stats import norm

    return {"ratio": math.exp(log_ratio), "low": math.exp(log_ratio - Z95 * spread),
            "high": math.exp(log_ratio + Z95 * spread),
            "p": float(2.0 * norm.sf(abs(log_ratio) / spread)), "spread": spread}


def independent_odds_ratio(first: dict[str, float],
                           second: dict[str, float]) -> dict[str, float]:
    """The ratio of two :func:`log_odds_contrast` results of independent games (other
    seeds, or other games of one seed), first over second, with Wald's interval and p on
    the log scale, the two variances added; NaN where either is; p 1 and no interval
    where neither departs from its games (a spread of zero)."""
    if any(math.isnan(one[key]) for one in (first, second) for key in ("ratio", "spread")):
        return dict.fromkeys(ODDS_FIGURES, math.nan)
    log_ratio = math.log(first["ratio"]) - math.log(second["ratio"])
    spread = math.hypot(first["spread"], second["spread"])
    if spread < NO_SPREAD:
        return {"ratio": math.exp(log_ratio), "low": math.nan, "high": math.nan, "p": 1.0,
                "spread": 0.0}
    return _wald_on_log(log_ratio, spread)


def _without_cancelling(wins: list[np.ndarray],
                        signs: list[int]) -> tuple[list[np.ndarray], list[int]]:
    """``wins`` and ``signs`` without the runs that cancel: each run paired off with a
    later one of the opposite sign that won the same games. A run that won none or all
    of its games has no log odds to cancel, and stays."""
    runs = [np.asarray(won, dtype=bool) for won in wins]
    left = list(range(len(runs)))
    for i in range(len(runs)):
        if i not in left or not 0 < np.count_nonzero(runs[i]) < len(runs[i]):
            continue
        twin = next((j for j in left if j > i and signs[j] != signs[i] and
                     np.array_equal(runs[i], runs[j])), None)
        if twin is not None:
            left.remove(i)
            left.remove(twin)
    return [wins[k] for k in left], [signs[k] for k in left]


def _fewest_differing(wins: list[np.ndarray], signs: list[int]) -> int:
    """The fewest games in which two runs of opposite signs differ (won by one, lost by
    the other), over every such two."""
    return min((int(np.count_nonzero(np.asarray(wins[i], dtype=bool) !=
                                     np.asarray(wins[j], dtype=bool)))
                for i in range(len(wins)) for j in range(i + 1, len(wins))
                if signs[i] != signs[j]), default=len(wins[0]))


def paired_difference(won: np.ndarray, base_won: np.ndarray) -> dict:
    """Win-rate difference of a set against the base game on the same games.

    Returns the games compared, the base game's win rate over them (``base_rate``: with
    ``--precision`` the base game may have played more games than the set, and its rate
    over all of them is another), the discordant counts, the difference, its 95% interval
    for paired proportions (Newcombe's square-and-add) and McNemar's exact p-value.
    """
    n = len(won)
    both = int((won & base_won).sum())
    only_set = int((won & ~base_won).sum())
    only_base = int((base_won & ~won).sum())
    low, high = paired_difference_interval(both, only_set, only_base,
                                           n - both - only_set - only_base)
    return {"paired_games": n, "base_rate": float(base_won.mean()),
            "set_only": only_set, "base_only": only_base,
            "difference": (only_set - only_base) / n, "diff_low": low, "diff_high": high,
            "mcnemar_p": mcnemar_exact(only_set, only_base)}
