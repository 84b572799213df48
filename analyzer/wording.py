"""Counts and lists in words, and text kept on one line, for every layer's messages and texts."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for 1: "1 City card", "2 City cards", "1,500
    games"; ``nouns`` for a plural not made with an s ("2 Chaos")."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def spoken_list(items: list[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


#: What ``str.splitlines`` breaks a line at, escaped as Python writes it ("\\n").
_LINE_BREAKS = {ord(ch): ch.encode("unicode_escape").decode("ascii")
                for ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text: str) -> str:
    """``text`` with its line breaks escaped: a file name holding one leaves an error, or a
    report's line, on its one line."""
    return text.translate(_LINE_BREAKS)


#: The kinds of character (Unicode categories) a terminal or a page acts on instead of
#: showing them: controls (an escape sequence's ESC, a line break) and the line and
#: paragraph separators; other format characters (a zero-width joiner in a Persian file
#: name, an emoji's) show, or join what they should.
_UNSHOWN = ("Cc", "Zl", "Zp")
#: Unicode's explicit text direction controls (embeddings, overrides, isolates and their
#: ends), by their bidirectional class: each turns the rest of its line around.
BIDI_CONTROLS = ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")
#: What text that is wrapped turns into spaces anyway.
_WRAPPED_SPACE = " \t\n\r\x0b\x0c"


def _unshown(ch: str, whitespace: bool) -> bool:
    import unicodedata

    acts = unicodedata.category(ch) in _UNSHOWN or \
        unicodedata.bidirectional(ch) in BIDI_CONTROLS
    return acts and not (whitespace and ch in _WRAPPED_SPACE)


def shown_as_written(text: str, whitespace: bool = False) -> str:
    """``text`` with each character a terminal or a page would act on instead of showing
    it (:data:`_UNSHOWN`, :data:`BIDI_CONTROLS`) written as Python escapes it (``\\x1b``,
    ``\\u202e``): a field of a file edited by hand cannot retitle the terminal, clear it or
    turn a line around. ``whitespace`` keeps tabs and line breaks, for text that is
    wrapped."""
    return "".join(ch.encode("unicode_escape").decode("ascii") if _unshown(ch, whitespace)
                   else ch for ch in text)


def has_unshown(text: str) -> bool:
    """Whether ``text`` holds a character :func:`shown_as_written` escapes."""
    return any(_unshown(ch, False) for ch in text)
