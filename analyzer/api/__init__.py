"""The public Python API; every CLI command is a thin call to one of these.

One module per command or family of commands (``simulation``, ``single_games``,
``duels``, ``comparisons``, ``sensitivity_runs``, ``reports``, ``card_sets``), the result
objects they return (``results``), the batches ``compare`` and ``sensitivity`` keep in a
folder (``batches``), and the checks they all share (``common``).
"""

from analyzer.analysis.summary import summarize
from analyzer.api.card_sets import (
    builtin_policies,
    card_differences,
    card_table,
    read_results,
    weights_note,
    write_card_template,
)
from analyzer.api.common import Cards, Expansions, load_cards
from analyzer.api.comparisons import compare
from analyzer.api.duels import duel, tune
from analyzer.api.reports import report
from analyzer.api.results import (
    CardChangeResult,
    CompareResult,
    DuelResult,
    SensitivityResult,
    TuneResult,
)
from analyzer.api.sensitivity_runs import sensitivity
from analyzer.api.simulation import results_frame, simulate, simulate_summary
from analyzer.api.single_games import (
    MAX_TRACES_HELD,
    WON_SEARCH_GAMES,
    replay,
    show,
    trace,
    trace_to_file,
)

__all__ = ["CardChangeResult", "Cards", "CompareResult", "DuelResult", "Expansions",
           "MAX_TRACES_HELD", "SensitivityResult", "TuneResult", "WON_SEARCH_GAMES",
           "builtin_policies", "card_differences", "card_table", "compare", "duel", "load_cards",
           "read_results", "replay", "report", "results_frame", "sensitivity", "show", "simulate",
           "simulate_summary", "summarize", "trace", "trace_to_file", "tune", "weights_note",
           "write_card_template"]
