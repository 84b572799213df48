"""A run cut into chunks: what to play, and the configuration that names its results.

A plan is plain data (picklable), so the same plan plays a chunk on a local thread pool or
on a Dask worker on another machine. Chunk ``k`` holds games ``first_game + k * chunk ..``
of the batch; since game g of seed S is the same game wherever it is played, the chunking
and the place a chunk runs change nothing in the results.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np

from analyzer.cards import CardSet
from analyzer.policies.registry import PolicySpec, resolve_policy
from analyzer.runner.config import run_config

#: Games per chunk unless a run asks otherwise: about a second of work on one core, small
#: enough for a lively progress bar and little lost work after an interruption.
DEFAULT_CHUNK = 20_000


_RESOLVED: dict[tuple[str, str], PolicySpec] = {}


def _policy_for(name: str, card_set: CardSet) -> PolicySpec:
    # once per process: a Dask worker resolves (and loads, for a user's file) a policy once
    key = (name, card_set.digest)
    if key not in _RESOLVED:
        _RESOLVED[key] = resolve_policy(name).for_cards(card_set)
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
        return _policy_for(self.policy, self.card_set)

    def config(self) -> dict:
        """The run's configuration, as stored with its results (the policy's parameters by
        their hash: a weights file may change under the same name)."""
        config = run_config(self.card_set, self.policy, self.seed, self.games, self.engine,
                            self.first_game)
        params = self.policy_spec().params
        config["policy_params_sha256"] = hashlib.sha256(params.tobytes()).hexdigest()
        return config

    def identity(self, summary_only: bool) -> dict:
        """What a resumed run must share with the saved one for the results to be the same."""
        config = self.config()
        keys = ("seed", "games", "first_game", "policy", "policy_params_sha256", "engine",
                "variant", "expansions", "card_set_sha256", "rules_version")
        identity = {key: config[key] for key in keys}
        identity["chunk"] = self.chunk
        identity["summary_only"] = summary_only
        return identity
