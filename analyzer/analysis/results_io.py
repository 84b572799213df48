"""Results files: Parquet with the run's configuration in the file metadata."""

from __future__ import annotations

import json
import math
import shlex
import tempfile
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analyzer import atomic
from analyzer.analysis.summary import SIGNED_MEANS
from analyzer.analysis.totals import Totals
from analyzer.cards.loader import CardSet, CardSetError, load_card_file, unpacked_table
from analyzer.cards.writer import card_file_text
from analyzer.core.codes import (
    PLAYABLE_EXPANSIONS,
    REASON_NAMES,
    SUMMARY_FORMAT,
    VARIANT_NAMES,
)
from analyzer.errors import ResultsFileError, UrbionError
from analyzer.runfile import METADATA_KEY, PANDAS_ATTRS_KEY, head, is_run_file
from analyzer.runner.results import RESULT_DTYPE
from analyzer.runner.tally import (
    LAYOUT,
    PACIFIED_BINS,
    SUMMED,
    TALLY_KEY,
    empty_tally,
    part,
)
from analyzer.textfiles import UnreadableText, read_small_text
from analyzer.wording import has_unshown

if TYPE_CHECKING:
    from analyzer.policies.spec import PolicySpec


def check_writable(path: str | Path) -> Path:
    """Fail early, before a long run, when the results file cannot be written."""
    return atomic.check_writable(path, (".parquet",))


def write_results(df: pd.DataFrame, path: str | Path) -> None:
    """Write ``df`` and ``df.attrs`` to Parquet, complete or not at all."""
    path = check_writable(path)
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(df.attrs, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    atomic.write_atomically(path, lambda tmp: _write_parquet(table, tmp))


def _write_parquet(table: pa.Table, path: str) -> None:
    """Write ``table`` through a file Python opened: pyarrow takes a name as UTF-8 text,
    which a name of other bytes (Latin-1's, or any under an ASCII locale) is not."""
    with open(path, "wb") as file:
        pq.write_table(table, file)


#: What writes a results file, and a summary file, in the CLI's words and in Python's.
RESULTS_WRITER = ("urbion simulate --out FILE.parquet (simulate(out=...) in Python) writes "
                  "results files")
SUMMARY_RUN = "a --summary-only run (simulate_summary in Python)"


def check_summary_writable(path: str | Path) -> Path:
    """Fail early when the summary file (``--summary-only --out``) cannot be written."""
    if Path(path).suffix != ".json":
        raise UrbionError(f"{SUMMARY_RUN} writes a summary file: --out (out=) must end in "
                          f".json, not {path} (a results file of every game: without "
                          "--summary-only, simulate in Python)")
    return atomic.check_writable(path, (".json",))


def write_summary(summary: dict, tally: np.ndarray, config: dict, path: str | Path) -> None:
    """Write a summary-only run: its figures, its tally (by part) and its configuration
    (with the packed card table, which a report of it shows)."""
    path = check_summary_writable(path)
    document = {
        "format": SUMMARY_FORMAT,
        "config": _without_nan(config),
        "summary": _without_nan(summary),
        "tally": {name: part(tally, name).tolist() for name in LAYOUT},
        # what each entry of the tally is: bare arrays otherwise, read by guessing
        "tally_key": TALLY_KEY,
    }
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    atomic.write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def summary_json(summary: dict, config: dict, out: str | None = None) -> str:
    """A run's summary and configuration as one line of JSON (``simulate --json``): a
    summary file's parts but its tally, so no summary file; NaN as null. ``out``, the file
    the run wrote, as ``results``."""
    document = {"config": _without_nan(config), "summary": _without_nan(summary)}
    if out is not None:
        document["results"] = str(out)
    return json.dumps(document, allow_nan=False)


def read_summary(path: str | Path) -> Totals:
    """Read a summary file written by :func:`write_summary` as the run's totals.

    Raises ResultsFileError for a file that cannot be read or is not a whole summary (a
    configuration, every part of the tally at its length, counts that add up)."""
    path = Path(path)
    try:
        text = read_small_text(path)  # a byte-order mark is not JSON's
    except UnreadableText as err:
        raise ResultsFileError(f"cannot read summary file {path}: {err}") from None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        document = None
    if not isinstance(document, dict) or document.get("format") != SUMMARY_FORMAT:
        raise ResultsFileError(f"{path} is not an urbion summary file: {_json_kind(text)}")
    config, parts = document.get("config"), document.get("tally")
    if not isinstance(config, dict) or not {"seed", "policy", "card_set_sha256"} <= set(config):
        raise ResultsFileError(f"{path} is not an urbion summary file (no run configuration)")
    tally = empty_tally()
    for name, where in LAYOUT.items():
        values = parts.get(name) if isinstance(parts, dict) else None
        # sums may be negative (the inhabitant sum), the rest are counts
        least = -INT64_LIMIT if name == "sums" else 0
        if not isinstance(values, list) or len(values) != where.stop - where.start or \
                not all(_whole(v, least) for v in values):
            raise ResultsFileError(f"{path} is not a whole urbion summary file (its tally's "
                                   f"{name} is missing or not {where.stop - where.start} "
                                   "whole numbers)")
        tally[where] = values
    _check_config(path, config)
    _check_tally(path, tally, config)
    return Totals(tally, config)


def _check_config(path: Path, config: dict, kind: str = "summary") -> None:
    """A summary's or results file's (``kind``) configuration holds what the report reads
    from it, each of its kind: a hand-edited one would otherwise become labels and
    bounds."""
    from analyzer.arguments import MAX_SEED
    from analyzer.policies.weights import tuned_key_wrong as _tuned_key_wrong

    checks = {
        "seed": _whole(config.get("seed"), 0) and config["seed"] <= MAX_SEED,
        "first_game": _whole(config.get("first_game", 0), 0),
        "policy": isinstance(config.get("policy"), str) and bool(config["policy"].strip()),
        "card_set": isinstance(config.get("card_set"), str),
        "card_set_sha256": isinstance(config.get("card_set_sha256"), str),
        "expansions": isinstance(config.get("expansions", []), list) and
        all(name in PLAYABLE_EXPANSIONS for name in config.get("expansions", [])) and
        len(set(config.get("expansions", []))) == len(config.get("expansions", [])),
        "variant": config.get("variant", "solo") in VARIANT_NAMES,
        "engine": config.get("engine", "fast") in ENGINES,
        "city_cards": config.get("city_cards") is None or _whole(config["city_cards"], 1),
        "games_resumed": _whole(config.get("games_resumed", 0) or 0, 0),
        "policy_tuned_for": config.get("policy_tuned_for") is None or (
            isinstance(config["policy_tuned_for"], dict) and
            not _tuned_key_wrong(config["policy_tuned_for"])),
        "seconds": config.get("seconds") is None or (
            isinstance(config["seconds"], int | float) and
            not isinstance(config["seconds"], bool) and config["seconds"] >= 0),
    }
    # printed on terminals and pages: an escape sequence there would act, not show
    for key in PRINTED_KEYS:  # besides its kind, checked above for some
        acting = isinstance(config.get(key), str) and has_unshown(config[key])
        checks[key] = checks.get(key, True) and not acting
    wrong = [name for name, ok in checks.items() if not ok]
    if wrong:
        raise ResultsFileError(f"{path} is not a whole urbion {kind} file (its "
                               f"configuration's {wrong[0]} is not one a run writes)")


#: The text of a run's configuration that terminals and pages print as it is.
PRINTED_KEYS = ("policy", "card_set", "card_set_sha256", "commit", "package_version",
                "rules_version", "played_on", "policy_params_sha256", "policy_source_sha256")
#: The engines a run is played by.
ENGINES = ("fast", "reference")
#: The bound of a tally's int64 entries.
INT64_LIMIT = 2**63


def _whole(value: object, least: int) -> bool:
    """Whether a JSON value is a whole number from ``least`` up to int64's bound."""
    return isinstance(value, int) and not isinstance(value, bool) and \
        least <= value < INT64_LIMIT


def _json_kind(text: str) -> str:
    """What a text that is no summary file is, in words: a trace file, or which format."""
    first = text.lstrip().split("\n", 1)[0]
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        head = None
    kind = head.get("format") if isinstance(head, dict) else None
    if isinstance(kind, str) and kind.startswith("urbion-trace/"):
        return "it is a trace file (urbion replay and urbion show --trace-file read those)"
    if kind is not None:
        return f"its format is {str(kind)[:40]!r}, not {SUMMARY_FORMAT!r}"
    return (f"not the JSON of format {SUMMARY_FORMAT!r} that simulate --summary-only --out "
            "FILE.json writes (simulate_summary(out=...) in Python)")


def _check_tally(path: Path, tally: np.ndarray, config: dict) -> None:
    """A tally's counts agree: games won and lost make the games, as do the turns and the
    cities counted; each sum is within what its histogram and sum of squares allow."""
    games = int(part(tally, "games")[0])
    if games < 1:
        raise ResultsFileError(f"{path} holds no games")
    if int(part(tally, "wins")[0]) + int(part(tally, "loss_reasons").sum()) != games or \
            int(part(tally, "turns_hist").sum()) != games or \
            int(part(tally, "pacified_hist").sum()) != games:
        raise ResultsFileError(f"{path} is not a whole urbion summary file (its counts do "
                               f"not add up to its {games:,} games)")
    if config.get("games") is not None and \
            configured_count(path, "games", config["games"], "summary") != games:
        raise ResultsFileError(f"{path} is not a whole urbion summary file (its "
                               f"configuration's games is {config['games']!r}, its tally "
                               f"counts {games:,})")
    if part(tally, "loss_reasons")[0]:  # REASON_NAMES[0], "none": no game is lost by it
        raise ResultsFileError(f"{path} is not a whole urbion summary file (it counts games "
                               "lost for no reason)")
    sums = dict(zip(SUMMED, part(tally, "sums").tolist(), strict=True))
    squares = dict(zip(SUMMED, part(tally, "squares").tolist(), strict=True))
    for name in SUMMED:
        if not _sums_agree(name, sums[name], squares[name], games, tally, config):
            raise ResultsFileError(f"{path} is not a whole urbion summary file (its sum of "
                                   f"{name} does not agree with its other counts)")
    _check_tally_reasons(path, tally, config)


def _check_tally_reasons(path: Path, tally: np.ndarray, config: dict) -> None:
    """A tally's losses by reasons a loss of the run can have, and as many games with every
    City card pacified as it won or lost on the Inhabitant sum; its game numbers within
    2**63."""
    from analyzer.arguments import MAX_SEED

    losses = dict(zip(REASON_NAMES, part(tally, "loss_reasons").tolist(), strict=True))
    expansions = config.get("expansions") or []
    for name, count in losses.items():
        needs = EXPANSION_REASONS.get(name)
        never = name in (*NEVER_WRITTEN_REASONS, "all_pacified")
        if count and (never or (needs is not None and needs not in expansions)):
            raise ResultsFileError(f"{path} is not a whole urbion summary file (it counts "
                                   f"{count:,} game{'s' if count != 1 else ''} lost with "
                                   f"reason {name})")
    city_cards = config.get("city_cards")
    whole = int(part(tally, "wins")[0]) + losses["inhabitants"]
    if city_cards is not None and city_cards < PACIFIED_BINS and \
            int(part(tally, "pacified_hist")[city_cards]) != whole:
        raise ResultsFileError(f"{path} is not a whole urbion summary file (its games with "
                               f"all {city_cards} City cards pacified are not the {whole:,} "
                               "it won or lost on the Inhabitant sum)")
    first = configured_count(path, "first_game", config.get("first_game") or 0, "summary")
    if first + int(part(tally, "games")[0]) - 1 > MAX_SEED:
        raise ResultsFileError(f"{path} is not a whole urbion summary file (its games from "
                               f"{first:,} pass 2**63 - 1, the last game number)")


def _sums_agree(name: str, total: int, squares: int, games: int, tally: np.ndarray,
                config: dict) -> bool:
    """Whether a column's sum and sum of squares over ``games`` can be those of one run:
    a count's sum not below 0, squares at least the sum's square over the games (a variance
    not below 0), the turns and cities as their histograms count them (the last bin holds
    that value or more), the cities pacified at most the City cards of every game."""
    if name not in SIGNED_MEANS and total < 0:
        return False
    if squares * games < total * total:
        return False
    histogram = {"turns": "turns_hist", "pacified": "pacified_hist"}.get(name)
    if histogram is not None:
        counts = part(tally, histogram).astype(object)  # Python integers: no overflow
        values = np.arange(len(counts), dtype=object)
        least, least_squares = int((values * counts).sum()), int((values**2 * counts).sum())
        if total < least or squares < least_squares or \
                (counts[-1] == 0 and (total, squares) != (least, least_squares)):
            return False
    city_cards = config.get("city_cards")
    if name == "pacified" and city_cards is not None and \
            part(tally, "pacified_hist")[city_cards + 1:].any():
        return False  # a game pacified more cities than it has
    return True


def read_run(path: str | Path) -> pd.DataFrame | Totals:
    """A results file's rows (:func:`read_results`), or a summary file's totals
    (:func:`read_summary`): a file named .json, or that begins as JSON does, ``{``, is read
    as a summary."""
    if not Path(path).is_file():  # a pipe or device: not opened to wait for a writer
        if Path(path).suffix.lower() != ".json":
            return read_results(path)
        what = "not a file" if Path(path).exists() else "no such file"
        raise ResultsFileError(f"cannot read summary file {path}: {what}")
    begins = head(path)
    # a results file named .json is still Parquet; an emptied .json is still no results file
    summary = begins.startswith(b"{") or (Path(path).suffix.lower() == ".json" and
                                          not begins.startswith(b"PAR1"))
    return read_summary(path) if summary else read_results(path)


def _without_nan(value: object) -> object:
    """``value`` with every NaN float (a mean of no games, an interval of values all alike)
    as None, JSON's null: NaN is no JSON, and strict readers refuse it."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _without_nan(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nan(item) for item in value]
    return value


#: The columns every results file has had, which reports and summaries read.
REQUIRED_COLUMNS = ("game", "won", "reason", "turns", "pacified", "deck_left",
                    "chaos_placed", "chaos_cleared", "chaos_revealed")


def read_results(path: str | Path) -> pd.DataFrame:
    """Read a results file written by :func:`write_results` (configuration in ``attrs``).

    Raises ResultsFileError for a file that cannot be read or is not a whole results file
    (a configuration, the columns a report reads with their kinds, at least one game)."""
    path = Path(path)
    if not path.is_file():
        raise ResultsFileError(f"cannot read results file {path}: "
                               f"{'not a file' if path.exists() else 'no such file'}")
    try:
        with path.open("rb") as file:  # opened by Python: any name the system has
            # Arrow's thread pools, left busy by a read, aborted the process at exit about
            # one time in six ("terminate called without an active exception"; Arrow
            # issue 50482): a results file is a few columns, read as fast on one thread.
            # Both switches: pre-buffering issues its reads on Arrow's I/O pool, whatever
            # use_threads says
            table = pq.read_table(file, use_threads=False, pre_buffer=False)
    except (OSError, pa.ArrowInvalid):
        raise ResultsFileError(f"cannot read results file {path}: "
                               f"{_not_parquet(path) or DAMAGED_PARQUET}") from None
    attrs = _parquet_config(path, table.schema.metadata or {})
    try:
        df = table.to_pandas()
    except (pa.ArrowException, ValueError, TypeError) as err:
        raise ResultsFileError(f"cannot read results file {path}: {err}") from None
    _check_columns(path, df)
    _check_games(path, df, attrs)
    _check_rows_against_config(path, df, attrs)
    df.attrs = attrs
    return df


def _parquet_config(path: Path, metadata: dict) -> dict:
    """The run configuration a results file's Parquet ``metadata`` holds."""
    # a run saved with pandas' own to_parquet keeps its configuration as pandas' attrs
    raw = metadata.get(METADATA_KEY, metadata.get(PANDAS_ATTRS_KEY))
    if raw is None:
        raise ResultsFileError(f"{path} is not an urbion results file (no run configuration)")
    try:
        attrs = json.loads(raw)
    except (ValueError, RecursionError):
        attrs = None
    if not isinstance(attrs, dict):
        raise ResultsFileError(f"{path} is not an urbion results file (its run configuration "
                               "is not a JSON object)")
    if not {"seed", "policy", "card_set_sha256"} <= set(attrs):
        raise ResultsFileError(f"{path} is not an urbion results file (no run configuration)")
    _check_config(path, attrs, "results")
    return attrs


def run_cards(path: str | Path) -> CardSet:
    """The card set a results or summary file's run was played with, every expansion's
    cards, as its file kept them (``card_set_table``): the same name, cards and hash, with
    the base game in play. Only the configuration of a results file is read.

    Raises ResultsFileError for a file that is neither, or keeps no cards."""
    path = Path(path)
    return config_cards(run_config(path), str(path))


def config_cards(config: dict, where: str) -> CardSet:
    """The card set a run's configuration (a results file's, or ``df.attrs`` of a frame
    ``simulate`` returned) keeps, as :func:`run_cards` reads it; ``where`` names the run
    in the error.

    Raises ResultsFileError for a configuration that keeps no cards."""
    name, digest = str(config.get("card_set")), str(config.get("card_set_sha256"))
    card_set = unpacked_table(config.get("card_set_table"), name, digest, where)
    if card_set is None:
        raise ResultsFileError(f"{where} does not keep the cards of its run (card set "
                               f"{name}, sha256 {digest[:12]}): give its card file as --cards")
    return card_set


def run_config(path: str | Path) -> dict:
    """The run configuration of a results file (read from its metadata alone) or of a
    summary file.

    Raises ResultsFileError for a file that is neither."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            parquet = file.read(4) == b"PAR1"
    except OSError as err:
        raise ResultsFileError(f"cannot read results file {path}: {err.strerror}") from None
    if not parquet:
        return read_summary(path).attrs
    try:
        with Path(path).open("rb") as file:
            metadata = pq.read_schema(file).metadata or {}
    except (OSError, pa.ArrowInvalid):
        raise ResultsFileError(f"cannot read results file {path}: {DAMAGED_PARQUET}") from None
    return _parquet_config(path, metadata)


def play_again_command(config: dict, cards: str) -> str:
    """The ``urbion simulate`` command that plays a run (its ``config``) again with the
    card file or results file ``cards``."""
    first = configured_count(Path(cards), "first_game", config.get("first_game") or 0)
    games = configured_count(Path(cards), "games", config.get("games"))
    policy = str(config.get("policy"))
    if isinstance(config.get("policy_weights_file"), str):  # the weights it kept, there too
        policy = _with_weights_from(policy, cards)
    # a user's policy (a built-in's source is ""): its name plays it only while its file
    # is as the run found it
    source = config.get("policy_source_sha256")
    weights = config.get("policy_weights_sha256")
    name, kept = str(config.get("policy")), config.get("policy_weights_file")
    if policy != name:  # it plays the weights the run kept, which must be the run's own
        if weights and _played_weights_digest(name, None, kept) not in (None, weights):
            return NO_COMMAND.format(name)
    elif (source or weights) and command_policy_name(name, name, source, weights) is None:
        return NO_COMMAND.format(name)
    parts = ["urbion simulate", f"--cards {shlex.quote(cards)}",
             f"--seed {config.get('seed')}", *([f"--first-game {first}"] if first else []),
             f"--games {games}", f"--policy {shlex.quote(policy)}",
             f"--expansions {','.join(config.get('expansions') or []) or 'none'}",
             f"--variant {config.get('variant', 'solo')}"]
    return " ".join(parts)


def command_policy_name(name: str, shown: str, source_sha256: str | None,
                        weights_sha256: str | None = None,
                        kept_weights: str | None = None) -> str | None:
    """How a "play again" command (a duel's, a report's, ``cards``') names a policy: as the
    folder names it, the shipped weights file as ``weighted``; None when that name would
    not play this policy again (a ``PolicySpec`` made in Python, a file changed since, a
    ``PolicySpec`` under a name that resolves to other weights, or two files of one name,
    numbered). ``weights_sha256``: the run's ``policy_weights_sha256`` (None: a file of a
    version that did not keep it); ``kept_weights``: the weights file the run kept
    (``policy_weights_file``), which the command plays for a name that reads one."""
    from analyzer.policies.registry import resolve_policy
    from analyzer.runner.plan import policy_fingerprint

    if " #" in shown:
        return None
    try:
        spec = resolve_policy(name, compiled=False)
    except UrbionError:
        return None
    # the parameters are fitted to the cards played; the source tells a function made in
    # Python (hashed by its file) from the built-in of its name, and an edited file
    if policy_fingerprint(spec)[1] != (source_sha256 or ""):
        return None
    if weights_sha256 and _played_weights_digest(name, spec, kept_weights) not in (
            None, weights_sha256):
        return None
    shipped = resolve_policy("weighted")
    return "weighted" if shown.startswith("weighted:") and \
        np.array_equal(spec.params, shipped.params) else shown


def _played_weights_digest(name: str, spec: PolicySpec | None,
                           kept: str | None) -> str | None:
    """``policy_weights_sha256`` of the weights a play-again command plays under ``name``
    (resolved as ``spec``, needed unless it reads a weights file): its own, or for a name
    that reads a weights file, the file the run kept, which the command plays (None when
    it kept none: a version before that)."""
    from analyzer.policies.registry import resolve_policy, weights_file_of
    from analyzer.runner.plan import policy_weights_digest

    if weights_file_of(name) is None:
        return None if spec is None else policy_weights_digest(spec)
    if not isinstance(kept, str):
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kept.toml"
        path.write_text(kept, encoding="utf-8")
        try:
            return policy_weights_digest(resolve_policy(_with_weights_from(name, str(path)),
                                                        compiled=False))
        except UrbionError:  # kept weights that no longer load: nothing plays them
            return ""


#: The play-again line of a run whose policy its name does not play again.
NO_COMMAND = ("no command: the policy {} cannot be played again from its name (a policy made "
              "in Python, or a file changed since the run, say)")


def _with_weights_from(policy: str, path: str) -> str:
    """``policy`` (``weighted:FILE``, or a look-ahead's ``weights=FILE``) playing the
    weights a run's file ``path`` kept instead of FILE."""
    from analyzer.policies.registry import WEIGHTED_PREFIX, policy_label, with_weights_file

    if f"{policy_label(policy).partition(':')[0]}:" == WEIGHTED_PREFIX:
        return f"{WEIGHTED_PREFIX}{path}"
    return with_weights_file(policy, lambda _: path)


def cards_of_file(path: str | Path) -> CardSet:
    """The card set of a card file, or the one a results or summary file's run was played
    with (:func:`run_cards`): a run can be played again from its results alone."""
    return card_file_data(path)[0]


def card_file_data(path: str | Path) -> tuple[CardSet, dict]:
    """:func:`cards_of_file`'s card set and its card file's data (``load_card_file``): for
    a results or summary file, the data of the card file that loads into its cards."""
    if not is_run_file(path):
        if Path(path).suffix.lower() == ".parquet" and Path(path).is_file():
            if unreadable := _unreadable(Path(path)):
                raise CardSetError(f"cannot read {path}: {unreadable}")
            raise CardSetError(f"cannot read {path}: named .parquet but not a Parquet file "
                               f"({RESULTS_WRITER}, whose cards --cards reads)")
        return load_card_file(path)
    try:
        card_set = run_cards(path)
    except ResultsFileError as err:
        if head(path).startswith(b"PAR1"):
            raise
        # JSON, but no summary: say it is no card file either
        raise CardSetError(f"{path} is no card file (it begins with {{, as JSON does and "
                           f"TOML never) and "
                           f"{str(err).removeprefix(f'{path} ')}") from None
    return card_set, tomllib.loads(card_file_text(card_set))


def checked_frame(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """A run's frame as ``simulate`` returns it (configuration in ``attrs``), checked as a
    results file is read (:func:`read_results`); ``name`` stands for the file's path in
    messages. A shallow copy, so that joining it with other pieces leaves the caller's
    frame alone."""
    attrs = df.attrs
    if not isinstance(attrs, dict) or not {"seed", "policy", "card_set_sha256"} <= set(attrs):
        raise ResultsFileError(f"{name} is no run of urbion (no run configuration in its "
                               "attrs): give the frame simulate returned, or its file")
    _check_columns(Path(name), df)
    _check_games(Path(name), df, attrs)
    _check_rows_against_config(Path(name), df, attrs)
    frame = df.copy(deep=False)
    frame.attrs = dict(attrs)
    return frame


def _check_games(path: Path, df: pd.DataFrame, attrs: dict) -> None:
    """Refuse rows that are not the games the configuration says its run played (a frame
    filtered before ``to_parquet``): a selection of games, by outcome say, has no win rate
    to give, and would be labelled with the whole run's games."""
    if attrs.get("games") is None:
        return  # a configuration without its game count: the rows are the run
    first, games = (configured_count(path, key, attrs.get(key) or 0)
                    for key in ("first_game", "games"))
    played = np.sort(df["game"].to_numpy())
    if len(played) == games and played[0] == first and played[-1] == first + games - 1:
        return  # as many games as the run, none repeated (checked), from its first to last
    if len(played) == games:  # as many games, numbered otherwise: not a selection
        raise ResultsFileError(
            f"{path} holds {games:,} games numbered {played[0]}-{played[-1]}, where its run "
            f"played games {first}-{first + games - 1}: its game numbers were changed")
    raise ResultsFileError(
        f"{path} holds {len(df):,} of the games of a run of {games:,} (games {first}-"
        f"{first + games - 1}): results are read as whole runs, since a selection of games "
        "has no win rate to give; to study some games, play their range (urbion simulate "
        "--first-game G --games N; first_game= and games= in Python)")


def configured_count(path: Path, key: str, value: object, kind: str = "results") -> int:
    """The run configuration's ``key`` (games, first_game) as an int; a value that is no
    count refuses the file (a ``kind`` file: results or summary)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value  # as it is: a float holds game numbers past 2**53 rounded
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except (TypeError, ValueError):
        number = math.nan
    if not number.is_integer() or number < 0:
        raise ResultsFileError(f"{path} is not an urbion {kind} file (its configuration's "
                               f"{key} is {value!r}, not a count of games)")
    return int(number)


#: A file that begins as Parquet but cannot be read, in words (the reader's own complaint
#: speaks of footers and magic bytes).
DAMAGED_PARQUET = ("it begins as a Parquet file but is damaged or cut short (a copy or a "
                   "write that did not finish?)")


def _unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read (the system's words), or None when its first bytes
    can."""
    try:
        with path.open("rb") as file:
            file.read(4)
    except OSError as err:
        return err.strerror or str(err)
    return None


def _not_parquet(path: Path) -> str | None:
    """What a file that does not begin as Parquet does is, in words; None for one that
    does (a damaged Parquet file, which the reader's own message describes)."""
    try:
        with path.open("rb") as file:
            head = file.read(4)
            if head == b"PAR1":
                return None
            file.seek(0)
            document = json.loads(file.read(1 << 20))
    except OSError as err:  # not what the file holds: why it cannot be read
        return err.strerror or str(err)
    except (ValueError, RecursionError):
        document = None
    if isinstance(document, dict) and document.get("format") == SUMMARY_FORMAT:
        return f"it is the summary of {SUMMARY_RUN}, which keeps no rows per game"
    return f"not a Parquet file ({RESULTS_WRITER})"


def _check_columns(path: Path, df: pd.DataFrame) -> None:
    """A results file's rows: the required columns, of their kinds, and one game or more."""
    missing = [name for name in REQUIRED_COLUMNS if name not in df.columns]
    if missing:
        raise ResultsFileError(f"{path} is not an urbion results file (no column "
                               f"{', '.join(missing)})")
    integer = [name for name in RESULT_DTYPE.names if name not in ("outcome", "reason")]
    for name in df.columns:
        kind = df[name].dtype
        if name == "won":
            wrong = not pd.api.types.is_bool_dtype(kind)
        elif name in integer:
            wrong = not pd.api.types.is_integer_dtype(kind)
        else:
            continue
        if wrong:
            want = "true/false" if name == "won" else "integers"
            raise ResultsFileError(f"{path} is not an urbion results file (column {name} "
                                   f"holds values of type {kind}, where a run writes {want})")
        if df[name].isna().any():  # a nullable column: a game without its figure
            raise ResultsFileError(f"{path} is not an urbion results file (column {name} "
                                   f"has an empty cell in game "
                                   f"{df['game'][df[name].isna()].iloc[0]})")
    if not len(df):
        raise ResultsFileError(f"{path} holds no games")
    # the distinct values only: a string per row of millions would cost more than the rows
    unknown = [v for v in pd.unique(df["reason"]) if pd.isna(v) or str(v) not in REASON_NAMES]
    if unknown:
        raise ResultsFileError(f"{path} is not an urbion results file (reason "
                               f"{str(unknown[0])!r} is none of {', '.join(REASON_NAMES)})")
    repeated = df["game"][df["game"].duplicated()]
    if len(repeated):
        raise ResultsFileError(f"{path} is not an urbion results file (game "
                               f"{int(repeated.iloc[0])} appears twice)")
    _check_values(path, df)


def _refuse_game(path: Path, df: pd.DataFrame, what: str, bad: pd.Series) -> None:
    """Refuse the file for ``what``, naming the first game where ``bad`` holds."""
    game = int(df["game"][bad].iloc[0])
    raise ResultsFileError(f"{path} is not an urbion results file ({what} in game {game})")


#: Reasons no game of a results file ends with: a game still going, and an illegal
#: decision, which stops the run with an error and writes nothing.
NEVER_WRITTEN_REASONS = ("none", "illegal_decision")
#: Reasons of a loss that only an expansion gives, by that expansion.
EXPANSION_REASONS = {"emptiness": "emptiness", "inhabitants": "postcards"}
#: Reasons a game ends with every City card pacified (won, or lost on the Inhabitant sum).
ALL_PACIFIED_REASONS = ("all_pacified", "inhabitants")


def _check_rows_against_config(path: Path, df: pd.DataFrame, attrs: dict) -> None:
    """Refuse rows that no game of the configured run ends with: a reason no results
    file holds or the run's expansions cannot give, cities pacified past the game's City
    cards or not as its reason says, Books kept without the Books, inhabitants without the
    Postcards, the seats of the other variant."""
    def refuse(what: str, bad: pd.Series) -> None:
        _refuse_game(path, df, what, bad)

    reason = df["reason"].astype(str)
    expansions = attrs.get("expansions") or []
    for name in pd.unique(reason):
        needs = EXPANSION_REASONS.get(name)
        if name in NEVER_WRITTEN_REASONS or (needs is not None and needs not in expansions):
            why = "no game of a results file ends so" if needs is None else \
                f"only {needs} gives it, and the run plays {', '.join(expansions) or 'none'}"
            refuse(f"reason {name}: {why}", reason == name)
    city_cards = attrs.get("city_cards")
    if city_cards is not None:
        whole = reason.isin(ALL_PACIFIED_REASONS)
        if (odd := whole & (df["pacified"] != city_cards)).any():
            refuse(f"reason {reason[odd].iloc[0]} with {int(df['pacified'][odd].iloc[0])} "
                   f"of the game's {city_cards} City cards pacified", odd)
        if (odd := ~whole & (df["pacified"] >= city_cards)).any():
            refuse(f"reason {reason[odd].iloc[0]} with {int(df['pacified'][odd].iloc[0])} "
                   f"City cards pacified, of the game's {city_cards}", odd)
    if "books" not in expansions and "books_kept" in df.columns and \
            (odd := df["books_kept"] > 0).any():
        refuse(f"{int(df['books_kept'][odd].iloc[0])} Books kept by a run without the Books",
               odd)
    # only the Postcards score inhabitants (R11.9)
    if "postcards" not in expansions and "inhabitants" in df.columns and \
            (odd := df["inhabitants"] != 0).any():
        refuse(f"an inhabitant sum of {int(df['inhabitants'][odd].iloc[0])} in a run "
               "without the Postcards", odd)
    seats = 2 if attrs.get("variant", "solo") == "team" else 1
    if "seats" in df.columns and (odd := df["seats"] != seats).any():
        refuse(f"seats is {int(df['seats'][odd].iloc[0])} in a run of the "
               f"{attrs.get('variant', 'solo')} game", odd)


#: The columns no game can hold below zero: numbers and counts (the Inhabitant sum can).
NEVER_NEGATIVE = tuple(name for name in RESULT_DTYPE.names
                       if name not in ("outcome", "reason", "inhabitants"))
#: The seats a game is played by: solo, or the team game's two.
SEAT_COUNTS = (1, 2)


def _check_values(path: Path, df: pd.DataFrame) -> None:
    """Refuse figures no game ends with (a file edited or written by other code): a count
    below zero, a seat count other than 1 or 2, a game lost to the empty deck with cards
    in it, a game won whose reason is not that every City card was pacified, or one lost
    whose reason is."""
    def refuse(what: str, bad: pd.Series) -> None:
        _refuse_game(path, df, what, bad)

    for name in NEVER_NEGATIVE:
        if name in df.columns and (below := df[name] < 0).any():
            refuse(f"column {name} holds {int(df[name][below].iloc[0])}, below zero", below)
    if "seats" in df.columns and (odd := ~df["seats"].isin(SEAT_COUNTS)).any():
        refuse(f"seats is {int(df['seats'][odd].iloc[0])}, not 1 or 2", odd)
    # the game is lost when a draw finds the Dream deck empty (R13.2)
    if "deck_left" in df.columns and \
            (odd := (df["reason"].astype(str) == "deck_empty") & (df["deck_left"] != 0)).any():
        refuse(f"reason deck_empty with {int(df['deck_left'][odd].iloc[0])} cards left in "
               "the deck", odd)
    pacified = df["reason"].astype(str) == "all_pacified"
    if (odd := df["won"].to_numpy(dtype=bool) != pacified.to_numpy()).any():
        odd = pd.Series(odd, index=df.index)
        won = bool(df["won"][odd].iloc[0])
        reason = str(df["reason"][odd].iloc[0])
        refuse(f"{'won' if won else 'lost'} with reason {reason}", odd)
