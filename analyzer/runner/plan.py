"""A run cut into chunks: what to play, and the configuration that names its results.

A plan is plain data (picklable), so the same plan plays a chunk on a local thread pool or
on a Dask worker on another machine. Chunk ``k`` holds games ``first_game + k * chunk ..``
of the batch; since game g of seed S is the same game wherever it is played, the chunking
and the place a chunk runs change nothing in the results.
"""

from __future__ import annotations

import hashlib
import socket
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from analyzer.cards import CardSet
from analyzer.core.codes import RULES_VERSION
from analyzer.core.jit import files_digest
from analyzer.errors import ClusterError, PolicyError
from analyzer.policies.loader import function_source_digest
from analyzer.policies.registry import PolicySpec, portable_name, resolve_policy
from analyzer.policies.search_nb import CANDIDATES_INDEX, ROLLOUTS_INDEX
from analyzer.runner.config import BATCH_IDENTITY, engine_source, package_version, run_config

#: Games per chunk unless a run asks otherwise: about a second of work on one core, small
#: enough for a lively progress bar and little lost work after an interruption.
DEFAULT_CHUNK = 20_000


#: Games per chunk for the search policies with their default options, which play tens of
#: games a second, not thousands: a chunk still takes seconds, so Ctrl-C and the progress
#: bar stay prompt.
SEARCH_CHUNK = 200
#: The play-outs a decision of ``search`` costs with its default options (8 rollouts of 3
#: candidates), and the most candidates a decision is taken to offer (clairvoyant's 1024
#: means "all of them", seldom more than a few dozen).
SEARCH_WORK, TYPICAL_CANDIDATES = 8 * 3, 16


#: Games per chunk on the plain-Python reference engine, which plays a few hundred games a
#: second: a default chunk of the fast engine's would hold a Ctrl-C back for minutes.
REFERENCE_CHUNK = 200


def default_chunk(spec: PolicySpec, engine: str = "fast") -> int:
    """The chunk size of a run with ``spec`` on ``engine`` when none is asked for: on the
    reference engine :data:`REFERENCE_CHUNK`; for the search policies, smaller as their
    options make each game dearer (rollouts times candidates), so that a chunk takes
    seconds whatever they are."""
    if engine != "fast":
        return REFERENCE_CHUNK
    if spec.kernel is None:
        return DEFAULT_CHUNK
    rollouts = int(spec.params[ROLLOUTS_INDEX])
    candidates = int(spec.params[CANDIDATES_INDEX])
    # one candidate is taken without play-outs
    work = 1 if candidates == 1 else rollouts * min(candidates, TYPICAL_CANDIDATES)
    return max(1, min(SEARCH_CHUNK, SEARCH_CHUNK * SEARCH_WORK // work))


def policy_fingerprint(spec: PolicySpec) -> tuple[str, str]:
    """(SHA-256 of the parameters, SHA-256 of a user policy's source file or ""). A
    PolicySpec made in Python without a source digest is fingerprinted by the file its
    function was defined in, so that an edited function does not pass for the same one."""
    source = spec.source_digest
    if not source and spec.is_user_policy:
        source = function_source_digest(spec.func)
    return params_digest(spec.params), source


def params_digest(params: np.ndarray) -> str:
    """SHA-256 of a policy's parameter vector (float64)."""
    return hashlib.sha256(np.asarray(params, dtype=np.float64).tobytes()).hexdigest()


def policy_weights_digest(spec: PolicySpec) -> str:
    """SHA-256 of the policy's parameters as given, not as fitted to the run's cards: a
    built-in reads facts of the card set into its parameters (greedy: the largest Sognae and
    Incubi), so that one policy on two card sets has two ``policy_params_sha256``; fitted to
    R14's cards instead, its parameters are one, and this digest tells a change of policy
    from a change of cards."""
    if spec.params_for_cards is None:
        return params_digest(spec.params)
    from analyzer.cards import default_card_set

    shipped = default_card_set()
    return params_digest(spec.params_for_cards(shipped.cards[shipped.dream_ids]))


_RESOLVED: dict[tuple[str, str, tuple[str, str]], PolicySpec] = {}

#: The package's folders whose code and data decide what a game plays and what a chunk
#: holds: a process with others plays other games.
PLAYING_FOLDERS = ("cards", "core", "policies", "reference", "rules", "runner")


def _playing_code() -> str:
    """The rules version and a SHA-256 (16 hex digits) of the code that plays games
    (:data:`PLAYING_FOLDERS`): two processes that play one run must share it. The package
    version, which an install records apart from the code, is not part of it."""
    package = Path(__file__).resolve().parents[1]
    files = {path for folder in PLAYING_FOLDERS for path in (package / folder).rglob("*")
             if path.suffix in (".py", ".toml") and path.is_file()}
    return f"rules {RULES_VERSION}, code {files_digest(package, files)}"


#: Read as the package is imported: the code this process runs, though its files change
PLAYING_CODE = _playing_code()


def playing_code() -> str:
    """:func:`_playing_code` of the code this process imported."""
    return PLAYING_CODE


#: The Dask worker that prepares the engine outside a task (``Client.run``), by address:
#: ``distributed.get_worker`` finds a worker only where a task runs.
PREPARING_WORKER: ContextVar[str | None] = ContextVar("preparing_worker", default=None)


def _this_worker() -> str:
    """This process as messages name it: a Dask worker by its address where a task runs or
    it prepares the engine, else by its host."""
    if PREPARING_WORKER.get() is not None:
        return f"worker {PREPARING_WORKER.get()}"
    try:
        from distributed import get_worker

        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"a worker on host {socket.gethostname()}"


def _policy_for(name: str, card_set: CardSet, expected: tuple[str, str]) -> PolicySpec:
    """The policy ``name`` resolved in this process (once), checked against the one the run
    started with: a worker with another weights file or policy source must not play."""
    key = (name, card_set.digest, expected)
    if key not in _RESOLVED:
        spec = resolve_policy(name).for_cards(card_set)
        if policy_fingerprint(spec) != expected:
            raise PolicyError(f"policy {name!r} here is not the one the run started with "
                              "(other parameters or source file): every machine of a run "
                              "needs the same files and package version")
        _RESOLVED[key] = spec
    return _RESOLVED[key]


@dataclass(frozen=True)
class RunPlan:
    """Games ``first_game .. first_game + games - 1`` of batch ``seed``, in chunks.

    The policy travels by name, so a worker process resolves it itself (a user's policy file
    must then be readable at the same path on every worker).
    """

    card_set: CardSet = field(repr=False)
    policy: str
    seed: int
    games: int
    first_game: int = 0
    engine: str = "fast"
    chunk: int = DEFAULT_CHUNK
    #: the resolved policy when the caller has it; not sent to other processes
    spec: PolicySpec | None = field(default=None, repr=False, compare=False)
    #: policy_fingerprint of the policy the run started with, checked where it is resolved
    fingerprint: tuple[str, str] = ("", "")
    #: the policy's name with its files' paths absolute, as another process resolves it
    portable_policy: str = ""
    #: playing_code() of the process that made the plan, checked where a chunk is played
    code: str = ""

    @classmethod
    def for_policy(cls, card_set: CardSet, spec: PolicySpec, seed: int, games: int,
                   first_game: int = 0, engine: str = "fast",
                   chunk: int | None = None) -> RunPlan:
        """A plan for the resolved policy ``spec`` (chunk: its default when None)."""
        return cls(card_set, spec.name, seed, games, first_game, engine,
                   chunk or default_chunk(spec, engine), spec, policy_fingerprint(spec),
                   portable_name(spec.name), playing_code())

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["spec"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        # Dask may hand arrays over read-only; numba types those apart and would compile
        # every kernel again for them, so the worker gets writable copies.
        cards = state["card_set"]
        state["card_set"] = replace(cards, cards=np.array(cards.cards),
                                    city_ids=np.array(cards.city_ids),
                                    dream_ids=np.array(cards.dream_ids))
        self.__dict__.update(state)

    @property
    def n_chunks(self) -> int:
        """Number of chunks; the last one may be short."""
        return -(-self.games // self.chunk)

    def chunk_games(self, index: int) -> tuple[int, int]:
        """(first game, number of games) of chunk ``index``."""
        start = index * self.chunk
        return self.first_game + start, min(self.chunk, self.games - start)

    def policy_spec(self) -> PolicySpec:
        """The policy, fitted to the card set (resolved once per process)."""
        if self.spec is not None:
            return self.spec
        if self.fingerprint == ("", ""):
            return resolve_policy(self.policy).for_cards(self.card_set)
        # another process (a cluster's worker): it plays this run only with the same code,
        # and a file it lacks is its own problem, which the saved games outlive
        if self.code and self.code != playing_code():
            raise ClusterError(f"{_this_worker()} runs other code than the machine that "
                               f"started the run ({playing_code()}, package "
                               f"{package_version()}; not {self.code}): every machine of a "
                               "run needs the same version of the package")
        try:
            return _policy_for(self.portable_policy or self.policy, self.card_set,
                               self.fingerprint)
        except PolicyError as err:
            raise ClusterError(f"{_this_worker()} cannot play the run's policy: "
                               f"{err}") from None

    def config(self) -> dict:
        """The run's configuration, as stored with its results (the policy's parameters by
        their hash: a weights file may change under the same name)."""
        config = run_config(self.card_set, self.policy, self.seed, self.games, self.engine,
                            self.first_game)
        spec = self.policy_spec()
        params_sha256, source_sha256 = policy_fingerprint(spec)
        config["policy_params_sha256"] = params_sha256
        config["policy_weights_sha256"] = policy_weights_digest(spec)
        if source_sha256:
            config["policy_source_sha256"] = source_sha256
        if spec.tuned_for is not None:
            config["policy_tuned_for"] = spec.tuned_for
        if spec.weights_file_text is not None:  # kept: the run replays from its file alone
            config["policy_weights_file"] = spec.weights_file_text
        return config

    def identity(self, summary_only: bool) -> dict:
        """What a resumed run must share with the saved one for the results to be the same."""
        config = self.config()
        identity = {key: config.get(key, "") for key in BATCH_IDENTITY}
        # the engine's and built-ins' code as imported, as engine_source takes it
        identity["kernel_source"] = engine_source("fast")
        identity["card_set"] = config["card_set"]  # names the set its hash is of
        identity["chunk"] = self.chunk
        identity["summary_only"] = summary_only
        return identity
