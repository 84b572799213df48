"""Reading the small text files a user gives (card, weights and summary files) so that a
device, a pipe or a huge file is refused at once, not read until memory runs out."""

from __future__ import annotations

from pathlib import Path

#: The most bytes a card, weights or summary file may hold: each is a few kilobytes.
SMALL_FILE_LIMIT = 16 * 2**20


class UnreadableText(Exception):
    """Why a small text file cannot be read, in words (``str(err)``)."""


def read_small_text(path: Path, limit: int = SMALL_FILE_LIMIT) -> str:
    """The text of ``path``, a regular UTF-8 file of at most ``limit`` bytes (a byte-order
    mark is dropped).

    Raises
    ------
    UnreadableText
        For a missing file, a folder, a device or pipe, a larger file, or one that is not
        UTF-8 text.
    """
    try:
        if path.exists() and not path.is_file() and not path.is_dir():
            raise UnreadableText("not a regular file (a device or a pipe)")
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as err:
        raise UnreadableText(err.strerror or str(err)) from None
    if len(data) > limit:
        raise UnreadableText(f"larger than {limit // 2**20} MB, which no such file is")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableText("not UTF-8 text") from None
