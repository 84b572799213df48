"""The pages of ``urbion sensitivity``: the win rate's response to each card-set factor."""

from __future__ import annotations

import datetime
import html
from pathlib import Path

import pandas as pd

from analyzer.analysis.results_io import NO_COMMAND
from analyzer.analysis.sensitivity import (
    SHIPPED_LABEL,
    baseline_label,
    baseline_side_effects,
    level_heading,
    played_mask,
    variants_family,
)
from analyzer.analysis.stats import EDGE_NOTE, format_p, signed_pp
from analyzer.reporting import charts
from analyzer.reporting.charts import save_chart
from analyzer.reporting.facts import (
    NO_COMMIT,
    cards_words,
    policy_fact,
    policy_words,
    rules_fact,
    with_run_columns,
)
from analyzer.reporting.folders import check_destination, write_folder
from analyzer.reporting.markup import (
    code_spans,
    html_figures,
    html_page,
    html_table,
    md_prose,
    md_row,
    md_table_head,
    page_note,
    shared_note,
)
from analyzer.reporting.names import shared_file, shared_policy

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


def _baseline_label(baseline: dict) -> str:
    """The baseline card set as the texts name it: R14, or its name and short hash."""
    return baseline_label(baseline["card_set"], baseline["card_set_sha256"])


def _sensitivity_rows(table: pd.DataFrame, label: str = SHIPPED_LABEL) -> list[list[str]]:
    """The effect table as text cells, header first, with McNemar's p and its Holm
    adjustment over the variants; a variant not played says why in its change cell.
    ``label``: the baseline set as the texts name it."""

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
    policy = policy_words(baseline)
    if policy is None:
        return NO_COMMAND.format(shared_policy(str(baseline.get("policy"))))
    parts = [f"urbion sensitivity --games {baseline['games']} --seed {baseline['seed']} "
             f"{policy}"]
    if baseline.get("expansions"):
        parts.append(f"--expansions {','.join(baseline['expansions'])}")
    if baseline.get("variant", "solo") != "solo":
        parts.append(f"--variant {baseline['variant']}")
    if cards := cards_words(baseline):
        parts.append(cards)
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
    lines += [f"- **{k}**: {md_prose(v)}" for k, v in facts.items()]
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


def sensitivity_page(table: pd.DataFrame, baseline: dict, png: bytes) -> str:
    """index.html of a sensitivity analysis: self-contained, the chart embedded, the
    baseline first."""
    facts = _sensitivity_facts(table, baseline)
    body = (f"<p id='baseline'>{code_spans(_baseline_sentence(baseline, facts))}</p>"
            + html_table(_sensitivity_rows(table, _baseline_label(baseline)), "sensitivity")
            + f"<p>{html.escape(sensitivity_note(table, baseline))}</p>"
            + html_figures({"sensitivity": png}, [("sensitivity", "Win-rate change")])
            + "<p>Data: <a href='sensitivity.csv'>sensitivity.csv</a>, the chart as <a "
              "href='sensitivity.svg'>sensitivity.svg</a>, the same page as <a "
              "href='sensitivity.md'>sensitivity.md</a>"
            + (f", the baseline's cards as <a href='{BASELINE_CARDS}'>{BASELINE_CARDS}</a>"
               if baseline.get("cards_file") else "") + ".</p>")
    return html_page(SENSITIVITY_TITLE, body, facts)
