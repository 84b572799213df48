"""Where chunks are played: threads of this process, or a Dask cluster."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import numpy as np

from analyzer.runner.chunks import chunk_payload, prepare_kernels
from analyzer.runner.plan import RunPlan


class Executor(Protocol):
    """Plays chunks of a plan and yields ``(index, payload)`` as each one finishes."""

    def prepare(self, plan: RunPlan) -> None: ...

    def imap(self, plan: RunPlan, indices: list[int],
             summary_only: bool) -> Iterator[tuple[int, np.ndarray]]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Chunks one after another, each spread over ``threads`` GIL-free threads."""

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def prepare(self, plan: RunPlan) -> None:
        """Compile or load the kernels in this process."""
        prepare_kernels(plan)

    def imap(self, plan: RunPlan, indices: list[int],
             summary_only: bool) -> Iterator[tuple[int, np.ndarray]]:
        for index in indices:
            yield index, chunk_payload(plan, index, summary_only, self.threads)

    def close(self) -> None:
        pass


def make_executor(scheduler: str | None, workers: int | None) -> Executor:
    """A Dask executor for ``scheduler`` (``tcp://HOST:PORT`` or ``local:N``), else local."""
    if scheduler:
        from analyzer.runner.distributed import DaskExecutor

        return DaskExecutor(scheduler)
    from analyzer.runner.local import default_workers

    return LocalExecutor(max(1, workers or default_workers()))
