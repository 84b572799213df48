"""Urbion (Second Edition) win-rate analyzer.

Each function is an ``urbion`` command of the same name (``simulate``, ``trace``, ``show``,
``replay``, ``duel``, ``compare``, ``sensitivity``, ``tune``, ``report``; ``card_table``
and ``card_differences`` for ``urbion cards``, ``builtin_policies`` for ``urbion
policies``), with its options as keyword arguments, and returns DataFrames or result
objects whose ``attrs`` name the run. Bad input raises :class:`UrbionError` (one line, as
the command prints it), a stop (Ctrl-C) :class:`RunStopped`, one of its kinds.

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
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.spec import PolicySpec
from analyzer.runner.config import package_version

__version__ = package_version()

__all__ = ["PolicySpec", "RunStopped", "UrbionError", "builtin_policies", "card_differences",
           "card_table", "compare", "duel", "load_cards", "read_results", "replay", "report",
           "sensitivity", "show", "simulate", "simulate_summary", "summarize", "trace",
           "trace_to_file", "tune", "weights_note", "write_card_template"]
