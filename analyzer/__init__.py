"""Urbion (Second Edition) win-rate analyzer.

>>> import analyzer
>>> df = analyzer.simulate(games=1000, seed=0, policy="greedy")   # doctest: +SKIP
"""

from analyzer.analysis.summary import summarize
from analyzer.api import load_cards, show, simulate, simulate_summary, trace

__all__ = ["load_cards", "show", "simulate", "simulate_summary", "summarize", "trace"]
