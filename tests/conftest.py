"""Shared test set-up."""

from __future__ import annotations

import signal

import matplotlib.pyplot as plt
import pytest


@pytest.fixture(autouse=True)
def _no_figure_left_in_pyplot():
    """The charts are built without pyplot, so a notebook's figure list never fills with
    them: a test that leaves one in pyplot's registry found code that put it there."""
    yield
    left = plt.get_fignums()
    plt.close("all")
    assert not left, f"pyplot holds {len(left)} figure(s) the package drew"


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler, as in a terminal, for a test that stops itself with
    SIGINT: a suite started in the background of a non-interactive shell inherits Ctrl-C
    ignored, and the stop would never come."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
