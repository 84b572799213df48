"""Checkpoint and resume: an interrupted run continued equals an uninterrupted one."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import analyzer
from analyzer.analysis.results_io import read_results
from analyzer.cards import default_card_set
from analyzer.errors import PolicyError, RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec, resolve_policy
from analyzer.runner.checkpoint import Checkpoint, partial_folder
from analyzer.runner.executors import LocalExecutor
from analyzer.runner.plan import DEFAULT_CHUNK, SEARCH_CHUNK, RunPlan
from analyzer.runner.run import execute

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "cautious.py"


def rows(df):
    """The per-game rows of a results DataFrame, without its configuration."""
    return df.reset_index(drop=True).to_records(index=False)


class StopAfter:
    """An executor that plays ``n`` chunks, then behaves as if Ctrl-C were pressed."""

    def __init__(self, n: int) -> None:
        self.inner, self.n = LocalExecutor(1), n

    def imap(self, plan, indices, summary_only):
        for k, item in enumerate(self.inner.imap(plan, indices, summary_only)):
            if k == self.n:
                raise KeyboardInterrupt
            yield item

    def close(self):
        pass


def _stopped_after_one_chunk(tmp_path: Path) -> Path:
    """The output of a run of 600 random games of seed 2 in chunks of 200, stopped once
    its first chunk was saved."""
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 2, 600, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(1), checkpoint=Checkpoint.start(out, plan.identity(False),
                                                                False))
    return out


def test_interrupted_then_resumed_equals_uninterrupted(tmp_path):
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 21, 1000, chunk=150)
    identity = plan.identity(summary_only=False)
    with pytest.raises(RunStopped, match="450 of 1,000 games saved.*--resume"):
        execute(plan, StopAfter(3), checkpoint=Checkpoint.start(out, identity, False))
    assert sorted(p.name for p in partial_folder(out).glob("chunk-*.npy")) == [
        "chunk-000000.npy", "chunk-000001.npy", "chunk-000002.npy"]
    resumed = analyzer.simulate(games=1000, seed=21, policy="random", chunk=150, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 450
    whole = analyzer.simulate(games=1000, seed=21, policy="random")
    assert np.array_equal(rows(resumed), rows(whole))
    assert np.array_equal(rows(read_results(out)), rows(whole))
    assert not partial_folder(out).exists()


def test_a_resumed_runs_bar_starts_at_the_saved_games_and_counts_its_own_rate(
        tmp_path, capsys, monkeypatch):
    """450 saved games are where the bar begins, not 450 games played in its first instant
    (which made the rate and the time left of a resumed run many times too good)."""
    from analyzer.runner import progress

    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 21, 1000, chunk=150)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(3), checkpoint=Checkpoint.start(
            out, plan.identity(summary_only=False), False))
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)  # a line for every update
    capsys.readouterr()
    analyzer.simulate(games=1000, seed=21, policy="random", chunk=150, out=out, resume=True,
                      progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("games:  45%") and "450/1.00k" in lines[0], lines
    assert all(int(re.search(r"(\d+)%", line).group(1)) >= 45 for line in lines)


def test_a_damaged_chunk_file_is_played_again(tmp_path):
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "greedy", 4, 600, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(2),
                checkpoint=Checkpoint.start(out, plan.identity(False), False))
    (partial_folder(out) / "chunk-000001.npy").write_bytes(b"\x93NUMPY truncated")
    resumed = analyzer.simulate(games=600, seed=4, chunk=200, out=out, resume=True)
    assert resumed.attrs["games_resumed"] == 200
    assert np.array_equal(rows(resumed), rows(analyzer.simulate(games=600, seed=4)))


def test_a_saved_last_chunk_counts_its_own_games_only(tmp_path):
    """500 games in chunks of 200: the last chunk holds 100 games, and a resume that reads
    it back has taken 100 games from it, not 200."""
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 4, 500, chunk=200)
    with Checkpoint.start(out, plan.identity(False), False) as checkpoint:
        execute(plan, LocalExecutor(1), checkpoint=checkpoint)
    (partial_folder(out) / "chunk-000000.npy").unlink()  # chunks 1 and 2 stay saved
    resumed = analyzer.simulate(games=500, seed=4, policy="random", chunk=200, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 200 + 100
    assert np.array_equal(rows(resumed), rows(analyzer.simulate(games=500, seed=4,
                                                                policy="random")))


def _copy_chunk_0_to_3(folder: Path) -> int:
    for suffix in (".npy", ".sha256"):
        (folder / f"chunk-000003{suffix}").write_bytes((folder / f"chunk-000000{suffix}")
                                                        .read_bytes())
    return 600


def _flip_a_byte_of_chunk_1(folder: Path) -> int:
    path = folder / "chunk-000001.npy"
    data = bytearray(path.read_bytes())
    data[-9] ^= 0x01
    path.write_bytes(bytes(data))
    return 400


def _empty_chunk_2(folder: Path) -> int:
    (folder / "chunk-000002.npy").write_bytes(b"")
    return 400


@pytest.mark.parametrize("summary_only", [False, True], ids=["rows", "summary"])
@pytest.mark.parametrize("damage", [_copy_chunk_0_to_3, _flip_a_byte_of_chunk_1,
                                    _empty_chunk_2], ids=["copied", "flipped", "empty"])
def test_a_chunk_copied_changed_or_emptied_on_disk_is_played_again(tmp_path, damage,
                                                                   summary_only):
    """A resumed run must never count a chunk twice or trust changed bytes: its digest
    names the chunk and its content."""
    out = tmp_path / ("s.json" if summary_only else "r.parquet")
    plan = RunPlan(default_card_set(), "random", 5, 1000, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(3), summary_only=summary_only,
                checkpoint=Checkpoint.start(out, plan.identity(summary_only), False))
    expected_resumed = damage(partial_folder(out))
    whole = analyzer.simulate(games=1000, seed=5, policy="random")
    if summary_only:
        resumed = analyzer.simulate_summary(games=1000, seed=5, policy="random", chunk=200,
                                            out=out, resume=True)
        assert resumed["config"]["games_resumed"] == expected_resumed
        assert resumed["wins"] == analyzer.summarize(whole)["wins"]
        assert resumed["games"] == 1000
    else:
        resumed = analyzer.simulate(games=1000, seed=5, policy="random", chunk=200, out=out,
                                    resume=True)
        assert resumed.attrs["games_resumed"] == expected_resumed
        assert np.array_equal(rows(resumed), rows(whole))


def test_summary_only_run_resumes_to_the_same_summary(tmp_path):
    out = tmp_path / "s.json"
    plan = RunPlan(default_card_set(), "random", 8, 900, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(2), summary_only=True,
                checkpoint=Checkpoint.start(out, plan.identity(True), False))
    resumed = analyzer.simulate_summary(games=900, seed=8, policy="random", chunk=200,
                                        out=out, resume=True)
    assert resumed["config"]["games_resumed"] == 400
    full = analyzer.summarize(analyzer.simulate(games=900, seed=8, policy="random"))
    for key, value in full.items():
        assert resumed[key] == pytest.approx(value), key
    assert json.loads(out.read_text())["summary"]["wins"] == full["wins"]


@pytest.mark.parametrize("change, word", [({"seed": 3}, "seed"),
                                          ({"policy": "greedy"}, "policy"),
                                          ({"games": 700}, "games"),
                                          ({"chunk": 100}, "chunk"),
                                          ({"first_game": 200}, "first_game"),
                                          ({"expansions": "chromatic_chaos"}, "expansions")])
def test_resume_with_another_configuration_is_refused(tmp_path, change, word):
    out = _stopped_after_one_chunk(tmp_path)
    args = {"games": 600, "seed": 2, "policy": "random", "chunk": 200, **change}
    with pytest.raises(UrbionError, match=f"different configuration.*{word}"):
        analyzer.simulate(out=out, resume=True, **args)
    assert not out.exists()
    assert (partial_folder(out) / "chunk-000000.npy").exists()  # the saved work is kept


def test_a_resume_by_another_version_of_the_package_is_refused_in_words(tmp_path,
                                                                       monkeypatch):
    from analyzer.runner import config

    out = _stopped_after_one_chunk(tmp_path)
    played = config.package_version()
    monkeypatch.setattr(config, "package_version", lambda: "9.9.9")
    with pytest.raises(UrbionError, match=re.escape(
            f"another version of the package: {played} there, 9.9.9 here")):
        analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out, resume=True)
    assert (partial_folder(out) / "chunk-000000.npy").exists()


def test_a_resume_with_another_card_set_names_both_sets(tmp_path):
    """Leaving out --cards on resume is another card set, not an edited file; an edited
    file of one name is said to have changed."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text().replace('name = "R14-default"', 'name = "mine"')
    mine.write_text(text)
    out = tmp_path / "r.parquet"
    plan = RunPlan(analyzer.load_cards(mine), "random", 2, 600, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(1), checkpoint=Checkpoint.start(out, plan.identity(False),
                                                                False))
    with pytest.raises(UrbionError, match=r"another card set: mine \(sha256 \w{12}\) there, "
                                          r"R14-default \(sha256 d74bfe7f2d40\) here"):
        analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                          resume=True)
    chaos = text.index("[dreams.chaos]")
    mine.write_text(text[:chaos] + text[chaos:].replace("count = 8", "count = 6", 1))
    with pytest.raises(UrbionError, match="the card file has changed since the run was saved"):
        analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                          cards=mine, resume=True)


@pytest.mark.parametrize("text", ["[]", "null", "3", '"run"', '{"seed": 0', None])
def test_a_damaged_or_missing_run_file_says_how_to_start_afresh(tmp_path, text):
    out = tmp_path / "r.parquet"
    partial_folder(out).mkdir()
    if text is not None:
        (partial_folder(out) / "run.json").write_text(text)
    what = "no readable run.json" if text is None else "its run.json is damaged"
    with pytest.raises(UrbionError, match=f"cannot resume .*: {what}.*; delete .*r.parquet."
                                          "partial and run without --resume to start afresh"):
        analyzer.simulate(games=10, out=out, resume=True)


def test_a_new_run_refuses_to_overwrite_an_interrupted_one(tmp_path):
    out = tmp_path / "r.parquet"
    partial_folder(out).mkdir()
    with pytest.raises(UrbionError, match="holds an interrupted run: add --resume"):
        analyzer.simulate(games=10, out=out)


def test_a_run_still_going_keeps_its_folder_from_a_second_run(tmp_path):
    """A second process that resumed a folder a run still fills would play its chunks
    twice and write the output twice; the lock goes with the process that held it."""
    import subprocess
    import sys

    from analyzer.runner.checkpoint import Checkpoint

    out = tmp_path / "r.parquet"
    holder = Checkpoint(partial_folder(out), {}, opened=False)
    holder._open()  # as a run does on its first chunk
    try:
        for resume in (True, False):
            with pytest.raises(UrbionError, match="is kept by a run still going: wait"):
                analyzer.simulate(games=400, seed=2, policy="random", chunk=200, out=out,
                                  resume=resume)
        # another process is refused as well: flock's lock is the open file's
        code = ("import fcntl, os, sys; h = os.open(sys.argv[1], os.O_RDWR); "
                "fcntl.flock(h, fcntl.LOCK_EX | fcntl.LOCK_NB)")
        probe = subprocess.run([sys.executable, "-c", code,
                                str(partial_folder(out) / ".lock")], capture_output=True)
        assert probe.returncode != 0 and b"BlockingIOError" in probe.stderr
    finally:
        holder.close()
    with pytest.raises(UrbionError, match="holds an interrupted run: add --resume"):
        analyzer.simulate(games=400, seed=2, policy="random", chunk=200, out=out)


def test_resume_needs_out_and_something_saved(tmp_path):
    with pytest.raises(UrbionError, match="--resume needs --out"):
        analyzer.simulate(games=10, resume=True)
    with pytest.raises(UrbionError, match="nothing to resume"):
        analyzer.simulate(games=10, resume=True, out=tmp_path / "r.parquet")
    # a resume of a finished run: it named a folder it said did not exist
    for name, play in (("done.parquet", analyzer.simulate),
                       ("done.json", analyzer.simulate_summary)):
        play(games=10, out=tmp_path / name)
        with pytest.raises(UrbionError, match=f"^nothing to resume: {tmp_path / name} is "
                                              "written whole.*plays its games again$"):
            play(games=10, resume=True, out=tmp_path / name)
    # something there, but not what a run keeps: not said to be missing
    (tmp_path / "r.parquet.partial").write_text("notes")
    with pytest.raises(UrbionError, match=r"r\.parquet\.partial: it is a file, not the "
                                          "folder of finished chunks a run keeps"):
        analyzer.simulate(games=10, resume=True, out=tmp_path / "r.parquet")


def _default_sigint():
    # A suite started in the background of a non-interactive shell inherits Ctrl-C
    # ignored, and so would the run; the run under test gets a terminal's default
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignored_sigint():
    # a scheduler's job script runs its commands in the background: Ctrl-C ignored
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start(args, out, preexec=_default_sigint):
    cmd = [sys.executable, "-c", "import cli; cli.main()", "simulate", *args,
           "--out", str(out), "--quiet"]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec)


def _wait_for_chunks(proc, out, n, timeout=300):
    folder = partial_folder(out)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list(folder.glob("chunk-*.npy"))) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    pytest.fail("the run saved no chunk in time")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_a_killed_process_resumes_to_the_uninterrupted_results(tmp_path, sig):
    out = tmp_path / "r.parquet"
    args = ["--games", "150000", "--seed", "6", "--policy", "random", "--chunk", "5000",
            "--workers", "1"]
    # SIGTERM stops a run as Ctrl-C does, even where Ctrl-C is ignored
    proc = _start(args, out, _ignored_sigint if sig == signal.SIGTERM else _default_sigint)
    _wait_for_chunks(proc, out, 2)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == (130 if sig == signal.SIGINT else 143)
        word = "interrupted" if sig == signal.SIGINT else "terminated"
        assert err.startswith(f"urbion: {word}: "), err
        assert len(err.strip().splitlines()) == 1 and "--resume" in err, err
    assert not out.exists()  # never a half-written output
    saved = len(list(partial_folder(out).glob("chunk-*.npy")))
    assert 2 <= saved < 30
    done = subprocess.run([sys.executable, "-c", "import cli; cli.main()", "simulate", *args,
                           "--out", str(out), "--resume", "--quiet"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    resumed = read_results(out)
    assert resumed.attrs["games_resumed"] >= saved * 5000
    whole = analyzer.simulate(games=150000, seed=6, policy="random")
    assert np.array_equal(rows(resumed), rows(whole))
    assert sorted(os.listdir(tmp_path)) == ["r.parquet"]


def test_resume_is_refused_when_the_policy_source_changed(tmp_path):
    source = tmp_path / "mine.py"
    source.write_text(EXAMPLE.read_text())
    name = f"{source}:choose"
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), name, 2, 300, chunk=100)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(1), checkpoint=Checkpoint.start(out, plan.identity(False),
                                                                False))
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    source.write_text(EXAMPLE.read_text() + "\n# changed\n")
    after = hashlib.sha256(source.read_bytes()).hexdigest()
    with pytest.raises(UrbionError) as err:
        analyzer.simulate(games=300, seed=2, policy=name, chunk=100, out=out, resume=True)
    # said in words, the hashes cut to a length one can compare by eye
    assert "different configuration (the policy's source file has changed since the run was " \
        f"saved: sha256 {before[:12]} there, {after[:12]} here)" in str(err.value)
    assert before not in str(err.value)
    # another policy altogether: its hashes differ as a matter of course, unsaid
    with pytest.raises(UrbionError) as err:
        analyzer.simulate(games=300, seed=2, policy="greedy", chunk=100, out=out, resume=True)
    assert str(err.value).endswith(f"configuration (policy {name!r} there, 'greedy' here)")


def test_search_policies_get_small_chunks():
    cards = default_card_set()
    assert RunPlan.for_policy(cards, resolve_policy("search"), 0, 10).chunk == SEARCH_CHUNK
    # dearer options, smaller chunks: a chunk of search:rollouts=256 takes seconds, not
    # minutes (8 x 3 play-outs a decision by default, 256 x 3 here)
    dear = resolve_policy("search:rollouts=256")
    assert RunPlan.for_policy(cards, dear, 0, 10).chunk == SEARCH_CHUNK * 24 // 768 == 6
    lone = resolve_policy("search:rollouts=256,candidates=1")  # no play-outs: weighted
    assert RunPlan.for_policy(cards, lone, 0, 10).chunk == SEARCH_CHUNK
    assert RunPlan.for_policy(cards, resolve_policy("clairvoyant"), 0, 10).chunk == \
        SEARCH_CHUNK
    assert RunPlan.for_policy(cards, resolve_policy("greedy"), 0, 10).chunk == DEFAULT_CHUNK


def test_the_reference_engine_plays_small_chunks_so_that_a_stop_comes_soon():
    """A chunk of the fast engine's 20,000 games took the reference engine minutes, and a
    Ctrl-C waited for it: its default chunk is a second or two of its games. The results
    are the same however a run is cut."""
    from analyzer.runner.plan import REFERENCE_CHUNK

    cards = default_card_set()
    plan = RunPlan.for_policy(cards, resolve_policy("greedy"), 0, 10, engine="reference")
    assert plan.chunk == REFERENCE_CHUNK == 200
    played = analyzer.simulate(games=250, seed=3, engine="reference", workers=1)
    assert played.attrs["chunk"] == REFERENCE_CHUNK
    fast = analyzer.simulate(games=250, seed=3, workers=1)
    assert played.equals(fast)


def test_a_first_chunk_that_cannot_be_saved_reads_as_one_sentence(tmp_path, monkeypatch):
    """The error's own reason ends its part of the line; what was played follows."""
    def refuse(self, index, payload):
        raise UrbionError(f"cannot create {self.folder}: No such file or directory")

    monkeypatch.setattr(Checkpoint, "save", refuse)
    out = tmp_path / "r.parquet"
    with pytest.raises(RunStopped) as stopped:
        analyzer.simulate(games=50, policy="random", out=out)
    assert str(stopped.value) == (f"cannot create {out}.partial: No such file or directory; "
                                  "stopped after 0 of 50 games; nothing was saved")
    assert list(tmp_path.iterdir()) == []


def test_a_run_stopped_before_its_first_chunk_leaves_nothing(tmp_path):
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 3, 600, chunk=200)
    with pytest.raises(RunStopped, match="after 0 of 600 games; nothing was saved"):
        execute(plan, StopAfter(0), checkpoint=Checkpoint.start(out, plan.identity(False),
                                                                False))
    assert list(tmp_path.iterdir()) == []
    assert len(analyzer.simulate(games=600, seed=3, policy="random", out=out)) == 600


def test_a_policy_failing_mid_run_leaves_no_partial_folder(tmp_path):
    from tests.test_policies import breaks_on_turn_3

    out = tmp_path / "r.parquet"
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    with pytest.raises(PolicyError, match="illegal decision"):
        analyzer.simulate(games=40, seed=4, policy=spec, chunk=10, workers=1, out=out)
    assert list(tmp_path.iterdir()) == []  # its chunks could never be finished
    assert len(analyzer.simulate(games=40, seed=4, out=out)) == 40


def test_a_failed_resume_keeps_the_saved_chunks(tmp_path):
    from analyzer.runner.results import RESULT_DTYPE, game_numbers
    from tests.test_policies import breaks_on_turn_3

    out = tmp_path / "r.parquet"
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    plan = RunPlan.for_policy(default_card_set(), spec, 4, 40, chunk=10)
    saved = Checkpoint.start(out, plan.identity(False), False)
    rows = np.zeros(10, dtype=RESULT_DTYPE)
    rows["game"] = game_numbers(0, 10)
    saved.save(0, rows)  # as if an earlier part of the run had finished chunk 0
    saved.close()  # and ended
    with pytest.raises(PolicyError, match="illegal decision"):
        analyzer.simulate(games=40, seed=4, policy=spec, chunk=10, out=out, resume=True)
    assert (partial_folder(out) / "chunk-000000.npy").exists()  # not this run's to drop


def _disk_full_at(monkeypatch, name_start: str) -> None:
    """Make the checkpoint's writes of files whose names start with ``name_start`` fail as
    on a full disk."""
    import analyzer.runner.checkpoint as checkpoint

    real = checkpoint.write_atomically

    def disk_full(path, write):
        if path.name.startswith(name_start):
            raise UrbionError(f"cannot write {path}: No space left on device")
        real(path, write)

    monkeypatch.setattr(checkpoint, "write_atomically", disk_full)


def test_a_chunk_that_cannot_be_saved_stops_the_run_with_the_others_kept(tmp_path,
                                                                          monkeypatch):
    out = tmp_path / "r.parquet"
    _disk_full_at(monkeypatch, "chunk-000003")
    with pytest.raises(RunStopped, match="No space left on device.*30 of 60 games saved.*"
                                         "--resume") as err:
        analyzer.simulate(games=60, seed=2, policy="random", chunk=10, workers=1, out=out)
    assert not err.value.interrupted
    assert len(list(partial_folder(out).glob("chunk-*.npy"))) == 3
    monkeypatch.undo()
    resumed = analyzer.simulate(games=60, seed=2, policy="random", chunk=10, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 30


def test_a_first_chunk_that_cannot_be_saved_leaves_no_folder(tmp_path, monkeypatch):
    """The disk is full at the first chunk: a folder of run.json and a digest holds no
    game, and sent the user to --resume what was nothing."""
    out = tmp_path / "r.parquet"
    _disk_full_at(monkeypatch, "chunk-000000.npy")
    with pytest.raises(RunStopped) as err:
        analyzer.simulate(games=60, seed=2, policy="random", chunk=10, workers=1, out=out)
    assert str(err.value).endswith("No space left on device; stopped after 0 of 60 games; "
                                   "nothing was saved")
    assert list(tmp_path.iterdir()) == []


def test_a_run_file_that_cannot_be_written_leaves_no_folder(tmp_path, monkeypatch):
    """A full disk as the folder is made: a folder without its run.json could be neither
    resumed nor replaced; the same command runs as new once there is room."""
    import analyzer.runner.checkpoint as checkpoint

    out = tmp_path / "r.parquet"
    real = checkpoint.write_atomically

    def disk_full_at_run_file(path, write):
        if path.name == "run.json":
            raise UrbionError(f"cannot write {path}: No space left on device")
        real(path, write)

    monkeypatch.setattr(checkpoint, "write_atomically", disk_full_at_run_file)
    with pytest.raises(UrbionError, match="No space left on device"):
        analyzer.simulate(games=60, seed=2, policy="random", chunk=10, workers=1, out=out)
    assert not partial_folder(out).exists() and not out.exists()
    monkeypatch.undo()
    analyzer.simulate(games=60, seed=2, policy="random", chunk=10, out=out)
    assert out.exists()


def test_a_run_stopped_while_its_chunks_are_removed_still_resumes(tmp_path, monkeypatch):
    out = tmp_path / "r.parquet"
    args = {"games": 60, "seed": 2, "policy": "random", "chunk": 10, "workers": 1}
    whole = analyzer.simulate(**args)
    real = os.unlink
    for stop_at in range(1, 14):  # run.json and six chunks with their digests
        removed = []

        def unlink(path, *more, stop_at=stop_at, removed=removed, **options):
            if out.exists():  # the results are written: the chunks are being removed
                removed.append(path)
                if len(removed) == stop_at:
                    raise KeyboardInterrupt  # as if the process were killed here
            real(path, *more, **options)

        monkeypatch.setattr(os, "unlink", unlink)
        with pytest.raises(KeyboardInterrupt):
            analyzer.simulate(out=out, **args)
        monkeypatch.undo()
        resumed = analyzer.simulate(out=out, resume=True, **args)
        assert np.array_equal(rows(resumed), rows(whole))
        assert np.array_equal(rows(read_results(out)), rows(whole))
        assert sorted(os.listdir(tmp_path)) == ["r.parquet"]
        out.unlink()


def test_a_resume_removes_the_results_file_a_killed_write_left_half_done(tmp_path):
    out = tmp_path / "r.parquet"
    plan = RunPlan(default_card_set(), "random", 5, 600, chunk=200)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(1), checkpoint=Checkpoint.start(out, plan.identity(False),
                                                                False))
    (tmp_path / ".r.parquet.k1ll3d.tmp").write_bytes(b"PAR1 cut short")  # its temporary
    (tmp_path / ".other.parquet.x.tmp").write_bytes(b"")  # another run's: left alone
    analyzer.simulate(games=600, seed=5, policy="random", chunk=200, out=out, resume=True)
    assert sorted(os.listdir(tmp_path)) == [".other.parquet.x.tmp", "r.parquet"]


@pytest.mark.parametrize("summary_only", [False, True])
@pytest.mark.parametrize("mishap", [KeyboardInterrupt,
                                    UrbionError("cannot write: No space left on device")])
def test_a_final_write_that_stops_says_the_games_wait_for_resume(tmp_path, monkeypatch,
                                                                  mishap, summary_only):
    import analyzer.analysis.results_io as results_io

    out = tmp_path / ("r.json" if summary_only else "r.parquet")
    play = analyzer.simulate_summary if summary_only else analyzer.simulate
    args = {"games": 60, "seed": 2, "policy": "random", "chunk": 10, "out": out}

    def stopped(*_args):
        raise mishap

    monkeypatch.setattr(results_io.atomic, "write_atomically", stopped)
    with pytest.raises(RunStopped, match="60 games stay saved in .*--resume") as stop:
        play(**args)
    assert stop.value.interrupted == (mishap is KeyboardInterrupt)
    assert not out.exists()
    monkeypatch.undo()
    assert play(resume=True, **args) is not None
    assert sorted(os.listdir(tmp_path)) == [out.name]


#: Run as ``python -c``: Ctrl-C arrives while LLVM is inside llvmlite's object-cache
#: callback, where Python drops a KeyboardInterrupt.
_CTRL_C_IN_LLVM = """
import os, signal
from numba.core import codegen
original = codegen.CPUCodeLibrary._object_compiled_hook.__func__
fired = []
def hook(cls, ll_module, buf):
    if not fired:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGINT)
    return original(cls, ll_module, buf)
codegen.CPUCodeLibrary._object_compiled_hook = classmethod(hook)
import cli
cli.main()
"""


def test_ctrl_c_while_a_policy_compiles_stops_the_run(tmp_path):
    out = tmp_path / "r.parquet"
    proc = subprocess.run([sys.executable, "-c", _CTRL_C_IN_LLVM, "simulate", "--games",
                           "50", "--policy", f"{EXAMPLE}:choose", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True,
                          preexec_fn=_default_sigint)
    assert proc.returncode == 130, proc.stderr
    assert [line for line in proc.stderr.splitlines() if line] == [
        "stopping once the compile in progress ends (Ctrl-C again to stop now)",
        "urbion: interrupted; nothing was saved"]
    assert proc.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_a_stop_in_a_command_of_many_runs_names_the_run(monkeypatch):
    import analyzer.api as api

    calls = []

    def stop_on_third(**kwargs):
        calls.append(kwargs)
        if len(calls) == 3:
            raise RunStopped("interrupted after 0 of 50 games; nothing was saved", True)
        return real(**kwargs)

    real = api.simulate
    monkeypatch.setattr(api.simulation, "simulate", stop_on_third)
    with pytest.raises(RunStopped, match=r"^sensitivity, card set 3 of \d+ \(Incubi spread "
                                         r"[^)]*\): interrupted after 0 of 50 games") as err:
        api.sensitivity(games=50)
    assert err.value.interrupted
    calls.clear()
    with pytest.raises(RunStopped, match=r"^duel, policy weighted \(3 of 3\): interrupted"):
        api.duel("greedy,random,weighted", games=50)


def test_a_short_write_on_a_full_disk_says_the_disk_is_full(tmp_path, monkeypatch):
    """numpy's short write carries no errno: "5000 requested and 3989 written"."""
    import shutil
    from collections import namedtuple

    from analyzer import atomic

    def short_write(tmp):
        raise OSError("5000 requested and 3989 written")

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage(10**9, 10**9, 4096))
    # its counts are of items, which would read as games: left out
    with pytest.raises(UrbionError, match=r"chunk\.npy: No space left on device$"):
        atomic.write_atomically(tmp_path / "chunk.npy", short_write)
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage(10**9, 0, 10**9))
    with pytest.raises(UrbionError, match=r"chunk\.npy: 5000 requested and 3989 written$"):
        atomic.write_atomically(tmp_path / "chunk.npy", short_write)


def test_a_full_disk_is_said_alike_whichever_library_wrote(tmp_path):
    """pyarrow puts the errno in its message, with no errno of its own: the same words as
    the system's, not "Error writing bytes to file. Detail: [errno 28] ..."."""
    from analyzer import atomic

    def pyarrow_write(tmp):
        raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on "
                      "device")

    with pytest.raises(UrbionError, match=r"r\.parquet: No space left on device$"):
        atomic.write_atomically(tmp_path / "r.parquet", pyarrow_write)
    assert list(tmp_path.iterdir()) == []


def test_the_folder_stays_held_until_the_output_is_written(tmp_path, monkeypatch):
    """A second --resume that came while a long output was written would write it twice,
    or lose its chunks to the first run's removal of the folder."""
    import fcntl

    import analyzer.api as api

    out = tmp_path / "r.parquet"
    real = api.simulation.write_results
    probes = []

    def probing(df, path):
        with (partial_folder(out) / ".lock").open("a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                probes.append("free")
            except BlockingIOError:
                probes.append("held")
        real(df, path)

    monkeypatch.setattr(api.simulation, "write_results", probing)
    analyzer.simulate(games=60, seed=2, policy="random", chunk=10, out=out)
    assert probes == ["held"] and not partial_folder(out).exists()


def test_a_refused_resume_lets_the_folder_go_though_its_error_is_kept(tmp_path):
    """A notebook keeps the last exception, and with it what its traceback reached."""
    out = tmp_path / "r.parquet"
    with pytest.raises(RunStopped):
        _stop_after_two_chunks(out)
    with pytest.raises(UrbionError, match="different configuration") as kept:
        analyzer.simulate(games=60, seed=3, policy="random", chunk=10, out=out, resume=True)
    resumed = analyzer.simulate(games=60, seed=2, policy="random", chunk=10, out=out,
                                resume=True)
    assert kept.value is not None and resumed.attrs["games_resumed"] == 20


def _stop_after_two_chunks(out: Path) -> None:
    plan = RunPlan(default_card_set(), "random", 2, 60, chunk=10)
    with Checkpoint.start(out, plan.identity(False), False) as checkpoint:
        execute(plan, StopAfter(2), checkpoint=checkpoint)


def test_a_run_of_many_chunks_looks_only_for_the_chunks_it_saved(tmp_path, monkeypatch):
    """A new --summary-only --out run of ten million chunks tried to read every chunk's
    file before playing (gigabytes of memory, no game played after minutes); a resume read
    every index too. Only the chunk files in the folder are read, and the others played."""
    looked = []
    load = Checkpoint.load
    monkeypatch.setattr(Checkpoint, "load",
                        lambda self, index, *args: looked.append(index) or
                        load(self, index, *args))
    out = tmp_path / "s.json"
    plan = RunPlan(default_card_set(), "random", 5, 10**9, chunk=100)
    checkpoint = Checkpoint.start(out, plan.identity(summary_only=True), False)
    with pytest.raises(RunStopped, match="300 of 1,000,000,000 games saved"):
        execute(plan, StopAfter(3), summary_only=True, checkpoint=checkpoint)
    checkpoint.close()
    assert looked == []  # a new run has nothing saved to read
    (partial_folder(out) / "chunk-000001.npy").unlink()  # lost: played again
    (partial_folder(out) / "chunk-0000002.npy").write_bytes(b"")  # not a chunk's name
    resumed = Checkpoint.start(out, plan.identity(summary_only=True), True)
    played = []
    def play_four(self, plan, indices, summary_only):
        played.extend(itertools.islice(indices, 4))
        yield from ()

    monkeypatch.setattr(StopAfter, "imap", play_four)
    _, saved_games = execute(plan, StopAfter(0), summary_only=True, checkpoint=resumed)
    resumed.close()
    assert looked == [0, 2] and saved_games == 200 and played == [1, 3, 4, 5]


def test_a_run_saved_before_the_engine_code_was_recorded_resumes_and_a_change_is_said_once(
        tmp_path):
    """A run.json of an older version has no engine_source: its resume was refused as
    "sha256 none there", though its kernel_source showed the same code; a real change of
    the fast engine's code was said twice (its kernels' hash is both)."""
    out = _stopped_after_one_chunk(tmp_path)
    run_file = partial_folder(out) / "run.json"
    saved = json.loads(run_file.read_text())
    run_file.write_text(json.dumps({**saved, "kernel_source": "0" * 16,
                                    "engine_source": "0" * 16}))
    with pytest.raises(UrbionError) as refused:
        analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out, resume=True)
    assert str(refused.value).count("the engine's code has changed") == 1
    del saved["engine_source"]
    run_file.write_text(json.dumps(saved))
    resumed = analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 200


def test_a_stray_file_named_like_a_chunk_is_not_read_as_one(tmp_path):
    """A file chunk-00000².npy (a superscript two, a digit to str.isdigit, not to int) made
    a resume a traceback."""
    out = _stopped_after_one_chunk(tmp_path)
    (partial_folder(out) / "chunk-00000\u00b2.npy").write_bytes(b"")
    (partial_folder(out) / "chunk-\u0661.npy").write_bytes(b"")  # an Arabic-Indic one
    resumed = analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 200


def test_a_folder_named_like_a_chunk_is_refused_before_the_resume_plays(tmp_path):
    """A folder chunk-000001.npy in the saved chunks made a resume play that chunk, fail to
    save it and advise --resume, which failed alike every time."""
    out = _stopped_after_one_chunk(tmp_path)
    blocker = partial_folder(out) / "chunk-000001.npy"
    blocker.mkdir()
    with pytest.raises(UrbionError, match=r"chunk-000001\.npy there is a folder.*remove it"):
        analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                          resume=True)
    assert not out.exists()
    blocker.rmdir()
    resumed = analyzer.simulate(games=600, seed=2, policy="random", chunk=200, out=out,
                                resume=True)
    assert resumed.attrs["games_resumed"] == 200
