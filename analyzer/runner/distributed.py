"""Chunks on a Dask distributed cluster: an existing one, or a local one of N processes.

Each chunk is one task; numba compiles (or loads from the disk cache) once per worker
process, on its first chunk. Dask reschedules the chunks of a worker that dies, and a
chunk's results depend only on (seed, game), so a lost worker changes nothing.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
import uuid
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from itertools import islice

import numpy as np
from distributed import Client, KilledWorker, LocalCluster, as_completed

from analyzer.arguments import MAX_WORKERS
from analyzer.errors import ClusterError, UrbionError
from analyzer.runner import interrupts
from analyzer.runner.chunks import chunk_payload, prepare_kernels
from analyzer.runner.plan import RunPlan

CONNECT_TIMEOUT = "20s"
#: What a lost scheduler or a worker dying too often raises (CommClosedError is an OSError).
LOST = (KilledWorker, CancelledError, OSError, TimeoutError)
#: The fewest chunks a Dask run hands the scheduler at once (:meth:`DaskExecutor.window`).
MIN_WINDOW = 8
#: Seconds between two counts of the cluster's threads during a run.
WINDOW_REFRESH = 10.0


def one_line(err: BaseException, limit: int = 160) -> str:
    """A Dask error as one short line (its messages may span several); a chunk whose
    workers all died names the last of them, whose log tells why."""
    if isinstance(err, KilledWorker):
        return (f"KilledWorker: a chunk was tried on {err.allowed_failures + 1} workers and "
                f"each died playing it, the last {err.last_worker.address}")
    text = " ".join(f"{type(err).__name__}: {err}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _refuse_if_refused(address: str) -> None:
    """Fail at once when nothing listens at a ``tcp://HOST:PORT`` address (the host says
    so); Dask's client would retry until its timeout. Any other answer, or none, is left
    to Dask."""
    scheme, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    if scheme != "tcp" or not port.isdigit():
        return
    if not host.strip("[]") or not 0 < int(port) < 65536:
        raise ClusterError(f"cannot reach the Dask scheduler {address}: expected "
                           "tcp://HOST:PORT with a host and a port from 1 to 65535")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=2).close()
    except ConnectionRefusedError as err:
        raise ClusterError(f"cannot reach the Dask scheduler {address}: nothing listens "
                           f"there ({err.strerror})") from None
    except socket.gaierror as err:  # a name that does not resolve: Dask would wait 20 s
        if err.errno == socket.EAI_AGAIN:  # the name service failed for now: Dask retries
            return
        raise ClusterError(f"cannot reach the Dask scheduler {address}: no host of that "
                           f"name ({err.strerror})") from None
    except OSError:
        return


#: How long a connection may take beyond Dask's own timeout before the run gives up on it.
CONNECT_GRACE = 10.0
#: The likely cause of a server at the address that is not a Dask scheduler.
ANOTHER_SERVER = (" (is it another server? the dashboard's port, 8787 by default, is not the "
                  "scheduler's, 8786 by default)")


def _connected_client(address: str) -> Client:
    """A client of the scheduler at ``address``. Dask's own timeout does not end a
    connection to a server that answers in another protocol (the dashboard's HTTP port:
    dask/distributed#8071), which waited for ever without a word: the run waits
    :data:`CONNECT_GRACE` seconds longer, then gives the connection up; a client that
    comes after that, or after a stop, is closed as it comes."""
    made: dict[str, object] = {}
    lock = threading.Lock()

    def connect() -> None:
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT)
        except BaseException as err:  # noqa: BLE001 - handed to the caller
            made["error"] = err
            return
        with lock:
            if made.get("given_up"):
                client.close()
            else:
                made["client"] = client

    wait = float(CONNECT_TIMEOUT.removesuffix("s")) + CONNECT_GRACE
    thread = threading.Thread(target=connect, name="urbion-connect", daemon=True)
    thread.start()
    try:
        thread.join(wait)
    finally:
        with lock:
            made["given_up"] = "client" not in made
    if isinstance(made.get("error"), MemoryError):
        # another protocol's first bytes (an HTTP server's "HTTP/1.1 400 ...") read as the
        # length of Dask's first message: exabytes
        raise ClusterError(f"cannot reach the Dask scheduler {address}: the server there "
                           f"answered in another protocol than Dask's{ANOTHER_SERVER}")
    if "error" in made:
        raise made["error"]  # type: ignore[misc]
    if made["given_up"]:
        raise ClusterError(f"cannot reach the Dask scheduler {address}: no Dask scheduler "
                           f"answered there in {wait:.0f} s{ANOTHER_SERVER}")
    return made["client"]  # type: ignore[return-value]


def parse_scheduler(scheduler: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local:N``, else ``("address", ADDRESS)``: the address as
    given, or ``tcp://HOST:PORT`` for ``HOST:PORT``."""
    if scheduler.lower().startswith("local:") and not scheduler.startswith("local:"):
        raise UrbionError(f"scheduler {scheduler!r}: a local cluster is local:N, in lower "
                          "case")
    if scheduler.startswith("local:"):
        count = scheduler.removeprefix("local:")
        if not (count.isascii() and count.isdigit()) or int(count) < 1:
            raise UrbionError(f"scheduler {scheduler!r}: expected local:N with N >= 1")
        if int(count) > MAX_WORKERS:
            raise UrbionError(f"scheduler {scheduler!r}: a local cluster of at most "
                              f"{MAX_WORKERS} processes")
        return "local", int(count)
    if "://" not in scheduler:
        host, colon, port = scheduler.rpartition(":")
        if colon and host and port.isascii() and port.isdigit():
            return "address", f"tcp://{scheduler}"  # Dask's own default protocol
        raise UrbionError(f"scheduler {scheduler!r}: expected tcp://HOST:PORT, HOST:PORT or "
                          "local:N")
    return "address", scheduler


#: What a script that starts a local cluster without the main-module guard makes Dask say.
UNGUARDED = "Nanny failed to start"


def _start_failure(scheduler: str, err: BaseException) -> str:
    """The one-line message of a local cluster that did not start, with the likely cause
    when its worker processes failed as they imported the script that started them."""
    hint = ("; a script that starts a local cluster keeps its work under "
            "`if __name__ == \"__main__\":` (docs/scaling.md)" if UNGUARDED in str(err) else "")
    return f"cannot start the Dask cluster {scheduler}: {one_line(err)}{hint}"


@contextmanager
def _ctrl_c_ignored_by_new_processes() -> Iterator[interrupts.HeldSigterm]:
    """Start processes that ignore Ctrl-C: a terminal sends it to the whole foreground
    group, and each worker of a local cluster would print a traceback, while this process
    stops the run (one line) and closes the cluster. A Ctrl-C meanwhile is ignored here too
    (the cluster starts in seconds); a SIGTERM is held, for the caller to deliver once it
    can close the cluster. Another thread than the main one changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield interrupts.HeldSigterm()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.sigterm_held() as held:
            yield held
    finally:
        signal.signal(signal.SIGINT, previous)


class _InterruptedSyncFilter(logging.Filter):
    """Drops the traceback logged when Ctrl-C interrupts distributed's ``sync``: its
    cancel callback then fails on a variable not yet set (distributed 2026.8, when Ctrl-C
    comes before the coroutine starts; harmless, the run is being stopped), and a stopped
    run says one line only."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "sync.<locals>.cancel" not in record.getMessage()


_SYNC_FILTER = _InterruptedSyncFilter()


#: How much a local cluster's processes log: nothing below CRITICAL. A task that fails
#: (a user's policy that raises) reaches the run as its exception, which the command says
#: in one line; the workers' own multi-line "Compute Failed" report would come before it.
#: A worker that dies or cannot start reaches the run too, as a ClusterError of one line.
LOCAL_LOG_LEVEL = logging.CRITICAL


def _local_cluster(workers: int) -> LocalCluster:
    """A ``local:N`` cluster: ``workers`` processes of one thread each (the kernels run a
    chunk on one thread), its dashboard on a free port, its logs quiet."""
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=LOCAL_LOG_LEVEL)


@contextmanager
def one_cluster(scheduler: str | None) -> Iterator[str | None]:
    """The scheduler each run of a command of many runs (duel, compare, sensitivity) is to
    use: a ``local:N`` cluster started once for all of them, by its address (each run would
    otherwise start and stop N processes of its own); any other scheduler as it is."""
    if scheduler is None or parse_scheduler(scheduler)[0] != "local":
        yield scheduler
        return
    cluster = None
    try:
        try:
            with _ctrl_c_ignored_by_new_processes() as held:
                cluster = _local_cluster(parse_scheduler(scheduler)[1])
        except Exception as err:  # noqa: BLE001 - any failure of Dask to start
            held.deliver()  # a SIGTERM to the whole group stopped the workers too
            raise ClusterError(_start_failure(scheduler, err)) from None
        held.deliver()
        yield cluster.scheduler_address
    finally:
        if cluster is not None:
            cluster.close()


class DaskExecutor:
    """Chunks as tasks on a Dask cluster, yielded as they finish."""

    def __init__(self, scheduler: str) -> None:
        logger = logging.getLogger("tornado.application")
        if _SYNC_FILTER not in logger.filters:
            logger.addFilter(_SYNC_FILTER)
        kind, value = parse_scheduler(scheduler)
        self.cluster = None
        self.scheduler = scheduler
        # the client's own reports of a lost scheduler or a failed task (tracebacks over
        # many lines) come before the run's one-line error, which says the same; Dask's
        # configuration gives some of its loggers (distributed.client) levels of their own
        self.log_levels = {name: logging.getLogger(name).level
                           for name in ["distributed", *logging.root.manager.loggerDict]
                           if name == "distributed" or name.startswith("distributed.")}
        for name in self.log_levels:
            logging.getLogger(name).setLevel(LOCAL_LOG_LEVEL)
        held = interrupts.HeldSigterm()
        try:
            if kind == "local":
                with _ctrl_c_ignored_by_new_processes() as held:
                    self.cluster = _local_cluster(value)
                held.deliver()
                self.client = Client(self.cluster)
            else:
                _refuse_if_refused(str(value))
                self.client = _connected_client(str(value))
        except ClusterError:  # said in full already
            self.close()
            raise
        except Exception as err:  # noqa: BLE001 - any failure of Dask to start or connect
            self.close()
            held.deliver()  # a SIGTERM to the whole group stopped the workers too
            raise ClusterError(_start_failure(scheduler, err) if kind == "local" else
                               f"cannot reach the Dask scheduler {scheduler}: "
                               f"{one_line(err)}") from None
        except BaseException:  # Ctrl-C or SIGTERM: no cluster left running
            self.close()
            raise

    def prepare(self, plan: RunPlan) -> None:
        """Compile or load the kernels once in every worker process now connected (a
        worker that joins later does so on its first chunk)."""
        info = self.client.scheduler_info()
        if self.cluster is None and not info.get("workers"):
            # the run waits for one as long as it takes (a batch system may start them
            # later): said, not silent
            print(f"urbion: waiting for a worker to join the Dask scheduler "
                  f"{info.get('address', '')}", file=sys.stderr, flush=True)
        try:
            self.client.run(prepare_kernels, plan)
        except LOST as err:
            raise ClusterError(f"the cluster failed to prepare the engine: "
                               f"{one_line(err)}") from None
        except Exception as err:
            if _lacks_the_package(err):
                raise ClusterError("a worker of the cluster cannot import this package "
                                   f"({one_line(err)}): every machine of a run needs it, "
                                   "importable by its workers") from None
            if _lacks_what_the_run_sends(err):
                raise ClusterError("a worker of the cluster runs other code than the "
                                   f"machine that started the run ({one_line(err)}): every "
                                   "machine of a run needs the same version of the "
                                   "package") from None
            raise

    def imap(self, plan: RunPlan, indices: Iterable[int],
             summary_only: bool) -> Generator[tuple[int, np.ndarray], None, None]:
        """Each chunk's (index, payload) as it finishes; no more chunks are handed to the
        scheduler at once than :meth:`window` allows, so that a run of half a million
        chunks holds the memory of a few of them, as a local run does."""
        run = uuid.uuid4().hex[:12]
        waiting = iter(indices)
        futures: dict = {}
        # asked of the scheduler again now and then, not at every chunk: workers may join
        window, asked = self.window(), time.monotonic()

        def top_up() -> list:
            nonlocal window, asked
            if time.monotonic() - asked > WINDOW_REFRESH:
                window, asked = self.window(), time.monotonic()
            new = {self.client.submit(chunk_payload, plan, index, summary_only,
                                      key=f"urbion-chunk-{run}-{index}", pure=False): index
                   for index in islice(waiting, max(window - len(futures), 0))}
            futures.update(new)
            return list(new)

        try:
            finished = as_completed(top_up())
            for future in finished:
                index = futures.pop(future)
                payload = future.result()
                future.release()
                # the cluster goes on playing while the caller saves this one
                for new in top_up():
                    finished.add(new)
                yield index, payload
        except LOST as err:
            raise ClusterError(f"the cluster stopped the run ({one_line(err)})") from None
        finally:
            for future in futures:
                future.cancel()

    def window(self) -> int:
        """How many chunks the scheduler holds at once: four for each thread the cluster
        has now (a worker that joins raises it), at least :data:`MIN_WINDOW`."""
        # every worker's threads (scheduler_info lists only a few workers in some versions)
        return max(MIN_WINDOW, 4 * sum(self.client.nthreads().values()))

    def describe(self) -> str:
        """Where the games were played, for the results: "a Dask cluster at ADDRESS, 3
        workers" (as many as are connected when it is asked), or "a local Dask cluster of 2
        processes"."""
        if self.cluster is not None:
            n = len(self.cluster.workers)
            return f"a local Dask cluster of {n} process{'es' if n != 1 else ''}"
        try:
            info = self.client.scheduler_info()
        except Exception:  # noqa: BLE001 - a scheduler lost at the end says nothing more
            info = {}
        n = len(info.get("workers", {}))
        return f"a Dask cluster at {self.scheduler}, {n} worker{'s' if n != 1 else ''}"

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.cluster is not None:
            self.cluster.close()
        for name, level in self.log_levels.items():
            logging.getLogger(name).setLevel(level)


def _lacks_what_the_run_sends(err: BaseException) -> bool:
    """Whether a worker's error says its package lacks a function or class the run sends
    (another version's: pickle names them, and the worker looks them up in its own)."""
    text = str(err)
    return "analyzer." in text and ("Can't get attribute" in text or "has no attribute" in text)


def _lacks_the_package(err: BaseException) -> bool:
    """Whether a worker's error says it cannot import this package (Dask hands an exception
    it cannot rebuild on the client as a plain ``Exception`` holding its repr)."""
    text = str(err)
    return (isinstance(err, ImportError) or type(err) is Exception) and \
        "No module named 'analyzer" in text
