"""Ctrl-C while numba compiles the package's kernels: held back until the compile is over.

LLVM calls back into Python while it emits machine code (llvmlite's object cache), and a
KeyboardInterrupt raised inside such a callback is printed and dropped: the run would go
on as if Ctrl-C had not been pressed. While a package call is running (``holding``) and
numba holds its compiler lock in the main thread, a first SIGINT is therefore only
recorded, and raised again once the lock is let go, where Python code can stop cleanly. A
second SIGINT during the same compile is not held back: it stops at once (and may, rarely,
be dropped as before).

Only numba's compiler lock is watched: its end event comes after the lock is released, so
raising then leaves no lock held (llvmlite's own lock signals its end before releasing).

SIGTERM (a job scheduler's stop, ``timeout``, ``kill``) stops a command the way Ctrl-C does,
once ``stopping_on_sigterm`` is in place: the games finished so far stay saved for
``--resume`` and no output file is left half written. Such a stop is called "terminated".
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from numba.core import event

from analyzer.errors import RunStopped

COMPILER_LOCK = "numba:compiler_lock"


class _Deferral(event.Listener):
    """Counts nested compiler locks taken by the main thread; holds SIGINT back meanwhile."""

    def __init__(self) -> None:
        self.depth = 0
        self.pending = False
        self.installed = False

    def on_start(self, _event: event.Event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth += 1
        # only Python's own handler is replaced: an ignored or custom one is left alone
        if self.depth == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._record)
            self.installed = True

    def on_end(self, _event: event.Event) -> None:
        if threading.current_thread() is not threading.main_thread() or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0:
            self._restore()
            if self.pending:
                self.pending = False
                raise KeyboardInterrupt

    def _restore(self) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self.installed = False

    def _record(self, signum: int, _frame: FrameType | None) -> None:
        if self.pending:  # pressed again: stop now
            self.pending = False
            self._restore()
            raise KeyboardInterrupt
        self.pending = True
        again = "SIGTERM" if signum == signal.SIGTERM else "Ctrl-C"
        sys.stderr.write(f"\nstopping once the compile in progress ends ({again} again to "
                         "stop now)\n")


_deferral = _Deferral()
_terminated = False
#: What ``stop_word`` may return.
STOP_WORDS = ("interrupted", "terminated")


def interrupted_inside(err: BaseException) -> bool:
    """Whether ``err`` is Ctrl-C (or SIGTERM) arriving while compiled code called back into
    Python: numba, unboxing a kernel's result, reports it as a SystemError ("returned a
    result with an exception set") raised from the KeyboardInterrupt."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


def stop_word() -> str:
    """How the command was stopped by a signal: "terminated" after SIGTERM, else
    "interrupted" (Ctrl-C)."""
    return "terminated" if _terminated else "interrupted"


def terminated() -> bool:
    """True once SIGTERM has stopped the command."""
    return _terminated


def _forward_sigterm(_signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    # held back during a compile as Ctrl-C is; a SIGINT ignored (a background job of a
    # script) does not make SIGTERM ignored
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGTERM, frame)
    else:
        raise KeyboardInterrupt


def stopping_on_sigterm() -> None:
    """Make SIGTERM stop the process as Ctrl-C does (main thread; a handler already set by
    the caller's environment is left alone)."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _forward_sigterm)


_holders = 0


#: How a stop that saved nothing ends its message (the runner's and the API's alike).
NOTHING_SAVED = "nothing was saved"


@contextmanager
def holding() -> Iterator[None]:
    """While the body runs, hold a first Ctrl-C back during numba compiles in the main
    thread (re-entrant: nested package calls share one listener). A stop that reaches the
    body's end as KeyboardInterrupt (during a compile, say, before any game is played)
    leaves it as RunStopped, as a stop during the games does: a caller catches one kind."""
    global _holders
    if _holders == 0:
        event.register(COMPILER_LOCK, _deferral)
    _holders += 1
    try:
        yield
    except KeyboardInterrupt:
        raise RunStopped(f"{stop_word()}; {NOTHING_SAVED}", True) from None
    finally:
        _holders -= 1
        if _holders == 0:
            event.unregister(COMPILER_LOCK, _deferral)


class HeldSigterm:
    """A SIGTERM held back by :func:`sigterm_held`, to deliver where the caller can clean
    up what the held stretch started."""

    def __init__(self) -> None:
        self.came = False

    def deliver(self) -> None:
        """Stop now, as SIGTERM does, if one came while held."""
        if self.came:
            global _terminated
            self.came = False
            _terminated = True
            raise KeyboardInterrupt


@contextmanager
def sigterm_held() -> Iterator[HeldSigterm]:
    """While the body runs (a local cluster starting, with Ctrl-C ignored so that its
    processes ignore it), hold a first SIGTERM back; the caller delivers it (``deliver``)
    once it can close what the body started. A second one stops at once."""
    held = HeldSigterm()
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not _forward_sigterm:
        yield held
        return

    def hold(_signum: int, _frame: FrameType | None) -> None:
        if held.came:  # sent again: stop now, as a second Ctrl-C during a compile does
            held.deliver()
        held.came = True

    signal.signal(signal.SIGTERM, hold)
    try:
        yield held
    finally:
        signal.signal(signal.SIGTERM, _forward_sigterm)
