"""Write a file so that it is either complete or absent: a temporary file renamed into place."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from analyzer.errors import UrbionError


def require_folder(folder: Path, failure: str) -> None:
    """Raise UrbionError ``failure: FOLDER does not exist`` (or ``is a file, not a
    folder``) unless ``folder`` is a folder."""
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise UrbionError(f"{failure}: {folder} {what}")


def check_writable(path: str | Path, suffixes: tuple[str, ...]) -> Path:
    """Fail early, before a long run, when ``path`` cannot be written."""
    path = Path(path)
    if path.suffix not in suffixes:
        raise UrbionError(f"output file {path} must end in {' or '.join(suffixes)}")
    target = written_file(path)
    parent = target.parent
    require_folder(parent, f"cannot write {path}")
    check_name_length(target, f"cannot write {path}")
    if target.is_dir():
        raise UrbionError(f"cannot write {path}: it is a folder")
    if target.exists() and not target.is_file():
        raise UrbionError(f"cannot write {path}: {target} is not a regular file (a device or "
                          "a pipe), which a file written whole would replace")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UrbionError(f"cannot write {path}: {why_not_writable(parent)}")
    probe_folder(parent, f"cannot write {path}")
    return path


#: What a temporary name adds to the name it stands for: ".NAME.<12 hex>.tmp", or a report
#: folder's ".NAME.old-<12 hex>".
TEMPORARY_EXTRA = 18


def check_name_length(path: Path, failure: str) -> None:
    """Refuse, before a long run, a name the system takes but not with a temporary name's
    18 more characters, which the output is first written under (``failure`` starts the
    message)."""
    length = len(os.fsencode(path.name))
    try:
        limit = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    if length + TEMPORARY_EXTRA > limit:
        raise UrbionError(f"{failure}: its name is {length} bytes long, more than the "
                          f"{limit - TEMPORARY_EXTRA} a name may have here (it is written "
                          "under a longer temporary name first)")


def written_file(path: Path) -> Path:
    """The file a write to ``path`` replaces: a symbolic link's target, as a shell's ``>``
    writes through the link, rather than the link itself."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:  # a link to a file still to be made: made there
        return Path(os.path.realpath(path))
    except OSError as err:  # a loop of links has no file to write through to
        what = "a loop of symbolic links" if err.errno == errno.ELOOP else \
            err.strerror or str(err)
        raise UrbionError(f"cannot write {path}: {what}") from None


def why_not_writable(folder: Path) -> str:
    """Why ``folder`` (which ``os.access`` says cannot be written) cannot: a read-only
    file system, or the permissions."""
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        read_only = False
    return "read-only file system" if read_only else "permission denied"


def probe_folder(folder: Path, failure: str) -> None:
    """Create and remove a file in ``folder``: some folders refuse files that their
    permissions allow (/proc, a read-only mount), and a long run should not learn it at its
    end. Raise UrbionError starting with ``failure`` when it cannot be done."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise UrbionError(f"{failure}: {folder} takes no new file ({_reason(err, folder)})") \
            from None


def _new_temporary(path: Path) -> str:
    """A new empty file beside ``path``, made by the system with the permissions any new
    file gets (0666 less the umask): reading the umask would mean setting it, for every
    thread of the process at once."""
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex[:12]}.tmp"
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return str(tmp)


def write_atomically(path: Path, write: Callable[[str], None]) -> None:
    """Call ``write(temporary_path)``, then rename the result to ``path``.

    A new file gets the usual permissions (0666 less the umask), a file replaced keeps its
    own (:func:`keep_attributes`); on any error nothing is left behind and UrbionError says
    what went wrong in one line.
    """
    path = written_file(Path(path))
    tmp = None
    try:
        tmp = _new_temporary(path)
        write(tmp)
        keep_attributes(path, tmp)
        os.replace(tmp, path)
    except OSError as err:
        raise UrbionError(f"cannot write {path}: {_reason(err, path.parent)}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def keep_attributes(old: Path, new: str | Path) -> None:
    """Give ``new``, about to replace ``old``, the permissions and group of ``old`` if it
    exists, as a shell's ``>`` keeps them: a private file stays private. The group only
    where the system allows it (a group of the user's, or root)."""
    try:
        status = os.stat(old)
    except OSError:
        return  # nothing replaced
    with contextlib.suppress(OSError):  # a file system without permissions (FAT, some FUSE)
        os.chmod(new, stat.S_IMODE(status.st_mode))
    with contextlib.suppress(OSError):
        os.chown(new, -1, status.st_gid)


#: The note on a stop (Ctrl-C, SIGTERM) held back while :func:`write_together` renamed its
#: files, and delivered once every one was in place.
SET_WRITTEN = "urbion: the files were written, then the stop came"


def write_together(folder: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (name: content) into ``folder`` as a set: each to a temporary file
    first, then all renamed into place with Ctrl-C and SIGTERM held back, so that the
    folder holds the old set or the new one, not a mix (short of a rename the system
    refuses midway, which a name taken by a folder, checked first, would be). On an error
    nothing new is left and UrbionError says what went wrong in one line; a stop held back
    comes after the whole set, noted :data:`SET_WRITTEN`."""
    targets = {name: written_file(folder / name) for name in files}
    for target in targets.values():
        if target.is_dir():
            raise UrbionError(f"cannot write {target}: it is a folder")
    temporaries: dict[str, str] = {}
    name = ""
    try:
        for name, content in files.items():
            temporaries[name] = _new_temporary(targets[name])
            Path(temporaries[name]).write_bytes(content)
            keep_attributes(targets[name], temporaries[name])
        with signals_held():
            for name in list(temporaries):
                os.replace(temporaries[name], targets[name])
                del temporaries[name]
    except OSError as err:
        raise UrbionError(f"cannot write {targets[name]}: {_reason(err, folder)}") from None
    except KeyboardInterrupt as stop:
        if not temporaries:
            stop.add_note(SET_WRITTEN)
        raise
    finally:
        for tmp in temporaries.values():
            if os.path.exists(tmp):
                os.unlink(tmp)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the body runs (a few renames), then deliver one
    stop to the handler it would have met: SIGTERM's if both came. Outside the main thread,
    which receives them, nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous: dict[int, object] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda n, _f: came.append(n))
        yield
    finally:
        for signum, handler in previous.items():
            # None: a handler set outside Python, which cannot be put back as it was
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if came:
            signal.raise_signal(signal.SIGTERM if signal.SIGTERM in came else signal.SIGINT)


#: Free bytes below which a short write is put down to a full disk.
NEARLY_FULL = 1 << 20


#: The error number inside the message of an OSError that has none of its own (pyarrow's
#: "Error writing bytes to file. Detail: [errno 28] No space left on device").
ERRNO_IN_MESSAGE = re.compile(r"\[errno (\d+)\]", re.IGNORECASE)


def _reason(err: OSError, folder: Path) -> str:
    """Why a write failed, in the system's words, however the library that wrote put it:
    numpy reports a short write on a full disk as "5000 requested and 3989 written", with
    no errno to say why; pyarrow gives the errno in its message."""
    if err.strerror:
        return err.strerror
    number = ERRNO_IN_MESSAGE.search(str(err))
    if number:
        return os.strerror(int(number.group(1)))
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return str(err)
    # numpy's counts are of items, which a reader takes for games: the cause says enough
    return os.strerror(errno.ENOSPC) if free < NEARLY_FULL else str(err)
