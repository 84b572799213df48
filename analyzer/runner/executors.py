"""Where chunks are played: threads of this process, or a Dask cluster."""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Protocol

import numpy as np

from analyzer.core.jit import note_cache_off
from analyzer.errors import UrbionError
from analyzer.runner.chunks import payload_of, play_range, prepare_kernels, slices
from analyzer.runner.plan import RunPlan


class Executor(Protocol):
    """Plays chunks of a plan and yields ``(index, payload)`` as each one finishes; the
    caller closes what ``imap`` returns, so that its clean-up runs where a stop is caught."""

    def prepare(self, plan: RunPlan) -> None: ...

    def imap(self, plan: RunPlan, indices: Iterable[int],
             summary_only: bool) -> Generator[tuple[int, np.ndarray], None, None]: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...


class LocalExecutor:
    """Chunks on a pool of GIL-free threads of this process.

    Each chunk is cut into one slice per thread so that a short run still uses every core,
    and slices of the next chunks are queued behind, so no thread waits for the others at
    the end of a chunk. A few chunks are in flight at once, which bounds memory.
    """

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def prepare(self, plan: RunPlan) -> None:
        """Compile or load the kernels in this process, saying once if they cannot be
        kept on disk (a Dask worker, which prepares its own, says nothing)."""
        if plan.engine == "fast" and plan.policy_spec().cacheable:
            note_cache_off()
        prepare_kernels(plan)

    def imap(self, plan: RunPlan, indices: Iterable[int],
             summary_only: bool) -> Generator[tuple[int, np.ndarray], None, None]:
        window = 2 * self.threads
        pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix=PLAYING_THREAD)
        pending: deque[tuple[int, list[Future]]] = deque()
        finished = False
        try:
            with self._starting_threads():
                for index in indices:
                    pending.append((index, [pool.submit(play_range, plan, first, n)
                                            for first, n in slices(plan, index,
                                                                   self.threads)]))
                    if len(pending) >= window:
                        yield self._finish(pending.popleft(), summary_only)
                while pending:
                    yield self._finish(pending.popleft(), summary_only)
            finished = True
        finally:
            # a stop waits for no slice in play, whose games are not kept: compiled code
            # cannot be stopped, and a policy that never returns would hold the run for good
            pool.shutdown(wait=finished, cancel_futures=True)

    @contextmanager
    def _starting_threads(self) -> Iterator[None]:
        """A system that cannot start that many threads (a memory limit) is a user's
        setting to change: one line, not a traceback."""
        try:
            yield
        except RuntimeError as err:
            if "can't start new thread" not in str(err):
                raise
            raise UrbionError(f"cannot start {self.threads} threads here ({err}): give "
                              "fewer --workers (workers= in Python)") from None

    @staticmethod
    def _finish(item: tuple[int, list[Future]],
                summary_only: bool) -> tuple[int, np.ndarray]:
        index, futures = item
        results = np.concatenate([_result(future) for future in futures])
        return index, payload_of(results, summary_only)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        """Where the games were played, for the results: "2 threads"."""
        return f"{self.threads} thread{'s' if self.threads != 1 else ''}"


#: The name the threads that play a run's games start with.
PLAYING_THREAD = "urbion-playing"
#: How long the main thread waits on a slice at a time: it wakes to take a Ctrl-C or SIGTERM
#: that the system gave a playing thread, which Python hands on only as it wakes.
WAKE_SECONDS = 0.25


def _result(future: Future) -> np.ndarray:
    """``future.result()``, waited for in short spells so that a stop is taken at once."""
    while True:
        try:
            return future.result(timeout=WAKE_SECONDS)
        except FutureTimeout:
            continue


def make_executor(scheduler: str | None, workers: int | None) -> Executor:
    """A Dask executor for ``scheduler`` (``tcp://HOST:PORT`` or ``local:N``), else local."""
    if scheduler:
        from analyzer.runner.distributed import DaskExecutor

        return DaskExecutor(scheduler)
    return LocalExecutor(local_threads(workers))


def local_threads(workers: int | None) -> int:
    """The threads a local run plays on: ``workers``, or by default every core."""
    from analyzer.runner.local import default_workers

    return max(1, workers or default_workers())
