"""`urbion replay` and `show --trace-file`: auditing trace files against the rules."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest

import analyzer
from analyzer.errors import UrbionError
from tests.test_cli import run

TEAM = {"expansions": "all", "variant": "team"}


@pytest.fixture(scope="module")
def team_traces():
    return analyzer.trace(seed=7, game=40, games=3, **TEAM)


def _write(path, lines):
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return path


def _tampered(trace):
    """The trace with its first placement moved to another row: a decision it did not take."""
    bad = copy.deepcopy(trace)
    entry = next(e for e in bad["log"] if e.get("do") == "place")
    entry["row"] = (entry["row"] + 1) % 4
    return bad


def test_replay_accepts_every_trace_the_fast_engine_wrote(capsys, tmp_path, team_traces):
    path = _write(tmp_path / "t.jsonl", team_traces)
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    for trace in team_traces:
        r = trace["result"]
        assert (f"game {trace['game']} of seed 7 replays: {r['outcome']} ({r['reason']}) "
                f"after {r['turns']} turns") in out
    assert "3 trace(s), 3 replay, 0 do not" in out


def _reshuffled_games() -> tuple[dict, dict]:
    """A game whose Dream deck is reshuffled during play, and a copy whose last reshuffle
    swaps its two bottom cards, never drawn again: a permutation still, which replays, but
    not the one the game's stream gives."""
    from analyzer.reference.replay import ReplayError, replay

    for game in range(300):
        trace = analyzer.trace(seed=3, game=game, expansions="all", policy="random")[0]
        shuffles = [entry for entry in trace["log"] if "shuffle" in entry]
        if not shuffles or len(shuffles[-1]["shuffle"]) < 2:
            continue
        edited = copy.deepcopy(trace)
        last = [entry for entry in edited["log"] if "shuffle" in entry][-1]["shuffle"]
        last[-1], last[-2] = last[-2], last[-1]
        try:
            replay(edited)
        except ReplayError:
            continue
        return trace, edited
    raise AssertionError("no game of 300 with such a reshuffle")


def test_replay_tells_a_trace_whose_shuffles_are_not_the_games_it_names(capsys, tmp_path,
                                                                         team_traces):
    """Edited, it still follows the rules; but its seed, its game or a shuffle no longer
    are those of the deal it names, which the replay says (the run stays a pass: the rules
    hold) and show puts first."""
    other_seed = copy.deepcopy(team_traces[0])
    other_seed["seed"] = 8
    reshuffled, other_order = _reshuffled_games()
    path = _write(tmp_path / "t.jsonl", [team_traces[1], other_seed, reshuffled, other_order])
    code, out, _ = run(capsys, "replay", str(path))
    lines = out.splitlines()
    assert code == 0 and "4 replay, 0 do not; 2 replaying with the shuffles of another game" \
        in lines[-1]
    assert [("not those of" in line) for line in lines[:4]] == [False, True, False, True]
    code, _, _ = run(capsys, "replay", "--strict", str(path))
    assert code == 1  # --strict: a trace must also be the game it names
    honest = _write(tmp_path / "honest.jsonl", [team_traces[1], reshuffled])
    assert run(capsys, "replay", "--strict", str(honest))[0] == 0
    assert "not those of game 40 of seed 8: an edited or hand-built trace" in lines[1]
    assert analyzer.replay(other_order)["deal_of_seed"].tolist() == [False]
    assert analyzer.replay(reshuffled)["deal_of_seed"].tolist() == [True]
    # in Python, passes_strict is --strict's verdict trace by trace
    assert analyzer.replay(path)["passes_strict"].tolist() == [True, False, True, False]
    code, shown, _ = run(capsys, "show", "--trace-file", str(path), "--seed", "8",
                         "--game", "40")
    assert code == 0 and shown.startswith("Note: the shuffles of this trace are not those "
                                          "of game 40 of seed 8")
    code, shown, _ = run(capsys, "show", "--trace-file", str(path), "--seed", "7",
                         "--game", "41")
    assert code == 0 and not shown.startswith("Note")


def test_replay_names_each_bad_line_and_still_judges_the_others(capsys, tmp_path,
                                                                team_traces):
    path = _write(tmp_path / "t.jsonl", [team_traces[0], "{not json", "",
                                         _tampered(team_traces[1]), 17])
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("line 1: game 40 of seed 7 replays")
    assert lines[1].startswith("line 2: a trace does NOT replay: not JSON")
    assert lines[2].startswith("line 4: game 41 of seed 7 does NOT replay: log entry ")
    assert lines[3] == "line 5: a trace does NOT replay: trace: expected a JSON object"
    assert lines[4].endswith("4 trace(s), 1 replay, 3 do not")


@pytest.mark.parametrize("content, message", [
    (None, "cannot read trace file"),
    (b"\n\n", "holds no trace"),
    (b"\xff\xfe{", "is not a trace file: it is not UTF-8 text"),
])
def test_replay_of_an_unreadable_file_is_one_line_and_exit_2(capsys, tmp_path, content,
                                                             message):
    path = tmp_path / "t.jsonl"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("content", [
    'name = "mine"\n[dreams.chaos]\ncount = 6\nvalue = 5\n',  # a card file
    "game,won,turns\n0,True,25\n1,False,24\n",  # a results table as CSV
    "hello\n",
    '{"a": 1}\n{"b": [2]}\n',  # JSON objects, none of them with a trace's format or log
    '{\n  "a": 1\n}\n',
    "42\n", '"a trace"\n[1, 2]\n',  # JSON, but no object on any line
])
def test_replay_of_a_file_that_is_no_trace_file_is_one_line_and_exit_2(capsys, tmp_path,
                                                                        content):
    """Not a verdict per line of some other file: no line of it is JSON, and it does not
    begin as a trace would."""
    path = tmp_path / "other.txt"
    path.write_text(content)
    for command in (["replay"], ["show", "--trace-file"]):
        code, out, err = run(capsys, *command, str(path))
        assert code == 2 and out == ""
        assert f"{path} is not a trace file" in err and err.count("\n") == 1


def test_a_broken_trace_among_traces_still_gets_its_verdict(capsys, tmp_path):
    """An object without a format beside a trace is a broken trace, not another file; an
    unknown element in a City card is named."""
    trace = analyzer.trace(seed=7, game=40)[0]
    city = next(i for i, card in enumerate(trace["cards"]) if card["type"] == "city")
    plasma = json.loads(json.dumps(trace))
    plasma["cards"][city]["elements"] = ["earth", "plasma"]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in (trace, {"a": 1}, plasma)) + "\n")
    code, out, _ = run(capsys, "replay", str(path))
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("line 1: game 40 of seed 7 replays")
    assert "line 2: " in lines[1] and "does NOT replay" in lines[1]
    assert f"cards[{city}]: unknown element 'plasma' (valid: " in lines[2]


def test_replay_of_a_results_or_summary_file_says_what_the_file_is(capsys, tmp_path):
    """The files a run writes, given where a trace file is asked for: one line naming
    the kind of file, exit 2, no verdict per line."""
    results, summary = tmp_path / "r.parquet", tmp_path / "s.json"
    analyzer.simulate(games=20, out=results)
    analyzer.simulate_summary(games=20, out=summary)
    expected = {results: "it is a Parquet results file (urbion report, report in Python, "
                         "reads those",
                summary: "it is the summary of a --summary-only run"}
    for path, what in expected.items():
        for command in (["replay"], ["show", "--trace-file"]):
            code, out, err = run(capsys, *command, str(path))
            assert code == 2 and out == "", (path, command)
            assert err.startswith(f"urbion: error: {path} is not a trace file: {what}"), err
            assert err.count("\n") == 1


def test_show_of_a_trace_file_is_the_show_of_the_game_it_holds(capsys, tmp_path,
                                                                team_traces):
    path = _write(tmp_path / "t.jsonl", team_traces)
    code, out, _ = run(capsys, "show", "--trace-file", str(path), "--game", "41")
    assert code == 0
    assert out.rstrip("\n") == analyzer.show(seed=7, game=41, **TEAM)
    assert analyzer.show(trace_file=path) == analyzer.show(seed=7, game=40, **TEAM)
    # a trace as trace() returns it, in a notebook, shows alike
    assert analyzer.show(trace_file=team_traces[1]) == out.rstrip("\n")
    with pytest.raises(UrbionError, match="not for one trace given as a dict"):
        analyzer.show(trace_file=team_traces[1], game=41)
    with pytest.raises(UrbionError, match=r"^the trace does not replay \(.*\)$"):
        analyzer.show(trace_file=_tampered(team_traces[1]))


def test_show_of_a_trace_file_holding_that_game_of_two_seeds_asks_which(capsys, tmp_path,
                                                                         team_traces):
    """Game 41 of seeds 7 and 8 in one file: --game 41 alone showed seed 7's without a
    word; --seed chooses."""
    other = analyzer.trace(seed=8, game=41, **TEAM)[0]
    path = _write(tmp_path / "t.jsonl", [*team_traces, other])
    code, out, err = run(capsys, "show", "--trace-file", str(path), "--game", "41")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "holds traces of more than one game 41 (game 41 of seed 7, game 41 of seed 8): " \
           "give --seed and --game (seed=, game=) to choose one" in err
    code, out, _ = run(capsys, "show", "--trace-file", str(path), "--game", "41", "--seed",
                       "8")
    assert code == 0 and out.rstrip("\n") == analyzer.show(seed=8, game=41, **TEAM)


@pytest.mark.parametrize("lines, game, message", [
    ("good", "4", "holds no trace of game 4 (it holds game 40 of seed 7, game 41 of seed 7, "
                  "game 42 of seed 7)"),
    ("tampered", "41", "line 2: the trace does not replay (log entry"),
    ("not json", None, "line 1: not JSON"),
    ("cut off", "41", "holds no trace of game 41 (it holds game 40 of seed 7; line 2 cannot "
                      "be read (not JSON: it ends at column"),
])
def test_show_of_a_bad_trace_file_is_one_line_and_exit_2(capsys, tmp_path, team_traces,
                                                         lines, game, message):
    content = {"good": team_traces,
               "tampered": [team_traces[0], _tampered(team_traces[1])],
               "not json": ["[1, 2"],
               "cut off": [team_traces[0], json.dumps(team_traces[1])[:300]]}[lines]
    path = _write(tmp_path / "t.jsonl", content)
    args = ["show", "--trace-file", str(path)] + (["--game", game] if game else [])
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_the_api_replays_one_trace_or_a_list(team_traces):
    one = analyzer.replay(team_traces[2])
    assert one["replays"].tolist() == [True]
    assert one.loc[0, "turns"] == team_traces[2]["result"]["turns"]
    many = analyzer.replay([team_traces[0], _tampered(team_traces[0])])
    assert many["replays"].tolist() == [True, False]
    assert many.loc[1, "error"].startswith("log entry ")
    assert many["line"].tolist() == [1, 2]


@pytest.mark.parametrize("field", ["type", "kind", "polarity"])
def test_a_name_field_holding_a_list_is_a_replay_error_not_a_crash(team_traces, field):
    trace = copy.deepcopy(team_traces[0])
    card = next(c for c in trace["cards"] if field in c)
    card[field] = [card[field]]
    verdict = analyzer.replay(trace)
    assert not verdict.loc[0, "replays"]
    assert verdict.loc[0, "error"].startswith(("cards[", "cards: cards[", "expansions:"))


@pytest.mark.parametrize("text", ["[\n" * 100_000, "[" * 100_000, '{"a":' * 100_000])
def test_json_nested_past_pythons_depth_is_one_line_not_a_traceback(capsys, tmp_path, text):
    path = tmp_path / "deep.json"
    path.write_text(text + "\n")
    code, out, err = run(capsys, "replay", str(path))
    assert "Traceback" not in out + err
    assert (code == 2 and err.count("\n") == 1) or \
        (code == 1 and "nested too deeply" in out)


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_array_of_traces_is_no_trace_file_one_line_and_exit_2(capsys, tmp_path,
                                                                      team_traces, indent):
    """json.dump of analyzer.trace()'s list is not TRACE.md's one object per game; the
    error says what the file holds instead of a verdict on its one 'trace'."""
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(team_traces[:2], indent=indent))
    for command in (["replay"], ["show", "--trace-file"]):
        code, out, err = run(capsys, *command, str(path))
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"{path} is not a trace file: it holds one JSON array" in err


@pytest.mark.parametrize("write, verdict", [
    (lambda t: json.dumps(t, indent=2), "replays"),  # one trace over many lines (TRACE.md)
    (lambda t: "\ufeff" + json.dumps(t), "replays"),  # a byte-order mark
    (lambda t: '{"seed": ' + "9" * 5000 + "}", "does NOT replay: not JSON that can be read"),
    (lambda t: json.dumps({k: v for k, v in t.items() if k != "seed"}),
     "does NOT replay: seed: null is not a whole number"),
    (lambda t: json.dumps({**t, "game": "41"}), 'does NOT replay: game: "41" is not a whole'),
    (lambda t: json.dumps({**t, "policy": 3}), "does NOT replay: policy: expected a name"),
])
def test_replay_and_show_agree_on_unusual_files(capsys, tmp_path, team_traces, write,
                                                verdict):
    path = tmp_path / "t.json"
    path.write_text(write(team_traces[1]) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path))
    assert verdict in out.splitlines()[0]
    assert code == (0 if verdict == "replays" else 1)
    code, out, err = run(capsys, "show", "--trace-file", str(path))
    if verdict == "replays":
        assert code == 0 and out.rstrip("\n") == analyzer.show(seed=7, game=41, **TEAM)
    else:
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err


def test_show_chooses_a_trace_by_seed_and_game(capsys, tmp_path):
    traces = analyzer.trace(seed=1, game=0) + analyzer.trace(seed=2, game=0)
    path = _write(tmp_path / "t.jsonl", traces)
    code, out, _ = run(capsys, "show", "--trace-file", str(path), "--seed", "2")
    assert code == 0 and out.rstrip("\n") == analyzer.show(seed=2, game=0)
    assert analyzer.show(trace_file=path, seed=1, game=0) == analyzer.show(seed=1)


@pytest.mark.parametrize("option", [["--policy", "random"], ["--variant", "team"],
                                    ["--expansions", "all"], ["--cards", "c.toml"]])
def test_show_refuses_play_options_with_a_trace_file(capsys, tmp_path, team_traces, option):
    path = _write(tmp_path / "t.jsonl", team_traces)
    code, out, err = run(capsys, "show", "--trace-file", str(path), *option)
    assert code == 2 and out == ""
    assert f"{option[0]} ({option[0][2:]}=): not for a trace file" in err


def test_replay_of_an_empty_path_is_refused(capsys):
    code, _, err = run(capsys, "replay", "")
    assert code == 2 and "must be a path, not ''" in err


def test_the_replayer_meets_random_damage_with_replay_errors_only(team_traces):
    """Any field of a trace replaced or deleted: a ReplayError (a verdict), never a crash."""
    import random

    from analyzer.reference.replay import ReplayError, replay

    rng = random.Random(5)
    values = [None, -1, 0, 3, 2**70, "x", [], {}, True, 1.5, [1, 2], {"a": 1}]
    trace = team_traces[0]
    places = list(_places(trace))
    for _ in range(300):
        damaged = copy.deepcopy(trace)
        *path, last = rng.choice(places)
        parent = damaged
        for key in path:
            parent = parent[key]
        if rng.random() < 0.2:
            del parent[last]
        else:
            parent[last] = rng.choice(values)
        try:
            replay(damaged)
        except ReplayError:
            pass


def _places(value, prefix=()):
    """Every key path into a JSON value."""
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield (*prefix, key)
        yield from _places(child, (*prefix, key))


def test_a_line_separator_inside_a_json_string_does_not_split_the_trace(tmp_path,
                                                                         team_traces):
    path = tmp_path / "t.jsonl"
    noted = {**team_traces[0], "note": "a\u2028b\x0cc"}  # extra keys are allowed (TRACE.md)
    path.write_text(json.dumps(noted, ensure_ascii=False) + "\n" + json.dumps(team_traces[1])
                    + "\n", encoding="utf-8")
    verdicts = analyzer.replay(path)
    assert verdicts["line"].tolist() == [1, 2] and verdicts["replays"].all()


@pytest.mark.parametrize("none", [[], ()])
def test_the_api_refuses_a_list_of_no_traces_as_it_refuses_an_empty_file(none):
    """An empty list gave an empty frame, whose replays.all() is True: a check passed on
    nothing, where an empty file holds no trace and is refused."""
    with pytest.raises(UrbionError, match="^replay: the list holds no trace$"):
        analyzer.replay(none)


def test_the_api_replays_a_tuple_of_traces(team_traces):
    assert analyzer.replay(tuple(team_traces[:2]))["replays"].tolist() == [True, True]


@pytest.mark.parametrize("card_type, key, value, limits", [
    ("sognae", "value", 99, "from 1 to 9"),
    ("incubi", "value", -10, "from -9 to -1"),
    ("chaos", "value", 10, "from 1 to 9"),
    ("chromatic", "value", 12, "from 1 to 9"),
    ("meta", "incubi_value", -10, "from -9 to -1"),
    ("harmony", "sognae_value", 10, "from 1 to 9"),
    ("wizard", "value", 10, "from 1 to 9"),
])
def test_a_card_value_a_card_file_could_not_give_does_not_replay(team_traces, card_type, key,
                                                                 value, limits):
    """The replayer holds a trace's cards to the card-file loader's limits."""
    trace = copy.deepcopy(team_traces[0])
    position, card = next((i, c) for i, c in enumerate(trace["cards"])
                          if c["type"] == card_type and c.get("polarity") != "incubi")
    card[key] = value
    verdict = analyzer.replay(trace)
    assert not verdict.loc[0, "replays"]
    assert verdict.loc[0, "error"] == (f"cards: cards[{position}]: {card_type} card "
                                       f"{card['id']} {key}: {value} is not a whole number "
                                       f"{limits} (a card file's limits)")


@pytest.mark.parametrize("elements, error", [
    (["earth", "earth"], "element 'earth' listed twice"),
    (["fire", "water", "fire"], "element 'fire' listed twice"),
    ([], "a base City card shows one element at least, as in a card file, not none"),
])
def test_a_city_card_no_card_file_could_hold_does_not_replay(elements, error):
    """A hand-built trace of its own card set, with no hash to check: the replayer holds a
    base City to what a card file may hold, as it holds a value (an element twice, or none,
    made a city that no card reaches, or reaches twice)."""
    trace = copy.deepcopy(analyzer.trace(seed=3, game=0)[0])
    trace["card_set"] = "mine"
    del trace["card_set_sha256"]
    position = next(i for i, c in enumerate(trace["cards"]) if c["type"] == "city")
    trace["cards"][position]["elements"] = elements
    verdict = analyzer.replay(trace)
    assert not verdict.loc[0, "replays"]
    assert verdict.loc[0, "error"] == f"cards: cards[{position}]: {error}"


@pytest.mark.parametrize("key", ["city_deck", "dream_deck", "postcard_deck", "book_deck"])
def test_a_setup_without_one_of_its_four_decks_does_not_replay(key):
    """TRACE.md's setup lists all four decks, the Postcards' and Books' empty when they are
    not in play: one left out is a trace cut short, not an empty deck."""
    trace = copy.deepcopy(analyzer.trace(seed=3, game=0)[0])
    assert trace["setup"]["book_deck"] == [] == trace["setup"]["postcard_deck"]
    del trace["setup"][key]
    verdict = analyzer.replay(trace)
    assert not verdict.loc[0, "replays"]
    assert verdict.loc[0, "error"].startswith(f"setup.{key}: ")


def test_a_setup_decision_of_the_wrong_seat_names_the_setup_not_alternate_turns(team_traces):
    """In the team game the opening deal's decisions are seat 0's (docs/engine.md): before
    turn 1 no turn alternates, and the error says so."""
    trace = copy.deepcopy(team_traces[0])
    first_turn = next(i for i, e in enumerate(trace["log"]) if e.get("check") is not None)
    index, entry = next((i, e) for i, e in enumerate(trace["log"][:first_turn])
                        if "do" in e)
    entry["seat"] = 1 - entry["seat"]
    error = analyzer.replay(trace).loc[0, "error"]
    assert error.startswith(f"log entry {index}: seat {entry['seat']} on a decision of seat ")
    assert error.endswith("(setup: seat 0's, or the seat whose opening hand draws "
                          "(docs/engine.md))")
    # a decision of a turn still cites the alternating turns
    trace = copy.deepcopy(team_traces[0])
    entry = next(e for e in trace["log"][first_turn:] if e.get("do") == "place")
    entry["seat"] = 1 - entry["seat"]
    assert analyzer.replay(trace).loc[0, "error"].endswith("(R10.1: turns alternate)")


@pytest.mark.parametrize("expansion, cards", [
    ("squares_metas", "City Square or Meta"), ("chromatic_chaos", "Chromatic Chaos"),
    ("temples_harmony", "Temple or Harmony"), ("gardens_wizards", "Hanging Garden or Wizard"),
])
def test_a_header_expansion_whose_cards_the_trace_lacks_does_not_replay(expansion, cards):
    """A base game renamed a game of an expansion whose cards join the decks: the cards
    table holds none of them, so no card file could have dealt it."""
    trace = copy.deepcopy(analyzer.trace(seed=3, game=0)[0])
    assert analyzer.replay(trace)["replays"].all()
    trace["expansions"] = [expansion]
    verdict = analyzer.replay(trace)
    assert not verdict.loc[0, "replays"]
    assert verdict.loc[0, "error"] == (f"expansions: {expansion!r} cannot be replayed without "
                                       "its cards: the cards table of this solo variant "
                                       f"trace holds no {cards} card")


def test_replay_spells_a_traces_values_as_its_file_does(capsys, tmp_path, team_traces):
    """A bad seed or format is quoted in JSON (true, null), not as Python prints it."""
    odd_seed = copy.deepcopy(team_traces[0])
    odd_seed["seed"] = True
    no_format = copy.deepcopy(team_traces[1])
    no_format["format"] = None
    code, out, _ = run(capsys, "replay", str(_write(tmp_path / "t.jsonl",
                                                    [odd_seed, no_format])))
    assert code == 1
    assert f"game {team_traces[0]['game']} of seed true does NOT replay" in out
    assert 'format: null is not "urbion-trace/1"' in out
    assert "True" not in out and "None" not in out


def test_replay_reads_several_pretty_printed_traces(capsys, tmp_path, team_traces):
    """As `jq . FILE.jsonl` writes them: each trace over many lines, one after the other;
    each verdict names the line its trace begins on."""
    text = "".join(json.dumps(t, indent=2) + "\n" for t in team_traces[:2])
    path = tmp_path / "pretty.json"
    path.write_text(text)
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0, out
    second = json.dumps(team_traces[0], indent=2).count("\n") + 2
    assert out.startswith("line 1: game 40 of seed 7 replays")
    assert f"line {second}: game 41 of seed 7 replays" in out
    assert "2 trace(s), 2 replay, 0 do not" in out
    path.write_text(text + "{broken\n")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and out.count("not JSON") < 20  # no longer a line per physical line


def test_traces_name_the_engine_card_set_policy_and_rules_that_made_them(tmp_path):
    """Beside TRACE.md's names, a trace records what a results file records (added keys,
    which a replayer reads past): two card files of one name, or two versions of one
    policy file, are told apart."""
    from analyzer.cards import default_card_set
    from analyzer.core.codes import RULES_VERSION

    policy = tmp_path / "mine.py"
    policy.write_text((Path(__file__).parents[1] / "docs" / "examples" /
                       "cautious.py").read_text())
    fast, = analyzer.trace(seed=3, game=1)
    reference, = analyzer.trace(seed=3, game=1, engine="reference")
    mine, = analyzer.trace(seed=3, game=1, policy=f"{policy}:choose")
    assert (fast["engine"], reference["engine"]) == ("fast", "reference")
    assert fast["card_set_sha256"] == default_card_set().digest
    assert fast["rules_version"] == RULES_VERSION and "policy_source_sha256" not in fast
    assert len(mine["policy_source_sha256"]) == 64
    assert mine["policy_params_sha256"] != fast["policy_params_sha256"]
    assert list(fast)[:8] == ["format", "seed", "game", "variant", "expansions", "policy",
                              "card_set", "engine"]
    path = _write(tmp_path / "t.jsonl", [fast, reference, mine])
    assert analyzer.replay(path)["replays"].all()


#: A check's keys in TRACE.md's example, ``hands`` and ``polarity`` where ``hand`` stands.
CHECK_ORDER = ["turn", "rows", "hand", "hands", "polarity", "dream_deck", "success",
               "discard", "emptiness", "inhabitants", "wise_chaos"]


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("game", [{}, TEAM], ids=["base", "team_all_seven"])
def test_a_trace_file_holds_trace_mds_keys_in_its_order(tmp_path, engine, game):
    """TRACE.md's example: one trace a line, its header's names (added keys after
    card_set), then cards, setup, log and result; the setup's four decks, every check's
    keys and the result's figures each in the order TRACE.md lists them."""
    out = tmp_path / "t.jsonl"
    assert analyzer.trace_to_file(out, seed=3, game=1, games=2, engine=engine,
                                  **game) == 2
    lines = out.read_text().split("\n")
    assert lines[-1] == "" and len(lines) == 3
    for line in lines[:2]:
        trace = json.loads(line)
        keys = list(trace)
        assert keys[:7] == ["format", "seed", "game", "variant", "expansions", "policy",
                            "card_set"]
        assert keys[-4:] == ["cards", "setup", "log", "result"]
        assert list(trace["setup"]) == ["city_deck", "dream_deck", "postcard_deck",
                                        "book_deck"]
        assert list(trace["result"]) == ["outcome", "reason", "card_set", "turns",
                                         "pacified", "deck_left"]
        checks = [entry["check"] for entry in trace["log"] if "check" in entry]
        assert len(checks) > 1
        for check in checks:
            assert list(check) == [key for key in CHECK_ORDER if key in check]


def _with_one_card_changed(trace: dict) -> dict:
    """A copy of ``trace`` with one Sognae or Incubi card's value changed where the game
    still replays: a card table edited, the rules still kept."""
    from analyzer.reference.replay import ReplayError, replay

    for card in trace["cards"]:
        if card["type"] not in ("sognae", "incubi"):
            continue
        edited = copy.deepcopy(trace)
        twin = next(c for c in edited["cards"] if c["id"] == card["id"])
        twin["value"] += 1 if 0 < twin["value"] < 9 or twin["value"] < -1 else -1
        try:
            replay(edited)
        except ReplayError:
            continue
        return edited
    raise AssertionError("every change of a card's value changes the game")


def test_replay_tells_a_trace_naming_r14_with_other_cards(capsys, tmp_path):
    trace = analyzer.trace(seed=1, game=0, expansions="books")[0]
    edited = _with_one_card_changed(trace)
    renumbered = copy.deepcopy(trace)  # the same cards listed in another order
    renumbered["cards"].reverse()
    path = _write(tmp_path / "t.jsonl", [trace, edited, renumbered])
    code, out, _ = run(capsys, "replay", str(path))
    lines = out.splitlines()
    assert code == 0 and lines[-1].endswith("; 1 with other cards than the card set named")
    assert [("its cards or card-set hash are not those of R14-default" in line)
            for line in lines[:3]] == \
        [False, True, False]
    assert analyzer.replay(path)["cards_of_set"].tolist() == [True, False, True]
    assert analyzer.replay(path)["passes_strict"].tolist() == [True, False, True]
    assert run(capsys, "replay", "--strict", str(path))[0] == 1
    honest = _write(tmp_path / "honest.jsonl", [trace, renumbered])
    assert run(capsys, "replay", "--strict", str(honest))[0] == 0
    code, shown, _ = run(capsys, "show", "--trace-file", str(path), "--seed", "1")
    assert code == 0 and not shown.startswith("Note")
    one = _write(tmp_path / "edited.jsonl", [edited])
    code, shown, _ = run(capsys, "show", "--trace-file", str(one))
    assert code == 0 and shown.startswith("Note: this trace names the card set R14-default, "
                                          "but its cards table or card-set hash is another set's")


def test_replay_checks_no_card_set_it_does_not_hold(tmp_path):
    from analyzer.cards.loader import default_card_text

    own = tmp_path / "mine.toml"
    own.write_text(default_card_text().replace('name = "R14-default"', 'name = "mine"', 1))
    trace = analyzer.trace(seed=1, game=0, cards=own)[0]
    assert trace["card_set"] == "mine"
    edited = _with_one_card_changed(trace)
    assert analyzer.replay([trace, edited])["cards_of_set"].isna().all()
    named_r14 = copy.deepcopy(edited)  # R14's name on another set's digest
    named_r14["card_set"] = named_r14["result"]["card_set"] = "R14-default"
    assert analyzer.replay(named_r14)["cards_of_set"].tolist() == [False]


def test_show_of_a_trace_of_a_set_the_replayer_does_not_hold_has_no_edited_note(tmp_path):
    """A trace of the user's own card set is not called edited: its cards are not checked
    against a set (cards_of_set NA), and show shows it as the game it is."""
    from analyzer.cards.loader import default_card_text

    own = tmp_path / "mine.toml"
    own.write_text(default_card_text().replace('name = "R14-default"', 'name = "mine"', 1))
    trace = analyzer.trace(seed=1, game=0, cards=own)[0]
    shown = analyzer.show(trace_file=trace)
    assert not shown.startswith("Note") and "edited" not in shown
    assert shown == analyzer.show(seed=1, game=0, cards=own)


def test_replay_names_its_source_and_the_card_set_it_checked_against(tmp_path):
    from analyzer.cards.loader import default_card_text

    own = tmp_path / "mine.toml"
    own.write_text(default_card_text().replace('name = "R14-default"', 'name = "mine"', 1))
    trace = analyzer.trace(seed=1, game=0)[0]
    path = _write(tmp_path / "t.jsonl", [trace])
    assert analyzer.replay(path).attrs == {"source": str(path)}
    assert analyzer.replay(path, cards=own).attrs == {"source": str(path), "card_set": "mine"}
    assert analyzer.replay([trace, trace]).attrs == {"source": "2 trace(s)"}


def test_a_trace_cut_off_in_its_line_is_said_to_be_cut_off(capsys, tmp_path, team_traces):
    text = json.dumps(team_traces[0])
    path = tmp_path / "cut.jsonl"
    for cut in range(len(text) // 2, len(text) // 2 + 40):  # inside words, numbers, strings
        path.write_text(text[:cut] + "\n")
        code, out, _ = run(capsys, "replay", str(path))
        assert code == 1 and "before its object does (a file cut off?)" in out, text[:cut][-20:]
    path.write_text(text.replace('"log": [', '"log": [}', 1) + "\n")  # broken, not cut off
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "not JSON: " in out and "cut off" not in out


def _own_card_file(tmp_path: Path, name: str = "mine", chaos: int = 6) -> Path:
    from analyzer.cards.loader import default_card_text

    text = default_card_text().replace('name = "R14-default"', f'name = "{name}"', 1)
    assert "[dreams.chaos]\ncount = 8" in text
    own = tmp_path / f"{name}.toml"
    own.write_text(text.replace("[dreams.chaos]\ncount = 8", f"[dreams.chaos]\ncount = {chaos}"))
    return own


def test_replay_cards_checks_every_trace_against_a_card_file(capsys, tmp_path):
    """A trace of a set the replayer does not hold is checked with --cards: its cards, and
    the set's name and hash in its header."""
    own = _own_card_file(tmp_path)
    trace = analyzer.trace(seed=1, game=0, cards=own)[0]
    zeroed = copy.deepcopy(trace)
    zeroed["card_set_sha256"] = "0" * 64
    edited = _with_one_card_changed(trace)
    r14 = analyzer.trace(seed=1, game=0)[0]
    relabelled = copy.deepcopy(r14)  # R14's game under the name and hash of the set
    relabelled.update(card_set=trace["card_set"], card_set_sha256=trace["card_set_sha256"])
    relabelled["result"]["card_set"] = trace["card_set"]
    path = _write(tmp_path / "t.jsonl", [trace, zeroed, edited, relabelled, r14])
    df = analyzer.replay(path, cards=own)
    assert df["replays"].all()
    assert df["cards_of_set"].tolist() == [True, False, False, False, False]
    # not checked (a set the replayer does not hold) is NA, which a mask reads as False
    alone = analyzer.replay(path)
    assert alone["cards_of_set"].tolist() == [pd.NA, pd.NA, pd.NA, pd.NA, True]
    assert alone[alone["cards_of_set"]]["line"].tolist() == [5]
    code, out, _ = run(capsys, "replay", "--strict", "--cards", str(own), str(path))
    lines = out.splitlines()
    assert code == 1 and lines[-1].endswith("; 3 with other cards than mine; 1 with the "
                                            "cards of mine under another set's name or hash")
    assert "its cards are not those of mine" not in lines[0]
    assert lines[4].endswith(f"its cards are not those of mine ({own}): it names the card "
                             'set "R14-default"')
    honest = _write(tmp_path / "honest.jsonl", [trace])
    assert run(capsys, "replay", "--strict", "--cards", str(own), str(honest))[0] == 0
    # a card file without Books: a trace playing them is not of it, and the others still
    # get their verdicts
    text = own.read_text()
    no_books = tmp_path / "no-books.toml"
    no_books.write_text(text[:text.index("[books]")] + text[text.index("[postcards]"):])
    books = analyzer.trace(seed=1, game=0, cards=own, expansions="books",
                           engine="reference")[0]
    del books["card_set_sha256"]  # as a trace of another program may lack it
    df = analyzer.replay([trace, books], cards=no_books)
    assert df["replays"].all() and df["cards_of_set"].tolist() == [False, False]
    code, _, err = run(capsys, "replay", "--cards", str(tmp_path / "none.toml"), str(honest))
    assert code == 2 and err.count("\n") == 1


def test_replay_cards_tells_a_renamed_copy_from_other_cards_and_fails_without_strict(
        capsys, tmp_path):
    """A trace of a card file checked against a copy of it under another name holds the
    copy's cards: the check said "its cards are not those of" the copy. And the check
    --cards asks for decides the exit code, --strict or not."""
    own = _own_card_file(tmp_path)
    copy_of_own = _own_card_file(tmp_path, name="mine2")
    other = _own_card_file(tmp_path, name="ten", chaos=10)
    trace = analyzer.trace(seed=1, game=0, cards=own)[0]
    zeroed = copy.deepcopy(trace)
    zeroed["card_set_sha256"] = "0" * 64
    path = _write(tmp_path / "t.jsonl", [trace, zeroed])
    df = analyzer.replay(path, cards=copy_of_own)
    assert df["cards_of_set"].tolist() == [False, False]
    assert df["cards_alike"].tolist() == [True, True]
    assert analyzer.replay(path, cards=other)["cards_alike"].tolist() == [False, False]
    assert analyzer.replay(path)["cards_alike"].tolist() == [pd.NA, pd.NA]
    code, out, _ = run(capsys, "replay", "--cards", str(copy_of_own), str(path))
    lines = out.splitlines()
    assert code == 1
    assert lines[0].endswith(f'it names the card set "mine", not mine2 ({copy_of_own}), '
                             "whose cards it holds: a copy under another name")
    assert "are not those of" not in out
    assert lines[-1].endswith("; 2 with the cards of mine2 under another set's name or hash")
    code, out, _ = run(capsys, "replay", "--cards", str(own), str(path))
    assert code == 1 and out.splitlines()[1].endswith(
        f"its card-set hash is not that of mine ({own}), whose cards it holds: an edited hash")
    code, out, _ = run(capsys, "replay", "--cards", str(other), str(path))
    assert code == 1 and f"its cards are not those of ten ({other})" in out
    assert out.splitlines()[-1].endswith("; 2 with other cards than ten")
    honest = _write(tmp_path / "honest.jsonl", [trace])
    assert run(capsys, "replay", "--cards", str(own), str(honest))[0] == 0


def test_replay_tells_a_trace_naming_other_rules(capsys, tmp_path, team_traces):
    from analyzer.core.codes import RULES_VERSION

    other = copy.deepcopy(team_traces[0])
    other["rules_version"] = "urbion-2e/expansions-99"
    path = _write(tmp_path / "t.jsonl", [team_traces[1], other])
    code, out, _ = run(capsys, "replay", str(path))
    lines = out.splitlines()
    assert code == 0 and "rules" not in lines[0]
    assert lines[1].endswith('; but it names the rules "urbion-2e/expansions-99", and was '
                             f"replayed under {RULES_VERSION}")
    assert lines[-1].endswith(f"; 1 naming other rules than {RULES_VERSION}")
    assert analyzer.replay(path)["rules_as_named"].tolist() == [True, False]
    assert analyzer.replay(path)["passes_strict"].tolist() == [True, False]
    assert run(capsys, "replay", "--strict", str(path))[0] == 1
    code, shown, _ = run(capsys, "show", "--trace-file", str(path), "--game",
                         str(other["game"]))
    assert code == 0 and shown.startswith("Note: this trace names the rules "
                                          "urbion-2e/expansions-99")


def test_a_trace_naming_no_rules_is_replayed_under_these_and_passes_strict(capsys, tmp_path,
                                                                          team_traces):
    """rules_version is this package's own key: a trace written to TRACE.md by another
    program may lack it, and is judged by the game it holds."""
    bare = copy.deepcopy(team_traces[0])
    del bare["rules_version"]
    path = _write(tmp_path / "t.jsonl", [bare])
    code, out, _ = run(capsys, "replay", "--strict", str(path))
    assert code == 0 and "names the rules" not in out and "other rules" not in out
    assert analyzer.replay(path)["passes_strict"].tolist() == [True]


def test_a_trace_names_the_commit_and_show_names_what_made_it(team_traces):
    from analyzer.runner.config import package_commit
    from analyzer.trace.show import render_trace

    trace = team_traces[0]
    assert trace["commit"] == package_commit()
    made_by = render_trace(trace).splitlines()[1]
    assert made_by == (f"Made by: engine fast, rules {trace['rules_version']}, urbion "
                       f"{trace['package_version']}, commit {trace['commit']}, policy "
                       f"parameters sha256 {trace['policy_params_sha256'][:12]}")
    bare = {key: value for key, value in trace.items()
            if key not in ("engine", "rules_version", "package_version", "commit",
                           "policy_params_sha256")}
    assert not render_trace(bare).splitlines()[1].startswith("Made by")


def test_show_counts_the_postcards_never_dealt(team_traces):
    from analyzer.trace.show import render_trace

    short, = analyzer.trace(seed=1, game=2, expansions="postcards", engine="reference")
    nevers = []
    for trace in [*team_traces, short]:
        line = next(line for line in render_trace(trace).splitlines()
                    if line.startswith("  Postcards:"))
        assert sum(1 for card in trace["cards"] if card["type"] == "postcard") == 24
        lying = int(line.split(" still on dreams")[0].split("; ")[-1])
        scored = sum(int(part.split(" at ")[0]) for part in
                     line.split(": ", 2)[2].split(" (")[0].split(";")[0].split(", "))
        nevers.append(int(line.split(" never dealt")[0].split(", ")[-1]))
        assert lying + scored + nevers[-1] == 24, line
    assert nevers[-1] > 0


def test_show_writes_a_traces_header_fields_that_would_act_on_the_terminal_as_escapes(
        capsys, tmp_path, team_traces):
    """An edited commit or hash of a trace retitled the terminal as show printed it."""
    edited = {**team_traces[0], "commit": "\x1b]0;pwned\x07", "policy": "\x1b[2Jgreedy",
              "package_version": "1\u202e2", "card_set_sha256": "\x1b[2J" + "0" * 60}
    path = _write(tmp_path / "t.jsonl", [edited])
    code, out, err = run(capsys, "show", "--trace-file", str(path))
    assert code == 0, err
    assert "\x1b" not in out and "\u202e" not in out
    assert "commit \\x1b]0;pwned\\x07" in out and "urbion 1\\u202e2" in out
    assert "(sha256 \\x1b[2J00000000)" in out and "policy \\x1b[2Jgreedy, card set" in out


def test_a_binary_file_is_refused_from_its_head_before_it_is_read_whole(capsys, tmp_path,
                                                                        monkeypatch):
    """replay /dev/zero grew to 16 GB before any word, and gigabytes of a binary file were
    read whole before 'not UTF-8': its first 64 KB say it already."""
    zeros, noise = tmp_path / "zeros.jsonl", tmp_path / "noise.jsonl"
    zeros.write_bytes(b"\0" * 200_000)  # UTF-8 all the same, but no text
    noise.write_bytes(bytes(range(256)) * 1_000)

    def read_whole(self, *args, **kwargs):
        raise AssertionError(f"{self} read whole")

    monkeypatch.setattr(Path, "read_text", read_whole)
    for path in (zeros, noise):
        for command in (["replay"], ["show", "--trace-file"]):
            code, out, err = run(capsys, *command, str(path))
            assert (code, out) == (2, ""), err
            assert err == (f"urbion: error: {path} is not a trace file: it is not UTF-8 text "
                           "(urbion trace --out FILE.jsonl (trace_to_file in Python) writes "
                           "traces)\n")


def test_a_trace_file_from_a_pipe_is_read_whole(team_traces):
    """`urbion replay <(zcat t.jsonl.gz)`: the head's check read a pipe's first 64 KB,
    which the reading of the whole file then lacked ("holds no trace")."""
    import os
    import threading

    text = "".join(json.dumps(trace) + "\n" for trace in team_traces)
    assert len(text.encode()) > 2**16  # more than the head the check reads
    read, write = os.pipe()

    def feed() -> None:
        with os.fdopen(write, "w") as file:
            file.write(text)

    threading.Thread(target=feed, daemon=True).start()
    try:
        df = analyzer.replay(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert df["replays"].tolist() == [True, True, True]
