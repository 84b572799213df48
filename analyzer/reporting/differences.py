"""How each run of a report differs from what it is compared with: the differences and
their tests, the odds effects, the ranking, and what else changed between the runs."""

from __future__ import annotations

import dataclasses

import pandas as pd

from analyzer.analysis import run_stats
from analyzer.analysis.compare import UNWEIGHED, books_unplayed
from analyzer.analysis.stats import EDGE_NOTE, ODDS_MIN_OUTCOMES, SIGNIFICANCE, format_p, signed_pp
from analyzer.errors import UrbionError
from analyzer.reporting.facts import PARAMS_KEY, WEIGHTS_KEY, with_run_columns
from analyzer.reporting.markup import percent
from analyzer.reporting.names import shared_policy
from analyzer.runner.config import LATER_KEYS
from analyzer.wording import plural, spoken_list

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
    ``runs``, each run's :data:`facts.RUN_COLUMNS`, expansions and card set's hash: a file
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
                     f"{percent(r.win_rate)} vs {percent(r.against_rate)}",
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
    from analyzer.analysis.expansion_sets import set_label

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
