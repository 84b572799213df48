"""Counter-based random streams: game g of a batch with seed S draws only from (S, g).

A stream is a ``uint64[2]`` array ``[key, counter]``. Output number i is
``splitmix64(key + i * GAMMA)``, so any game can be replayed alone and results do not depend
on threads, chunks or machines. The same arithmetic is given twice: jitted (``*_nb``) for
the kernels and in plain Python (:class:`PyStream`) for the reference engine; a test checks
that they agree.
"""

from __future__ import annotations

import numpy as np

from analyzer.core.jit import borrowing_jit, jit

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

_GAMMA = np.uint64(GAMMA)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_ONE = np.uint64(1)


@jit
def mix64_nb(z):
    """SplitMix64 finaliser of a uint64."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@jit
def stream_key_nb(seed, game, stream):
    """Key of stream ``stream`` of game ``game`` in the batch with seed ``seed``."""
    k = mix64_nb(np.uint64(seed) + _GAMMA)
    k = mix64_nb(k ^ (np.uint64(game) * _GAMMA + _ONE))
    return mix64_nb(k ^ (np.uint64(stream) * _MIX1 + _ONE))


@jit
def new_stream_nb(seed, game, stream):
    """A fresh ``uint64[2]`` stream state."""
    out = np.empty(2, dtype=np.uint64)
    out[0] = stream_key_nb(seed, game, stream)
    out[1] = np.uint64(0)
    return out


@jit
def derived_stream_nb(parent, stream):
    """A fresh stream keyed on ``parent``'s key and ``stream``, whatever ``parent`` has
    drawn: independent of it, and of every other stream derived from it."""
    out = np.empty(2, dtype=np.uint64)
    out[0] = mix64_nb(parent[0] ^ (np.uint64(stream) * _MIX1 + _ONE))
    out[1] = np.uint64(0)
    return out


@borrowing_jit
def next_u64_nb(rng):
    """Next uint64 of the stream (advances the counter)."""
    rng[1] += _ONE
    return mix64_nb(rng[0] + rng[1] * _GAMMA)


@borrowing_jit
def below_nb(rng, n):
    """Uniform integer in [0, n) as int64 (bias below n / 2**64)."""
    return np.int64(next_u64_nb(rng) % np.uint64(n))


@borrowing_jit
def shuffle_nb(values, lo, hi, rng):
    """Fisher-Yates shuffle of ``values[lo:hi]`` in place (index lo is the top card)."""
    for i in range(hi - lo - 1, 0, -1):
        j = below_nb(rng, i + 1)
        t = values[lo + i]
        values[lo + i] = values[lo + j]
        values[lo + j] = t


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


class PyStream:
    """Plain-Python twin of a jitted stream, for the reference engine."""

    def __init__(self, seed: int, game: int, stream: int) -> None:
        k = _mix64((seed + GAMMA) & MASK64)
        k = _mix64(k ^ ((game * GAMMA + 1) & MASK64))
        self.key = _mix64(k ^ ((stream * MIX1 + 1) & MASK64))
        self.counter = 0

    def derived(self, stream: int) -> PyStream:
        """A fresh stream keyed on this one's key and ``stream`` (``derived_stream_nb``)."""
        child = object.__new__(PyStream)
        child.key = _mix64(self.key ^ ((stream * MIX1 + 1) & MASK64))
        child.counter = 0
        return child

    def next_u64(self) -> int:
        self.counter += 1
        return _mix64((self.key + self.counter * GAMMA) & MASK64)

    def below(self, n: int) -> int:
        return self.next_u64() % n

    def shuffle(self, values: list) -> None:
        """Fisher-Yates in place, index 0 being the top card."""
        for i in range(len(values) - 1, 0, -1):
            j = self.below(i + 1)
            values[i], values[j] = values[j], values[i]

    def as_array(self) -> np.ndarray:
        """The state as a ``uint64[2]`` array, to hand to a jitted policy."""
        return np.array([self.key, self.counter], dtype=np.uint64)

    def sync(self, array: np.ndarray) -> None:
        """Take back the counter a jitted policy advanced."""
        self.counter = int(array[1])
