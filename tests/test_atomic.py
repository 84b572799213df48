"""Files written whole or not at all, and sets of files written as one."""

from __future__ import annotations

import os
import signal

import pytest

from analyzer import atomic
from analyzer.errors import UrbionError


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
    with pytest.raises(KeyboardInterrupt) as stop:
        atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new", "c.html": b"new"})
    assert atomic.SET_WRITTEN in stop.value.__notes__  # the caller can say so
    assert len(renamed) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.md", "c.html"]
    assert all(p.read_text() == "new" for p in tmp_path.iterdir())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_name_taken_by_a_folder_is_refused_before_any_file_is_replaced(tmp_path):
    """The third name is a folder of the user's: renaming onto it would fail after the
    first two were replaced, a mix of old and new, and leave a temporary file."""
    _old_set(tmp_path)
    (tmp_path / "c.html").unlink()
    (tmp_path / "c.html").mkdir()
    with pytest.raises(UrbionError, match=r"c\.html: it is a folder"):
        atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new", "c.html": b"new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.md", "c.html"]
    assert (tmp_path / "a.csv").read_text() == "old a.csv"


def test_a_rename_that_fails_midway_leaves_no_temporary_file(tmp_path, monkeypatch):
    _old_set(tmp_path)
    real = os.replace

    def second_fails(src, dst):
        if str(dst).endswith("b.md"):
            raise OSError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", second_fails)
    with pytest.raises(UrbionError, match=r"b\.md: Permission denied"):
        atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new", "c.html": b"new"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.md", "c.html"]


def test_sigint_and_sigterm_held_together_deliver_one_stop_sigterms(python_sigint):
    """Both came while held: one stop, and the stronger one (a job scheduler's end, which
    the caller reports as terminated); the handlers are put back."""
    delivered = []
    previous = signal.signal(signal.SIGTERM, lambda n, _f: delivered.append(n))
    try:
        with atomic.signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGTERM)
        assert delivered == [signal.SIGTERM]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_file_replaced_keeps_its_permissions_as_a_shells_redirect_does(tmp_path):
    """A private results file written again must not become readable by everyone."""
    private = tmp_path / "r.parquet"
    private.write_text("old")
    private.chmod(0o600)
    atomic.write_atomically(private, lambda tmp: open(tmp, "w").write("new"))
    assert private.read_text() == "new" and (private.stat().st_mode & 0o777) == 0o600
    _old_set(tmp_path)
    (tmp_path / "b.md").chmod(0o640)
    atomic.write_together(tmp_path, {"a.csv": b"new", "b.md": b"new"})
    assert (tmp_path / "b.md").stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "new.txt"
    atomic.write_atomically(fresh, lambda tmp: open(tmp, "w").write("new"))
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask  # a new file: the usual


def test_a_report_folder_replaced_keeps_its_permissions(tmp_path):
    import analyzer

    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, seed=1, out=results)
    out = analyzer.report([results], tmp_path / "rep")
    out.chmod(0o700)
    analyzer.report([results], out)
    assert out.stat().st_mode & 0o777 == 0o700


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    """Half the bytes written, then a full disk: the file keeps its old content, no
    temporary file is left beside it, and the error is one line with the system's words."""
    target = tmp_path / "r.parquet"
    target.write_text("old")

    def half_then_full(tmp):
        with open(tmp, "w") as file:
            file.write("half of the ne")
        raise OSError(28, "No space left on device")

    with pytest.raises(UrbionError, match=r"r\.parquet: No space left on device$"):
        atomic.write_atomically(target, half_then_full)
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]
    assert target.read_text() == "old"
    fresh = tmp_path / "new.parquet"  # a new file: not made at all
    with pytest.raises(UrbionError, match="No space left on device"):
        atomic.write_atomically(fresh, half_then_full)
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]
