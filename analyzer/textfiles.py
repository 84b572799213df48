"""Reading the small text files a user gives (card, weights and summary files) so that a
device such as /dev/zero or a huge file is refused once past a bound, not read until memory
runs out. A pipe (``<(...)``, /dev/stdin) is read as a file is."""

from __future__ import annotations

from pathlib import Path

#: The most bytes a card, weights or summary file may hold: each is a few kilobytes.
SMALL_FILE_LIMIT = 16 * 2**20


class UnreadableText(Exception):
    """Why a small text file cannot be read, in words (``str(err)``)."""


def read_small_text(path: Path, limit: int = SMALL_FILE_LIMIT) -> str:
    """The text of ``path``, UTF-8 of at most ``limit`` bytes (a byte-order mark is
    dropped).

    Raises
    ------
    UnreadableText
        For a missing file, a folder, more bytes than ``limit`` (a device that never ends
        among them), or bytes that are not UTF-8 text.
    """
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except IsADirectoryError:  # in the words a folder written to is refused in
        raise UnreadableText("it is a folder, not a file") from None
    except OSError as err:
        raise UnreadableText(err.strerror or str(err)) from None
    if len(data) > limit:
        raise UnreadableText(f"larger than {limit // 2**20} MB, which no such file is (or a "
                             "device that never ends)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableText("not UTF-8 text") from None
