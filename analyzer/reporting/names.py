"""How the shared pages name the files a run read: by the file's name alone.

A report, comparison or sensitivity page is made to be passed on; the folders of a card
file or a policy file name the machine and its user, and say nothing a reader can use.
The page tells two files of one name apart by the hashes it prints beside them.
"""

from __future__ import annotations

import re
from pathlib import PureWindowsPath

#: A user's policy: ``FILE.py:FUNCTION``.
_POLICY_FILE = re.compile(r"(?P<file>.+\.py):(?P<function>\w+)")


def shared_file(source: str) -> str:
    """The name of the file ``source`` (a path) without its folders, whether they are
    separated by / or by \\ (results made on Windows, reported elsewhere); bytes of the
    name that are no UTF-8 (a Latin-1 name, passed on by the shell as it is) as U+FFFD, as
    a page written in UTF-8 can hold them. A file named ``r14`` is ``./r14``: a command
    would read the bare word as the shipped card set."""
    name = PureWindowsPath(source).name or source
    if name.strip().lower() == "r14":  # a file of that name, not the word for R14's cards
        name = f"./{name}"
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def shared_files(sources: list[str]) -> list[str]:
    """:func:`shared_file` of each of ``sources``, except that files of one name keep as
    many of their last folders, as given, as tell them apart (``cmp-r14/results/base.
    games-0-999.parquet`` beside ``cmp-weak/results/...``): a list of two files named
    alike said nothing of which was which."""
    parts = [PureWindowsPath(source).parts or (source,) for source in sources]
    names = []
    for index, own in enumerate(parts):
        depth = 1
        while depth < len(own) and any(
                other[-depth:] == own[-depth:] for at, other in enumerate(parts)
                if at != index):
            depth += 1
        tail = "/".join(part for part in own[-depth:] if part not in ("/", "\\"))
        names.append(tail.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    return names


def shared_policy(policy: str) -> str:
    """A policy as a shared page names it: ``weighted:FILE.toml``, a look-ahead's
    ``weights=FILE.toml`` and ``FILE.py:FUNCTION`` with the file's name alone; a built-in's
    name as it is."""
    head, colon, rest = policy.partition(":")
    if head == "weighted" and colon and rest:
        return f"weighted:{shared_file(rest)}"
    if head in ("search", "clairvoyant"):  # its weights=FILE option
        from analyzer.policies.registry import with_weights_file

        return with_weights_file(policy, shared_file)
    found = _POLICY_FILE.fullmatch(policy)
    if found:
        return f"{shared_file(found['file'])}:{found['function']}"
    return policy
