"""Urbion (Second Edition) win-rate analyzer.

>>> import analyzer
>>> df = analyzer.simulate(games=1000, seed=0, policy="greedy")   # doctest: +SKIP
"""

from analyzer.analysis.summary import summarize
from analyzer.api import (
    builtin_policies,
    card_differences,
    card_table,
    compare,
    duel,
    load_cards,
    read_results,
    replay,
    report,
    sensitivity,
    show,
    simulate,
    simulate_summary,
    trace,
    trace_to_file,
    tune,
    weights_note,
    write_card_template,
)
from analyzer.policies.spec import PolicySpec

__all__ = ["PolicySpec", "builtin_policies", "card_differences", "card_table", "compare",
           "duel", "load_cards", "read_results", "replay", "report", "sensitivity", "show",
           "simulate", "simulate_summary", "summarize", "trace", "trace_to_file", "tune",
           "weights_note", "write_card_template"]
