"""The Markdown and HTML pieces every page is built of: tables, figures with their numbers,
the page itself, and the small wordings of numbers they share."""

from __future__ import annotations

import base64
import html
import re

import pandas as pd

from analyzer.wording import one_line, spoken_list


def percent(x: float) -> str:
    return f"{x:.2%}"


def mean_text(row: pd.Series, key: str, decimals: int) -> str:
    """A mean with its 95% interval, "24.9 (24.7 to 25.1)", from ``mean_KEY``,
    ``KEY_low`` and ``KEY_high``; the mean alone where there is no interval."""
    mean = f"{row[f'mean_{key}']:.{decimals}f}"
    low, high = row.get(f"{key}_low", float("nan")), row.get(f"{key}_high", float("nan"))
    if pd.isna(low) or pd.isna(high):
        return mean
    return f"{mean} ({low:.{decimals}f} to {high:.{decimals}f})"


def md_row(cells: list[str]) -> str:
    """A Markdown table row; a cell's own ``|``, and whatever would open HTML markup or an
    entity (a card set's name may hold them), are escaped, so that they neither split the
    row nor become markup; other text, such as a p-value "<1e-300", stays as written."""
    return "| " + " | ".join(_md_cell(cell) for cell in cells) + " |"


def _md_cell(text: str) -> str:
    return md_prose(text).replace("|", "\\|")


def md_prose(text: str) -> str:
    """Markdown text on one line, with whatever would open HTML markup or an entity escaped
    (a card set's or a file's name may hold them, or a line break)."""
    text = re.sub(r"&(?=#?\w+;)", "&amp;", text)
    return one_line(re.sub(r"<(?=[A-Za-z/!?])", "&lt;", text))


def md_table_head(header: list[str]) -> list[str]:
    """A Markdown table's header row and rule."""
    return [md_row(header), "|" + "---|" * len(header)]


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


def code_spans(text: str) -> str:
    """Markdown's `code` spans of ``text`` as HTML <code>, the rest escaped."""
    parts = html.escape(text).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


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


def as_sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, ending with a full stop."""
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!", "?")) else f"{text}."


def extremes(rates: pd.Series, words: tuple[str, str], noun: str,
             least_first: bool = False) -> str:
    """The highest and lowest of ``rates`` (win rates by name) in words: ``words`` name
    them (the highest's word first), every name that shares a rate as written is named
    (no tie is broken at random), and rates that are all one say so."""
    texts = rates.map(percent)
    top, bottom = texts[rates.idxmax()], texts[rates.idxmin()]
    if len(rates) == 1:
        return f"{rates.index[0]} {top}"
    if top == bottom:
        return f"{f'both {noun}s' if len(rates) == 2 else f'every {noun}'} at {top}"
    most = f"{words[0]} {capped_list([str(n) for n in texts.index[texts == top]])} ({top})"
    least = f"{words[1]} {capped_list([str(n) for n in texts.index[texts == bottom]])} ({bottom})"
    return f"{least}, {most}" if least_first else f"{most}, {least}"


#: The most sets an alternative text names in one group; the others are counted.
ALT_NAMES = 5


def capped_list(items: list[str]) -> str:
    """``items`` as a sentence lists them, the first ``ALT_NAMES`` by name."""
    if len(items) <= ALT_NAMES:
        return spoken_list(items)
    return f"{', '.join(items[:ALT_NAMES])} and {len(items) - ALT_NAMES} more"
