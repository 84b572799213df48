"""Urbion (Second Edition) win-rate analyzer.

The functions mirror the ``urbion`` commands: ``simulate``, ``trace``, ``show``,
``replay``, ``duel``, ``compare``, ``sensitivity``, ``tune`` and ``report`` are the commands
of those names, ``card_table`` and ``card_differences`` are ``urbion cards`` and
``builtin_policies`` is ``urbion policies``, each with its options as keyword arguments;
``load_cards``, ``read_results``, ``summarize`` and ``weights_note`` help between them.
They return DataFrames or result objects whose ``attrs`` name the run. Bad input raises
:class:`UrbionError` (one line, as the command prints it), a stop (Ctrl-C)
:class:`RunStopped` and running out of memory ``analyzer.errors.OutOfMemory``, two of its
kinds.

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
