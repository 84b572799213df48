"""What ``duel``, ``tune``, ``sensitivity`` and ``compare`` return: result objects whose
tables carry the run's configuration."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analyzer import arguments
from analyzer.analysis.duel import format_duel, format_play, play_half_widths, play_table
from analyzer.analysis.stats import EDGE_NOTE, format_p, signed_pp
from analyzer.cards import CardSet
from analyzer.policies.weights import (
    joined_notes,
    plays_r14_cards,
    shipped_weights_note,
    tuned_runs_note,
    tuned_weights_note,
)
from analyzer.wording import plural


def with_run_attrs(table: pd.DataFrame, attrs: dict) -> pd.DataFrame:
    """``table`` with ``attrs`` (a copy) as its own: a table taken out of a result still
    names the run it comes from, and keeps it in a file (``to_parquet`` writes it as
    JSON, which reads tuples back as lists)."""
    table.attrs = copy.deepcopy(attrs)
    return table


@dataclass
class DuelResult:
    """A duel: ``policies`` (one row per policy) and ``pairs`` (one row per pair), both
    DataFrames; ``attrs`` the shared configuration (seed, games, card set), which every
    table also carries as its own ``attrs``; ``runs`` the per-game results of each policy
    by name, game g of each the same deal (to find, say, the deals one policy won and
    another lost)."""

    policies: pd.DataFrame
    pairs: pd.DataFrame
    attrs: dict
    runs: dict[str, pd.DataFrame]

    def __post_init__(self) -> None:
        with_run_attrs(self.policies, self.attrs)
        with_run_attrs(self.pairs, self.attrs)

    @property
    def play(self) -> pd.DataFrame:
        """How each policy plays the deals: mean tallies per game, one column per policy
        (analysis.duel.play_table)."""
        return with_run_attrs(play_table(self.runs), self.attrs)

    @property
    def play_half_widths(self) -> pd.DataFrame:
        """The half-width of the 95% t-interval of each mean of :attr:`play`, in its shape
        (analysis.duel.play_half_widths): each policy's own interval, which does not test
        a difference between two policies (the pairs do, deal by deal)."""
        return with_run_attrs(play_half_widths(self.runs), self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        return format_duel(self.policies, self.pairs, self.attrs) + "\n\n" + \
            format_play(self.play, self.play_half_widths)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` tuned elsewhere,
        plays where its weights were not tuned (other cards, expansions, the team game),
        or a tuned file plays the games it was tuned on; None otherwise."""
        notes = [shipped_weights_note(self.attrs["policies"], not plays_r14_cards(self.attrs),
                                      self.attrs.get("expansions") or [],
                                      self.attrs.get("variant", "solo")),
                 *(tuned_weights_note(run.attrs) for run in self.runs.values())]
        return joined_notes(notes)


@dataclass
class TuneResult:
    """A tuning run: the weights found (the full table), their fitness on the tuning deals,
    the number of candidates played, the held-out comparison with greedy and with the
    start (a DuelResult), the start's name, the weights searched, and a warning when the
    tuned weights did not beat their start on the held-out games (None when they did)."""

    weights: dict[str, float]
    fitness: float
    evaluations: int
    heldout: DuelResult
    start: str = "weighted"
    tuned: tuple[str, ...] = ()
    warning: str | None = None
    #: False when no candidate beat the start on the tuning games (``weights`` are its own)
    improved: bool = True
    #: True when the tuned weights won no more held-out deals than the start (or are its own)
    keep_start: bool = False
    #: the tuning games (0..games-1) and their seed
    games: int = 0
    seed: int = 0
    #: the weights file ``out=`` writes: the weights, how they were made and how they
    #: fared, and what they were tuned on
    file_text: str = field(default="", repr=False)

    def write(self, path: str | Path) -> Path:
        """Write the weights file (``file_text``) that ``out=`` would have written, whole or
        not at all; ``policy=f"weighted:{path}"`` then plays these weights. Returns the
        path."""
        from analyzer.policies.weights import write_weights_text

        return write_weights_text(arguments.path("path", path, optional=False),
                                  self.file_text)

    def text(self, warning: bool = True) -> str:
        """The result as text; ``warning`` False leaves out the warning and the advice to
        keep the start, which the CLI writes on lines of their own."""
        kept = (f" (the others keep {self.start}'s values: no game of this set feels them)"
                if len(self.tuned) < len(self.weights) else "")
        did = "searched" if not self.improved else "tuned"
        lines = [f"{did} {len(self.tuned)} weights from {self.start}'s on games 0-"
                 f"{self.games - 1} of seed {self.seed}: {', '.join(self.tuned)}{kept}",
                 f"{self.evaluations} candidates, best fitness {self.fitness:.4f} on those "
                 f"games (the best of {self.evaluations} tries on the same games, win rate "
                 "plus a small pacified term: not an estimate)",
                 "held-out comparison (games never seen in tuning: the estimate):",
                 str(self.heldout)]
        if warning and self.warning:
            lines.append(f"warning: {self.warning}")
        if warning and self.keep_start:
            lines.append(f"{self.start} is the one to play: these weights did no better")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)


#: The key of the baseline's games and cards in a :class:`SensitivityResult`.
BASELINE_KEY = ("baseline", "")


@dataclass
class SensitivityResult:
    """The baseline's summary (with its configuration, its level of each factor in
    ``baseline_levels`` and what the variants change besides their factor in
    ``side_effects``) and one row per card-set variant: win rate, its interval, and the
    change from the baseline with its interval; a variant not played has its reason in
    ``note``. ``runs``: each card set's games, as ``simulate`` returns them, the baseline's
    under ``("baseline", "")`` and each variant's played under its row's ``(factor,
    level)``; ``card_sets``: the card sets, keyed alike, to play further or write out
    (``write_card_template``). The table carries the baseline as its ``attrs``."""

    baseline: dict
    table: pd.DataFrame
    runs: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict, repr=False)
    card_sets: dict[tuple[str, str], CardSet] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        with_run_attrs(self.table, self.baseline)

    def figure(self):
        """The effects with their intervals as a matplotlib Figure."""
        from analyzer.reporting.sensitivity_pages import sensitivity_figure

        return sensitivity_figure(self.table, self.baseline)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` with a [tuned]
        table, plays the analysis (its variants are other cards than those the weights
        were tuned on), or its baseline plays a file's tuning games; None otherwise."""
        from analyzer.reporting.sensitivity_pages import sensitivity_weights_note

        return sensitivity_weights_note(self.baseline)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        b = self.baseline
        lines = [f"baseline   {b['card_set']} (sha256 {b['card_set_sha256'][:12]}): "
                 f"{b['win_rate']:.2%} (95% Wilson interval {b['ci_low']:.2%} to "
                 f"{b['ci_high']:.2%}), policy {b['policy']}, expansions "
                 f"{', '.join(b.get('expansions') or []) or 'none'}, the "
                 f"{b.get('variant', 'solo')} game, {plural(b['games'], 'game')}, "
                 f"seed {b['seed']}", ""]
        width = max([58, *(len(level) for level in self.table.get("level", []))])
        lines += [f"{'factor':<16} {'level':<{width}} {'win rate':>9} "
                  f"{'change (95% paired)':>30} {'Holm p':>9}"]
        lines += [_sensitivity_line(r, width) for r in self.table.itertuples()]
        if len(self.table):
            lines += ["", *_sensitivity_notes(b, self.table)]
        return "\n".join(lines)


def _sensitivity_line(r: tuple, width: int) -> str:
    """One variant of the printed table (levels ``width`` wide): its figures, or why it
    was not played."""
    if not getattr(r, "played", True):
        return f"{r.factor:<16} {r.level:<{width}} {r.note}"
    change = (f"{signed_pp(r.effect)} pp ({signed_pp(r.effect_low)} to "
              f"{signed_pp(r.effect_high)})")
    return (f"{r.factor:<16} {r.level:<{width}} {r.win_rate:>9.2%} {change:>30} "
            f"{format_p(r.holm_p):>9}")


def _sensitivity_notes(baseline: dict, table: pd.DataFrame) -> list[str]:
    """Under the printed table: Holm's p, the baseline's levels, what else a factor moves."""
    from analyzer.analysis.sensitivity import (
        BASELINE_LEVELS,
        baseline_label,
        baseline_side_effects,
        level_heading,
        played_mask,
        variants_family,
    )

    played = int(played_mask(table).sum())
    label = baseline_label(baseline["card_set"], baseline["card_set_sha256"])
    # a baseline summary without them (one built by hand) is the shipped set's
    levels = baseline.get("baseline_levels", BASELINE_LEVELS)
    side_effects = baseline_side_effects(baseline)
    heading = level_heading(label, "levels")
    lines = [f"{heading[0].upper()}{heading[1:]}: "
             + "; ".join(f"{factor} {level}" for factor, level in levels.items())]
    if played:
        lines.insert(0, f"Holm p: McNemar's exact p adjusted over "
                        f"{variants_family(table)}; a variant moves the win rate "
                        "(for this policy), with the family error held at 5%, when its Holm p "
                        "is below 0.05 (the intervals are not adjusted). " + EDGE_NOTE)
    return lines + ([side_effects] if side_effects else [])


@dataclass
class CompareResult:
    """Expansion sets on games paired by number: ``table`` (one row per set, the base game first;
    analysis.compare.compare_table), ``interactions`` (one row per pair of expansions: the
    pair effect minus the single effects, with its interval; analysis.interactions.interactions),
    ``runs`` (the per-game results of each set) and ``attrs`` (the shared configuration,
    which both tables also carry as their own ``attrs``)."""

    table: pd.DataFrame
    interactions: pd.DataFrame
    runs: dict[str, pd.DataFrame]
    attrs: dict

    def __post_init__(self) -> None:
        self.name_tables()

    def name_tables(self) -> None:
        """Give both tables a copy of ``attrs`` (again, once ``attrs`` changed)."""
        with_run_attrs(self.table, self.attrs)
        with_run_attrs(self.interactions, self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def weights_note(self) -> str | None:
        """A note when the shipped weighted policy, or a ``weighted:FILE`` with a [tuned]
        table, plays sets where its weights were not tuned (each expansion set would need
        its own tune), or a set plays a file's tuning games; None otherwise."""
        notes = [shipped_weights_note([self.attrs["policy"]],
                                      not all(plays_r14_cards(run.attrs)
                                              for run in self.runs.values()),
                                      [s for s in self.attrs["sets"] if s != "base"],
                                      self.attrs.get("variant", "solo"), per_set=True),
                 tuned_runs_note({label: run.attrs for label, run in self.runs.items()},
                                 "set", "`urbion tune --expansions SET` for each set (with "
                                 "the same --cards and --variant)")]
        return joined_notes(notes)

    def __str__(self) -> str:
        from analyzer.analysis.compare import books_unplayed, books_unplayed_note, format_compare
        from analyzer.analysis.interactions import format_interactions

        books = books_unplayed_note(self.runs)
        pairs = format_interactions(self.interactions)
        return format_compare(self.table, self.attrs, books_unplayed(self.runs)) + \
            (f"\n\n{books}" if books else "") + (f"\n\n{pairs}" if pairs else "")

    def figures(self) -> dict:
        """The comparison's charts as matplotlib Figures, by file stem."""
        from analyzer.analysis.compare import chart_members, chart_table
        from analyzer.analysis.expansion_sets import BASE, set_title
        from analyzer.analysis.interactions import titled_interactions
        from analyzer.reporting import charts

        shown, members = chart_table(self.table), chart_members(self.table)
        figures = {"win_rates": charts.win_rates(shown, set_title(BASE), members),
                   "differences": charts.differences(shown.drop(index=set_title(BASE)),
                                                     members)}
        if len(self.interactions):
            figures["interactions"] = charts.interactions(titled_interactions(self.interactions))
        source = charts.source_line(self.attrs)
        notes = self.chart_notes(list(figures))
        return {stem: charts.caption(fig, "\n".join([source, *notes[stem]]))
                for stem, fig in figures.items()}

    def chart_notes(self, stems: list[str], books: bool = True) -> dict[str, list[str]]:
        """What each chart of ``stems`` says under it besides its source, by stem: the
        mark of a set stopped at max-games where it names one, the uneven numbers of games
        under the win rates and the changes, and with ``books`` the sets that kept no Book;
        the pages' captions say the others too."""
        from analyzer.analysis.compare import (
            books_chart_note,
            imprecise_note,
            uneven_games_note,
            uneven_pairs_note,
        )
        from analyzer.analysis.expansion_sets import BASE, set_title
        from analyzer.reporting import charts

        # the sets each chart names: one that marks a set stopped at max-games explains
        # the mark, as the table does
        named = {"win_rates": self.table, "differences": self.table.drop(index=BASE)}
        books = books_chart_note({set_title(label): run for label, run in self.runs.items()}) \
            if books else ""
        uneven = {"win_rates": uneven_games_note(self.table),
                  "differences": uneven_pairs_note(self.table)}
        return {stem: [*([imprecise_note(self.attrs)] if stem in named and
                         charts.marks_imprecise(named[stem]) else []),
                       *([uneven[stem]] if uneven.get(stem) else []),
                       *([books] if books else [])] for stem in stems}


@dataclass
class CardChangeResult:
    """A change of the cards across expansion sets (``compare(against=...)``): ``table``
    (one row per set, the base game first; analysis.card_change.card_change_table), the
    comparisons of the sets with each card set, ``cards`` and ``against``
    (:class:`CompareResult`, each set against the base game of the same cards), and
    ``attrs`` (the shared configuration, both card sets named; the table's ``attrs`` too)."""

    table: pd.DataFrame
    cards: CompareResult
    against: CompareResult
    attrs: dict

    def __post_init__(self) -> None:
        with_run_attrs(self.table, self.attrs)

    def __repr__(self) -> str:  # a notebook shows the result, not its fields' dumps
        return str(self)

    def __str__(self) -> str:
        from analyzer.analysis.card_change import format_card_change

        books = self.books_note()
        return format_card_change(self.table, self.attrs, list(self._unweighed_books())) + \
            (f"\n\n{books}" if books else "")

    def books_note(self) -> str:
        """The note of the sets with Books of Power where the policy kept no Book with
        either card set: their change is the base game's games' ("": none)."""
        from analyzer.analysis.compare import books_unplayed_note

        return books_unplayed_note(self._unweighed_books())

    def _unweighed_books(self) -> dict[str, pd.DataFrame]:
        """The runs, with the cards, of the sets with Books of Power where the policy kept
        no Book with either card set, by set label."""
        from analyzer.analysis.compare import books_unplayed

        both = set(books_unplayed(self.cards.runs)) & set(books_unplayed(self.against.runs))
        return {label: run for label, run in self.cards.runs.items() if label in both}

    def weights_note(self) -> str | None:
        """The notes of either comparison on the weights a policy plays, once each."""
        notes = [note for result in (self.cards, self.against)
                 if (note := result.weights_note())]
        return "\n".join(dict.fromkeys(notes)) or None

    def figures(self) -> dict:
        """The change's chart as a matplotlib Figure, by file stem."""
        from analyzer.analysis.card_change import chart_rows, precision_notes
        from analyzer.analysis.compare import books_chart_note
        from analyzer.analysis.expansion_sets import BASE, set_title
        from analyzer.reporting import charts

        table, members = chart_rows(self.table)
        fig = charts.card_change(table, set_title(BASE), self.attrs, members)
        # as the table: the mark of a set stopped at max-games, and against which of the
        # base game's games a set that stopped before it is weighed; the sets that kept no
        # Book, whose change is the base game's
        notes = precision_notes(self.table, self.attrs)
        books = books_chart_note({set_title(label): run
                                  for label, run in self._unweighed_books().items()})
        notes += [books] if books else []
        return {"card_change": charts.caption(
            fig, "\n".join([charts.card_change_source(self.attrs), *notes]))}
