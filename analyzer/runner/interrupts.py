"""Ctrl-C while numba compiles: held back until the compile is over, then delivered.

LLVM calls back into Python while it emits machine code (llvmlite's object cache), and a
KeyboardInterrupt raised inside such a callback is printed and dropped: the run would go
on as if Ctrl-C had not been pressed. While numba holds its compiler or LLVM lock in the
main thread, SIGINT is therefore only recorded, and raised again once the lock is let go,
where Python code can stop cleanly.
"""

from __future__ import annotations

import signal
import threading

from numba.core import event

#: The numba events during which a compile may be inside LLVM.
COMPILING_EVENTS = ("numba:compiler_lock", "numba:llvm_lock")


class _Deferral(event.Listener):
    """Counts nested compile locks taken by the main thread; holds SIGINT back meanwhile."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False
        self.previous = None

    def on_start(self, _event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth += 1
        if self.depth == 1:
            self.previous = signal.getsignal(signal.SIGINT)
            if self.previous is signal.default_int_handler:  # ignored or custom: left alone
                signal.signal(signal.SIGINT, self._record)

    def on_end(self, _event) -> None:
        if threading.current_thread() is not threading.main_thread() or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0:
            if self.previous is signal.default_int_handler:
                signal.signal(signal.SIGINT, self.previous)
            if self.pending:
                self.pending = False
                signal.raise_signal(signal.SIGINT)  # raised at the next line of Python

    def _record(self, _signum, _frame) -> None:
        self.pending = True


_deferral: _Deferral | None = None


def defer_interrupts_while_compiling() -> None:
    """Hold Ctrl-C back while numba compiles in the main thread (idempotent)."""
    global _deferral
    if _deferral is None:
        _deferral = _Deferral()
        for kind in COMPILING_EVENTS:
            event.register(kind, _deferral)
