"""Shared test set-up."""

from __future__ import annotations

import pytest

from analyzer.reporting.charts import plt  # with the files-only backend charts sets


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the charts a test drew and kept: the API returns figures open, as a notebook
    wants them, and one worker's tests would otherwise pile them up."""
    yield
    plt.close("all")
