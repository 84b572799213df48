"""The benchmarks' run log: one whole JSON line per run, and its summary by kernels."""

import json
import sys
from argparse import Namespace
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench(monkeypatch):
    """The benchmarks' modules, imported as the scripts import them."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import common
    import runs
    yield Namespace(common=common, runs=runs)
    sys.modules.pop("common", None)
    sys.modules.pop("runs", None)


def _record(kernels, value, cpu="CPU A", benchmark="bench_engine", **figures):
    return {"benchmark": benchmark, "finished": "2026-01-01T00:00:00+00:00", "commit": "c",
            "kernels": kernels, "machine": {"cpu": cpu, "cores": 2},
            "figures": {"games_per_s": value, **figures},
            "targets": {"games_per_s": [">=", 100.0]}}


def test_a_run_is_appended_as_one_line_with_its_figures_and_targets(bench, tmp_path):
    log = tmp_path / "runs.jsonl"
    log.write_text('{"earlier": "line without its newline"}')
    bench.common.log_run(log, "bench_x", Namespace(games=10, log=log), {"rate": 5},
                         {"rate": (">=", 4)})
    lines = log.read_text().splitlines()
    assert lines[0] == '{"earlier": "line without its newline"}'
    record = json.loads(lines[1])
    assert record["benchmark"] == "bench_x"
    assert record["figures"] == {"rate": 5.0}
    assert record["targets"] == {"rate": [">=", 4.0]}
    assert record["options"] == {"games": 10}  # the log's own path is no option of the run
    assert len(record["kernels"]) == 16 and record["machine"]["cores"] >= 1
    assert log.read_text().endswith("\n") and len(lines) == 2


def test_no_log_is_written_without_the_option(bench, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bench.common.log_run(None, "bench_x", Namespace(), {"rate": 5}, {})
    assert list(tmp_path.iterdir()) == []


def test_the_summary_ranges_runs_of_the_same_kernels_and_machine_apart(bench):
    records = [_record("k1", 80.0), _record("k2", 150.0), _record("k2", 90.0, cpu="CPU B"),
               _record("k2", 130.0, benchmark="bench_other"), _record("k2", 120.0)]
    row = bench.runs.summary(records, "bench_engine").loc["games_per_s"]
    assert (row["last"], row["target"], row["met"]) == (120.0, ">= 100.0", "yes")
    # the same kernels on the same machine: 150 and 120; the other CPU's 90 is left out
    assert (row["kernel_runs"], row["kernel_low"], row["kernel_high"]) == (2, 120.0, 150.0)
    assert (row["machine_runs"], row["machine_low"], row["machine_high"]) == (3, 80.0, 150.0)


def test_a_figure_under_its_target_is_not_met(bench):
    table = bench.runs.summary([_record("k", 99.0, speedup=3.0)], "bench_engine")
    assert table.loc["games_per_s", "met"] == "no"
    assert table.loc["speedup", "met"] == ""  # no target, no verdict
    assert bench.runs.met(2.9, ["<", 3.0]) == "yes" and bench.runs.met(3.0, ["<", 3.0]) == "no"


@pytest.mark.parametrize("content, message", [
    ("{not json\n", "line 1: not JSON"),
    ('{"benchmark": "b"}\n', "line 1: not a benchmark run (no finished, commit"),
    ("\n", "no runs logged"),
])
def test_a_log_that_cannot_be_read_gets_one_line(bench, tmp_path, capsys, content, message):
    log = tmp_path / "runs.jsonl"
    log.write_text(content)
    assert bench.runs.main([str(log)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_summary_prints_each_benchmark_of_the_log(bench, tmp_path, capsys):
    log = tmp_path / "runs.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in
                           [_record("k", 150.0), _record("k", 7.0, benchmark="bench_other")]))
    assert bench.runs.main([str(log)]) == 0
    out = capsys.readouterr().out
    assert "bench_engine: last run" in out and "bench_other: last run" in out
    assert bench.runs.main([str(log), "--benchmark", "bench_none"]) == 2


def test_a_missing_log_gets_one_line(bench, tmp_path, capsys):
    assert bench.runs.main([str(tmp_path / "none.jsonl")]) == 2
    assert "cannot be read (No such file or directory)" in capsys.readouterr().err


def test_a_log_that_cannot_be_written_is_refused_before_the_run(bench, tmp_path):
    import argparse
    parser = argparse.ArgumentParser()
    bench.common.add_log_option(parser)
    assert parser.parse_args(["--log", str(tmp_path / "new.jsonl")]).log.name == "new.jsonl"
    for unwritable in (tmp_path, tmp_path / "no-folder" / "runs.jsonl"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--log", str(unwritable)])
