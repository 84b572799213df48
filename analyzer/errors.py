"""Errors a user can cause; the CLI prints them as one line and exits with code 2."""

from __future__ import annotations

from collections.abc import Callable


class UrbionError(Exception):
    """Base class of every error caused by a user's input."""


class PolicyError(UrbionError):
    """An unknown policy, or one that made an illegal decision."""


class ResultsFileError(UrbionError):
    """A results file that cannot be read or written."""


class RunStopped(UrbionError):
    """A run that stopped before its end (Ctrl-C, a lost cluster); says how to resume."""

    def __init__(self, message: str, interrupted: bool) -> None:
        super().__init__(message)
        #: stopped by the user (Ctrl-C): the CLI exits with 130, as shells expect
        self.interrupted = interrupted


class OutputNotWritten(UrbionError):
    """The output of a command that finished its games could not be written (a full disk):
    the result is kept on the error, so that the work is not lost."""

    def __init__(self, reason: str, result: object, text: str = "") -> None:
        super().__init__(f"{reason}; the result is not lost: it is this error's .result"
                         + (", and the file's text its .text" if text else ""))
        #: why the output could not be written, in one line
        self.reason = reason
        #: what the command returns when its output is written
        self.result = result
        #: the text of the file that could not be written, where it is one file
        self.text = text


class OutOfMemory(UrbionError):
    """A call that ran out of memory, in one line saying which of its settings needs less
    (numpy's own error dumps the layout of the array it could not make)."""


def out_of_memory_message(options: set[str], spell: Callable[[str], str]) -> str:
    """What to do when a command or call with these ``options`` (parameter names) ran out
    of memory, each option written by ``spell`` ("--chunk" on the command line, "--chunk
    (chunk=)" in Python): a report has no games to play, a comparison no chunk or
    summary-only run."""
    if "results" in options:
        return "out of memory: fewer or smaller results files need less"
    if "traces" in options:
        return "out of memory: a smaller trace file needs less"
    if "games" not in options:  # one game, or none played: no setting to lower
        return "out of memory: this machine has too little free memory for it"
    ways = ["fewer games", *([f"a smaller {spell('chunk')}"] if "chunk" in options else []),
            *([spell("summary_only")] if "summary_only" in options else [])]
    said = ways[0] if len(ways) == 1 else f"{', '.join(ways[:-1])} or {ways[-1]}"
    return f"out of memory: {said} need less"


class ClusterError(UrbionError):
    """A Dask cluster that cannot be reached or lost the run's tasks."""


#: The note on an exception raised by a call that played a policy (``policies.loader``
#: reads it to tell a user's policy's errors from the tool's).
POLICY_CALL = "urbion: raised while a policy played"


def mark_policy_call(err: BaseException) -> None:
    """Note on ``err``, raised by a call that played a policy, that it was so
    (``policies.loader.policy_failure`` reads it, for a user's policy only)."""
    if POLICY_CALL not in getattr(err, "__notes__", ()):
        err.add_note(POLICY_CALL)
