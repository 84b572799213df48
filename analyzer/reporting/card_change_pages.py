"""The pages of ``urbion compare --against``: what a card change does in each set, and
whether it differs from the base game's."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from analyzer.analysis.stats import EDGE_NOTE, format_p, holm_cell, signed_pp
from analyzer.atomic import write_together
from analyzer.cards import default_card_set
from analyzer.reporting.charts import chart_files
from analyzer.reporting.compare_pages import COMPARE_CARDS, compare_files, compare_words
from analyzer.reporting.facts import (
    PARAMS_KEY,
    VERSION_COLUMNS,
    card_file_words,
    code_facts,
    games_played_words,
    kept_weights_file,
    other_parameters_note,
    policy_fact,
    precision_fact,
    with_run_columns,
)
from analyzer.reporting.markup import (
    as_sentence,
    html_figures,
    html_page,
    html_table,
    md_prose,
    md_row,
    md_table_head,
    percent,
)

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
                        *([as_sentence(books)] if (books := result.books_note()) else [])])
    note = (f"change: the win rate with the cards minus against them over the same games, "
            f"in percentage points; Holm p: McNemar's exact p adjusted over the sets (—: "
            f"no game differs, a test that cannot reject, left out); odds "
            f"ratio: the change as a ratio of the odds of winning. {VERSUS_BASE_NOTE} "
            f"{MULTIPLIED_NOTE} {ODDS_VERSUS_BASE_NOTE} {EDGE_NOTE}")
    note = " ".join([note, *(as_sentence(n) for n in
                             precision_notes(result.table, result.attrs))])
    png = files["card_change.png"]
    # what the chart finds, for a reader who cannot see it
    alt = f"The change in each set, each with its interval: {verdict}"
    texts = {"card-change.csv": _card_change_csv(result),
             "card-change.md": _card_change_markdown(rows, verdict, note, facts, alt),
             "index.html": _card_change_page(rows, verdict, note, facts, png, alt)}
    # the weights file its command plays, beside the command as in each sub-folder
    texts |= kept_weights_file(result.cards, {*files, *texts, *CARD_CHANGE_FOLDERS})
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
        rows.append([str(label), f"{int(r.games):,}{short}", percent(r.win_rate),
                     percent(r.against_win_rate), f"{signed_pp(r.difference)} pp",
                     f"{signed_pp(r.diff_low)} to {signed_pp(r.diff_high)} pp",
                     holm_cell(r.holm_p, r.cards_only + r.against_only),
                     "n/a" if pd.isna(r.odds_ratio) else f"{r.odds_ratio:.2f}",
                     "" if base else f"{signed_pp(r.vs_base)} pp",
                     "" if base else versus_base_band(r).replace("pp", " pp"),
                     "" if base else holm_cell(r.vs_base_holm_p, r.vs_base_differing),
                     "" if base else _differs_word(r),
                     "" if base or pd.isna(r.multiplied) else percent(r.multiplied),
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
                 f"{card_file_words(attrs)}",
        "against": f"{attrs['against_card_set']} (sha256 {attrs['against_card_set_sha256']})"
                   f"{card_file_words({'card_set_source': attrs.get('against_card_set_source')})}",
        "comparisons": "each set against the base game with the same cards: cards/index.html "
                       "and against/index.html",
        "variant": f"the {attrs.get('variant', 'solo')} game",
        "policy": policy_fact(attrs, full=True) + (
            "; with the cards compared against: parameters sha256 "
            f"{attrs['against_policy_params_sha256']}"
            if attrs.get("against_policy_params_sha256") != attrs.get("policy_params_sha256")
            else "") + other_parameters_note(result.cards.runs, "card-change.csv",
                                             result.against.runs),
        "games": f"{games_played_words([int(n) for n in result.table['games']])} of seed "
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
    words = compare_words(attrs)
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
    lines = [f"# {CARD_CHANGE_TITLE}", "", md_prose(verdict), "", *md_table_head(rows[0]),
             *(md_row(row) for row in rows[1:]), "", md_prose(note), "",
             "## The change in each set", "", md_prose(CARD_CHANGE_CAPTION), "",
             f"![{md_prose(alt)}](card_change.png)", "", "[SVG](card_change.svg)", "",
             "Data: [card-change.csv](card-change.csv); each card set's comparison of the "
             "sets with the base game: [cards/](cards/index.html), "
             "[against/](against/index.html).", "", "## Provenance", ""]
    lines += [f"- **{k}**: {md_prose(v)}" for k, v in facts.items()]
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
