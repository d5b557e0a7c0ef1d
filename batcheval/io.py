"""Reading and writing the files the CLI handles: parquet, csv, ipc/feather, json."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from .errors import BatchevalError

__all__ = ["read_frame", "write_frame"]

_READERS = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".ipc": pl.scan_ipc,
    ".arrow": pl.scan_ipc,
    ".feather": pl.scan_ipc,
}


def read_frame(path: str | Path) -> pl.LazyFrame:
    """Lazily scan a parquet, csv or ipc file (or a glob of them)."""
    path = Path(path)
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise BatchevalError(
            f"cannot read {str(path)!r}: unknown file type {path.suffix!r}; use parquet, csv or ipc"
        )
    if not any(ch in str(path) for ch in "*?[") and not path.exists():
        raise BatchevalError(f"cannot read {str(path)!r}: no such file")
    return reader(path)


def write_frame(frame: pl.DataFrame, path: str | Path) -> None:
    """Write parquet, csv, ipc or json, by the file's extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        frame.write_parquet(path)
    elif suffix == ".csv":
        frame.write_csv(path)
    elif suffix in (".ipc", ".arrow", ".feather"):
        frame.write_ipc(path)
    elif suffix == ".json":
        frame.write_json(path)
    else:
        raise BatchevalError(
            f"cannot write {str(path)!r}: unknown file type {suffix!r}; use parquet, csv, ipc or json"
        )
