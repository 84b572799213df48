"""The configuration that names a run: stored with every result."""

from __future__ import annotations

import functools
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from analyzer.cards import CardSet
from analyzer.cards.loader import packed_table
from analyzer.core.codes import RULES_VERSION
from analyzer.core.jit import files_digest, source_hash

ENGINES = ("fast", "reference")


#: What decides how a run plays its games, beside which games they are: results files that
#: agree on all of these and cover consecutive games are one run played in parts.
RUN_IDENTITY = ("seed", "policy", "policy_params_sha256", "policy_source_sha256",
                "expansions", "variant", "card_set_sha256", "engine", "rules_version",
                "engine_source", "package_version")
#: Keys of ``RUN_IDENTITY`` that results files of older versions lack: not known there.
LATER_KEYS = ("engine_source",)
#: What a saved batch of games must share with the run that would take its place.
BATCH_IDENTITY = (*RUN_IDENTITY, "first_game", "games")


def package_version() -> str:
    """Installed version of this package."""
    try:
        return metadata.version("urbion-analyzer")
    except metadata.PackageNotFoundError:
        return "unknown"


#: Where the package's code lies: its commit is read there.
PACKAGE_DIR = Path(__file__).resolve().parents[1]


@functools.cache
def package_commit() -> str:
    """The git commit of the package's code, with ``-dirty`` when its files differ from
    it; "unknown" when it is not a git checkout of this project (an installed copy, or a
    copy inside some other repository, which ``git`` would otherwise name). Read once per
    process: the code running is the code imported."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], capture_output=True, text=True,
                                  cwd=PACKAGE_DIR, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    if not git("ls-files", "--", "__init__.py"):
        return "unknown"
    head = git("rev-parse", "--short=12", "HEAD")
    if not head:
        return "unknown"
    # the package, and its command-line front end beside it where the checkout has one
    paths = [".", *(["../cli.py"] if git("ls-files", "--", "../cli.py") else [])]
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *paths)
    return f"{head}-dirty" if changed is None or changed else head


#: The folders of the reference engine's code, beside core/ which both engines share; the
#: compiled built-in policies it calls (``random``) are of the policies' ``*_nb.py`` files.
REFERENCE_FOLDERS = ("core", "reference")


def _engine_source(engine: str) -> str:
    """SHA-256 (first 16 hex digits) of the code that plays ``engine``'s games: the
    kernels' source (the key of their disk cache) for ``fast``; core/, reference/ and the
    compiled built-in policies for ``reference``. A rule changed without a new
    ``RULES_VERSION`` still changes it, so that results files of the code before and after
    are never joined as one run."""
    if engine == "fast":
        return source_hash()
    files = {p for folder in REFERENCE_FOLDERS for p in (PACKAGE_DIR / folder).rglob("*.py")}
    return files_digest(PACKAGE_DIR, files | set((PACKAGE_DIR / "policies").glob("*_nb.py")))


#: Read as the package is imported: the code this process runs, though its files change.
ENGINE_SOURCES = {engine: _engine_source(engine) for engine in ENGINES}


def engine_source(engine: str) -> str:
    """:func:`_engine_source` of the code this process imported."""
    return ENGINE_SOURCES[engine]


@functools.cache
def software() -> str:
    """What compiled and ran the games, beside the package: Python, numba, numpy and the
    machine's system and processor, which a paper names (the games of a seed are meant to
    be the same on any of them, and the suite checks it on this one)."""
    versions = ", ".join(f"{name} {_version(name)}" for name in ("numba", "numpy"))
    return (f"Python {platform.python_version()}, {versions}, on {platform.system()} "
            f"{platform.machine()}")


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


def run_config(card_set: CardSet, policy: str, seed: int, games: int, engine: str,
               first_game: int = 0) -> dict:
    """Everything needed to reproduce a batch, for ``DataFrame.attrs`` and file metadata."""
    return {
        "seed": seed,
        "games": games,
        "first_game": first_game,
        "policy": policy,
        "engine": engine,
        "variant": card_set.variant,
        "expansions": card_set.expansion_names(),
        "card_set": card_set.name,
        "card_set_sha256": card_set.digest,
        "card_set_source": card_set.source,
        "city_cards": int(len(card_set.city_ids)),  # the most cities a game can pacify
        # the cards themselves: a report shows them though the file changes afterwards
        "card_set_table": packed_table(card_set),
        "rules_version": RULES_VERSION,
        "engine_source": engine_source(engine),
        "package_version": package_version(),
        "commit": package_commit(),
        # the client's: a Dask cluster's workers check the package, not these
        "software": software(),
    }
