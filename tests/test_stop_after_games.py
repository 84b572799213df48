"""A stop (Ctrl-C, SIGTERM) once the games are played: while the tables are worked out
and the pages written. Its message says what is kept and how to finish."""

from __future__ import annotations

import os
import signal

import pytest

import analyzer
from analyzer import api
from analyzer.atomic import SET_WRITTEN
from analyzer.errors import RunStopped
from analyzer.runner import interrupts


def _ctrl_c(*args, **kwargs):
    """Stand-in for a step a Ctrl-C stops on its first call."""
    raise KeyboardInterrupt


def test_a_stop_while_a_comparison_is_worked_out_says_resume_writes_its_pages(
        tmp_path, monkeypatch):
    """Between the last batch saved and the pages: a bare "terminated" gave no word of
    --resume, without which a new run is then refused."""
    out = tmp_path / "c"
    with monkeypatch.context() as patch:
        patch.setattr(api.comparisons, "compare_result", _ctrl_c)
        with pytest.raises(RunStopped, match=r"interrupted while the comparison was worked "
                           r"out: every set's games stay in .*results.*--resume") as stop:
            analyzer.compare(sets="base,chromatic_chaos", games=40, out=out)
    assert stop.value.interrupted
    resumed = analyzer.compare(sets="base,chromatic_chaos", games=40, out=out, resume=True)
    whole = analyzer.compare(sets="base,chromatic_chaos", games=40)
    assert resumed.table.equals(whole.table) and (out / "index.html").is_file()


def test_a_stop_between_two_batches_of_a_precise_comparison_says_resume_continues(
        tmp_path, monkeypatch):
    """With --precision the table is worked out after every batch, to see which sets go
    on: a stop there was a bare "interrupted"."""
    from analyzer.analysis import compare

    out = tmp_path / "c"
    with monkeypatch.context() as patch:
        patch.setattr(compare, "compare_table", _ctrl_c)
        with pytest.raises(RunStopped, match=r"^interrupted between two batches: every set's "
                           r"games so far are in .*results; run the same command with "
                           r"--resume"):
            analyzer.compare(sets="base,books", games=30, out=out, precision=0.01,
                             max_games=90)
        with pytest.raises(RunStopped, match=r"^interrupted between two batches$"):
            analyzer.compare(sets="base,books", games=30, precision=0.01, max_games=90)
    resumed = analyzer.compare(sets="base,books", games=30, out=out, precision=0.01,
                               max_games=90, resume=True)
    whole = analyzer.compare(sets="base,books", games=30, precision=0.01, max_games=90)
    assert resumed.table.equals(whole.table)


def test_a_stop_while_a_sensitivity_report_is_worked_out_keeps_its_games(
        tmp_path, monkeypatch):
    out = tmp_path / "s"
    with monkeypatch.context() as patch:
        patch.setattr(api.sensitivity_runs, "_sensitivity_summary", _ctrl_c)
        with pytest.raises(RunStopped, match=r"interrupted while writing the report: every "
                           r"card set's games stay in .*\.s\.sensitivity-partial, and .*s as "
                           r"it was; run the same command with --resume"):
            analyzer.sensitivity(games=30, seed=2, out=out)
    assert not out.exists()
    resumed = analyzer.sensitivity(games=30, seed=2, out=out, resume=True)
    assert resumed.table.equals(analyzer.sensitivity(games=30, seed=2).table)
    assert not (tmp_path / ".s.sensitivity-partial").exists()


@pytest.mark.parametrize("in_place", [True, False])
def test_a_stop_as_a_sensitivity_report_is_written_keeps_games_until_it_is_in_place(
        tmp_path, monkeypatch, in_place):
    """Once the report's folder is in place it holds what the hidden folder kept, which
    goes; before, the games stay for --resume."""
    from analyzer.reporting import sensitivity_pages

    real = sensitivity_pages.write_sensitivity

    def stopped_writing(*args, **kwargs):
        if in_place:
            real(*args, **kwargs)
        stop = KeyboardInterrupt()
        if in_place:
            stop.add_note(SET_WRITTEN)
        raise stop

    out, work = tmp_path / "s", tmp_path / ".s.sensitivity-partial"
    with monkeypatch.context() as patch:
        patch.setattr(sensitivity_pages, "write_sensitivity", stopped_writing)
        expected = (r"^interrupted as the report was written: it is whole in .*s$" if in_place
                    else r"^interrupted while writing the report: every card set's games "
                         r"stay in .*\.s\.sensitivity-partial")
        with pytest.raises(RunStopped, match=expected) as stop:
            analyzer.sensitivity(games=30, seed=2, out=out)
    assert stop.value.interrupted
    assert work.exists() is not in_place
    assert (out / "sensitivity.csv").is_file() is in_place


def test_a_stop_between_the_renames_of_a_folder_waits_until_it_is_in_place(
        tmp_path, monkeypatch, python_sigint):
    """A report folder replaced: the old one is moved aside, then the new one in. A stop
    between the two left no folder at all (the old one hidden beside it)."""
    from analyzer.reporting import folders

    results = tmp_path / "r.parquet"
    analyzer.simulate(games=30, out=results)
    out = tmp_path / "rep"
    analyzer.report([results], out)
    real = folders._swap_into_place

    def ctrl_c_midway(source, target):
        real_rename = type(target).rename

        def rename(path, to):
            moved = real_rename(path, to)
            if path == target:  # the old folder aside: now the stop
                os.kill(os.getpid(), signal.SIGINT)
            return moved
        with monkeypatch.context() as patch:
            patch.setattr(type(target), "rename", rename)
            real(source, target)

    monkeypatch.setattr(folders, "_swap_into_place", ctrl_c_midway)
    with pytest.raises(RunStopped, match=r"interrupted as the report was written: it is "
                       r"whole in .*rep$"):
        analyzer.report([results], out)
    assert (out / "index.html").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".rep")] == []


def test_a_stop_while_a_folder_is_filled_leaves_no_folder_and_no_note(tmp_path):
    from analyzer.reporting import folders

    def fill(folder):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stop:
        folders.write_folder(tmp_path / "x", fill, "report")
    assert SET_WRITTEN not in getattr(stop.value, "__notes__", ())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("terminated", [True, False])
def test_a_sigterm_stop_has_no_blank_line_before_its_message(monkeypatch, capsys,
                                                             terminated):
    """click writes a newline after a ^C, which the terminal shows on the line the stop
    message would share; after SIGTERM there is no ^C, and the blank line stood alone."""
    import cli

    def stopped():
        monkeypatch.setattr(interrupts, "_terminated", terminated)
        raise KeyboardInterrupt

    monkeypatch.setattr(analyzer, "builtin_policies", stopped)
    with pytest.raises(SystemExit) as ended:
        cli.main(["policies"])
    err = capsys.readouterr().err
    if terminated:
        assert (ended.value.code, err) == (143, "urbion: terminated\n")
    else:
        assert (ended.value.code, err) == (130, "\nurbion: interrupted\n")
