"""``urbion report``: a balance report of results files or frames."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analyzer import arguments
from analyzer.api.common import memory_in_one_line, stopped_once_written
from analyzer.errors import UrbionError


@memory_in_one_line
def report(results: str | Path | pd.DataFrame
           | list[str | Path | pd.DataFrame] | tuple[str | Path | pd.DataFrame, ...],
           out: str | Path, baseline: str | None = "first") -> Path:
    """Write a balance report of one or more results files (``simulate --out``; one path or
    a list), frames ``simulate`` returned (checked as files are), or summary files of
    ``--summary-only`` runs (what their totals give), into the folder ``out``: index.html
    (self-contained), report.md, PNG and SVG charts, and each chart's numbers as a CSV
    file beside it.

    Parameters
    ----------
    baseline : {"first", "base"}, optional
        What each run's difference is taken from: the first run given (None: the same), or
        the base game among the runs that is played alike but for the expansions (the
        same policy, card set, variant, rules, code, seed and engine): several
        comparisons' results in one report, each set weighed against its own base game,
        and a set played against two base games tested for changing their odds of
        winning alike (``effects.csv``).

    Returns
    -------
    pathlib.Path
        The report folder.
    """
    from analyzer.reporting.balance_report import write_report
    from analyzer.reporting.differences import BASELINES

    if isinstance(results, str | Path | pd.DataFrame):
        results = [results]
    if not isinstance(results, list | tuple):
        raise UrbionError("results must be a list of results files or frames, not "
                          f"{arguments.kind_of(results)}")
    paths = [item if isinstance(item, pd.DataFrame) else
             arguments.path("results file", item, optional=False) for item in results]
    folder = arguments.path("out", out, optional=False)
    baseline = "first" if baseline is None else \
        arguments.choice("baseline", baseline, BASELINES)
    try:
        return write_report(paths, folder, baseline)
    except KeyboardInterrupt as stop:
        raise stopped_once_written(stop, folder, "the report") from None
