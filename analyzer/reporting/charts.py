"""The report's charts, one function each, every one returning a matplotlib Figure."""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import SymLogNorm, to_rgba
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from analyzer.analysis import run_stats
from analyzer.analysis.compare import difference_groups
from analyzer.analysis.sensitivity import SHIPPED_LABEL, played_mask
from analyzer.analysis.totals import Totals
from analyzer.atomic import write_atomically
from analyzer.reporting.names import shared_policy

SIZE = (7.0, 3.6)
#: Characters per line of a run's or set's name on an axis or in a legend.
LABEL_WIDTH = 34


def wrap_label(label: str, width: int = LABEL_WIDTH) -> str:
    """A long run or set name broken onto lines after its ``+`` and `` / `` joints, after
    the ``:`` and ``/`` of a policy file's path, and before a bracket (a card set's hash),
    so that a chart shows every name whole (seven expansions make a 100-character name); a
    part still too long is cut."""
    joints = r"(?<=\+)|(?<= / )|(?<=[:/])(?! )|(?<= )(?=\()"
    parts = [piece[i:i + width] for piece in re.split(joints, str(label))
             for i in range(0, max(len(piece), 1), width)]
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append(part)
        else:
            lines[-1] += part
    return "\n".join(line.rstrip() for line in lines)


def _wrapped(labels) -> list[str]:
    return [wrap_label(label) for label in labels]


def _set_labels(table: pd.DataFrame) -> list[str]:
    """The rows' names wrapped, a set that ``compare --precision`` stopped at
    ``--max-games`` (``precise`` False) marked ``*`` as in the comparison's table."""
    precise = table["precise"] if "precise" in table else [True] * len(table)
    return [wrap_label(label) + ("" if ok else "*")
            for label, ok in zip(table.index, precise, strict=True)]


def marks_imprecise(table: pd.DataFrame) -> bool:
    """Whether a chart of ``table``'s rows marks a set stopped at ``--max-games``."""
    return "precise" in table and not table["precise"].all()


#: Inches of a row of a chart of sets: a fixed part, and one per line of its wrapped name.
ROW_INCHES, LINE_INCHES = 0.2, 0.22


def _bar_height(labels: list[str]) -> float:
    """A figure height that gives each bar's wrapped name room."""
    lines = sum(label.count("\n") + 1 for label in labels)
    return max(SIZE[1], LINE_INCHES * lines + ROW_INCHES * len(labels) + 1.4)


def _row_positions(labels: list[str]) -> tuple[list[float], float]:
    """Where each row of a chart of sets goes, top down from -0.5, and where the last one
    ends: a row takes room for its own name's lines, in units of a one-line row, so that a
    name wrapped onto seven lines (seven expansions) does not run into the next."""
    one_line = LINE_INCHES + ROW_INCHES
    positions, edge = [], -0.5
    for label in labels:
        room = (LINE_INCHES * (label.count("\n") + 1) + ROW_INCHES) / one_line
        positions.append(edge + room / 2)
        edge += room
    return positions, edge


def _respaced_bars(ax: Axes, labels: list[str]) -> list[float]:
    """Move the bars pandas drew at rows 0, 1, 2... (a group or a stack of them per row) to
    ``_row_positions``, name the rows and fit the axis to them; the rows' positions."""
    positions, end = _row_positions(labels)
    for bars in ax.containers:
        for bar in bars:
            row = round(bar.get_y() + bar.get_height() / 2)
            bar.set_y(bar.get_y() + positions[row] - row)
    ax.set_yticks(positions, labels)
    ax.set_ylim(end, -0.5)
    return positions


#: Characters per line of a chart's title.
TITLE_WIDTH = 60
#: Above this many runs a legend goes beside the plot, not over the lines.
LEGEND_INSIDE = 5


class ChartFigure(Figure):
    """A Figure made without pyplot (the caller's backend is left alone, and pyplot keeps
    no reference, so a figure is freed when the caller lets it go) that a notebook shows
    all the same: as a cell's last value, through ``display``, or by ``show()``."""

    def _repr_png_(self) -> bytes:
        # IPython's protocol: a figure pyplot does not manage had no picture until pyplot's
        # inline backend was switched on
        buffer = io.BytesIO()
        self.savefig(buffer, format="png")
        return buffer.getvalue()

    def show(self, warn: bool = True) -> None:
        """Show the chart in a notebook; elsewhere, where it has no window, say to save it."""
        shell = None
        with contextlib.suppress(ImportError):
            from IPython import get_ipython
            from IPython.display import display

            shell = get_ipython()
        if shell is None:
            raise AttributeError("this chart has no window outside a notebook: save it with "
                                 "fig.savefig('chart.png')")
        display(self)


def _new_figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure with one axes (:class:`ChartFigure`)."""
    fig = ChartFigure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _figure(title: str, height: float = SIZE[1]) -> tuple[Figure, Axes]:
    fig, ax = _new_figure(SIZE[0], height)
    ax.set_title(textwrap.fill(title, TITLE_WIDTH))
    ax.grid(alpha=0.3)
    return fig, ax


def _legend(ax: Axes, entries: int) -> None:
    """The legend over the plot for a few runs, beside it for more (the figure widens)."""
    if entries <= LEGEND_INSIDE:
        ax.legend(fontsize="small")
        return
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    # tall enough for every entry, each wrapped label taking its lines
    lines = sum(label.count("\n") + 1 for label in ax.get_legend_handles_labels()[1])
    fig = ax.get_figure()
    fig.set_size_inches(SIZE[0] + 3.0,
                        max(fig.get_size_inches()[1], 0.16 * lines + 0.1 * entries + 1.2))


#: The runs' and categories' colours: matplotlib's Petroff sequence, chosen to stay apart for
#: readers with each common colour-vision deficiency (its default's green and red do not).
COLOURS = tuple(matplotlib.color_sequences["petroff10"])
#: Dashes that tell apart runs sharing one of the ten colours.
DASHES = ("-", "--", ":", "-.")


#: Markers of the runs' lines, beside their dashes.
MARKERS = ("o", "s", "^")
#: Hatches of a bar chart's categories, beside their colours.
HATCHES = ("", "//", "..", "xx", "\\\\", "++")


def _line_style(index: int) -> dict:
    """The colour, dash and marker of the ``index``-th run, the same on every chart (a run
    drawn on none of a chart's lines still takes its place) and distinct for 40 runs. The
    first twelve differ in dash or marker as well as colour: a reader who does not tell the
    colours apart, or a grey print, still tells the lines apart, and a line over another
    shows the one under it between its dashes."""
    return {"color": COLOURS[index % len(COLOURS)],
            "linestyle": DASHES[(index + index // 20) % len(DASHES)],
            "marker": MARKERS[index // len(DASHES) % len(MARKERS)]}


#: Where a long line (a curve of many points) puts its markers: about twelve along it.
SPARSE_MARKERS = 0.08


def _category_colours(n: int) -> list:
    """The colours of a bar chart's ``n`` categories."""
    return [COLOURS[i % len(COLOURS)] for i in range(n)]


def _hatched(ax: Axes) -> None:
    """Give each category of a bar chart (one container of bars each) a hatch of its own,
    so that the legend tells them apart without colour."""
    bar_sets = [bars for bars in ax.containers if isinstance(bars, BarContainer)]
    for index, bars in enumerate(bar_sets):
        for bar in bars:
            bar.set_hatch(HATCHES[index % len(HATCHES)])


def _bar_legend(ax: Axes) -> None:
    """A bar chart's legend beside the plot: bars may reach into every corner of it."""
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def source_line(attrs: dict) -> str:
    """Where a chart's numbers come from, from a run's configuration (``df.attrs``): card
    set, expansions, policy, seed, games, variant and rules version, whichever are known."""
    parts = []
    if attrs.get("card_set"):
        parts.append(f"card set {attrs['card_set']} "
                     f"(sha256 {str(attrs.get('card_set_sha256', ''))[:12]})")
    if "expansions" in attrs:
        parts.append("expansions " + (", ".join(attrs["expansions"] or []) or "none"))
    for key, label in (("policy", "policy"), ("seed", "seed"), ("games", "games")):
        if attrs.get(key) is not None:
            value = attrs[key]
            if key == "policy":
                value = shared_policy(str(value))
            parts.append(f"{label} {value:,}" if isinstance(value, int) else
                         f"{label} {value}")
    if attrs.get("variant"):
        parts.append(f"{attrs['variant']} game")
    if attrs.get("rules_version"):
        parts.append(f"rules {attrs['rules_version']}")
    return " · ".join(parts)


def write_svg(fig: Figure, path) -> None:
    """Write ``fig`` as SVG to ``path`` (a path or a binary file), the same bytes for the
    same chart: no date, and the ids of its clip paths drawn from a fixed salt, not at
    random."""
    # text kept as text, not paths: it can be searched, copied and read aloud
    with matplotlib.rc_context({"svg.hashsalt": "urbion", "svg.fonttype": "none"}):
        fig.savefig(path, format="svg", metadata={"Date": None})


def caption(fig: Figure, text: str) -> Figure:
    """Put ``text`` (see :func:`source_line`) under the chart, so that a copied image
    still says where its numbers come from."""
    if text:
        # each line wrapped alone: a footnote keeps a line of its own
        source = "\n".join(textwrap.fill(line, 110) for line in text.splitlines())
        # a chart's own note under it (the heatmap's) comes first, in one text with the
        # source: the layout makes room for a figure's footer, and two of them overlapped
        note = fig.get_supxlabel()
        if note:
            fig.supxlabel(f"{note}\n\n{source}", fontsize="small", color="0.25")
        else:
            fig.supxlabel(source, fontsize="x-small", color="0.35")
        # the figure grows by the lines added: a long footnote no longer squeezes the plot
        # into what is left, nor overlaps the tick labels
        lines = source.count("\n") + 1 + (1 if note else 0)
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height + lines * (SMALL_LINE if note else X_SMALL_LINE))
    return fig


#: Inches of a line of small and of x-small text (matplotlib's 0.833 and 0.694 of 10 points,
#: and line spacing 1.2).
SMALL_LINE, X_SMALL_LINE = 0.139, 0.116


#: Above this height (inches) a chart of sets repeats its scale at the top.
TALL = 12.0


def _set_rows(ax: Axes, labels: list[str]) -> list[float]:
    """One row per set from the top down (``_row_positions``), named by ``labels``, the
    first and last set at the edges (matplotlib's margin of 5% of the rows is several rows
    of blank with 128 sets), and on a tall chart the value scale, with its unit, at the top
    as well as at the bottom; the rows' positions."""
    positions, end = _row_positions(labels)
    ax.set_yticks(positions, labels)
    ax.set_ylim(max(end, 0.5), -0.5)  # no set (a comparison of the base game alone)
    if ax.get_figure().get_figheight() > TALL:
        top = ax.secondary_xaxis("top")
        top.set_xlabel(ax.get_xlabel(), fontsize="small", color="dimgray")
        # room between the title and that label, which would otherwise read as its
        # second line
        ax.set_title(ax.get_title(), pad=16, fontsize=ax.title.get_fontsize())
    return positions


#: The longest name a legend repeats; a longer one is named by its place in the chart.
SHORT_NAME = 24


#: From this many sets on, a chart names its rows by a grid of the expansions each set
#: holds, one line a row, not by names wrapped onto up to seven lines: a chart of all 128
#: sets was 13,000 pixels tall.
GRID_FROM = 13
#: Inches of a row of such a chart, and of a column of its grid.
GRID_ROW_INCHES, GRID_COLUMN_INCHES = 0.2, 0.24


def _by_grid(members: pd.DataFrame | None) -> bool:
    """Whether the charts of a comparison of the sets ``members`` name their rows by its
    grid: both alike, the differences chart, which leaves out the base game, too."""
    return members is not None and len(members) >= GRID_FROM and members.shape[1] > 0


def _grid_figure(title: str, table: pd.DataFrame, members: pd.DataFrame,
                 width: float) -> tuple[Figure, Axes, Axes, list[str]]:
    """A chart of sets named by a grid: the figure, its plot (first of its axes), the
    grid's axes to the left of it (sharing its rows) and the rows' labels (the base game
    by name, since it holds no expansion; the ``*`` of a set stopped at max-games)."""
    grid_width = GRID_COLUMN_INCHES * members.shape[1] + 0.9
    height = GRID_ROW_INCHES * len(table) + 0.14 * max(len(c) for c in members.columns) + 1.6
    fig = ChartFigure(figsize=(width + grid_width, height), layout="constrained")
    spec = fig.add_gridspec(1, 2, width_ratios=[grid_width, width])
    ax = fig.add_subplot(spec[0, 1])
    grid = fig.add_subplot(spec[0, 0], sharey=ax)
    ax.set_title(textwrap.fill(title, TITLE_WIDTH))
    ax.grid(alpha=0.3)
    precise = table["precise"] if "precise" in table else [True] * len(table)
    labels = [("base game" if not members.loc[name].any() else "") + ("" if ok else "*")
              for name, ok in zip(table.index, precise, strict=True)]
    return fig, ax, grid, labels


def _draw_grid(grid: Axes, ax: Axes, members: pd.DataFrame, rows: list[float]) -> None:
    """Fill the grid beside ``ax``: a column per expansion under its name, a dark dot
    where a row's set holds it joined to the row's other dots, a pale one where it does
    not; every other row shaded across both, to follow a row from its grid to its value."""
    held = members.to_numpy(dtype=bool)
    columns = np.arange(held.shape[1])
    for row, y in enumerate(rows):
        if row % 2:
            for axes in (grid, ax):
                axes.axhspan(y - 0.5, y + 0.5, color="0.5", alpha=0.08, linewidth=0)
        grid.scatter(columns[~held[row]], [y] * int((~held[row]).sum()), s=14, color="0.85")
        if held[row].any():
            on = columns[held[row]]
            grid.plot([on.min(), on.max()], [y, y], color="0.2", linewidth=1.2)
            grid.scatter(on, [y] * len(on), s=18, color="0.2", zorder=3)
    grid.set_xlim(-0.6, held.shape[1] - 0.4)
    grid.set_xticks(columns, list(members.columns), rotation=90, fontsize="small")
    grid.xaxis.tick_top()
    grid.tick_params(axis="x", length=0)
    grid.tick_params(axis="y", length=0, labelleft=True)
    for side in ("top", "right", "bottom", "left"):
        grid.spines[side].set_visible(False)
    ax.tick_params(axis="y", labelleft=False)


def win_rates(table: pd.DataFrame, reference: str | None = None,
              members: pd.DataFrame | None = None,
              against: dict[str, str] | None = None) -> Figure:
    """Win rate of each run with its 95% interval, and a line at the win rate of the row
    ``reference`` (None: the first), the one the others are compared with; with
    ``against`` (row to the row it is compared with), a mark on each such row at its own
    reference's rate instead. ``members`` (:func:`analysis.compare.chart_members`): the
    expansions each row's set holds, which name the rows of a chart of many sets
    (:data:`GRID_FROM`)."""
    title = "Win rate with 95% Wilson interval"
    if _by_grid(members):
        fig, ax, grid, labels = _grid_figure(title, table, members, SIZE[0])
    else:
        labels, grid = _set_labels(table), None
        fig, ax = _figure(title, _bar_height(labels))
    ax.set_xlabel("games won (%)")  # before the rows: a tall chart repeats it at the top
    y = _set_rows(ax, labels)
    if grid is not None:
        _draw_grid(grid, ax, members, y)
    # plain arrays: matplotlib reads a Series' elements one by one, which pandas 2 warns of
    rate = table["win_rate"].to_numpy(dtype=float) * 100
    errors = [rate - table["ci_low"].to_numpy(dtype=float) * 100,
              table["ci_high"].to_numpy(dtype=float) * 100 - rate]
    ax.barh(y, rate, xerr=errors, capsize=4, color=COLOURS[0])
    # each rate written past its interval: a bar of 0% is no bar at all
    for row, rate, high in zip(y, table["win_rate"], table["ci_high"], strict=True):
        # on white: the reference line may cross it; under the axes' frame, which it
        # must not hide where it runs past the plot
        ax.annotate(f"{rate:.2%}", (high * 100, row), xytext=(6, 0),
                    textcoords="offset points", va="center", fontsize="small", zorder=2.2,
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white",
                          "edgecolor": "none", "alpha": 0.85})
    ax.margins(x=0.12)
    if against is not None:
        _own_references(ax, table, y, against)
    elif len(table) > 1:  # the row the others are compared with, as a reference line
        reference = table.index[0] if reference is None else reference
        rate = table.at[reference, "win_rate"]
        # a long run label beside the plot would squeeze it: the row is named by place
        name = reference if len(str(reference)) <= SHORT_NAME else (
            "the top row" if reference == table.index[0] else "the reference row")
        ax.axvline(rate * 100, color="grey", linestyle="--", linewidth=1,
                   label=f"{name}: {rate:.2%}")
        _bar_legend(ax)
    return fig


def _own_references(ax: Axes, table: pd.DataFrame, y: np.ndarray,
                    against: dict[str, str]) -> None:
    """On each row of ``against``, a dashed mark across its bar at the win rate of the row
    it is compared with: one line for all would stand at one base game's rate only."""
    rows = dict(zip(table.index, y, strict=True))
    for index, (label, reference) in enumerate(against.items()):
        rate = table.at[reference, "win_rate"] * 100
        ax.plot([rate, rate], [rows[label] - 0.42, rows[label] + 0.42], color="black",
                linestyle="--", linewidth=1.2, zorder=2.1,
                # the differences table weighs runs of other games on those they share
                label=None if index else
                "the win rate of the run it is compared with, over all its games")
    if against:
        _bar_legend(ax)


#: From this many runs on, a chart of lines draws one small panel per run, all on the
#: same scales, with the first run in grey in each to compare with: 29 runs (a report of
#: a comparison of the pairs) drew 29 lines over one another that no reader could follow.
PANELS_FROM = GRID_FROM
#: Panels a row at most, the inches of a panel, and the characters per line of its title.
PANEL_COLUMNS, PANEL_SIZE, PANEL_LABEL_WIDTH = 6, (2.5, 1.9), 30
#: The size of a line's markers in a panel (matplotlib's default: 6).
PANEL_MARKER = 3.5
#: The first run as drawn in every other panel.
FIRST_RUN_STYLE = {"color": "0.65", "linestyle": "-", "linewidth": 1.0, "marker": "",
                   "zorder": 1.5}


def _in_panels(runs: dict) -> bool:
    return len(runs) >= PANELS_FROM


def _label_width(runs: dict) -> int:
    return PANEL_LABEL_WIDTH if _in_panels(runs) else LABEL_WIDTH


def _curve_labels(runs: dict[str, pd.DataFrame], key, totals: bool = False) -> list[str]:
    """The names of the runs' curves; a run whose ``key(df)`` (the array its curve is drawn
    from) equals an earlier run's draws that very curve, hidden under it on one plot, and
    its name says so. A run read from a summary file is keyed only where ``totals`` says
    the chart draws it."""
    labels = []
    drawn: list[tuple[str, np.ndarray]] = []
    width = _label_width(runs)
    for label, df in runs.items():
        if isinstance(df, Totals) and not totals:  # a run this chart draws no line of
            labels.append(wrap_label(label, width))
            continue
        data = key(df)
        twin = next((name for name, other in drawn if np.array_equal(other, data)), None)
        labels.append(wrap_label(label, width) + _twin_note(runs, twin, "curve"))
        drawn.append((label, data))
    return labels


def _twin_note(runs: dict, twin: str | None, noun: str) -> str:
    """What a run's name adds when its curve or line is ``twin``'s: hidden under it on one
    plot, in a panel of its own the same."""
    if twin is None:
        return ""
    if _in_panels(runs):
        return "\n" + wrap_label(f"(the same {noun} as {twin})", PANEL_LABEL_WIDTH)
    return f"\n(the {noun} of {twin}, under it)"


def _lines(runs: dict, title: str, labels: list[str], draw, xlabel: str, ylabel: str,
           xscale: str = "linear",
           against: dict[str, str] | None = None) -> tuple[Figure, list[Axes]]:
    """A chart of one line (or curve) per run: ``draw(ax, index, style, label)`` draws run
    ``index`` and returns False where it has none to draw. A few runs share one plot and a
    legend; from :data:`PANELS_FROM` runs on, each has a panel named by its label, with
    the first run's line in grey under its own (with ``against``, run to run compared
    with: that run's, in the panels of the runs it names). The figure and its axes (one, or
    a panel per run)."""
    if not _in_panels(runs):
        fig, ax = _figure(title)
        ax.set_xscale(xscale)
        for index, label in enumerate(labels):
            draw(ax, index, _line_style(index), label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        _legend(ax, len(runs))
        return fig, [ax]
    names = list(runs)
    if against is None:
        first = wrap_label(names[0], TITLE_WIDTH * 2)
        fig, axes = _panels(f"{title}: a panel per run, with {first} in grey", len(runs))
        against = {name: names[0] for name in names[1:]}
    else:
        fig, axes = _panels(f"{title}: a panel per run, with the run it is compared with in "
                            "grey", len(runs))
    for index, (ax, label) in enumerate(zip(axes, labels, strict=True)):
        ax.set_xscale(xscale)
        if names[index] in against:
            draw(ax, names.index(against[names[index]]), FIRST_RUN_STYLE, None)
        # none for a run its title says why; markers that fit a small panel
        draw(ax, index, {**_line_style(index), "markersize": PANEL_MARKER}, None)
        ax.set_title(label, fontsize="small")
    _common_scales(axes)
    fig.supxlabel(xlabel, fontsize="small")
    fig.supylabel(ylabel, fontsize="small")
    return fig, axes


def _common_scales(axes: list[Axes]) -> None:
    """Give every panel the scales that hold all of their lines. Not matplotlib's shared
    axes: every panel of a shared group looks at all the others each time it is drawn,
    and 128 panels took 40 s to draw."""
    for limits, setter in ((Axes.get_xlim, Axes.set_xlim), (Axes.get_ylim, Axes.set_ylim)):
        ends = np.array([limits(ax) for ax in axes])
        for ax in axes:
            setter(ax, ends[:, 0].min(), ends[:, 1].max())


def _panels(title: str, n_runs: int) -> tuple[Figure, list[Axes]]:
    """A figure of ``n_runs`` panels on common scales, up to :data:`PANEL_COLUMNS` a row;
    the scales' numbers on the left column and under the lowest panel of each column
    (each panel's own numbers made 128 panels take a minute to draw)."""
    columns = min(PANEL_COLUMNS, int(np.ceil(np.sqrt(n_runs))))
    rows = -(-n_runs // columns)
    fig = ChartFigure(figsize=(PANEL_SIZE[0] * columns + 0.6, PANEL_SIZE[1] * rows + 1.0),
                 layout="constrained")
    grid = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in grid[n_runs:]:
        ax.set_axis_off()
    axes = list(grid[:n_runs])
    for index, ax in enumerate(axes):
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize="x-small", labelleft=index % columns == 0,
                       labelbottom=index + columns >= n_runs)
    fig.suptitle(textwrap.fill(title, TITLE_WIDTH * 2))
    return fig, axes


def survival(runs: dict[str, pd.DataFrame], against: dict[str, str] | None = None) -> Figure:
    """Share of games still running by turn; ``against`` as :func:`_lines` takes it."""
    curves = [run_stats.survival(df) for df in runs.values()]

    def draw(ax: Axes, index: int, style: dict, label: str | None) -> None:
        curve = curves[index]
        ax.step(curve.index, curve * 100, where="post", label=label,
                markevery=SPARSE_MARKERS, **style)

    # runs of the same curve, whatever their number of games: one hides the other
    labels = _curve_labels(runs, lambda df: run_stats.survival(df).to_numpy(), totals=True)
    fig, _ = _lines(runs, "Games still running", labels, draw, "turn",
                    "games still running (%)", against=against)
    return fig


def loss_reasons(runs: dict[str, pd.DataFrame]) -> Figure:
    """Why games are lost, as a share of each run's games."""
    labels = _wrapped(runs)
    fig, ax = _figure("Loss reasons", _bar_height(labels))
    shares = pd.DataFrame({label: run_stats.loss_reasons(df) / len(df) * 100
                           for label, df in zip(labels, runs.values(), strict=True)}).fillna(0)
    if not shares.to_numpy().any():  # every game won: no bar to draw
        ax.barh(range(len(labels)), [0.0] * len(labels))
        ax.text(0.5, 0.5, "no game lost", transform=ax.transAxes, ha="center", va="center")
        ax.set_xlim(0, 100)
    else:
        shares.T.plot.barh(ax=ax, stacked=True, color=_category_colours(len(shares)))
        _hatched(ax)
        _bar_legend(ax)
    _respaced_bars(ax, labels)
    ax.set_xlabel("games lost (% of games)")
    return fig


def _shares(runs: dict[str, pd.DataFrame], title: str, counts_of, xlabel: str,
            ylabel: str, none: str, noun: tuple[str, str],
            against: dict[str, str] | None = None) -> Figure:
    """One line per run: the share of its games at each value ``counts_of(df)`` counts,
    with how many games the line rests on in its name ("20 wins": a line of few games
    zig-zags); a run with no such game is listed with ``none`` after its name.
    ``against`` as :func:`_lines` takes it."""
    width = _label_width(runs)
    shares: list[pd.Series | None] = []
    labels, totals = [], []
    for label, df in runs.items():
        counts = None if isinstance(df, Totals) else counts_of(df)
        if counts is None or not len(counts):
            shares.append(None)
            totals.append(0)
            labels.append(f"{wrap_label(label, width)} "
                          f"({NO_GAMES if counts is None else none})")
            continue
        # every value between the extremes, zeros included: a line drawn across a gap
        # would show games where there are none
        counts = counts.reindex(range(int(counts.index.min()), int(counts.index.max()) + 1),
                                fill_value=0)
        total = int(counts.sum())
        line = counts / total * 100
        # a run whose line is an earlier run's lies hidden under it: say so, as the
        # curves of the other charts do
        twin = next((name for name, other in zip(runs, shares, strict=False)
                     if other is not None and other.equals(line)), None)
        shares.append(line)
        totals.append(total)
        labels.append(f"{wrap_label(label, width)} ({total:,} {noun[total != 1]})"
                      + _twin_note(runs, twin, "line"))
    ceiling = _fit_to_the_many(shares, totals, labels,
                               PANEL_LABEL_WIDTH if _in_panels(runs) else None)

    def draw(ax: Axes, index: int, style: dict, label: str | None) -> bool:
        if shares[index] is None:
            if label is not None:  # listed in the legend, with no line
                ax.plot([], [], label=label, **style)
            return False
        ax.plot(shares[index].index, shares[index], label=label, **style)
        return True

    fig, axes = _lines(runs, title, labels, draw, xlabel, ylabel, against=against)
    for ax in axes:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts of cards
        if ceiling is not None:
            ax.set_ylim(0, ceiling)
    return fig


#: Below this many games a line of shares is too ragged to set the scale: one win is a
#: share of 100%, which squashed every other line of a chart under a third of it.
FEW_GAMES = 20


def _fit_to_the_many(shares: list[pd.Series | None], totals: list[int],
                     labels: list[str], width: int | None = None) -> float | None:
    """The top of the share axis that fits the lines of ``FEW_GAMES`` games or more, where
    a line of fewer would reach above them all (None: the lines' own); the ``labels`` of
    the lines that then run off the top say so, on lines of ``width`` characters at most
    (None: one line)."""
    tops = [(total, float(line.max()), index)
            for index, (line, total) in enumerate(zip(shares, totals, strict=True))
            if line is not None]
    many = [top for total, top, _ in tops if total >= FEW_GAMES]
    if not many:
        return None
    ceiling = max(many) * 1.1
    off = [(top, index) for total, top, index in tops if total < FEW_GAMES and top > ceiling]
    for top, index in off:
        note = f"(too few to scale: up to {top:.0f}%, off the top)"
        labels[index] += "\n" + (textwrap.fill(note, width) if width else note)
    return ceiling if off else None


#: How a chart of each game's figures lists a run read from a summary file.
NO_GAMES = "summary file: no figures of each game"


def margin_at_victory(runs: dict[str, pd.DataFrame],
                      against: dict[str, str] | None = None) -> Figure:
    """Dream cards left in the deck when the game was won."""
    return _shares(runs, "Margin at victory", run_stats.margin_at_victory,
                   "Dream cards left at the win", "share of the won games (%)", "no win",
                   ("win", "wins"), against)


def pacified_at_defeat(runs: dict[str, pd.DataFrame],
                       against: dict[str, str] | None = None) -> Figure:
    """City cards pacified in lost games."""
    return _shares(runs, "Cities pacified at defeat", run_stats.pacified_at_defeat,
                   "City cards pacified", "share of the lost games (%)", "no game lost",
                   ("loss", "losses"), against)


def chaos_choices(runs: dict[str, pd.DataFrame]) -> Figure:
    """How a Chaos drawn in Phase II was taken, per game on average, and how many Chromatic
    Chaos were resolved when a run played them."""
    labels = _wrapped(runs)
    chromatic = any(run_stats.played_chromatic(df) for df in runs.values())
    title = "Chaos options chosen (placed: the opening hand's too)" + \
        (", and Chromatic Chaos resolved" if chromatic else "")
    fig, ax = _figure(title, _bar_height(labels))
    table = pd.DataFrame({label: run_stats.chaos_choices(df, chromatic)
                          for label, df in zip(labels, runs.values(), strict=True)})
    table.T.plot.barh(ax=ax, color=_category_colours(len(table)))
    _hatched(ax)
    _respaced_bars(ax, labels)
    ax.set_xlabel("times per game")
    _bar_legend(ax)
    return fig


def convergence(runs: dict[str, pd.DataFrame], against: dict[str, str] | None = None) -> Figure:
    """The win-rate estimate as games are added, with its 95% band (each run's own; not
    the first run's in grey, in a chart of panels)."""
    curves = [None if isinstance(df, Totals) else run_stats.convergence(df)
              for df in runs.values()]

    def draw(ax: Axes, index: int, style: dict, label: str | None) -> bool:
        curve = curves[index]
        if curve is None:
            if label is not None:  # listed in the legend, with no line
                ax.plot([], [], label=label, **style)
            return False
        line, = ax.plot(curve["games"], curve["win_rate"] * 100, label=label,
                        markevery=SPARSE_MARKERS, **style)
        if style is not FIRST_RUN_STYLE:
            # the band's edges drawn in the line's dash: bands that overlap are told apart
            # without their colour
            ax.fill_between(curve["games"], curve["ci_low"] * 100, curve["ci_high"] * 100,
                            facecolor=to_rgba(line.get_color(), 0.15),
                            edgecolor=to_rgba(line.get_color(), 0.6),
                            linestyle=line.get_linestyle(), linewidth=0.8)
        return True

    labels = _curve_labels(runs, lambda df: df.sort_values("game")["won"].to_numpy())
    width = _label_width(runs)
    labels = [f"{wrap_label(name, width)} ({NO_GAMES})" if curve is None else label
              for name, curve, label in zip(runs, curves, labels, strict=True)]
    fig, _ = _lines(runs, "Convergence of the win-rate estimate (band: 95% Wilson "
                    "interval)", labels, draw, "games played (log scale)", "win rate (%)",
                    xscale="log", against=against)
    return fig


#: Characters per line of the sensitivity chart's title and of a variant's name (R14's
#: title and names each fit on one line).
SENSITIVITY_TITLE_WIDTH = 70
SENSITIVITY_LABEL_WIDTH = 60


def sensitivity(table: pd.DataFrame, baseline_rate: float,
                baseline: str = SHIPPED_LABEL) -> Figure:
    """Change of the win rate from the baseline set (named ``baseline``) for each card-set
    variant, with intervals; a variant not played keeps its row, with no point and its
    reason beside its name."""
    fig, ax = _new_figure(10.0, 0.45 * len(table) + 1.4)
    # wrapped: a designer's set is named with its hash, and long tick labels narrow the axes
    ax.set_title(textwrap.fill(f"Win-rate change from {baseline} ({baseline_rate:.2%}), 95% "
                               "paired Newcombe intervals", SENSITIVITY_TITLE_WIDTH),
                 fontsize="medium")
    ax.grid(alpha=0.3)
    played = played_mask(table)
    y = np.arange(len(table))[played]
    shown = table[played]
    errors = [(shown["effect"] - shown["effect_low"]) * 100,
              (shown["effect_high"] - shown["effect"]) * 100]
    ax.errorbar(shown["effect"] * 100, list(y), xerr=errors, fmt="o", capsize=4)
    ax.axvline(0, color="black", linewidth=0.8)
    labels = [textwrap.fill(f"{f}: {lv}" if shown_here else f"{f}: {lv} — {note}",
                            SENSITIVITY_LABEL_WIDTH)
              for f, lv, shown_here, note in zip(table["factor"], table["level"], played,
                                                 table.get("note", [""] * len(table)),
                                                 strict=True)]
    ax.set_yticks(list(range(len(table))), labels)
    ax.set_ylim(len(table) - 0.5, -0.5)  # the first variant on top, a row left out kept
    ax.set_xlabel("change in games won (percentage points)")
    return fig


def differences(table: pd.DataFrame, members: pd.DataFrame | None = None) -> Figure:
    """Paired win-rate difference of each set to the base game, with its 95% interval;
    ``members`` as for :func:`win_rates`, the base game's row among them."""
    rows = table.drop(index="base", errors="ignore")
    title = ("Change of the win rate from the base game (games paired by number), 95% "
             "paired Newcombe intervals")
    if _by_grid(members):
        fig, ax, grid, labels = _grid_figure(title, rows, members.loc[rows.index], 7.0)
    else:
        labels, grid = _set_labels(rows), None
        fig, ax = _new_figure(7.0, max(0.4 * len(rows) + 1.4, _bar_height(labels)))
        ax.set_title(textwrap.fill(title, TITLE_WIDTH))
        ax.grid(alpha=0.3)
    ax.title.set_fontsize("medium")
    ax.set_xlabel("change in games won (percentage points)")
    y = _set_rows(ax, labels)
    if grid is not None:
        _draw_grid(grid, ax, members.loc[rows.index], y)
    x = rows["difference"].to_numpy(dtype=float) * 100
    errors = np.array([x - rows["diff_low"].to_numpy(dtype=float) * 100,
                       rows["diff_high"].to_numpy(dtype=float) * 100 - x])
    y = np.asarray(y)
    # the tables' verdict, told by colour and fill: a reader of 128 rows sees which sets
    # the tests set apart without the tables
    tested = "holm_p" in rows
    groups = difference_groups(rows)
    apart = {str(name) for name in groups["harder"] + groups["easier"]}
    shown = np.array([str(name) in apart for name in rows.index], dtype=bool) \
        if tested else np.ones(len(rows), dtype=bool)
    for mask, style in ((shown, {"color": COLOURS[0], "label": "shown: Holm p below 0.05"}),
                        (~shown, {"color": "0.5", "markerfacecolor": "white",
                                  "label": "not shown"})):
        if mask.any():
            ax.errorbar(x[mask], y[mask], xerr=errors[:, mask], fmt="o", capsize=4, **style)
    ax.axvline(0, color="black", linewidth=0.8)
    if tested and len(rows):
        _bar_legend(ax)
    return fig


def card_change(table: pd.DataFrame, base: str, attrs: dict,
                members: pd.DataFrame | None = None) -> Figure:
    """The change a card set makes from another in each expansion set (rows: sets by their
    printed names, ``base`` the base game's), with its 95% paired interval; a line at the
    base game's change, and the sets whose change differs from it (``vs_base_shown``)
    filled and in colour. ``members`` as for :func:`win_rates`."""
    title = (f"Change of the win rate, {attrs['card_set']} against "
             f"{attrs['against_card_set']}, per expansion set (95% paired intervals)")
    if _by_grid(members):
        fig, ax, grid, labels = _grid_figure(title, table, members, 7.0)
    else:
        labels, grid = _set_labels(table), None
        fig, ax = _new_figure(7.0, max(0.4 * len(table) + 1.6, _bar_height(labels)))
        ax.set_title(textwrap.fill(title, TITLE_WIDTH))
        ax.grid(alpha=0.3)
    ax.title.set_fontsize("medium")
    ax.set_xlabel("change in games won (percentage points)")
    y = np.asarray(_set_rows(ax, labels))
    if grid is not None:
        _draw_grid(grid, ax, members, list(y))
    x = table["difference"].to_numpy(dtype=float) * 100
    errors = np.array([x - table["diff_low"].to_numpy(dtype=float) * 100,
                       table["diff_high"].to_numpy(dtype=float) * 100 - x])
    is_base = np.array([name == base for name in table.index], dtype=bool)
    apart = table["vs_base_shown"].fillna(False).to_numpy(dtype=bool) & ~is_base
    bound = table["at_bound"].fillna(False).to_numpy(dtype=bool) & ~is_base
    for mask, style in (
            (is_base, {"color": "black", "label": "base game (dashed)"}),
            (apart, {"color": COLOURS[0], "label": "differs from it\nin points\n"
                                                   "(Holm p < 0.05)"}),
            (~apart & ~bound & ~is_base, {"color": "0.5", "markerfacecolor": "white",
                                          "label": "no difference\nfrom it shown"}),
            (bound, {"color": "0.5", "fmt": "s", "markerfacecolor": "white",
                     "label": "too near 0% or\n100% to compare\nin points"})):
        if mask.any():
            ax.errorbar(x[mask], y[mask], xerr=errors[:, mask], capsize=4,
                        **{"fmt": "o", **style})
    if is_base.any():
        ax.axvline(x[is_base][0], color="black", linestyle="--", linewidth=0.8)
    ax.axvline(0, color="0.3", linewidth=0.8)
    _bar_legend(ax)
    return fig


def card_change_source(attrs: dict) -> str:
    """A card change chart's source line: both card sets, then the run's configuration."""
    return (f"{source_line(attrs)} · against card set {attrs['against_card_set']} "
            f"(sha256 {str(attrs['against_card_set_sha256'])[:12]})")


def _dark(colour: tuple[float, ...]) -> bool:
    """Whether white text reads better than black on ``colour`` (RGBA, 0 to 1): by the
    contrast ratios of WCAG 2, from the colour's relative luminance. On a symmetric log
    scale a cell is dark well before its value nears the scale's end."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in colour[:3]]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05) > (luminance + 0.05) / 0.05


def _cell(value: float, sign: bool = False) -> str:
    """A heatmap cell's number as drawn: two decimals (at one, a coloured cell could read
    "+1.5 ±1.5")."""
    text = f"{value:+.2f}" if sign else f"{value:.2f}"
    return text.replace("-0.00", "+0.00" if sign else "0.00")


def _band(value: float, low: float, high: float) -> str:
    """A heatmap cell's interval as drawn: "±1.50", or "-0.12 to +2.00" where it is not even
    about the estimate (clipped at a contrast's bounds, or games all alike)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    if np.isclose(value - low, high - value, rtol=1e-6, atol=1e-9):
        return f"±{_cell((high - low) / 2)}"
    # on two lines: "-197.50 to +192.50" is wider than a cell; a bound keeps its sign,
    # as the tables write it (-0.00 just below zero)
    from analyzer.analysis.stats import signed_pp

    return f"{signed_pp(low / 100)} to\n{signed_pp(high / 100)}"


def interactions(table: pd.DataFrame) -> Figure:
    """Heatmap of pairwise interactions (an ``analysis.interactions.interactions`` table): the
    pair's effect minus the two single effects, each cell with its 95% interval (:func:`_band`);
    a cell is coloured only where the interaction is shown
    (``analysis.interactions.shown_interactions``) and its interval, as printed, leaves zero out;
    the others are grey."""
    from analyzer.analysis.interactions import interaction_matrix

    matrix = interaction_matrix(table)
    n = len(matrix)
    width = max(1.3 * n + 3.0, 7.0)
    note = textwrap.fill(INTERACTION_SCALE_NOTE, int(width * 13))
    # the title's five lines, the tick labels slanted at 30 degrees (half their length
    # high), then the note under the figure
    plot_height = max(1.0 * n + 1.6, 3.0)
    longest = max((len(str(name)) for name in matrix.columns), default=0)
    height = plot_height + 1.2 + 0.045 * longest + SMALL_LINE * (note.count("\n") + 1)
    fig, ax = _new_figure(width, height)
    # every text wrapped to the figure: with two or three expansions it is narrow
    fig.suptitle("Interaction of two expansions (pp): pair effect minus single effects\n"
                 + textwrap.fill("(its 95% interval, ± or its two ends, not adjusted for the "
                                 "number of pairs; coloured and in bold only where an "
                                 "interaction is shown: Holm's adjusted test finds one, the "
                                 "interval leaves zero out (on few differing games the test "
                                 "alone decides), and the pair is not at the 0% floor)",
                                 int(width * 12)),
                 fontsize="medium")
    values = matrix.to_numpy(dtype=float) * 100
    lows = interaction_matrix(table, "low").to_numpy(dtype=float) * 100
    highs = interaction_matrix(table, "high").to_numpy(dtype=float) * 100
    limit = max(float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 1.0, 0.5)
    bands = [[_band(values[i, j], lows[i, j], highs[i, j]) for j in range(n)] for i in range(n)]
    shown_cells, few, floor = _interaction_marks(table)
    shown = np.where(shown_cells, values, np.nan)
    ax.imshow(np.where(np.isfinite(values), 0.0, np.nan), cmap="Greys", vmin=-4, vmax=4)
    # a symmetric log scale: effects of a few points stay visible beside one of twenty
    image = ax.imshow(shown, cmap="RdBu",
                      norm=SymLogNorm(linthresh=min(1.0, limit / 2), vmin=-limit, vmax=limit))
    _interaction_cells(ax, image, values, shown, bands, few, floor)
    ax.set_xticks(range(n), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(n), matrix.index)
    bar = fig.colorbar(image, ax=ax, label=textwrap.fill(
        "pp, symmetric log scale, linear within ±1 (blue: more than the single effects add "
        "up to)", int(plot_height * 11)))
    ticks = [t for t in (-100, -30, -10, -3, -1, 0, 1, 3, 10, 30, 100) if abs(t) <= limit]
    bar.set_ticks(ticks, labels=[f"{t:+d}" if t else "0" for t in ticks])
    # under the whole figure, wrapped to its width: under the axes of two or three
    # expansions, which are narrower, it ran past the figure's edge (:func:`caption` adds
    # the source below it)
    fig.supxlabel(note, fontsize="small", color="0.25")
    return fig


def _interaction_marks(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell of the interactions heatmap, bool matrices: whether the interaction is
    shown (the tables' rule, ``analysis.interactions.shown_interactions``), whether few games
    differ, and whether the pair is at the 0% floor."""
    from analyzer.analysis.interactions import ROUGH_BELOW, interaction_matrix, with_verdicts

    marked = with_verdicts(table)
    marks = marked.assign(shown=marked["shown"].astype(float),
                          at_floor=marked["at_floor"].astype(float),
                          few=((marked["differing"] > 0) & (marked["differing"] < ROUGH_BELOW)
                               ).astype(float) if "differing" in marked else 0.0)
    return tuple(interaction_matrix(marks, key).to_numpy(dtype=float) == 1
                 for key in ("shown", "few", "at_floor"))


def _interaction_cells(ax: Axes, image, values: np.ndarray, shown: np.ndarray,
                       bands: list[list[str]], few: np.ndarray, floor: np.ndarray) -> None:
    """Each cell's text: the interaction with its interval (``bands``), and whether few
    games differ (``few``) or the pair is at the 0% floor (``floor``); "no games" where a
    pair has none. An interaction shown (``shown`` finite) is in bold, on its colour."""
    n = len(values)
    for i in range(n):
        for j in range(n):
            if i != j and not np.isfinite(values[i, j]):
                ax.text(j, i, "no\ngames", ha="center", va="center", fontsize="x-small",
                        color="0.45")
            if np.isfinite(values[i, j]):
                dark = np.isfinite(shown[i, j]) and \
                    _dark(image.cmap(image.norm(shown[i, j])))
                band = f"\n{bands[i][j]}" if bands[i][j] else ""
                band += "\nfew differ" if few[i, j] else ""
                band += "\nat 0% floor" if floor[i, j] else ""
                # an interaction shown is in bold too: not told by its colour alone
                ax.text(j, i, f"{_cell(values[i, j], sign=True)}{band}", ha="center",
                        va="center", fontsize="small", color="white" if dark else "black",
                        fontweight="bold" if np.isfinite(shown[i, j]) else "normal")


#: What the heatmap's additive scale hides, under the chart.
INTERACTION_SCALE_NOTE = (
    "Additive interactions: effects that multiply (as chances often do) show here as interactions "
    "of either sign, and where the single expansions alone take the win rate near 0% the "
    "pair reads positive whatever it does: a pair whose single effects added up would take "
    "the win rate below 0% is marked at 0% floor and left grey. Compare the pair's win rate "
    "with the one 'if the effects multiplied' in the table of interactions, pair by pair. "
    "The diagonal, an expansion with itself, is empty; a pair with no games (not played, or "
    "no game in common with its single expansions) is marked no games.")


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
        write_svg(fig, svg)
    return {f"{stem}.png": png.getvalue(), f"{stem}.svg": svg.getvalue()}
