"""Interactions on a page: the tables of what two expansions do together beyond what each
does alone, for a report and a comparison, and the notes on those not drawn."""

from __future__ import annotations

import dataclasses
import html

import pandas as pd

from analyzer.analysis.interactions import (
    INTERACTION_SHOWN_NOTE,
    INTERACTION_TEST_NOTE,
    ODDS_INTERACTION_NOTE,
)
from analyzer.analysis.run_stats import Run
from analyzer.analysis.stats import format_p, signed_pp
from analyzer.analysis.totals import Totals
from analyzer.reporting.differences import changed_keys
from analyzer.reporting.markup import html_table, md_row, md_table_head, percent
from analyzer.wording import spoken_list

INTERACTIONS_TITLE = "Pairwise interactions of expansions"

#: The caption of an interactions chart, in a report and a comparison.
INTERACTIONS_CAPTION = ("For each pair of expansions, the pair's change of the win rate from "
                        "the base game minus the two changes of each expansion alone, in "
                        "percentage points, with its 95% interval: near zero, the two add up; "
                        "blue, together they leave more games won than the two alone say; red, "
                        "fewer; grey, no interaction shown: Holm's adjustment over the pairs "
                        "finds none, or the interval holds zero, which does not rule out one as "
                        "large as the interval's ends, or the pair is at the 0% floor (its "
                        "single effects added up would take the win rate below 0%, so it reads "
                        "positive whatever it does).")


INTERACTIONS_NOTE = ("The interaction of two expansions (the pair's effect on the win rate "
                     "minus the two single effects, each against the base game on the same "
                     "games) needs results of the base game, of each expansion alone and of "
                     "the pairs, all with one policy, seed and card set "
                     "(`urbion compare --sets pairs --out DIR` writes them).")


def draws_interactions(titles: list[tuple[str, str]]) -> bool:
    """Whether the charts of ``titles`` (stem, title) hold an interaction heatmap."""
    return any(stem == "interactions" or stem.startswith("interactions-")
               for stem, _ in titles)


def interactions_text(note: bool | str) -> str:
    """The interactions section's text where none is drawn: ``note`` if a text, else what
    they need."""
    return note if isinstance(note, str) else INTERACTIONS_NOTE


def interactions_missing(runs: dict[str, pd.DataFrame]) -> bool | str:
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
    from analyzer.analysis.expansion_sets import set_label
    from analyzer.analysis.interactions import interactions

    by_set = {set_label(tuple(df.attrs.get("expansions") or [])): df
              for df in runs.values()}
    if len(comparison_groups(runs)) != 1 or len(by_set) != len(runs) or "base" not in by_set:
        return None
    table = interactions(by_set)
    table = table[table["games"] > 0]  # a pair whose four sets share no game is not drawn
    return table if len(table) else None


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
    """An ``analysis.interactions.interactions`` table as text cells, header first."""
    from analyzer.analysis.interactions import (
        interaction_band,
        interaction_verdict,
        odds_interaction_cell,
        odds_interaction_verdict,
        with_verdicts,
    )

    table = with_verdicts(table)
    rows = [["pair", "games", "interaction", "95% interval", "Holm p", "shown",
             "pair win rate", "if the effects multiplied", "in odds (95%)", "Holm p (odds)",
             "shown in odds"]]
    for label, r in table.iterrows():
        if r.games > 0:
            rows.append([label, f"{int(r.games):,}", f"{signed_pp(r.interaction)} pp",
                         interaction_band(r.low, r.high, " pp", r.get("differing")),
                         format_p(r.holm_p), interaction_verdict(r),
                         percent(r.pair_win_rate),
                         percent(r.multiplied) if pd.notna(r.multiplied) else "n/a",
                         odds_interaction_cell(r),
                         format_p(r.get("odds_holm_p", float("nan"))),
                         odds_interaction_verdict(r)])
    return rows
