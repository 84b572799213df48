"""``urbion``: the command-line front end. Parses, calls ``analyzer``'s API, prints."""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: Stopped by SIGTERM: 128 + 15, as a process the signal killed would report.
EXIT_TERMINATED = 143
#: ``replay``: a trace that does not replay is a finding, not a usage error.
EXIT_FAILED_CHECK = 1
#: stdout's reader has gone (``| head``): 128 + SIGPIPE, as a process the signal killed
#: would report; not 1, which ``replay`` gives a trace that does not replay.
EXIT_READER_GONE = 141

_terminated_while_loading = False
#: The outputs the command has written so far: a stop after them (while the summary is
#: printed) says they are whole.
_written: list[str] = []


def _stop_while_loading(_signum: int, _frame: object) -> None:
    """SIGTERM while the libraries load: a stop like Ctrl-C then (``main`` sets the
    handler of a run)."""
    global _terminated_while_loading
    _terminated_while_loading = True
    raise KeyboardInterrupt


# run as the urbion command, not imported by a program, whose handlers stay its own
_AS_COMMAND = Path(sys.argv[0]).name == "urbion" and \
    signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
if _AS_COMMAND:
    signal.signal(signal.SIGTERM, _stop_while_loading)
try:  # Ctrl-C while the libraries load is an interruption like any later one
    import click
    from click.core import ParameterSource

    import analyzer
    from analyzer import arguments
    from analyzer.analysis.summary import format_summary
    from analyzer.api import WON_SEARCH_GAMES
    from analyzer.arguments import MAX_PRECISION, MAX_SEED, MAX_WORKERS
    from analyzer.core.codes import PLAYABLE_EXPANSIONS, VARIANT_NAMES
    from analyzer.errors import (
        OutOfMemory,
        OutputNotWritten,
        RunStopped,
        UrbionError,
        out_of_memory_message,
    )
    from analyzer.policies.registry import BUILTIN_POLICIES
    from analyzer.runner import interrupts
    from analyzer.wording import one_line

    if _AS_COMMAND:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
except KeyboardInterrupt:
    if _terminated_while_loading:
        sys.stderr.write("urbion: terminated before any game was played; nothing was "
                         "saved\n")
        raise SystemExit(EXIT_TERMINATED) from None
    sys.stderr.write("\nurbion: interrupted\n")
    raise SystemExit(EXIT_INTERRUPTED) from None


class _WholeNumber(click.IntRange):
    """An integer with bounds, checked as the Python API checks its argument
    (``analyzer.arguments``), so that a bad value reads alike in a shell and a notebook:
    "--games (games=) must be at least 1, not -5". Its help calls it an integer (click:
    "integer range", which reads as if a range were asked for)."""

    name = "integer"

    def convert(self, value, param, ctx):  # click's own signature
        name = param.name if param is not None and param.name else "value"
        if isinstance(value, str):
            with contextlib.suppress(ValueError):  # else refused as the text it is
                value = int(value.strip(), 10)
        if name == "workers":  # a bound of its own, with why
            return arguments.workers(value)
        return arguments.whole_number(name, value, self.min or 0, self.max)


#: A file's or folder's path, given on as written: the Python API checks it, and says what
#: is wrong (a folder where a file goes, or a file where a folder goes) in the words it
#: uses in a notebook.
_PATH = click.Path()


seed_option = click.option("--seed", type=_WholeNumber(0, MAX_SEED), default=0,
                           show_default=True,
                           help="Batch seed; game g of seed S is always the same game.")
policy_option = click.option("--policy", default="greedy", show_default=True,
                             help=f"Policy: {', '.join(BUILTIN_POLICIES)}, "
                                  "weighted:FILE.toml, search:rollouts=N,candidates=K,"
                                  "weights=FILE.toml, clairvoyant:candidates=K,"
                                  "weights=FILE.toml, or "
                                  "FILE.py:FUNCTION / MODULE:FUNCTION (a weights FILE may "
                                  "be a results file: the weights its run played).")
cards_option = click.option("--cards", type=_PATH, default=None,
                            help="Card-set TOML file, or a results or summary file to play the "
                                 "cards its run played (default: the R14 set).")
expansions_option = click.option(
    "--expansions", default="none", show_default=True, metavar="NAME,...|all|none",
    help=f"Expansions in play: {', '.join(PLAYABLE_EXPANSIONS)} (comma-separated), all "
         "or none (or base, as compare names the base game).")
class _Name(click.Choice):
    """One of a few names, taken in any case as --expansions takes them, and checked as
    the Python API checks its argument: "--engine (engine=): unknown engine 'slow' (valid:
    fast, reference)"."""

    def __init__(self, choices: tuple[str, ...] | list[str]) -> None:
        super().__init__(choices, case_sensitive=False)

    def convert(self, value, param, ctx):  # click's own signature
        name = param.name if param is not None and param.name else "value"
        return arguments.choice(name, value, list(self.choices))


ENGINE_CHOICE = _Name(["fast", "reference"])
ENGINE_HELP = ("fast: the compiled engine; reference: the plain-Python one, which plays the "
               "same games far more slowly, to check them.")

variant_option = click.option(
    "--variant", type=_Name(VARIANT_NAMES), default="solo",
    show_default=True,
    help="The solo game, or the two-player team game (one policy plays both seats, R10).")


class _ReaderGone(Exception):
    """stdout's reader has gone (EPIPE): raised past click, which exits 1 on it."""


class _OnceCommand(click.Command):
    """A command whose options are each given once: click keeps the last of an option
    given twice without a word, so ``--expansions postcards --expansions emptiness``
    played the Emptiness alone, under a command that named both."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # --help shows the help, whatever else the line holds
        if not ctx.resilient_parsing and not set(args) & set(ctx.help_option_names):
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))
            seen: set[str | None] = set()
            for param in order:
                if isinstance(param, click.Option) and param.name in seen:
                    names = " or ".join(param.opts + param.secondary_opts)
                    raise click.UsageError(f"{names} is given more than once: give it once "
                                           "(several expansions: one list, names "
                                           "comma-separated)" if param.name == "expansions"
                                           else f"{names} is given more than once: give it "
                                           "once", ctx)
                seen.add(param.name)
        return super().parse_args(ctx, args)


class _UrbionGroup(click.Group):
    """The commands, with a write to stdout whose reader has gone carried past click."""

    command_class = _OnceCommand

    def make_context(self, *args: object, **kwargs: object) -> click.Context:
        with _reader_gone_past_click():  # --help and --version write here
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> object:
        with _reader_gone_past_click():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt:
                if interrupts.terminated():  # click's blank line follows a ^C, not this
                    raise click.Abort from None
                raise
            except EOFError as err:  # click would report it as a Ctrl-C: it is a fault
                raise RuntimeError(f"a read ended early: {err or 'EOFError'}") from err
            except (MemoryError, OutOfMemory):  # the latter in Python's words
                command = self.commands.get(ctx.invoked_subcommand or "")
                raise UrbionError(out_of_memory(command)) from None


def out_of_memory(command: click.Command | None) -> str:
    """What to do when ``command`` ran out of memory, in the options it has."""
    names = {param.name for param in command.params if param.name} if command else set()
    return out_of_memory_message(names, lambda name: f"--{name.replace('_', '-')}")


@contextlib.contextmanager
def _reader_gone_past_click() -> Iterator[None]:
    """A write to stdout whose reader has gone raises :class:`_ReaderGone` instead."""
    try:
        yield
    except OSError as err:
        if err.errno == errno.EPIPE and _writing_stdout(err):
            raise _ReaderGone from err
        raise


@click.group(cls=_UrbionGroup)
@click.version_option(package_name="urbion-analyzer")
def cli() -> None:
    """How winnable is Urbion (Second Edition)? Seeded simulation of the solo and team
    games."""


@cli.command()
@click.option("--games", type=_WholeNumber(min=1), default=10_000, show_default=True,
              help="Games to play: GAMES games of the seed from --first-game on (games 0 "
                   "to GAMES-1 by default).")
@seed_option
@click.option("--first-game", type=_WholeNumber(0, MAX_SEED), default=0, show_default=True,
              help="Play games FIRST-GAME to FIRST-GAME+GAMES-1 of the seed: more games of a "
                   "run, which `report` joins to the games before.")
@policy_option
@click.option("--workers", type=_WholeNumber(1, MAX_WORKERS), default=None,
              help="Threads (default: all cores). Results do not depend on it.")
@click.option("--engine", type=ENGINE_CHOICE, default="fast", show_default=True,
              help=ENGINE_HELP)
@cards_option
@expansions_option
@variant_option
@click.option("--out", type=_PATH, default=None,
              help="Write one row per game to this .parquet file (with --summary-only: the "
                   "summary to a .json file), replacing a file of that name once the run "
                   "is done. Finished chunks are kept in OUT.partial/.")
@click.option("--resume", is_flag=True,
              help="Continue the interrupted run saved beside --out (same configuration).")
@click.option("--scheduler", default=None, metavar="[tcp://]HOST:PORT|local:N",
              help="Run on a Dask cluster, or on a local one of N processes.")
@click.option("--summary-only", is_flag=True,
              help="Keep running totals only: bounded memory for any number of games.")
@click.option("--chunk", type=_WholeNumber(min=1), default=None,
              help="Games per chunk: the unit of work, checkpoints and progress "
                   "[default: 20000; 200 for search and clairvoyant, fewer as their "
                   "rollouts times candidates grow past 8 times 3; 200 on the reference "
                   "engine].")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the summary as one line of JSON (its figures and the run's "
                   "configuration, as a --summary-only file holds them) instead of text; "
                   "notes go to stderr.")
def simulate(games: int, seed: int, first_game: int, policy: str, workers: int | None,
             engine: str, cards: str | None, expansions: str, variant: str, out: str | None,
             resume: bool, scheduler: str | None, summary_only: bool, chunk: int | None,
             quiet: bool, as_json: bool) -> None:
    """Play a batch of games (solo or team) and print the summary."""
    options = dict(games=games, seed=seed, first_game=first_game, policy=policy,
                   workers=workers, engine=engine,
                   cards=cards, expansions=expansions, variant=variant, out=out, resume=resume,
                   scheduler=scheduler, progress=not quiet, chunk=chunk)
    # with --json, stdout is the JSON alone: what a user's policy prints goes to stderr
    with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
        if summary_only:
            summary = analyzer.simulate_summary(**options)
            _wrote(out)
            attrs = summary["config"]
            summary = {key: value for key, value in summary.items() if key != "config"}
        else:
            df = analyzer.simulate(**options)
            _wrote(out)  # whole before its summary is worked out, which takes a while
            summary, attrs = analyzer.summarize(df), df.attrs
    if as_json:
        from analyzer.analysis.results_io import summary_json

        click.echo(summary_json(summary, attrs, out))
        _note(analyzer.weights_note(attrs), err=True)
        return
    click.echo(format_summary(summary, attrs, attrs.get("seconds")))
    _note(analyzer.weights_note(attrs))
    if out:
        # what to do with it next, as duel says
        click.echo(f"results    {out} (urbion report {shlex.quote(str(out))} --out FOLDER: "
                   "charts and tables)")


def _wrote(path: str | Path | None) -> None:
    """Record an output the command has written in full (None: none)."""
    if path is not None:
        _written.append(str(path))


def _note(note: str | None, err: bool = False) -> None:
    """Print a note, if any, on a line of its own (on stderr when ``err``)."""
    if note:
        click.echo(note, err=err)


@cli.command()
@seed_option
@click.option("--game", type=_WholeNumber(0, MAX_SEED), default=0, show_default=True,
              help="The first game to trace, by its number in the seed's batch.")
@click.option("--games", type=_WholeNumber(min=1), default=1, show_default=True,
              help="How many games to trace, from --game on.")
@policy_option
@cards_option
@expansions_option
@variant_option
@click.option("--engine", type=ENGINE_CHOICE, default="fast", show_default=True,
              help=ENGINE_HELP)
@click.option("--out", type=_PATH, required=True,
              help="JSON Lines file, one urbion-trace/1 trace per game.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def trace(seed: int, game: int, games: int, policy: str, cards: str | None, expansions: str,
          variant: str, engine: str, out: str, quiet: bool) -> None:
    """Write the traces of games GAME to GAME+GAMES-1 of the batch with SEED."""
    written = analyzer.trace_to_file(out, seed=seed, game=game, games=games, policy=policy,
                                     cards=cards, engine=engine, expansions=expansions,
                                     variant=variant, progress=not quiet)
    _wrote(out)
    click.echo(f"{written} trace(s) written to {out}")


@cli.command()
@click.option("--seed", type=_WholeNumber(0, MAX_SEED), default=None,
              help="Batch seed; game g of seed S is always the same game  [default: 0; "
                   "with --trace-file, any]")
@click.option("--game", type=_WholeNumber(0, MAX_SEED), default=None,
              help="The game to show  [default: 0; with --trace-file, the file's first]")
@policy_option
@cards_option
@expansions_option
@variant_option
@click.option("--trace-file", type=_PATH, default=None,
              help="Show a trace from this file (urbion trace --out) instead of playing the "
                   "game; --seed and --game choose it. The trace names its own policy, cards, "
                   "expansions and variant: those options are refused with it.")
@click.option("--won", is_flag=True,
              help="Show the first game the policy wins from --game on (a winning line to "
                   f"learn from), looking through at most {WON_SEARCH_GAMES:,} games.")
@click.option("--quiet", is_flag=True, help="No progress bar while --won looks for a win.")
def show(seed: int | None, game: int | None, policy: str, cards: str | None,
         expansions: str, variant: str, trace_file: str | None, won: bool,
         quiet: bool) -> None:
    """Print one game turn by turn."""
    options = dict(policy=policy, cards=cards, expansions=expansions, variant=variant)
    if trace_file is not None:  # only what was typed, so that the API can refuse it
        context = click.get_current_context()
        options = {name: value for name, value in options.items()
                   if context.get_parameter_source(name) is not ParameterSource.DEFAULT}
    click.echo(analyzer.show(seed=seed, game=game, trace_file=trace_file, won=won,
                             progress=won and not quiet, **options))


@cli.command()
@click.argument("traces", type=_PATH)
@click.option("--strict", is_flag=True,
              help="Fail (exit code 1) also on a trace whose shuffles are not those of the "
                   "game and seed it names, whose cards are not those of the set it names "
                   "(R14, or --cards), or that names other rules than these: an edited or "
                   "hand-built trace.")
@click.option("--cards", type=_PATH, default=None,
              help="Card-set TOML file (or a results or summary file's cards) to check "
                   "every trace's cards, card-set name and hash against, failing (exit "
                   "code 1) on a trace of other cards, name or hash (default: a trace "
                   "naming R14 is checked against the shipped cards, which a note says, "
                   "failing with --strict).")
def replay(traces: str, strict: bool, cards: str | None) -> None:
    """Check every trace of TRACES against the rules, decision by decision. TRACES holds
    one trace a line (JSON Lines) or traces over many lines each, one after the other.

    Exit code 0 when every trace replays, 1 when one does not or, with --cards, is not of
    that card set (with --strict, also when a trace's shuffles are not those of the game
    and seed it names, its cards not those of the set it names, or its rules version not
    this one), 2 when a file cannot be read or is no trace or card file.
    """
    from analyzer.analysis.audit import format_audit

    card_set = None if cards is None else analyzer.load_cards(cards)
    df = analyzer.replay(traces, cards=card_set)
    click.echo(format_audit(df, traces, card_set))
    # the check --cards asks for decides, as a rule broken does
    other_cards = card_set is not None and df["cards_of_set"].eq(False).any()
    if not df["replays"].all() or other_cards or (strict and not df["passes_strict"].all()):
        sys.exit(EXIT_FAILED_CHECK)


@cli.command()
@click.option("--policies", "names", required=True, metavar="P1,P2,...",
              help="Two or more policies, comma-separated, each as --policy takes it "
                   "(built-ins, weighted:FILE.toml, search:... and clairvoyant:... with "
                   "their options, FILE.py:FUNCTION).")
@click.option("--games", type=_WholeNumber(min=1), default=10_000, show_default=True,
              help="Deals: games 0 to GAMES-1 of the seed, each policy playing every one.")
@seed_option
@click.option("--workers", type=_WholeNumber(1, MAX_WORKERS), default=None,
              help="Threads (default: all cores). Results do not depend on it.")
@cards_option
@expansions_option
@variant_option
@click.option("--scheduler", default=None, metavar="[tcp://]HOST:PORT|local:N",
              help="Run on a Dask cluster, or on a local one of N processes.")
@click.option("--out", type=_PATH, default=None,
              help="Folder for each policy's per-game results (for `urbion report`), the "
                   "tables as CSV and this text (e.g. reports/NAME/).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def duel(names: str, games: int, seed: int, workers: int | None, cards: str | None,
         expansions: str, variant: str, scheduler: str | None, out: str | None,
         quiet: bool) -> None:
    """Play several policies on the same deals; compare them pair by pair (McNemar)."""
    try:
        result = analyzer.duel(names, games=games, seed=seed, workers=workers, cards=cards,
                               expansions=expansions, variant=variant, scheduler=scheduler,
                               progress=not quiet, out=out)
    except OutputNotWritten as err:  # the games are played: the tables are shown
        click.echo(str(err.result))
        _note(err.result.weights_note())
        raise UrbionError(f"{err.reason}: the tables are printed above") from None
    _wrote(out)
    click.echo(str(result))
    _note(result.weights_note())
    if out:
        # as simulate says it: the command runs as printed, --out given a folder
        click.echo(f"\nresults    {Path(out)}/ (urbion report {shlex.quote(str(Path(out)))}"
                   "/*.parquet --out FOLDER: charts and tables)")


@cli.command()
@click.option("--games", type=_WholeNumber(min=1), default=20_000, show_default=True,
              help="Games every candidate plays (the same deals for all).")
@seed_option
@click.option("--evaluations", type=_WholeNumber(min=2), default=300, show_default=True,
              help="Candidate weight sets to play, the start's own among them.")
@click.option("--heldout-games", type=_WholeNumber(min=1), default=50_000,
              show_default=True, help="Games, never seen in tuning, to judge the result.")
@click.option("--workers", type=_WholeNumber(1, MAX_WORKERS), default=None,
              help="Threads (default: all cores). Results do not depend on it.")
@cards_option
@expansions_option
@variant_option
@click.option("--start", default="weighted", show_default=True,
              help="Weights to start from: weighted (the shipped ones), greedy, or "
                   "weighted:FILE.toml.")
@click.option("--out", type=_PATH, default="weights.toml",
              show_default=True, help="Weights file to write (.toml).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def tune(games: int, seed: int, evaluations: int, heldout_games: int, workers: int | None,
         cards: str | None, expansions: str, variant: str, start: str, out: str,
         quiet: bool) -> None:
    """Tune the weighted policy's weights for an expansion set by simulation; write them to
    --out. Only the weights that set's games feel are tuned."""
    try:
        result = analyzer.tune(games=games, seed=seed, evaluations=evaluations,
                               heldout_games=heldout_games, workers=workers, cards=cards,
                               out=out, progress=not quiet, expansions=expansions,
                               variant=variant, start=start)
    except OutputNotWritten as err:  # the tuning is done: its weights are shown, not lost
        click.echo(err.result.text(warning=False))
        click.echo(f"\n{err.text}")
        if err.result.warning:
            click.echo(f"warning: {err.result.warning}", err=True)
        raise UrbionError(f"{err.reason}: the weights found are printed above; save them "
                          "from [weights] on as a .toml file to play them") from None
    _wrote(out)
    click.echo(result.text(warning=False))
    if result.warning:
        click.echo(f"warning: {result.warning}", err=True)
    if result.keep_start:
        click.echo(f"weights    {out}  (written, but {result.start} is the one to play)")
    else:
        click.echo(f"weights    {out}  (play them with --policy weighted:{out})")


@cli.command()
@click.argument("results", nargs=-1, required=True, type=_PATH)
@click.option("--out", type=_PATH, required=True,
              help="Report folder, e.g. reports/NAME/, in a folder that exists: made, or "
                   "replaced if `urbion report` wrote it.")
@click.option("--baseline", type=_Name(["first", "base"]),
              default="first", show_default=True,
              help="Compare each run with the first run given, or each run of expansions "
                   "with its own base game among the runs, played alike but for the "
                   "expansions: several comparisons' results side by side, and whether a "
                   "set weighs alike on two base games, in odds.")
def report(results: tuple[str, ...], out: str, baseline: str) -> None:
    """Write a balance report (HTML, Markdown, charts) of RESULTS files side by side:
    results files (.parquet), or summary files of --summary-only runs (.json)."""
    folder = analyzer.report(list(results), out, baseline=baseline.lower())
    _wrote(folder)
    click.echo(f"report     {folder / 'index.html'}")
    click.echo(f"           {folder / 'report.md'}")


@cli.command()
@click.option("--games", type=_WholeNumber(min=1), default=20_000, show_default=True,
              help="Games per card set (the same games of SEED for every set).")
@seed_option
@policy_option
@click.option("--workers", type=_WholeNumber(1, MAX_WORKERS), default=None,
              help="Threads (default: all cores). Results do not depend on it.")
@click.option("--cards", type=_PATH, default=None,
              help="Card-set TOML file, or a results or summary file's cards: the "
                   "baseline whose variants are played (default: the R14 set).")
@expansions_option
@variant_option
@click.option("--scheduler", default=None, metavar="[tcp://]HOST:PORT|local:N",
              help="Run on a Dask cluster, or on a local one of N processes.")
@click.option("--out", type=_PATH, default=None,
              help="Folder for index.html, sensitivity.md, .csv and the chart (e.g. "
                   "reports/NAME/).")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run with --out from the card sets it finished.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def sensitivity(games: int, seed: int, policy: str, workers: int | None, cards: str | None,
                expansions: str, variant: str, scheduler: str | None, out: str | None,
                resume: bool, quiet: bool) -> None:
    """How the win rate moves when the card set moves away from the R14 assumption, or
    from a card file of your own (--cards)."""
    result = analyzer.sensitivity(games=games, seed=seed, policy=policy, workers=workers,
                                  out=out, progress=not quiet, expansions=expansions,
                                  variant=variant, cards=cards, scheduler=scheduler,
                                  resume=resume)
    _wrote(out)
    click.echo(str(result))
    _note(result.weights_note())
    if out:
        click.echo(f"\nreport     {Path(out) / 'index.html'}")
        click.echo(f"           {Path(out) / 'sensitivity.md'}")


@cli.command()
@click.option("--sets", default="singles", show_default=True,
              metavar="singles|pairs|all|SET,...",
              help="Expansion sets: the base game and each expansion alone, also every pair, "
                   "every combination, or a list (each set: base or none, or names joined by "
                   "+).")
@click.option("--games", type=_WholeNumber(min=1), default=10_000, show_default=True,
              help="Games per set (with --precision: per added batch).")
@seed_option
@policy_option
@click.option("--workers", type=_WholeNumber(1, MAX_WORKERS), default=None,
              help="Threads (default: all cores). Results do not depend on it.")
@cards_option
@click.option("--against", default=None, metavar="FILE|r14",
              help="Play every set with a second card set too (a card, results or summary "
                   "file, or r14 for the shipped set) and give, set by set, the change "
                   "--cards makes from it, and whether it differs from the base game's "
                   "change.")
@variant_option
@click.option("--precision", type=float, default=None,
              help="Add batches of --games to each set until the half-widths of its 95% "
                   "intervals (win rate, difference to the base game; with --against, "
                   "the change and its difference to the base game's) are at most this "
                   f"share of games (0.005: half a percentage point; at most {MAX_PRECISION})"
                   "; the base game plays as long as any set.")
@click.option("--max-games", type=_WholeNumber(min=1), default=None,
              help="With --precision only: the most games a set plays [default: 1000000, "
                   "or --games when more].")
@click.option("--out", type=_PATH, default=None,
              help="Folder for the per-set results and the comparison (CSV, Markdown, HTML, "
                   "charts).")
@click.option("--resume", is_flag=True, help="Continue an interrupted comparison in --out.")
@click.option("--scheduler", default=None, metavar="[tcp://]HOST:PORT|local:N",
              help="Run on a Dask cluster, or on a local one of N processes.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def compare(sets: str, games: int, seed: int, policy: str, workers: int | None,
            cards: str | None, against: str | None, variant: str, precision: float | None,
            max_games: int | None, out: str | None, resume: bool, scheduler: str | None,
            quiet: bool) -> None:
    """Compare expansion sets with the base game, game g with game g (McNemar, Holm); with
    --against, compare two card sets in each expansion set."""
    result = analyzer.compare(sets=sets, games=games, seed=seed, policy=policy,
                              workers=workers, cards=cards, out=out, resume=resume,
                              precision=precision, max_games=max_games,
                              scheduler=scheduler, progress=not quiet, variant=variant,
                              against=against)
    _wrote(out)
    click.echo(str(result))
    _note(result.weights_note())
    if out:
        click.echo(f"\nreport     {Path(out) / 'index.html'}")
        page = "compare.md" if against is None else "card-change.md"
        click.echo(f"           {Path(out) / page}")


@cli.command()
@click.option("--cards", type=_PATH, default=None,
              help="Card-set TOML file to check and show, or a results or summary file: the "
                   "cards its run played (default: the R14 set).")
@click.option("--template", type=_PATH, default=None,
              metavar="FILE.toml",
              help="Write a card file here, to edit into a set of your own: the shipped "
                   "R14 set's, or that of --cards (a results file: the cards its run "
                   "played).")
@click.option("--list", "listing", is_flag=True, help="One line per card instead of counts.")
@click.option("--against", type=_PATH, default=None,
              help="Card-set TOML file (or a results or summary file, or r14) to say what "
                   "--cards changes from, instead of the R14 set.")
def cards(cards: str | None, template: str | None, listing: bool,
          against: str | None) -> None:
    """Check a card-set file and show its cards: counts and values per expansion (the
    shipped R14 set without --cards), and what they change from R14 or --against."""
    from analyzer.analysis.card_table import card_file_text

    if against is not None and (template is not None or listing):
        raise UrbionError(f"--against says what the cards change: it takes no "
                          f"{'--template' if template is not None else '--list'}")
    if template is not None:
        if listing:
            raise UrbionError("--template writes a card file: it takes no --list")
        path = analyzer.write_card_template(template, cards)
        _wrote(path)
        if cards is None:
            click.echo(f"wrote {path}: the R14 card set; give it a name and description of "
                       f"its own, then play it with --cards {path}")
        else:
            written = analyzer.load_cards(path)
            click.echo(f"wrote {path}: the cards of {written.name} (sha256 "
                       f"{written.digest[:12]}); --cards {path} plays them, and under a "
                       "name of your own, your changes to them")
        return
    table = analyzer.card_table(cards)
    if listing:
        click.echo(f"card set   {table.attrs['card_set']} (sha256 "
                   f"{table.attrs['card_set_sha256'][:12]}), one line per card\n")
        click.echo(table.astype(object).where(table.notna(), "").to_string(index=False))
        return
    if against is not None:  # refused as --against, not as the --cards card_table takes
        analyzer.arguments.path("against", against, flag="--against", kinds="a path")
    try:
        reference = None if cards is None and against is None else \
            analyzer.card_table(against)
    except UrbionError as err:  # the second file named: say which it is
        raise UrbionError(f"--against: {err}") from None
    click.echo(card_file_text(table, cards, reference))


@cli.command()
def policies() -> None:
    """List the built-in policies."""
    rows = list(analyzer.builtin_policies()["description"].items())
    rows.append(("FILE.py:FN", "your own jitted policy (docs/policies.md)"))
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        click.echo(f"{name:{width}s}  {description}")


def main(argv: list[str] | None = None) -> None:
    """Entry point: every user error is one line on stderr and exit code 2."""
    interrupts.stopping_on_sigterm()
    # a name the terminal cannot show (Greek on Latin-1, a file name's stray bytes) is
    # shown as best it can; a caller in Python gets its streams back as they were
    streams = [s for s in (sys.stdout, sys.stderr) if hasattr(s, "reconfigure")]
    was = [stream.errors for stream in streams]
    for stream in streams:
        stream.reconfigure(errors="replace")
    try:
        _main(argv)
    finally:
        if argv is not None:
            for stream, errors in zip(streams, was, strict=True):
                stream.reconfigure(errors=errors)


def _main(argv: list[str] | None) -> None:
    """:func:`main` within its streams' settings."""
    if sys.stdout is None:  # started with stdout closed (>&-): no work whose output is lost
        _say("urbion: error: cannot write the output: stdout is closed")
        sys.exit(EXIT_USAGE)
    _written.clear()
    try:
        code = cli.main(args=argv, prog_name="urbion", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as err:
        _exit_with_help(err, argv)
    except click.ClickException as err:
        _say(f"urbion: error: {err.format_message()}"
             f"{_help_hint(err, sys.argv[1:] if argv is None else argv)}")
        sys.exit(EXIT_USAGE)
    except _ReaderGone:  # a reader that has gone needs no word
        if argv is None:  # the command's own process, which exits now
            _detach_stdout()
        sys.exit(EXIT_READER_GONE)
    except RunStopped as err:
        _exit_stopped(err, argv)
    except UrbionError as err:
        _say(f"urbion: error: {err}")
        sys.exit(EXIT_USAGE)
    except click.Abort:
        _say(f"urbion: {interrupts.stop_word()}{_after_writing()}")
        sys.exit(_stop_code())
    except MemoryError:
        _say(f"urbion: error: {out_of_memory(None)}")
        sys.exit(EXIT_USAGE)
    except UnicodeEncodeError as err:
        if "surrogates not allowed" not in str(err):
            raise
        _say("urbion: error: a file name cannot be given on as UTF-8 text in this locale: "
             "rename it, or run in a UTF-8 locale")
        sys.exit(EXIT_USAGE)
    except OSError as err:
        _exit_on_os_error(err, argv)
    sys.exit(code if isinstance(code, int) else 0)


def _exit_with_help(err: click.exceptions.NoArgsIsHelpError,
                    argv: list[str] | None) -> NoReturn:
    """Show the help asked for by a command given without its arguments, and exit 2."""
    try:
        click.echo(err.ctx.get_help() if err.ctx else str(err))
    except OSError as failed:  # stdout on a full disk, or a reader gone
        if argv is None:
            _detach_stdout()
        if failed.errno == errno.EPIPE:
            sys.exit(EXIT_READER_GONE)
        _say(f"urbion: error: cannot write the output: {failed.strerror or failed}")
    sys.exit(EXIT_USAGE)


def _exit_stopped(err: RunStopped, argv: list[str] | None) -> NoReturn:
    """Say why a run stopped and exit: Ctrl-C is the user's own stop, a full disk or a lost
    cluster an error."""
    _say(f"urbion: {err}" if err.interrupted else f"urbion: error: {err}")
    if err.interrupted and argv is None:
        # a further Ctrl-C or SIGTERM ends it at once, as without a handler (argv given:
        # a caller in Python, whose handlers stay)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _leave_playing_threads(_stop_code())
    sys.exit(_stop_code() if err.interrupted else EXIT_USAGE)


def _exit_on_os_error(err: OSError, argv: list[str] | None) -> NoReturn:
    """Exit on a name too long or on output that cannot be written; re-raise any other
    error of the system, which is not the user's to mend."""
    if err.errno == errno.ENAMETOOLONG:  # an input's name, or a folder's made on the way
        _say(f"urbion: error: {err.filename}: {err.strerror}")
        sys.exit(EXIT_USAGE)
    if not _writing_stdout(err):
        raise err
    if argv is None:  # the command's own process, which exits now
        _detach_stdout()
    if err.errno == errno.EPIPE:  # the help, which click writes outside a command
        sys.exit(EXIT_READER_GONE)
    _say(f"urbion: error: cannot write the output: {err.strerror or err}")
    sys.exit(EXIT_USAGE)


def _help_hint(err: click.ClickException, argv: list[str]) -> str:
    """Where to read a command's options, after a missing or unknown one, or one without
    its value: the line stands alone, without click's usage lines. click gives the last
    no context: its command is the first word of ``argv`` that names one."""
    if not isinstance(err, click.MissingParameter | click.NoSuchOption |
                      click.BadOptionUsage):
        return ""
    if err.ctx is not None:
        return f" Try '{err.ctx.command_path} --help'."
    command = next((word for word in argv if word in cli.commands), None)
    return f" Try 'urbion {command} --help'." if command else " Try 'urbion --help'."


def _leave_playing_threads(code: int) -> None:
    """Exit with ``code`` now if threads still play games a stop does not keep: compiled
    code cannot be stopped, and Python's exit would wait for them, for good with a policy
    that never returns. Nothing is left to write: every file was finished or removed as
    the stop was raised (a Dask cluster's threads are not these, and exit as usual)."""
    import threading

    from analyzer.runner.executors import PLAYING_THREAD

    playing = [thread for thread in threading.enumerate()
               if thread.name.startswith(PLAYING_THREAD) and thread.is_alive()]
    if playing:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def _say(message: str) -> None:
    """``message`` on stderr, on one line, if stderr takes it: the exit code says the
    rest."""
    try:
        click.echo(one_line(message), err=True)
    except (OSError, ValueError):
        pass


def _writing_stdout(err: OSError) -> bool:
    """Whether ``err`` came from writing the command's output to stdout (a full disk, a
    closed pipe): raised inside click's echo to stdout."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "echo" and not frame.f_locals.get("err"):
            # click's own wrapper of stdout, under some locales, is no sys.stdout: its
            # descriptor says
            file = frame.f_locals.get("file")
            try:
                if file is None or file is sys.stdout or file.fileno() == 1:
                    return True
            except (AttributeError, OSError, ValueError):
                pass
        tb = tb.tb_next
    return False


def _detach_stdout() -> None:
    """Point stdout at /dev/null, so that Python's own flush at exit does not raise again
    on what is left in its buffer."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _after_writing() -> str:
    """What a stop message adds when the command's outputs were already written whole."""
    return f" after writing {' and '.join(_written)} in full" if _written else ""


def _stop_code() -> int:
    return EXIT_TERMINATED if interrupts.terminated() else EXIT_INTERRUPTED


if __name__ == "__main__":
    main()
