"""Policies: built-ins by name, and a jitted function of one's own through the same API."""

from __future__ import annotations

import re
from pathlib import Path

import numba
import numpy as np
import pytest

import analyzer
from analyzer.core.codes import Decision, Outcome, Result
from analyzer.errors import PolicyError
from analyzer.policies.registry import (
    BUILTIN_POLICIES,
    PolicySpec,
    names_a_builtin,
    resolve_policy,
)


@numba.njit
def breaks_on_turn_3(kind, options, n_options, state, cards, params, rng):
    """Plays the first option, and an index past the options on Phase I of turn 3."""
    layout, hands, info = state
    if kind == Decision.PHASE1 and info[0] == 3:
        return n_options
    return 0


def test_builtins_are_listed_with_descriptions():
    assert {"random", "greedy"} <= set(BUILTIN_POLICIES)
    assert all(p.description for p in BUILTIN_POLICIES.values())


@pytest.mark.parametrize("name", ["greedy", "Weighted", " random ", "search:rollouts=2",
                                  "weighted:mine.toml", "clairvoyant"])
def test_a_policy_of_ones_own_cannot_take_a_builtins_name(name):
    """Its results and pages would read as the built-in's: a report called a policy that
    never won 'a one-step heuristic that plays like a careful beginner'."""
    spec = PolicySpec(name, breaks_on_turn_3, np.zeros(0))
    with pytest.raises(PolicyError, match=r"cannot be named .*, a built-in policy's name"):
        analyzer.simulate(games=2, policy=spec)
    with pytest.raises(PolicyError, match="a built-in policy's name"):
        analyzer.duel([spec, "random"], games=2)
    assert not names_a_builtin("greedy-ish") and not names_a_builtin("mine.py:greedy")
    # a user's module named search, as --policy search:choose loads it and compare plays it
    assert not names_a_builtin("search:choose") and not names_a_builtin("greedy:choose")


def test_a_weights_file_here_is_named_absolutely_for_workers_in_any_letter_case(
        tmp_path, monkeypatch):
    """A cluster's workers resolve the policy by its name in another working folder: a
    relative weights file becomes absolute however the name spells weighted."""
    from analyzer.policies.registry import portable_name

    (tmp_path / "w.toml").write_text("[weights]\nTURN = 3.0\n")
    monkeypatch.chdir(tmp_path)
    here = str((tmp_path / "w.toml").resolve())
    assert portable_name("weighted:w.toml") == f"weighted:{here}"
    assert portable_name("Weighted:w.toml") == f"Weighted:{here}"
    assert portable_name("Search:rollouts=2,weights=w.toml") == \
        f"Search:rollouts=2,weights={here}"


def test_an_illegal_decision_names_policy_seed_game_turn_and_decision():
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    with pytest.raises(PolicyError) as err:
        analyzer.simulate(games=20, seed=4, policy=spec)
    message = str(err.value)
    for part in ("'breaker'", "seed 4", "game 0", "turn 3", "PHASE1", "returned"):
        assert part in message


def test_an_illegal_decision_in_a_later_chunk_and_slice_names_its_own_game(monkeypatch):
    """Games 3..22 in chunks of 4 on two threads: game 13 opens the second slice of the
    third chunk, and the error names game 13 (the batch kernel's rows say it erred)."""
    from analyzer.runner import chunks

    kernel_of = chunks.batch_kernel

    def erring_at_game_13(spec):
        def play(*args):
            rows = kernel_of(spec)(*args)
            first = args[-2]
            if first <= 13 < first + len(rows):
                rows[13 - first, Result.OUTCOME] = Outcome.ERROR
            return rows
        return play

    monkeypatch.setattr(chunks, "batch_kernel", erring_at_game_13)
    with pytest.raises(PolicyError, match=r"\(seed 4, game 13, turn"):
        analyzer.simulate(games=20, seed=4, first_game=3, chunk=4, workers=2)


def test_both_engines_word_an_illegal_decision_alike_with_its_number_of_options():
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    messages = []
    for engine in ("fast", "reference"):
        with pytest.raises(PolicyError) as err:
            analyzer.simulate(games=5, seed=4, policy=spec, engine=engine)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    returned, options = re.search(r"returned (\d+) for a PHASE1 decision with (\d+) options",
                                  messages[0]).groups()
    assert returned == options  # the policy returns n_options, one past the last


def test_greedy_beats_random_by_far():
    greedy = analyzer.simulate(games=3000, seed=1, policy="greedy")
    rand = analyzer.simulate(games=3000, seed=1, policy="random")
    assert rand["won"].sum() == 0
    assert greedy["won"].mean() > 0.03
    assert greedy["pacified"].mean() > rand["pacified"].mean() + 5


EXAMPLE = str(Path(__file__).resolve().parents[1] / "docs" / "examples" / "cautious.py")


def test_the_documented_example_policy_runs_through_api_and_both_engines():
    name = f"{EXAMPLE}:choose"
    fast = analyzer.simulate(games=40, seed=2, policy=name)
    ref = analyzer.simulate(games=40, seed=2, policy=name, engine="reference")
    assert fast.equals(ref)
    assert fast.attrs["policy"] == name
    # it reveals every Chaos drawn in Phase II and never clears a city
    assert fast["chaos_revealed"].sum() > 0 and fast["chaos_cleared"].sum() == 0


def test_the_documented_example_policy_runs_through_the_cli(capsys):
    import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["simulate", "--games", "50", "--policy", f"{EXAMPLE}:choose"])
    out = capsys.readouterr().out
    assert stop.value.code == 0 and "games      50" in out


@pytest.mark.parametrize("name, message", [
    ("no/such/file.py:choose", "does not exist"),
    (f"{EXAMPLE}:nope", "has no function 'nope'"),
    ("analyzer.policies.greedy_nb:greedy_params", "must be compiled with @numba.njit"),
    ("no_such_module_x:choose", "cannot import"),
    ("os:path", "names a module, not a function"),
    ("math:pi", "names a value of type float, not a function"),
    # a path that is no .py file reads as one, not as Python's words on relative imports
    ("tests/:choose", "tests/ is no FILE.py \\(a path to a file ending in .py\\) nor a "
                      "MODULE Python can import"),
    (".:choose", ". is no FILE.py"),
    ("..x:choose", "..x is no FILE.py"),
    ("../cf:choose", "../cf is no FILE.py"),
])
def test_bad_user_policies_are_named_in_one_line(name, message):
    with pytest.raises(PolicyError, match=message):
        resolve_policy(name)


def test_a_policy_file_that_is_a_folder_is_named_so(tmp_path, monkeypatch):
    (tmp_path / "mine.py").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyError, match="policy file mine.py is a folder, not a file"):
        resolve_policy("mine.py:choose")


def test_a_policy_that_calls_sys_exit_as_it_loads_is_one_line_not_a_silent_exit(
        tmp_path, monkeypatch, capsys):
    """A script with its sys.exit(3) at the top level ended the command with code 3 and
    no word."""
    from tests.test_cli import run

    (tmp_path / "script_policy_x.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "simulate", "--games", "5", "--policy",
                       "script_policy_x.py:choose")
    assert code == 2 and err.startswith("urbion: error: policy file script_policy_x.py "
                                        "called sys.exit(3) as it loaded")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PolicyError, match="script_policy_x called sys.exit\\(3\\) as it "
                                          "was imported"):
        resolve_policy("script_policy_x:choose")


def test_a_module_that_fails_as_it_runs_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "broken_policy_module_x.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PolicyError, match="cannot import broken_policy_module_x: boom"):
        resolve_policy("broken_policy_module_x:choose")


def test_a_module_name_for_a_file_here_points_to_the_file_form(tmp_path, monkeypatch):
    """The current folder is not on the import path of an installed command."""
    (tmp_path / "placer.py").write_text(Path(EXAMPLE).read_text())
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyError, match=re.escape("(to load the file placer.py here, "
                                                    "name it placer.py:choose)")):
        resolve_policy("placer:choose")
    assert resolve_policy("placer.py:choose").name == "placer.py:choose"


@pytest.mark.parametrize("module, said", [
    ("greedy", "nor is there a module greedy with a function choose"),
    ("weighted", "no weights file choose"),
    ("random", "random has no function 'choose'"),  # Python's own random came first
])
def test_a_file_here_named_as_a_builtin_or_pythons_module_points_to_the_file_form(
        tmp_path, monkeypatch, module, said):
    (tmp_path / f"{module}.py").write_text(Path(EXAMPLE).read_text())
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyError, match=re.escape(
            f"{said} (to load the file {module}.py here, name it {module}.py:choose)")):
        resolve_policy(f"{module}:choose")


@pytest.mark.parametrize("name", ["weighted:", "weighted: "])
def test_weighted_with_no_file_after_the_colon_says_so(name):
    """Not 'cannot read weights file .: Is a directory'."""
    with pytest.raises(PolicyError, match=r"names no weights file \(weighted:FILE\.toml"):
        resolve_policy(name)


def test_policies_command_lists_the_builtins(capsys):
    import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(["policies"])
    out = capsys.readouterr().out
    assert stop.value.code == 0
    assert all(name in out for name in BUILTIN_POLICIES)
    # the descriptions form one column, after the longest name
    starts = {len(line) - len(line.split(None, 1)[1]) for line in out.splitlines()}
    assert len(starts) == 1, out


_BAD_POLICIES = '''
import random

import numba
import numpy as np

@numba.njit
def returns_float(kind, options, n_options, state, cards, params, rng):
    return 0.5

@numba.njit
def undefined_name(kind, options, n_options, state, cards, params, rng):
    return nowhere + 1

@numba.njit
def two_arguments(kind, options):
    return 0

@numba.njit
def bad_attribute(kind, options, n_options, state, cards, params, rng):
    return options.foo

def not_jitted(kind, options, n_options, state, cards, params, rng):
    return 0

@numba.njit
def unsigned(kind, options, n_options, state, cards, params, rng):
    return numba.uint64(0)

@numba.njit
def draw_np(n):
    return np.random.randint(0, n)

@numba.njit
def numpy_global_state(kind, options, n_options, state, cards, params, rng):
    return draw_np(n_options)

@numba.njit
def python_global_state(kind, options, n_options, state, cards, params, rng):
    return random.randrange(n_options)
'''


@pytest.mark.parametrize("function, message", [
    ("returns_float", "must return a signed integer (the index of an option), not float64"),
    # numba names no place for a NameError: the loader finds the line that names it
    ("undefined_name", "does not compile as a policy (docs/policies.md): NameError: name "
                       "'nowhere' is not defined (\"{path}\", line 13)"),
    ("two_arguments", "Signature mismatch: 7 argument types given"),
    ("bad_attribute", "Unknown attribute 'foo' of type array(int64, 2d, C) ("),
    ("not_jitted", "not_jitted must be compiled with @numba.njit"),
    # the kernels count options in int64: a uint64 index does not mix with them
    ("unsigned", "must return a signed integer (the index of an option), not uint64"),
    # no seed sets numba's global random states: such a policy's games are not replayable
    ("numpy_global_state", "draws from numba's global random state (np.random or random)"),
    ("python_global_state", "draws from numba's global random state (np.random or random)"),
])
def test_a_policy_that_cannot_play_is_one_line_naming_the_cause(tmp_path, function,
                                                                 message):
    path = tmp_path / "bad.py"
    path.write_text(_BAD_POLICIES)
    out = tmp_path / "r.parquet"
    with pytest.raises(PolicyError) as err:
        analyzer.simulate(games=5, policy=f"{path}:{function}", out=out)
    assert message.format(path=path) in str(err.value) and "\n" not in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__pycache__", "bad.py"] or \
        sorted(p.name for p in tmp_path.iterdir()) == ["bad.py"]


_RAISING_POLICY = '''
import numba

@numba.njit
def choose(kind, options, n_options, state, cards, params, rng):
    if n_options > 2:
        raise ValueError("no plan for this")
    return 0
'''


def test_a_policy_that_raises_while_playing_is_one_line_and_leaves_nothing(tmp_path, capsys):
    import cli

    path = tmp_path / "raising.py"
    path.write_text(_RAISING_POLICY)
    policy = f"{path}:choose"
    where = f'ValueError: no plan for this ("{path}", line 7)'
    # the reference engine calls the policy from Python, without compiling a whole kernel
    for command, out in (("simulate", "r.parquet"), ("trace", "t.jsonl")):
        with pytest.raises(SystemExit) as stop:
            cli.main([command, "--engine", "reference", "--policy", policy, "--games", "3",
                      "--out", str(tmp_path / out)])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1, err
        assert f"urbion: error: policy '{policy}' raised {where}" in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "__pycache__") == \
        ["raising.py"]


_LATE_RAISING_POLICY = '''
import numba

@numba.njit
def choose(kind, options, n_options, state, cards, params, rng):
    layout, hands, info = state
    if RAISES and info[0] >= 42:  # info[0]: the turn
        raise ValueError("lost in a long game")
    return n_options - 1
'''


def test_the_halving_search_finds_the_first_raising_game_wherever_it_lies(monkeypatch):
    """Games 40..76 played as one slice raise; a part of them raises when it holds a game
    that raises. Whichever game raises first (the others after it too), that one is named."""
    from analyzer.cards import default_card_set
    from analyzer.runner import chunks
    from analyzer.runner.plan import RunPlan

    plan = RunPlan(default_card_set(), "random", 0, 37, first_game=40)
    for first_raising in range(40, 77):
        raising = {first_raising, min(first_raising + 3, 76), 76}

        def play(plan, first, n, raising=raising):
            if raising & set(range(first, first + n)):
                raise ValueError("raised")
            return np.zeros(n)

        monkeypatch.setattr(chunks, "_play_games", play)
        assert chunks._first_raising_game(plan, 40, 37) == first_raising


def test_a_policy_that_raises_names_the_first_game_that_raises(tmp_path, capsys):
    """The error names the seed and the first game whose play raises (found by halving the
    slice that raised), on both engines, whatever the threads and chunks: the game is then
    one `urbion show` away. The same policy without its raise says which game that is: the
    first to reach turn 42."""
    from tests.test_cli import run

    path = tmp_path / "late.py"
    path.write_text("RAISES = True\n" + _LATE_RAISING_POLICY)
    twin = tmp_path / "late_twin.py"
    twin.write_text("RAISES = False\n" + _LATE_RAISING_POLICY)
    turns = analyzer.simulate(games=300, seed=0, policy=f"{twin}:choose",
                              engine="reference")["turns"].to_numpy()
    first = int(np.flatnonzero(turns >= 42)[0])
    assert first > 0
    with pytest.raises(PolicyError) as err:
        analyzer.simulate(games=300, seed=0, policy=f"{path}:choose", engine="reference")
    assert str(err.value).endswith(f'line 9) in seed 0, game {first}'), str(err.value)
    # the fast engine, from the command line: the bar drawn so far is cleared, the error
    # stands on one line
    code, _, err = run(capsys, "simulate", "--games", "300", "--seed", "0", "--workers", "2",
                       "--chunk", "64", "--policy", f"{path}:choose")
    assert code == 2 and err.count("\n") == 1, err
    assert err.rstrip().endswith(f'line 9) in seed 0, game {first}'), err
    # traces of the games around it, on both engines
    for engine in ("reference", "fast"):
        with pytest.raises(PolicyError) as err:
            analyzer.trace(seed=0, game=first - 1, games=3, policy=f"{path}:choose",
                           engine=engine)
        assert str(err.value).endswith(f"in seed 0, game {first}"), (engine, str(err.value))


def test_a_policy_object_of_a_plain_function_is_refused():
    """PolicySpec as docs/policies.md imports it, from the package itself."""
    assert analyzer.PolicySpec is PolicySpec
    spec = analyzer.PolicySpec("plain", lambda *args: 0, np.zeros(0))
    with pytest.raises(PolicyError, match="must be compiled with @numba.njit"):
        analyzer.simulate(games=5, policy=spec)


_DECLARED = '''
import numba
from analyzer.policies.builtin_nb import POLICY_ARGS

@numba.njit(numba.types.int64(*POLICY_ARGS))
def declared(kind, options, n_options, state, cards, params, rng):
    return 0

@numba.njit("int64(int64)")
def declared_otherwise(kind):
    return 0

@numba.njit(cache=True)
def cached(kind, options, n_options, state, cards, params, rng):
    return 0
'''


def test_policies_declared_with_the_signature_or_cached_play(tmp_path):
    path = tmp_path / "declared.py"
    path.write_text(_DECLARED)
    for function in ("declared", "cached"):
        assert len(analyzer.simulate(games=5, policy=f"{path}:{function}")) == 5
    with pytest.raises(PolicyError, match="declares its signatures, and none is the policy"):
        analyzer.simulate(games=5, policy=f"{path}:declared_otherwise")


def test_a_policy_object_is_fingerprinted_by_the_file_of_its_function():
    import hashlib

    from analyzer.runner.plan import policy_fingerprint

    # a resume or a results file must tell an edited function apart under the same name
    spec = PolicySpec("breaker", breaks_on_turn_3, np.zeros(0))
    assert policy_fingerprint(spec)[1] == hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    assert policy_fingerprint(BUILTIN_POLICIES["greedy"])[1] == ""


_DIVIDING_POLICY = f'''
import numba

@numba.njit
def choose(kind, options, n_options, state, cards, params, rng):
    # an integer division by zero at a Chromatic Chaos choice: numba raises it with no line
    return (n_options - 1) // (0 if kind == {Decision.CHROMATIC} else 1)
'''


def test_a_policys_division_by_zero_is_its_error_and_names_the_set_and_game(tmp_path):
    """An error numba raises for the policy's compiled code names no line of its file: it
    is still the policy's one-line error, naming the set of the comparison and the first
    game that raises, which the reference engine raises on too."""
    path = tmp_path / "dividing.py"
    path.write_text(_DIVIDING_POLICY)
    policy = f"{path}:choose"
    with pytest.raises(PolicyError) as err:
        analyzer.compare(sets="chromatic_chaos", games=60, seed=0, policy=policy)
    text = str(err.value)
    assert text.startswith("compare, set chromatic_chaos (games 0 to 59): policy ")
    assert "raised ZeroDivisionError: integer division by zero (in its code or a function " \
        "it calls: compiled code names no line) in seed 0, game " in text
    game = int(text.rsplit("game ", 1)[1])
    if game > 0:  # the games before it do not raise
        analyzer.trace(seed=0, game=0, games=game, policy=policy, engine="reference",
                       expansions="chromatic_chaos")
    with pytest.raises(PolicyError, match=f"ZeroDivisionError.* in seed 0, game {game}$"):
        analyzer.trace(seed=0, game=game, policy=policy, engine="reference",
                       expansions="chromatic_chaos")


@pytest.mark.parametrize("name", ["greedy", "search", "clairvoyant"])
def test_an_error_while_a_packaged_policy_plays_is_not_blamed_on_it(name):
    """Only a user's own function is named as the cause of an error raised while it played:
    the search policies are the package's code, like the built-ins, and an error in them
    keeps its traceback (and the run its checkpoint)."""
    from analyzer.errors import mark_policy_call
    from analyzer.policies.loader import policy_failure

    err = MemoryError("cannot allocate")
    mark_policy_call(err)
    assert policy_failure(resolve_policy(name), err) is None


def test_an_error_while_a_users_policy_plays_is_blamed_on_it(tmp_path):
    from analyzer.errors import mark_policy_call
    from analyzer.policies.loader import policy_failure

    path = tmp_path / "dividing.py"
    path.write_text(_DIVIDING_POLICY)
    err = MemoryError("cannot allocate")
    mark_policy_call(err)
    failure = policy_failure(resolve_policy(f"{path}:choose"), err)
    assert failure is not None and "raised MemoryError: cannot allocate" in str(failure)


def test_a_policy_imports_a_module_beside_it_whose_raise_is_named(tmp_path, monkeypatch):
    """As when Python runs a file, the policy's folder is on the import path; a raise in
    the module it imports is named by that module's line."""
    (tmp_path / "guards_beside.py").write_text(
        "import numba\n\n\n@numba.njit\ndef guard(n):\n    if n > 2:\n"
        "        raise ValueError('too many options')\n    return 0\n")
    path = tmp_path / "importing.py"
    path.write_text("import numba\nfrom guards_beside import guard\n\n\n@numba.njit\n"
                    "def choose(kind, options, n_options, state, cards, params, rng):\n"
                    "    return guard(n_options)\n")
    monkeypatch.setattr("sys.path", list(__import__("sys").path))  # undone after the test
    with pytest.raises(PolicyError) as err:
        analyzer.simulate(games=5, policy=f"{path}:choose", engine="reference")
    assert f"raised ValueError: too many options (\"{tmp_path / 'guards_beside.py'}\", " \
        "line 7) in seed 0, game 0" in str(err.value)


def _twin_policy(folder: Path, first: bool) -> str:
    """A policy file in ``folder`` whose choice comes from a helper module of a name that
    every twin shares: option 0, or the last option."""
    folder.mkdir(exist_ok=True)
    (folder / "twin_helpers.py").write_text(
        "import numba\n\n\n@numba.njit\ndef pick(n):\n"
        f"    return {'0' if first else 'n - 1'}\n")
    (folder / "twin.py").write_text(
        "import numba\nfrom twin_helpers import pick\n\n\n@numba.njit\n"
        "def choose(kind, options, n_options, state, cards, params, rng):\n"
        "    return pick(n_options)\n")
    return f"{folder / 'twin.py'}:choose"


def test_two_policies_each_play_the_helper_module_beside_them(tmp_path, monkeypatch):
    """Two folders' policies import helpers of one name: each plays its own, and an edited
    helper is played (and hashed) when its policy is loaded again."""
    monkeypatch.setattr("sys.path", list(__import__("sys").path))  # undone after the test
    first, last = _twin_policy(tmp_path / "a", True), _twin_policy(tmp_path / "b", False)

    def play(policy):
        df = analyzer.simulate(games=20, seed=3, policy=policy, engine="reference")
        return df["turns"].tolist(), df.attrs["policy_source_sha256"]

    (a_turns, a_hash), (b_turns, b_hash) = play(first), play(last)
    assert a_turns != b_turns and a_hash != b_hash
    assert play(first) == (a_turns, a_hash)  # loaded once, still its own helper
    _twin_policy(tmp_path / "a", False)  # a's helper now picks the last option, as b's
    edited_turns, edited_hash = play(first)
    # byte for byte b's policy and helper now: the same policy, by its play and its hash
    assert (edited_turns, edited_hash) == (b_turns, b_hash)


def test_a_second_policy_file_of_a_folder_leaves_the_first_loaded(tmp_path, monkeypatch):
    """Policy files side by side are policies, not each other's helpers: loading one keeps
    the other's compiled function."""
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    first = _twin_policy(tmp_path, True)
    (tmp_path / "other.py").write_text((tmp_path / "twin.py").read_text())
    before = resolve_policy(first).func
    resolve_policy(f"{tmp_path / 'other.py'}:choose")
    assert resolve_policy(first).func is before


def test_a_policys_source_hash_is_the_same_whatever_was_imported_before(tmp_path,
                                                                       monkeypatch):
    """A helper the user's own code imported first is imported afresh for the policy: the
    hash a cluster's workers compute in fresh processes is this one."""
    import importlib
    import subprocess
    import sys

    monkeypatch.setattr("sys.path", [str(tmp_path / "c"), *sys.path])
    name = _twin_policy(tmp_path / "c", True)
    importlib.import_module("twin_helpers")  # as a notebook beside the policy might
    here = resolve_policy(name).source_digest
    fresh = subprocess.run(
        [sys.executable, "-c", "import sys; from analyzer.policies.registry import "
         "resolve_policy; print(resolve_policy(sys.argv[1]).source_digest)", name],
        capture_output=True, text=True, check=True,
        env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert here == fresh.stdout.strip() and len(here) == 64


def test_a_policy_specs_params_are_checked_and_a_bare_function_is_named():
    @numba.njit
    def first(kind, options, n_options, state, cards, params, rng):
        return 0

    spec = PolicySpec("first", first, [0.5, 2])  # a list of numbers: taken as float64
    assert analyzer.simulate(games=3, policy=spec, engine="reference").attrs["policy"] == \
        "first"
    # each item a real number: a None (NaN as float), a complex, a string or a bool is none
    for params, kind in ((None, "None"), (np.ones((1, 2)), "array"), (["a"], "params[0] = 'a'"),
                         ([1, "b"], "params[1] = 'b'"), ([0.5, None], "params[1] = None"),
                         ([1 + 2j], "params[0] = (1+2j)"), ([1.0, np.nan], "params[1] = nan"),
                         ([True], "params[0] = True"), ([[1], [1, 2]], "a list holding list")):
        with pytest.raises(PolicyError, match="params must be a 1-D array of real numbers "
                                              r"\(float64\), not .*" + re.escape(kind)):
            analyzer.simulate(games=3, policy=PolicySpec("first", first, params))
    with pytest.raises(PolicyError, match="not the function 'first' itself: PolicySpec"):
        analyzer.simulate(games=3, policy=first)
