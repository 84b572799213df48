"""A card set written back out as a card file, and results files as a source of cards: a
run can be played again, and its cards edited, from its results alone."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tomllib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import analyzer
import cli
from analyzer.analysis.results_io import run_cards
from analyzer.cards import CardSetError, default_card_set, load_card_set
from analyzer.cards.loader import card_set_from_data, default_card_text
from analyzer.cards.writer import card_file_text
from analyzer.core.codes import CardField, CardType
from analyzer.errors import PolicyError, ResultsFileError, UrbionError

#: A set unlike R14 in every part the writer reads: values out of order, an element with
#: no Sognae, a city of three elements, Chaos of 7, Metas of one element only, uneven
#: Postcards, Prophecies once, three Emptiness cards, and Gardens & Wizards left out.
ODD_SET = """
name = "Odd \\"set\\" ü"
description = "made for the writer's tests\\nover two lines, with a DEL \\u007f and a \\\\"

[cities]
base = [["fire", "earth"], ["air", "water", "earth"], ["water", "fire"]]
square = 2
temple = ["air", "air", "earth"]

[dreams.sognae]
earth = [4, 1, 3]
water = []
fire = [2, 2, 9]
air = [1]

[dreams.incubi]
earth = [-2]
water = [-9, -1]
fire = []
air = [-3, -1, -2]

[dreams.chaos]
count = 3
value = 7

[dreams.chromatic]
count = 2
value = 3

[dreams.meta]
earth = []
water = [[3, -1], [2, -2]]
fire = []
air = []

[dreams.harmony]
values = [[2, -1], [1, -2]]

[books]
cards = ["prophecies", "freedom", "flying_sognae"]

[postcards]
dreamcatcher = 0
doves = 2
seer = 1
magicians = 0
hourglass = 4
flagship = 1
rocket = 0
planbot = 3

[emptiness]
cards = 3
"""


def _same_cards(one, other) -> bool:
    return (one.name, one.digest, one.description) == (other.name, other.digest,
                                                        other.description) and \
        np.array_equal(one.cards, other.cards) and np.array_equal(one.owner, other.owner)


@pytest.mark.parametrize("text", [default_card_text(), ODD_SET], ids=["r14", "odd"])
def test_a_written_card_file_loads_into_the_same_cards_and_hash(text):
    card_set = card_set_from_data(tomllib.loads(text), "given")
    written = card_set_from_data(tomllib.loads(card_file_text(card_set)), "written")
    assert _same_cards(written, card_set)
    assert written.available_expansions() == card_set.available_expansions()


def test_an_expansion_left_out_stays_out_of_the_written_file():
    card_set = card_set_from_data(tomllib.loads(ODD_SET), "given")
    data = tomllib.loads(card_file_text(card_set))
    assert "wizard" not in data["dreams"] and "garden" not in data["cities"]
    assert data["postcards"]["hourglass"] == 4 and data["books"]["cards"][0] == "prophecies"


def test_cards_no_card_file_describes_are_refused():
    card_set = default_card_set()
    cards = card_set.cards.copy()
    chaos = np.flatnonzero(cards[:, CardField.TYPE] == CardType.CHAOS)
    cards[chaos[0], CardField.VALUE] = 3  # one Chaos of 3 among Chaos of 5
    with pytest.raises(CardSetError, match="several values"):
        card_file_text(replace(card_set, cards=cards))
    swapped = card_set.cards.copy()
    swapped[[0, -1]] = swapped[[-1, 0]]  # an Emptiness card first, a city last
    with pytest.raises(CardSetError, match="no card file describes"):
        card_file_text(replace(card_set, cards=swapped))


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("odd-run")
    (folder / "odd.toml").write_text(ODD_SET, encoding="utf-8")
    results = folder / "odd.parquet"
    df = analyzer.simulate(games=300, seed=5, cards=folder / "odd.toml", workers=1,
                           out=results)
    summary = folder / "odd.json"
    analyzer.simulate_summary(games=300, seed=5, cards=folder / "odd.toml", workers=1,
                              out=summary)
    return folder, df, results, summary


def test_a_results_file_as_cards_plays_the_same_games(odd_run):
    folder, df, results, summary = odd_run
    for source in (results, summary):
        again = analyzer.simulate(games=300, seed=5, cards=source, workers=1)
        assert again.attrs["card_set_sha256"] == df.attrs["card_set_sha256"]
        assert again.attrs["card_set"] == df.attrs["card_set"]
        assert again["won"].equals(df["won"]) and again["turns"].equals(df["turns"])


def test_the_template_of_a_results_file_is_a_card_file_of_its_cards(odd_run, tmp_path):
    folder, df, results, _ = odd_run
    out = tmp_path / "back.toml"
    run = CliRunner().invoke(cli.cli, ["cards", "--cards", str(results), "--template", str(out)])
    assert run.exit_code == 0, run.output
    assert re.search(rf"the cards of Odd \"set\" ü \(sha256 {df.attrs['card_set_sha256'][:12]}\)",
                     run.output)
    assert _same_cards(load_card_set(out), load_card_set(folder / "odd.toml"))


def test_the_template_of_a_card_file_is_its_copy(odd_run, tmp_path):
    folder, *_ = odd_run
    out = analyzer.write_card_template(tmp_path / "copy.toml", folder / "odd.toml")
    assert out.read_bytes() == (folder / "odd.toml").read_bytes()


def test_the_template_of_a_loaded_set_loads_into_its_cards(odd_run, tmp_path):
    """A notebook holds a loaded set, not its file: its template is the card file that
    loads into it; a set no card file describes is one clear error, and nothing written."""
    folder, *_ = odd_run
    loaded = analyzer.load_cards(folder / "odd.toml")
    out = analyzer.write_card_template(tmp_path / "set.toml", loaded)
    back = load_card_set(out)
    assert back.digest == loaded.digest and _same_cards(back, loaded)
    from analyzer.cards.loader import set_digest

    backwards = loaded.cards[::-1].copy()
    with pytest.raises(CardSetError, match="^card set 'Odd \"set\" ü' was changed after"):
        analyzer.write_card_template(tmp_path / "no.toml", replace(loaded, cards=backwards))
    # built by hand with its own hash: no card file lists cards in that order
    by_hand = replace(loaded, cards=backwards,
                      digest=set_digest(loaded.name, backwards, loaded.owner)).with_expansions(0)
    with pytest.raises(CardSetError, match="^card set 'Odd \"set\" ü' has cards in an order"):
        analyzer.write_card_template(tmp_path / "no.toml", by_hand)
    assert not (tmp_path / "no.toml").exists()


def test_a_sensitivity_of_a_results_file_varies_its_cards(odd_run):
    from analyzer.api.sensitivity_runs import _sensitivity_baseline

    folder, _, results, _ = odd_run
    from_results, data = _sensitivity_baseline(results)
    from_file, file_data = _sensitivity_baseline(folder / "odd.toml")
    assert _same_cards(from_results, from_file)
    assert data["dreams"] == file_data["dreams"] and data["books"] == file_data["books"]
    # a city's elements in element order, the order of a mask
    assert [set(city) for city in data["cities"]["base"]] == \
        [set(city) for city in file_data["cities"]["base"]]


def test_a_results_file_that_kept_no_cards_says_so(odd_run, tmp_path, capsys):
    import pyarrow.parquet as pq

    from analyzer.analysis.results_io import METADATA_KEY

    _, _, results, _ = odd_run
    table = pq.read_table(results)
    metadata = dict(table.schema.metadata)
    config = json.loads(metadata[METADATA_KEY])
    del config["card_set_table"]
    metadata[METADATA_KEY] = json.dumps(config).encode()
    old = tmp_path / "old.parquet"
    pq.write_table(table.replace_schema_metadata(metadata), old)
    with pytest.raises(ResultsFileError, match="does not keep the cards of its run .*give "
                                               "its card file as --cards"):
        run_cards(old)
    with pytest.raises(SystemExit) as stop:
        cli.main(["simulate", "--games", "5", "--cards", str(old)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "keep the cards" in err


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [300, 2_000])
def test_inputs_nested_thousands_deep_are_one_line_errors(tmp_path, capsys, depth):
    """Python's parsers recurse: a file nested deeply enough would be a RecursionError's
    traceback."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from analyzer.analysis.results_io import METADATA_KEY

    (tmp_path / "deep.toml").write_text(f"name = {_nested(depth)}\n")
    (tmp_path / "deepw.toml").write_text(f"[weights]\nBALANCE = {_nested(depth)}\n")
    (tmp_path / "deep.json").write_text(
        '{"format": "urbion-summary/1", "config": ' + _nested(depth) + "}")
    pq.write_table(pa.table({"game": [0]}).replace_schema_metadata(
        {METADATA_KEY: _nested(depth).encode()}), tmp_path / "deep.parquet")
    calls = [["cards", "--cards", "deep.toml"],
             ["simulate", "--games", "3", "--policy", "weighted:deepw.toml"],
             ["report", "deep.json", "--out", "r1"],
             ["report", "deep.parquet", "--out", "r2"],
             ["simulate", "--games", "3", "--cards", "deep.parquet"]]
    for args in calls:
        with pytest.raises(SystemExit) as stop, contextlib.chdir(tmp_path):
            cli.main(args)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and len(err) < 300, (args, err)
    assert not (tmp_path / "r1").exists() and not (tmp_path / "r2").exists()


@pytest.mark.parametrize("config", [{"seed": "x"}, {"seed": 1, "policy": "greedy",
                                                    "card_set_sha256": 5}])
def test_a_results_file_of_a_configuration_no_run_writes_is_refused(odd_run, tmp_path,
                                                                     config):
    import pyarrow.parquet as pq

    from analyzer.analysis.results_io import METADATA_KEY, read_results

    table = pq.read_table(odd_run[2])
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.replace_schema_metadata(
        {METADATA_KEY: json.dumps(config).encode()}), bad)
    with pytest.raises(ResultsFileError, match="not (an|a whole) urbion results file"):
        read_results(bad)


@pytest.mark.parametrize("command, out", [("simulate", "same.parquet"),
                                          ("simulate", "same.json"),
                                          ("trace", "same.jsonl")])
def test_an_out_that_is_the_card_file_is_refused_and_kept(tmp_path, capsys, command, out):
    """A card file named as an output is what the run reads: it is not replaced."""
    (tmp_path / out).write_text(default_card_text(), encoding="utf-8")
    args = [command, "--games", "3", "--cards", out, "--out", out]
    if out.endswith(".json"):
        args.append("--summary-only")
    with pytest.raises(SystemExit) as stop, contextlib.chdir(tmp_path):
        cli.main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"--out {out} is the --cards file" in err
    assert (tmp_path / out).read_text(encoding="utf-8") == default_card_text()


def test_a_device_that_never_ends_or_a_huge_file_is_refused_at_once(tmp_path, capsys):
    """Read whole, /dev/zero would take every byte of memory."""
    import os

    from analyzer.textfiles import SMALL_FILE_LIMIT

    os.mkfifo(tmp_path / "pipe.parquet")
    os.mkfifo(tmp_path / "pipe.json")
    os.mkfifo(tmp_path / "pipe.py")
    with (tmp_path / "huge.toml").open("wb") as file:
        file.truncate(SMALL_FILE_LIMIT + 1)  # sparse: no disk taken
    calls = {("cards", "--cards", "/dev/zero"): "larger than 16 MB",
             ("cards", "--cards", "huge.toml"): "larger than 16 MB",
             ("simulate", "--games", "2", "--policy", "weighted:/dev/zero"): "larger than 16",
             # a results file is never a pipe: refused without waiting for a writer
             ("report", "pipe.parquet", "--out", "r"): "not a file",
             # a summary's name waited for a writer that never came
             ("report", "pipe.json", "--out", "r"): "not a file",
             # it exists: "does not exist" misled
             ("simulate", "--games", "2", "--policy", "pipe.py:choose"):
                 "policy file pipe.py is not a regular file (a pipe or a device)"}
    for args, message in calls.items():
        with pytest.raises(SystemExit) as stop, contextlib.chdir(tmp_path):
            cli.main(list(args))
        err = capsys.readouterr().err
        assert stop.value.code == 2 and message in err and err.count("\n") == 1, (args, err)


def test_a_small_text_file_of_exactly_the_limit_is_read_and_one_byte_more_is_not(tmp_path):
    from analyzer.textfiles import UnreadableText, read_small_text

    path = tmp_path / "eight.toml"
    path.write_bytes(b"a = 123\n")  # 8 bytes
    assert read_small_text(path, limit=8) == "a = 123\n"
    path.write_bytes(b"a = 1234\n")  # 9 bytes
    with pytest.raises(UnreadableText, match="larger than"):
        read_small_text(path, limit=8)


def test_a_card_or_weights_file_may_come_through_a_pipe(tmp_path):
    """As <(...) or /dev/stdin give it: read as a file is."""
    import subprocess
    import sys

    code = "import cli; cli.main()"
    cards = subprocess.run([sys.executable, "-c", code, "cards", "--cards", "/dev/stdin"],
                           input=default_card_text(), capture_output=True, text=True,
                           timeout=300, cwd=Path(cli.__file__).parent)
    assert cards.returncode == 0 and "card set   R14-default" in cards.stdout, cards.stderr
    weights = subprocess.run([sys.executable, "-c", code, "simulate", "--games", "5",
                              "--policy", "weighted:/dev/stdin"], input="[weights]\nTURN = 5\n",
                             capture_output=True, text=True, timeout=300,
                             cwd=Path(cli.__file__).parent)
    assert weights.returncode == 0 and "games      5" in weights.stdout, weights.stderr


def test_an_output_that_is_a_link_is_written_through_it(tmp_path, capsys):
    """As a shell's > does: the link stays, its target gets the file; a link to a pipe or a
    device is refused, since a file written whole would replace the pipe or the device
    itself (a pipe of the test's own: were the check lost, a run as root would replace
    the machine's device)."""
    (tmp_path / "store").mkdir()
    (tmp_path / "r.parquet").symlink_to(tmp_path / "store" / "real.parquet")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "t.jsonl").symlink_to(tmp_path / "pipe")
    with contextlib.chdir(tmp_path):
        analyzer.simulate(games=20, out="r.parquet")
        assert (tmp_path / "r.parquet").is_symlink()
        assert analyzer.read_results("store/real.parquet")["game"].tolist() == list(range(20))
        with pytest.raises(SystemExit) as stop:
            cli.main(["trace", "--games", "2", "--out", "t.jsonl"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{tmp_path / 'pipe'} is not a regular file" in err
    assert (tmp_path / "t.jsonl").is_symlink() and (tmp_path / "pipe").is_fifo()


def test_json_that_is_no_summary_given_as_cards_is_named_as_no_card_file(tmp_path):
    path = tmp_path / "t.jsonl"
    analyzer.trace_to_file(path, games=1)
    with pytest.raises(CardSetError, match="t.jsonl is no card file .* and is not an urbion "
                                           "summary file: it is a trace file"):
        analyzer.simulate(games=3, cards=path)


def test_cards_of_a_results_file_name_its_run_and_the_command_that_plays_it_again(
        odd_run, capsys):
    import shlex

    folder, df, results, _ = odd_run
    with pytest.raises(SystemExit) as stop:
        cli.main(["cards", "--cards", str(results)])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    assert f"played     by the run of {results}: seed 5, games 0 to 299, policy greedy, " \
           "expansions none, solo" in out
    again = next(line for line in out.splitlines() if line.startswith("again      "))
    args = shlex.split(again.removeprefix("again      "))
    assert args[0] == "urbion"
    with pytest.raises(SystemExit):
        cli.main(args[1:] + ["--out", str(folder / "again.parquet"), "--quiet"])
    capsys.readouterr()
    again_df = analyzer.read_results(folder / "again.parquet")
    assert again_df["won"].equals(df["won"]) and again_df["turns"].equals(df["turns"])


def test_a_file_named_parquet_that_is_not_is_named_so_as_cards(tmp_path):
    (tmp_path / "bad.parquet").write_text(default_card_text())
    with pytest.raises(CardSetError, match="named .parquet but not a Parquet file"):
        analyzer.simulate(games=3, cards=tmp_path / "bad.parquet")


def test_a_run_keeps_its_weights_file_and_plays_again_from_its_results(tmp_path, capsys):
    """A weighted:FILE run's results keep the file: the weights play again from the
    results or summary file, though the file itself is gone."""
    from analyzer.policies.registry import resolve_policy

    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nTURN = 5.0\nCENSUS_CITY = 0.7\n")
    results, summary = tmp_path / "r.parquet", tmp_path / "s.json"
    first = analyzer.simulate(games=300, seed=4, policy=f"weighted:{weights}", out=results)
    analyzer.simulate_summary(games=300, seed=4, policy=f"weighted:{weights}", out=summary)
    assert first.attrs["policy_weights_file"] == weights.read_text()
    weights.unlink()
    for kept in (results, summary):
        again = analyzer.simulate(games=300, seed=4, policy=f"weighted:{kept}")
        assert again["won"].equals(first["won"]) and again["turns"].equals(first["turns"])
        assert again.attrs["policy_params_sha256"] == first.attrs["policy_params_sha256"]
    # a look-ahead reads them too: the same play-outs' weights
    looked = resolve_policy(f"search:weights={results}")
    assert np.array_equal(looked.params[:-2], resolve_policy(f"weighted:{results}").params)
    plain = tmp_path / "g.parquet"
    analyzer.simulate(games=10, out=plain)
    assert "policy_weights_file" not in analyzer.read_results(plain).attrs
    with pytest.raises(PolicyError, match="g.parquet keeps no weights file: its run played "
                                          "'greedy'"):
        analyzer.simulate(games=10, policy=f"weighted:{plain}")


@pytest.mark.parametrize("policy", ["Weighted:{}", "search:candidates=1,weights={}",
                                    "Clairvoyant:weights= {}"])
def test_an_out_that_is_the_results_file_a_policy_reads_its_weights_from_is_refused(
        tmp_path, policy):
    """However the policy names the file its weights are kept in, the run that reads them
    does not write over it."""
    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\nTURN = 5.0\n")
    results = tmp_path / "r.parquet"
    analyzer.simulate(games=5, policy=f"weighted:{weights}", out=results)
    before = results.read_bytes()
    with pytest.raises(UrbionError, match=r"--out .*r\.parquet is the --policy file"):
        analyzer.simulate(games=5, policy=policy.format(results), out=results)
    from analyzer.policies.registry import resolve_policy

    spec = resolve_policy(policy.format(results))  # a PolicySpec reads it by its name too
    with pytest.raises(UrbionError, match=r"r\.parquet is the --policy file"):
        analyzer.simulate(games=5, policy=spec, out=results)
    assert results.read_bytes() == before


def test_the_weights_file_a_policy_name_reads():
    from analyzer.policies.registry import weights_file_of

    assert weights_file_of("weighted:a b.toml") == "a b.toml"
    assert weights_file_of("WEIGHTED:w.toml") == "w.toml"
    assert weights_file_of("search:rollouts=2, weights= w.toml ,candidates=3") == "w.toml"
    assert weights_file_of("Clairvoyant:weights=r.parquet") == "r.parquet"
    for none in ("weighted", "greedy", "search", "search:rollouts=2", "mine.py:choose",
                 "weighted:"):
        assert weights_file_of(none) is None


def test_the_command_that_plays_a_run_again_takes_its_kept_weights():
    from analyzer.analysis.results_io import play_again_command

    config = {"seed": 1, "games": 10, "policy": "search:candidates=2,weights=w.toml",
              "policy_weights_file": "[weights]\n", "expansions": [], "variant": "solo"}
    assert "--policy search:candidates=2,weights=r.parquet " in \
        play_again_command(config, "r.parquet")
    config["policy"] = "weighted:w.toml"
    assert "--policy weighted:r.parquet " in play_again_command(config, "r.parquet")
    del config["policy_weights_file"]
    assert "--policy weighted:w.toml " in play_again_command(config, "r.parquet")


def test_the_command_plays_a_users_policy_again_only_while_its_file_is_unchanged(tmp_path):
    """A user's policy is played again by its file's name only while the file is the one
    the run hashed; edited since, or a policy made in Python (a name no command resolves),
    the line says no command plays it, where it played other code or failed."""
    import hashlib

    from analyzer.analysis.results_io import play_again_command

    policy = tmp_path / "mine.py"
    policy.write_text((Path(__file__).resolve().parent.parent / "docs" / "examples" /
                       "cautious.py").read_text())
    config = {"seed": 1, "games": 10, "policy": f"{policy}:choose", "expansions": [],
              "variant": "solo",
              "policy_source_sha256": hashlib.sha256(policy.read_bytes()).hexdigest()}
    assert f"--policy {policy}:choose " in play_again_command(config, "r.parquet")
    policy.write_text(policy.read_text() + "\n# tried another threshold\n")
    assert play_again_command(config, "r.parquet") == (
        f"no command: the policy {policy}:choose cannot be played again from its name (a "
        "policy made in Python, or a file changed since the run, say)")
    config["policy"] = "inscript"
    assert play_again_command(config, "r.parquet").startswith(
        "no command: the policy inscript cannot")


def test_the_command_plays_a_policy_again_only_with_the_weights_its_name_gives(tmp_path):
    """A PolicySpec under a built-in's name (or a file's) with other parameters is played
    again by that name with the name's own parameters: other games, so no command; the
    run's own weights, or a file of a version that did not keep them, keep the command."""
    from analyzer.analysis.results_io import play_again_command
    from analyzer.policies.registry import resolve_policy
    from analyzer.runner.plan import policy_weights_digest

    greedy = resolve_policy("greedy", compiled=False)
    config = {"seed": 1, "games": 10, "policy": "greedy", "expansions": [],
              "variant": "solo", "policy_weights_sha256": policy_weights_digest(greedy)}
    assert "--policy greedy " in play_again_command(config, "r.parquet")
    # a PolicySpec made in Python: its parameters as given, none read from the cards
    config["policy_weights_sha256"] = policy_weights_digest(
        replace(greedy, params=greedy.params * 2, params_for_cards=None))
    assert play_again_command(config, "r.parquet") == (
        "no command: the policy greedy cannot be played again from its name (a policy made "
        "in Python, or a file changed since the run, say)")
    del config["policy_weights_sha256"]
    assert "--policy greedy " in play_again_command(config, "r.parquet")
    # a weights file the run kept is played from the results file, whatever FILE holds
    # now: a command only while the kept weights are the ones the run played
    text = "[weights]\nTURN = 7.0\n"
    (tmp_path / "w.toml").write_text(text)
    played = resolve_policy(f"weighted:{tmp_path / 'w.toml'}", compiled=False)
    config.update(policy="weighted:w.toml", policy_weights_file=text,
                  policy_weights_sha256=policy_weights_digest(played))
    assert "--policy weighted:r.parquet " in play_again_command(config, "r.parquet")
    config["policy"] = "Search:candidates=2, weights=w.toml"
    search = resolve_policy(f"search:candidates=2,weights={tmp_path / 'w.toml'}",
                            compiled=False)
    config["policy_weights_sha256"] = policy_weights_digest(search)
    assert "--policy Search:candidates=2,weights=r.parquet " in \
        play_again_command(config, "r.parquet")
    # a PolicySpec named weighted:FILE with other parameters than the file's
    config.update(policy="weighted:w.toml", policy_weights_sha256=policy_weights_digest(
        replace(played, params=played.params * 2, params_for_cards=None)))
    assert play_again_command(config, "r.parquet").startswith(
        "no command: the policy weighted:w.toml cannot be played again")


def test_a_duels_attrs_give_each_policys_own_facts_by_name():
    """No fact of one policy (its weights' hash, a weights file, what it was tuned for)
    reads as the duel's own."""
    duel = analyzer.duel("random,greedy", games=10, seed=1)
    weights = duel.attrs["policy_weights_sha256"]
    assert set(weights) == {"random", "greedy"}
    assert weights["greedy"] == duel.runs["greedy"].attrs["policy_weights_sha256"]
    assert weights["random"] != weights["greedy"]
    assert all(isinstance(value, dict) for key, value in duel.attrs.items()
               if key.startswith("policy_"))


def test_the_played_line_of_a_later_run_gives_its_game_numbers(tmp_path, capsys):
    """A run of --first-game 20000 read as games 0 to 4 when the line gave a count alone."""
    results = tmp_path / "later.parquet"
    analyzer.simulate(games=5, seed=7, first_game=20_000, out=results)
    with pytest.raises(SystemExit):
        cli.main(["cards", "--cards", str(results)])
    out = capsys.readouterr().out
    assert f"played     by the run of {results}: seed 7, games 20,000 to 20,004, policy " \
           "greedy" in out
    assert "--first-game 20000 --games 5" in out


@pytest.mark.parametrize("games", [None, "many"])
def test_a_summary_whose_game_count_is_no_count_is_refused_in_one_line(tmp_path, capsys,
                                                                         games):
    """cards --cards read the count with int() and ended in a traceback."""
    summary = tmp_path / "s.json"
    with pytest.raises(SystemExit):
        cli.main(["simulate", "--games", "20", "--summary-only", "--quiet", "--out",
                  str(summary)])
    document = json.loads(summary.read_text())
    document["config"]["games"] = games
    summary.write_text(json.dumps(document))
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        cli.main(["cards", "--cards", str(summary)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert f"its configuration's games is {games!r}, not a count of games" in err
