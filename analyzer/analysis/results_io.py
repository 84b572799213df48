"""Results files: Parquet with the run's configuration in the file metadata."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analyzer.errors import ResultsFileError

METADATA_KEY = b"urbion"


def check_writable(path: str | Path) -> Path:
    """Fail early, before a long run, when ``path`` cannot be written."""
    path = Path(path)
    if path.suffix != ".parquet":
        raise ResultsFileError(f"results file {path} must end in .parquet")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ResultsFileError(f"cannot write {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ResultsFileError(f"cannot write {path}: permission denied")
    if path.is_dir():
        raise ResultsFileError(f"cannot write {path}: it is a folder")
    return path


def write_results(df: pd.DataFrame, path: str | Path) -> None:
    """Write ``df`` and ``df.attrs`` atomically: a temporary file renamed into place."""
    path = check_writable(path)
    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(df.attrs, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except OSError as err:
        raise ResultsFileError(f"cannot write {path}: {err.strerror or err}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_results(path: str | Path) -> pd.DataFrame:
    """Read a results file written by :func:`write_results` (configuration in ``attrs``)."""
    path = Path(path)
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as err:
        raise ResultsFileError(f"cannot read results file {path}: {err}") from None
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise ResultsFileError(f"{path} is not an urbion results file (no run configuration)")
    df = table.to_pandas()
    df.attrs = json.loads(raw)
    return df
