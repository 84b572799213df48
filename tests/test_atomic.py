"""Files written whole or not at all, and sets of files written as one."""

from __future__ import annotations

import os
import signal

import pytest

from analyzer import atomic
from analyzer.errors import UrbionError


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler, as in a terminal (a test worker may have another)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _old_set(folder):
    for name in ("a.csv", "b.md", "c.html"):
        (folder / name).write_text(f"old {name}")


def test_a_set_that_cannot_be_written_whole_leaves_the_old_set(tmp_path, monkeypatch):
    """The third file fails (a full disk): the first two must not replace theirs."""
    _old_set(tmp_path)
    real = atomic.Path.write_bytes
    written = []

    def third_fails(self, content):
        written.append(self)
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        return real(self, content)

    monkeypatch.setattr(atomic.Path, "write_bytes", third_fails)
    with pytest.raises(UrbionError, match=r"c\.html: No space left on device"):
        atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new", "c.html": b"new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.md", "c.html"]
    assert all(p.read_text().startswith("old") for p in tmp_path.iterdir())


def test_ctrl_c_during_the_renames_comes_after_the_whole_set(tmp_path, monkeypatch,
                                                            python_sigint):
    _old_set(tmp_path)
    real = os.replace
    renamed = []

    def interrupted_replace(src, dst):
        if not renamed:
            os.kill(os.getpid(), signal.SIGINT)
        renamed.append(dst)
        return real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new", "c.html": b"new"})
    assert len(renamed) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.md", "c.html"]
    assert all(p.read_text() == "new" for p in tmp_path.iterdir())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
