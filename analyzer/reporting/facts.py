"""What every page says of how its runs were played: card sets, policies and their
weights, rules, code and software, the command to play them again, and the columns a CSV
file names them by."""

from __future__ import annotations

import datetime
import shlex

import pandas as pd

from analyzer.analysis.results_io import command_policy_name
from analyzer.reporting.names import shared_file, shared_policy
from analyzer.wording import spoken_list


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


def provenance(runs: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Where the numbers come from: card set, runs, versions, commit, date."""
    first = next(iter(runs.values())).attrs
    names = card_set_names([df.attrs for df in runs.values()])
    card_sets = dict.fromkeys(f"{df.attrs.get('card_set')} (sha256 "
                              f"{df.attrs.get('card_set_sha256')}){card_file_words(df.attrs)}"
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


def card_file_words(attrs: dict) -> str:
    """", from FILE" for a card set a run read from a file (not the shipped one)."""
    source = str(attrs.get("card_set_source") or "")
    return f", from {shared_file(source)}" if source and not source.startswith("builtin:") \
        else ""


def cards_words(attrs: dict) -> str | None:
    """``--cards FILE`` that plays a run's cards again: the file its folder keeps
    (``cards_file``), else the file it was given, by name; None for the shipped set."""
    if attrs.get("cards_file"):
        return f"--cards {shlex.quote(attrs['cards_file'])}"
    source = str(attrs.get("card_set_source", ""))
    if source and not source.startswith("builtin:"):
        return f"--cards {shlex.quote(shared_file(source))}"
    return None


def _pieces(attrs: dict) -> str:
    """Of how many results files a joined run is made, for its provenance line."""
    pieces = attrs.get("joined_files", 1)
    return f" (joined from {pieces} files)" if pieces > 1 else ""


#: A policy's parameters as fitted to the run's cards, and as given (fitted to R14's).
PARAMS_KEY, WEIGHTS_KEY = "policy_params_sha256", "policy_weights_sha256"


def shared_attrs(runs: dict[str, pd.DataFrame]) -> dict:
    """The configuration every run shares (card set, seed, variant, ...): what a chart of
    all of them can name once."""
    first, *others = [df.attrs for df in runs.values()]
    shared = {key: value for key, value in first.items()
              if all(other.get(key) == value for other in others)}
    if "card_set_sha256" not in shared:  # one name, other cards: not one card set
        shared.pop("card_set", None)
    return shared


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


def policy_words(attrs: dict) -> str | None:
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
    from analyzer.analysis.expansion_sets import BASE

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


def games_played_words(games: list[int] | None) -> str:
    """Which games of the seed the sets played: all from game 0, as many as each's row
    says when they differ (``--precision``)."""
    if not games:
        return "games from 0"
    if len(set(games)) == 1:
        return f"games 0-{games[0] - 1:,} for every set"
    return (f"games 0 to {min(games) - 1:,} for the shortest set and 0 to "
            f"{max(games) - 1:,} for the longest (each set's games column)")


def kept_weights_file(result, taken: set[str]) -> dict[str, str]:
    """The weights file a comparison's policy plays (``weighted:FILE``, a look-ahead's
    ``weights=FILE``), by the name its play-again command gives it, so that the command
    runs from the folder as it reads: its own name, or where a page of the folder has that
    name (``taken``) ``weights-NAME``; none for the shipped weights."""
    kept = {str(run.attrs.get("policy_weights_file")) for run in result.runs.values()
            if isinstance(run.attrs.get("policy_weights_file"), str)}
    name = weights_name(result)
    if len(kept) != 1 or name is None or not name.endswith(".toml") or "/" in name:
        return {}
    return {f"weights-{name}" if name in taken else name: kept.pop()}


def weights_name(result) -> str | None:
    """The name a comparison's play-again command gives the weights file its policy
    plays, or None."""
    from analyzer.policies.registry import weights_file_of

    return weights_file_of(shared_policy(str(result.attrs.get("policy", ""))))


#: Who names the expansions how, on a comparison's pages and on a report's.
COMPARE_NAMES = "the tables name a set as --sets takes it, the charts by"


def names_key(sets, who: str = COMPARE_NAMES) -> str:
    """How the names of the expansions in ``sets`` (as ``--sets`` takes them, joined by
    +) are the printed names, ``who`` saying where each is used; "" with the base game
    alone."""
    from analyzer.analysis.expansion_sets import EXPANSION_TITLES, SET_SEPARATOR

    played = {name for label in sets for name in str(label).split(SET_SEPARATOR)}
    named = [f"{name}: {title}" for name, title in EXPANSION_TITLES.items() if name in played]
    if not named:
        return ""
    return f"Names: {who} the expansions' printed names ({'; '.join(named)})."
