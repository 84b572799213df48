"""Finished chunks kept on disk beside a run's output, so an interrupted run can resume.

A run writing ``results.parquet`` keeps its finished chunks in ``results.parquet.partial/``:
``run.json`` (what the results depend on) and one ``chunk-NNNNNN.npy`` per chunk with its
``.sha256`` digest, each written to a temporary file and renamed, so a kill at any moment
leaves whole chunks only; a chunk whose digest does not match is played again.
The folder is made when the first chunk is saved (a run that stops or fails before that
leaves nothing behind) and removed once the output is written.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import shutil
from pathlib import Path
from typing import TextIO

import numpy as np

from analyzer.atomic import write_atomically
from analyzer.errors import UrbionError
from analyzer.runner.config import LATER_KEYS
from analyzer.runner.results import RESULT_DTYPE, game_numbers
from analyzer.runner.tally import LAYOUT, TALLY_SIZE

RUN_FILE = "run.json"
#: The file a run holds a lock on while it keeps the folder (``Checkpoint._lock``).
LOCK_FILE = ".lock"


def partial_folder(out: str | Path) -> Path:
    """The folder that holds the finished chunks of a run writing ``out``."""
    out = Path(out)
    return out.with_name(out.name + ".partial")


class Checkpoint:
    """The finished chunks of one run, on disk."""

    def __init__(self, folder: Path, identity: dict, opened: bool) -> None:
        self.folder = folder
        self.identity = identity
        #: the folder exists (resumed, or a chunk saved)
        self.opened = opened
        #: this run made the folder
        self.created = False
        #: the open lock file while this process holds the folder
        self._handle: TextIO | None = None

    @classmethod
    def start(cls, out: str | Path, identity: dict, resume: bool) -> Checkpoint:
        """Open the checkpoint of a run writing ``out``: a new one, or the saved one to resume.

        Raises UrbionError when resuming with nothing saved or a different configuration,
        and when a new run would overwrite an interrupted one.
        """
        folder = partial_folder(out)
        if resume:
            checkpoint = cls(folder, identity, opened=True)
            if folder.is_dir():  # a run still going is named before anything saved is read
                checkpoint._lock()
            try:
                cls._check_saved(folder, identity, Path(out))
            except BaseException:  # refused: held by no one (a traceback would keep it)
                checkpoint.close()
                raise
            out = Path(out)
            # writes cut off by the interruption: of a chunk, or of ``out`` itself
            for stale in [*folder.glob(".*.tmp"),
                          *out.parent.glob(f".{glob.escape(out.name)}.*.tmp")]:
                with contextlib.suppress(OSError):  # one that stays only takes room
                    stale.unlink(missing_ok=True)
            return checkpoint
        if folder.exists():
            probe = cls(folder, identity, opened=True)
            probe._lock()  # refused while the run that keeps it is still going
            probe.close()
            raise UrbionError(f"{folder} holds an interrupted run: add --resume "
                              "(resume=True in Python) to continue it, or delete the folder")
        return cls(folder, identity, opened=False)

    def _open(self) -> None:
        """Make the folder, hold it (:meth:`_lock`), and write its ``run.json``; a folder
        left without one (a full disk) is taken back."""
        try:
            self.folder.mkdir()
        except OSError as err:
            raise UrbionError(f"cannot create {self.folder}: {err.strerror or err}") from None
        self.opened = self.created = True
        self._lock()
        text = json.dumps(self.identity, sort_keys=True, indent=1)
        try:
            write_atomically(self.folder / RUN_FILE,
                             lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
        except BaseException:
            self.discard_if_created()
            raise

    def _lock(self) -> None:
        """Hold the folder for this process until :meth:`close` (or its end): a second
        run that would resume it, or replace it, meanwhile is refused. The lock is the
        system's (``flock``), so a killed run's folder is free at once."""
        try:
            # a file object, not a bare descriptor: a checkpoint dropped unclosed lets go
            handle = (self.folder / LOCK_FILE).open("a")
        except OSError as err:
            raise UrbionError(f"cannot use {self.folder}: {err.strerror or err}") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise UrbionError(f"{self.folder} is kept by a run still going: wait for it to "
                              "end, or stop it and add --resume (resume=True in Python) to "
                              "continue it") from None
        self._handle = handle

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let the folder go (:meth:`_lock`)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()

    def discard_if_created(self) -> None:
        """Remove the folder if this run made it: for a run that failed for good (an
        illegal decision), whose chunks no resume could finish."""
        if self.created:
            self.close()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.opened = self.created = False

    @staticmethod
    def _check_saved(folder: Path, identity: dict, out: Path) -> None:
        if folder.exists() and not folder.is_dir():
            raise UrbionError(f"cannot resume from {folder}: it is a file, not the folder of "
                              "finished chunks a run keeps")
        if not folder.is_dir() and out.is_file():
            raise UrbionError(f"nothing to resume: {out} is written whole, with no {folder} "
                              "of saved games beside it; without --resume the run plays "
                              "its games again")
        if not folder.is_dir():
            raise UrbionError(f"nothing to resume: {folder} does not exist")
        afresh = (f"delete {folder} and run without --resume to start afresh: without it "
                  "the saved chunks cannot be told to be this run's")
        try:
            saved = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
        except OSError as err:
            raise UrbionError(f"cannot resume from {folder}: no readable {RUN_FILE} "
                              f"({err.strerror or err}); {afresh}") from None
        except (ValueError, RecursionError):
            saved = None
        if not isinstance(saved, dict):
            raise UrbionError(f"cannot resume from {folder}: its {RUN_FILE} is damaged (not "
                              f"the JSON object a run writes); {afresh}")
        # the card set's name says which set a hash is, and is no setting of its own
        differ = sorted(k for k in set(saved) | set(identity)
                        if saved.get(k) != identity.get(k) and k not in NAMES_OF_HASHES.values()
                        # not known to a run saved before the key (a fast run's
                        # kernel_source still tells a change of its code)
                        and not (k in LATER_KEYS and k not in saved))
        if "policy" in differ:  # another policy: its hashes differ as a matter of course
            differ = [k for k in differ if k not in POLICY_HASHES]
        if differ:
            # the fast engine's code is its kernels': one change, said once
            what = "; ".join(dict.fromkeys(
                describe_difference(k, saved.get(k), identity.get(k),
                                    saved.get(NAMES_OF_HASHES.get(k, "")),
                                    identity.get(NAMES_OF_HASHES.get(k, "")))
                for k in differ))
            raise UrbionError(f"cannot resume from {folder}: it was made with a different "
                              f"configuration ({what})")
        Checkpoint._check_chunk_names(folder)

    @staticmethod
    def _check_chunk_names(folder: Path) -> None:
        """Refuse a folder where a chunk's file is due but a folder has its name: a run would
        play that chunk again, fail to save it, and fail alike on every resume."""
        try:
            taken = [path for pattern in ("chunk-*.npy", "chunk-*.sha256")
                     for path in folder.glob(pattern)
                     if path.is_dir() and not path.is_symlink()]
        except OSError:
            return  # an unreadable folder is said where its chunks are read
        if taken:
            raise UrbionError(f"cannot resume from {folder}: {taken[0].name} there is a folder, "
                              "not a file a run writes; remove it, and --resume plays that chunk "
                              "again")

    def saved_chunks(self, n_chunks: int) -> np.ndarray:
        """The indices below ``n_chunks`` of the chunks whose files the folder holds,
        ascending (int64): a run of ten million chunks lists the few it saved rather than
        looking for every one, and a new run, with no folder yet, none."""
        try:
            names = [path.name for path in self.folder.glob("chunk-*.npy")]
        except OSError:
            names = []
        indices = []
        for name in names:
            digits = name.removeprefix("chunk-").removesuffix(".npy")
            if digits.isascii() and digits.isdecimal() and int(digits) < n_chunks and \
                    self._path(int(digits)).name == name:
                indices.append(int(digits))
        return np.sort(np.array(indices, dtype=np.int64))

    def _path(self, index: int) -> Path:
        return self.folder / f"chunk-{index:06d}.npy"

    def _digest_path(self, index: int) -> Path:
        return self.folder / f"chunk-{index:06d}.sha256"

    @staticmethod
    def _digest(index: int, payload: np.ndarray) -> str:
        """SHA-256 of the chunk's index and payload: a chunk copied to another index, or
        changed on disk, no longer matches and is played again."""
        return hashlib.sha256(str(index).encode() + payload.tobytes()).hexdigest()

    def save(self, index: int, payload: np.ndarray) -> None:
        """Keep chunk ``index``'s digest, then its payload (per-game results or a tally): a
        chunk file on disk always has its digest beside it."""
        def write(tmp: str) -> None:
            with open(tmp, "wb") as f:
                np.save(f, payload, allow_pickle=False)

        first = not self.opened
        if first:
            self._open()
        digest = self._digest(index, payload)
        try:
            write_atomically(self._digest_path(index),
                             lambda tmp: Path(tmp).write_text(digest, encoding="utf-8"))
            write_atomically(self._path(index), write)
        except BaseException:
            if first:  # a folder holding no chunk is nothing to resume: not left behind
                self.discard_if_created()
            raise

    def load(self, index: int, first: int, games: int) -> np.ndarray | None:
        """Chunk ``index``'s saved payload (games ``first`` .. ``first + games - 1``), or
        None when it is missing, not whole or not the chunk its digest names."""
        path = self._path(index)
        try:
            payload = np.load(path, allow_pickle=False)
            digest = self._digest_path(index).read_text(encoding="utf-8").strip()
        except (OSError, ValueError, EOFError):  # EOFError: an empty file
            return None
        if self.identity["summary_only"]:
            whole = (payload.shape == (TALLY_SIZE,) and payload.dtype == np.int64
                     and int(payload[LAYOUT["games"]][0]) == games)
        else:
            whole = (payload.dtype == RESULT_DTYPE and payload.shape == (games,)
                     and np.array_equal(payload["game"], game_numbers(first, games)))
        return payload if whole and digest == self._digest(index, payload) else None


def partial_folder_remove(out: str | Path) -> None:
    """Delete the finished chunks of the run writing ``out``, once ``out`` is written.

    ``run.json`` goes last: a removal cut short (a killed process) leaves a folder that
    ``--resume`` still reads, to play the removed chunks again and write ``out`` anew.
    """
    folder = partial_folder(out)
    try:
        paths = [path for path in folder.iterdir() if path.name != RUN_FILE]
    except OSError:
        paths = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
    shutil.rmtree(folder, ignore_errors=True)


#: What a changed hash of a run's identity means, in a user's words.
_HASHED = {
    "policy_source_sha256": "the policy's source file has changed since the run was saved",
    "policy_params_sha256": "the policy's parameters (its weights file, say) have changed "
                            "since the run was saved",
    # one text for both: a fast run's engine code is its kernels', said once
    "kernel_source": "the engine's code has changed since the run was saved",
    "engine_source": "the engine's code has changed since the run was saved",
    "card_set_sha256": "the card file has changed since the run was saved",
}
#: The hashes that follow from the policy's name.
POLICY_HASHES = ("policy_params_sha256", "policy_source_sha256")


#: The identity's names of what a hash is of, which say a difference in words.
NAMES_OF_HASHES = {"card_set_sha256": "card_set"}


def describe_difference(key: str, saved: object, here: object, saved_name: object = None,
                        here_name: object = None) -> str:
    """One difference between a saved run's identity and this one's: a hash as what its
    change means, with the first 12 digits of each; any other setting as both values. A
    card set named otherwise there (``saved_name``, ``here_name``) is another set, not an
    edited file."""
    def short(value: object) -> str:
        return str(value)[:12] if value else "none"

    if key == "card_set_sha256" and saved_name and here_name and saved_name != here_name:
        return (f"another card set: {saved_name} (sha256 {short(saved)}) there, {here_name} "
                f"(sha256 {short(here)}) here")
    if key in _HASHED:
        return f"{_HASHED[key]}: sha256 {short(saved)} there, {short(here)} here"
    if key == "package_version":
        return (f"another version of the package: {saved or 'not recorded'} there, {here} "
                "here")
    return f"{key} {saved!r} there, {here!r} here"
