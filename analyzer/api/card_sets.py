"""``urbion cards``, ``urbion policies`` and the helpers between commands: card tables and
differences, card templates, results files and weights notes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analyzer import arguments
from analyzer.analysis.results_io import is_run_file, run_cards
from analyzer.api.common import (
    CARDS_KINDS,
    Cards,
    load_cards,
    memory_in_one_line,
    names_shipped_set,
)
from analyzer.cards import CardSet, load_card_set
from analyzer.errors import UrbionError
from analyzer.policies.weights import weights_note as run_weights_note


@memory_in_one_line
def card_table(cards: Cards = None) -> pd.DataFrame:
    """Every card of a card-set file (the shipped R14 set for None), whatever the
    expansions: one row per card with its id, expansion, type, kind, elements and values,
    the set's name, SHA-256 and source in ``attrs`` (analysis.card_table). A file is
    validated as ``simulate`` validates it."""
    from analyzer.analysis.card_table import card_table as table_of

    return table_of(load_cards(cards))


@memory_in_one_line
def card_differences(cards: Cards, against: Cards = None) -> str:
    """What the card set ``cards`` changes from ``against``, as ``urbion cards --cards
    FILE`` says it: for each kind of card whose count differs, the two counts, one line
    each under a heading that names both sets by name and hash; for the same cards, whether
    only their order or their name differs; "" for one card set. Each may be a card file,
    a results or summary file, a loaded set, a frame ``simulate`` returned, or None for the
    shipped R14 set."""
    from analyzer.analysis.card_table import card_differences as differences

    if against is not None and not isinstance(against, CardSet | pd.DataFrame):
        against = arguments.path("against", against, kinds=CARDS_KINDS)
    return differences(card_table(against), card_table(cards))


@memory_in_one_line
def weights_note(results: pd.DataFrame | dict) -> str | None:
    """The note ``urbion simulate`` prints under a run's summary about the weights its
    policy plays, or None: shipped weights (``weighted``, and ``search`` and
    ``clairvoyant``, which look ahead with them) playing other cards, expansions or the
    team game than they were tuned on, or a tuned file playing elsewhere or on its own
    tuning games (docs/policies.md).

    ``results``: what :func:`simulate` or :func:`read_results` returns, the dict
    :func:`simulate_summary` returns, or a run's configuration (a ``df.attrs``).
    """
    if isinstance(results, pd.DataFrame):
        attrs = results.attrs
    elif isinstance(results, dict):
        attrs = results.get("config", results)
    else:
        raise UrbionError("weights_note takes a DataFrame of results, a summary or a run's "
                          f"configuration, not {type(results).__name__}")
    if "policy" not in attrs or "card_set_sha256" not in attrs:
        raise UrbionError("weights_note: no run configuration (its policy and card set) in "
                          "what was given")
    return run_weights_note(attrs)


@memory_in_one_line
def read_results(path: str | Path) -> pd.DataFrame:
    """Read a results file (``simulate(out=...)``, ``urbion simulate --out``, or a frame
    ``simulate`` returned saved with ``DataFrame.to_parquet``): one row per game, the run's
    configuration in ``attrs``. A file that is not a whole results file raises UrbionError
    with one line saying why."""
    from analyzer.analysis.results_io import read_results as read

    return read(arguments.path("path", path, optional=False))


@memory_in_one_line
def builtin_policies() -> pd.DataFrame:
    """The built-in policies (``urbion policies``): one row per name, with what it does."""
    from analyzer.policies.registry import BUILTIN_POLICIES

    return pd.DataFrame({"description": [spec.description
                                         for spec in BUILTIN_POLICIES.values()]},
                        index=pd.Index(list(BUILTIN_POLICIES), name="policy"))


@memory_in_one_line
def write_card_template(out: str | Path, cards: Cards = None) -> Path:
    """Write a card-set file to ``out`` (a new ``.toml`` file), to edit into a card set of
    one's own; return its path. ``cards``: the shipped R14 file for None; a card file, copied
    as it is; or a loaded set, a results or summary file, or a frame ``simulate`` returned,
    whose cards are written as the card file that loads into them (the same name and
    hash)."""
    from analyzer.atomic import check_writable, write_atomically
    from analyzer.cards.loader import default_card_text
    from analyzer.cards.writer import card_file_text

    path = check_writable(arguments.path("out", out, optional=False, flag="--template"),
                          (".toml",))
    if path.exists():  # most likely a card file being edited
        raise UrbionError(f"{path} exists: the template is written to a new file only "
                          "(remove it, or choose another name)")
    if isinstance(cards, pd.DataFrame):
        cards = load_cards(cards)
    source = cards if isinstance(cards, CardSet) else \
        arguments.path("cards", cards, kinds=CARDS_KINDS)
    if source is None or names_shipped_set(source):
        text = default_card_text()
    elif isinstance(source, CardSet):
        text = card_file_text(source.checked())
    elif is_run_file(source):
        text = card_file_text(run_cards(source))
    else:
        load_card_set(source)  # a file that loads, as it is
        text = source.read_text(encoding="utf-8-sig")
    write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    return path
