"""A whole run: the chunks not yet saved, played by an executor, kept, counted, shown."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import numpy as np

from analyzer.cards import CardSet
from analyzer.errors import ClusterError, RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.runner import interrupts
from analyzer.runner.checkpoint import Checkpoint
from analyzer.runner.executors import Executor, make_executor
from analyzer.runner.plan import RunPlan
from analyzer.runner.progress import clearing_on_error, progress_bar
from analyzer.runner.results import RESULT_DTYPE
from analyzer.runner.tally import empty_tally


class _Collector:
    """Chunk payloads put in place in game order, or folded into one tally as they come."""

    def __init__(self, plan: RunPlan, summary_only: bool) -> None:
        self.plan, self.summary_only = plan, summary_only
        self.tally = empty_tally()
        # each chunk is copied to its place as it comes: no list of chunks to join at the
        # end, which would hold every game twice
        self.results = np.empty(0 if summary_only else plan.games, dtype=RESULT_DTYPE)
        self.filled = 0

    def add(self, index: int, payload: np.ndarray) -> None:
        if self.summary_only:
            self.tally += payload  # nothing per game is kept: memory stays bounded
        else:
            first, _ = self.plan.chunk_games(index)
            start = first - self.plan.first_game
            self.results[start:start + len(payload)] = payload
            self.filled += len(payload)

    def result(self) -> np.ndarray:
        if self.summary_only:
            return self.tally
        if self.filled != len(self.results):  # every chunk comes once, or the run stops
            raise RuntimeError(f"{self.filled} games collected of {len(self.results)}")
        return self.results


def execute(plan: RunPlan, executor: Executor, summary_only: bool = False,
            checkpoint: Checkpoint | None = None,
            progress: bool = False) -> tuple[np.ndarray, int]:
    """Play every chunk of ``plan`` not already in ``checkpoint``.

    Returns
    -------
    payload : numpy.ndarray
        The per-game results (RESULT_DTYPE, game order), or with ``summary_only`` the run's
        tally (int64, shape (TALLY_SIZE,)).
    resumed : int
        Games taken from the checkpoint rather than played.

    Raises
    ------
    RunStopped
        On Ctrl-C, a failure of the cluster or memory running out; the chunks finished so
        far stay saved.
    """
    collector = _Collector(plan, summary_only)
    loaded, saved_games = _load_saved(plan, checkpoint, collector)
    done = saved_games
    # saved games as done from the start, not as games played this second: the rate and
    # the time left count this run's games only
    bar = progress_bar(plan.games, progress, initial=saved_games)
    try:
        # closed here, not when Python lets it go: its clean-up (the playing threads let
        # go, their slices not waited for) runs where the stop is caught
        with clearing_on_error(bar), closing(executor.imap(
                plan, _unplayed(plan.n_chunks, loaded), summary_only)) as chunks:
            for index, payload in chunks:
                if checkpoint:
                    try:
                        checkpoint.save(index, payload)
                    except UrbionError as err:  # a full disk, say: what is saved can resume
                        raise RunStopped(_stopped(str(err), done, plan, checkpoint),
                                         False) from None
                collector.add(index, payload)
                done += plan.chunk_games(index)[1]
                bar.update(plan.chunk_games(index)[1])
    except KeyboardInterrupt:
        raise RunStopped(_stopped(interrupts.stop_word(), done, plan, checkpoint), True) \
            from None
    except ClusterError as err:
        raise RunStopped(_stopped(str(err), done, plan, checkpoint), False) from None
    except MemoryError:
        raise RunStopped(_out_of_memory(done, plan, checkpoint), False) from None
    return collector.result(), saved_games


def _load_saved(plan: RunPlan, checkpoint: Checkpoint | None,
                collector: _Collector) -> tuple[np.ndarray, int]:
    """Add every whole chunk ``checkpoint`` holds to ``collector``.

    Returns
    -------
    loaded : numpy.ndarray
        The chunks read back (int64, ascending); every other chunk is to play.
    saved_games : int
        The games they hold.
    """
    loaded, saved_games = np.zeros(0, dtype=np.int64), 0
    if not checkpoint:
        return loaded, saved_games
    try:  # reading a long run's chunks takes seconds, a stop meanwhile loses none
        saved = checkpoint.saved_chunks(plan.n_chunks)
        whole = np.zeros(len(saved), dtype=bool)
        for k, index in enumerate(saved.tolist()):
            payload = checkpoint.load(index, *plan.chunk_games(index))
            if payload is not None:
                collector.add(index, payload)
                saved_games += plan.chunk_games(index)[1]
                whole[k] = True
        loaded = saved[whole]
    except KeyboardInterrupt:
        raise RunStopped(stopped_before_playing(checkpoint), True) from None
    except MemoryError:
        raise RunStopped(stopped_before_playing(
            checkpoint, "out of memory reading the saved games (a machine with more can "
                        "resume them)"), False) from None
    return loaded, saved_games


def _out_of_memory(done: int, plan: RunPlan, checkpoint: Checkpoint | None) -> str:
    """Why a run stopped when memory ran out playing, with what to change to resume it."""
    saved = checkpoint is not None and checkpoint.opened
    # a resume keeps the chunk size, which the saved chunks are cut to
    advice = (" with the same --chunk, which may run out again; a smaller --chunk "
              "starts afresh") if saved else ": a smaller --chunk needs less"
    return _stopped(f"out of memory playing chunks of {plan.chunk:,} games", done, plan,
                    checkpoint) + advice


def _unplayed(n_chunks: int, loaded: np.ndarray) -> Iterator[int]:
    """The chunk indices below ``n_chunks`` not in ``loaded`` (ascending), one at a time:
    no list as long as a very long run has chunks."""
    skip = iter(loaded)
    next_loaded = int(next(skip, n_chunks))
    for index in range(n_chunks):
        if index == next_loaded:
            next_loaded = int(next(skip, n_chunks))
            continue
        yield index


#: How a stopped run's message ends when it saved none of its games.
NOTHING_SAVED = interrupts.NOTHING_SAVED


def _stopped(why: str, done: int, plan: RunPlan, checkpoint: Checkpoint | None) -> str:
    if checkpoint is None or not checkpoint.opened:
        # an error's own message ends in its reason: "after" would read as part of it
        stop = " after" if why in interrupts.STOP_WORDS else "; stopped after"
        return f"{why}{stop} {done:,} of {plan.games:,} games; {NOTHING_SAVED}"
    return (f"{why}: {done:,} of {plan.games:,} games saved in {checkpoint.folder}; run the "
            "same command with --resume (resume=True in Python) to continue")


def stopped_before_playing(checkpoint: Checkpoint | None, why: str | None = None) -> str:
    """What a stop before the first chunk (while the kernels compile, or a cluster's
    worker failed to prepare, ``why``) leaves: the games a resumed run had saved stay, to
    resume again."""
    # a reason of its own ends in its words: "before" would read as part of it
    when = " before" if why is None else "; stopped before"
    why = why or interrupts.stop_word()
    if checkpoint is None or not checkpoint.opened:
        return f"{why}{when} any game was played; {NOTHING_SAVED}"
    return (f"{why}{when} any game was played; the games saved before stay in "
            f"{checkpoint.folder}; run the same command with --resume (resume=True in "
            "Python) to continue")


def run_fast(card_set: CardSet, policy: PolicySpec, seed: int, games: int, first_game: int = 0,
             workers: int | None = None, chunk: int | None = None) -> np.ndarray:
    """Games ``first_game ..`` of batch ``seed`` on the fast engine, on this machine's
    threads; structured results (RESULT_DTYPE). Results depend only on (seed, game), never
    on ``workers`` or ``chunk``."""
    plan = RunPlan.for_policy(card_set, policy, seed, games, first_game, "fast", chunk)
    results, _ = execute(plan, make_executor(None, workers))
    return results
