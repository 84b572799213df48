"""Write a balance report folder: index.html (self-contained), report.md, PNG and SVG charts.

The folder is built beside its destination and moved into place at the end, so a failed
or interrupted report never leaves a half-written folder.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import glob
import html
import io
import os
import re
import shlex
import shutil
import stat
import sys
import time
import uuid
import warnings
from pathlib import Path

import pandas as pd

from analyzer.analysis import run_stats
from analyzer.analysis.compare import (
    INTERACTION_SHOWN_NOTE,
    INTERACTION_TEST_NOTE,
    ODDS_INTERACTION_NOTE,
    UNWEIGHED,
    books_chart_note,
    books_unplayed,
    books_unplayed_note,
    sets_family,
    titled_interactions,
    verdict_line,
)
from analyzer.analysis.results_io import (
    NO_COMMAND,
    checked_frame,
    command_policy_name,
    read_run,
)
from analyzer.analysis.run_stats import Run
from analyzer.analysis.sensitivity import (
    SHIPPED_LABEL,
    baseline_label,
    baseline_side_effects,
    level_heading,
    played_mask,
    variants_family,
)
from analyzer.analysis.stats import (
    EDGE_NOTE,
    ODDS_MIN_OUTCOMES,
    SIGNIFICANCE,
    format_p,
    holm_cell,
    signed_pp,
)
from analyzer.analysis.totals import Totals
from analyzer.atomic import (
    SET_WRITTEN,
    check_name_length,
    keep_attributes,
    probe_folder,
    require_folder,
    signals_held,
    why_not_writable,
    write_atomically,
    write_together,
)
from analyzer.cards import CardSet, default_card_set
from analyzer.errors import UrbionError
from analyzer.reporting import charts
from analyzer.reporting.names import shared_file, shared_files, shared_policy
from analyzer.runner.config import LATER_KEYS
from analyzer.wording import one_line, plural, spoken_list

#: (file stem, title, chart function taking the runs, the headline table and what each
#: run is compared with: None for the first run, else run to run, ``baselines_of``)
CHARTS = [
    ("win_rates", "Win rate per run",
     lambda runs, table, against: charts.win_rates(table, against=against)),
    ("survival", "Games still running by turn",
     lambda runs, table, against: charts.survival(runs, against)),
    ("loss_reasons", "Loss reasons", lambda runs, table, against: charts.loss_reasons(runs)),
    ("margin_at_victory", "Margin at victory",
     lambda runs, table, against: charts.margin_at_victory(runs, against)),
    ("pacified_at_defeat", "Cities pacified at defeat",
     lambda runs, table, against: charts.pacified_at_defeat(runs, against)),
    ("chaos_choices", "Chaos options chosen",
     lambda runs, table, against: charts.chaos_choices(runs)),
    ("convergence", "Convergence of the estimate",
     lambda runs, table, against: charts.convergence(runs, against)),
]


#: What the win-rate chart's caption adds where runs are compared.
DIFFERENCES_CAPTION = (" Two runs can differ although their intervals overlap: the "
                       "differences table says.")
#: What each report chart shows, one line under its title.
CHART_CAPTIONS = {
    "win_rates": "Each run's share of games won, the bar its 95% Wilson interval."
                 + DIFFERENCES_CAPTION,
    "survival": "The share of each run's games still being played after each turn, won or "
                "lost: where a curve falls fastest, most games end.",
    "loss_reasons": "Of each run's games, the share lost for each reason: the Dream deck ran "
                    "out (deck_empty), the Emptiness stood on a city without dreams at a "
                    "census (emptiness, R12.2), or the inhabitant sum was negative once "
                    "every city was pacified (inhabitants, R11.9). The rest of the way to "
                    "100% is the games won.",
    "margin_at_victory": "In the games won, the Dream cards still in the deck: a small "
                         "margin is a win that came close to a loss. The legend (or each "
                         "panel's title) gives the wins each line rests on: a line of a few "
                         "dozen zig-zags by chance.",
    "pacified_at_defeat": "In the games lost, the City cards already pacified: how near the "
                          "losses came. Expansions that add City cards raise the number a "
                          "win needs, so read each run against its own total.",
    "chaos_choices": "Per game on average, how each Chaos was taken: placed beside a city "
                     "(a Chaos of the opening hand placed at setup, R03, counts here too), "
                     "used to clear a city, or revealed (R06, Phase II draws only); with "
                     "Chromatic Chaos, how many were resolved.",
    "convergence": "The win-rate estimate after each run's first n games, with its 95% "
                   "Wilson band: where the line lies flat in a narrow band, more games "
                   "would change little.",
    "interactions": "For each pair of expansions, the pair's change of the win rate from "
                    "the base game minus the two changes of each expansion alone, in "
                    "percentage points, with its 95% interval: near zero, the two add up; "
                    "blue, together they leave more games won than the two alone say; red, "
                    "fewer; grey, no interaction shown: Holm's adjustment over the pairs "
                    "finds none, or the interval holds zero, which does not rule out one as "
                    "large as the interval's ends, or the pair is at the 0% floor (its "
                    "single effects added up would take the win rate below 0%, so it reads "
                    "positive whatever it does).",
}


def captions_of(captions: dict[str, str], titles: list[tuple[str, str]]) -> dict[str, str]:
    """``captions`` by the stems of ``titles``: each comparison's interactions chart
    (``interactions-N``) under the interactions' caption."""
    return {stem: captions[key] for stem, _ in titles
            if (key := "interactions" if _draws_interactions([(stem, "")]) else stem)
            in captions}


def report_captions(differences: bool) -> dict[str, str]:
    """:data:`CHART_CAPTIONS` for a report with a differences table or without one (a
    single run, which nothing is compared with)."""
    if differences:
        return CHART_CAPTIONS
    return CHART_CAPTIONS | {"win_rates": CHART_CAPTIONS["win_rates"].replace(
        DIFFERENCES_CAPTION, "")}

#: What is added to the labels of runs that would otherwise share one, in turn: two policy
#: files of one name are told apart by their parameters.
_LABEL_DETAILS = (
    lambda path, df: f"parameters sha256 {str(df.attrs.get('policy_params_sha256'))[:12]}",
    lambda path, df: f"source sha256 {str(df.attrs.get('policy_source_sha256') or '-')[:12]}",
    lambda path, df: f"card set {df.attrs.get('card_set')}",
    lambda path, df: f"engine {df.attrs.get('engine')}",
    lambda path, df: (f"games {df.attrs.get('first_game', 0)}-"
                      f"{df.attrs.get('first_game', 0) + len(df) - 1}"),
    lambda path, df: path.name,
    lambda path, df: f"{path.parent.name}/{path.name}" if path.parent.name else path.name,
)


def _shared_names(attrs: dict) -> dict:
    """``attrs`` with its policy named as a shared page names it."""
    return {**attrs, "policy": shared_policy(str(attrs["policy"]))} if "policy" in attrs \
        else attrs


def load_runs(paths: list[str | Path | pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Results files (or frames ``simulate`` returned) by run label: the pieces of one run
    (``run_stats.join_pieces``) are joined, and runs that would share a label are told apart
    by their card set, engine, games or file name (a designer puts card sets side by
    side)."""
    if not paths:
        raise UrbionError("a report needs at least one results file")
    _distinct_paths(paths)
    frames = run_stats.join_pieces([_named_run(path, index)
                                    for index, path in enumerate(paths)])
    labels = [run_stats.run_label(_shared_names(df.attrs), path.stem) for path, df in frames]
    if len({df.attrs.get("card_set_sha256") for _, df in frames}) > 1:
        # card sets side by side: every run names its own
        names = card_set_names([df.attrs for _, df in frames])
        labels = [f"{label} / card set {name}"
                  for label, name in zip(labels, names, strict=True)]
    for detail in _LABEL_DETAILS:  # runs that share a label are told apart by what differs
        groups: dict[str, list[int]] = {}
        for index, label in enumerate(labels):
            groups.setdefault(label, []).append(index)
        for label, members in groups.items():
            values = [detail(*frames[index]) for index in members]
            if len(set(values)) > 1:
                for index, value in zip(members, values, strict=True):
                    labels[index] = f"{label} / {value}"
    # still alike (files of one name in folders of one name): numbered in the order given,
    # as the folders that would tell them apart are not printed on a shared page
    alike = {label for label in labels if labels.count(label) > 1}
    labels = [f"{label} / input {index + 1}" if label in alike else label
              for index, label in enumerate(labels)]
    return dict(zip(labels, (df for _, df in frames), strict=True))


def _named_run(source: str | Path | pd.DataFrame, index: int) -> tuple[Path, Run]:
    """A results file's path and its run, or a frame's place in the list ("frame 2") and
    the frame, checked as a file is."""
    if isinstance(source, pd.DataFrame):
        name = f"frame {index + 1}"
        return Path(name), checked_frame(source, name)
    return Path(source), read_run(source)


def _distinct_paths(paths: list[str | Path | pd.DataFrame]) -> None:
    """Refuse a results file (or frame) given twice: a run compared with itself says
    nothing."""
    seen: dict[object, str] = {}
    for index, path in enumerate(paths):
        if isinstance(path, pd.DataFrame):
            if id(path) in seen:
                raise UrbionError(f"frame {index + 1}: given twice (as {seen[id(path)]} "
                                  "too): a run compared with itself says nothing")
            seen[id(path)] = f"frame {index + 1}"
            continue
        resolved = _resolved(Path(path), f"cannot read {path}")
        if resolved in seen:
            raise UrbionError(f"{path}: given twice (as {seen[resolved]} too): a run "
                              "compared with itself says nothing")
        seen[resolved] = str(path)


def _resolved(path: Path, failure: str) -> Path:
    """``path`` with its symbolic links followed; a loop of them (which Python reports as
    a RuntimeError) or a folder on the way that cannot be read is a one-line error."""
    try:
        return path.resolve()
    except RuntimeError:
        raise UrbionError(f"{failure}: a loop of symbolic links") from None
    except OSError as err:
        raise UrbionError(f"{failure}: {err.strerror or err}") from None


def card_set_names(attrs: list[dict]) -> list[str]:
    """Each run's card-set name, with the start of its hash where another run's card set of
    that name holds other cards: two files named alike are never taken for one set."""
    digests: dict[object, set] = {}
    for one in attrs:
        digests.setdefault(one.get("card_set"), set()).add(one.get("card_set_sha256"))
    return [f"{one.get('card_set')} (sha256 {str(one.get('card_set_sha256'))[:12]})"
            if len(digests[one.get("card_set")]) > 1 else str(one.get("card_set"))
            for one in attrs]


def scope_note(attrs: list[dict]) -> str:
    """Whose play and which cards the figures of runs with configurations ``attrs`` are of:
    a reader must not take one player's figures on an assumed card list for the printed
    game's."""
    policies = list(dict.fromkeys(shared_policy(str(one.get("policy"))) for one in attrs))
    names = list(dict.fromkeys(card_set_names(attrs)))
    who = f"the {policies[0]} policy" if len(policies) == 1 else \
        f"each run's policy ({', '.join(policies)})"
    which = f"the {names[0]} card set" if len(names) == 1 else \
        f"the card sets {spoken_list(names)}"
    assumed = (" R14-default is an assumed card list: the printed one is not known."
               if any(one.get("card_set") == "R14-default" for one in attrs) else "")
    expansions = any(one.get("expansions") for one in attrs)
    # README, Expansions: 20,000 and 100,000 solo games of each
    example = (" (on R14's cards, in the solo game, Hanging Gardens & Wizards adds about 30 "
               "points to the shipped weighted policy's win rate and takes under one from "
               "greedy's)" if expansions else "")
    meets = "the same expansions or card changes" if expansions else "the same cards"
    team = (" In the team game one policy plays both seats, with both hands in view (R10.2)."
            if any(one.get("variant") == "team" for one in attrs) else "")
    return (f"Every figure here is of {who} playing {which}: a player's results on those "
            f"cards, not the printed game's. {_natures(policies)}{team} Another player can "
            f"meet {meets} very differently{example}: compare with the policy that plays "
            f"most like you.{assumed}")


#: What each built-in policy is, for a reader who has not met them (docs/policies.md).
POLICY_NATURES = {
    "random": "chooses at random among the legal moves",
    "greedy": "a one-step heuristic that plays like a careful beginner",
    "weighted": "greedy's heuristic with weights tuned to win more",
    "search": "plays each candidate move out on imagined orders of the unseen cards",
    "clairvoyant": "plays each candidate move out on the decks' true order, which no "
                   "player sees",
}


def _natures(policies: list[str]) -> str:
    """The policies named as what they are: computer players, not people."""
    def nature(policy: str) -> str:
        kind, colon, _ = policy.partition(":")
        if kind == "weighted" and colon:
            return "greedy's heuristic with the weights of its file"
        return POLICY_NATURES.get(kind, "a program of its user's own")

    if len(policies) == 1:
        return f"It is a computer player, not a person: {nature(policies[0])}."
    return ("Each is a computer player, not a person: "
            + "; ".join(f"{p}: {nature(p)}" for p in policies) + ".")


CARD_SETS_TITLE = "Card sets"


def card_set_texts(runs: dict[str, pd.DataFrame], folders: list[Path]) -> list[str]:
    """For each card set of ``runs`` other than the shipped one alone, its cards per
    expansion (``urbion cards``), as the results file keeps them (``card_set_table``), or
    for a file of a version that did not, read from the card file the runs name, so that a
    reader sees what a designer's set changes; a file that is gone or changed since is said
    to be. [] when every run played the shipped set. A relative file name is looked for from
    the current folder, then from each of ``folders`` (those of the results files)."""
    from analyzer.analysis.card_table import card_differences, card_table, format_card_counts

    shipped = default_card_set()
    sets: dict[str, list[dict]] = {}  # each card set's runs' configurations
    for df in runs.values():
        sets.setdefault(df.attrs.get("card_set_sha256"), []).append(df.attrs)
    if set(sets) == {shipped.digest}:
        return []
    texts, tables, expansions = [], [], []
    for digest, configs in sets.items():
        attrs = configs[0]
        source = str(attrs.get("card_set_source", ""))
        card_set = shipped if digest == shipped.digest else \
            _kept_cards(configs, str(digest)) or _card_file_of(source, digest, folders)
        if card_set is None:  # results files of a version that did not keep their cards
            texts.append(f"card set   {attrs.get('card_set')} (sha256 {str(digest)[:12]})    "
                         f"from {shared_file(source)}: that file is not at hand or holds "
                         "other cards now, so its cards cannot be shown")
        else:
            tables.append(card_table(card_set))
            if not card_set.source.startswith("builtin:"):
                tables[-1].attrs["card_set_source"] = shared_file(card_set.source)
            head, rest = format_card_counts(tables[-1]).split("\n", 1)
            note = _file_now(source, str(digest), folders)
            texts.append("\n".join([head, *([note] if note else []), rest]))
            expansions.append([set(c.get("expansions") or []) for c in configs])
    # what each set changes from the first one shown, before the sets in full, each change
    # marked where not every run of both sets played its expansion
    changes = [card_differences(tables[0], table, (expansions[0], played))
               for table, played in zip(tables[1:], expansions[1:], strict=True)]
    if tables and shipped.digest not in sets:
        # no run played R14: what the first set shown changes from it, as `urbion cards`
        # says of a file
        changes.insert(0, card_differences(card_table(shipped), tables[0],
                                           (None, expansions[0])))
    return [text for text in changes if text] + texts


def _file_now(source: str, digest: str, folders: list[Path]) -> str:
    """A line saying that the card file a run names no longer holds the cards it played
    (edited since, or gone), so that a reader does not open it for them; "" for the shipped
    set or a file that still holds them."""
    if not source or source.startswith("builtin:") or \
            _card_file_of(source, digest, folders) is not None:
        return ""
    return (f"note       {shared_file(source)} does not hold these cards now (edited, moved "
            "or gone since): the cards shown are the ones played, as the results files kept "
            "them")


def _kept_cards(configs: list[dict], digest: str) -> CardSet | None:
    """The card set one of a set's runs kept in its results file (``card_set_table``)."""
    from analyzer.cards.loader import unpacked_table

    for attrs in configs:
        card_set = unpacked_table(attrs.get("card_set_table"), str(attrs.get("card_set")),
                                  digest, str(attrs.get("card_set_source", "")))
        if card_set is not None:
            return card_set
    return None


def _card_file_of(source: str, digest: str, folders: list[Path]) -> CardSet | None:
    """The card set of the file ``source`` names, where it still holds the cards of
    ``digest``; None otherwise. Only regular files are read (a pipe would wait forever)."""
    from analyzer.analysis.results_io import cards_of_file

    path = Path(source)
    candidates = [path] if path.is_absolute() else [path, *(f / path for f in folders)]
    for candidate in candidates:
        try:
            card_set = cards_of_file(candidate) if candidate.is_file() else None
        except (UrbionError, OSError):
            continue
        if card_set is not None and card_set.digest == digest:
            return card_set
    return None


def provenance(runs: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Where the numbers come from: card set, runs, versions, commit, date."""
    first = next(iter(runs.values())).attrs
    names = card_set_names([df.attrs for df in runs.values()])
    card_sets = dict.fromkeys(f"{df.attrs.get('card_set')} (sha256 "
                              f"{df.attrs.get('card_set_sha256')}){_card_file(df.attrs)}"
                              for df in runs.values())
    return {
        "card set" if len(card_sets) == 1 else "card sets": "; ".join(card_sets),
        "runs": "; ".join(f"{label}: card set {name}, seed "
                          f"{df.attrs.get('seed')}, games "
                          f"{df.attrs.get('first_game', 0):,}-"
                          f"{df.attrs.get('first_game', 0) + len(df) - 1:,}"
                          f"{_pieces(df.attrs)}, policy {policy_fact(df.attrs, True)}, "
                          f"engine {df.attrs.get('engine')}, expansions "
                          f"{', '.join(df.attrs.get('expansions') or []) or 'none'}, "
                          f"{df.attrs.get('variant', 'solo')} game"
                          for (label, df), name in zip(runs.items(), names,
                                                       strict=True)),
        "rules version": _by_value({label: rules_fact(df.attrs)
                                    for label, df in runs.items()}),
        "package version": str(first.get("package_version")),
        "commit": runs_commit({label: df.attrs for label, df in runs.items()}),
        "software": runs_software({label: df.attrs for label, df in runs.items()}),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def rules_fact(attrs: dict) -> str:
    """The rules version a run names, with the hash of the engine code that played it
    (``engine_source``): a rule changed in the code without a new version differs there
    alone. A file from before the hash was recorded gives the version alone."""
    code = attrs.get("engine_source")
    return f"{attrs.get('rules_version')}" + (f", engine code {code}" if code else "")


def runs_software(runs: dict[str, dict]) -> str:
    """The Python, numba and numpy the runs (configurations by label) were played with,
    each distinct one with its runs when they differ."""
    return _by_value({label: str(attrs.get("software") or "not recorded in the results file")
                      for label, attrs in runs.items()})


def _by_value(values: dict[str, str]) -> str:
    """One value of the runs (by label), or each distinct one with the runs it holds for."""
    if len(set(values.values())) == 1:
        return next(iter(values.values()))
    return "; ".join(f"{one} ({', '.join(k for k, v in values.items() if v == one)})"
                     for one in dict.fromkeys(values.values()))


def runs_commit(runs: dict[str, dict]) -> str:
    """The commit of the code that played the runs (their configurations by label), as
    their results record it (``-dirty``: with changes not committed), each distinct one
    with the runs it played when they differ; a file from before commits were recorded
    says so."""
    return _by_value({label: str(attrs.get("commit") or NO_COMMIT)
                      for label, attrs in runs.items()})


#: The commit line of a run whose results file has none.
NO_COMMIT = "not recorded in the results file"


def _card_file(attrs: dict) -> str:
    """", from FILE" for a card set a run read from a file (not the shipped one)."""
    source = str(attrs.get("card_set_source") or "")
    return f", from {shared_file(source)}" if source and not source.startswith("builtin:") \
        else ""


def _pieces(attrs: dict) -> str:
    """Of how many results files a joined run is made, for its provenance line."""
    pieces = attrs.get("joined_files", 1)
    return f" (joined from {pieces} files)" if pieces > 1 else ""


def _percent(x: float) -> str:
    return f"{x:.2%}"


#: Under the headline table: what each column is, and which interval.
HEADLINE_NOTE = ("Win rate: the share of games won, with its 95% Wilson interval. Mean "
                 "turns: how many turns a game lasted; mean pacified: the cities in the "
                 "Success pile when the game ended, won or lost; each with the 95% interval "
                 "of the mean (Student's t).")


def headline_rows(table: pd.DataFrame) -> list[list[str]]:
    """The headline table as text cells, header first."""
    rows = [["run", "games", "wins", "win rate", "95% Wilson interval",
             "mean turns (95% interval)", "mean pacified (95% interval)"]]
    for label, r in table.iterrows():
        rows.append([label, f"{int(r.games):,}", f"{int(r.wins):,}", _percent(r.win_rate),
                     f"{_percent(r.ci_low)} to {_percent(r.ci_high)}",
                     mean_text(r, "turns", 1), mean_text(r, "pacified", 2)])
    return rows


def mean_text(row: pd.Series, key: str, decimals: int) -> str:
    """A mean with its 95% interval, "24.9 (24.7 to 25.1)", from ``mean_KEY``,
    ``KEY_low`` and ``KEY_high``; the mean alone where there is no interval."""
    mean = f"{row[f'mean_{key}']:.{decimals}f}"
    low, high = row.get(f"{key}_low", float("nan")), row.get(f"{key}_high", float("nan"))
    if pd.isna(low) or pd.isna(high):
        return mean
    return f"{mean} ({low:.{decimals}f} to {high:.{decimals}f})"


#: What pairing by game number does not mean, for the notes of the pages.
PAIRING_SHORT = ("an expansion or a changed card file changes the decks, so a paired game "
                 "is not the same deal")
DIFFERENCES_TITLE = "Differences from the first run"
#: Under the differences table: how runs are compared, then each column that needs it
#: (shown as a list: one paragraph of it was hard to read).
DIFFERENCES_NOTES = (
    "Runs of the first run's seed are compared game by game over the games both played "
    "(paired: game g of one with game g of the other, both drawn from the random streams of "
    f"(seed, g); {PAIRING_SHORT}; the difference over those games, Newcombe's square-and-add "
    "interval, McNemar's exact p); runs of another seed, with no game in common, or read "
    "from a summary file (--summary-only keeps no games to pair), as independent samples "
    "(the whole runs, Newcombe's hybrid score interval, Fisher's exact p). A summary of the "
    "first run's seed shares its deals with it all the same: treated as independent, its "
    "test leaves out what the deals share, which makes it a little cautious where the runs "
    "win the same deals, as two policies do, and a little bold where they do not.",
    "Win rates compared: the run's and the first run's win rate over the games compared, "
    "which for runs paired on their common games can differ from the headline's. The "
    "difference is the run's less the first run's, in percentage points (pp): a run at "
    "9.00% against a first run at 6.00% is +3.00 pp, one and a half times the games won "
    "(50% more), not 3% more.",
    "Holm p: that p adjusted by Holm's method for the runs compared with the first (not "
    "counting a run whose test cannot reject: paired games that all ended as the first "
    "run's, or runs without both a win and a loss); a run differs from the first, with the "
    "family error held at 5%, when its Holm p is below 0.05 (the intervals are not adjusted "
    "for the number of runs).",
    "Changes: what the run's configuration changes from the first run's; a difference "
    "between runs that change two or more of policy, card set, expansions, variant, "
    "rules and engine code (a rule changed in the code under the same rules version) at "
    "once mixes their effects and belongs to no one of them, and one between runs "
    "that change only the seed (and the engine, which plays the same games) is chance "
    "alone: the same game on other deals.",
    "Each ended alike: the two runs ended every game compared alike (result, turns, "
    "cities, every tally), as the fast and reference engines do, one policy and card set "
    "under two names, or the Books of Power in play but never kept.",
    "Two runs can differ even where their win-rate intervals overlap. " + EDGE_NOTE,
)
#: What each run is compared with (``report --baseline``): the first run given, or the
#: base game among the runs that is played alike but for the expansions.
BASELINES = ("first", "base")
#: The differences section under ``--baseline base``: its title, the note before the
#: others (which speak of "the first run"), and its Holm note, in place of the first's.
BY_BASE_TITLE = "Differences from each run's own base game"
BY_BASE_NOTE = (
    "Each run that plays expansions is compared with the base game among the runs that is "
    "played alike but for the expansions (the same policy, card set, variant, rules, "
    "engine code, seed and engine; of two such, the one it shares the most games with), "
    "named in the against column: several comparisons' results, two policies' or the solo "
    "and team games', are each weighed against their own base game, whatever the order of "
    "the files. \"The first run\" in the notes below is that base game.")
BY_BASE_HOLM = (
    "Holm p: that p adjusted by Holm's method over every comparison in this table that can "
    "reject ({family}), whichever base game it is against (not counting a run whose test "
    "cannot reject: paired games that all ended as the base game's, or runs without both a "
    "win and a loss); a run differs from its base game, with the family error held at 5%, "
    "when its Holm p is below 0.05. A comparison's own page adjusts over its sets only, so "
    "its Holm p is as low as here or lower, and each run added to a report raises the "
    "others'.")
#: The Holm note of :data:`DIFFERENCES_NOTES`, which ``--baseline base`` replaces.
HOLM_NOTE = next(note for note in DIFFERENCES_NOTES if note.startswith("Holm p:"))


def differences_heading(baseline: str, family: int, unmatched: list[str],
                        idle: list[str] = ()) -> tuple[str, tuple[str, ...]]:
    """The differences section's title and notes when runs are compared with ``baseline``
    (one of :data:`BASELINES`), Holm's ``family`` being that many tests; ``unmatched``: the
    runs of expansions that no base game of their own was given for; ``idle``: the base
    games no run is compared with."""
    tests = plural(family, "test")
    if baseline != "base":
        notes = [note if note != HOLM_NOTE else f"{note} Here, {tests}."
                 for note in DIFFERENCES_NOTES]
        return DIFFERENCES_TITLE, tuple(notes)
    notes = [BY_BASE_HOLM.format(family=tests) if note == HOLM_NOTE else note
             for note in DIFFERENCES_NOTES]
    if idle:
        notes.insert(0, f"Base games no run is compared with: {spoken_list(idle)}.")
    if unmatched:
        notes.insert(0, f"Not compared, with no base game of their own among the runs: "
                        f"{spoken_list(unmatched)}.")
    return BY_BASE_TITLE, (BY_BASE_NOTE, *notes)


def baselines_of(runs: dict[str, pd.DataFrame], baseline: str) -> dict[str, str]:
    """Each compared run's label to the label of the run it is compared with: the first
    run's, or (``baseline`` "base") for each run that plays expansions, the run that plays
    none and changes nothing else (:func:`changed_keys`); of two such (base games of other
    game numbers), the one it shares the most games with, then the first given."""
    labels = list(runs)
    if baseline != "base":
        return {label: labels[0] for label in labels[1:]}
    bases = [label for label in labels if not runs[label].attrs.get("expansions")]
    against = {}
    for label in labels:
        if label in bases:
            continue
        alike = [base for base in bases
                 if changed_keys(runs[label].attrs, runs[base].attrs) == ["expansions"]]
        if alike:
            # the most games paired, whatever the order given: max keeps the first of a tie
            against[label] = max(alike, key=lambda base: run_stats.shared_game_count(
                runs[label], runs[base]))
    if len(labels) > 1 and not against:
        raise UrbionError("--baseline (baseline=) base: no run that plays expansions has its "
                          "base game among the runs (the same policy, card set, variant, "
                          "rules, engine code, seed and engine with no expansion); "
                          "--baseline first compares each run with the first")
    return against


def unmatched_runs(runs: dict[str, pd.DataFrame], against: dict[str, str]) -> list[str]:
    """The runs that play expansions but are compared with no run (``baselines_of``)."""
    return [label for label, run in runs.items()
            if run.attrs.get("expansions") and label not in against]


def idle_bases(runs: dict[str, pd.DataFrame], against: dict[str, str]) -> list[str]:
    """The base games no run is compared with (``baselines_of``)."""
    return [label for label, run in runs.items() if not run.attrs.get("expansions")
            and label not in against.values()]


def differences_holm(table: pd.DataFrame) -> list[float]:
    """Each run's p of the differences table adjusted by Holm's method over the runs that
    can reject (a table without the ``informative`` column, built by hand, counts all)."""
    from analyzer.analysis.stats import holm_adjust

    informative = table["informative"].tolist() if "informative" in table else None
    return holm_adjust(table["p"].tolist(), informative)


def differences_csv(table: pd.DataFrame, changes: dict[str, str] | None,
                    sets_of: dict[str, str],
                    runs: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """differences.csv: the differences table (``run_stats.differences``, by run) with its
    Holm p, the number of tests Holm adjusted over (``holm_family``: another page's
    family is another count, and so another Holm p), what each run changes from the run
    it is compared with (``changes``), each run's card set (``sets_of``, by run) and, with
    ``runs``, each run's :data:`RUN_COLUMNS`, expansions and card set's hash: a file
    quoted apart from its page still says whose games each row is."""
    tested = table["informative"] if "informative" in table else pd.Series(True, table.index)
    csv = table.assign(holm_p=differences_holm(table), holm_family=int(tested.sum()),
                       changes=pd.Series(changes),
                       card_set=table.index.map(sets_of)).rename_axis("run")
    if runs is None:
        return csv
    rows = [with_run_columns(pd.DataFrame(index=[label]), runs[label].attrs,
                             ("expansions", "card_set_sha256"))
            for label in csv.index]
    return csv.join(pd.concat(rows))


def difference_rows(table: pd.DataFrame,
                    changes: dict[str, str] | None = None) -> list[list[str]]:
    """The differences table (``run_stats.differences``) as text cells, header first: the
    two win rates each difference is taken between (over the common games when paired),
    and each run's p (McNemar's when paired, Fisher's when independent) also adjusted by
    Holm's method over the runs. With ``changes`` (by run, ``configuration_changes``), a
    column says what each run changes from the first."""
    from analyzer.analysis.stats import format_p

    holm = differences_holm(table)
    changed = ["changes"] if changes is not None else []
    rows = [["run", "against", *changed, "win rates compared", "difference", "95% interval",
             "compared", "p (test)", "Holm p"]]
    for (label, r), adjusted in zip(table.iterrows(), holm, strict=True):
        changed = [changes.get(label, "")] if changes is not None else []
        rows.append([label, r.against, *changed,
                     f"{_percent(r.win_rate)} vs {_percent(r.against_rate)}",
                     f"{signed_pp(r.difference)} pp",
                     f"{signed_pp(r.low)} to {signed_pp(r.high)} pp",
                     _compared(r), f"{format_p(r.p)} ({r.test})", format_p(adjusted)])
    return rows


#: What a run's configuration may change from another's, in the words of the differences
#: table, with the keys that tell it; the first six are causes a reader weighs (the engine
#: code: a rule changed in it under the same rules version).
CHANGE_KEYS = (("policy", ("policy", "policy_params_sha256", "policy_source_sha256")),
               ("card set", ("card_set_sha256",)),
               ("expansions", ("expansions",)),
               ("variant", ("variant",)),
               ("rules", ("rules_version",)),
               ("engine code", ("engine_source",)),
               ("seed", ("seed",)),
               ("engine", ("engine",)))
CAUSES = 6
#: A policy's parameters as fitted to the run's cards, and as given (fitted to R14's).
PARAMS_KEY, WEIGHTS_KEY = "policy_params_sha256", "policy_weights_sha256"


def _same_kept_cards(attrs: dict, first: dict) -> bool:
    """Whether two runs' results files kept the same cards (``card_set_table``), whatever
    their card sets' names and the order of their cards."""
    from analyzer.cards.loader import same_cards, unpacked_table

    kept = [unpacked_table(config.get("card_set_table"), str(config.get("card_set")),
                           str(config.get("card_set_sha256")), "") for config in (attrs, first)]
    return all(card_set is not None for card_set in kept) and same_cards(*kept)


def configuration_changes(attrs: dict, first: dict) -> str:
    """What the run of ``attrs`` changes from the run of ``first`` (both ``df.attrs``), as
    the differences table's cell: "card set", "policy + card set (2 at once)", "none"."""
    changed = changed_keys(attrs, first)
    causes = sum(name in dict(CHANGE_KEYS[:CAUSES]) for name in changed)
    if not changed:
        # the same run's configuration on games of other numbers (--first-game)
        return "games (other deals only: chance)" if _no_game_shared(attrs, first) else "none"
    if not causes and "seed" in changed:  # the same game on other deals
        return " + ".join(changed) + " (other deals only: chance)"
    if not causes and _no_game_shared(attrs, first):  # the other engine on other games
        return " + ".join(["games", *changed]) + " (other deals only: chance)"
    return " + ".join(changed) + (f" ({causes} at once)" if causes > 1 else "")


def changed_keys(attrs: dict, first: dict) -> list[str]:
    """The names of :data:`CHANGE_KEYS` whose values differ between two runs' ``df.attrs``,
    in that order ("card set name or order" for one set's cards renamed or reordered)."""
    def value(config: dict, key: str) -> object:
        # results files of versions before the expansions, the team game or user policies
        # lack their keys: the base game, solo, no source
        found = config.get(key)
        return sorted(found or []) if key == "expansions" else \
            found or "solo" if key == "variant" else \
            found or "" if key == "policy_source_sha256" else found

    def differs(keys: tuple[str, ...]) -> bool:
        # a key a file of an older version lacks is not known there: no change
        keys = tuple(key for key in keys if key not in LATER_KEYS or
                     all(key in config for config in (attrs, first)))
        # a policy given alike, whose parameters differ only by the cards it reads them
        # from (greedy's largest Sognae and Incubi), is the same policy: compared as given
        # where both files say so (files of versions before it: by the fitted parameters)
        if all(WEIGHTS_KEY in config for config in (attrs, first)):
            keys = tuple(WEIGHTS_KEY if key == PARAMS_KEY else key for key in keys)
        return any(value(attrs, key) != value(first, key) for key in keys)

    changed = [name for name, keys in CHANGE_KEYS if differs(keys)]
    if "engine code" in changed and ("rules" in changed or "engine" in changed):
        changed.remove("engine code")  # another rules version or engine is other code
    if "card set" in changed and _same_kept_cards(attrs, first):
        # one set's cards under another name or in another order: other deals of each
        # seed at most, not another card set to weigh
        changed[changed.index("card set")] = "card set name or order"
    return changed


def _no_game_shared(attrs: dict, first: dict) -> bool:
    """Whether two runs' games (``first_game`` on, ``games`` of them) share no number;
    False where a file does not say."""
    def count(config: dict, key: str) -> int | None:
        value = config.get(key) or 0
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    spans = [(count(c, "first_game"), count(c, "games")) for c in (attrs, first)]
    if not all(start is not None and games for start, games in spans):
        return False
    (start, games), (first_start, first_games) = spans
    return start + games <= first_start or first_start + first_games <= start


#: How a differences row whose test cannot reject says so.
NO_TEST_PAIRED = ", no game won by one run only: no test"
NO_TEST_INDEPENDENT = ": no win, or no loss, in both runs: no test"


def _compared(row: pd.Series) -> str:
    """How a differences row was compared: all of both runs' games, their common games, or
    as independent samples."""
    # a test that cannot reject (no game won by one run only; no win, or no loss, in
    # either) gives p = 1 whatever the runs: a zero that is no finding, said so on its row
    untested = not row.get("informative", True)
    if not row.paired:  # each run's own games, which may differ in number
        if pd.isna(row.get("against_games")):
            return "independent" + (NO_TEST_INDEPENDENT if untested else "")
        return (f"independent, {int(row.games):,} and {int(row.against_games):,} games"
                + (NO_TEST_INDEPENDENT if untested else ""))
    # two runs that end every game alike are most likely one policy and card set under two
    # names (weighted beside a weighted:FILE of the shipped weights): their zero is no finding
    alike = ", each ended alike" if row.get("alike", False) else \
        NO_TEST_PAIRED if untested else ""
    return (f"paired, {plural(int(row.games), 'game')}" if row.whole else
            f"paired on {plural(int(row.games), 'common game')}") + alike


INTERACTIONS_TITLE = "Pairwise interactions of expansions"
INTERACTIONS_NOTE = ("The interaction of two expansions (the pair's effect on the win rate "
                     "minus the two single effects, each against the base game on the same "
                     "games) needs results of the base game, of each expansion alone and of "
                     "the pairs, all with one policy, seed and card set "
                     "(`urbion compare --sets pairs --out DIR` writes them).")


def _draws_interactions(titles: list[tuple[str, str]]) -> bool:
    """Whether the charts of ``titles`` (stem, title) hold an interaction heatmap."""
    return any(stem == "interactions" or stem.startswith("interactions-")
               for stem, _ in titles)


def _interactions_text(note: bool | str) -> str:
    """The interactions section's text where none is drawn: ``note`` if a text, else what
    they need."""
    return note if isinstance(note, str) else INTERACTIONS_NOTE


def md_row(cells: list[str]) -> str:
    """A Markdown table row; a cell's own ``|``, and whatever would open HTML markup or an
    entity (a card set's name may hold them), are escaped, so that they neither split the
    row nor become markup; other text, such as a p-value "<1e-300", stays as written."""
    return "| " + " | ".join(_md_cell(cell) for cell in cells) + " |"


def _md_cell(text: str) -> str:
    return _md_prose(text).replace("|", "\\|")


def _md_prose(text: str) -> str:
    """Markdown text on one line, with whatever would open HTML markup or an entity escaped
    (a card set's or a file's name may hold them, or a line break)."""
    text = re.sub(r"&(?=#?\w+;)", "&amp;", text)
    return one_line(re.sub(r"<(?=[A-Za-z/!?])", "&lt;", text))


def md_table_head(header: list[str]) -> list[str]:
    """A Markdown table's header row and rule."""
    return [md_row(header), "|" + "---|" * len(header)]


def markdown(rows: list[list[str]], facts: dict[str, str],
             titles: list[tuple[str, str]] | None = None,
             differences: list[list[str]] | None = None, card_sets: list[str] | None = None,
             interactions_note: bool | str = True, scope: str = "",
             pairs: list[tuple[str, str, list[list[str]]]] | None = None,
             chart_tables: dict[str, list[list[str]]] | None = None,
             heading: tuple[str, tuple[str, ...]] | None = None,
             ranking: list[list[str]] | None = None,
             effects: tuple[str, list[list[str]]] | None = None) -> str:
    """report.md: whose figures they are (``scope``), headline table, the ``differences``
    under their ``heading`` (title and notes, :func:`differences_heading`) with the
    ``ranking`` of each base game's sets, each set's ``effects`` on two base games (note
    and rows, :func:`effects_section`), the card sets other than R14
    (``card_set_texts``), charts (PNG, with the SVG and the chart's numbers, ``STEM.csv``,
    linked; a chart's table of ``chart_tables`` under it), each comparison's interactions
    pair by pair (``pairs``: its chart's stem, its title, ``interaction_rows``), provenance;
    without an interactions chart, what one needs when ``interactions_note`` (a text: that
    one)."""
    chart_tables = chart_tables or {}
    titles = titles if titles is not None else [(stem, title) for stem, title, _ in CHARTS]
    lines = ["# Urbion balance report", "", *([_md_prose(scope), ""] if scope else []),
             "## Headline", "",
             *md_table_head(rows[0])]
    lines += [md_row(row) for row in rows[1:]]
    lines += ["", HEADLINE_NOTE]
    if differences:
        title, notes = heading or (DIFFERENCES_TITLE, DIFFERENCES_NOTES)
        lines += ["", f"## {title}", "", *(f"- {_md_prose(note)}" for note in notes), "",
                  *md_table_head(differences[0])]
        lines += [md_row(row) for row in differences[1:]]
        lines += ["", "[CSV](differences.csv)"]
        if ranking:
            lines += ["", RANKING_NOTE, "", *md_table_head(ranking[0]),
                      *(md_row(row) for row in ranking[1:])]
    if effects:
        lines += ["", f"## {EFFECTS_TITLE}", "", _md_prose(effects[0]), "",
                  *md_table_head(effects[1][0]), *(md_row(row) for row in effects[1][1:]),
                  "", "[CSV](effects.csv)"]
    if card_sets:
        lines += ["", f"## {CARD_SETS_TITLE}", ""]
        lines += [line for text in card_sets for line in ["```", text, "```"]]
    for stem, title in titles:
        caption = captions_of(report_captions(bool(differences)), titles).get(stem, "")
        lines += ["", f"## {title}", "", *([caption, ""] if caption else []),
                  f"![{title}]({stem}.png)", "", f"[SVG]({stem}.svg), [CSV]({stem}.csv)"]
        if stem in chart_tables:
            lines += ["", *md_table_head(chart_tables[stem][0]),
                      *(md_row(row) for row in chart_tables[stem][1:])]
    for _, title, rows_of_pairs in pairs or []:
        lines += interaction_section_md(rows_of_pairs, title)
    if not _draws_interactions(titles) and interactions_note:
        lines += ["", f"## {INTERACTIONS_TITLE}", "", _interactions_text(interactions_note)]
    lines += ["", "## Provenance", ""] + [f"- **{k}**: {_md_prose(v)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"


STYLE = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em}"
         "tbody th{text-align:left;font-weight:normal}"
         "td.n{white-space:nowrap;text-align:right}figure{margin:0}"
         "img{max-width:100%}"
         # a card change's sixteen columns: a smaller type than the page's
         "#card-change{font-size:.85em}"
         # a command or a list of sets breaks where it must, not the page's width
         "#provenance td{overflow-wrap:anywhere}")

#: A cell holding one number (a count, share, p-value or difference), which must not
#: break across lines ("4.08e-" over "56").
NUMBER_CELL = re.compile(r"[-+<>]?\d[\d.,]*(e[-+]\d+)?(%| pp)?( \([\d.,]+%\))?")


def html_table(rows: list[list[str]], table_id: str) -> str:
    """Text cells (header first) as an HTML table, each row headed by its first cell."""
    def cell(text: str) -> str:
        number = " class='n'" if NUMBER_CELL.fullmatch(text) else ""
        return f"<td{number}>{html.escape(text)}</td>"

    def row(cells: list[str]) -> str:
        # a set's name may break after each +: seven expansions are 100 characters
        name = html.escape(cells[0]).replace("+", "+<wbr>")
        return (f"<tr><th scope='row'>{name}</th>"
                + "".join(cell(c) for c in cells[1:]) + "</tr>")

    head = "".join(f"<th scope='col'>{html.escape(c)}</th>" for c in rows[0])
    return (f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>"
            + "".join(row(r) for r in rows[1:]) + "</tbody></table>")


#: Columns of a chart's numbers that are shares of games, written in % on the page.
SHARE_COLUMNS = ("running", "share_of_games", "win_rate", "ci_low", "ci_high")


def numbers_rows(numbers: pd.DataFrame) -> list[list[str]]:
    """A chart's numbers (``STEM.csv``) as text cells, header first: shares in %, counts
    with thousands separators."""
    def text(column: str, value) -> str:
        if column in SHARE_COLUMNS:
            return f"{value:.2%}"
        if isinstance(value, float):  # a mean, never written as 1e+03
            return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"
        return f"{value:,}" if isinstance(value, int) else str(value)

    rows = [[str(c) + (" (%)" if c in SHARE_COLUMNS else "") for c in numbers.columns]]
    for record in numbers.itertuples(index=False):
        rows.append([text(c, v.item() if hasattr(v, "item") else v)
                     for c, v in zip(numbers.columns, record, strict=True)])
    return rows


def html_figures(images: dict[str, bytes], titles: list[tuple[str, str]],
                 captions: dict[str, str] | None = None, data: bool = False,
                 tables: dict[str, list[list[str]]] | None = None,
                 numbers: dict[str, pd.DataFrame] | None = None,
                 alts: dict[str, str] | None = None) -> str:
    """Each chart under its title and its caption (``captions`` by file stem), embedded as
    PNG data; with ``data``, its numbers' file ``STEM.csv`` and its SVG linked under it,
    and a table of ``tables`` after it, or else its ``numbers`` as a table to unfold: a
    reader who cannot see the chart reads it there. ``alts``: a chart's alternative text,
    by stem, where it is not its title and where its numbers are."""
    captions, tables, numbers, alts = captions or {}, tables or {}, numbers or {}, alts or {}
    return "".join(_html_figure(stem, title, images[stem], captions.get(stem), data,
                                tables[stem] if stem in tables else None, numbers.get(stem),
                                alts.get(stem))
                   for stem, title in titles)


def _html_figure(stem: str, title: str, png: bytes, caption: str | None, data: bool,
                 table: list[list[str]] | None, numbers: pd.DataFrame | None,
                 alt: str | None = None) -> str:
    if table is None and numbers is not None:
        table = numbers_rows(numbers)
        after = (f"<details><summary>The chart's numbers</summary>"
                 f"{html_table(table, f'{stem}-numbers')}</details>")
    else:
        after = html_table(table, f"{stem}-table") if table is not None else ""
    if alt is None:
        alt = f"{title}: its numbers are in the table under the chart" if table is not None \
            else title + (f"; its numbers: {stem}.csv" if data else "")
    return (f"<h2>{html.escape(title)}</h2><figure>"
            + (f"<figcaption>{html.escape(caption)}</figcaption>" if caption else "")
            + f"<img alt='{html.escape(alt)}' "
            f"src='data:image/png;base64,{base64.b64encode(png).decode()}'></figure>"
            + (f"<p>Numbers: <a href='{stem}.csv'>{stem}.csv</a>; the chart as <a "
               f"href='{stem}.svg'>{stem}.svg</a> (files beside this page).</p>" if data else "")
            + after)


def html_page(title: str, body: str, facts: dict[str, str]) -> str:
    """A self-contained page: ``body``, then the provenance table."""
    facts_html = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                         for k, v in facts.items())
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><meta "
            "name='viewport' content='width=device-width, initial-scale=1'><title>"
            f"{html.escape(title)}</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
            f"<h2>Provenance</h2><table id='provenance'>{facts_html}</table></body></html>\n")


def _code_spans(text: str) -> str:
    """Markdown's `code` spans of ``text`` as HTML <code>, the rest escaped."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def page(rows: list[list[str]], images: dict[str, bytes], facts: dict[str, str],
         titles: list[tuple[str, str]] | None = None,
         differences: list[list[str]] | None = None, card_sets: list[str] | None = None,
         interactions_note: bool | str = True, scope: str = "",
         pairs: list[tuple[str, str, list[list[str]]]] | None = None,
         chart_tables: dict[str, list[list[str]]] | None = None,
         chart_numbers: dict[str, pd.DataFrame] | None = None,
         alts: dict[str, str] | None = None,
         heading: tuple[str, tuple[str, ...]] | None = None,
         ranking: list[list[str]] | None = None,
         effects: tuple[str, list[list[str]]] | None = None) -> str:
    """index.html: one self-contained page, the charts embedded as PNG data, each with its
    ``chart_numbers`` (by stem) to unfold, and its alternative text of ``alts`` where given;
    the rest as :func:`markdown`."""
    titles = titles if titles is not None else [(stem, title) for stem, title, _ in CHARTS]
    body = (f"<p id='scope'>{_code_spans(scope)}</p>" if scope else "") + \
        "<h2>Headline</h2>" + html_table(rows, "headline") + f"<p>{HEADLINE_NOTE}</p>"
    if differences:
        title, notes = heading or (DIFFERENCES_TITLE, DIFFERENCES_NOTES)
        body += (f"<h2>{html.escape(title)}</h2><ul>"
                 + "".join(f"<li>{html.escape(note)}</li>" for note in notes)
                 + "</ul>" + html_table(differences, "differences")
                 + "<p>Numbers: <a href='differences.csv'>differences.csv</a>.</p>")
        if ranking:
            body += f"<p>{html.escape(RANKING_NOTE)}</p>" + html_table(ranking, "ranking")
    if effects:
        body += (f"<h2>{html.escape(EFFECTS_TITLE)}</h2><p>{html.escape(effects[0])}</p>"
                 + html_table(effects[1], "effects")
                 + "<p>Numbers: <a href='effects.csv'>effects.csv</a>.</p>")
    if card_sets:
        body += f"<h2>{CARD_SETS_TITLE}</h2>" + "".join(
            f"<pre>{html.escape(text)}</pre>" for text in card_sets)
    body += html_figures(images, titles, captions_of(report_captions(bool(differences)),
                                                     titles), data=True,
                         tables=chart_tables, numbers=chart_numbers, alts=alts)
    for stem, title, rows_of_pairs in pairs or []:
        body += interaction_section_html(rows_of_pairs, title, stem)
    if not _draws_interactions(titles) and interactions_note:
        body += (f"<h2>{html.escape(INTERACTIONS_TITLE)}</h2>"
                 f"<p>{_code_spans(_interactions_text(interactions_note))}</p>")
    return html_page("Urbion balance report", body, facts)


#: The file that says which command wrote a folder: only such a folder is ever replaced.
FOLDER_MARK = ".urbion-folder"


def write_folder(out: Path, fill, kind: str) -> Path:
    """Call ``fill(folder)`` on a new folder beside ``out``, then move it to ``out``
    (replacing an earlier folder of the same ``kind`` there): complete or not at all. A
    stop once it is in place is noted :data:`SET_WRITTEN`."""
    build, swapped = None, False
    try:
        # made with the permissions any new folder gets (0777 less the umask), which
        # reading the umask would change for every thread of the process at once
        build = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}"
        build.mkdir(0o777)
        fill(build)
        # the kind, then every file written: a file not listed is the user's, and stops a
        # later replacement
        written = sorted(p.name for p in build.iterdir())
        (build / FOLDER_MARK).write_text("\n".join([kind, *written]) + "\n", encoding="utf-8")
        keep_attributes(out, build)  # a private folder replaced stays private
        # a stop between the two renames would leave no folder at ``out``
        with signals_held():
            _swap_into_place(build, out)
            swapped = True
        _remove_leftovers(out)
    except OSError as err:
        raise UrbionError(f"cannot write {out}: {err.strerror or err}") from None
    except KeyboardInterrupt as stop:
        if swapped:
            stop.add_note(SET_WRITTEN)
        raise
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)
    return out


def save_chart(fig, folder: Path, stem: str) -> bytes:
    """Write ``stem``.png and .svg, each whole or not at all; return the PNG's bytes."""
    files = chart_files(fig, stem)
    for name, content in files.items():
        write_atomically(folder / name, lambda tmp, c=content: Path(tmp).write_bytes(c))
    return files[f"{stem}.png"]


def chart_files(fig, stem: str) -> dict[str, bytes]:
    """``stem``.png and ``stem``.svg of ``fig``, as bytes."""
    png, svg = io.BytesIO(), io.BytesIO()
    with warnings.catch_warnings():
        # a name in a script the font lacks (a card set named in Japanese) is drawn as
        # boxes, with a warning per glyph per drawing: dozens of lines for one report
        warnings.filterwarnings("ignore", message="Glyph .* missing from font",
                                category=UserWarning)
        fig.savefig(png, format="png", dpi=110)
        charts.write_svg(fig, svg)
    return {f"{stem}.png": png.getvalue(), f"{stem}.svg": svg.getvalue()}


@dataclasses.dataclass
class ComparedRuns:
    """What a report's differences section holds: the table (``run_stats.differences``;
    None for one run), what each run changes from the run it is compared with, the table's
    text cells, its title and notes, the ranking of each base game's runs (``--baseline
    base``), what the charts compare each run with (None: the first run), and each set's
    effect on two base games set side by side (``run_stats.effect_contrasts``; None
    without a set compared with two base games) with its text cells."""

    table: pd.DataFrame | None
    changes: dict[str, str]
    rows: list[list[str]] | None
    heading: tuple[str, tuple[str, ...]]
    ranking: list[list[str]] | None
    chart_against: dict[str, str] | None
    effects: pd.DataFrame | None = None
    effect_rows: list[list[str]] | None = None
    effects_set_aside: list[str] = dataclasses.field(default_factory=list)


def compared_runs(runs: dict[str, pd.DataFrame], baseline: str) -> ComparedRuns:
    """Each run against its ``baseline`` (:data:`BASELINES`): the figures and texts of a
    report's differences section."""
    against = baselines_of(runs, baseline)
    changes = {label: configuration_changes(runs[label].attrs,
                                            runs[against.get(label, label)].attrs)
               for label in runs}
    table = run_stats.differences(runs, against) if len(runs) > 1 else None
    family = 0 if table is None else int(table["informative"].sum())
    by_base = baseline == "base"
    effects = run_stats.effect_contrasts(runs, against) if by_base else None
    if effects is not None and not len(effects):
        effects = None
    return ComparedRuns(
        table, changes, None if table is None else difference_rows(table, changes),
        differences_heading(baseline, family, unmatched_runs(runs, against),
                            idle_bases(runs, against)),
        ranking_rows(table, runs) if by_base and table is not None else None,
        against if by_base else None, effects,
        None if effects is None else effect_rows(effects),
        run_stats.effect_runs_set_aside(runs, against) if effects is not None else [])


#: The title of the section of ``--baseline base`` that sets each set's effect on one
#: base game beside its effect on another.
EFFECTS_TITLE = "Each set's effect, base game against base game"


def effects_note(effects: pd.DataFrame, set_aside: list[str] = ()) -> str:
    """How to read the rows of ``effect_rows``: what the figures are, Holm's family, and
    the runs ``set_aside`` for another run of their set against the same base game."""
    tested = int(effects["low"].notna().sum())
    aside = (f" Not weighed here, for another run of the same set against the same base "
             f"game that shares more games with it: {spoken_list(list(set_aside))}."
             if set_aside else "")
    return (
        "Each row puts a set's effect on one base game beside its effect on another, each "
        "as the factor it multiplies the odds of winning by (odds = p / (1 - p)); a set "
        "compared with one base game has no row. First over second is the first base game's "
        "factor over the second's: 1 where the set changes both alike, above 1 where it "
        "helps the first more or harms it less, on the odds scale; a set that multiplies "
        "two base games' odds alike still adds other numbers of points to base games that "
        "win at other rates. Its 95% interval and Holm p come from Wald's test on the log "
        "of the ratio: over the games all four runs played, paired game by game, where "
        "they are of one seed and share games (a game of one number draws from the same "
        "random streams in each); otherwise each factor over its own comparison's games, "
        "the two independent. Holm is over the rows with an interval "
        f"({plural(tested, 'test') if tested else 'no test'}); n/a where a run has fewer "
        f"than {ODDS_MIN_OUTCOMES} wins or losses, or two runs fewer than "
        f"{ODDS_MIN_OUTCOMES} games in which they differ, or where a run is a summary, "
        "which holds no games to pair. Shown: a Holm p below 0.05 with the interval as "
        "written clear of 1, and which base game's factor is the higher." + aside + " "
        + EDGE_NOTE)


def effect_rows(effects: pd.DataFrame) -> list[list[str]]:
    """``run_stats.effect_contrasts`` as text cells, header first."""
    rows = [["set", "first base game", "second base game", "games", "odds factor, first",
             "odds factor, second", "first over second (95%)", "Holm p", "shown"]]
    for _, r in effects.iterrows():
        rows.append([r.set, str(r.first), str(r.second), _effect_games(r),
                     _odds_factor(r.first_odds), _odds_factor(r.second_odds),
                     _effect_ratio_cell(r), format_p(r.holm_p), _effect_verdict(r)])
    return rows


def _effect_games(row: pd.Series) -> str:
    """The games a row's factors are over: the games all four runs played, paired, or
    each comparison's own."""
    if row.paired:
        return f"{int(row.first_games):,} paired"
    if not (row.first_games or row.second_games):
        return "none"
    return f"{int(row.first_games):,} and {int(row.second_games):,}"


def _odds_factor(factor: float) -> str:
    return "n/a" if pd.isna(factor) else f"x{factor:.2f}"


def _effect_ratio_cell(row: pd.Series) -> str:
    """The first base game's factor over the second's with its interval."""
    if pd.isna(row.p):
        return "n/a"
    if pd.isna(row.low):
        return f"x{row.ratio:.2f} (no game departs)"
    return f"x{row.ratio:.2f} ({row.low:.2f} to {row.high:.2f})"


def _effect_verdict(row: pd.Series) -> str:
    """Where a set is shown to weigh otherwise on the two base games, which one's factor
    is the higher; "no", or "n/a" where untested."""
    if pd.isna(row.holm_p):
        return "n/a"
    if not row.shown:
        return "no"
    return f"factor higher on the {'first' if row.ratio > 1 else 'second'}"


def effects_section(compared: ComparedRuns) -> tuple[str, list[list[str]]] | None:
    """The note and rows of the pages' effects section; None without one."""
    if compared.effects is None or compared.effect_rows is None:
        return None
    return effects_note(compared.effects, compared.effects_set_aside), compared.effect_rows


def effects_csv(effects: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``effects.csv``: the table with the policy, variant and seed of each base game, so
    that the file quoted apart from its page still names what was compared."""
    extra = {}
    for side in ("first", "second"):
        attrs = effects[side].map(lambda label: runs[label].attrs)
        extra[f"{side}_policy"] = attrs.map(lambda a: shared_policy(str(a.get("policy"))))
        extra[f"{side}_variant"] = attrs.map(lambda a: a.get("variant"))
        extra[f"{side}_seed"] = attrs.map(lambda a: a.get("seed"))
    return effects.assign(**extra)


#: Above the ranking of ``--baseline base``: how to read it.
RANKING_NOTE = (
    "Each base game's runs from the most harmful to the most helpful, by their difference "
    "from it. Within a column every run is weighed against one base game; across columns, "
    "points on base games that win at other rates do not weigh alike (3 points are 50% "
    "more games won on a base game at 6%, 10% more on one at 30%): the ratio beside them, "
    "the run's win rate over its base game's on the games compared, weighs them alike. The "
    "ratios describe; whether a set weighs alike on two base games is tested on the odds "
    "of winning, in a section of its own where the runs allow it (a set played against "
    "two base games).")


def ranking_rows(table: pd.DataFrame, runs: dict[str, pd.DataFrame]) -> list[list[str]]:
    """The differences ``table`` as a ranking, header first: a column per base game (its
    ``against``), its runs by their difference, lowest first, each named by its expansions
    as --expansions takes them, with the ratio of the two win rates (none where the base
    game won no game) and "no difference shown" where its Holm p is 0.05 or more or its
    test cannot reject (:data:`UNWEIGHED` for a run that kept no Book)."""
    from analyzer.analysis.compare import set_label

    shown = table.assign(holm=differences_holm(table))
    # as a comparison's verdict names them: a run that kept no Book is not weighed
    unweighed = set(books_unplayed(runs))
    columns = {}
    for base, group in shown.groupby("against", sort=False):
        cells = []
        for label, row in group.sort_values("difference", kind="stable").iterrows():
            name = set_label(tuple(runs[label].attrs.get("expansions") or []))
            quiet = not (row.get("informative", True) and row.holm < SIGNIFICANCE)
            said = ([f"{row.win_rate / row.against_rate:.2f}x the wins"]
                    if row.against_rate > 0 else []) + \
                ([UNWEIGHED if label in unweighed else "no difference shown"]
                 if quiet else [])
            cells.append(f"{name} {signed_pp(row.difference)} pp"
                         + (f" ({'; '.join(said)})" if said else ""))
        columns[base] = cells
    depth = max(len(cells) for cells in columns.values())
    # an order, not the comparison page's rank with its range from the tests between sets
    return [["order", *columns]] + [
        [str(rank + 1), *(cells[rank] if rank < len(cells) else "" for cells in
                          columns.values())] for rank in range(depth)]


def _interactions_missing(runs: dict[str, pd.DataFrame]) -> bool | str:
    """What the interactions section says where none is drawn: what they need (True), or,
    for runs of several comparisons, that none of them holds all it needs."""
    count = len(comparison_groups(runs))
    if count == 1:
        return True
    return (f"The interaction of two expansions is weighed within one comparison's runs (the "
            f"base game, each expansion alone and the pairs, of one policy, seed, card set "
            f"and variant); these runs are of {count} such configurations, and none holds "
            f"them all (`urbion compare --sets pairs --out DIR` writes them).")


def comparison_groups(runs: dict[str, Run]) -> list[dict[str, Run]]:
    """``runs`` by comparison, in the order first given: a run joins the first group whose
    first run it is played alike with but for the expansions (:func:`changed_keys`: the
    same policy as given, code, card set, variant, rules, engine and seed), as
    ``--baseline base`` pairs a run with its base game."""
    groups: list[dict[str, Run]] = []
    for label, run in runs.items():
        group = next((group for group in groups if set(changed_keys(
            run.attrs, next(iter(group.values())).attrs)) <= {"expansions"}), None)
        if group is None:
            groups.append({label: run})
        else:
            group[label] = run
    return groups


def write_report(paths: list[str | Path | pd.DataFrame], out: str | Path,
                 baseline: str = "first") -> Path:
    """Build the report of the results files ``paths`` (or frames ``simulate`` returned)
    into the folder ``out``, each run compared with its ``baseline`` (:data:`BASELINES`)."""
    out = Path(out)
    check_destination(out, "report")
    runs = load_runs(paths)
    table = run_stats.headline(runs)
    rows, facts = headline_rows(table), provenance(runs)
    if files := shared_files([str(p) for p in paths if not isinstance(p, pd.DataFrame)]):
        # by name, as shared: `urbion report` of these files beside each other again
        facts = {"results files": ", ".join(files), **facts}
    compared = compared_runs(runs, baseline)
    totals = [label for label, run in runs.items() if isinstance(run, Totals)]
    drawn = interaction_tables(runs)
    books = books_chart_note(runs, "run")
    source = _chart_source(runs)
    # a chart of each game's figures needs a results file: one drawn beside a summary lists
    # the summary's run without a line
    each_game = len(totals) < len(runs)
    charts_drawn = [(stem, title, (lambda draw=draw: charts.caption(
                        draw(runs, table, compared.chart_against), source)))
                    for stem, title, draw in CHARTS if each_game or stem not in PER_GAME_CHARTS]
    for one in drawn:  # a comparison's chart names its own policy, seed and card set
        charts_drawn.append((one.stem, one.title,
                             lambda one=one: charts.caption(
                                 charts.interactions(titled_interactions(one.table)),
                                 _chart_source(one.runs))))
    titles = [(stem, title) for stem, title, _ in charts_drawn]
    pair_rows = [(one.stem, one.table_title, interaction_rows(titled_interactions(one.table)))
                 for one in drawn]
    card_sets = card_set_texts(runs, list(dict.fromkeys(
        Path(p).parent for p in paths if not isinstance(p, pd.DataFrame))))
    # only where expansions are played might a reader look for their interactions; with a
    # summary among the runs the note at the top says why there are none
    note = not totals and not drawn and \
        any(df.attrs.get("expansions") for df in runs.values()) and _interactions_missing(runs)
    scope = scope_note([df.attrs for df in runs.values()])
    if totals:
        scope += " " + totals_note(totals, len(runs), bool(drawn))
    if undrawn := undrawn_interactions_note(runs, drawn):
        scope += " " + undrawn
    if books:
        note_text = books_unplayed_note(runs, "run")
        scope += f" {note_text[0].upper()}{note_text[1:]}."
    scope += "".join(f" {note}" for note in _weights_notes(runs))
    if drawn:  # the interactions name the expansions as printed, runs as given
        scope += " " + names_key(["+".join(df.attrs.get("expansions") or [])
                                  for df in runs.values()], REPORT_NAMES)

    # an interactions file names whose games it is of, as a comparison's does
    pairs_of = {one.stem: with_run_columns(one.table, _shared_attrs(one.runs),
                                           INTERACTION_FILE_COLUMNS).reset_index()
                for one in drawn}
    numbers = {stem: pairs_of[stem] if stem in pairs_of
               else _chart_numbers(runs, table, stem) for stem, _ in titles}
    tables = {"loss_reasons": loss_reason_rows(runs)}

    def fill(folder: Path) -> None:
        images = {stem: save_chart(draw(), folder, stem) for stem, _, draw in charts_drawn}
        # each row names its run's card set: a label names it only where the runs differ,
        # and a file passed on alone would not say whose cards it is of
        sets_of = {label: str(run.attrs.get("card_set")) for label, run in runs.items()}
        # by its hash too: two card files of one name are told apart
        hashes_of = {label: run.attrs.get("card_set_sha256") for label, run in runs.items()}
        for stem, data in numbers.items():
            if "run" in data:
                data = data.assign(card_set=data["run"].map(sets_of),
                                   card_set_sha256=data["run"].map(hashes_of))
            data.to_csv(folder / f"{stem}.csv", index=False)
        if compared.table is not None:
            differences_csv(compared.table, compared.changes, sets_of, runs).to_csv(
                folder / "differences.csv")
        if compared.effects is not None:
            effects_csv(compared.effects, runs).to_csv(folder / "effects.csv", index=False)
        (folder / "report.md").write_text(markdown(rows, facts, titles, compared.rows,
                                                   card_sets, note, scope, pair_rows, tables,
                                                   compared.heading, compared.ranking,
                                                   effects_section(compared)),
                                          encoding="utf-8")
        # the headline and interactions tables are on the page already
        unfolded = {stem: data for stem, data in numbers.items()
                    if stem != "win_rates" and stem not in pairs_of}
        (folder / "index.html").write_text(page(rows, images, facts, titles, compared.rows,
                                                card_sets, note, scope, pair_rows, tables,
                                                unfolded, report_alts(table, titles),
                                                compared.heading, compared.ranking,
                                                effects_section(compared)),
                                           encoding="utf-8")

    return write_folder(out, fill, "report")


def _extremes(rates: pd.Series, words: tuple[str, str], noun: str,
              least_first: bool = False) -> str:
    """The highest and lowest of ``rates`` (win rates by name) in words: ``words`` name
    them (the highest's word first), every name that shares a rate as written is named
    (no tie is broken at random), and rates that are all one say so."""
    texts = rates.map(_percent)
    top, bottom = texts[rates.idxmax()], texts[rates.idxmin()]
    if len(rates) == 1:
        return f"{rates.index[0]} {top}"
    if top == bottom:
        return f"{f'both {noun}s' if len(rates) == 2 else f'every {noun}'} at {top}"
    most = f"{words[0]} {_named([str(n) for n in texts.index[texts == top]])} ({top})"
    least = f"{words[1]} {_named([str(n) for n in texts.index[texts == bottom]])} ({bottom})"
    return f"{least}, {most}" if least_first else f"{most}, {least}"


def report_alts(table: pd.DataFrame, titles: list[tuple[str, str]]) -> dict[str, str]:
    """The alternative texts of a report's charts whose numbers are in a table of the page
    rather than under the chart (the win rates, the interactions), by stem: what the
    chart finds and where its numbers are, not a file that may not travel with the page."""
    named = dict(titles)
    alts = {}
    if "win_rates" in named:
        found = _extremes(table["win_rate"], ("highest", "lowest"), "run")
        alts["win_rates"] = (f"{named['win_rates']}: {found}. Every run's win rate and "
                             "interval are in the headline table above.")
    for stem, title in named.items():
        if _draws_interactions([(stem, title)]):
            where = "the table of interactions" if stem == "interactions" else \
                "the table of its interactions, pair by pair,"
            alts[stem] = (f"{title}: every pair's numbers, and whether an interaction is "
                          f"shown, are in {where} below.")
    return alts


def _chart_numbers(runs: dict[str, pd.DataFrame], table: pd.DataFrame,
                   stem: str) -> pd.DataFrame:
    """What the report's chart ``stem`` (other than the interactions) draws, as a table
    for ``STEM.csv``."""
    if stem == "win_rates":
        return table.reset_index()
    return run_stats.chart_data(runs, stem)


def loss_reason_rows(runs: dict[str, pd.DataFrame]) -> list[list[str]]:
    """Each run's games lost by reason, as counts and shares of its games (text cells,
    header first), which add up to the games it lost."""
    # every reason a run's rules allow, at 0 where none of its games met it
    # (run_stats.loss_reasons, as in the chart and its CSV)
    lost = {label: run_stats.loss_reasons(df) for label, df in runs.items()}
    reasons = list(dict.fromkeys(r for counts in lost.values() for r in counts.index))
    rows = [["run", "games", "games lost", *reasons]]
    for label, df in runs.items():
        counts = lost[label]
        games = len(df)
        # a reason this run's rules do not have is no zero found: a dash
        rows.append([label, f"{games:,}", _count_share(int(counts.sum()), games),
                     *(_count_share(int(counts[r]), games) if r in counts.index else "-"
                       for r in reasons)])
    return rows


def _count_share(count: int, games: int) -> str:
    return f"{count:,} ({count / games:.2%})"


#: The charts drawn from each game's row, which a summary file (--summary-only) does not
#: keep.
PER_GAME_CHARTS = ("margin_at_victory", "pacified_at_defeat", "convergence")


def _weights_notes(runs: dict[str, Run]) -> list[str]:
    """Each different note of a run whose weighted policy plays where its weights were not
    tuned (``policies.weights.weights_note``), as sentences, naming the runs when not all
    of them."""
    from analyzer.policies.weights import weights_note

    notes: dict[str, list[str]] = {}
    for label, run in runs.items():
        note = weights_note(_shared_names(run.attrs))
        if note:
            notes.setdefault(note.removeprefix("note: "), []).append(label)
    # "Note:" rather than a capital, which would misspell a policy's name
    return [(f"Note: {text}" if len(labels) == len(runs) else
             f"Note on {', '.join(labels)}: {text}") + "." for text, labels in notes.items()]


def totals_note(labels: list[str], runs: int, interactions: bool = False) -> str:
    """What a report with runs read from summary files (``labels``) leaves out, and why;
    ``interactions``: other runs' are drawn."""
    titles = ", ".join(title for stem, title, _ in CHARTS if stem in PER_GAME_CHARTS).lower()
    if len(labels) == runs:
        # a results file joined with a summary's pieces is known by totals too
        return ("Every run here was read from a summary file (--summary-only), or joined "
                "with one, which keeps "
                f"totals, not each game: the charts that need each game ({titles}) and the "
                "pairwise interactions are left out, and differences are taken as between "
                "independent samples. Results files (.parquet) of the same runs give them.")
    one = len(labels) == 1
    left_out = f"leave {'it' if one else 'them'} out" if interactions else "are left out"
    return (f"{'The run' if one else 'The runs'} {', '.join(labels)} "
            f"{'was' if one else 'were'} read from {'a summary file' if one else 'summary files'}"
            f" (--summary-only), or joined with {'one' if one else 'them'}, which "
            f"{'keeps' if one else 'keep'} totals, not each game: the "
            f"charts that need each game ({titles}) show {'it' if one else 'them'} without a "
            f"line, the pairwise interactions {left_out}, and a difference from such a run is "
            "taken as between independent samples. Results files (.parquet) of the same runs "
            "give them.")


def _chart_source(runs: dict[str, pd.DataFrame]) -> str:
    """The line under a chart of ``runs``: what they share, and what their Books say."""
    books = books_chart_note(runs, "run")
    return charts.source_line(_shared_attrs(runs)) + (f"\n{books}" if books else "")


def _shared_attrs(runs: dict[str, pd.DataFrame]) -> dict:
    """The configuration every run shares (card set, seed, variant, ...): what a chart of
    all of them can name once."""
    first, *others = [df.attrs for df in runs.values()]
    shared = {key: value for key, value in first.items()
              if all(other.get(key) == value for other in others)}
    if "card_set_sha256" not in shared:  # one name, other cards: not one card set
        shared.pop("card_set", None)
    return shared


@dataclasses.dataclass
class DrawnInteractions:
    """One comparison's interactions in a report: its chart's stem and title, the title of
    its table pair by pair, the ``interaction_table``, and the comparison's runs."""

    stem: str
    title: str
    table_title: str
    table: pd.DataFrame
    runs: dict[str, pd.DataFrame]


def interaction_tables(runs: dict[str, pd.DataFrame]) -> list[DrawnInteractions]:
    """The interactions of each comparison among ``runs`` that holds the base game, the
    singles and the pairs (:func:`interaction_table`), in the order first given: for runs
    of one comparison, ``interactions`` under the section's title; for runs of several,
    each its own, numbered and named by its base game."""
    # a summary holds no game to pair: the other runs' comparisons are drawn all the same
    groups = comparison_groups({label: run for label, run in runs.items()
                                if not isinstance(run, Totals)})
    found = [(group, table) for group in groups
             if (table := interaction_table(group)) is not None]
    if len(comparison_groups(runs)) == 1:
        return [DrawnInteractions("interactions", INTERACTIONS_TITLE, INTERACTION_TABLE_TITLE,
                                  table, group) for group, table in found]
    drawn = []
    for number, (group, table) in enumerate(found, 1):
        base = comparison_name(group)
        drawn.append(DrawnInteractions(f"interactions-{number}",
                                       f"{INTERACTIONS_TITLE}: {base}",
                                       f"{INTERACTION_TABLE_TITLE}: {base}", table, group))
    return drawn


def comparison_name(group: dict[str, Run]) -> str:
    """A comparison's name on the page: its base game's label, else its first run's."""
    return next((label for label, run in group.items() if not run.attrs.get("expansions")),
                next(iter(group)))


def undrawn_interactions_note(runs: dict[str, pd.DataFrame],
                              drawn: list[DrawnInteractions]) -> str:
    """Where some comparison's interactions are drawn: the comparisons of expansions among
    ``runs`` (results files) whose interactions are not, and why; "" for none."""
    if not drawn:
        return ""
    shown = [one.runs for one in drawn]
    left = [comparison_name(group) for group in comparison_groups(
                {label: run for label, run in runs.items() if not isinstance(run, Totals)})
            if group not in shown and any(run.attrs.get("expansions") for run in group.values())]
    if not left:
        return ""
    return (f"No interactions are drawn for the comparison{'' if len(left) == 1 else 's'} of "
            f"{spoken_list(left)}: they need its base game, each expansion alone and the "
            "pairs, once each.")


def interaction_table(runs: dict[str, pd.DataFrame]) -> pd.DataFrame | None:
    """The pairwise interactions of the expansions in ``runs``, or None when the runs are
    not the base game, singles and pairs of one policy and seed."""
    from analyzer.analysis.compare import interactions, set_label

    by_set = {set_label(tuple(df.attrs.get("expansions") or [])): df
              for df in runs.values()}
    if len(comparison_groups(runs)) != 1 or len(by_set) != len(runs) or "base" not in by_set:
        return None
    table = interactions(by_set)
    table = table[table["games"] > 0]  # a pair whose four sets share no game is not drawn
    return table if len(table) else None


#: The configuration a table's CSV repeats on every row, so that the files of several
#: runs (a solo and a team comparison, say) still tell apart once put together.
RUN_COLUMNS = ("variant", "policy", "seed")
#: What an interactions file adds to ``RUN_COLUMNS``: the cards and the code.
INTERACTION_FILE_COLUMNS = ("card_set", "card_set_sha256", "rules_version", "commit")
#: The code that played a table's games, repeated on every row of its CSV too: a file
#: quoted apart from its page still names it.
VERSION_COLUMNS = ("policy_params_sha256", "rules_version", "commit")


def with_run_columns(table: pd.DataFrame, attrs: dict,
                     more: tuple[str, ...] = ()) -> pd.DataFrame:
    """``table`` with the run's ``RUN_COLUMNS`` (and ``more`` of ``attrs``) after its own
    columns, each the same on every row; the policy by its name as shared (a weights file
    by its file name)."""
    values = {key: attrs.get(key) for key in (*RUN_COLUMNS, *more)}
    values["policy"] = shared_policy(str(values["policy"]))
    if "expansions" in values:  # a cell, as --expansions takes them
        values["expansions"] = ",".join(values["expansions"] or []) or "none"
    return table.assign(**values)


#: The baseline's card file, kept in a sensitivity folder: the page names its cards by
#: hash only, and a designer's file stays on the designer's machine.
BASELINE_CARDS = "baseline-cards.toml"


def write_sensitivity(table: pd.DataFrame, baseline: dict, out: str | Path,
                      cards_text: str | None = None) -> Path:
    """The sensitivity analysis into folder ``out``: sensitivity.csv, .png, .svg, .md, and
    with ``cards_text`` (the baseline's card file) :data:`BASELINE_CARDS`."""
    out = Path(out)
    check_destination(out, "sensitivity")
    if cards_text is not None:
        baseline = {**baseline, "cards_file": BASELINE_CARDS}

    def fill(folder: Path) -> None:
        if cards_text is not None:
            (folder / BASELINE_CARDS).write_text(cards_text, encoding="utf-8")
        png = save_chart(sensitivity_figure(table, baseline), folder, "sensitivity")
        with_run_columns(table.assign(baseline_win_rate=baseline["win_rate"],
                                      baseline_card_set=baseline["card_set"],
                                      baseline_card_set_sha256=baseline["card_set_sha256"]),
                         # each variant's own policy_params_sha256 stays in its row
                         baseline, ("expansions", "rules_version", "commit")).to_csv(
                             folder / "sensitivity.csv", index=False)
        (folder / "index.html").write_text(sensitivity_page(table, baseline, png),
                                           encoding="utf-8")
        (folder / "sensitivity.md").write_text(sensitivity_markdown(table, baseline),
                                               encoding="utf-8")

    return write_folder(out, fill, "sensitivity")


def sensitivity_figure(table: pd.DataFrame, baseline: dict):
    """The sensitivity chart with the run it comes from written under it."""
    chart = charts.sensitivity(table, baseline["win_rate"], _baseline_label(baseline))
    return charts.caption(chart, charts.source_line(baseline))


SENSITIVITY_TITLE = "Sensitivity of the win rate to the card set"


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
             "card file": _card_file(attrs).removeprefix(", from ") + (
                 f"; {results_file}, in this folder, holds its cards"
                 if results_file and _card_file(attrs) else "") or "none (the shipped set)",
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




def _policy_words(attrs: dict) -> str | None:
    """``--policy NAME`` that plays a one-policy run's policy again (its file by the name
    the folder gives it, to be put beside it), or None when no name does."""
    name = str(attrs.get("policy"))
    shown = command_policy_name(name, shared_policy(name), attrs.get("policy_source_sha256"),
                                attrs.get("policy_weights_sha256"),
                                attrs.get("policy_weights_file"))
    if shown is not None and attrs.get(WEIGHTS_KEPT_AS):
        shown = _with_weights_name(shown, str(attrs[WEIGHTS_KEPT_AS]))
    return None if shown is None else f"--policy {shlex.quote(shown)}"


#: The name a folder keeps a run's weights file under when a page of the folder has its own
#: name (a designer's weights named ``cards.toml`` beside the comparison's cards).
WEIGHTS_KEPT_AS = "weights_kept_as"


def _with_weights_name(policy: str, name: str) -> str:
    """``policy`` (``weighted:FILE``, a look-ahead's ``weights=FILE``) reading ``name``."""
    from analyzer.policies.registry import WEIGHTED_PREFIX, with_weights_file

    if policy.startswith(WEIGHTED_PREFIX):
        return f"{WEIGHTED_PREFIX}{name}"
    return with_weights_file(policy, lambda _: name)


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
    card_file = _card_file(attrs).removeprefix(", from ")
    if card_file:
        words.append(f"--cards {shlex.quote(results_file or card_file)}")
    return " ".join(words)


def _baseline_label(baseline: dict) -> str:
    """The baseline card set as the texts name it: R14, or its name and short hash."""
    return baseline_label(baseline["card_set"], baseline["card_set_sha256"])


def _sensitivity_rows(table: pd.DataFrame, label: str = SHIPPED_LABEL) -> list[list[str]]:
    """The effect table as text cells, header first, with McNemar's p and its Holm
    adjustment over the variants; a variant not played says why in its change cell.
    ``label``: the baseline set as the texts name it."""
    from analyzer.analysis.stats import format_p

    rows = [["factor", "level", level_heading(label), "win rate", "95% Wilson interval",
             "change", "95% interval (paired, Newcombe)", "McNemar p", "Holm p"]]
    for r, played in zip(table.itertuples(), played_mask(table), strict=True):
        if not played:
            rows.append([r.factor, r.level, r.baseline_level, "—", "—", r.note, "—", "—",
                         "—"])
            continue
        rows.append([r.factor, r.level, r.baseline_level, f"{r.win_rate:.2%}",
                     f"{r.ci_low:.2%} to {r.ci_high:.2%}", f"{signed_pp(r.effect)} pp",
                     f"{signed_pp(r.effect_low)} to {signed_pp(r.effect_high)} pp",
                     format_p(r.mcnemar_p), format_p(r.holm_p)])
    return rows


def sensitivity_note(table: pd.DataFrame, baseline: dict | None = None) -> str:
    """What the sensitivity table's intervals and p-values are, when a variant moves the
    win rate, which variants were not played, and what else each factor moves (from
    ``baseline``'s ``side_effects``; R14's without it)."""
    played = int(played_mask(table).sum())
    left_out = len(table) - played
    side_effects = baseline_side_effects(baseline or {})
    return " ".join(part for part in (
        "Win rate: the share of games won, with its 95% Wilson interval. change: the "
        "difference from the baseline's win rate over the games paired by number (a "
        "variant's deck differs, so a paired game is not the same deal), in percentage "
        "points, with Newcombe's 95% square-and-add interval for paired proportions; "
        "McNemar p: McNemar's exact test of that change; Holm p: the same adjusted by "
        f"Holm's method for {variants_family(table)}. A "
        "variant moves the win rate, "
        "with the family error held at 5%, when its Holm p is below 0.05: the intervals "
        "are not adjusted for the number of variants. " + EDGE_NOTE,
        f"{left_out} variant{'s were' if left_out > 1 else ' was'} not played (the change "
        "cell says why): no figures, and not counted by Holm's method." if left_out else "",
        side_effects) if part)


def _sensitivity_facts(table: pd.DataFrame, baseline: dict) -> dict[str, str]:
    """The baseline run: its card set (and its file, a designer's), play, games, result
    and versions; and the variants a built-in policy plays with other parameters."""
    facts = {"baseline": f"{baseline['card_set']} (sha256 {baseline['card_set_sha256']})"}
    source = str(baseline.get("card_set_source", ""))
    if source and not source.startswith("builtin:"):
        facts["baseline card file"] = shared_file(source)
    facts["played"] = (f"expansions {', '.join(baseline.get('expansions') or []) or 'none'}, "
                       f"the {baseline.get('variant', 'solo')} game, policy "
                       f"{policy_fact(baseline)}, games 0-{baseline['games'] - 1:,} of seed "
                       f"{baseline['seed']}")
    facts["policy"] = policy_fact(baseline, full=True)
    if other := _other_parameters(table, baseline):
        facts["variants' parameters"] = other
    if cards_file := baseline.get("cards_file"):
        facts["baseline cards"] = (f"{cards_file}, in this folder: its cards (the hash "
                                   "above is theirs)")
    return facts | {
        "baseline win rate": f"{baseline['win_rate']:.2%} ({baseline['ci_low']:.2%} to "
                             f"{baseline['ci_high']:.2%})",
        "rules version": rules_fact(baseline),
        "package version": str(baseline.get("package_version")),
        "commit": str(baseline.get("commit") or NO_COMMIT),
        "software": str(baseline.get("software") or "not recorded"),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "play again": _sensitivity_command(baseline),
    }


def _sensitivity_command(baseline: dict) -> str:
    """The command that plays the analysis again: its cards from the folder's file when
    it keeps one, else the file it was given (by name) or the shipped set."""
    policy = _policy_words(baseline)
    if policy is None:
        return NO_COMMAND.format(shared_policy(str(baseline.get("policy"))))
    parts = [f"urbion sensitivity --games {baseline['games']} --seed {baseline['seed']} "
             f"{policy}"]
    if baseline.get("expansions"):
        parts.append(f"--expansions {','.join(baseline['expansions'])}")
    if baseline.get("variant", "solo") != "solo":
        parts.append(f"--variant {baseline['variant']}")
    source = str(baseline.get("card_set_source", ""))
    if baseline.get("cards_file"):
        parts.append(f"--cards {shlex.quote(baseline['cards_file'])}")
    elif source and not source.startswith("builtin:"):
        parts.append(f"--cards {shlex.quote(shared_file(source))}")
    return " ".join(parts)


def _other_parameters(table: pd.DataFrame, baseline: dict) -> str:
    """Which variants the policy played with parameters other than the baseline's ("":
    none), since a built-in reads facts of each card set into them (greedy: the largest
    Sognae and Incubi values); the hash the provenance gives is the baseline's."""
    if "policy_params_sha256" not in table:
        return ""
    hashes = table["policy_params_sha256"].fillna("").astype(str)
    other = table[(hashes != "") & (hashes != str(baseline.get("policy_params_sha256")))]
    if not len(other):
        return ""
    names = ", ".join(f"{r.factor}: {r.level} (sha256 {r.policy_params_sha256[:12]})"
                      for r in other.itertuples())
    return (f"{names}; the policy reads facts of each card set into its parameters "
            "(greedy: the largest Sognae and Incubi values), so these variants play it "
            "with parameters other than the baseline's (policy_params_sha256 in "
            "sensitivity.csv)")


def sensitivity_markdown(table: pd.DataFrame, baseline: dict) -> str:
    """sensitivity.md: the baseline, the effect table, the chart and the provenance."""
    rows = _sensitivity_rows(table, _baseline_label(baseline))
    facts = _sensitivity_facts(table, baseline)
    lines = [f"# {SENSITIVITY_TITLE}", "", _baseline_sentence(baseline, facts), "",
             *md_table_head(rows[0])]
    lines += [md_row(row) for row in rows[1:]]
    lines += ["", sensitivity_note(table, baseline), "", "![Win-rate change](sensitivity.png)",
              "", "[SVG](sensitivity.svg), [CSV](sensitivity.csv)"
              + (f", [baseline cards]({BASELINE_CARDS})" if baseline.get("cards_file") else ""),
              "", "## Provenance", ""]
    lines += [f"- **{k}**: {_md_prose(v)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"


def _baseline_sentence(baseline: dict, facts: dict[str, str]) -> str:
    """The line that opens a sensitivity page: the baseline set, how it was played and its
    win rate (``facts``: :func:`_sensitivity_facts`), and the note on the shipped weights
    where they play away from where they were tuned."""
    policy = str(baseline["policy"])
    note = page_note(shared_note(sensitivity_weights_note(baseline),
                                 {policy: shared_policy(policy)}))
    return (f"Baseline: {baseline['card_set']} (sha256 {baseline['card_set_sha256'][:12]}), "
            f"{facts['played']}: {facts['baseline win rate']}.{note}")


def sensitivity_weights_note(baseline: dict) -> str | None:
    """The terminal's note when the shipped weights, or a ``weighted:FILE`` tuned on some
    card set, play a sensitivity analysis, whose variants are other cards by design; and
    when its baseline plays the games a file's weights were tuned on."""
    from analyzer.policies.weights import joined_notes, shipped_weights_note, tuned_runs_note

    # the baseline as it was played, and the variants as runs of cards the weights never
    # met (other cards by design)
    runs = {"the baseline": baseline,
            "every card-set variant": {**baseline, "card_set_sha256": "",
                                       "card_set_table": None}}
    notes = [shipped_weights_note([baseline["policy"]], True, baseline.get("expansions") or [],
                                  baseline.get("variant", "solo"), per_card_set=True),
             tuned_runs_note(runs, "", "`urbion tune --cards FILE` for each card set (with "
                             "the same --expansions and --variant)")]
    return joined_notes(notes)


def shared_note(note: str | None, names: dict[str, str]) -> str | None:
    """A terminal note as a shared page or file gives it: each policy of ``names`` (its
    name as given, to its shared name) under its shared name, which names no folder."""
    for name in sorted(names, key=len, reverse=True):  # a path before its own tail
        note = note.replace(name, names[name]) if note else note
    return note


def page_note(note: str | None) -> str:
    """A terminal note (``note: ...``, or several, a line each) as the sentences a page
    adds, with a space before each."""
    return "".join(f" Note: {line.removeprefix('note: ')}." for line in (note or "").splitlines()
                   if line)


def sensitivity_page(table: pd.DataFrame, baseline: dict, png: bytes) -> str:
    """index.html of a sensitivity analysis: self-contained, the chart embedded, the
    baseline first."""
    facts = _sensitivity_facts(table, baseline)
    body = (f"<p id='baseline'>{_code_spans(_baseline_sentence(baseline, facts))}</p>"
            + html_table(_sensitivity_rows(table, _baseline_label(baseline)), "sensitivity")
            + f"<p>{html.escape(sensitivity_note(table, baseline))}</p>"
            + html_figures({"sensitivity": png}, [("sensitivity", "Win-rate change")])
            + "<p>Data: <a href='sensitivity.csv'>sensitivity.csv</a>, the chart as <a "
              "href='sensitivity.svg'>sensitivity.svg</a>, the same page as <a "
              "href='sensitivity.md'>sensitivity.md</a>"
            + (f", the baseline's cards as <a href='{BASELINE_CARDS}'>{BASELINE_CARDS}</a>"
               if baseline.get("cards_file") else "") + ".</p>")
    return html_page(SENSITIVITY_TITLE, body, facts)


def check_destination(out: Path, kind: str) -> None:
    """Refuse, before any game is played, a ``kind`` folder (report, sensitivity) that
    could not be put in place: an existing folder is replaced only if the same command
    wrote it and it holds nothing else (so never a file the report reads)."""
    try:
        cwd = Path.cwd()
    except OSError:  # a working folder deleted under the shell: none to hold
        cwd = None
    if out.is_symlink():
        raise UrbionError(f"cannot write {kind} {out}: it is a symbolic link; give the "
                          "folder itself")
    where = _resolved(out, f"cannot write {kind} {out}")
    if cwd is not None and (where == cwd or where in cwd.parents):
        raise UrbionError(f"cannot write {kind} {out}: it is the current folder or holds it; "
                          "give the name of a folder for the output")
    require_folder(out.parent, f"cannot write {kind} {out}")
    check_name_length(out, f"cannot write {kind} {out}")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UrbionError(f"cannot write {kind} {out}: {why_not_writable(out.parent)} in "
                          f"{out.parent}")
    # the new folder is built beside ``out``, then renamed into place
    probe_folder(out.parent, f"cannot write {kind} {out}")
    if not out.exists():
        return
    try:
        held = sorted(p.name for p in out.iterdir()) if out.is_dir() else None
    except OSError as err:
        raise UrbionError(f"cannot write {kind} {out}: {err.strerror or err}") from None
    if held is None:
        raise UrbionError(f"cannot write {kind} {out}: it is a file, not a folder (`urbion "
                          f"{kind}` writes its files into the folder --out (out=) names)")
    if held and folder_mark(out) != kind:
        raise UrbionError(f"cannot write {kind} {out}: it exists and is not a folder "
                          f"`urbion {kind}` wrote (remove it, or choose another folder)")
    others = [name for name in held if name != FOLDER_MARK and name not in _written(out)]
    if others:
        raise UrbionError(f"cannot write {kind} {out}: it holds {others[0]}, which "
                          f"`urbion {kind}` did not write (move it away, or choose another "
                          "folder)")
    if not os.access(out, os.W_OK | os.X_OK) or _sticky_foreign(out):
        raise UrbionError(f"cannot write {kind} {out}: permission denied (it cannot be "
                          "replaced)")


def folder_mark(folder: Path) -> str | None:
    """The command that wrote ``folder`` (its FOLDER_MARK's first line), or None."""
    try:
        return (folder / FOLDER_MARK).read_text(encoding="utf-8").splitlines()[0].strip()
    except (OSError, IndexError):
        return None


def _written(folder: Path) -> set[str]:
    """The files the command wrote into ``folder`` (its FOLDER_MARK's other lines)."""
    try:
        return set((folder / FOLDER_MARK).read_text(encoding="utf-8").splitlines()[1:])
    except OSError:
        return set()


def _sticky_foreign(out: Path) -> bool:
    """True when ``out`` lies in a sticky folder (such as /tmp) and belongs to another user,
    who alone may move it."""
    uid = os.geteuid()
    parent = out.parent.stat()
    return (uid != 0 and parent.st_mode & stat.S_ISVTX != 0 and out.stat().st_uid != uid
            and parent.st_uid != uid)


def _leftover_name(out: Path) -> re.Pattern:
    """The names of the folders a write of ``out`` makes beside it: its build and an
    earlier ``out`` moved aside."""
    return re.compile(rf"\.{re.escape(out.name)}\.(old-)?[0-9a-f]{{12}}")


#: A leftover untouched for this long is no write in progress (whose build gains a file
#: every few seconds) but one that was killed.
LEFTOVER_AGE = 300.0
#: What a folder these commands write holds: names ending so, and the folder's mark.
WRITTEN_SUFFIXES = (".png", ".svg", ".csv", ".md", ".html", ".txt", ".parquet")


def _remove_leftovers(out: Path) -> None:
    """Remove what an earlier write of ``out`` killed part-way (SIGKILL, a power cut) left
    beside it: hidden folders of its own naming, holding only files such a write makes,
    and untouched for ``LEFTOVER_AGE`` seconds (another write of ``out`` may be under
    way)."""
    pattern = _leftover_name(out)
    now = time.time()
    for path in out.parent.glob(f".{glob.escape(out.name)}.*"):
        if not pattern.fullmatch(path.name) or not path.is_dir() or path.is_symlink():
            continue
        try:
            entries = list(path.iterdir())
            old = now - path.stat().st_mtime > LEFTOVER_AGE
        except OSError:
            continue
        if old and all(e.is_file() and (e.name == FOLDER_MARK or
                                        e.name.endswith(WRITTEN_SUFFIXES)) for e in entries):
            shutil.rmtree(path, ignore_errors=True)


def _swap_into_place(build: Path, out: Path) -> None:
    """Move ``build`` to ``out``; an earlier ``out`` is put back if that fails."""
    old = None
    if out.exists():
        # a name of its own: an existing .NAME.old may be the user's
        old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:12]}")
        out.rename(old)
    try:
        build.rename(out)
    except OSError:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
        if old.exists():  # a file in it the system would not remove (immutable, say)
            print(f"urbion: note: the earlier {out.name} is replaced, but not all of it "
                  f"could be removed: what is left is in {old}", file=sys.stderr, flush=True)


def compare_rows(table: pd.DataFrame) -> list[list[str]]:
    """The comparison table as text cells, header first."""
    from analyzer.analysis.compare import holm_text, rank_text
    from analyzer.analysis.stats import format_p

    rows = [["set", "games", "win rate", "95% Wilson interval", "vs base",
             "95% interval (paired, Newcombe)", "McNemar p", "Holm p",
             "mean turns (95% interval)", "rank"]]
    for label, r in table.iterrows():
        base = label == "base"
        short = "*" if not r.get("precise", True) else ""  # max-games came first
        rows.append([label, f"{int(r.games):,}{short}", _percent(r.win_rate),
                     f"{_percent(r.ci_low)} to {_percent(r.ci_high)}",
                     "" if base else f"{signed_pp(r.difference)} pp",
                     "" if base else
                     f"{signed_pp(r.diff_low)} to {signed_pp(r.diff_high)} pp",
                     "" if base else format_p(r.mcnemar_p),
                     "" if base else holm_text(r), mean_text(r, "turns", 1),
                     rank_text(r)])
    return rows


def compare_note(table: pd.DataFrame, runs: dict[str, pd.DataFrame] | None = None,
                 policy: str | None = None) -> str:
    """What the comparison table's intervals, p-values and ranks are, what it takes to
    call a set harder or easier than the base game, and for whom (``policy``)."""
    from analyzer.analysis.compare import (
        BASE_ALONE_NOTE,
        RANK_FAMILY_NOTE,
        RANK_NOTE,
        partial_base_note,
    )

    tested = len(table.drop(index="base", errors="ignore"))
    partial = f" {partial_base_note(table)}." if partial_base_note(table) else ""
    partial += "" if tested else f" {BASE_ALONE_NOTE[0].upper()}{BASE_ALONE_NOTE[1:]}."
    books = books_unplayed_note(runs or {})
    partial += f" {books[0].upper()}{books[1:]}." if books else ""
    player = f" for the {policy} policy" if policy else ""
    holm = ("Holm p: the same (one set compared: nothing to adjust)" if tested == 1 else
            f"Holm p: the same adjusted by Holm's method for {sets_family(table)} compared "
            "with the base game")
    return ("Win rate: the share of games won, with its 95% Wilson interval; mean turns: "
            "how many turns a game lasted, with the 95% interval of the mean (Student's t). "
            "vs base: the "
            "difference from the base game's win rate over the games paired by number "
            f"(game g of both; {PAIRING_SHORT}), in percentage "
            "points, with Newcombe's 95% square-and-add interval for paired proportions; "
            f"McNemar p: McNemar's exact test of that difference; {holm}. A set is "
            f"harder or easier than the base game{player}, with the family error held at "
            "5%, when "
            "its Holm p is below 0.05: the intervals are not adjusted for the number of "
            f"sets, so an interval that just excludes zero is not enough on its own. {EDGE_NOTE} "
            + (f"{RANK_NOTE[0].upper()}{RANK_NOTE[1:]}." if tested else "")
            + (f" {RANK_FAMILY_NOTE}." if tested > 1 else "") + partial)


def other_parameters_note(runs: dict[str, pd.DataFrame], csv: str,
                          against: dict[str, pd.DataFrame] | None = None) -> str:
    """The provenance's words on the sets of a comparison (``runs``, by set; ``against``,
    a card change's sets with the cards compared against) whose policy played with other
    parameters than its base game's, fitted to the larger values of their cards (greedy's
    and weighted's largest Sognae and Incubi); "" when none did. ``csv`` gives each set's
    hash."""
    other = _sets_of_own_parameters(runs) + [
        f"{label} with the cards compared against"
        for label in _sets_of_own_parameters(against or {})]
    if not other:
        return ""
    return (f"; {spoken_list(other)} played with other parameters, fitted to the larger "
            f"values of {'its' if len(other) == 1 else 'their'} cards ({csv} gives each "
            "set's hash)")


def _sets_of_own_parameters(runs: dict[str, pd.DataFrame]) -> list[str]:
    """The sets of ``runs`` whose policy parameters are not their base game's."""
    from analyzer.analysis.compare import BASE

    if BASE not in runs:
        return []
    base = runs[BASE].attrs.get(PARAMS_KEY)
    return [label for label, run in runs.items() if run.attrs.get(PARAMS_KEY) != base]


def policy_fact(attrs: dict, full: bool = False) -> str:
    """The policy of a run's configuration, with its parameter hash and, for a user's
    policy, the hash of its source file (two versions of one file share a name); the
    hashes cut to 12 characters for a sentence, ``full`` for a provenance, which a reader
    checks a run against."""
    digits = None if full else 12
    hashes = [f"parameters sha256 {str(attrs.get('policy_params_sha256', ''))[:digits]}"]
    if attrs.get("policy_source_sha256"):
        hashes.append(f"source sha256 {attrs['policy_source_sha256'][:digits]}")
    return f"{shared_policy(str(attrs.get('policy')))} ({', '.join(hashes)})"


def _compare_words(attrs: dict) -> list[str] | str:
    """The words that start the command of a comparison (sets, games, seed, policy,
    variant), or the sentence that says no command plays its policy again."""
    policy = _policy_words(attrs)
    if policy is None:
        return NO_COMMAND.format(shared_policy(str(attrs.get("policy"))))
    words = [f"urbion compare --sets {shlex.quote(_sets_option(attrs['sets']))} --games "
             f"{attrs['games_per_batch']} --seed {attrs['seed']} {policy}"]
    if attrs.get("variant", "solo") != "solo":
        words.append(f"--variant {attrs['variant']}")
    return words


def _compare_command(attrs: dict) -> str:
    """The command that plays the comparison again: its cards from the folder's file when
    it keeps one, else the file it was given (by name) or the shipped set."""
    parts = _compare_words(attrs)
    if isinstance(parts, str):
        return parts
    if attrs.get("precision") is not None:
        parts.append(f"--precision {attrs['precision']!r} --max-games {attrs['max_games']}")
    source = str(attrs.get("card_set_source", ""))
    if attrs.get("cards_file"):
        parts.append(f"--cards {shlex.quote(attrs['cards_file'])}")
    elif source and not source.startswith("builtin:"):
        parts.append(f"--cards {shlex.quote(shared_file(source))}")
    return " ".join(parts)


def _sets_option(labels: list[str]) -> str:
    """``--sets`` for a comparison of the sets ``labels``, in their order: ``singles``,
    ``pairs`` or ``all`` when it is exactly one of those (all 128 sets are 5,700
    characters listed), else the list."""
    from analyzer.analysis.compare import expansion_sets, set_label

    for name in ("singles", "pairs", "all"):
        if labels == [set_label(s) for s in expansion_sets(name)]:
            return name
    return ",".join(labels)


def code_facts(attrs: dict) -> dict[str, str]:
    """The provenance of the code that played a run (``attrs``, its configuration): rules
    version, package version, commit and software, then the date of the page."""
    return {
        "rules version": rules_fact(attrs),
        "package version": str(attrs["package_version"]),
        "commit": str(attrs.get("commit") or NO_COMMIT),
        "software": str(attrs.get("software") or "not recorded"),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def compare_facts(attrs: dict, games: list[int] | None = None) -> dict[str, str]:
    """Provenance of a comparison whose sets played ``games`` games each (in the table's
    order; None: not said)."""
    facts = {
        "card set": f"{attrs['card_set']} (sha256 {attrs['card_set_sha256']})"
                    f"{_card_file(attrs)}" + (f"; {attrs['cards_file']}, in this folder, "
                                               "holds its cards"
                                               if attrs.get("cards_file") else ""),
        "variant": f"the {attrs.get('variant', 'solo')} game",
        "policy": policy_fact(attrs, full=True),
        "games": f"{_games_played(games)} of seed {attrs['seed']}, in batches of "
                 f"{attrs['games_per_batch']:,}",
        **code_facts(attrs),
    }
    if attrs.get("precision") is not None:
        facts["precision"] = precision_fact(
            attrs, "the half-widths of its 95% intervals (win rate, difference to the base "
                   "game)")
    if attrs.get("card_change_precision") is not None:
        # a comparison alone would not stop its sets where the change stopped them
        cut = attrs.get("card_change_cut") or []
        facts["precision"] = ("each set played until the card change in the folder above "
                              "(../index.html) was known to +-"
                              f"{attrs['card_change_precision'] * 100:.2f} percentage points "
                              f"in it, or had {attrs['max_games']:,} games, with these cards "
                              "and the others alike"
                              + (f" ({spoken_list(cut)} stopped so, the change still less "
                                 "precise: marked * on its page)" if cut else "")
                              + "; these win rates' own intervals were not asked to reach "
                                "that")
        facts["play again"] = ("the card change's command, on its page in the folder above "
                               "(../index.html), plays these games again, those of the "
                               "other card set with them")
        return facts
    facts["play again"] = _compare_command(attrs)
    return facts


def precision_fact(attrs: dict, narrowed: str) -> str:
    """The provenance of a run of ``--precision``: until when each set played (``narrowed``:
    which intervals had to be that narrow), the mark of a set max-games cut short, and the
    stopping rule's bias."""
    return (f"each set played until {narrowed} were at most {attrs['precision'] * 100:.2f} "
            f"percentage points or it had {attrs['max_games']:,} games, the base game as long "
            f"as any set; * marks a set stopped because another batch of "
            f"{attrs['games_per_batch']:,} would pass that limit, its intervals still wider. "
            "Stopping on the results biases the estimates a little: for a figure to cite, "
            "play the sets again with a fixed --games and another --seed (docs/compare.md)")


def _games_played(games: list[int] | None) -> str:
    """Which games of the seed the sets played: all from game 0, as many as each's row
    says when they differ (``--precision``)."""
    if not games:
        return "games from 0"
    if len(set(games)) == 1:
        return f"games 0-{games[0] - 1:,} for every set"
    return (f"games 0 to {min(games) - 1:,} for the shortest set and 0 to "
            f"{max(games) - 1:,} for the longest (each set's games column)")


COMPARE_TITLES = {"win_rates": "Win rate per expansion set",
                  "differences": "Change from the base game, paired game by game",
                  "interactions": "Pairwise interactions of expansions"}
#: What each comparison chart shows, one line under its title.
COMPARE_CAPTIONS = {
    "win_rates": "Each set's share of games won, the bar its 95% Wilson interval, the hardest "
                 "set first and a line at the base game's. Two sets can differ although "
                 "their bars overlap: the paired change says.",
    "differences": "Each set's win rate minus the base game's over the games paired by "
                   "number (not the same deals where the set's cards change the decks), in "
                   "percentage points, with its 95% paired interval, not adjusted for the "
                   "number of sets (Holm p in the table is): left of zero, the set was won "
                   "less often than the base game on these games; it is harder, with the "
                   "family error held at 5%, only where its Holm p is below 0.05.",
    "interactions": CHART_CAPTIONS["interactions"],
}


def _compare_csv(result) -> str:
    """compare.csv: the table, the run's columns, and each set's own parameter hash (a
    built-in reads the largest values among the cards in play into its parameters, so a
    set's expansion cards can change them)."""
    table = with_run_columns(result.table, result.attrs,
                             ("card_set", "card_set_sha256", *VERSION_COLUMNS))
    table["policy_params_sha256"] = [result.runs[label].attrs.get("policy_params_sha256", "")
                                     for label in table.index]
    return table.to_csv()


#: A comparison's card file, kept in its folder when it played other cards than the
#: shipped set: the play-again command names it, and a designer's file stays on the
#: designer's machine.
COMPARE_CARDS = "cards.toml"
#: The pages of a comparison's folder besides its charts and card file.
COMPARE_PAGES = frozenset({"compare.csv", "interactions.csv", "compare.md", "index.html"})


def write_compare(result, folder: Path, cards_text: str | None = None) -> None:
    """The comparison into ``folder`` beside its ``results/``: :func:`compare_files`,
    written as one set (``atomic.write_together``): a stop or a full disk leaves the pages
    before, never a mix of old and new."""
    write_together(folder, compare_files(result, cards_text))


def compare_files(result, cards_text: str | None = None) -> dict[str, bytes]:
    """A comparison's pages by file name: compare.csv, interactions.csv, compare.md,
    index.html and the charts, and with ``cards_text`` (the card file its sets played)
    :data:`COMPARE_CARDS`, made in memory."""
    attrs = result.attrs if cards_text is None else \
        {**result.attrs, "cards_file": COMPARE_CARDS}
    files: dict[str, bytes] = {}
    figures = result.figures()
    for stem, fig in figures.items():
        files |= chart_files(fig, stem)
    pages = {*files, *COMPARE_PAGES, *([COMPARE_CARDS] if cards_text is not None else [])}
    weights = _kept_weights_file(result, pages)
    if weights and _weights_name(result) not in weights:  # kept under another name
        attrs = {**attrs, WEIGHTS_KEPT_AS: next(iter(weights))}
    rows = compare_rows(result.table)
    facts = compare_facts(attrs, [int(n) for n in result.table["games"]])
    facts["policy"] += other_parameters_note(result.runs, "compare.csv")
    note = compare_note(result.table, result.runs,
                        shared_policy(str(result.attrs.get("policy", ""))))
    policy = str(result.attrs.get("policy", ""))
    variant = str(result.attrs.get("variant", "solo"))
    scope = scope_note([result.attrs]) + page_note(
        shared_note(result.weights_note(), {policy: shared_policy(policy)}))
    pairs = interaction_rows(result.interactions)
    names = names_key(result.table.index)
    note = f"{note} {names}" if names else note
    head = {"title": compare_title(variant, shared_policy(policy)),
            "verdict": verdict_line(result.table, books_unplayed(result.runs))}
    images = {name.removesuffix(".png"): content for name, content in files.items()
              if name.endswith(".png")}
    # what the chart says under it besides its source, in its caption on the page too (the
    # Books' note is the table's already)
    notes = result.chart_notes(list(figures), books=False)
    figure_texts = {"captions": {stem: " ".join([COMPARE_CAPTIONS[stem],
                                                 *(_sentence(n) for n in notes[stem])])
                                 for stem in figures},
                    "alts": compare_alts(result, list(figures))}
    texts = {
        "compare.csv": _compare_csv(result),
        "interactions.csv": with_run_columns(result.interactions, result.attrs,
                                             INTERACTION_FILE_COLUMNS).to_csv(),
        "compare.md": compare_markdown(rows, images, facts, pairs, note, scope,
                                       **head, **figure_texts),
        "index.html": compare_page(rows, images, facts, pairs, note, scope,
                                   **head, **figure_texts),
    }
    if cards_text is not None:
        texts[COMPARE_CARDS] = cards_text
    return files | {name: text.encode() for name, text in (texts | weights).items()}


def _kept_weights_file(result, taken: set[str]) -> dict[str, str]:
    """The weights file a comparison's policy plays (``weighted:FILE``, a look-ahead's
    ``weights=FILE``), by the name its play-again command gives it, so that the command
    runs from the folder as it reads: its own name, or where a page of the folder has that
    name (``taken``) ``weights-NAME``; none for the shipped weights."""
    kept = {str(run.attrs.get("policy_weights_file")) for run in result.runs.values()
            if isinstance(run.attrs.get("policy_weights_file"), str)}
    name = _weights_name(result)
    if len(kept) != 1 or name is None or not name.endswith(".toml") or "/" in name:
        return {}
    return {f"weights-{name}" if name in taken else name: kept.pop()}


def _weights_name(result) -> str | None:
    """The name a comparison's play-again command gives the weights file its policy
    plays, or None."""
    from analyzer.policies.registry import weights_file_of

    return weights_file_of(shared_policy(str(result.attrs.get("policy", ""))))


def _sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, ending with a full stop."""
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!", "?")) else f"{text}."


#: Who names the expansions how, on a comparison's pages and on a report's.
COMPARE_NAMES = "the tables name a set as --sets takes it, the charts by"
REPORT_NAMES = "the runs name their expansions as --expansions takes them, the interactions by"


def names_key(sets, who: str = COMPARE_NAMES) -> str:
    """How the names of the expansions in ``sets`` (as ``--sets`` takes them, joined by
    +) are the printed names, ``who`` saying where each is used; "" with the base game
    alone."""
    from analyzer.analysis.compare import EXPANSION_TITLES, SET_SEPARATOR

    played = {name for label in sets for name in str(label).split(SET_SEPARATOR)}
    named = [f"{name}: {title}" for name, title in EXPANSION_TITLES.items() if name in played]
    if not named:
        return ""
    return f"Names: {who} the expansions' printed names ({'; '.join(named)})."


#: The most sets an alternative text names in one group; the others are counted.
ALT_NAMES = 5


def _named(items: list[str]) -> str:
    """``items`` as a sentence lists them, the first ``ALT_NAMES`` by name."""
    if len(items) <= ALT_NAMES:
        return spoken_list(items)
    return f"{', '.join(items[:ALT_NAMES])} and {len(items) - ALT_NAMES} more"


def compare_alts(result, stems: list[str]) -> dict[str, str]:
    """Each comparison chart's alternative text, by stem: what it finds, for a reader who
    cannot see it, and where its numbers are."""
    from analyzer.analysis.compare import (
        BASE,
        chart_table,
        difference_groups,
        set_title,
        titled_interactions,
        with_verdicts,
    )

    shown = chart_table(result.table)
    others = shown.drop(index=set_title(BASE), errors="ignore")
    alts = {}
    if "win_rates" in stems:
        text = f"{COMPARE_TITLES['win_rates']}"
        if BASE in result.table.index:
            text += f": the base game {_percent(result.table.at[BASE, 'win_rate'])}"
        if len(others):
            text += "; " + _extremes(others["win_rate"], ("easiest", "hardest"), "other set",
                                     least_first=True)
        alts["win_rates"] = text + ". Every set's numbers are in the table above."
    if "differences" in stems:
        # the largest changes first in each group, which a long list keeps
        groups = {key: [f"{name} ({signed_pp(others.at[name, 'difference'])} pp)"
                        if key != "none" else name for name in names]
                  for key, names in difference_groups(others).items()}
        # as the verdict names them: a set that kept no Book is not weighed, not unchanged
        unweighed = {set_title(label) for label in books_unplayed(result.runs)}
        apart = [name for name in groups["none"] if name in unweighed]
        groups["none"] = [name for name in groups["none"] if name not in unweighed]
        parts = [f"{what} than the base game, with Holm p below 0.05: {_named(names)}"
                 for what, names in (("harder", groups["harder"]),
                                     ("easier", groups["easier"])) if names]
        if groups["none"]:
            parts.append(f"no difference shown: {_named(groups['none'])}")
        if apart:
            parts.append(f"not weighed, no Book of Power kept in any game: {_named(apart)}")
        alts["differences"] = (f"{COMPARE_TITLES['differences']}: "
                               f"{'; '.join(parts) or 'no set besides the base game'}. "
                               + ("Every set's change and interval are in the table above."
                                  if parts else ""))
    if "interactions" in stems:
        pairs = with_verdicts(titled_interactions(result.interactions))
        pairs = pairs[pairs["games"] > 0]
        found = [f"{r['first']} with {r['second']} ({signed_pp(r.interaction)} pp, "
                 f"{'more' if r.interaction > 0 else 'fewer'} wins)"
                 for _, r in pairs.iterrows() if r["shown"]]
        text = (f"interactions shown: {_named(found)}" if found else
                "no interaction shown")
        alts["interactions"] = (f"{COMPARE_TITLES['interactions']}, {len(pairs)} "
                                f"pair{'' if len(pairs) == 1 else 's'}: {text}."
                                + (" Every pair's numbers are in the table of interactions "
                                   "below." if len(pairs) else ""))
    return alts


INTERACTION_TABLE_TITLE = "Interactions, pair by pair"


def interaction_table_note(pairs: int) -> str:
    """What the pair-by-pair table of ``pairs`` interactions holds and how to read it."""
    chance = 1 - 0.95 ** pairs
    here = f"{chance:.0%} for {'this pair' if pairs == 1 else f'these {pairs} pairs'}"
    if pairs == ALL_PAIRS:  # every pair of the seven: the general figure is this one
        return INTERACTION_TABLE_NOTE.replace("{chance}, 66% for the 21 pairs of the seven "
                                              "expansions", here)
    return INTERACTION_TABLE_NOTE.replace("{chance}", here)


#: The pairs of the seven expansions.
ALL_PAIRS = 21


INTERACTION_TABLE_NOTE = ("The interaction is the pair's effect minus the two single "
                          "effects, game by game. A win rate cannot fall below zero, so where "
                          "the singles alone take it near zero the interaction is positive "
                          "whatever the pair does. More generally, effects that multiply (as "
                          "chances often do) show on this additive scale as interactions of "
                          "either sign, and effects that add show as none here: compare the "
                          "pair's win rate with the one predicted if the single effects "
                          "multiplied the odds of winning (odds_A * odds_B / odds_base, odds "
                          "= p / (1 - p)) before reading a cell as two "
                          "expansions working together or against each other. "
                          "Each interval is a 95% interval on its own, not adjusted for the "
                          "number of pairs: were there no interaction at all, the chance that "
                          "some interval of k pairs excludes zero would be at most about "
                          "1 - 0.95^k ({chance}, 66% for the 21 pairs of the seven "
                          "expansions; less, since the pairs share the base game's and the "
                          "singles' games). Holm p: " + INTERACTION_TEST_NOTE + ". "
                          + INTERACTION_SHOWN_NOTE[0].upper() + INTERACTION_SHOWN_NOTE[1:]
                          + ". The heatmap colours only the interactions shown. "
                          + ODDS_INTERACTION_NOTE[0].upper() + ODDS_INTERACTION_NOTE[1:] + ".")


def interaction_section_md(pairs: list[list[str]] | None,
                           title: str = INTERACTION_TABLE_TITLE) -> list[str]:
    """The interactions pair by pair (``interaction_rows``) as Markdown lines under
    ``title``, with what they are; none without a pair."""
    if not pairs or len(pairs) < 2:
        return []
    return ["", f"## {title}", "", interaction_table_note(len(pairs) - 1), "",
            *md_table_head(pairs[0]), *(md_row(row) for row in pairs[1:])]


def interaction_section_html(pairs: list[list[str]] | None,
                             title: str = INTERACTION_TABLE_TITLE,
                             table_id: str = "interactions") -> str:
    """:func:`interaction_section_md` as HTML, the table's id ``table_id``."""
    if not pairs or len(pairs) < 2:
        return ""
    return (f"<h2>{html.escape(title)}</h2><p>"
            f"{html.escape(interaction_table_note(len(pairs) - 1))}</p>"
            + html_table(pairs, table_id))


def interaction_rows(table: pd.DataFrame) -> list[list[str]]:
    """An ``analysis.compare.interactions`` table as text cells, header first."""
    from analyzer.analysis.compare import (
        interaction_band,
        interaction_verdict,
        odds_interaction_cell,
        odds_interaction_verdict,
        with_verdicts,
    )
    from analyzer.analysis.stats import format_p

    table = with_verdicts(table)
    rows = [["pair", "games", "interaction", "95% interval", "Holm p", "shown",
             "pair win rate", "if the effects multiplied", "in odds (95%)", "Holm p (odds)",
             "shown in odds"]]
    for label, r in table.iterrows():
        if r.games > 0:
            rows.append([label, f"{int(r.games):,}", f"{signed_pp(r.interaction)} pp",
                         interaction_band(r.low, r.high, " pp", r.get("differing")),
                         format_p(r.holm_p), interaction_verdict(r),
                         _percent(r.pair_win_rate),
                         _percent(r.multiplied) if pd.notna(r.multiplied) else "n/a",
                         odds_interaction_cell(r),
                         format_p(r.get("odds_holm_p", float("nan"))),
                         odds_interaction_verdict(r)])
    return rows


def compare_title(variant: str, policy: str) -> str:
    """A comparison page's title, naming the team game where it was played, and the
    policy: a ranking is the policy's as much as the sets'."""
    return "Urbion expansion sets compared" + (", team game" if variant == "team" else "") + \
        f", with {policy}"


def compare_markdown(rows: list[list[str]], images: dict[str, bytes],
                     facts: dict[str, str], pairs: list[list[str]] | None = None,
                     note: str = "", scope: str = "", title: str = "",
                     verdict: str = "", captions: dict[str, str] | None = None,
                     alts: dict[str, str] | None = None) -> str:
    """compare.md: its ``title``, whose figures they are (``scope``), the comparison in
    plain words (``verdict``), the table and what its columns are (``note``), the charts
    (each with its caption and alternative text, by stem: by default
    ``COMPARE_CAPTIONS`` and its title), the interactions pair by pair, provenance."""
    captions, alts = captions or COMPARE_CAPTIONS, alts or COMPARE_TITLES
    lines = [f"# {title}", "", *([_md_prose(scope), ""] if scope else []),
             *([_md_prose(verdict), ""] if verdict else []), *md_table_head(rows[0])]
    lines += [md_row(row) for row in rows[1:]]
    if note:
        lines += ["", note]
    for stem in images:
        lines += ["", f"## {COMPARE_TITLES[stem]}", "", _md_prose(captions[stem]), "",
                  f"![{_md_prose(alts[stem])}]({stem}.png)", "", f"[SVG]({stem}.svg)"]
    lines += interaction_section_md(pairs)
    with_pairs = bool(pairs and len(pairs) > 1)
    lines += ["", "Data: [compare.csv](compare.csv), "
              + ("[interactions.csv](interactions.csv), " if with_pairs else "")
              + "per-game results in `results/`.", "", "## Provenance", ""]
    lines += [f"- **{k}**: {_md_prose(v)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"


def compare_page(rows: list[list[str]], images: dict[str, bytes],
                 facts: dict[str, str], pairs: list[list[str]] | None = None,
                 note: str = "", scope: str = "", title: str = "",
                 verdict: str = "", captions: dict[str, str] | None = None,
                 alts: dict[str, str] | None = None) -> str:
    """index.html of a comparison: self-contained, the charts embedded, whose figures they
    are (``scope``), the comparison in plain words (``verdict``), the table followed by
    what its columns are (``note``); ``title``, ``captions`` and ``alts`` as for
    :func:`compare_markdown`."""
    titles = [(stem, COMPARE_TITLES[stem]) for stem in images]
    # interactions.csv holds its header alone without a pair: not offered as data then
    with_pairs = bool(pairs and len(pairs) > 1)
    data = ("<p>Data: <a href='compare.csv'>compare.csv</a>, "
            + ("<a href='interactions.csv'>interactions.csv</a>, " if with_pairs else "")
            + "per-game results in <code>results/</code>; each chart "
            "also as " + ", ".join(f"<a href='{stem}.svg'>{stem}.svg</a>" for stem in images)
            + ".</p>")
    interaction_html = interaction_section_html(pairs)
    return html_page(title,
                     (f"<p id='scope'>{_code_spans(scope)}</p>" if scope else "")
                     + (f"<p id='verdict'>{html.escape(verdict)}</p>" if verdict else "")
                     + html_table(rows, "compare")
                     + (f"<p>{html.escape(note)}</p>" if note else "")
                     + html_figures(images, titles, captions or COMPARE_CAPTIONS,
                                    alts=alts)
                     + interaction_html + data, facts)


# --- a card change across expansion sets (compare --against) --------------------------------

CARD_CHANGE_TITLE = "A change of the cards, set by set"
#: The sub-folders of a card change's folder: a comparison of the sets with each card set.
CARD_CHANGE_FOLDERS = ("cards", "against")
CARD_CHANGE_CAPTION = (
    "Each set's change of the win rate (the cards against the cards they are compared "
    "with, over the same games), with its 95% paired interval; the dashed line is the base "
    "game's change. A set in colour changes otherwise than the base game in points (the "
    "test of the vs-base column, Holm p below 0.05); grey circles: no difference from the "
    "base game's change shown; grey squares: too near 0% or 100% to compare in points "
    "(the table's odds scale weighs those whose runs have 20 wins, 20 losses and 20 games "
    "differing).")


def write_card_change(result, folder: Path, cards_texts: dict[str, str | None]) -> None:
    """A card change's pages into ``folder`` (card-change.csv, card-change.md, index.html
    and its chart) and each card set's comparison's pages into its sub-folder (``cards/``,
    ``against/``: :func:`compare_files`, with its card file of ``cards_texts``), all made
    in memory and written as one set (``atomic.write_together``): a stop leaves the three
    folders' pages as they were, never one folder's new beside another's old."""
    from analyzer.analysis.card_change import (
        MULTIPLIED_NOTE,
        ODDS_VERSUS_BASE_NOTE,
        VERSUS_BASE_NOTE,
        precision_notes,
        verdict_lines,
    )

    files: dict[str, bytes] = {}
    figures = result.figures()
    for stem, fig in figures.items():
        files |= chart_files(fig, stem)
    rows = card_change_rows(result.table)
    facts = card_change_facts(result)
    verdict = " ".join([*verdict_lines(result.table, result.attrs["card_set"],
                                       result.attrs["against_card_set"],
                                       list(result._unweighed_books())),
                        *([_sentence(books)] if (books := result.books_note()) else [])])
    note = (f"change: the win rate with the cards minus against them over the same games, "
            f"in percentage points; Holm p: McNemar's exact p adjusted over the sets (—: "
            f"no game differs, a test that cannot reject, left out); odds "
            f"ratio: the change as a ratio of the odds of winning. {VERSUS_BASE_NOTE} "
            f"{MULTIPLIED_NOTE} {ODDS_VERSUS_BASE_NOTE} {EDGE_NOTE}")
    note = " ".join([note, *(_sentence(n) for n in
                             precision_notes(result.table, result.attrs))])
    png = files["card_change.png"]
    # what the chart finds, for a reader who cannot see it
    alt = f"The change in each set, each with its interval: {verdict}"
    texts = {"card-change.csv": _card_change_csv(result),
             "card-change.md": _card_change_markdown(rows, verdict, note, facts, alt),
             "index.html": _card_change_page(rows, verdict, note, facts, png, alt)}
    # the weights file its command plays, beside the command as in each sub-folder
    texts |= _kept_weights_file(result.cards, {*files, *texts, *CARD_CHANGE_FOLDERS})
    for sub in CARD_CHANGE_FOLDERS:
        files |= {f"{sub}/{name}": content for name, content in
                  compare_files(getattr(result, sub), cards_texts.get(sub)).items()}
    write_together(folder, files | {name: text.encode() for name, text in texts.items()})


def card_change_rows(table: pd.DataFrame) -> list[list[str]]:
    """The card change's table as text cells, header first."""
    from analyzer.analysis.card_change import versus_base_band

    rows = [["set", "games", "with the cards", "against", "change", "95% paired", "Holm p",
             "odds ratio", "vs base", "95% (vs base)", "Holm p (vs base)", "differs",
             "multiplied", "odds vs base (95%)", "Holm p (odds)", "differs in odds"]]
    for label, r in table.iterrows():
        base = label == "base"
        short = "*" if not r.get("precise", True) else ""  # max-games came first
        rows.append([str(label), f"{int(r.games):,}{short}", _percent(r.win_rate),
                     _percent(r.against_win_rate), f"{signed_pp(r.difference)} pp",
                     f"{signed_pp(r.diff_low)} to {signed_pp(r.diff_high)} pp",
                     holm_cell(r.holm_p, r.cards_only + r.against_only),
                     "n/a" if pd.isna(r.odds_ratio) else f"{r.odds_ratio:.2f}",
                     "" if base else f"{signed_pp(r.vs_base)} pp",
                     "" if base else versus_base_band(r).replace("pp", " pp"),
                     "" if base else holm_cell(r.vs_base_holm_p, r.vs_base_differing),
                     "" if base else _differs_word(r),
                     "" if base or pd.isna(r.multiplied) else _percent(r.multiplied),
                     *([""] * 3 if base else _odds_versus_base_cells(r))])
    return rows


def _odds_versus_base_cells(r: pd.Series) -> list[str]:
    """A set's odds-scale departure from the base game's change as table cells: the ratio
    of its odds ratio to the base game's with its interval, its Holm p and verdict."""
    if pd.isna(r.odds_vs_base_p):
        return ["n/a: too few wins, losses or games differing", "", ""]
    band = "no game departs" if pd.isna(r.odds_vs_base_low) else \
        f"{r.odds_vs_base_low:.2f} to {r.odds_vs_base_high:.2f}"
    # "more" and "less" read as how hard the change hits where it lowers the odds
    verdict = ("better odds" if r.odds_vs_base > 1 else "worse odds") \
        if r.odds_vs_base_shown else "no"
    return [f"x{r.odds_vs_base:.2f} ({band})", format_p(r.odds_vs_base_holm_p), verdict]


def _differs_word(r: pd.Series) -> str:
    if r.at_bound:
        return "no, at a bound"
    if not r.vs_base_shown:
        return "no"
    return "more wins" if r.vs_base > 0 else "fewer wins"


def card_change_facts(result) -> dict[str, str]:
    """Provenance of a card change: both card sets, where each comparison's pages are, the
    run, and the command that plays it again from its folder."""
    attrs = result.attrs
    facts = {
        "cards": f"{attrs['card_set']} (sha256 {attrs['card_set_sha256']})"
                 f"{_card_file(attrs)}",
        "against": f"{attrs['against_card_set']} (sha256 {attrs['against_card_set_sha256']})"
                   f"{_card_file({'card_set_source': attrs.get('against_card_set_source')})}",
        "comparisons": "each set against the base game with the same cards: cards/index.html "
                       "and against/index.html",
        "variant": f"the {attrs.get('variant', 'solo')} game",
        "policy": policy_fact(attrs, full=True) + (
            "; with the cards compared against: parameters sha256 "
            f"{attrs['against_policy_params_sha256']}"
            if attrs.get("against_policy_params_sha256") != attrs.get("policy_params_sha256")
            else "") + other_parameters_note(result.cards.runs, "card-change.csv",
                                             result.against.runs),
        "games": f"{_games_played([int(n) for n in result.table['games']])} of seed "
                 f"{attrs['seed']}, with each card set",
        **code_facts(attrs),
    }
    if attrs.get("precision") is not None:
        facts["precision"] = precision_fact(
            attrs, "the half-widths of the 95% intervals of its change and of that change's "
                   "departure from the base game's")
    facts["play again"] = _card_change_command(attrs)
    return facts


def _card_change_command(attrs: dict) -> str:
    """The command that plays the card change again from its folder: each card set from
    its comparison's copy of it (``cards/cards.toml``), or the shipped set."""
    words = _compare_words(attrs)
    if isinstance(words, str):
        return words
    if attrs.get("precision") is not None:
        words.append(f"--precision {attrs['precision']!r} --max-games {attrs['max_games']}")
    shipped = default_card_set().digest
    for option, sub, prefix in (("--cards", "cards", ""), ("--against", "against", "against_")):
        if attrs.get(f"{prefix}card_set_sha256") != shipped:  # its folder keeps its file
            words.append(f"{option} {sub}/{COMPARE_CARDS}")
        elif option == "--against":  # the shipped cards, from whatever file they came
            words.append("--against r14")
    return " ".join(words)


def _card_change_csv(result) -> str:
    """card-change.csv: the table, then both card sets and the run's columns (each card
    set's policy parameters' hash among them)."""
    attrs = result.attrs
    table = with_run_columns(result.table, attrs,
                             ("card_set", "card_set_sha256", *VERSION_COLUMNS))
    table["against_card_set"] = attrs["against_card_set"]
    table["against_card_set_sha256"] = attrs["against_card_set_sha256"]
    # a policy that reads the cards into its parameters plays the two card sets, and sets
    # whose cards hold larger values, with others: each set's, as its games played them
    for column, runs in ((PARAMS_KEY, result.cards.runs),
                         (f"against_{PARAMS_KEY}", result.against.runs)):
        table[column] = [runs[label].attrs.get(PARAMS_KEY) for label in table.index]
    return table.to_csv()


def _card_change_markdown(rows: list[list[str]], verdict: str, note: str,
                          facts: dict[str, str], alt: str) -> str:
    lines = [f"# {CARD_CHANGE_TITLE}", "", _md_prose(verdict), "", *md_table_head(rows[0]),
             *(md_row(row) for row in rows[1:]), "", _md_prose(note), "",
             "## The change in each set", "", _md_prose(CARD_CHANGE_CAPTION), "",
             f"![{_md_prose(alt)}](card_change.png)", "", "[SVG](card_change.svg)", "",
             "Data: [card-change.csv](card-change.csv); each card set's comparison of the "
             "sets with the base game: [cards/](cards/index.html), "
             "[against/](against/index.html).", "", "## Provenance", ""]
    lines += [f"- **{k}**: {_md_prose(v)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"


def _card_change_page(rows: list[list[str]], verdict: str, note: str,
                      facts: dict[str, str], png: bytes, alt: str) -> str:
    body = (f"<p id='verdict'>{html.escape(verdict)}</p>" + html_table(rows, "card-change")
            + f"<p>{html.escape(note)}</p>"
            + html_figures({"card_change": png}, [("card_change", "The change in each set")],
                           {"card_change": CARD_CHANGE_CAPTION}, alts={"card_change": alt})
            + "<p>Data: <a href='card-change.csv'>card-change.csv</a>, the chart as <a "
              "href='card_change.svg'>card_change.svg</a>, the same page as <a "
              "href='card-change.md'>card-change.md</a>; each card set's comparison of the "
              "sets with the base game: <a href='cards/index.html'>cards/</a>, <a "
              "href='against/index.html'>against/</a>.</p>")
    return html_page(CARD_CHANGE_TITLE, body, facts)
