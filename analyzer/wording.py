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
