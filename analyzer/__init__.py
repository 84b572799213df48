"""Urbion (Second Edition) win-rate analyzer.

>>> import analyzer
>>> df = analyzer.simulate(games=1000, seed=0, policy="greedy")   # doctest: +SKIP
"""

from analyzer.analysis.summary import summarize
from analyzer.api import (
    compare,
    duel,
    load_cards,
    replay,
    report,
    sensitivity,
    show,
    simulate,
    simulate_summary,
    trace,
    tune,
)

__all__ = ["compare", "duel", "load_cards", "replay", "report", "sensitivity", "show",
           "simulate", "simulate_summary", "summarize", "trace", "tune"]
