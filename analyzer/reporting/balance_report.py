"""``urbion report``: a balance report folder of one or more runs, index.html
(self-contained), report.md, PNG and SVG charts with each chart's numbers as CSV."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from analyzer.analysis import run_stats
from analyzer.analysis.compare import books_chart_note, books_unplayed_note
from analyzer.analysis.interactions import titled_interactions
from analyzer.analysis.results_io import checked_frame, read_run
from analyzer.analysis.run_stats import Run
from analyzer.analysis.totals import Totals
from analyzer.cards import CardSet, default_card_set
from analyzer.errors import UrbionError
from analyzer.reporting import charts
from analyzer.reporting.charts import save_chart
from analyzer.reporting.differences import (
    DIFFERENCES_NOTES,
    DIFFERENCES_TITLE,
    EFFECTS_TITLE,
    RANKING_NOTE,
    ComparedRuns,
    compared_runs,
    differences_csv,
    effects_csv,
    effects_section,
)
from analyzer.reporting.facts import (
    INTERACTION_FILE_COLUMNS,
    card_set_names,
    names_key,
    provenance,
    scope_note,
    shared_attrs,
    with_run_columns,
)
from analyzer.reporting.folders import check_destination, resolved_path, write_folder
from analyzer.reporting.interactions import (
    INTERACTIONS_CAPTION,
    INTERACTIONS_TITLE,
    DrawnInteractions,
    draws_interactions,
    interaction_rows,
    interaction_section_html,
    interaction_section_md,
    interaction_tables,
    interactions_missing,
    interactions_text,
    undrawn_interactions_note,
)
from analyzer.reporting.markup import (
    code_spans,
    extremes,
    html_figures,
    html_page,
    html_table,
    md_prose,
    md_row,
    md_table_head,
    mean_text,
    percent,
)
from analyzer.reporting.names import shared_file, shared_files, shared_policy

if TYPE_CHECKING:  # matplotlib is imported only when a chart is drawn
    from matplotlib.figure import Figure

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
    "interactions": INTERACTIONS_CAPTION,
}


def captions_of(captions: dict[str, str], titles: list[tuple[str, str]]) -> dict[str, str]:
    """``captions`` by the stems of ``titles``: each comparison's interactions chart
    (``interactions-N``) under the interactions' caption."""
    return {stem: captions[key] for stem, _ in titles
            if (key := "interactions" if draws_interactions([(stem, "")]) else stem)
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
    labels = [run_stats.run_label(with_shared_policy(df.attrs), path.stem) for path, df in frames]
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
        resolved = resolved_path(Path(path), f"cannot read {path}")
        if resolved in seen:
            raise UrbionError(f"{path}: given twice (as {seen[resolved]} too): a run "
                              "compared with itself says nothing")
        seen[resolved] = str(path)


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
        rows.append([label, f"{int(r.games):,}", f"{int(r.wins):,}", percent(r.win_rate),
                     f"{percent(r.ci_low)} to {percent(r.ci_high)}",
                     mean_text(r, "turns", 1), mean_text(r, "pacified", 2)])
    return rows


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
    under their ``heading`` (title and notes, :func:`differences.differences_heading`) with the
    ``ranking`` of each base game's sets, each set's ``effects`` on two base games (note
    and rows, :func:`effects_section`), the card sets other than R14
    (``card_set_texts``), charts (PNG, with the SVG and the chart's numbers, ``STEM.csv``,
    linked; a chart's table of ``chart_tables`` under it), each comparison's interactions
    pair by pair (``pairs``: its chart's stem, its title, ``interaction_rows``), provenance;
    without an interactions chart, what one needs when ``interactions_note`` (a text: that
    one)."""
    chart_tables = chart_tables or {}
    titles = titles if titles is not None else [(stem, title) for stem, title, _ in CHARTS]
    lines = ["# Urbion balance report", "", *([md_prose(scope), ""] if scope else []),
             "## Headline", "",
             *md_table_head(rows[0])]
    lines += [md_row(row) for row in rows[1:]]
    lines += ["", HEADLINE_NOTE]
    if differences:
        title, notes = heading or (DIFFERENCES_TITLE, DIFFERENCES_NOTES)
        lines += ["", f"## {title}", "", *(f"- {md_prose(note)}" for note in notes), "",
                  *md_table_head(differences[0])]
        lines += [md_row(row) for row in differences[1:]]
        lines += ["", "[CSV](differences.csv)"]
        if ranking:
            lines += ["", RANKING_NOTE, "", *md_table_head(ranking[0]),
                      *(md_row(row) for row in ranking[1:])]
    if effects:
        lines += ["", f"## {EFFECTS_TITLE}", "", md_prose(effects[0]), "",
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
    if not draws_interactions(titles) and interactions_note:
        lines += ["", f"## {INTERACTIONS_TITLE}", "", interactions_text(interactions_note)]
    lines += ["", "## Provenance", ""] + [f"- **{k}**: {md_prose(v)}" for k, v in facts.items()]
    return "\n".join(lines) + "\n"


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
    body = (f"<p id='scope'>{code_spans(scope)}</p>" if scope else "") + \
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
    if not draws_interactions(titles) and interactions_note:
        body += (f"<h2>{html.escape(INTERACTIONS_TITLE)}</h2>"
                 f"<p>{code_spans(interactions_text(interactions_note))}</p>")
    return html_page("Urbion balance report", body, facts)


def write_report(paths: list[str | Path | pd.DataFrame], out: str | Path,
                 baseline: str = "first") -> Path:
    """Build the report of the results files ``paths`` (or frames ``simulate`` returned)
    into the folder ``out``, each run compared with its ``baseline``
    (:data:`differences.BASELINES`)."""
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
    charts_drawn = _charts_to_draw(runs, table, compared, drawn, len(totals) < len(runs))
    titles = [(stem, title) for stem, title, _ in charts_drawn]
    pair_rows = [(one.stem, one.table_title, interaction_rows(titled_interactions(one.table)))
                 for one in drawn]
    card_sets = card_set_texts(runs, list(dict.fromkeys(
        Path(p).parent for p in paths if not isinstance(p, pd.DataFrame))))
    # only where expansions are played might a reader look for their interactions; with a
    # summary among the runs the note at the top says why there are none
    note = not totals and not drawn and \
        any(df.attrs.get("expansions") for df in runs.values()) and interactions_missing(runs)
    scope = _report_scope(runs, totals, drawn)
    # an interactions file names whose games it is of, as a comparison's does
    pairs_of = {one.stem: with_run_columns(one.table, shared_attrs(one.runs),
                                           INTERACTION_FILE_COLUMNS).reset_index()
                for one in drawn}
    numbers = {stem: pairs_of[stem] if stem in pairs_of
               else _chart_numbers(runs, table, stem) for stem, _ in titles}
    tables = {"loss_reasons": loss_reason_rows(runs)}

    def fill(folder: Path) -> None:
        images = {stem: save_chart(draw(), folder, stem) for stem, _, draw in charts_drawn}
        _write_numbers(folder, numbers, runs, compared)
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


def _write_numbers(folder: Path, numbers: dict[str, pd.DataFrame],
                   runs: dict[str, pd.DataFrame], compared: ComparedRuns) -> None:
    """Each chart's numbers (``numbers``, by stem), the differences and the effects as CSV
    files in ``folder``."""
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


def _charts_to_draw(runs: dict[str, pd.DataFrame], table: pd.DataFrame,
                    compared: ComparedRuns, drawn: list[DrawnInteractions],
                    each_game: bool) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(stem, title, draw) of each chart of the report: the runs' charts, and an
    interactions chart for each comparison among them (``drawn``). A chart of each game's
    figures needs a results file (``each_game``: at least one run is not a summary); one
    drawn beside a summary lists the summary's run without a line."""
    source = chart_source(runs)
    charts_drawn = [(stem, title, (lambda draw=draw: charts.caption(
                        draw(runs, table, compared.chart_against), source)))
                    for stem, title, draw in CHARTS if each_game or stem not in PER_GAME_CHARTS]
    for one in drawn:  # a comparison's chart names its own policy, seed and card set
        charts_drawn.append((one.stem, one.title,
                             lambda one=one: charts.caption(
                                 charts.interactions(titled_interactions(one.table)),
                                 chart_source(one.runs))))
    return charts_drawn


def _report_scope(runs: dict[str, pd.DataFrame], totals: list[str],
                  drawn: list[DrawnInteractions]) -> str:
    """The note at the top of the report: what the runs cover, what the summaries among
    them (``totals``) leave out, the interactions not drawn, the Books, the weights, and
    the expansions' names as the interactions print them."""
    scope = scope_note([df.attrs for df in runs.values()])
    if totals:
        scope += " " + totals_note(totals, len(runs), bool(drawn))
    if undrawn := undrawn_interactions_note(runs, drawn):
        scope += " " + undrawn
    if books_chart_note(runs, "run"):
        note_text = books_unplayed_note(runs, "run")
        scope += f" {note_text[0].upper()}{note_text[1:]}."
    scope += "".join(f" {note}" for note in _weights_notes(runs))
    if drawn:  # the interactions name the expansions as printed, runs as given
        scope += " " + names_key(["+".join(df.attrs.get("expansions") or [])
                                  for df in runs.values()], REPORT_NAMES)
    return scope


def report_alts(table: pd.DataFrame, titles: list[tuple[str, str]]) -> dict[str, str]:
    """The alternative texts of a report's charts whose numbers are in a table of the page
    rather than under the chart (the win rates, the interactions), by stem: what the
    chart finds and where its numbers are, not a file that may not travel with the page."""
    named = dict(titles)
    alts = {}
    if "win_rates" in named:
        found = extremes(table["win_rate"], ("highest", "lowest"), "run")
        alts["win_rates"] = (f"{named['win_rates']}: {found}. Every run's win rate and "
                             "interval are in the headline table above.")
    for stem, title in named.items():
        if draws_interactions([(stem, title)]):
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
        note = weights_note(with_shared_policy(run.attrs))
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


def with_shared_policy(attrs: dict) -> dict:
    """``attrs`` with its policy named as a shared page names it."""
    return {**attrs, "policy": shared_policy(str(attrs["policy"]))} if "policy" in attrs \
        else attrs


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


def chart_source(runs: dict[str, pd.DataFrame]) -> str:
    """The line under a chart of ``runs``: what they share, and what their Books say."""
    books = books_chart_note(runs, "run")
    return charts.source_line(shared_attrs(runs)) + (f"\n{books}" if books else "")


REPORT_NAMES = "the runs name their expansions as --expansions takes them, the interactions by"
