"""The folder a command writes its pages into (a report's, a comparison's, a sensitivity
analysis's, a duel's): built beside its destination and moved into place at the end, so a
failed or interrupted write never leaves a half-written folder; and the destination checked
before anything is played or drawn."""

from __future__ import annotations

import glob
import os
import re
import shutil
import stat
import sys
import time
import uuid
from pathlib import Path

from analyzer.atomic import (
    SET_WRITTEN,
    check_name_length,
    keep_attributes,
    probe_folder,
    require_folder,
    signals_held,
    why_not_writable,
)
from analyzer.errors import UrbionError


def resolved_path(path: Path, failure: str) -> Path:
    """``path`` with its symbolic links followed; a loop of them (which Python reports as
    a RuntimeError) or a folder on the way that cannot be read is a one-line error."""
    try:
        return path.resolve()
    except RuntimeError:
        raise UrbionError(f"{failure}: a loop of symbolic links") from None
    except OSError as err:
        raise UrbionError(f"{failure}: {err.strerror or err}") from None


#: The file that says which command wrote a folder: only such a folder is ever replaced.
FOLDER_MARK = ".urbion-folder"


def write_folder(out: Path, fill, kind: str) -> Path:
    """Call ``fill(folder)`` on a new folder beside ``out``, then move it to ``out``
    (replacing an earlier folder of the same ``kind`` there): complete or not at all. A
    stop once it is in place is noted :data:`SET_WRITTEN`."""
    build, swapped = None, False
    try:
        # made with the permissions any new folder gets (0777 less the umask), which
        # reading the umask would change for every thread of the process at once
        build = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}"
        build.mkdir(0o777)
        fill(build)
        # the kind, then every file written: a file not listed is the user's, and stops a
        # later replacement
        written = sorted(p.name for p in build.iterdir())
        (build / FOLDER_MARK).write_text("\n".join([kind, *written]) + "\n", encoding="utf-8")
        keep_attributes(out, build)  # a private folder replaced stays private
        # a stop between the two renames would leave no folder at ``out``
        with signals_held():
            _swap_into_place(build, out)
            swapped = True
        _remove_leftovers(out)
    except OSError as err:
        raise UrbionError(f"cannot write {out}: {err.strerror or err}") from None
    except KeyboardInterrupt as stop:
        if swapped:
            stop.add_note(SET_WRITTEN)
        raise
    finally:
        if build is not None:
            shutil.rmtree(build, ignore_errors=True)
    return out


def check_destination(out: Path, kind: str) -> None:
    """Refuse, before any game is played, a ``kind`` folder (report, sensitivity) that
    could not be put in place: an existing folder is replaced only if the same command
    wrote it and it holds nothing else (so never a file the report reads)."""
    try:
        cwd = Path.cwd()
    except OSError:  # a working folder deleted under the shell: none to hold
        cwd = None
    if out.is_symlink():
        raise UrbionError(f"cannot write {kind} {out}: it is a symbolic link; give the "
                          "folder itself")
    where = resolved_path(out, f"cannot write {kind} {out}")
    if cwd is not None and (where == cwd or where in cwd.parents):
        raise UrbionError(f"cannot write {kind} {out}: it is the current folder or holds it; "
                          "give the name of a folder for the output")
    require_folder(out.parent, f"cannot write {kind} {out}")
    check_name_length(out, f"cannot write {kind} {out}")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UrbionError(f"cannot write {kind} {out}: {why_not_writable(out.parent)} in "
                          f"{out.parent}")
    # the new folder is built beside ``out``, then renamed into place
    probe_folder(out.parent, f"cannot write {kind} {out}")
    if not out.exists():
        return
    try:
        held = sorted(p.name for p in out.iterdir()) if out.is_dir() else None
    except OSError as err:
        raise UrbionError(f"cannot write {kind} {out}: {err.strerror or err}") from None
    if held is None:
        raise UrbionError(f"cannot write {kind} {out}: it is a file, not a folder (`urbion "
                          f"{kind}` writes its files into the folder --out (out=) names)")
    if held and folder_mark(out) != kind:
        raise UrbionError(f"cannot write {kind} {out}: it exists and is not a folder "
                          f"`urbion {kind}` wrote (remove it, or choose another folder)")
    others = [name for name in held if name != FOLDER_MARK and name not in _written(out)]
    if others:
        raise UrbionError(f"cannot write {kind} {out}: it holds {others[0]}, which "
                          f"`urbion {kind}` did not write (move it away, or choose another "
                          "folder)")
    if not os.access(out, os.W_OK | os.X_OK) or _sticky_foreign(out):
        raise UrbionError(f"cannot write {kind} {out}: permission denied (it cannot be "
                          "replaced)")


def folder_mark(folder: Path) -> str | None:
    """The command that wrote ``folder`` (its FOLDER_MARK's first line), or None."""
    try:
        return (folder / FOLDER_MARK).read_text(encoding="utf-8").splitlines()[0].strip()
    except (OSError, IndexError):
        return None


def _written(folder: Path) -> set[str]:
    """The files the command wrote into ``folder`` (its FOLDER_MARK's other lines)."""
    try:
        return set((folder / FOLDER_MARK).read_text(encoding="utf-8").splitlines()[1:])
    except OSError:
        return set()


def _sticky_foreign(out: Path) -> bool:
    """True when ``out`` lies in a sticky folder (such as /tmp) and belongs to another user,
    who alone may move it."""
    uid = os.geteuid()
    parent = out.parent.stat()
    return (uid != 0 and parent.st_mode & stat.S_ISVTX != 0 and out.stat().st_uid != uid
            and parent.st_uid != uid)


def _leftover_name(out: Path) -> re.Pattern:
    """The names of the folders a write of ``out`` makes beside it: its build and an
    earlier ``out`` moved aside."""
    return re.compile(rf"\.{re.escape(out.name)}\.(old-)?[0-9a-f]{{12}}")


#: A leftover untouched for this long is no write in progress (whose build gains a file
#: every few seconds) but one that was killed.
LEFTOVER_AGE = 300.0


#: What a folder these commands write holds: names ending so, and the folder's mark.
WRITTEN_SUFFIXES = (".png", ".svg", ".csv", ".md", ".html", ".txt", ".parquet")


def _remove_leftovers(out: Path) -> None:
    """Remove what an earlier write of ``out`` killed part-way (SIGKILL, a power cut) left
    beside it: hidden folders of its own naming, holding only files such a write makes,
    and untouched for ``LEFTOVER_AGE`` seconds (another write of ``out`` may be under
    way)."""
    pattern = _leftover_name(out)
    now = time.time()
    for path in out.parent.glob(f".{glob.escape(out.name)}.*"):
        if not pattern.fullmatch(path.name) or not path.is_dir() or path.is_symlink():
            continue
        try:
            entries = list(path.iterdir())
            old = now - path.stat().st_mtime > LEFTOVER_AGE
        except OSError:
            continue
        if old and all(e.is_file() and (e.name == FOLDER_MARK or
                                        e.name.endswith(WRITTEN_SUFFIXES)) for e in entries):
            shutil.rmtree(path, ignore_errors=True)


def _swap_into_place(build: Path, out: Path) -> None:
    """Move ``build`` to ``out``; an earlier ``out`` is put back if that fails."""
    old = None
    if out.exists():
        # a name of its own: an existing .NAME.old may be the user's
        old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:12]}")
        out.rename(old)
    try:
        build.rename(out)
    except OSError:
        if old is not None:
            old.rename(out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
        if old.exists():  # a file in it the system would not remove (immutable, say)
            print(f"urbion: note: the earlier {out.name} is replaced, but not all of it "
                  f"could be removed: what is left is in {old}", file=sys.stderr, flush=True)
