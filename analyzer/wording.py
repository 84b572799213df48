"""Counts and lists in words, for every layer's messages and texts."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and the noun, singular for 1: "1 City card", "2 City cards", "1,500
    games"; ``nouns`` for a plural not made with an s ("2 Chaos")."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def spoken_list(items: list[str]) -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
