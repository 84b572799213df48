"""The files of ``urbion duel --out``: its tables as CSV and its text, with how it was
played."""

from __future__ import annotations

import dataclasses
import datetime
import re
import shlex
from pathlib import Path

from analyzer.analysis.results_io import command_policy_name
from analyzer.reporting.facts import card_file_words, policy_fact, runs_commit, runs_software
from analyzer.reporting.folders import write_folder
from analyzer.reporting.markup import shared_note
from analyzer.reporting.names import shared_policy


def duel_file_names(policies: list[str]) -> list[str]:
    """Each policy's results file in a duel's folder: its number and its name, with what a
    file name cannot hold (a weights file's path, a search's options) as ``_``."""
    return [f"{number}-{re.sub(r'[^A-Za-z0-9_=-]+', '_', name).strip('_') or 'policy'}"
            f".parquet" for number, name in enumerate(policies, start=1)]


def write_duel(result, out: str | Path) -> Path:
    """A duel into folder ``out``: each policy's per-game results (for ``urbion report``),
    policies.csv, pairs.csv, play.csv and duel.txt (what the terminal shows); complete or
    not at all."""
    from analyzer.analysis.duel import PLAY_COLUMNS, play_half_widths
    from analyzer.analysis.results_io import write_results

    out = Path(out)
    shown = shared_policy_names(list(result.runs))
    # the same duel under the names a shared file gives its policies: tables laid out for them
    named = dataclasses.replace(
        result, policies=result.policies.rename(index=shown),
        pairs=result.pairs.replace({"a": shown, "b": shown}),
        runs={shown[name]: df for name, df in result.runs.items()},
        attrs={**result.attrs, "policies": [shown[n] for n in result.attrs["policies"]]})

    def fill(folder: Path) -> None:
        files = duel_file_names(list(named.runs))
        for name, file in zip(result.runs, files, strict=True):
            write_results(result.runs[name], folder / file)
        # each file names the cards its games were dealt from, quoted apart from the folder
        cards = {key: result.attrs.get(key) for key in ("card_set", "card_set_sha256")}
        named.policies.assign(**cards).to_csv(folder / "policies.csv")
        named.pairs.assign(**cards).to_csv(folder / "pairs.csv", index=False)
        play = play_half_widths(named.runs).add_suffix(" half_width").join(named.play,
                                                                          how="right")
        # each policy's column beside its half-width, in the duel's order
        order = [column for policy in named.runs for column in (policy, f"{policy} half_width")
                 if column in play.columns]
        play = play[order + [c for c in play.columns if c not in order]]
        # the results column each measure averages, for a script joining the two
        play.insert(0, "column", play.index.map(PLAY_COLUMNS))
        play.assign(**cards).rename_axis("measure").to_csv(folder / "play.csv")
        note = shared_note(result.weights_note(), shown)
        (folder / "duel.txt").write_text(
            str(named) + "\n" + (f"{note}\n" if note else "") + "\n"
            + "\n".join(f"{k:<10} {v}" for k, v in duel_facts(
                result, shown, files[0]).items()) + "\n",
            encoding="utf-8")

    return write_folder(out, fill, "duel")


def shared_policy_names(names: list[str]) -> dict[str, str]:
    """Each policy of a duel as a shared file names it (``shared_policy``), numbered where
    two files of one name would read alike."""
    short = {name: shared_policy(name) for name in names}
    values = list(short.values())
    seen: dict[str, int] = {}
    shown = {}
    for name, value in short.items():
        if values.count(value) > 1:
            seen[value] = seen.get(value, 0) + 1
            value = f"{value} #{seen[value]}"
        shown[name] = value
    # a name that already read "... #1" could meet a numbered one: then the names as given
    return shown if len(set(shown.values())) == len(shown) else {n: n for n in names}


def duel_facts(result, shown: dict[str, str], results_file: str | None = None) -> dict[str, str]:
    """Where a duel's numbers come from, for duel.txt: each policy with its hashes, the
    versions, the commit that played the games, the date; ``results_file``, one of the
    folder's results files, holds the cards its command plays (a designer's card file
    stays behind)."""
    attrs = result.attrs
    policies = [policy_fact({"policy": shown[name],
                             "policy_params_sha256": attrs["policy_params_sha256"][name],
                             "policy_source_sha256": attrs["policy_source_sha256"][name]},
                            full=True)
                for name in result.runs]
    facts = {"policies": "; ".join(policies),
             "card file": card_file_words(attrs).removeprefix(", from ") + (
                 f"; {results_file}, in this folder, holds its cards"
                 if results_file and card_file_words(attrs) else "") or "none (the shipped set)",
             "package": str(attrs.get("package_version")),
             "commit": runs_commit({name: df.attrs for name, df in result.runs.items()}),
             "software": runs_software({name: df.attrs for name, df in result.runs.items()}),
             "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")}
    names = [command_policy_name(name, shown[name], attrs["policy_source_sha256"][name],
                                 result.runs[name].attrs.get("policy_weights_sha256"),
                                 result.runs[name].attrs.get("policy_weights_file"))
             for name in result.runs]
    if None not in names:
        facts["play again"] = duel_command(names, attrs, results_file)
    else:  # said, not left out: a reader would look for it
        name = list(result.runs)[names.index(None)]
        numbered = shown[name] != shared_policy(name)
        facts["play again"] = f"no command: {shown[name]} " + (
            "shares its file name with another policy of the duel" if numbered else
            "cannot be played again from its name (a policy made in Python, or a file "
            "changed since the run, say)")
    return facts


def duel_command(policies: list[str], attrs: dict, results_file: str | None = None) -> str:
    """The command that plays a duel's games again, its files named as the folder names
    them (to be found beside it); cards other than the shipped set from ``results_file``,
    a results file of the folder, which holds them, else by their file's name."""
    words = ["urbion duel --policies", shlex.quote(",".join(policies)),
             f"--games {attrs['games']} --seed {attrs['seed']}"]
    if attrs.get("expansions"):
        words.append(f"--expansions {','.join(attrs['expansions'])}")
    if attrs.get("variant", "solo") != "solo":
        words.append(f"--variant {attrs['variant']}")
    card_file = card_file_words(attrs).removeprefix(", from ")
    if card_file:
        words.append(f"--cards {shlex.quote(results_file or card_file)}")
    return " ".join(words)
