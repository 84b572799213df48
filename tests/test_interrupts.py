"""Ctrl-C while numba compiles the package's kernels: a first one waits for the compile's
end, a second one stops at once, and nothing is held back outside the package's calls."""

from __future__ import annotations

import os
import signal
import time

import pytest
from numba.core import event

from analyzer.runner import interrupts
from analyzer.runner.interrupts import COMPILER_LOCK


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler, as in a terminal (a test worker may have another)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs at the next line of Python


def test_a_first_ctrl_c_during_a_compile_waits_for_its_end(python_sigint, capsys):
    with interrupts.holding():
        event.start_event(COMPILER_LOCK)
        _ctrl_c()  # recorded, not raised
        with pytest.raises(KeyboardInterrupt):
            event.end_event(COMPILER_LOCK)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert "Ctrl-C again to stop now" in capsys.readouterr().err


def test_a_second_ctrl_c_during_a_compile_stops_at_once(python_sigint):
    with interrupts.holding():
        event.start_event(COMPILER_LOCK)
        try:
            _ctrl_c()
            with pytest.raises(KeyboardInterrupt):
                _ctrl_c()
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        finally:
            event.end_event(COMPILER_LOCK)  # nothing pending any more: no second raise


def test_compiles_outside_the_packages_calls_are_left_alone(python_sigint):
    with interrupts.holding(), interrupts.holding():  # nested calls share one listener
        pass
    event.start_event(COMPILER_LOCK)
    try:
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()
    finally:
        event.end_event(COMPILER_LOCK)
