"""Trace files: JSON Lines, one ``urbion-trace/1`` trace per line."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from analyzer import atomic
from analyzer.core.codes import SUMMARY_FORMAT
from analyzer.errors import UrbionError

TRACE_SUFFIXES = (".jsonl", ".json")
#: What writes trace files, in the CLI's words and in Python's.
TRACES_WRITER = "urbion trace --out FILE.jsonl (trace_to_file in Python) writes traces"


def check_trace_path(path: str | Path, traces: int = 1) -> Path:
    """Fail early when the file for ``traces`` traces cannot be written: several are JSON
    Lines (TRACE.md), which a ``.json`` file would not be."""
    checked = atomic.check_writable(path, TRACE_SUFFIXES)
    if traces > 1 and checked.suffix == ".json":
        raise UrbionError(f"{path}: {traces} traces are JSON Lines, one per line: write them "
                          "to a .jsonl file (a .json file holds one trace)")
    return checked


def write_traces(traces: list[dict], path: str | Path) -> None:
    """Write ``traces`` as JSON Lines, complete or not at all."""
    write_trace_stream(iter(traces), path, len(traces))


def write_trace_stream(traces: Iterator[dict], path: str | Path, count: int) -> None:
    """Write ``count`` traces as JSON Lines as ``traces`` yields them, so that none is
    held after its line; the file appears complete at the end, or not at all."""
    path = check_trace_path(path, count)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as file:
            for one in traces:
                file.write(json.dumps(one) + "\n")

    atomic.write_atomically(path, write)


class TraceLine(NamedTuple):
    """One trace of a file: its line, the JSON value read there (None when unreadable),
    and why it could not be read (None when it could)."""

    line: int
    trace: Any
    problem: str | None


def read_traces(path: str | Path) -> list[TraceLine]:
    """The traces of a file: JSON Lines, one trace a line (blank lines left out), or
    traces as JSON objects over many lines each (TRACE.md: one JSON object per game).

    A line that is not JSON comes with its problem, so that one bad line does not hide the
    verdict on the others.

    Raises
    ------
    UrbionError
        For a file that cannot be read, is not UTF-8 text, holds no line at all, or is no
        trace file: none of its lines is JSON and it does not begin as a trace does, with
        ``{`` (a card file, a CSV table), or it is one JSON array (of traces, say).
    """
    path = Path(path)
    text = _trace_text(path)
    # only "\n" ends a line: JSON strings may hold U+2028 and the like, which splitlines()
    # would also split at
    lines = [TraceLine(number, *_parsed(line.removesuffix("\r")))
             for number, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        raise UrbionError(f"{path} holds no trace")
    if text.lstrip().startswith("{") and _summary_format(_parsed(text)[0]):
        raise UrbionError(f"{path} is not a trace file: it is the summary of a "
                          f"--summary-only run (simulate_summary in Python; {TRACES_WRITER})")
    if text.lstrip().startswith("[") and isinstance(_parsed(text)[0], list):
        raise UrbionError(f"{path} is not a trace file: it holds one JSON array, where a "
                          "trace file holds one JSON object per game (TRACE.md)")
    if all(line.problem for line in lines) and not text.lstrip().startswith("{"):
        raise UrbionError(f"{path} is not a trace file: no line of it is JSON (line "
                          f"{lines[0].line}: {lines[0].problem})")
    if len(lines) > 1 and any(line.problem for line in lines):
        whole, problem = _parsed(text)
        if problem is None and isinstance(whole, dict):  # one trace, pretty-printed
            lines = [TraceLine(1, whole, None)]
        elif not any(isinstance(line.trace, dict) for line in lines):
            # several traces, each pretty-printed (as `jq . FILE.jsonl` writes them): no
            # line of the file is a trace of its own
            lines = _concatenated(text) or lines
    _refuse_traceless(path, lines)
    return lines


#: The bytes of a file's head that tell text from a binary file before it is read whole.
HEAD_BYTES = 1 << 16


def _trace_text(path: Path) -> str:
    """The text of a trace file, read through one handle (a pipe is read once), refused
    from its head when that is not UTF-8 text or holds a NUL, before the rest is read:
    /dev/zero, or gigabytes of a binary file, filled the memory first."""
    try:
        with path.open("rb") as file:
            head = file.read(HEAD_BYTES)
            try:  # a character cut at the head's end is no fault of the file
                codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
                text = b"\0" not in head
            except UnicodeDecodeError:
                text = False
            if not text:
                raise UrbionError(f"{path} is not a trace file: {_binary_kind(head)}")
            data = head + file.read()
    except OSError as err:
        why = "it is a folder, not a file" if isinstance(err, IsADirectoryError) else \
            err.strerror or err
        raise UrbionError(f"cannot read trace file {path}: {why}") from None
    try:
        return data.decode("utf-8-sig")  # a byte-order mark is not JSON's
    except UnicodeDecodeError:
        raise UrbionError(f"{path} is not a trace file: {_binary_kind(data)}") from None


#: Keys of a trace (TRACE.md), of which an object of a trace file holds at least one.
TRACE_KEYS = ("format", "log")


def _refuse_traceless(path: Path, lines: list[TraceLine]) -> None:
    """Refuse a file of JSON objects none of which has a trace's format or log: some
    other JSON document, not traces that break the rules."""
    objects = [line.trace for line in lines if isinstance(line.trace, dict)]
    if not objects and not any(line.problem for line in lines):
        raise UrbionError(f"{path} is not a trace file: no line of it is a JSON object "
                          f"(line {lines[0].line} is {_kind(lines[0].trace)}), where a trace "
                          "file holds one object per game (TRACE.md)")
    if objects and len(objects) == len(lines) and \
            not any(key in item for item in objects for key in TRACE_KEYS):
        raise UrbionError(f"{path} is not a trace file: no object in it has a trace's "
                          f"format or log (TRACE.md; {TRACES_WRITER})")


def _kind(value: object) -> str:
    """What a JSON value that is not an object is, in words."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return "a number"


def _summary_format(value: object) -> bool:
    """Whether a JSON value is a ``--summary-only`` run's summary (of any version)."""
    return isinstance(value, dict) and \
        str(value.get("format", "")).startswith(SUMMARY_FORMAT.split("/")[0] + "/")


def _binary_kind(head: bytes) -> str:
    """What a file that is not UTF-8 text is, by its first bytes ``head``, in words, for
    the error of a trace command."""
    if head.startswith(b"PAR1"):
        return ("it is a Parquet results file (urbion report, report in Python, reads "
                f"those; {TRACES_WRITER})")
    return f"it is not UTF-8 text ({TRACES_WRITER})"


_BLANK = re.compile(r"\s*")


def _concatenated(text: str) -> list[TraceLine] | None:
    """The JSON objects of ``text`` written one after the other, each at the line where it
    begins, and what stops the reading, if anything, as a last problem line; None unless
    the text begins with such an object and holds more than it."""
    decoder = json.JSONDecoder()
    found: list[TraceLine] = []
    pos, line, counted = 0, 1, 0
    while (pos := _BLANK.match(text, pos).end()) < len(text):
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            problem = f"not JSON: {err.msg} at line {err.lineno}, column {err.colno}"
        except ValueError as err:  # numbers past Python's digit limit
            problem = f"not JSON that can be read: {str(err).split(';')[0]}"
        except RecursionError:
            problem = "not JSON that can be read: nested too deeply"
        else:
            if isinstance(value, dict):
                found.append(TraceLine(line, value, None))
                pos = end
                continue
            problem = "not a JSON object"
        return [*found, TraceLine(line, None, problem)] if found else None
    return found if len(found) > 1 else None


#: Characters the longest token cut short can have read: "fals" of false.
CUT_TOKEN = 5


def _cut_off(text: str, err: json.JSONDecodeError) -> bool:
    """Whether JSON ``text`` that begins as an object or array stops only because it ends:
    a string left open, or the failure within the last token."""
    return text.lstrip().startswith(("{", "[")) and (
        err.msg.startswith("Unterminated string") or
        len(text.rstrip()) - err.pos <= CUT_TOKEN)


def _parsed(text: str) -> tuple[Any, str | None]:
    """(value, None) for JSON text, (None, why) otherwise."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as err:
        if _cut_off(text, err):
            return None, (f"not JSON: it ends at column {err.colno} before its object "
                          "does (a file cut off?)")
        return None, f"not JSON: {err.msg} at column {err.colno}"
    except ValueError as err:  # numbers past Python's digit limit
        return None, f"not JSON that can be read: {str(err).split(';')[0]}"
    except RecursionError:
        return None, "not JSON that can be read: nested too deeply"


def chosen_trace(path: str | Path, seed: int | None, game: int | None) -> tuple[int, Any]:
    """The line and trace of game ``game`` (of seed ``seed`` when given) in a trace file;
    with neither given, its first trace; with a seed alone, its first of that seed.

    Raises
    ------
    UrbionError
        When no trace matches, naming the games the file holds, when game ``game`` of
        more than one seed does and no seed is given, or when the chosen line is not JSON.
    """
    lines = read_traces(path)
    if seed is None and game is None:
        matches = lines[:1]
    else:
        matches = [t for t in lines if isinstance(t.trace, dict)
                   and (game is None or _same_number(t.trace.get("game"), game))
                   and (seed is None or _same_number(t.trace.get("seed"), seed))]
    if not matches:
        held = [f"game {t.trace.get('game')} of seed {t.trace.get('seed')}"
                for t in lines if isinstance(t.trace, dict)]
        wanted = wanted_words(seed, game)
        broken = [t for t in lines if t.problem is not None]
        # the trace sought may be on a line that cannot be read
        unread = "" if not broken else (
            f"; line {broken[0].line} cannot be read ({broken[0].problem})" if len(broken) == 1
            else f"; {len(broken)} lines cannot be read, the first line {broken[0].line} "
                 f"({broken[0].problem})")
        raise UrbionError(f"{path} holds no trace of {wanted} (it holds "
                          f"{', '.join(held[:5]) or 'none'}{', ...' if len(held) > 5 else ''}"
                          f"{unread})")
    games = list(dict.fromkeys(f"game {t.trace.get('game')} of seed {t.trace.get('seed')}"
                               for t in matches if isinstance(t.trace, dict)))
    # a game of several seeds: the first, shown without a word, passed for the one asked
    # for (a seed alone gives its first game, as no option gives the file's first)
    if game is not None and len(games) > 1:
        raise UrbionError(f"{path} holds traces of more than one {wanted_words(seed, game)} "
                          f"({', '.join(games[:5])}{', ...' if len(games) > 5 else ''}): "
                          "give --seed and --game (seed=, game=) to choose one")
    first = matches[0]
    if first.problem is not None:
        raise UrbionError(f"{path}, line {first.line}: {first.problem}")
    return first.line, first.trace


def wanted_words(seed: int | None, game: int | None) -> str:
    """The trace asked for, in words: "game 3", "seed 1", "game 3 seed 1"."""
    return " ".join(part for part in (f"game {game}" if game is not None else "",
                                      f"seed {seed}" if seed is not None else "") if part)


def _same_number(value: Any, number: int) -> bool:
    return type(value) is int and value == number
