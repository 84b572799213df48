"""Ctrl-C while numba compiles the package's kernels: a first one waits for the compile's
end, a second one stops at once, and nothing is held back outside the package's calls."""

from __future__ import annotations

import os
import signal
import time

import pandas as pd
import pytest
from numba.core import event

from analyzer.runner import interrupts
from analyzer.runner.interrupts import COMPILER_LOCK


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


@pytest.fixture
def sigterm_stops():
    """SIGTERM handled as the command line sets it, and left as it was afterwards."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    interrupts.stopping_on_sigterm()
    yield
    signal.signal(signal.SIGTERM, previous)
    interrupts._terminated = False


def _sigterm():
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.05)


def test_a_sigterm_during_a_compile_waits_for_its_end_and_says_sigterm(python_sigint,
                                                                       sigterm_stops, capsys):
    with interrupts.holding():
        event.start_event(COMPILER_LOCK)
        _sigterm()  # recorded, not raised
        with pytest.raises(KeyboardInterrupt):
            event.end_event(COMPILER_LOCK)
    assert interrupts.terminated() and interrupts.stop_word() == "terminated"
    assert "SIGTERM again to stop now" in capsys.readouterr().err


def test_a_sigterm_stops_even_where_ctrl_c_is_ignored(sigterm_stops):
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(KeyboardInterrupt):
            _sigterm()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert interrupts.terminated()


def test_a_sigterm_while_a_local_cluster_starts_waits_for_the_caller(sigterm_stops):
    """Ctrl-C is ignored while the cluster's processes start; a SIGTERM then is held, and
    delivered where the caller can close the cluster."""
    from analyzer.runner.distributed import _ctrl_c_ignored_by_new_processes

    with _ctrl_c_ignored_by_new_processes() as held:
        _sigterm()  # would stop the start half-way
    assert signal.getsignal(signal.SIGTERM) is interrupts._forward_sigterm
    assert not interrupts.terminated()
    with pytest.raises(KeyboardInterrupt):
        held.deliver()
    assert interrupts.terminated()
    held.deliver()  # delivered once


def test_a_second_sigterm_while_a_local_cluster_starts_stops_at_once(sigterm_stops):
    from analyzer.runner.distributed import _ctrl_c_ignored_by_new_processes

    with _ctrl_c_ignored_by_new_processes():
        _sigterm()
        with pytest.raises(KeyboardInterrupt):
            _sigterm()
    assert interrupts.terminated()


class _FakeCluster:
    closed = 0

    def __init__(self, **_options):
        pass

    def close(self):
        _FakeCluster.closed += 1


def test_a_sigterm_to_the_whole_group_during_a_cluster_start_is_a_stop(sigterm_stops,
                                                                        monkeypatch):
    """timeout and batch schedulers signal the process group: the workers die too and the
    cluster's start fails, which is the stop asked for, not a cluster error."""
    from analyzer.runner import distributed

    def failing(**_options):
        _sigterm()
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", failing)
    with pytest.raises(KeyboardInterrupt):
        distributed.DaskExecutor("local:2")
    with pytest.raises(KeyboardInterrupt), distributed.one_cluster("local:2"):
        pass
    assert interrupts.terminated()


def test_a_stop_while_the_client_connects_closes_the_cluster(monkeypatch):
    from analyzer.runner import distributed

    def interrupted(_cluster):
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "LocalCluster", _FakeCluster)
    monkeypatch.setattr(distributed, "Client", interrupted)
    _FakeCluster.closed = 0
    with pytest.raises(KeyboardInterrupt):
        distributed.DaskExecutor("local:2")
    assert _FakeCluster.closed == 1


def test_a_stop_during_the_compile_is_the_same_error_as_one_during_the_games(monkeypatch):
    """A notebook catches RunStopped wherever the Ctrl-C lands: during the first call's
    compile it was a bare KeyboardInterrupt."""
    import analyzer
    from analyzer.errors import RunStopped
    from analyzer.runner import executors

    def stopped_compiling(self, plan):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors.LocalExecutor, "prepare", stopped_compiling)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=10)
    assert stop.value.interrupted
    assert str(stop.value) == "interrupted before any game was played; nothing was saved"


def test_a_stop_while_a_batch_is_set_up_says_where_the_finished_batches_are(tmp_path,
                                                                             monkeypatch):
    """A Ctrl-C while a comparison's batch was set up (its plan made, before any compile)
    came out as a bare KeyboardInterrupt: the terminal said "interrupted" and nothing of
    the batches kept for --resume. A run alone then says nothing was played."""
    import analyzer
    from analyzer.errors import RunStopped
    from analyzer.runner.plan import RunPlan

    real = RunPlan.for_policy
    folder = tmp_path / "c"

    def stopped_setting_up(*args, **kwargs):
        if len(list(folder.glob("results/*.parquet"))) >= 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(RunPlan, "for_policy", stopped_setting_up)
    with pytest.raises(RunStopped) as stop:
        analyzer.compare(sets="base,books", games=20, precision=0.01, max_games=60,
                         out=folder)
    assert stop.value.interrupted
    assert f"the batches finished before them are in {folder / 'results'}; run the same " \
           "command with --resume" in str(stop.value)
    monkeypatch.setattr(RunPlan, "for_policy", _interrupted)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=10)
    assert str(stop.value) == "interrupted; nothing was saved"


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_stop_while_a_resumed_run_compiles_says_its_saved_games_stay(tmp_path,
                                                                       monkeypatch):
    """Resumed, then stopped before the first chunk: the chunks saved before are still
    there, and the message must not send the user to delete them."""
    import analyzer
    from analyzer.errors import ClusterError, RunStopped
    from analyzer.runner import executors

    out = tmp_path / "r.parquet"
    folder = tmp_path / "r.parquet.partial"
    real_prepare = executors.LocalExecutor.prepare
    calls = []

    def stop_after_two_chunks(self, plan, todo, summary_only):
        for index, payload in real_imap(self, plan, todo, summary_only):
            yield index, payload
            calls.append(index)
            if len(calls) == 2:
                raise KeyboardInterrupt

    real_imap = executors.LocalExecutor.imap
    monkeypatch.setattr(executors.LocalExecutor, "imap", stop_after_two_chunks)
    with pytest.raises(RunStopped):
        analyzer.simulate(games=40, chunk=10, workers=1, out=out)
    monkeypatch.setattr(executors.LocalExecutor, "imap", real_imap)

    def stopped_compiling(self, plan):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors.LocalExecutor, "prepare", stopped_compiling)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=40, chunk=10, workers=1, out=out, resume=True)
    assert str(stop.value) == (f"interrupted before any game was played; the games saved "
                               f"before stay in {folder}; run the same command with --resume "
                               "(resume=True in Python) to continue")
    assert stop.value.interrupted and folder.is_dir() and not out.exists()

    def worker_failed(self, plan):  # as a cluster's worker that cannot load the policy
        raise ClusterError("worker tcp://10.0.0.5:4000 cannot play the run's policy: x")

    monkeypatch.setattr(executors.LocalExecutor, "prepare", worker_failed)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=40, chunk=10, workers=1, out=out, resume=True)
    assert str(stop.value) == ("worker tcp://10.0.0.5:4000 cannot play the run's policy: x; "
                               f"stopped before any game was played; the games saved before "
                               f"stay in {folder}; run the same command with --resume "
                               "(resume=True in Python) to continue")
    assert not stop.value.interrupted and folder.is_dir() and not out.exists()
    with pytest.raises(ClusterError):  # nothing saved: the error as it is
        analyzer.simulate(games=40, chunk=10, workers=1, out=tmp_path / "new.parquet")
    assert not (tmp_path / "new.parquet.partial").exists()
    monkeypatch.setattr(executors.LocalExecutor, "prepare", real_prepare)
    resumed = analyzer.simulate(games=40, chunk=10, workers=1, out=out, resume=True)
    pd.testing.assert_frame_equal(resumed, analyzer.simulate(games=40))


def test_after_a_stop_a_further_signal_ends_the_urbion_process_at_once():
    """The process then only waits for the games being played: Ctrl-C or SIGTERM again
    ends it as without a handler (no traceback of a handler called during the exit)."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import atexit, signal, sys\n"
        "import analyzer, cli\n"
        "from analyzer.errors import RunStopped\n"
        "def stopped(**_):\n"
        "    raise RunStopped('interrupted after 0 of 9 games; nothing was saved', True)\n"
        "analyzer.simulate = stopped\n"
        "atexit.register(lambda: print(signal.getsignal(signal.SIGINT) is signal.SIG_DFL,\n"
        "                              signal.getsignal(signal.SIGTERM) is signal.SIG_DFL))\n"
        "sys.argv = ['urbion', 'simulate', '--games', '9']\n"
        "cli.main()\n")
    root = Path(__file__).parents[1]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 130 and done.stdout.strip() == "True True", done.stderr
    assert done.stderr == "urbion: interrupted after 0 of 9 games; nothing was saved\n"


#: A run whose playing threads never return (a policy stuck in a loop: compiled code, which
#: no signal stops), Ctrl-C delivered to one of them, as the system may deliver it.
_STUCK_PLAYERS = """
import signal, sys, threading
import cli
from analyzer.runner import executors
started = threading.Event()

def stuck(plan, first, n):
    started.set()
    threading.Event().wait()

def interrupt_a_player():
    started.wait()
    player = next(t for t in threading.enumerate()
                  if t.name.startswith(executors.PLAYING_THREAD))
    signal.pthread_kill(player.ident, signal.SIGINT)

executors.play_range = stuck
executors.LocalExecutor.prepare = lambda self, plan: None
threading.Thread(target=interrupt_a_player, daemon=True).start()
sys.argv = ["urbion", "simulate", "--games", "100", "--workers", "2", "--quiet"]
cli.main()
"""


def test_ctrl_c_stops_a_run_whose_games_never_end():
    """The main thread waited on a slice without waking: a Ctrl-C the system gave a
    playing thread was never taken, and the exit then waited for threads that never
    end. Only SIGKILL ended the run."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).parents[1]
    done = subprocess.run([sys.executable, "-c", _STUCK_PLAYERS], capture_output=True,
                          text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "urbion: interrupted after 0 of 100 games; nothing was saved\n"


#: The urbion command, as its console script starts it, sent SIGTERM as it imports the
#: package: in its first second, when most of a batch scheduler's stops of a short job come.
_TERM_WHILE_LOADING = """
import builtins, os, signal, sys
sys.argv[0] = os.path.join(os.path.dirname(sys.executable), "urbion")
real_import = builtins.__import__

def importing(name, *args, **kwargs):
    if name == "analyzer":
        os.kill(os.getpid(), signal.SIGTERM)
    return real_import(name, *args, **kwargs)

builtins.__import__ = importing
import cli
cli.main()
"""


def test_a_sigterm_while_the_command_loads_says_nothing_was_saved():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _TERM_WHILE_LOADING, "simulate"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 143
    assert done.stderr == "urbion: terminated before any game was played; nothing was saved\n"
    # imported by a program, cli leaves SIGTERM as that program has it: here the default
    kept = subprocess.run([sys.executable, "-c", _TERM_WHILE_LOADING.replace(
        '"urbion"', '"my_script"'), "simulate"], capture_output=True, text=True, timeout=120)
    assert kept.returncode == -signal.SIGTERM and kept.stderr == ""


def test_a_stop_while_a_resumed_run_reads_its_saved_chunks_says_they_stay(tmp_path,
                                                                           monkeypatch):
    """Reading and checking a million saved games takes seconds; a stop then said
    "nothing was saved", inviting the user to delete them."""
    import analyzer
    from analyzer.errors import RunStopped
    from analyzer.runner import executors
    from analyzer.runner.checkpoint import Checkpoint

    out = tmp_path / "r.parquet"
    real_imap = executors.LocalExecutor.imap

    def stop_after_one_chunk(self, plan, todo, summary_only):
        for index, payload in real_imap(self, plan, todo, summary_only):
            yield index, payload
            raise KeyboardInterrupt

    monkeypatch.setattr(executors.LocalExecutor, "imap", stop_after_one_chunk)
    with pytest.raises(RunStopped):
        analyzer.simulate(games=40, chunk=10, workers=1, out=out)
    monkeypatch.setattr(executors.LocalExecutor, "imap", real_imap)

    def stopped_reading(self, index, first, n):
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "load", stopped_reading)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=40, chunk=10, workers=1, out=out, resume=True)
    assert stop.value.interrupted
    assert str(stop.value) == (f"interrupted before any game was played; the games saved "
                               f"before stay in {out}.partial; run the same command with "
                               "--resume (resume=True in Python) to continue")


def test_ctrl_c_as_a_traced_games_result_comes_back_is_a_stop(monkeypatch, capsys, tmp_path):
    """A traced game runs on the main thread: Ctrl-C landing while numba unboxes its result
    comes out as a SystemError raised from the KeyboardInterrupt, which was printed as a
    traceback blaming the policy."""
    from analyzer.runner import tracing
    from tests.test_cli import run

    real = tracing.one_game_kernel
    calls = []

    def interrupted_kernel(spec):
        kernel = real(spec)

        def play(*args):
            calls.append(1)
            if len(calls) == 3:
                try:
                    raise KeyboardInterrupt
                except KeyboardInterrupt as stop:
                    raise SystemError("<function _numba_unpickle> returned a result with an "
                                      "exception set") from stop
            return kernel(*args)
        return play

    monkeypatch.setattr(tracing, "one_game_kernel", interrupted_kernel)
    out = tmp_path / "t.jsonl"
    code, _, err = run(capsys, "trace", "--games", "5", "--out", str(out), "--quiet")
    assert code == 130 and "Traceback" not in err and "policy" not in err
    assert err == "urbion: interrupted; nothing was saved\n"
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_stop_while_traces_are_written_or_replayed_is_a_run_stopped(tmp_path, monkeypatch):
    """A notebook catches RunStopped wherever the Ctrl-C lands: trace_to_file, stopped
    while it wrote a line, and replay, stopped while it read or checked one, raised a bare
    KeyboardInterrupt. Nothing is left half written, and the next call plays as usual."""
    import json

    import analyzer
    from analyzer.errors import RunStopped
    from analyzer.trace import jsonl

    real = json.dumps
    lines = []

    def stopped_at_the_third(value, *args, **kwargs):
        lines.append(1)
        if len(lines) == 3:
            raise KeyboardInterrupt
        return real(value, *args, **kwargs)

    out = tmp_path / "t.jsonl"
    monkeypatch.setattr(jsonl.json, "dumps", stopped_at_the_third)
    with pytest.raises(RunStopped, match="^interrupted; nothing was saved$"):
        analyzer.trace_to_file(out, games=5)
    assert list(tmp_path.iterdir()) == []
    assert interrupts._holders == 0  # the traced games' own hold ended with the stop
    monkeypatch.setattr(jsonl.json, "dumps", real)
    assert analyzer.trace_to_file(out, games=2) == 2

    from analyzer.analysis import audit

    def stopped_checking(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(audit, "replay", stopped_checking)
    with pytest.raises(RunStopped, match="^interrupted"):
        analyzer.replay(out)
    monkeypatch.setattr(jsonl.Path, "read_text", stopped_checking)
    with pytest.raises(RunStopped, match="^interrupted"):
        analyzer.replay(out)


def test_a_second_ctrl_c_while_the_threads_finish_is_part_of_the_stop(tmp_path, monkeypatch):
    """Ctrl-C as a chunk is saved, then again while the pool waits for the slices being
    played: the second came out of the chunks' iterator as Python let it go, which printed
    "Exception ignored in generator" before the stop's message."""
    import sys

    import analyzer
    from analyzer.errors import RunStopped
    from analyzer.runner import executors
    from analyzer.runner.checkpoint import Checkpoint

    ignored = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)

    class InterruptedJoin(executors.ThreadPoolExecutor):
        def shutdown(self, wait=True, **kwargs):
            super().shutdown(wait, **kwargs)
            raise KeyboardInterrupt

    def stopped_saving(self, index, payload):
        raise KeyboardInterrupt

    monkeypatch.setattr(executors, "ThreadPoolExecutor", InterruptedJoin)
    monkeypatch.setattr(Checkpoint, "save", stopped_saving)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=40, chunk=10, workers=1, out=tmp_path / "r.parquet")
    assert stop.value.interrupted
    assert [hook.exc_type for hook in ignored] == []
