"""``urbion trace``, ``show`` and ``replay``: single games as traces, as text a player
follows, and checked against the rules."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from analyzer import arguments
from analyzer.api import simulation
from analyzer.api.common import (
    Cards,
    Expansions,
    check_not_an_input,
    checked_engine,
    checked_run_inputs,
    load_cards,
    memory_in_one_line,
    raise_if_the_policy_raised,
    readable_bytes,
    weights_file_given,
)
from analyzer.cards import CardSet
from analyzer.core.codes import RULES_VERSION
from analyzer.errors import RunStopped, UrbionError
from analyzer.policies.registry import PolicySpec
from analyzer.policies.weights import weights_note as run_weights_note
from analyzer.runner import interrupts
from analyzer.runner.plan import RunPlan
from analyzer.runner.reference_runner import run_reference
from analyzer.runner.tracing import fast_trace
from analyzer.trace.jsonl import check_trace_path, write_trace_stream, write_traces
from analyzer.wording import plural

#: The most games :func:`trace` holds in memory at once (about 85 kB a base game);
#: :func:`trace_to_file` writes any number.
MAX_TRACES_HELD = 20_000


@memory_in_one_line
def trace(seed: int = 0, game: int = 0, games: int = 1, policy: str | PolicySpec = "greedy",
          cards: Cards = None, engine: str = "fast",
          out: str | Path | None = None, expansions: Expansions = None,
          variant: str | None = None, progress: bool = False) -> list[dict]:
    """Traces of games ``game .. game + games - 1`` of batch ``seed``, at most
    ``MAX_TRACES_HELD`` (every trace is held in memory; :func:`trace_to_file` writes more).

    Parameters
    ----------
    seed, game, games, policy, cards, engine, expansions, variant
        As for :func:`simulate`; ``game`` is the first game traced.
    out : path, optional
        JSON Lines file (``.jsonl``) to write the traces to, or a ``.json`` file for a
        single trace (checked before playing).
    progress : bool
        A progress bar on stderr, counting games traced.

    Returns
    -------
    list of dict
        One ``urbion-trace/1`` trace per game (../shared/TRACE.md).
    """
    games = arguments.whole_number("games", games, 1)
    if games > MAX_TRACES_HELD:
        raise UrbionError(f"games={games:,}: trace holds every trace in memory (about 85 kB a "
                          f"game), so at most {MAX_TRACES_HELD:,} at once; trace_to_file (the "
                          "CLI's urbion trace) writes any number to a file as they are played")
    traced = _traced_games(seed, game, games, policy, cards, engine, out, expansions, variant,
                           progress)
    traces = list(traced)
    if out is not None:
        write_traces(traces, out)
    return traces


@memory_in_one_line
def trace_to_file(out: str | Path, seed: int = 0, game: int = 0, games: int = 1,
                  policy: str | PolicySpec = "greedy",
                  cards: Cards = None, engine: str = "fast",
                  expansions: Expansions = None, variant: str | None = None,
                  progress: bool = False) -> int:
    """Write the traces of :func:`trace` to ``out`` (JSON Lines) as each game is played,
    so that memory stays flat however many games; the file appears whole at the end, or
    not at all (``urbion trace``).

    Parameters
    ----------
    out : path
        The ``.jsonl`` file to write.
    seed, game, games : int
        Games ``game`` .. ``game+games-1`` of batch ``seed``.
    policy, cards, engine, expansions, variant, progress
        As for :func:`trace`.

    Returns
    -------
    int
        The number of traces written.
    """
    out = arguments.path("out", out, optional=False)
    games = arguments.whole_number("games", games, 1)
    traced = _traced_games(seed, game, games, policy, cards, engine, out, expansions, variant,
                           progress)
    with interrupts.holding():  # a stop while a trace is written stops as one in a game
        try:
            first = next(traced)  # checks and compiles before a file is opened
            write_trace_stream(itertools.chain([first], traced), out, games)
        finally:
            traced.close()  # its own hold ends now, not when the error is let go
    return games


#: The fewest bytes a game's trace takes (a base game's is about 14 KB, a team game's with
#: every expansion about 33 KB): what a run of traces needs at least.
TRACE_BYTES_AT_LEAST = 8_000


def _check_trace_room(out: Path, games: int) -> None:
    """Refuse traces that cannot fit on the disk of ``out``, before hours of writing fill
    it: ``games`` traces of at least :data:`TRACE_BYTES_AT_LEAST` bytes each."""
    try:
        free = shutil.disk_usage(out.parent).free
    except OSError:  # a system that does not say: the write itself will tell
        return
    need = games * TRACE_BYTES_AT_LEAST
    if need > free:
        raise UrbionError(f"{games:,} traces take at least {readable_bytes(need)} (about "
                          f"{TRACE_BYTES_AT_LEAST // 1000} KB a game or more), more than "
                          f"the {readable_bytes(free)} free for {out}: trace fewer games")


def _traced_games(seed: int, game: int, games: int, policy: str | PolicySpec, cards,
                  engine: str, out: Path | str | None, expansions: Expansions,
                  variant: str | None, progress: bool) -> Iterator[dict]:
    """The traces of :func:`trace`, one by one, each with its provenance; the arguments
    are checked (and ``out`` with them) before the first is played."""
    from analyzer.runner.progress import clearing_on_error, progress_bar

    games, seed, game = arguments.game_counts(games, seed, game, "game")
    progress = arguments.flag("progress", progress)
    engine = checked_engine(engine)
    card_set, spec = checked_run_inputs(engine, policy, cards, expansions, variant)
    out = arguments.path("out", out)
    if out is not None:
        check_trace_path(out, games)
        _check_trace_room(out, games)
        check_not_an_input(out, {"--cards": cards, "--policy": weights_file_given(policy)},
                           "the trace")
    provenance = _trace_provenance(card_set, spec, seed, games, game, engine)

    def one(g: int) -> dict:
        if engine != "fast":  # names the game a policy raises in itself
            played = run_reference(card_set, spec, seed, 1, g, variant=card_set.variant)[0]
            return _with_provenance(played, provenance)
        try:
            return _with_provenance(fast_trace(card_set, spec, seed, g), provenance)
        except Exception as err:
            from analyzer.policies.loader import game_note

            err.add_note(game_note(seed, g))  # read only if the policy raised it
            raise

    try:
        with interrupts.holding():
            yield one(game)  # the first compiles the engine: the bar counts games only
            with clearing_on_error(progress_bar(games, progress and games > 1, "tracing",
                                                initial=1)) as bar:
                for g in range(game + 1, game + games):
                    yield one(g)
                    bar.update(1)
    except Exception as err:
        raise_if_the_policy_raised(spec, err)
        raise


#: Keys a trace adds to TRACE.md's header (an extension by added keys): which engine,
#: card set content, policy version and rules made it, as a results file records them.
TRACE_PROVENANCE = ("engine", "card_set_sha256", "policy_params_sha256",
                    "policy_source_sha256", "rules_version", "package_version", "commit")


def _trace_provenance(card_set: CardSet, spec: PolicySpec, seed: int, games: int,
                      game: int, engine: str) -> dict:
    """The ``TRACE_PROVENANCE`` values of traced games (the source hash only for a
    user's policy)."""
    config = RunPlan.for_policy(card_set, spec, seed, games, game, engine).config()
    return {key: config[key] for key in TRACE_PROVENANCE if key in config}


def _with_provenance(one: dict, provenance: dict) -> dict:
    """``one`` with ``provenance`` after its ``card_set`` key, the header's last name."""
    keys = list(one)
    cut = keys.index("card_set") + 1
    return {**{key: one[key] for key in keys[:cut]}, **provenance,
            **{key: one[key] for key in keys[cut:]}}


@memory_in_one_line
def show(seed: int | None = None, game: int | None = None,
         policy: str | PolicySpec | None = None, cards: Cards = None,
         expansions: Expansions = None, variant: str | None = None,
         trace_file: str | Path | dict | None = None, won: bool = False,
         progress: bool = False) -> str:
    """One game as text a player can follow, turn by turn.

    Parameters
    ----------
    seed, game : int, optional
        Game ``game`` of batch ``seed`` (default 0 and 0).
    policy : str or PolicySpec, optional
        Default greedy; as for :func:`simulate`.
    cards, expansions, variant
        As for :func:`simulate`.
    trace_file : path or dict, optional
        Show a trace of this file (``urbion trace --out``) instead of playing the game,
        replayed against the rules: the one of game ``game`` (and of seed ``seed``, when
        given; an error when the file holds that game of several seeds and none is given),
        or the file's first trace; or one trace as a dict, as :func:`trace` returns it.
        ``policy``, ``cards``, ``expansions`` and ``variant`` do not apply then: the trace
        holds them.
    won : bool
        Show the first game the policy wins from ``game`` on instead, looked for among the
        next :data:`WON_SEARCH_GAMES` games (an error when none of them is won).
    progress : bool
        With ``won``, a progress bar on stderr.

    Returns
    -------
    str
        Each turn's decisions, then every row (city, elements, both sides, total), the hand
        with the cards drawn, and the counters; at the end the result and how the game
        went (``analyzer.trace.summary``).
    """
    from analyzer.trace.show import render_trace

    won = arguments.flag("won", won)
    progress = arguments.flag("progress", progress)
    if trace_file is None:
        _, seed, game = arguments.game_counts(1, 0 if seed is None else seed,
                                              0 if game is None else game, "game")
        # prepared once: a user's policy compiles as it loads
        card_set, spec = checked_run_inputs("fast", "greedy" if policy is None else policy,
                                            cards, expansions, variant)
        note = ""
        if won:
            first, game = game, _first_won(seed, game, spec, card_set, progress)
            note = (f"Game {game} is the first of seed {seed} from game {first} that "
                    f"{spec.name} wins.\n\n")
        text = note + render_trace(trace(seed, game, 1, spec, card_set)[0])
        weights = run_weights_note(RunPlan.for_policy(card_set, spec, seed, 1, game,
                                                      "fast").config())
        return text + (f"\n{weights}" if weights else "")
    if won:
        raise UrbionError(f"{arguments.option('won')}: not for a trace file, whose game is "
                          "chosen by seed and game")
    given = [name for name, value in (("policy", policy), ("cards", cards),
                                      ("expansions", expansions), ("variant", variant))
             if value is not None]
    if given:
        raise UrbionError(f"{', '.join(arguments.option(name) for name in given)}: not for a "
                          "trace file, whose trace names its own")
    if isinstance(trace_file, dict):  # a trace as trace() returns it
        if seed is not None or game is not None:
            raise UrbionError(f"{arguments.option('seed')}, {arguments.option('game')}: not "
                              "for one trace given as a dict, which is the one game shown")
        return _shown_trace(trace_file, None)
    return _show_trace_file(arguments.path("trace_file", trace_file, optional=False),
                            None if seed is None else arguments.whole_number("seed", seed),
                            None if game is None else arguments.whole_number("game", game))


#: How many games ``show(won=True)`` plays at most to find a game won.
WON_SEARCH_GAMES = 200_000


def _first_won(seed: int, game: int, policy: PolicySpec, cards: CardSet,
               progress: bool) -> int:
    """The first game from ``game`` on that ``policy`` wins, in batches of games growing
    fourfold from 2,000, or from a chunk of a search policy, whose games are dear."""
    from analyzer.runner.plan import default_chunk

    batch, start = min(2_000, default_chunk(policy)), game
    end = min(game + WON_SEARCH_GAMES, arguments.MAX_SEED + 1)
    while start < end:
        size = min(batch, end - start)
        try:
            df = simulation.simulate(games=size, seed=seed, first_game=start, policy=policy,
                                     cards=cards, progress=progress)
        except RunStopped as stop:  # its count was of the batch, not of the search
            if not stop.interrupted:
                raise
            raise RunStopped(f"{interrupts.stop_word()} while looking for a game won, "
                             f"{plural(start - game, 'game')} of seed {seed} from game "
                             f"{game:,} played without a win", True) from None
        wins = df.loc[df["won"], "game"]
        if len(wins):
            return int(wins.min())
        start, batch = start + size, batch * 4
    raise UrbionError(f"--won (won=): {policy.name} wins none of games {game:,} to "
                      f"{end - 1:,} of seed {seed}")


def _show_trace_file(path: Path, seed: int | None, game: int | None) -> str:
    from analyzer.trace.jsonl import chosen_trace

    line, chosen = chosen_trace(path, seed, game)
    return _shown_trace(chosen, f"{path}, line {line}")


def _shown_trace(chosen: dict, where: str | None) -> str:
    """A trace (``where`` names its file and line in an error; None: a dict) as ``show``
    prints it, replayed against the rules first, with a note where it is not the game it
    names."""
    from analyzer.reference.replay import ReplayError, replay
    from analyzer.trace.show import render_trace

    try:
        # rendered only once known to be a whole, legal game
        result = replay(chosen, check_deal=True)
    except ReplayError as err:
        if where is None:  # a trace given as a dict, in Python
            raise UrbionError(f"the trace does not replay ({err})") from None
        raise UrbionError(f"{where}: the trace does not replay ({err}); "
                          "`urbion replay` checks every trace of a file") from None
    text = render_trace(chosen)
    if result["cards_of_set"] is False:
        text = (f"Note: this trace names the card set {chosen['card_set']}, but its cards "
                "table or card-set hash is another set's: an edited trace; the game was "
                "checked against the cards it lists.\n\n" + text)
    if not result["rules_as_named"]:
        text = (f"Note: this trace names the rules {chosen['rules_version']}; it was "
                f"checked against {RULES_VERSION}.\n\n" + text)
    if not result["deal_of_seed"]:
        text = (f"Note: the shuffles of this trace are not those of game {chosen['game']} of "
                f"seed {chosen['seed']}, as it says: an edited or hand-built trace, whose "
                "rules were checked, not its seed and game.\n\n" + text)
    return text


@memory_in_one_line
def replay(traces: str | Path | list[dict] | dict,
           cards: Cards = None) -> pd.DataFrame:
    """Check traces against the rules: each is replayed decision by decision by the
    reference replayer, whichever engine (or hand) wrote it.

    Parameters
    ----------
    traces : path, dict or list of dict
        A trace file (``urbion trace --out``), one trace, or a list (or tuple) of traces.
    cards : path, CardSet or DataFrame, optional
        A card-set file every trace's cards (and card-set name and hash) are checked
        against. Without it a trace naming the shipped R14 set is checked against R14, and
        a trace of another set is replayed with the cards it lists (``cards_of_set`` None).

    Returns
    -------
    pandas.DataFrame
        One row per trace (analysis.audit.COLUMNS): its line in the file (its position for
        a list), seed, game, ``replays`` and, for a trace that does not, the ``error``
        naming the log entry and what is wrong; the replayed outcome, reason and turns;
        ``deal_of_seed`` and ``cards_of_set``, whether its shuffles are those of the game
        it names and its cards those of the R14 set when it names it (None: another set),
        or those of ``cards`` (cards, name and hash); ``cards_alike``, with ``cards``,
        whether it holds those cards whatever set it names (a renamed copy: True);
        ``rules_as_named``, whether it names the rules this version plays (or none);
        ``passes_strict``, what ``urbion replay --strict`` asks (it
        replays, and is found to be no other game than the one it names).
        ``attrs["source"]`` names the file, ``attrs["card_set"]`` the set of ``cards``.
    """
    from analyzer.analysis.audit import audit
    from analyzer.trace.jsonl import TraceLine, read_traces

    if isinstance(traces, dict):
        traces = [traces]
    if isinstance(traces, list | tuple) and any(isinstance(t, str | Path) for t in traces):
        raise UrbionError("replay takes one trace file, or traces (dicts): a list holds "
                          "traces as dicts, not file names or text; replay each file in turn")
    if isinstance(traces, list | tuple) and not traces:
        # as a file that holds none: every trace of none replays, which passes for a check
        raise UrbionError("replay: the list holds no trace")
    if isinstance(traces, list | tuple):
        items = [TraceLine(number, item, None) for number, item in enumerate(traces, start=1)]
        source = f"{len(traces)} trace(s)"
    else:
        path = arguments.path("traces", traces, optional=False)
        with interrupts.holding():
            items, source = read_traces(path), str(path)
    card_set = None if cards is None else load_cards(cards)
    with interrupts.holding():  # a stop is a RunStopped, as in every other call
        df = audit(items, card_set)
    df.attrs = {"source": source}
    if card_set is not None:
        df.attrs["card_set"] = card_set.name
    return df
