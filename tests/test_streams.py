"""Random streams: the jitted ones and their plain-Python twins draw alike, and the Book and
Postcard decks' streams leave the DEAL stream's draws as they are without those decks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import analyzer
from analyzer.core.codes import Stream
from analyzer.core.rng import PyStream, derived_stream_nb, new_stream_nb, next_u64_nb


@pytest.mark.parametrize("seed, game", [(0, 0), (7, 41), (2**63 - 1, 2**63 - 1)])
@pytest.mark.parametrize("stream", [Stream.BOOK_DECK, Stream.POSTCARD_DECK])
def test_a_derived_stream_draws_alike_in_both_engines(seed, game, stream):
    parent = new_stream_nb(seed, game, Stream.DEAL)
    twin = PyStream(seed, game, Stream.DEAL)
    next_u64_nb(parent)  # what the parent has drawn does not matter
    child, twin_child = derived_stream_nb(parent, stream), twin.derived(stream)
    assert [int(next_u64_nb(child)) for _ in range(5)] == \
        [twin_child.next_u64() for _ in range(5)]


def test_derived_streams_differ_from_each_other_and_from_their_parent():
    parent = PyStream(3, 1, Stream.DEAL)
    draws = {name: [s.next_u64() for _ in range(4)]
             for name, s in (("deal", PyStream(3, 1, Stream.DEAL)),
                             ("books", parent.derived(Stream.BOOK_DECK)),
                             ("postcards", parent.derived(Stream.POSTCARD_DECK)))}
    assert len({tuple(d) for d in draws.values()}) == 3


def test_R09_1_books_greedy_does_not_reveal_leave_every_game_as_in_the_base_game():
    base = analyzer.simulate(games=3000, seed=2)
    books = analyzer.simulate(games=3000, seed=2, expansions="books")
    assert (books["books_kept"] == 0).all()  # greedy reveals no Book (docs/policies.md)
    same = [c for c in base.columns if c not in ("books_kept", "book_actions")]
    pd.testing.assert_frame_equal(base[same], books[same])
    assert np.array_equal(base["won"], books["won"])


#: The first three outputs of SplitMix64 started from state 0 (Vigna's splitmix64.c).
SPLITMIX64_FROM_ZERO = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_a_stream_draws_splitmix64_from_its_key():
    jitted = np.zeros(2, dtype=np.uint64)  # key 0, nothing drawn
    twin = object.__new__(PyStream)
    twin.key, twin.counter = 0, 0
    assert [int(next_u64_nb(jitted)) for _ in range(3)] == SPLITMIX64_FROM_ZERO
    assert [twin.next_u64() for _ in range(3)] == SPLITMIX64_FROM_ZERO
    assert int(jitted[1]) == twin.counter == 3


def test_every_bit_of_the_seed_and_of_the_game_changes_the_stream():
    """Seeds (and games) 0..2**63-1 are as many batches (and games): one that differs from
    another only in a high bit is not the same one."""
    base = 5 << 20 | 3
    for bit in range(63):
        flipped = base ^ (1 << bit)
        keys = {(seed, game): int(new_stream_nb(seed, game, Stream.DEAL)[0])
                for seed, game in ((base, base), (flipped, base), (base, flipped))}
        assert len(set(keys.values())) == 3, bit
        assert keys == {(seed, game): PyStream(seed, game, Stream.DEAL).key
                        for seed, game in keys}, bit
