"""The Python API checks its arguments as the CLI's options do: one UrbionError, nothing
written, and whole numbers of any integer type (numpy's too) stored as plain ints."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import analyzer
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.registry import policy_list


def test_numpy_integers_play_and_write_like_python_ints(tmp_path):
    out = tmp_path / "np.parquet"
    mine = analyzer.simulate(games=np.int64(30), seed=np.int32(4), first_game=np.uint8(2),
                             workers=np.int64(1), chunk=np.int16(7), out=out)
    plain = analyzer.simulate(games=30, seed=4, first_game=2)
    pd.testing.assert_frame_equal(mine, plain)
    meta = json.loads(pq.read_schema(out).metadata[b"urbion"])
    assert (meta["seed"], meta["games"], meta["first_game"]) == (4, 30, 2)
    assert not (tmp_path / "np.parquet.partial").exists()


def test_numpy_bools_are_flags():
    assert len(analyzer.simulate(games=5, progress=np.False_)) == 5


def test_numpy_integers_in_a_summary_file(tmp_path):
    out = tmp_path / "s.json"
    summary = analyzer.simulate_summary(games=np.int64(20), seed=np.int64(1), out=out)
    assert summary["games"] == 20
    assert json.loads(out.read_text())["config"]["seed"] == 1


def _games(**columns) -> pd.DataFrame:
    """Two games of a results frame, with ``columns`` in place of theirs."""
    frame = {"won": [True, False], "reason": ["", "deck_empty"], "turns": [20, 21],
             "pacified": [12, 9]}
    return pd.DataFrame({**frame, **columns})


@pytest.mark.parametrize("call, message", [
    (lambda: analyzer.simulate(games=10, seed=1.5),
     "--seed \\(seed=\\) must be a whole number, not 1.5"),
    (lambda: analyzer.simulate(games=10, seed=True), "--seed \\(seed=\\) must be a whole number"),
    (lambda: analyzer.simulate(games=10, seed="3"), "--seed \\(seed=\\) must be a whole number"),
    (lambda: analyzer.simulate(games=2.5), "--games \\(games=\\) must be a whole number"),
    (lambda: analyzer.simulate(games=None), "--games \\(games=\\) must be a whole number"),
    (lambda: analyzer.simulate(games=0), "--games \\(games=\\) must be at least 1, not 0"),
    (lambda: analyzer.simulate(games=10, first_game=-3),
     "--first-game \\(first_game=\\) must be from 0 to"),
    (lambda: analyzer.simulate(games=10, first_game=2**63 - 5),
     "must stay below 2\\*\\*63: --first-game \\(first_game=\\) "),
    (lambda: analyzer.simulate(games=10, seed=2**63), "--seed \\(seed=\\) must be from 0 to"),
    (lambda: analyzer.simulate(games=10, workers=0),
     "--workers \\(workers=\\) must be at least 1, not 0"),
    (lambda: analyzer.simulate(games=10, workers=-2),
     "--workers \\(workers=\\) must be at least 1"),
    (lambda: analyzer.simulate(games=10, workers=1.5),
     "--workers \\(workers=\\) must be a whole number"),
    (lambda: analyzer.simulate(games=10, chunk=0), "--chunk \\(chunk=\\) must be at least 1"),
    (lambda: analyzer.simulate(games=10, policy=None), "policy must be a string"),
    (lambda: analyzer.simulate(games=10, policy=3), "policy must be a string"),
    (lambda: analyzer.simulate(games=10, engine=None), "engine must be a string"),
    (lambda: analyzer.simulate(games=10, expansions=5), "expansions must be a comma-sep"),
    (lambda: analyzer.simulate(games=10, variant=2), "variant must be a string"),
    (lambda: analyzer.simulate(games=10, cards=5), "--cards \\(cards=\\) must be a path"),
    (lambda: analyzer.simulate(games=10, progress="no"), "progress must be True or False"),
    (lambda: analyzer.simulate_summary(games=1.0), "--games \\(games=\\) must be a whole number"),
    (lambda: analyzer.trace(game=1.5), "--game \\(game=\\) must be a whole number, not 1.5"),
    (lambda: analyzer.trace(game=-1), "--game \\(game=\\) must be from 0 to"),
    (lambda: analyzer.show(seed="7"), "--seed \\(seed=\\) must be a whole number"),
    (lambda: analyzer.show(seed=0.0), "--seed \\(seed=\\) must be a whole number"),
    (lambda: analyzer.show(game=False), "--game \\(game=\\) must be a whole number"),
    (lambda: analyzer.show(policy=""), "unknown policy ''"),
    (lambda: analyzer.duel(["greedy", "random"], games="9"),
     "--games \\(games=\\) must be a whole number"),
    (lambda: analyzer.duel(5), "policies must be a comma-separated string or a list"),
    (lambda: analyzer.compare(sets=5, games=10), "sets must be a comma-separated string"),
    (lambda: analyzer.compare(games=10, precision="x"),
     "^--precision \\(precision=\\) must be a number"),
    (lambda: analyzer.compare(games=10, precision=0),
     "^--precision \\(precision=\\) must be above 0, not 0"),
    # 0.4 meant as 0.4 points would ask for +-40%
    (lambda: analyzer.compare(games=10, precision=0.4),
     "^--precision \\(precision=\\) is a share of games, not percentage points: 0.4 asks "
     "for intervals of \\+-40%; half a point is 0.005"),
    (lambda: analyzer.compare(games=10, precision=0.1, max_games=2.0),
     "--max-games \\(max_games=\\) must be a whole number"),
    (lambda: analyzer.compare(games=10, max_games=20),
     "--max-games \\(max_games=\\) applies only with --precision \\(precision=\\)"),
    (lambda: analyzer.compare(sets="base", games=3, out=5), "--out \\(out=\\) must be a path"),
    (lambda: analyzer.tune(games=10, evaluations=2.5),
     "--evaluations \\(evaluations=\\) must be a whole number"),
    (lambda: analyzer.tune(games=10, heldout_games=0),
     "--heldout-games \\(heldout_games=\\) must be at least 1"),
    (lambda: analyzer.sensitivity(games=10, seed=-1), "--seed \\(seed=\\) must be from 0 to"),
    (lambda: analyzer.sensitivity(games=10, policy=None), "policy must be a string"),
    (lambda: analyzer.summarize(None), "summarize needs a results DataFrame"),
    (lambda: analyzer.summarize(pd.DataFrame()), "summarize needs a results DataFrame"),
    # a pandas KeyError or TypeError deep in the sums
    (lambda: analyzer.summarize(_games(won=[1, 0])),
     "summarize needs a results DataFrame as simulate returns it \\(column won holds values "
     "of type int64, where a run writes true/false\\)"),
    (lambda: analyzer.summarize(_games(won=[1.0, 0.0])), "column won holds values of type float64"),
    (lambda: analyzer.summarize(_games(turns=["20", "21"])), "column turns holds values of "
     "type (str|object), where a run writes integers"),
    (lambda: analyzer.summarize(_games(pacified=[3.5, 4.0])),
     "column pacified holds values of type float64"),
    (lambda: analyzer.summarize(_games(pacified=pd.array([3, None], dtype="Int64"))),
     "column pacified holds an empty cell"),
    # a run joined to itself (pd.concat([df, df])) counted each game twice
    (lambda: analyzer.summarize(_games(game=[7, 7])),
     "summarize needs a results DataFrame as simulate returns it \\(game 7 appears twice\\)"),
    (lambda: analyzer.report(5, "r"), "results must be a list of results files"),
    (lambda: analyzer.load_cards(3.0), "--cards \\(cards=\\) must be a path"),
    (lambda: analyzer.duel(["greedy", "random"], games=5, scheduler=5),
     "scheduler must be a string"),
    (lambda: analyzer.duel(["greedy", "random"], games=5, progress="x"),
     "progress must be True or False"),
    (lambda: analyzer.compare(sets="base", games=5, resume=True), "--resume needs --out"),
    (lambda: analyzer.show(progress="x"), "progress must be True or False"),
    (lambda: analyzer.weights_note(5), "weights_note takes a DataFrame of results"),
    (lambda: analyzer.weights_note({}), "no run configuration"),
    (lambda: analyzer.weights_note({"policy": "weighted"}), "no run configuration"),
    (lambda: analyzer.compare(games=20, precision=0.1, max_games=10),
     "--max-games \\(max_games=\\) 10 must be at least --games \\(games=\\) 20"),
    (lambda: analyzer.simulate(games=10, workers=257), "workers=\\) 257: at most 256"),
    (lambda: analyzer.compare(games=10, precision=float("inf")),
     "--precision \\(precision=\\) must be a finite share of games, not inf"),
    (lambda: analyzer.show(trace_file="t.jsonl", won=True),
     "--won \\(won=\\): not for a trace file"),
    (lambda: analyzer.duel(["greedy", "random"], games=10, workers=10_000),
     "at most 256"),
    (lambda: analyzer.simulate(games=10, scheduler=""), "--scheduler \\(scheduler=\\) '' "
     "names no cluster"),
    (lambda: analyzer.compare(games=10, scheduler=" "), "names no cluster"),
    (lambda: analyzer.simulate(games=10, scheduler="local:257"),
     "a local cluster of at most 256 processes"),
])
def test_a_wrong_argument_is_one_urbion_error(call, message):
    with pytest.raises(UrbionError, match=message):
        call()


def test_a_precision_batch_larger_than_the_default_limit_is_one_batch_not_an_error():
    """compare --precision 0.01 --games 2000000 blamed --max-games, which was not given:
    the limit left to its default follows a larger batch."""
    from analyzer.api.comparisons import compare_stopping

    assert compare_stopping(0.01, None, 2_000_000) == (0.01, 2_000_000)
    assert compare_stopping(0.01, None, 20) == (0.01, 1_000_000)
    with pytest.raises(UrbionError, match="--max-games \\(max_games=\\) 10 must be"):
        compare_stopping(0.01, 10, 20)  # a limit given is the user's


@pytest.mark.parametrize("call", [
    lambda out: analyzer.simulate(games=2.5, out=out / "r.parquet"),
    lambda out: analyzer.simulate(games=10, workers=0, out=out / "r.parquet"),
    lambda out: analyzer.simulate(games=10, policy=None, out=out / "r.parquet"),
    lambda out: analyzer.simulate_summary(games=10, seed=0.5, out=out / "s.json"),
    lambda out: analyzer.trace(game=0.5, out=out / "t.jsonl"),
    lambda out: analyzer.compare(games=10, sets=7, out=out / "cmp"),
    lambda out: analyzer.tune(games=10, evaluations="6", out=out / "w.toml"),
])
def test_a_wrong_argument_writes_nothing(tmp_path, call):
    with pytest.raises(UrbionError):
        call(tmp_path)
    assert list(tmp_path.iterdir()) == []


def _played(table: pd.DataFrame) -> pd.DataFrame:
    """A table without its speed columns, which differ from run to run."""
    return table.drop(columns=[c for c in table.columns if "per_s" in c or "seconds" in c])


def test_a_duel_takes_the_clis_comma_separated_names():
    as_text = analyzer.duel("greedy, random", games=60, seed=2)
    as_list = analyzer.duel(["greedy", "random"], games=60, seed=2)
    pd.testing.assert_frame_equal(_played(as_text.policies), _played(as_list.policies))
    assert list(as_text.policies.index) == ["greedy", "random"]


@pytest.mark.parametrize("text, expected", [
    ("greedy,search:rollouts=2,candidates=2", ["greedy", "search:rollouts=2,candidates=2"]),
    ("search:candidates=3, rollouts=4 ,greedy", ["search:candidates=3,rollouts=4", "greedy"]),
    ("clairvoyant:candidates=2,search", ["clairvoyant:candidates=2", "search"]),
    ("greedy,random", ["greedy", "random"]),
    ("my.py:choose,greedy", ["my.py:choose", "greedy"]),
    # a setting with no policy before it to belong to stays a name of its own (and is refused
    # as an unknown policy)
    ("rollouts=2,greedy", ["rollouts=2", "greedy"]),
    ("greedy,rollouts=2", ["greedy", "rollouts=2"]),
    # only search and clairvoyant take settings: a file's function or weights file does not
    ("x.py:f,a=1", ["x.py:f", "a=1"]),
    ("weighted:w.toml,a=1", ["weighted:w.toml", "a=1"]),
    ("search:rollouts=2,./a=b/p.py:choose", ["search:rollouts=2", "./a=b/p.py:choose"]),
])
def test_a_policy_list_keeps_each_policys_settings_together(text, expected):
    assert policy_list("policies", text) == expected


def test_a_duel_plays_a_search_policy_with_two_settings_given_as_the_clis_text():
    duel = analyzer.duel("greedy,search:rollouts=1,candidates=2", games=6, seed=3)
    assert list(duel.policies.index) == ["greedy", "search:rollouts=1,candidates=2"]


def test_compare_takes_its_sets_as_a_list():
    as_list = analyzer.compare(sets=["base", "books+postcards"], games=40, seed=1)
    as_text = analyzer.compare(sets="base,books+postcards", games=40, seed=1)
    pd.testing.assert_frame_equal(_played(as_list.table), _played(as_text.table))
    assert len(as_list.table) == 2


def test_tune_plays_exactly_the_evaluations_asked_for():
    played = []
    from analyzer.analysis.tune import tune_weights

    card_set = analyzer.load_cards(None)
    found = tune_weights(card_set, 40, 5, 6, on_evaluation=lambda: played.append(1))
    assert found.evaluations == len(played) == 6


def test_the_last_games_of_a_batch_keep_their_numbers(tmp_path):
    last = 2**63 - 1
    out = tmp_path / "r.parquet"
    df = analyzer.simulate(games=3, first_game=last - 2, policy="random", chunk=1, out=out)
    assert df["game"].tolist() == [last - 2, last - 1, last]
    traces = analyzer.trace(game=last - 2, games=3, policy="random")
    assert df["turns"].tolist() == [t["result"]["turns"] for t in traces]
    # a resume checks each saved chunk's game numbers, the last one's too
    from analyzer.cards import default_card_set
    from analyzer.runner.checkpoint import Checkpoint
    from analyzer.runner.plan import RunPlan
    from analyzer.runner.run import execute
    from tests.test_checkpoint import StopAfter

    again = tmp_path / "again.parquet"
    plan = RunPlan(default_card_set(), "random", 0, 3, last - 2, chunk=1)
    with pytest.raises(RunStopped):
        execute(plan, StopAfter(2), checkpoint=Checkpoint.start(again, plan.identity(False),
                                                                False))
    resumed = analyzer.simulate(games=3, first_game=last - 2, policy="random", chunk=1,
                                out=again, resume=True)
    assert resumed.attrs["games_resumed"] == 2
    pd.testing.assert_frame_equal(_played(resumed), _played(df))


def test_a_run_whose_results_cannot_fit_in_memory_is_refused_before_it_plays(tmp_path,
                                                                              monkeypatch):
    import os

    real = os.sysconf
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 10}  # a machine of 40 KB
    monkeypatch.setattr(os, "sysconf", lambda name: pages.get(name) or real(name))
    out = tmp_path / "big.parquet"
    with pytest.raises(UrbionError, match=r"1,000 games keep 88\.0 KB of per-game results "
                                          r"in memory, more than this machine's 41\.0 KB: play "
                                          r"fewer, or, for the figures of one run alone, "
                                          r"keep a tally of fixed size instead of rows "
                                          r"\(urbion simulate --summary-only"):
        analyzer.simulate(games=1000, out=out)
    assert list(tmp_path.iterdir()) == []
    # the tally of a summary-only run does not grow with the games (chunks small enough for
    # this machine)
    assert analyzer.simulate_summary(games=1000, chunk=10, workers=1)["games"] == 1000
    # the results and the frame made of them: twice the results' own bytes
    pages["SC_PHYS_PAGES"] = 1
    games = int(4096 // 44 * 0.75)  # their results fit; with the frame, not
    with pytest.raises(UrbionError, match="more than this machine's"):
        analyzer.simulate(games=games, chunk=1, workers=1)


def test_a_chunk_too_large_for_memory_is_refused_before_it_plays(capsys, monkeypatch):
    """A chunk is held whole while it is played (the kernel's int64 rows, then its
    results), two chunks per thread: --chunk 10^9 cannot be played, and is refused in one
    line rather than failing in the kernel."""
    from analyzer import api
    from tests.test_cli import run

    monkeypatch.setattr(api.simulation, "_machine_memory", lambda: 16 * 10**9)
    code, out, err = run(capsys, "simulate", "--games", "1000000000", "--chunk",
                         "1000000000", "--summary-only", "--workers", "1", "--quiet")
    assert code == 2 and out == ""
    assert err == ("urbion: error: --chunk 1,000,000,000: the chunk a run on 1 thread keeps "
                   "in hand would hold 212.0 GB, more than this machine's 16.0 GB: give a "
                   "smaller --chunk (chunk= in Python; default 20,000)\n")
    # a chunk larger than the run counts as the run
    assert analyzer.simulate(games=50, chunk=10**12, workers=1)["won"].size == 50
    # a run of one chunk as large as memory allows: its int64 rows while played, then its
    # results (168 + 44 bytes a game), and no more
    fits = 16 * 10**9 // 212
    assert 16 * 10**9 - fits * 212 < 212

    class Checked(Exception):
        """Raised where the run would start playing: every check passed."""

    def checked(*_args):
        raise Checked

    monkeypatch.setattr(api.simulation, "make_executor", checked)
    with pytest.raises(Checked):
        analyzer.simulate_summary(games=fits, chunk=fits, workers=2)
    with pytest.raises(UrbionError, match="the chunk a run on 2 threads keeps in hand"):
        analyzer.simulate_summary(games=fits + 1, chunk=fits + 1, workers=2)
    # two chunks: both may be in hand, played or queued, the results of each held
    with pytest.raises(UrbionError, match="the 2 chunks a run on 2 threads"):
        analyzer.simulate_summary(games=fits, chunk=70_000_000, workers=2)


def test_memory_running_out_in_play_stops_the_run_in_one_line_blaming_no_policy(
        capsys, monkeypatch, tmp_path):
    """The kernel failing to allocate is the machine's limit, not the policy's fault: one
    line, what was saved, and no traceback."""
    from analyzer.runner import chunks
    from tests.test_cli import run

    real = chunks.batch_kernel
    played = []

    def running_out(spec):
        kernel = real(spec)

        def play(*args):
            if played:
                raise MemoryError("Allocation failed (probably too large).")
            played.append(1)
            return kernel(*args)
        return play

    monkeypatch.setattr(chunks, "batch_kernel", running_out)
    out = tmp_path / "r.parquet"
    code, _, err = run(capsys, "simulate", "--games", "400", "--chunk", "100", "--workers",
                       "1", "--quiet", "--out", str(out))
    assert code == 2 and "Traceback" not in err and "policy" not in err
    assert err.startswith("urbion: error: out of memory playing chunks of 100 games: 100 of "
                          "400 games saved in ")
    assert err.endswith("with the same --chunk, which may run out again; a smaller --chunk "
                        "starts afresh\n")
    assert not out.exists()


@pytest.mark.parametrize("command, function, advice", [
    (["simulate"], "simulate", "fewer games, a smaller --chunk or --summary-only need less"),
    (["duel", "--policies", "greedy,random"], "duel", "fewer games need less"),
    (["compare"], "compare", "fewer games need less"),
    (["tune"], "tune", "fewer games need less"),
    (["report", __file__], "report", "fewer or smaller results files need less"),
    (["show"], "show", "this machine has too little free memory for it"),
])
def test_running_out_of_memory_names_what_the_command_can_do(capsys, monkeypatch, command,
                                                            function, advice):
    """duel, compare and tune were told to use --chunk and --summary-only, options they do
    not have."""
    from tests.test_cli import run

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(analyzer, function, exhausted)
    code, _, err = run(capsys, *command, "--quiet" if function != "report" else "--out",
                       *(["rep"] if function == "report" else []))
    assert (code, err) == (2, f"urbion: error: out of memory: {advice}\n")


@pytest.mark.parametrize("function, kwargs, advice", [
    ("simulate", {}, "fewer games, a smaller --chunk (chunk=) or analyzer.simulate_summary "
                     "need less"),
    ("simulate_summary", {}, "fewer games or a smaller --chunk (chunk=) need less"),
    ("duel", {"policies": "greedy,random"}, "fewer games need less"),
    ("show", {}, "this machine has too little free memory for it"),
])
def test_running_out_of_memory_in_python_is_one_line_naming_what_the_call_can_do(
        monkeypatch, function, kwargs, advice):
    """numpy's MemoryError came out of the call as it was, a page of the results' record
    layout, where the command says in one line what needs less; a memory limit (a
    container's) stops a run that the machine's memory would hold."""
    from analyzer.errors import OutOfMemory

    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 6.15 GiB for an array with shape ...")

    for module, name in ((analyzer.api.simulation, "execute"),
                         (analyzer.api.single_games, "fast_trace")):
        monkeypatch.setattr(module, name, exhausted)
    with pytest.raises(OutOfMemory) as err:
        getattr(analyzer, function)(**kwargs)
    assert str(err.value) == f"out of memory: {advice}"


def test_several_traces_go_to_a_jsonl_file_not_a_json_one(tmp_path):
    # TRACE.md: one JSON object per game, JSON Lines for many; a .json file is one object
    with pytest.raises(UrbionError, match=r"3 traces are JSON Lines, one per line: write "
                                          r"them to a \.jsonl file"):
        analyzer.trace(seed=1, games=3, out=tmp_path / "t.json")
    assert list(tmp_path.iterdir()) == []
    analyzer.trace(seed=1, games=1, out=tmp_path / "one.json")
    assert json.loads((tmp_path / "one.json").read_text())["game"] == 0
    analyzer.trace(seed=1, games=3, out=tmp_path / "t.jsonl")
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 3


def test_several_traces_for_a_json_file_are_refused_before_a_game_is_played(tmp_path,
                                                                           monkeypatch):
    """trace checks out= before playing: 20,000 games are not played to be refused."""
    from analyzer.api import single_games

    played, real_trace = [], single_games.fast_trace

    def traced(card_set, spec, seed, game):
        played.append(game)
        return real_trace(card_set, spec, seed, game)

    monkeypatch.setattr(single_games, "fast_trace", traced)
    with pytest.raises(UrbionError, match=r"3 traces are JSON Lines"):
        analyzer.trace(seed=1, games=3, out=tmp_path / "t.json")
    assert played == []


def test_two_traces_are_already_too_many_for_a_json_file(tmp_path):
    """TRACE.md: a .json file holds one JSON object; two games are JSON Lines."""
    with pytest.raises(UrbionError, match=r"t\.json: 2 traces are JSON Lines, one per "
                                          r"line: write them to a \.jsonl file"):
        analyzer.trace_to_file(tmp_path / "t.json", seed=1, games=2)
    assert list(tmp_path.iterdir()) == []
    assert analyzer.trace_to_file(tmp_path / "t.jsonl", seed=1, games=2) == 2
    assert [json.loads(line)["game"] for line in
            (tmp_path / "t.jsonl").read_text().splitlines()] == [0, 1]


def test_a_results_file_reads_back_through_the_api_with_its_configuration(tmp_path):
    """The notebook's way back to a saved run, checked as report checks a file."""
    out = tmp_path / "a.parquet"
    df = analyzer.simulate(games=20, seed=3, out=out)
    back = analyzer.read_results(out)
    pd.testing.assert_frame_equal(back, df, check_like=False)
    assert back.attrs["seed"] == 3 and back.attrs["card_set"] == "R14-default"
    (tmp_path / "not.parquet").write_text("hello")
    for path, says in ((tmp_path / "none.parquet", "no such file"),
                       (tmp_path / "not.parquet", "not.parquet"), (3, "must be a path")):
        with pytest.raises(UrbionError, match=says) as caught:
            analyzer.read_results(path)
        assert "\n" not in str(caught.value)


def test_the_builtin_policies_are_listed_as_urbion_policies_lists_them(capsys):
    from tests.test_cli import run

    table = analyzer.builtin_policies()
    code, printed, _ = run(capsys, "policies")
    assert code == 0
    assert {"random", "greedy", "weighted", "search"} <= set(table.index)
    for name, row in table.iterrows():
        assert any(line.split()[0] == name and line.endswith(row["description"])
                   for line in printed.splitlines()), name


def test_replay_refuses_a_list_of_file_names_with_one_line(tmp_path):
    """A list holds traces; a file name in it was taken for a malformed trace."""
    with pytest.raises(UrbionError, match="a list holds traces as dicts, not file names or text"):
        analyzer.replay([str(tmp_path / "a.jsonl")])


@pytest.mark.parametrize("call", [
    lambda: analyzer.duel(["greedy", "random"], games=5, workers=1, scheduler="local:1"),
    lambda: analyzer.duel(["greedy", "random"], games=5, scheduler="local:x"),
    lambda: analyzer.compare(sets="base", games=5, workers=1, scheduler="local:1"),
    lambda: analyzer.sensitivity(games=5, workers=1, scheduler="local:1"),
])
def test_a_command_of_many_runs_refuses_its_cluster_before_starting_one(monkeypatch, call):
    """workers beside a scheduler, or a malformed scheduler, is refused before a local
    cluster's processes start (they would import the user's script again)."""
    from analyzer.runner import distributed

    def started(scheduler):
        raise AssertionError(f"a cluster was started for {scheduler}")

    monkeypatch.setattr(distributed, "one_cluster", started)
    with pytest.raises(UrbionError):
        call()


def test_the_weights_note_of_a_run_is_the_one_the_cli_prints(capsys):
    """simulate's note on weights tuned elsewhere, from the results in Python, from a
    summary and from a run's configuration alike."""
    from tests.test_cli import run

    df = analyzer.simulate(games=5, policy="weighted", expansions="books", workers=1)
    note = analyzer.weights_note(df)
    assert note.startswith("note: weighted plays weights tuned on R14's base game solo; "
                           "with expansions")
    summary = analyzer.simulate_summary(games=5, policy="weighted", expansions="books",
                                        workers=1)
    assert analyzer.weights_note(summary) == analyzer.weights_note(df.attrs) == note
    code, out, _ = run(capsys, "simulate", "--games", "5", "--policy", "weighted",
                       "--expansions", "books", "--quiet")
    assert code == 0 and note in out
    assert analyzer.weights_note(analyzer.simulate(games=5, expansions="books")) is None


def test_compare_records_a_games_limit_only_when_it_has_one():
    assert analyzer.compare(sets="base", games=5).attrs["max_games"] is None
    assert analyzer.compare(sets="base", games=5, precision=0.1,
                            max_games=10).attrs["max_games"] == 10


def test_threads_the_system_cannot_start_are_one_urbion_error(monkeypatch):
    """Under a memory limit the system refuses threads: a setting to change, in one line."""
    from concurrent.futures import ThreadPoolExecutor

    def refused(self, *args, **kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(ThreadPoolExecutor, "submit", refused)
    with pytest.raises(UrbionError, match="cannot start 2 threads here .*give fewer "
                                          "--workers"):
        analyzer.simulate(games=10, workers=2)


def test_the_reference_engine_plays_on_one_thread_and_says_so():
    """Plain Python holds its lock: threads would take turns, and "on 2 threads" would
    promise a speed-up there is not."""
    df = analyzer.simulate(games=20, engine="reference", workers=2)
    assert df.attrs["played_on"] == "1 thread"


def test_memory_running_out_as_a_resume_reads_its_games_says_they_stay(tmp_path,
                                                                       monkeypatch):
    """Not the generic advice of a smaller --chunk, which a resume refuses."""
    from analyzer.errors import RunStopped
    from analyzer.runner.checkpoint import Checkpoint

    out = tmp_path / "r.parquet"
    real_save = Checkpoint.save

    def stop_after_first(self, index, payload):
        real_save(self, index, payload)
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "save", stop_after_first)
    with pytest.raises(RunStopped):
        analyzer.simulate(games=40, chunk=10, workers=1, out=out)
    monkeypatch.undo()

    def out_of_memory(self, index, first, n):
        raise MemoryError

    monkeypatch.setattr(Checkpoint, "load", out_of_memory)
    with pytest.raises(RunStopped) as stop:
        analyzer.simulate(games=40, chunk=10, workers=1, out=out, resume=True)
    assert str(stop.value) == (f"out of memory reading the saved games (a machine with more "
                               f"can resume them); stopped before any game was played; the "
                               f"games saved before stay in {out}.partial; run the same "
                               "command with --resume (resume=True in Python) to continue")


def test_a_path_from_the_home_folder_is_read_as_a_shell_and_pandas_read_it(tmp_path,
                                                                            monkeypatch):
    """"~/mine.toml" in a notebook was looked for in a folder named "~"."""
    from analyzer.core.jit import CACHE_DIR

    monkeypatch.setenv("HOME", str(tmp_path))
    if CACHE_DIR is not None:  # a kernel compiled aside, in a process of its own, is kept
        monkeypatch.setenv("URBION_CACHE_DIR", str(CACHE_DIR.parent))  # where it was
    out = analyzer.write_card_template("~/mine.toml")
    assert out == tmp_path / "mine.toml" and out.is_file()
    assert len(analyzer.card_table("~/mine.toml")) == len(analyzer.card_table())
    df = analyzer.simulate(games=5, cards="~/mine.toml", out="~/r.parquet")
    assert analyzer.read_results("~/r.parquet")["won"].equals(df["won"])
    assert not (tmp_path / "~").exists()


def test_cards_of_another_kind_are_refused_naming_what_they_may_be():
    with pytest.raises(UrbionError, match="^--cards \\(cards=\\) must be a path, a CardSet "
                                          "\\(analyzer.load_cards\\) or a frame simulate "
                                          "returned, not 3$"):
        analyzer.simulate(games=5, cards=3)
    with pytest.raises(UrbionError, match="^cards: the frame keeps no run's cards"):
        analyzer.simulate(games=5, cards=pd.DataFrame({"a": range(30)}))


def test_a_runs_frame_gives_its_cards_as_its_file_does(tmp_path):
    """--cards takes a results file for its run's cards; in Python the frame simulate
    returned was refused as no path."""
    mine = tmp_path / "mine.toml"
    analyzer.write_card_template(mine)
    text = mine.read_text(encoding="utf-8").replace('name = "R14-default"', 'name = "mine"')
    mine.write_text(text.replace("count = 8", "count = 6", 1), encoding="utf-8")
    run = analyzer.simulate(games=40, seed=3, cards=mine, out=tmp_path / "r.parquet")
    from_frame = analyzer.simulate(games=40, seed=3, cards=run)
    from_file = analyzer.simulate(games=40, seed=3, cards=tmp_path / "r.parquet")
    assert from_frame.attrs["card_set_sha256"] == run.attrs["card_set_sha256"]
    assert from_frame["won"].equals(from_file["won"]) and from_frame["won"].equals(run["won"])
    copy = analyzer.write_card_template(tmp_path / "copy.toml", run)
    assert analyzer.load_cards(copy).digest == run.attrs["card_set_sha256"]
    assert analyzer.card_differences(run, mine) == ""


def test_a_policy_file_from_the_home_folder_is_read_as_other_paths_are(tmp_path,
                                                                       monkeypatch):
    """weighted:~/w.toml said it could not read "~/w.toml"."""
    from importlib import resources

    from analyzer.core.jit import CACHE_DIR
    from analyzer.policies.weights import DEFAULT_WEIGHTS_FILE

    monkeypatch.setenv("HOME", str(tmp_path))
    if CACHE_DIR is not None:  # a kernel compiled aside, in a process of its own, is kept
        monkeypatch.setenv("URBION_CACHE_DIR", str(CACHE_DIR.parent))  # where it was
    text = resources.files("analyzer.policies").joinpath(DEFAULT_WEIGHTS_FILE).read_text(
        encoding="utf-8")
    (tmp_path / "w.toml").write_text(text, encoding="utf-8")
    home = analyzer.simulate(games=20, policy="weighted:~/w.toml")
    named = analyzer.simulate(games=20, policy=f"weighted:{tmp_path / 'w.toml'}")
    assert home["won"].equals(named["won"]) and home["turns"].equals(named["turns"])


def test_the_package_names_its_version_and_errors_at_the_top(capsys):
    """A notebook reads analyzer.__version__ and catches analyzer.UrbionError without
    knowing the package's modules."""
    from analyzer.errors import RunStopped, UrbionError
    from tests.test_cli import run

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"urbion, version {analyzer.__version__}\n"
    assert analyzer.__version__ != "unknown"
    assert analyzer.UrbionError is UrbionError and analyzer.RunStopped is RunStopped
    with pytest.raises(analyzer.UrbionError, match="games"):
        analyzer.simulate(games=-5)


def test_the_most_workers_taken_is_256_and_one_more_is_refused():
    """The bound the help gives: 256 threads taken, 257 refused."""
    from analyzer import arguments

    assert arguments.workers(256) == 256 and arguments.workers(1) == 1
    with pytest.raises(UrbionError, match="--workers \\(workers=\\) 257: at most 256"):
        arguments.workers(257)
