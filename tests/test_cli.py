"""The urbion command: every command runs; bad input is one line, exit code 2, no output."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import analyzer
import cli
from analyzer.analysis.results_io import read_results
from analyzer.errors import UrbionError


def run(capsys, *args):
    with pytest.raises(SystemExit) as stop:
        cli.main(list(args))
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def handed_on(capsys, monkeypatch, command: str, *args: str) -> dict:
    """The keyword arguments ``urbion COMMAND ARGS`` hands to ``analyzer.COMMAND``, which
    records them and plays nothing."""
    asked = []

    def recorded(**kwargs):
        asked.append(kwargs)
        raise UrbionError("recorded")

    monkeypatch.setattr(analyzer, command, recorded)
    code, _, err = run(capsys, command, *args)
    assert (code, err) == (2, "urbion: error: recorded\n")
    return asked[0]


def test_simulate_prints_the_summary_and_writes_parquet(capsys, tmp_path):
    out_file = tmp_path / "r.parquet"
    code, out, err = run(capsys, "simulate", "--games", "400", "--seed", "2", "--out",
                         str(out_file))
    assert code == 0, err
    for word in ("win rate", "Wilson", "turns", "losses", "games/s", "R14-default"):
        assert word in out
    df = read_results(out_file)
    assert len(df) == 400
    assert {"game", "won", "reason", "turns", "pacified", "deck_left"} <= set(df.columns)
    for key in ("seed", "games", "policy", "engine", "card_set", "card_set_sha256",
                "rules_version", "package_version"):
        assert key in df.attrs
    assert df.attrs["seed"] == 2 and df.attrs["games"] == 400


def test_simulate_plays_later_games_of_a_run_that_report_joins(capsys, tmp_path):
    """--first-game: games 300-499 of seed 2 are the very games of a 500-game run, and
    report joins them to games 0-299 into that run."""
    first, later = tmp_path / "a.parquet", tmp_path / "b.parquet"
    for args in (["--games", "300", "--out", str(first)],
                 ["--games", "200", "--first-game", "300", "--out", str(later)]):
        code, out, err = run(capsys, "simulate", "--seed", "2", "--quiet", *args)
        assert code == 0, err
    assert "games      200 (games 300-499 of the seed)" in out
    whole = analyzer.simulate(games=500, seed=2)
    df = read_results(later)
    assert df["game"].tolist() == list(range(300, 500))
    assert df.reset_index(drop=True).equals(
        whole.iloc[300:].reset_index(drop=True)[df.columns])
    code, out, err = run(capsys, "report", str(first), str(later), "--out",
                         str(tmp_path / "rep"))
    assert code == 0, err
    assert "games 0-499 (joined from 2 files)" in (tmp_path / "rep" / "report.md").read_text()


def test_show_won_shows_the_first_game_the_policy_wins(capsys):
    code, out, err = run(capsys, "show", "--won", "--seed", "3", "--game", "10")
    assert code == 0, err
    df = analyzer.simulate(games=200, seed=3, first_game=10)
    first = int(df.loc[df["won"], "game"].min())
    assert out.startswith(f"Game {first} is the first of seed 3 from game 10 that greedy "
                          "wins.")
    assert f"game {first} of seed 3" in out.splitlines()[2]
    assert "\nResult: WIN (all_pacified" in out


def test_show_won_quiet_draws_no_bar_while_it_looks(capsys, monkeypatch):
    from analyzer.runner import progress
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    code, _, err = run(capsys, "show", "--won", "--seed", "3", "--game", "10", "--quiet")
    assert (code, err) == (0, "")
    code, _, err = run(capsys, "show", "--won", "--seed", "3", "--game", "10")
    assert code == 0 and "100%" in err  # the bar --quiet leaves out


@pytest.mark.parametrize("policy, batches", [("search", [200, 800]),
                                              ("greedy", [2_000])])
def test_show_won_looks_in_batches_a_policy_plays_in_seconds(monkeypatch, policy, batches):
    """A search game costs what thousands of greedy games do: its first batch is a chunk."""
    import pandas as pd

    from analyzer.api import common, simulation, single_games

    asked = []

    def simulate(games, seed, first_game, **_):
        asked.append(games)
        played = range(first_game, first_game + games)
        return pd.DataFrame({"game": played, "won": [g == 250 for g in played]})

    monkeypatch.setattr(simulation, "simulate", simulate)
    assert single_games._first_won(0, 0, common.checked_policy(policy), common.load_cards(None),
                                   False) == 250
    assert asked == batches


def test_show_won_searches_each_game_once_from_the_first_on(monkeypatch):
    """Each batch starts where the one before ended: the 200,000 games from game 7 are
    played once each, in batches growing fourfold, the last cut at the search's end."""
    import pandas as pd

    from analyzer.api import common, simulation, single_games

    asked = []

    def simulate(games, seed, first_game, **_):
        asked.append((first_game, games))
        return pd.DataFrame({"game": range(first_game, first_game + games), "won": False})

    monkeypatch.setattr(simulation, "simulate", simulate)
    with pytest.raises(UrbionError, match="greedy wins none of games 7 to 200,006 of seed 0"):
        single_games._first_won(0, 7, common.checked_policy("greedy"),
                                common.load_cards(None), False)
    assert asked == [(7, 2_000), (2_007, 8_000), (10_007, 32_000), (42_007, 128_000),
                     (170_007, 30_000)]


def test_show_won_says_when_no_game_is_won(capsys):
    """random wins no base game: the search stops, with one line."""
    code, out, err = run(capsys, "show", "--won", "--policy", "random", "--quiet")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--won (won=): random wins none of games 0 to 199,999 of seed 0" in err


def test_trace_file_matches_simulate_game(capsys, tmp_path, monkeypatch):
    from analyzer.runner import progress
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    path = tmp_path / "t.jsonl"
    code, _, err = run(capsys, "trace", "--seed", "2", "--game", "5", "--games", "2",
                       "--out", str(path))
    assert code == 0, err
    traces = [json.loads(line) for line in path.read_text().splitlines()]
    assert [t["game"] for t in traces] == [5, 6]
    assert all(t["format"] == "urbion-trace/1" for t in traces)
    code, _, _ = run(capsys, "simulate", "--games", "7", "--seed", "2", "--out",
                     str(tmp_path / "r.parquet"))
    df = read_results(tmp_path / "r.parquet")
    assert traces[0]["result"]["turns"] == df["turns"].iloc[5]
    assert "tracing: 100%" in err  # a bar counting the games traced
    code, _, err = run(capsys, "trace", "--seed", "2", "--out", str(tmp_path / "one.jsonl"))
    assert code == 0 and err == ""  # one game: no bar
    for engine in ("fast", "reference"):
        code, _, err = run(capsys, "trace", "--seed", "2", "--game", "5", "--games", "2",
                           "--engine", engine, "--out", str(path), "--quiet")
        assert code == 0 and err == "", err
        assert [json.loads(line) for line in path.read_text().splitlines()][1]["log"] == \
            traces[1]["log"]


def test_trace_plays_the_variant_expansions_policy_and_engine_it_is_given(capsys, tmp_path):
    """`urbion trace` hands every play option to the game it traces: the header names
    them, and the game is the one the fast engine plays with them."""
    path = tmp_path / "t.jsonl"
    code, _, err = run(capsys, "trace", "--seed", "4", "--game", "3", "--variant", "team",
                       "--expansions", "books", "--policy", "random", "--engine",
                       "reference", "--out", str(path), "--quiet")
    assert code == 0, err
    traced, = [json.loads(line) for line in path.read_text().splitlines()]
    assert {key: traced[key] for key in ("seed", "game", "variant", "expansions", "policy",
                                         "engine")} == \
        {"seed": 4, "game": 3, "variant": "team", "expansions": ["books"],
         "policy": "random", "engine": "reference"}
    # the team game: every decision names the seat that took it (TRACE.md)
    assert all("seat" in entry for entry in traced["log"] if "do" in entry)
    fast, = analyzer.trace(seed=4, game=3, variant="team", expansions="books",
                           policy="random")
    assert traced["log"] == fast["log"] and traced["result"] == fast["result"]


def test_show_tells_decisions_draws_chaos_and_pacifications(capsys):
    trace = analyzer.trace(seed=1, game=3)[0]
    code, out, _ = run(capsys, "show", "--seed", "1", "--game", "3")
    assert code == 0
    assert "Turn 1" in out and "row 0: City#" in out and "hand:" in out
    assert f"after {trace['result']['turns']} turns" in out
    drawn = sum(1 for e in trace["log"] if e.get("do") == "chaos")
    assert out.count("Chaos") >= drawn
    reveals = sum(1 for e in trace["log"] if e.get("how") == "reveal")
    assert len(re.findall(r"^  Chaos#\d+ reveals ", out, re.M)) == reveals
    censuses = [e for e in trace["log"] if e.get("do") == "act" and "census" in e["acts"][0]]
    assert out.count("for Census") == len(censuses)
    assert ("pacified" in out) == (trace["result"]["pacified"] > 0)
    assert out.count("  draw ") >= trace["result"]["turns"] - 1


def test_R10_show_names_the_polarity_each_team_seat_plays_after_a_swap():
    text = analyzer.show(seed=3, game=0, expansions="all", variant="team")
    turns = re.findall(r"\nTurn \d+\n  seat (\d) plays \((\w+) polarity(.*?)\)\n(.*?)(?=\nTurn |"
                       r"\nResult)", text, re.S)
    swapped = 0
    for seat, polarity, note, body in turns:
        # the hands after the turn name each seat's polarity, swap included
        assert f"hand of seat {seat} ({polarity})" in body
        assert ("the seats swap polarities" in body) == (note == " after the swap below")
        swapped += note != ""
    assert len(turns) > 30 and swapped >= 2
    draws = [line for line in text.splitlines() if line.startswith("  draw ")]
    assert draws and all(line.endswith(("(seat 0)", "(seat 1)")) for line in draws)
    assert "(seat 0)" in text and "(seat 1)" in text


def test_show_of_a_solo_game_names_no_seat():
    assert "(seat" not in analyzer.show(seed=3, game=0, expansions="all")


@pytest.mark.parametrize("args, message", [
    (["simulate", "--policy", "nope"], "unknown policy 'nope'"),
    (["simulate", "--games", "-5"], "--games"),
    (["simulate", "--cards", "/no/such/file.toml"], "cannot read card-set file"),
    (["simulate", "--engine", "warp"], "--engine"),
    (["simulate", "--out", "/no/such/folder/r.parquet"], "does not exist"),
    (["trace", "--out", "/no/such/folder/t.jsonl"], "does not exist"),
    (["simulate", "--out", f"{__file__}/r.parquet"], "is a file, not a folder"),
    (["show", "--policy", "nope"], "unknown policy"),
    (["simulate", "--seed", str(2**63)], "--seed"),
    # an empty name is no file: not read as the current folder, ".", named as the option
    (["simulate", "--out", ""], "--out (out=) must be a path, not ''"),
    (["simulate", "--cards", ""], "--cards (cards=) must be a path"),
    # the help gives the limit of 256 threads that the check applies
    (["simulate", "--workers", "300"], "--workers (workers=) 300: at most 256 (threads"),
    (["duel", "random,greedy", "--workers", "257"], "--workers (workers=) 257: at most 256"),
    (["trace", "--game", "-1", "--out", "t.jsonl"], "--game"),
    (["trace", "--out", "traces.txt"], "must end in .jsonl"),
    # a line break in a file name split the error over lines
    (["simulate", "--cards", "no\nsuch.toml"], "no\\nsuch.toml"),
    (["simulate", "--out", "no\u2028dir/x\ry.parquet"], "no\\u2028dir/x\\ry.parquet"),
    # click said "Directory '...' is a file.", as if the folder were a file already
    *([[command, *extra, "--out", __file__],
       f"cannot write {command} {__file__}: it is a file, not a folder (`urbion {command}` "
       "writes its files into the folder --out (out=) names)"]
      for command, extra in (("report", [__file__]), ("sensitivity", []),
                             ("compare", []), ("duel", ["--policies", "random,greedy"]))),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err + out


def test_the_last_seed_and_game_number_are_taken_and_read_back(capsys, tmp_path):
    """2**63 - 1 is the last seed and game number, within the bounds and not past them:
    a run of it is played, written and read back under that seed."""
    last = 2**63 - 1
    out_file = tmp_path / "last.parquet"
    code, _, err = run(capsys, "simulate", "--seed", str(last), "--first-game", str(last),
                       "--games", "1", "--policy", "random", "--quiet", "--out",
                       str(out_file))
    assert code == 0, err
    df = read_results(out_file)
    assert df.attrs["seed"] == last and df.attrs["first_game"] == last
    assert df["game"].tolist() == [last]


@pytest.mark.parametrize("args, named", [
    (["simulate", "--expansions", "postcards", "--expansions", "emptiness"], "--expansions"),
    (["simulate", "--cards", "a.toml", "--cards=b.toml"], "--cards"),
    (["compare", "--sets", "base", "--sets", "singles"], "--sets"),
    (["trace", "--game", "3", "--game", "4"], "--game"),
    (["report", "r.parquet", "--out", "a", "--out", "b"], "--out"),
    (["simulate", "--quiet", "--quiet"], "--quiet"),
])
def test_an_option_given_twice_is_refused_not_its_last_value_played(capsys, tmp_path,
                                                                      monkeypatch, args,
                                                                      named):
    """click keeps the last of a repeated option: --expansions postcards --expansions
    emptiness played the Emptiness alone, without a word. Refused before anything is
    played or written."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args, "--games", "5") if args[0] != "report" else \
        run(capsys, *args)
    assert code == 2, out
    assert f"{named} is given more than once: give it once" in err
    assert len(err.strip().splitlines()) == 1 and not out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir() or os.geteuid() != 0,
                    reason="needs Linux's /proc, which only root may write by its permissions")
@pytest.mark.parametrize("args", [
    ["simulate", "--games", "100000", "--out", "/proc/r.parquet"],
    ["tune", "--games", "100000", "--out", "/proc/w.toml"],
    ["sensitivity", "--games", "100000", "--out", "/proc/sens"],
    ["compare", "--sets", "base", "--games", "100000", "--out", "/proc/cmp"],
])
def test_a_folder_that_refuses_files_is_refused_before_playing(capsys, monkeypatch, args):
    """/proc lets root write by its permissions and still takes no new file: found by
    trying, at once, not after 100,000 games (no game may be played)."""
    from analyzer.api import simulation

    def played(*_, **__):
        raise AssertionError("games were played before the output folder was checked")

    monkeypatch.setattr(simulation, "execute", played)
    code, out, err = run(capsys, *args, "--quiet")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "/proc takes no new file" in err


def test_malformed_cards_file_leaves_no_output(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[cities]\nbase = [["earth", "lava"]]\n')
    out_file = tmp_path / "r.parquet"
    code, _, err = run(capsys, "simulate", "--cards", str(bad), "--out", str(out_file))
    assert code == 2 and "cities.base[0]" in err and "lava" in err
    assert list(tmp_path.iterdir()) == [bad]


def test_a_binary_cards_file_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    code, out, err = run(capsys, "simulate", "--games", "5", "--cards", str(bad))
    assert code == 2 and out == ""
    assert err == f"urbion: error: cannot read card-set file {bad}: not UTF-8 text (a TOML " \
                  "file is)\n"


def test_the_help_says_what_the_commands_do(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "team" in out.split("Options:")[0]
    trace_line = next(line for line in out.splitlines() if line.strip().startswith("trace"))
    assert "GAME .." not in trace_line and "trace" in trace_line.split(maxsplit=1)[1]
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0 and "200 for search" in " ".join(out.split())


def test_out_that_is_a_folder_is_refused_before_running(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "--out", str(tmp_path))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_installed_command_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-c", "import cli; cli.main()", "simulate",
                           "--games", "-5"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1


#: Run as ``python -c``: Ctrl-C arrives while pandas is being imported.
_INTERRUPTED_IMPORT = """
import sys
class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            raise KeyboardInterrupt
sys.meta_path.insert(0, CtrlC())
import cli
cli.main()
"""


def test_ctrl_c_while_the_libraries_load_exits_130_without_traceback():
    proc = subprocess.run([sys.executable, "-c", _INTERRUPTED_IMPORT, "simulate"],
                          capture_output=True, text=True)
    assert proc.returncode == 130
    assert proc.stderr.strip() == "urbion: interrupted"


def test_output_files_follow_the_umask(capsys, tmp_path):
    import os

    old = os.umask(0o022)
    try:
        code, _, err = run(capsys, "simulate", "--games", "20", "--out",
                           str(tmp_path / "r.parquet"))
        code2, _, _ = run(capsys, "trace", "--out", str(tmp_path / "t.jsonl"))
        code3, _, _ = run(capsys, "report", str(tmp_path / "r.parquet"), "--out",
                          str(tmp_path / "rep"))
    finally:
        os.umask(old)
    assert code == code2 == code3 == 0, err
    for name in ("r.parquet", "t.jsonl", "rep/index.html"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "rep").stat().st_mode & 0o777 == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet", "rep", "t.jsonl"]


def test_unknown_expansion_is_one_line_listing_the_valid_names(capsys, tmp_path):
    out_file = tmp_path / "r.parquet"
    for command in (["simulate", "--out", str(out_file)], ["show"],
                    ["trace", "--out", str(tmp_path / "t.jsonl")]):
        code, out, err = run(capsys, *command, "--expansions", "chromatic_chaos,moon")
        assert code == 2, command
        assert err.strip().splitlines() == [
            "urbion: error: unknown expansion 'moon' (valid: squares_metas, chromatic_chaos, "
            "temples_harmony, gardens_wizards, books, postcards, emptiness, all, none (or "
            "base))"]
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_variant_is_one_line_and_writes_nothing(capsys, tmp_path):
    code, _, err = run(capsys, "simulate", "--variant", "trio", "--out",
                       str(tmp_path / "r.parquet"))
    assert code == 2 and err == ("urbion: error: --variant (variant=): unknown variant 'trio' "
                                 "(valid: solo, team)\n")
    assert list(tmp_path.iterdir()) == []
    # the Python API's own words, which the command prints
    with pytest.raises(UrbionError, match=re.escape(err.removeprefix("urbion: error: ")
                                                    .rstrip("\n"))):
        analyzer.simulate(games=3, variant="trio")


def test_simulate_team_with_all_expansions_names_them_and_keeps_the_columns(capsys, tmp_path):
    """urbion simulate --expansions all --variant team (issue: Expansions II): the summary
    and the results file name the variant; the results carry the expansions' columns."""
    out_file = tmp_path / "r.parquet"
    code, out, err = run(capsys, "simulate", "--games", "300", "--expansions", "all",
                         "--variant", "team", "--out", str(out_file), "--quiet")
    assert code == 0, err
    assert "variant    team (one policy plays both seats, both hands in view: R10.2; a " \
        "polarity swap takes no action: docs/rules-notes.md 42)" in out
    assert "inhabitant sum" in out
    df = read_results(out_file)
    assert df.attrs["variant"] == "team"
    assert (df["seats"] == 2).all()
    assert df["emptiness_left"].between(0, 8).all() and (df["wise_used"] <= 6).all()
    assert {"inhabitants", "books_kept", "book_actions", "allies", "polarity_swaps"} <= \
        set(df.columns)


def test_simulate_with_expansions_names_them_in_summary_and_file(capsys, tmp_path):
    out_file = tmp_path / "r.parquet"
    code, out, err = run(capsys, "simulate", "--games", "300", "--expansions",
                         "gardens_wizards,squares_metas", "--out", str(out_file), "--quiet")
    assert code == 0, err
    assert "expansions squares_metas, gardens_wizards" in out
    df = read_results(out_file)
    assert df.attrs["expansions"] == ["squares_metas", "gardens_wizards"]
    assert df["rebuilds"].sum() + df["sides_changed"].sum() > 0
    assert (df.loc[df["won"], "pacified"] == 20).all()  # R08.6: 12 + 4 Squares + 4 Gardens
    code, out, _ = run(capsys, "show", "--game", "3", "--expansions", "all")
    assert code == 0 and "Result:" in out


def test_show_names_each_revealing_chaos_the_city_deck_and_rows_removed():
    """Seed 7 game 42: a chain of four Chaos reveals on turn 19, and the City deck runs out
    at the end (R01.5)."""
    trace = analyzer.trace(seed=7, game=42)[0]
    text = analyzer.show(seed=7, game=42)
    reveals = [e for e in trace["log"] if e.get("how") == "reveal"]
    revealing = re.findall(r"^  (Chaos#\d+) reveals ", text, re.M)
    assert len(revealing) == len(reveals) >= 4 and len(set(revealing)) == len(revealing)
    cities = sum(1 for c in trace["cards"] if c["type"] == "city")
    checks = [e["check"] for e in trace["log"] if "check" in e]
    shown = [int(n) for n in re.findall(r"City deck (\d+),", text)]
    assert shown == [cities - c["success"] - len(c["rows"]) for c in checks]
    removed = re.findall(r"^  row (\d) \((City#\d+)\S* pacified\) is removed( \(row \d by "
                         r"then, a row above gone\))?: the City deck is empty", text, re.M)
    assert any(moved for _, _, moved in removed)  # the second removal: row 3 moved up
    rows_lost = len(checks[0]["rows"]) - len(checks[-1]["rows"])
    assert len(removed) == rows_lost > 0
    # numbered as the census numbered the rows: each is the row its city was pacified in
    for row, city, _ in removed:
        assert re.search(rf"^  row {row} is balanced: {city}\S* pacified", text, re.M)


def test_show_names_the_chaos_each_chaos_decision_moves():
    text = analyzer.show(seed=7, game=1, policy="random")
    moves = re.findall(r"^ +(.*) goes to the more influential side", text, re.M)
    assert moves and all(re.fullmatch(r"Chaos#\d+", who) for who in moves)


@pytest.mark.parametrize("interrupted, line, code", [
    (False, "urbion: error: No space left on device: 30 of 60 games saved", 2),
    (True, "urbion: interrupted: 30 of 60 games saved", 130),
])
def test_a_run_stopped_by_a_failure_is_an_error_and_ctrl_c_is_not(monkeypatch, capsys,
                                                                  interrupted, line, code):
    import analyzer
    import cli
    from analyzer.errors import RunStopped

    why = "interrupted" if interrupted else "No space left on device"

    def stop(**options):
        raise RunStopped(f"{why}: 30 of 60 games saved in r.parquet.partial; run the same "
                         "command with --resume (resume=True in Python) to continue",
                         interrupted)

    monkeypatch.setattr(analyzer, "simulate", stop)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["simulate", "--games", "60", "--quiet"])
    assert stopped.value.code == code
    assert capsys.readouterr().err.startswith(line)


def test_names_are_taken_in_any_case_and_recorded_as_the_tool_spells_them(capsys, tmp_path):
    """As --expansions takes "ALL": --policy Greedy, --variant Team and --engine FAST are
    the built-in greedy, the team game and the fast engine, under their own names."""
    path = tmp_path / "r.parquet"
    code, _, err = run(capsys, "simulate", "--games", "30", "--policy", "Greedy",
                       "--variant", "Team", "--engine", "FAST", "--out", str(path), "--quiet")
    assert code == 0, err
    from analyzer.analysis.results_io import read_results

    played = read_results(path)
    assert (played.attrs["policy"], played.attrs["variant"], played.attrs["engine"]) == \
        ("greedy", "team", "fast")
    same = analyzer.simulate(games=30, variant="team")
    assert played["turns"].tolist() == same["turns"].tolist()
    # the Python API as the command: names in any case, recorded as the tool spells them
    api = analyzer.simulate(games=30, policy="Greedy", variant="Team", engine="Reference")
    assert (api.attrs["policy"], api.attrs["variant"], api.attrs["engine"]) == \
        ("greedy", "team", "reference")
    assert api["turns"].tolist() == same["turns"].tolist()
    from analyzer.policies.registry import resolve_policy

    assert resolve_policy("Search:rollouts=2").name == resolve_policy("search:rollouts=2").name


def test_an_out_on_a_read_only_file_system_says_so(tmp_path, capsys, monkeypatch):
    """Not "permission denied", which would send a user to the folder's permissions."""
    import os
    from types import SimpleNamespace

    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.setattr(os, "statvfs", lambda path: SimpleNamespace(f_flag=os.ST_RDONLY))
    code, _, err = run(capsys, "simulate", "--games", "5", "--out", str(tmp_path / "r.parquet"))
    assert code == 2 and err.strip().endswith("r.parquet: read-only file system"), err
    monkeypatch.setattr(os, "statvfs", lambda path: SimpleNamespace(f_flag=0))
    code, _, err = run(capsys, "simulate", "--games", "5", "--out", str(tmp_path / "r.parquet"))
    assert code == 2 and err.strip().endswith("r.parquet: permission denied"), err


def test_writing_files_and_folders_never_sets_the_umask(tmp_path, monkeypatch):
    """Reading the umask means setting it for every thread of the process: a notebook
    writing a file in one thread while another creates one would race. New files and
    folders take their permissions from the system instead."""
    import os

    import analyzer

    results = tmp_path / "r.parquet"
    analyzer.simulate(games=20, out=results)

    def refuse(mask):
        raise AssertionError("the umask was set")

    monkeypatch.setattr(os, "umask", refuse)
    analyzer.simulate(games=20, out=tmp_path / "again.parquet")
    analyzer.trace(out=tmp_path / "t.jsonl")
    analyzer.report([results], tmp_path / "rep")
    assert (tmp_path / "again.parquet").is_file() and (tmp_path / "rep" / "index.html").is_file()


def test_trace_to_file_writes_what_trace_returns_one_game_at_a_time(tmp_path, monkeypatch):
    """The CLI's trace writes each game as it is played: the file is trace's list, and
    no trace waits for the next game before its line is written."""
    from analyzer.api import single_games
    from analyzer.trace import jsonl

    events = []
    real_trace, real_dumps = single_games.fast_trace, jsonl.json.dumps

    def played(card_set, spec, seed, game):
        events.append(("play", game))
        return real_trace(card_set, spec, seed, game)

    def written(value, *args, **kwargs):
        events.append(("write", value["game"]))
        return real_dumps(value, *args, **kwargs)

    out = tmp_path / "t.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(single_games, "fast_trace", played)
        patch.setattr(jsonl.json, "dumps", written)
        assert analyzer.trace_to_file(out, seed=3, game=7, games=4) == 4
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == analyzer.trace(seed=3, game=7, games=4)
    assert events == [(what, g) for g in range(7, 11) for what in ("play", "write")]


def test_a_trace_that_fails_midway_leaves_no_file(tmp_path):
    import numpy as np

    from analyzer.errors import PolicyError
    from analyzer.policies.registry import PolicySpec
    from tests.test_policies import breaks_on_turn_3

    out = tmp_path / "t.jsonl"
    out.write_text("kept\n")
    with pytest.raises(PolicyError, match="illegal decision"):
        analyzer.trace_to_file(out, games=3, policy=PolicySpec("breaker", breaks_on_turn_3,
                                                               np.zeros(0)))
    assert out.read_text() == "kept\n" and [p.name for p in tmp_path.iterdir()] == ["t.jsonl"]


def test_trace_in_memory_is_bounded_and_says_where_to_write_more():
    from analyzer.api import MAX_TRACES_HELD

    with pytest.raises(UrbionError, match=f"at most {MAX_TRACES_HELD:,} at once; "
                                          "trace_to_file"):
        analyzer.trace(games=MAX_TRACES_HELD + 1)


def test_output_that_cannot_be_written_is_one_line_and_exit_2(tmp_path):
    """stdout on a full disk: click's echo raised OSError, a traceback and exit 1. An
    error's own line on a full stderr cannot be said, but the exit code still is 2."""
    cli_path = Path(__file__).resolve().parent.parent / "cli.py"
    ascii_locale = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0",
                    "PYTHONUTF8": "0"}  # where click writes through a wrapper of its own
    for args, env in ((["policies"], None), (["policies"], ascii_locale), ([], None)):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, str(cli_path), *args], stdout=full,
                                  stderr=subprocess.PIPE, text=True, check=False, env=env)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == ("urbion: error: cannot write the output: No space left on "
                               "device\n"), args
    closed = subprocess.run(["sh", "-c", f'exec "{sys.executable}" "{cli_path}" policies >&-'],
                            capture_output=True, text=True, check=False)
    assert closed.returncode == 2  # as ls does: not a run whose output is lost unsaid
    assert closed.stderr == "urbion: error: cannot write the output: stdout is closed\n"
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, str(cli_path), "simulate", "--games", "-3"],
                              stdout=subprocess.PIPE, stderr=full, check=False)
    assert done.returncode == 2


@pytest.mark.parametrize("args", [["policies"], ["--help"], ["show", "--help"],
                                  ["show", "--seed", "7", "--game", "42"], []])
def test_a_reader_that_has_gone_ends_the_command_with_141_and_no_word(args):
    """`urbion ... | head`: click caught the closed pipe first and exited 1, silently,
    which `replay` gives a trace that does not replay, and under pipefail a failed run."""
    cli_path = Path(__file__).resolve().parent.parent / "cli.py"
    with subprocess.Popen([sys.executable, str(cli_path), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as command:
        command.stdout.close()  # the reader gone before a line is written
        err = command.stderr.read()
    assert command.returncode == 141 and err == b"", err


def test_simulate_json_prints_the_summary_a_script_reads(capsys, tmp_path):
    """The summary was text only (2,000 games, 9.75%...), which a script had to parse."""
    import json

    import pandas as pd

    out = tmp_path / "r.parquet"
    code, printed, err = run(capsys, "simulate", "--games", "300", "--seed", "5",
                             "--expansions", "emptiness", "--out", str(out), "--json",
                             "--quiet")
    assert code == 0, err
    assert printed.count("\n") == 1  # one line: the document alone
    document = json.loads(printed)
    df = pd.read_parquet(out)
    summary = document["summary"]
    assert (summary["games"], summary["wins"]) == (300, int(df["won"].sum()))
    assert summary["loss_reasons"] == df.loc[~df["won"], "reason"].astype(str)\
        .value_counts().to_dict()
    assert summary["mean_turns"] == pytest.approx(df["turns"].mean())
    assert document["config"]["seed"] == 5 and document["config"]["expansions"] == \
        ["emptiness"]
    assert document["results"] == str(out)
    code, printed, _ = run(capsys, "simulate", "--games", "30", "--out",
                           str(tmp_path / "a b.parquet"), "--quiet")
    # the text says what to do with the file next
    assert code == 0 and printed.splitlines()[-1] == (
        f"results    {tmp_path / 'a b.parquet'} (urbion report '{tmp_path / 'a b.parquet'}' "
        "--out FOLDER: charts and tables)")
    code, printed, _ = run(capsys, "simulate", "--games", "300", "--seed", "5",
                           "--expansions", "emptiness", "--summary-only", "--json", "--quiet")
    only = json.loads(printed)
    assert code == 0 and only["summary"]["wins"] == summary["wins"]
    # the same document whichever way the run kept its games: the configuration once
    assert set(only["summary"]) == set(summary) and "config" not in only["summary"]


def test_simulate_json_keeps_stdout_to_the_json_line_and_its_note_to_stderr(capsys):
    """A script reads stdout as one line of JSON; the note on the weights goes to stderr
    (greedy, which the other tests play, has no note to print)."""
    code, printed, err = run(capsys, "simulate", "--policy", "weighted", "--seed", "2026",
                             "--games", "20", "--json", "--quiet")
    assert code == 0, err
    assert printed.count("\n") == 1 and json.loads(printed)["config"]["policy"] == "weighted"
    assert "are among those the weights of weighted were tuned on" in err


@pytest.mark.parametrize("summary_only", [False, True])
def test_simulate_json_sends_what_a_policy_prints_to_stderr(capsys, monkeypatch,
                                                            summary_only):
    """A user's policy that prints (as it loads, or from its compiled code, which writes
    to Python's stdout) broke the JSON a script reads from stdout."""
    for name in ("simulate", "simulate_summary"):
        real = getattr(analyzer, name)

        def chatty(*args, _real=real, **kwargs):
            print("my policy: thinking")
            return _real(*args, **kwargs)

        monkeypatch.setattr(analyzer, name, chatty)
    code, printed, err = run(capsys, "simulate", "--games", "20", "--json", "--quiet",
                             *(["--summary-only"] if summary_only else []))
    assert code == 0, err
    assert json.loads(printed)["config"]["games"] == 20
    assert "my policy: thinking" in err


def test_simulate_json_writes_an_interval_cut_at_the_city_cards_as_a_float(capsys):
    """Two games that pacified 12 and 11 City cards: the t-interval's top, 17.85, is cut to
    12, which JSON wrote as the integer 12 beside its float partner."""
    import json

    code, printed, err = run(capsys, "simulate", "--games", "2", "--seed", "3", "--json",
                             "--quiet")
    assert code == 0, err
    low, high = json.loads(printed)["summary"]["pacified_ci"]
    assert '"pacified_ci": [5.146' in printed and ", 12.0]" in printed
    assert high == 12.0 and low == pytest.approx(11.5 - 12.706204736 * 0.5)


def test_every_option_of_every_command_says_what_it_is(capsys):
    """--games, --engine and trace's --game had no help at all; a word is wrong as "integer
    range" for one number, and report's folder is not simply "made or replaced"."""
    import click

    import cli

    for name, command in cli.cli.commands.items():
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts[0]}"
    code, _, err = run(capsys, "simulate", "--games", "abc")
    # as the Python API words it: the same check
    assert code == 2 and err == ("urbion: error: --games (games=) must be a whole number, "
                                 "not 'abc'\n")
    with pytest.raises(UrbionError, match=r"^--games \(games=\) must be a whole number, "
                                          r"not 'abc'$"):
        analyzer.simulate(games="abc")
    code, _, err = run(capsys, "report", "x.parquet", "--out", "")
    assert code == 2 and "--out (out=) must be a path, not ''" in err and "file path" not in err
    code, text, _ = run(capsys, "report", "--help")
    assert "replaced if `urbion report` wrote it" in " ".join(text.split())


def test_files_are_utf_8_whatever_the_locale(tmp_path):
    """A terminal of plain ASCII (LC_ALL=C with Python's UTF-8 fallbacks off): the pages
    declare UTF-8 and must be it (± came out as a locale's byte), and a card-set name the
    terminal cannot show is shown as best it can, not a traceback."""
    cards = tmp_path / "é.toml"
    card_text = analyzer.cards.writer.card_file_text(analyzer.load_cards(None))
    cards.write_text(card_text.replace('name = "R14-default"', 'name = "jeu-é"'),
                     encoding="utf-8")
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=40, seed=1, cards=cards, out=results)
    env = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0",
           "PYTHONIOENCODING": ""}
    cli_path = Path(__file__).resolve().parent.parent / "cli.py"
    done = subprocess.run([sys.executable, str(cli_path), "report", str(results), "--out",
                           str(tmp_path / "rep")], env=env, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "rep" / "index.html").read_bytes().decode("utf-8")
    assert "±" in page and "jeu-é" in page
    done = subprocess.run([sys.executable, str(cli_path), "cards", "--cards", str(cards)],
                          env=env, capture_output=True, check=False)
    assert done.returncode == 0 and b"card set   jeu-" in done.stdout, done.stderr


def test_names_too_long_are_one_line_before_anything_is_played(capsys, tmp_path):
    """Over the system's 255 bytes: a traceback; a little under it: every game played,
    then the output refused, and a --resume refused alike (the temporary name is 18
    characters longer)."""
    too_long, nearly = "C" * 260, "D" * 240
    for args in (["cards", "--cards", f"{too_long}.toml"],
                 ["report", f"{too_long}.parquet", "--out", str(tmp_path / "r")],
                 ["trace", "--out", str(tmp_path / f"{too_long}.jsonl")],
                 ["simulate", "--games", "10", "--out", str(tmp_path / f"{too_long}.parquet")]):
        code, _, err = run(capsys, *args)
        assert code == 2 and err.count("\n") == 1 and "File name too long" in err, args
    out = tmp_path / f"{nearly}.parquet"
    code, printed, err = run(capsys, "simulate", "--games", "10", "--out", str(out))
    assert code == 2 and printed == ""
    assert err == (f"urbion: error: cannot write {out}: its name is 248 bytes long, more than "
                   "the 237 a name may have here (it is written under a longer temporary name "
                   "first)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_name_just_short_enough_for_its_temporary_name_is_written(capsys, tmp_path):
    """255 bytes less the temporary name's 18 is the longest name taken: 237 bytes is
    written, as 248 is refused above."""
    out = tmp_path / f"{'E' * 229}.parquet"
    assert len(out.name) == 237
    code, _, err = run(capsys, "simulate", "--games", "10", "--quiet", "--out", str(out))
    assert code == 0, err
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
    assert len(read_results(out)) == 10


def test_a_file_name_of_latin_1_bytes_is_written_and_read(capsys, tmp_path):
    """Bytes of a Latin-1 name, passed on by the shell as they are: pyarrow, given the name,
    raised UnicodeEncodeError after the games were played. Python opens the files."""
    name = os.fsdecode(b"r\xe9s.parquet")
    results = tmp_path / name
    code, _, err = run(capsys, "simulate", "--games", "30", "--out", str(results))
    assert code == 0 and results.exists(), err
    assert read_results(results)["won"].size == 30
    code, _, err = run(capsys, "report", str(results), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    code, out, err = run(capsys, "cards", "--cards", str(results))
    assert code == 0 and "card set   R14-default" in out, err


def test_a_card_file_of_latin_1_bytes_is_named_on_the_pages_it_reaches(capsys, tmp_path):
    """Its name reaches a comparison's and a sensitivity analysis's pages and the kept card
    file: writing them failed after every game was played. The name is shown as UTF-8 can
    hold it, and the kept file names no folder of the author's machine."""
    cards = tmp_path / os.fsdecode(b"c\xe9.toml")
    cards.write_text(analyzer.cards.writer.card_file_text(analyzer.load_cards(None))
                     .replace('name = "R14-default"', 'name = "mine"'), encoding="utf-8")
    code, _, err = run(capsys, "compare", "--sets", "base,books", "--games", "20", "--cards",
                       str(cards), "--out", str(tmp_path / "cmp"), "--quiet")
    assert code == 0, err
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "from c\ufffd.toml; cards.toml, in this folder, holds its cards" in md
    assert md.rstrip().endswith("--cards cards.toml")
    kept = (tmp_path / "cmp" / "cards.toml").read_text(encoding="utf-8")
    assert "as c\ufffd.toml kept them" in kept and str(tmp_path) not in kept
    code, _, err = run(capsys, "sensitivity", "--games", "20", "--cards", str(cards),
                       "--out", str(tmp_path / "sens"), "--quiet")
    assert code == 0, err
    kept = (tmp_path / "sens" / "baseline-cards.toml").read_text(encoding="utf-8")
    assert "as c\ufffd.toml kept them" in kept and str(tmp_path) not in kept


def test_a_stop_after_the_output_is_written_says_it_is_whole(capsys, tmp_path, monkeypatch):
    out_file = tmp_path / "r.parquet"

    def stopped(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "format_summary", stopped)
    code, _, err = run(capsys, "simulate", "--games", "20", "--quiet", "--out", str(out_file))
    assert code == 130
    assert err.strip() == f"urbion: interrupted after writing {out_file} in full"
    assert len(analyzer.read_results(out_file)) == 20
    # the next command starts with nothing written
    monkeypatch.setattr(cli.analyzer, "simulate", lambda **_: (_ for _ in ()).throw(
        KeyboardInterrupt))
    code, _, err = run(capsys, "simulate", "--games", "20", "--quiet", "--out", str(out_file))
    assert code == 130 and err.strip() == "urbion: interrupted"


def test_a_stop_while_the_summary_is_worked_out_says_the_results_are_whole(
        capsys, tmp_path, monkeypatch):
    """The results file is whole before its summary is computed, which takes seconds on a
    long run: a stop then says so too."""
    out_file = tmp_path / "r.parquet"

    def stopped(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.analyzer, "summarize", stopped)
    code, _, err = run(capsys, "simulate", "--games", "20", "--quiet", "--out", str(out_file))
    assert code == 130
    assert err.strip() == f"urbion: interrupted after writing {out_file} in full"


def test_the_help_gives_the_limits_that_the_checks_apply(capsys):
    """--won looked through 200,000 games, --precision took at most 0.1 and compare took
    none as the base game, and their help said none of it."""
    import re

    texts = {name: re.sub(r"\s+", " ", run(capsys, name, "--help")[1])
             for name in ("show", "compare")}
    assert "looking through at most 200,000 games" in texts["show"]
    assert "half a percentage point; at most 0.1)" in texts["compare"]
    assert "(each set: base or none, or names joined by +)" in texts["compare"]
    code, _, err = run(capsys, "compare", "--sets", "base,books", "--precision", "0.2")
    assert code == 2 and "at most 0.1" in err
    code, _, err = run(capsys, "compare", "--sets", "none,bogus")
    assert code == 2 and "sets singles, pairs, all, base (or none);" in err


def test_traces_that_cannot_fit_on_the_disk_are_refused_before_one_is_played(
        capsys, tmp_path, monkeypatch):
    """trace --games 100000000 wrote for hours towards 1.4 TB: the disk's free room is
    weighed first, at 8 KB a game at least."""
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 10**6, 10**6))
    out = tmp_path / "t.jsonl"
    code, _, err = run(capsys, "trace", "--games", "200", "--out", str(out), "--quiet")
    assert (code, err) == (2, f"urbion: error: 200 traces take at least 1.6 MB (about 8 KB a "
                              f"game or more), more than the 1.0 MB free for {out}: trace "
                              "fewer games\n")
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(capsys, "trace", "--games", "100", "--out", str(out), "--quiet")
    assert code == 0, err  # 800 KB at least, of 1 MB free: played


def test_an_end_of_file_inside_a_command_is_not_reported_as_a_ctrl_c(capsys, monkeypatch):
    """click turns an EOFError escaping a command into its Abort, which reads as Ctrl-C:
    an emptied file in the engine's cache printed 'urbion: interrupted', exit 130, on
    every run. It is a fault, and says so."""
    import analyzer

    def cut_short(*args, **kwargs):
        raise EOFError("Ran out of input")

    monkeypatch.setattr(analyzer, "builtin_policies", cut_short)
    with pytest.raises(RuntimeError, match="a read ended early: Ran out of input"):
        cli.main(["policies"])
    assert "interrupted" not in capsys.readouterr().err


@pytest.mark.parametrize("option, call", [
    ("--cards", lambda folder: analyzer.simulate(games=3, cards=folder)),
    ("--out", lambda folder: analyzer.simulate(games=3, out=folder)),
])
def test_a_folder_where_a_file_goes_reads_as_the_python_api_says_it(capsys, tmp_path, option,
                                                                    call):
    """click said "File '...' is a directory." where a notebook read the API's own words."""
    folder = tmp_path / "a-folder.parquet"
    folder.mkdir()
    code, _, err = run(capsys, "simulate", "--games", "3", option, str(folder))
    with pytest.raises(UrbionError) as raised:
        call(folder)
    assert code == 2 and err == f"urbion: error: {raised.value}\n"
    assert "a-folder.parquet: it is a folder" in err and list(tmp_path.iterdir()) == [folder]


@pytest.mark.parametrize("args, line", [
    (["report", "r.parquet"], "urbion: error: Missing option '--out'. Try 'urbion report "
                              "--help'.\n"),
    (["simulate", "--gmes", "5"], "urbion: error: No such option '--gmes'. Did you mean "
                                  "'--games'? Try 'urbion simulate --help'.\n"),
    (["replay"], "urbion: error: Missing argument 'TRACES'. Try 'urbion replay --help'.\n"),
    (["simulate", "--games"], "urbion: error: Option '--games' requires an argument. Try "
                              "'urbion simulate --help'.\n"),
])
def test_a_missing_or_unknown_option_says_where_the_options_are_in_its_one_line(
        capsys, args, line):
    """click's usage lines are left out of the one-line error; the line points to --help."""
    code, out, err = run(capsys, *args)
    assert (code, out, err) == (2, "", line)


def test_a_bad_value_reads_as_the_python_api_says_it_without_a_help_pointer(capsys):
    code, _, err = run(capsys, "simulate", "--games", "x")
    assert (code, err) == (2, "urbion: error: --games (games=) must be a whole number, not "
                              "'x'\n")


def test_simulate_hands_its_seed_games_workers_and_chunk_to_the_run(capsys):
    code, printed, err = run(capsys, "simulate", "--seed", "5", "--first-game", "7",
                             "--games", "10", "--workers", "5", "--chunk", "3", "--json",
                             "--quiet")
    assert code == 0, err
    config = json.loads(printed)["config"]
    assert {key: config[key] for key in ("seed", "first_game", "games", "chunk",
                                         "played_on")} == \
        {"seed": 5, "first_game": 7, "games": 10, "chunk": 3, "played_on": "5 threads"}
