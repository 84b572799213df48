"""The pages of ``urbion compare``: each set against the base game, with its charts,
tables and interactions."""

from __future__ import annotations

import html
import shlex
from pathlib import Path

import pandas as pd

from analyzer.analysis.compare import (
    books_unplayed,
    books_unplayed_note,
    sets_family,
    verdict_line,
)
from analyzer.analysis.interactions import titled_interactions
from analyzer.analysis.results_io import NO_COMMAND
from analyzer.analysis.stats import EDGE_NOTE, format_p, signed_pp
from analyzer.atomic import write_together
from analyzer.reporting.charts import chart_files
from analyzer.reporting.differences import PAIRING_SHORT
from analyzer.reporting.facts import (
    INTERACTION_FILE_COLUMNS,
    VERSION_COLUMNS,
    WEIGHTS_KEPT_AS,
    card_file_words,
    cards_words,
    code_facts,
    games_played_words,
    kept_weights_file,
    names_key,
    other_parameters_note,
    policy_fact,
    policy_words,
    precision_fact,
    scope_note,
    weights_name,
    with_run_columns,
)
from analyzer.reporting.interactions import (
    INTERACTIONS_CAPTION,
    interaction_rows,
    interaction_section_html,
    interaction_section_md,
)
from analyzer.reporting.markup import (
    as_sentence,
    capped_list,
    code_spans,
    extremes,
    html_figures,
    html_page,
    html_table,
    md_prose,
    md_row,
    md_table_head,
    mean_text,
    page_note,
    percent,
    shared_note,
)
from analyzer.reporting.names import shared_policy
from analyzer.wording import spoken_list


def compare_rows(table: pd.DataFrame) -> list[list[str]]:
    """The comparison table as text cells, header first."""
    from analyzer.analysis.compare import holm_text, rank_text

    rows = [["set", "games", "win rate", "95% Wilson interval", "vs base",
             "95% interval (paired, Newcombe)", "McNemar p", "Holm p",
             "mean turns (95% interval)", "rank"]]
    for label, r in table.iterrows():
        base = label == "base"
        short = "*" if not r.get("precise", True) else ""  # max-games came first
        rows.append([label, f"{int(r.games):,}{short}", percent(r.win_rate),
                     f"{percent(r.ci_low)} to {percent(r.ci_high)}",
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


def compare_words(attrs: dict) -> list[str] | str:
    """The words that start the command of a comparison (sets, games, seed, policy,
    variant), or the sentence that says no command plays its policy again."""
    policy = policy_words(attrs)
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
    parts = compare_words(attrs)
    if isinstance(parts, str):
        return parts
    if attrs.get("precision") is not None:
        parts.append(f"--precision {attrs['precision']!r} --max-games {attrs['max_games']}")
    if cards := cards_words(attrs):
        parts.append(cards)
    return " ".join(parts)


def _sets_option(labels: list[str]) -> str:
    """``--sets`` for a comparison of the sets ``labels``, in their order: ``singles``,
    ``pairs`` or ``all`` when it is exactly one of those (all 128 sets are 5,700
    characters listed), else the list."""
    from analyzer.analysis.expansion_sets import expansion_sets, set_label

    for name in ("singles", "pairs", "all"):
        if labels == [set_label(s) for s in expansion_sets(name)]:
            return name
    return ",".join(labels)


def compare_facts(attrs: dict, games: list[int] | None = None) -> dict[str, str]:
    """Provenance of a comparison whose sets played ``games`` games each (in the table's
    order; None: not said)."""
    facts = {
        "card set": f"{attrs['card_set']} (sha256 {attrs['card_set_sha256']})"
                    f"{card_file_words(attrs)}" + (f"; {attrs['cards_file']}, in this folder, "
                                                   "holds its cards"
                                                   if attrs.get("cards_file") else ""),
        "variant": f"the {attrs.get('variant', 'solo')} game",
        "policy": policy_fact(attrs, full=True),
        "games": f"{games_played_words(games)} of seed {attrs['seed']}, in batches of "
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
    "interactions": INTERACTIONS_CAPTION,
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
    weights = kept_weights_file(result, pages)
    if weights and weights_name(result) not in weights:  # kept under another name
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
                                                 *(as_sentence(n) for n in notes[stem])])
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


def compare_alts(result, stems: list[str]) -> dict[str, str]:
    """Each comparison chart's alternative text, by stem: what it finds, for a reader who
    cannot see it, and where its numbers are."""
    from analyzer.analysis.compare import chart_table, difference_groups
    from analyzer.analysis.expansion_sets import BASE, set_title
    from analyzer.analysis.interactions import with_verdicts

    shown = chart_table(result.table)
    others = shown.drop(index=set_title(BASE), errors="ignore")
    alts = {}
    if "win_rates" in stems:
        text = f"{COMPARE_TITLES['win_rates']}"
        if BASE in result.table.index:
            text += f": the base game {percent(result.table.at[BASE, 'win_rate'])}"
        if len(others):
            text += "; " + extremes(others["win_rate"], ("easiest", "hardest"), "other set",
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
        parts = [f"{what} than the base game, with Holm p below 0.05: {capped_list(names)}"
                 for what, names in (("harder", groups["harder"]),
                                     ("easier", groups["easier"])) if names]
        if groups["none"]:
            parts.append(f"no difference shown: {capped_list(groups['none'])}")
        if apart:
            parts.append(f"not weighed, no Book of Power kept in any game: {capped_list(apart)}")
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
        text = (f"interactions shown: {capped_list(found)}" if found else
                "no interaction shown")
        alts["interactions"] = (f"{COMPARE_TITLES['interactions']}, {len(pairs)} "
                                f"pair{'' if len(pairs) == 1 else 's'}: {text}."
                                + (" Every pair's numbers are in the table of interactions "
                                   "below." if len(pairs) else ""))
    return alts


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
    lines = [f"# {title}", "", *([md_prose(scope), ""] if scope else []),
             *([md_prose(verdict), ""] if verdict else []), *md_table_head(rows[0])]
    lines += [md_row(row) for row in rows[1:]]
    if note:
        lines += ["", note]
    for stem in images:
        lines += ["", f"## {COMPARE_TITLES[stem]}", "", md_prose(captions[stem]), "",
                  f"![{md_prose(alts[stem])}]({stem}.png)", "", f"[SVG]({stem}.svg)"]
    lines += interaction_section_md(pairs)
    with_pairs = bool(pairs and len(pairs) > 1)
    lines += ["", "Data: [compare.csv](compare.csv), "
              + ("[interactions.csv](interactions.csv), " if with_pairs else "")
              + "per-game results in `results/`.", "", "## Provenance", ""]
    lines += [f"- **{k}**: {md_prose(v)}" for k, v in facts.items()]
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
                     (f"<p id='scope'>{code_spans(scope)}</p>" if scope else "")
                     + (f"<p id='verdict'>{html.escape(verdict)}</p>" if verdict else "")
                     + html_table(rows, "compare")
                     + (f"<p>{html.escape(note)}</p>" if note else "")
                     + html_figures(images, titles, captions or COMPARE_CAPTIONS,
                                    alts=alts)
                     + interaction_html + data, facts)
