"""The on-disk kernel cache: keyed by the sources, and never a stale fallback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from analyzer.core import jit


def _cache_dir_in_subprocess(env_cache: str) -> str:
    code = "from analyzer.core import jit; print(jit.CACHE_DIR)"
    env = {"URBION_CACHE_DIR": env_cache, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    return proc.stdout.strip()


def test_an_unwritable_cache_folder_turns_caching_off(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert _cache_dir_in_subprocess(str(blocker / "cache")) == "None"


def test_the_cache_folder_is_named_by_the_source_hash(tmp_path):
    folder = _cache_dir_in_subprocess(str(tmp_path))
    assert folder == str(tmp_path / jit.source_hash())


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    """A copy of the package that source_hash() reads instead of the real one."""
    import shutil

    copy = tmp_path / "analyzer"
    shutil.copytree(jit._PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(jit, "_PACKAGE", copy)
    return copy


def test_the_source_hash_covers_every_kernel_file(package_copy):
    copy = package_copy
    before = jit.source_hash()
    helper = copy / "rules" / "chaos_nb.py"
    helper.write_text(helper.read_text().replace("REVEAL_COUNT = 4", "REVEAL_COUNT = 1"))
    assert jit.source_hash() != before


def test_the_source_hash_ignores_python_only_runner_modules(package_copy):
    copy = package_copy
    before = jit.source_hash()
    plan = copy / "runner" / "plan.py"
    plan.write_text(plan.read_text() + "\n# a comment\n")
    assert jit.source_hash() == before
    batch = copy / "runner" / "batch_nb.py"
    batch.write_text(batch.read_text() + "\n# a comment\n")
    assert jit.source_hash() != before


def test_a_kernel_that_cannot_be_saved_runs_all_the_same_with_one_note(monkeypatch, capsys):
    """A full disk under the cache: numba's save raises OSError (a traceback, exit 1). The
    cache only saves time: the kernel runs, and a note says the next run compiles again."""
    import errno

    from numba.core import caching

    def disk_full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(caching.IndexDataCacheFile, "save", disk_full)
    monkeypatch.setattr(jit, "_cache_noted", False)

    def twice(x):
        return 2 * x

    def thrice(x):
        return 3 * x

    doubled, tripled = jit._kernel(twice, cache=True), jit._kernel(thrice, cache=True)
    assert doubled(21) == 42 and tripled(2) == 6
    err = capsys.readouterr().err
    assert err.count("urbion: note: cannot save the compiled engine in ") == 1
    assert err.rstrip().endswith("(No space left on device): the next run compiles it again")


def test_without_a_home_folder_nothing_is_cached_in_a_folder_named_tilde(monkeypatch):
    """HOME unset for a user the system does not list (a container's --user): expanduser
    leaves "~" as it is, and the cache went to ./~/.cache in the working folder."""
    monkeypatch.setattr(jit, "CACHE_PROBLEM", None)  # put back after the test
    monkeypatch.delenv("URBION_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(jit.os.path, "expanduser", lambda path: path)
    assert jit._cache_root() is None
    monkeypatch.setenv("URBION_NO_CACHE", "0")
    assert jit._writable_cache_dir() is None
    assert jit.CACHE_PROBLEM == "no home folder to keep it in (set URBION_CACHE_DIR)"


def test_a_cache_that_cannot_be_kept_is_said_once(tmp_path, monkeypatch, capsys):
    """A cache folder that is a file, or a read-only home: every run compiled for 20 s
    more, without a word."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code = ("from analyzer.core import jit; print(jit.CACHE_PROBLEM); jit.note_cache_off(); "
            "jit.note_cache_off()")
    env = {"URBION_CACHE_DIR": str(blocker / "cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    assert done.stdout.strip().endswith(": Not a directory")
    assert done.stderr.count("urbion: note: the compiled engine cannot be kept (") == 1
    assert done.stderr.rstrip().endswith("every run compiles it again; URBION_CACHE_DIR names "
                                         "another folder")
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**env, "URBION_NO_CACHE": "1"}, check=True)
    assert off.stdout.strip() == "None" and off.stderr == ""  # turned off: nothing to say


def test_a_cache_note_that_stderr_will_not_take_does_not_stop_the_run(monkeypatch):
    """stderr on a full disk: the note is dropped, not raised into the run it is about."""
    class Full:
        def write(self, text):
            raise OSError(28, "No space left on device")

        def flush(self):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(jit, "CACHE_PROBLEM", "x: Not a directory")
    monkeypatch.setattr(jit, "_cache_noted", False)
    monkeypatch.setattr(sys, "stderr", Full())
    jit.note_cache_off()  # no OSError
    assert jit._cache_noted


def test_the_cache_note_comes_from_the_run_not_from_each_dask_worker(monkeypatch, capsys):
    """A local run says it once; what a Dask worker runs to prepare (once per worker: the
    note came twice on local:2) says nothing."""
    from analyzer.cards import default_card_set
    from analyzer.runner.chunks import prepare_kernels
    from analyzer.runner.executors import LocalExecutor
    from analyzer.runner.plan import RunPlan

    monkeypatch.setattr(jit, "CACHE_PROBLEM", "x: Not a directory")
    monkeypatch.setattr(jit, "_cache_noted", False)
    plan = RunPlan(default_card_set(), "greedy", 1, 10)
    prepare_kernels(plan)  # as a worker of a cluster
    assert capsys.readouterr().err == ""
    LocalExecutor(1).prepare(plan)
    LocalExecutor(1).prepare(plan)
    assert capsys.readouterr().err.count("urbion: note: the compiled engine cannot be kept") == 1


def test_a_damaged_kernel_in_the_cache_is_compiled_again_with_one_note(tmp_path):
    """A kept kernel cut short, or an index emptied (a disk that filled, a copy that
    stopped): every run failed with numba's traceback, or an EOFError that read as
    'interrupted', until the folder was found and removed. It is compiled again, once, and
    kept anew."""
    (tmp_path / "kernels.py").write_text("def twice(x):\n    return 2 * x\n")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import kernels; "
            "from analyzer.core import jit; print(jit._kernel(kernels.twice, cache=True)(21))")
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PATH": "/usr/bin:/bin",
           "URBION_CACHE_DIR": str(tmp_path / "urbion")}

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env)
        assert (done.returncode, done.stdout) == (0, "42\n"), done.stderr
        return done.stderr

    assert run() == ""
    kept = list((tmp_path / "numba").rglob("*.nbc"))
    index = list((tmp_path / "numba").rglob("*.nbi"))
    assert len(kept) == len(index) == 1
    for damage in (lambda: kept[0].write_bytes(kept[0].read_bytes()[:40]),
                   lambda: index[0].write_bytes(b""),
                   lambda: index[0].write_bytes(b"not a pickle at all")):
        damage()
        said = run()
        assert said.count("urbion: note: the compiled engine kept in ") == 1, said
        assert "is damaged (" in said and said.rstrip().endswith(
            "it is compiled again and kept anew")
        assert run() == ""  # kept anew: the next run loads it


@pytest.mark.parametrize("value, off", [("1", True), ("true", True), ("YES", True),
                                        (" on ", True), ("0", False), ("false", False),
                                        ("", False)])
def test_urbion_no_cache_takes_the_words_shells_spell_yes_with(monkeypatch, tmp_path, value,
                                                              off):
    """URBION_NO_CACHE=true kept the cache on without a word: only 1 turned it off."""
    monkeypatch.setenv("URBION_NO_CACHE", value)
    monkeypatch.setenv("URBION_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(jit, "CACHE_PROBLEM", None)  # put back after the test
    assert (jit._writable_cache_dir() is None) == off


def test_a_cache_folder_shared_with_other_files_loses_none_of_them(tmp_path):
    """URBION_CACHE_DIR may name a folder that holds other things (~/.cache, /tmp): only
    the source-hash folders the package made and marked are pruned, the oldest first."""
    import os

    root = tmp_path / "shared"
    mine = {name: root / name for name in ("photos", "thesis", "0123456789abcdef", "notes")}
    for folder in mine.values():  # a user's, one even named like a source hash
        folder.mkdir(parents=True)
        (folder / "kept.txt").write_text("the user's")
    made = [root / f"{k:016x}" for k in range(1, 7)]  # six earlier sources' caches
    for age, folder in enumerate(made):
        folder.mkdir()
        (folder / jit.CACHE_MARK).touch()
        os.utime(folder, (1_000_000 + age, 1_000_000 + age))
    for folder in mine.values():
        os.utime(folder, (1, 1))  # older than every cache
    (root / "loose.txt").write_text("a file")
    current = _cache_dir_in_subprocess(str(root))  # as the package is imported
    assert current == str(root / jit.source_hash())
    for folder in mine.values():
        assert (folder / "kept.txt").read_text() == "the user's"
    assert (root / "loose.txt").exists()
    left = sorted(p.name for p in root.iterdir() if jit.is_kernel_cache(p))
    assert left == sorted([jit.source_hash(), *(f.name for f in made[-jit.KEEP_OLD_CACHES:])])


def test_the_default_folder_prunes_the_unmarked_caches_of_earlier_versions(tmp_path):
    """~/.cache/urbion/numba is the package's own: caches made before folders were marked
    go the way of marked ones there, and a file beside them stays."""
    import os

    root = tmp_path / "xdg" / "urbion" / "numba"
    made = [root / f"{k:016x}" for k in range(1, 7)]  # six earlier sources', unmarked
    for age, folder in enumerate(made):
        folder.mkdir(parents=True)
        os.utime(folder, (1_000_000 + age, 1_000_000 + age))
    (root / "README").write_text("a note")
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", "from analyzer.core import jit; "
                           "print(jit.CACHE_DIR)"], capture_output=True, text=True, env=env,
                          check=True)
    assert done.stdout.strip() == str(root / jit.source_hash())
    left = sorted(p.name for p in root.iterdir())
    assert left == sorted(["README", jit.source_hash(),
                           *(f.name for f in made[-jit.KEEP_OLD_CACHES:])])
