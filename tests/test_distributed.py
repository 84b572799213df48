"""Dask runs: the same results, row for row, as a local run; a lost worker loses nothing."""

from __future__ import annotations

import logging
import os
import pickle
import signal

import numpy as np
import pandas as pd
import pytest
from distributed import LocalCluster

import analyzer
from analyzer.cards import default_card_set
from analyzer.errors import ClusterError, PolicyError, UrbionError
from analyzer.policies.registry import PolicySpec, resolve_policy
from analyzer.runner import distributed as dask_runner
from analyzer.runner.distributed import DaskExecutor
from analyzer.runner.plan import RunPlan
from analyzer.runner.run import execute, run_fast


def rows(df):
    return df.reset_index(drop=True).to_records(index=False)


@pytest.fixture(scope="module")
def cluster():
    # no client of its own: each run connects one, as a user's would
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.CRITICAL) as local:
        yield local


def test_local_cluster_of_two_processes_equals_the_local_runner(cluster):
    local = cluster
    on_dask = analyzer.simulate(games=6000, seed=5, scheduler=local.scheduler_address,
                                chunk=700)
    here = analyzer.simulate(games=6000, seed=5, workers=2)
    assert np.array_equal(rows(on_dask), rows(here))
    summary = analyzer.simulate_summary(games=6000, seed=5, chunk=700,
                                        scheduler=local.scheduler_address)
    assert summary["wins"] == int(here["won"].sum())


def test_sensitivity_plays_every_card_set_on_the_cluster(cluster, capsys):
    """--scheduler: each variant's games are those the local threads play."""
    from tests.test_cli import run

    on_dask = analyzer.sensitivity(games=300, seed=3, scheduler=cluster.scheduler_address)
    here = analyzer.sensitivity(games=300, seed=3, workers=2)
    pd.testing.assert_frame_equal(on_dask.table, here.table)
    code, out, err = run(capsys, "sensitivity", "--games", "20", "--workers", "2",
                         "--scheduler", "local:1", "--quiet")
    assert code == 2 and "no effect with --scheduler" in err and err.count("\n") == 1
    code, out, err = run(capsys, "sensitivity", "--games", "20", "--scheduler", "bogus")
    assert code == 2 and "expected tcp://HOST:PORT, HOST:PORT or local:N" in err


def test_a_command_of_many_runs_starts_one_local_cluster_for_all(monkeypatch):
    """duel, compare and sensitivity with local:N: one cluster of N processes for all their
    runs, not one per policy or card set (each start costs seconds)."""
    import analyzer.runner.distributed as dist

    started = []
    real = dist.LocalCluster

    def counted(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(dist, "LocalCluster", counted)
    duel = analyzer.duel("greedy,random", games=50, seed=1, scheduler="local:1")
    assert len(started) == 1
    here = analyzer.duel("greedy,random", games=50, seed=1)
    pd.testing.assert_frame_equal(duel.pairs, here.pairs)
    analyzer.compare(sets="base,books", games=30, scheduler="local:1")
    assert len(started) == 2


def test_scheduler_local_n_starts_its_own_cluster():
    on_dask = analyzer.simulate(games=900, seed=2, policy="random", scheduler="local:2",
                                chunk=200)
    here = analyzer.simulate(games=900, seed=2, policy="random", workers=1)
    assert np.array_equal(rows(on_dask), rows(here))
    # the results say how they were played, which their speed depends on
    assert (on_dask.attrs["played_on"], on_dask.attrs["chunk"]) == \
        ("a local Dask cluster of 2 processes", 200)
    assert (here.attrs["played_on"], here.attrs["chunk"]) == ("1 thread", 20_000)


def test_a_run_on_a_scheduler_names_it_and_its_workers(cluster, capsys):
    from tests.test_cli import run

    code, out, err = run(capsys, "simulate", "--games", "300", "--scheduler",
                         cluster.scheduler_address, "--quiet")
    assert code == 0, err
    assert f"games/s on a Dask cluster at {cluster.scheduler_address}, 2 workers (" in out


class AfterFirstChunk:
    """Wraps the Dask executor; calls ``mishap()`` once the first chunk is in."""

    def __init__(self, inner: DaskExecutor, mishap) -> None:
        self.inner, self.mishap = inner, mishap

    def imap(self, plan, indices, summary_only):
        for k, item in enumerate(self.inner.imap(plan, indices, summary_only)):
            if k == 0:
                self.mishap()
            yield item

    def close(self):
        pass


def test_a_dask_run_hands_the_scheduler_a_few_chunks_at_a_time(cluster):
    """A run of half a million chunks must not submit them all at once (client and
    scheduler memory grow with every task): at most the window is outstanding, and every
    chunk still comes back once, with the results of a local run."""
    executor = DaskExecutor(cluster.scheduler_address)
    plan = RunPlan(default_card_set(), "random", 3, 6_000, chunk=100)  # 60 chunks
    submit, submitted, outstanding = executor.client.submit, [], []
    executor.client.submit = lambda *a, **k: submitted.append(1) or submit(*a, **k)
    try:
        window = executor.window()
        payloads = {}
        for index, payload in executor.imap(plan, range(plan.n_chunks), False):
            payloads[index] = payload
            outstanding.append(len(submitted) - len(payloads))  # in the scheduler's hands
    finally:
        executor.close()
    assert window == 8  # two workers of one thread: the floor
    assert len(submitted) == plan.n_chunks == 60 and sorted(payloads) == list(range(60))
    assert max(outstanding) <= window
    here = run_fast(plan.card_set, plan.policy_spec(), 3, 6_000)
    assert np.array_equal(np.concatenate([payloads[i] for i in range(60)]), here)


def test_a_worker_killed_during_a_run_changes_nothing(cluster):
    executor = DaskExecutor(cluster.scheduler_address)
    victim = next(iter(executor.client.run(os.getpid).values()))
    plan = RunPlan(default_card_set(), "greedy", 13, 60_000, chunk=3000)
    try:
        results, _ = execute(plan, AfterFirstChunk(
            executor, lambda: os.kill(victim, signal.SIGKILL)))
    finally:
        executor.close()
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)  # the worker really died mid-run
    here = run_fast(plan.card_set, plan.policy_spec(), 13, 60_000)
    assert np.array_equal(results, here)


def test_bad_scheduler_addresses_are_one_line_errors(monkeypatch):
    with pytest.raises(UrbionError, match="expected tcp://HOST:PORT, HOST:PORT or local:N"):
        analyzer.simulate(games=10, scheduler="bogus")
    with pytest.raises(UrbionError, match="local:N with N >= 1"):
        analyzer.simulate(games=10, scheduler="local:0")
    # a port nothing listens at is refused as such (at once), not as Dask's timeout
    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", "3s")
    with pytest.raises(UrbionError, match="cannot reach the Dask scheduler "
                                          "tcp://127.0.0.1:1: nothing listens there"):
        analyzer.simulate(games=10, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(UrbionError, match="no effect with --scheduler"):
        analyzer.simulate(games=10, workers=2, scheduler="local:1")
    with pytest.raises(UrbionError, match="no effect with --scheduler"):
        analyzer.compare(sets="base", games=10, workers=2, scheduler="local:1")


def test_a_worker_refuses_a_policy_that_differs_from_the_runs(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nTURN = 7.0\n")
    plan = RunPlan.for_policy(default_card_set(), resolve_policy(f"weighted:{path}"), 1, 10)
    shipped = pickle.loads(pickle.dumps(plan))  # as a worker receives it
    path.write_text("[weights]\nTURN = 9.0\n")  # the file differs where the worker reads it
    # a worker's own problem, which the saved games outlive (ClusterError keeps them)
    with pytest.raises(ClusterError, match="^a worker on host .* cannot play the run's "
                                           "policy: .*not the one the run started with"):
        shipped.policy_spec()
    path.unlink()
    with pytest.raises(ClusterError, match="cannot play the run's policy: cannot read "
                                           "weights file"):
        pickle.loads(pickle.dumps(plan)).policy_spec()


def test_a_worker_with_other_code_refuses_to_play():
    import subprocess
    import sys
    from dataclasses import replace
    from pathlib import Path


    plan = RunPlan.for_policy(default_card_set(), resolve_policy("greedy"), 1, 10)
    # another process of this checkout, as a worker is, reads the same code
    fresh = subprocess.run([sys.executable, "-c", "from analyzer.runner.plan import "
                            "playing_code; print(playing_code())"], capture_output=True,
                           text=True, check=True, cwd="/",
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert plan.code == fresh.stdout.strip() and plan.code.startswith("rules urbion-2e/")
    assert pickle.loads(pickle.dumps(plan)).policy_spec().name == "greedy"
    other = pickle.loads(pickle.dumps(replace(plan, code="package 0.0.9, rules x, code 0")))
    with pytest.raises(ClusterError, match="runs other code than the machine that started "
                                           "the run .*not package 0.0.9, rules x, code 0"):
        other.policy_spec()


def test_a_relative_policy_or_weights_path_reaches_the_workers(cluster, tmp_path,
                                                                monkeypatch):
    """The workers' working folder is not the user's: they get the files' absolute paths,
    and the results keep the names as given."""
    (tmp_path / "w.toml").write_text("[weights]\nTURN = 7.0\n")
    (tmp_path / "mine.py").write_text(_FILE_POLICY.format(choice="n_options - 1"))
    monkeypatch.chdir(tmp_path)
    for policy in ("weighted:w.toml", "mine.py:choose"):
        on_dask = analyzer.simulate(games=300, seed=2, policy=policy, chunk=100,
                                    scheduler=cluster.scheduler_address, engine="reference")
        here = analyzer.simulate(games=300, seed=2, policy=policy, engine="reference")
        assert np.array_equal(rows(on_dask), rows(here))
        assert on_dask.attrs["policy"] == policy


def test_a_worker_lacking_the_package_is_told_apart():
    from analyzer.runner.distributed import _lacks_the_package

    assert _lacks_the_package(Exception("ModuleNotFoundError(\"No module named 'analyzer'\")"))
    assert _lacks_the_package(ModuleNotFoundError("No module named 'analyzer.runner'"))
    assert not _lacks_the_package(ModuleNotFoundError("No module named 'helpers'"))
    assert not _lacks_the_package(ZeroDivisionError("No module named 'analyzer'"))


def test_a_scheduler_without_workers_is_said_to_wait(capfd):
    local = LocalCluster(n_workers=0, processes=True, dashboard_address=":0",
                         silence_logs=logging.CRITICAL)
    executor = DaskExecutor(local.scheduler_address)
    try:
        executor.prepare(RunPlan(default_card_set(), "greedy", 3, 10))
    finally:
        executor.close()
        local.close()
    assert f"waiting for a worker to join the Dask scheduler {local.scheduler_address}" in \
        capfd.readouterr().err


_FILE_POLICY = '''
import numba

@numba.njit
def choose(kind, options, n_options, state, cards, params, rng):
    return {choice}
'''


def test_a_policy_file_given_by_its_name_may_go_to_a_cluster(tmp_path):
    from analyzer.api.common import check_by_name

    path = tmp_path / "mine.py"
    path.write_text(_FILE_POLICY.format(choice=0))
    name = f"{path}:choose"
    first = resolve_policy(name)
    # the workers load the file by its name: the name resolves to this very policy
    check_by_name(first, default_card_set())
    assert resolve_policy(name).func is first.func
    path.write_text(_FILE_POLICY.format(choice="n_options - 1"))  # an edited file is new
    edited = resolve_policy(name)
    assert edited.func is not first.func and edited.source_digest != first.source_digest


def test_a_policy_object_without_a_name_cannot_go_to_a_cluster():
    from tests.test_policies import breaks_on_turn_3

    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    with pytest.raises(PolicyError, match="cannot be sent to a cluster"):
        analyzer.simulate(games=10, policy=spec, scheduler="local:1")


def test_a_scheduler_given_as_host_and_port_is_a_tcp_address(cluster):
    from analyzer.runner.distributed import parse_scheduler

    assert parse_scheduler("10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    with pytest.raises(UrbionError, match="local:N, in lower case"):
        parse_scheduler("LOCAL:2")
    bare = cluster.scheduler_address.removeprefix("tcp://")
    on_dask = analyzer.simulate(games=400, seed=1, chunk=200, scheduler=bare)
    assert np.array_equal(rows(on_dask), rows(analyzer.simulate(games=400, seed=1)))


def test_a_local_cluster_that_fails_to_start_points_to_the_script_guard(monkeypatch):
    def unguarded(**_options):
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(dask_runner, "LocalCluster", unguarded)
    for start in (lambda: DaskExecutor("local:2"),
                  lambda: dask_runner.one_cluster("local:2").__enter__()):
        with pytest.raises(ClusterError) as err:
            start()
        assert str(err.value) == ("cannot start the Dask cluster local:2: RuntimeError: Nanny "
                                  "failed to start.; a script that starts a local cluster "
                                  'keeps its work under `if __name__ == "__main__":` '
                                  "(docs/scaling.md)")


@pytest.mark.parametrize("address", ["foo://x", "tcp://127.0.0.1"])
def test_malformed_scheduler_addresses_are_one_line_errors(address, monkeypatch):
    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(UrbionError, match="cannot reach the Dask scheduler"):
        analyzer.simulate(games=10, scheduler=address)


def test_a_lost_cluster_stops_the_run_with_what_was_saved(tmp_path, capfd):
    from analyzer.errors import RunStopped
    from analyzer.runner.checkpoint import Checkpoint, partial_folder

    local = LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                         dashboard_address=":0", silence_logs=logging.CRITICAL)
    level = logging.getLogger("distributed").level
    client_logger = logging.getLogger("distributed.client")
    client_level = client_logger.level
    client_logger.setLevel(logging.WARNING)  # a level of its own, as Dask's config may give
    executor = DaskExecutor(local.scheduler_address)
    # the client's reports of what the run then says in one line stay off the terminal
    # (its logger writes to a handler of its own, whatever pytest captures)
    assert not client_logger.isEnabledFor(logging.ERROR)
    logging.getLogger("distributed.client").error("Failed to reconnect to scheduler")
    plan = RunPlan(default_card_set(), "greedy", 3, 40_000, chunk=2000)
    out = tmp_path / "r.parquet"
    checkpoint = Checkpoint.start(out, plan.identity(False), False)
    try:
        with pytest.raises(RunStopped, match="saved in .*--resume") as stop:
            execute(plan, AfterFirstChunk(executor, local.close), checkpoint=checkpoint)
    finally:
        executor.close()
        local.close()
    assert not stop.value.interrupted
    assert "\n" not in str(stop.value)
    assert (partial_folder(out) / "chunk-000000.npy").exists()
    assert "Failed to reconnect" not in capfd.readouterr().err
    assert logging.getLogger("distributed").level == level  # given back once closed
    assert client_logger.level == logging.WARNING
    client_logger.setLevel(client_level)


def test_ctrl_c_in_a_terminal_stops_a_local_cluster_run_in_one_line(tmp_path):
    import subprocess
    import sys
    import time
    from pathlib import Path

    from analyzer.runner.checkpoint import partial_folder

    # A terminal sends Ctrl-C to every process of the foreground group, the cluster's
    # worker processes too: only the run itself may speak
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "r.parquet"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import cli; cli.main()", "simulate", "--games", "400000",
         "--chunk", "4000", "--scheduler", "local:2", "--quiet", "--out", str(out)],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not list(partial_folder(out).glob("chunk-*.npy")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert len(err.strip().splitlines()) == 1 and "--resume" in err, err


def test_the_traceback_distributed_logs_on_ctrl_c_is_kept_from_the_terminal():
    """Ctrl-C while distributed's ``sync`` waits schedules its ``cancel``, which can fail
    on a variable not yet set, and tornado logs that traceback: a stopped run says one line
    (the terminal test above met it once in a few runs). Other callback errors still show."""
    import functools
    import io
    import logging

    from analyzer.runner.distributed import DaskExecutor

    def sync():
        def cancel():
            return None
        return cancel

    logger = logging.getLogger("tornado.application")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        DaskExecutor("local:1").close()  # the filter comes with the first cluster
        logger.error("Exception in callback %r", functools.partial(sync()))
        logger.error("Exception in callback %r", functools.partial(print))
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue().splitlines() == [
        f"Exception in callback {functools.partial(print)!r}"]


def test_a_policy_that_raises_on_a_local_cluster_is_one_line(tmp_path, capfd):
    """The workers' own "Compute Failed" report stays quiet: the command's one line says it
    all, with the seed and game."""
    from tests.test_cli import run

    path = tmp_path / "raising.py"
    path.write_text("import numba\n\n@numba.njit\n"
                    "def choose(kind, options, n_options, state, cards, params, rng):\n"
                    "    if n_options > 2:\n        raise ValueError('no plan for this')\n"
                    "    return 0\n")
    code, _, err = run(capfd, "simulate", "--games", "50", "--policy", f"{path}:choose",
                       "--scheduler", "local:1", "--quiet")
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("urbion: error: policy ") and "in seed 0, game 0" in err


def test_a_scheduler_address_where_another_server_answers_fails_in_time(monkeypatch):
    """The dashboard's HTTP port given for the scheduler's: Dask's client waits for ever
    there whatever its timeout (dask/distributed#8071); the run said nothing until it was
    stopped. It gives up after the timeout and a grace, in one line."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class QuietHandler(BaseHTTPRequestHandler):
        """Answers as an HTTP server does, without writing its log into the suite's output."""

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", "2s")
    monkeypatch.setattr(dask_runner, "CONNECT_GRACE", 2.0, raising=False)
    address = f"tcp://127.0.0.1:{server.server_address[1]}"
    outcome = {}

    def connect() -> None:
        try:
            analyzer.simulate(games=10, scheduler=address)
        except Exception as err:  # noqa: BLE001 - checked below
            outcome["error"] = err

    attempt = threading.Thread(target=connect, daemon=True)
    attempt.start()
    attempt.join(40)  # a hang fails the test, not the suite
    server.shutdown()
    assert not attempt.is_alive(), "still connecting after 40 s"
    assert isinstance(outcome.get("error"), ClusterError), outcome
    assert str(outcome["error"]).startswith(
        f"cannot reach the Dask scheduler {address}: no Dask scheduler answered there in 4 s "
        "(is it another server? the dashboard's port")


def test_a_server_that_answers_at_once_in_another_protocol_is_named_so(monkeypatch):
    """An HTTP server (a proxy) that answers before it is asked: its "HTTP/1.1 400" read as
    the length of Dask's first message made an exabyte MemoryError the message."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\n\r\n")
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", "3s")
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    try:
        with pytest.raises(ClusterError) as raised:
            analyzer.simulate(games=10, scheduler=address)
    finally:
        listener.close()
    assert str(raised.value) == (
        f"cannot reach the Dask scheduler {address}: the server there answered in another "
        "protocol than Dask's (is it another server? the dashboard's port, 8787 by default, "
        "is not the scheduler's, 8786 by default)")


@pytest.mark.parametrize("address, why", [
    ("tcp://nosuchhost.invalid:8786", ": no host of that name ("),
    ("tcp://:8786", ": expected tcp://HOST:PORT with a host and a port from 1 to 65535"),
    ("tcp://127.0.0.1:99999", ": expected tcp://HOST:PORT with a host and a port from 1 to "
                              "65535"),
])
def test_a_scheduler_address_that_names_no_host_or_port_says_so(address, why, monkeypatch):
    """Where Dask waited for its timeout and then said it timed out."""
    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", "2s")
    with pytest.raises(ClusterError) as raised:
        analyzer.simulate(games=10, scheduler=address)
    assert str(raised.value).startswith(f"cannot reach the Dask scheduler {address}{why}")


def test_a_worker_that_prepares_other_code_is_named_by_its_address(cluster):
    """As a worker that finds it in a task is: several workers may share a host."""
    from dataclasses import replace

    plan = RunPlan.for_policy(default_card_set(), resolve_policy("greedy"), 1, 10)
    other = replace(plan, code="package 0.0.9, rules x, code 0")
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        with pytest.raises(ClusterError, match=r"^worker tcp://127\.0\.0\.1:\d+ runs other "
                                               "code than the machine that started the run"):
            executor.prepare(other)
    finally:
        executor.close()


def test_a_chunk_whose_workers_all_died_names_the_last_of_them():
    """Dask's message, cut to one line, lost the address at its 160th character."""
    from types import SimpleNamespace

    from distributed import KilledWorker

    err = KilledWorker(("urbion-chunk", 5), SimpleNamespace(address="tcp://10.0.0.7:4001"), 3)
    assert dask_runner.one_line(err) == ("KilledWorker: a chunk was tried on 4 workers and "
                                         "each died playing it, the last tcp://10.0.0.7:4001")


def test_a_worker_of_another_version_that_lacks_what_the_run_sends_is_named_so(cluster,
                                                                               monkeypatch):
    """A worker whose package has no function of that name (pickle sends it by name) says
    so as a worker with other code does, not as a traceback."""
    plan = RunPlan.for_policy(default_card_set(), resolve_policy("greedy"), 1, 10)
    executor = DaskExecutor(cluster.scheduler_address)

    def old_worker(*args, **kwargs):
        # as Dask hands the client an error it cannot rebuild: a plain Exception
        raise Exception("AttributeError(\"Can't get attribute 'prepare_kernels' on <module "
                        "'analyzer.runner.chunks' from '/old/analyzer/runner/chunks.py'>\")")

    monkeypatch.setattr(executor.client, "run", old_worker)
    try:
        with pytest.raises(ClusterError, match="^a worker of the cluster runs other code "
                                               "than the machine that started the run "):
            executor.prepare(plan)
    finally:
        monkeypatch.undo()
        executor.close()
