"""Streamed sources: files, globs, datasets, readers and lazy frames as batches.

A source is a list of :class:`Part` objects (a file, a dataset fragment, a
record-batch reader, a lazy frame). Each part yields polars DataFrames of at
most ``batch_rows`` rows holding just the requested columns, so memory stays
bounded by one batch whatever the size of the source. Every failure to read
a part is raised as :class:`~batcheval.errors.SourceError` or
:class:`~batcheval.errors.ColumnNotFoundError` naming the part, never as a
reader's own exception.
"""

from __future__ import annotations

import functools
import glob
import os
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import ColumnNotFoundError, SourceError
from .frames import CSV_INFER_ROWS, LAZY_FRAME, reading, select_columns

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "FORMATS",
    "NamedFrame",
    "Part",
    "check_each_file_once",
    "in_part",
    "is_path_spec",
    "is_streamed",
    "open_parts",
    "resolve_paths",
    "scan_csv",
]

FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".ipc": "ipc",
    ".arrow": "ipc",
    ".feather": "ipc",
    ".csv": "csv",
}
# what a binary file begins with, when it is named .csv: read as text, its bytes became the
# column names, and the message showed them ("key column 'run' not found; ... ['PAR1\x15\x04...")
# (first bytes, last bytes): a parquet or IPC file ends as it begins, so that a csv whose first
# column happens to be named "PAR1..." is read as the csv it is
_BINARY_MAGIC = (
    (b"PAR1", b"PAR1", "a parquet file", ".parquet"),
    (b"ARROW1", b"ARROW1", "an Arrow IPC file", ".arrow"),
    (b"\xff\xff\xff\xff", b"", "an Arrow IPC stream", None),
)


def scan_csv(path: str | os.PathLike, glob: bool = False) -> pl.LazyFrame:
    """``pl.scan_csv`` of a csv file, refusing one that is a parquet or Arrow file by its first bytes.

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.csv")
    >>> pl.DataFrame({"run": [1]}).write_parquet(path)
    >>> scan_csv(path)
    Traceback (most recent call last):
    ...
    batcheval.errors.SourceError: cannot read '...scores.csv' as csv: it is a parquet file; ...
    """
    if os.path.isfile(path):  # not a glob's pattern
        try:
            with open(path, "rb") as f:
                head = f.read(8)
                f.seek(max(os.fstat(f.fileno()).st_size - 8, 0))
                tail = f.read(8)
        except OSError:  # the scan says why
            head = tail = b""
        for magic, end, what, suffix in _BINARY_MAGIC:
            if head.startswith(magic) and tail.endswith(end):
                fix = f"name it with {suffix}" if suffix else "write it as parquet or as an Arrow IPC file"
                raise SourceError(f"cannot read {os.fspath(path)!r} as csv: it is {what}; {fix}")
    return pl.scan_csv(path, glob=glob, infer_schema_length=CSV_INFER_ROWS)


_SCANNERS: dict[str, Callable[..., pl.LazyFrame]] = {
    "parquet": pl.scan_parquet,
    "ipc": pl.scan_ipc,
    "csv": scan_csv,
}
DEFAULT_BATCH_ROWS = 1 << 24
_ARROW_BATCH_ROWS = 1 << 17  # pyarrow's own default batch size for a scan


def is_path_spec(data: Any) -> bool:
    """True for a path, a glob, or a non-empty list of them."""
    if isinstance(data, str | os.PathLike):
        return True
    paths = isinstance(data, list | tuple) and bool(data)
    return paths and all(isinstance(d, str | os.PathLike) for d in data)


def is_one_shot(data: Any) -> bool:
    """True for a source that yields its rows only once (a pyarrow RecordBatchReader).

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"label": [0, 1]})
    >>> is_one_shot(pa.RecordBatchReader.from_batches(table.schema, table.to_batches())), is_one_shot(table)
    (True, False)
    """
    return type(data).__module__.startswith("pyarrow") and type(data).__name__ == "RecordBatchReader"


def is_streamed(data: Any) -> bool:
    """True for inputs read batch by batch rather than held in memory."""
    if isinstance(data, pl.LazyFrame) or is_path_spec(data):
        return True
    module = type(data).__module__
    return module.startswith("pyarrow") and type(data).__name__ in (
        "FileSystemDataset",
        "InMemoryDataset",
        "Dataset",
        "UnionDataset",
        "RecordBatchReader",
    )


def resolve_paths(
    spec: str | os.PathLike | Sequence[str | os.PathLike], *, keep_missing: bool = False
) -> list[Path]:
    """Expand a path, glob, directory or list of them into data files, in sorted order.

    With ``keep_missing=True`` a named parquet, ipc or csv file that does not exist is kept, for
    its part to fail when it is read (where ``on_error="skip"`` leaves it out, as a file that
    cannot be read); a glob that matches nothing, or an empty directory, is still an error.

    Examples
    --------
    >>> resolve_paths("no/such/*.parquet")
    Traceback (most recent call last):
    ...
    batcheval.errors.SourceError: no files match 'no/such/*.parquet'
    """
    specs = [spec] if isinstance(spec, str | os.PathLike) else list(spec)
    out: list[Path] = []
    origins: list[str] = []  # the entry that named each path, for the check that each is named once
    for item in specs:
        start = len(out)
        text = os.fspath(item)
        if not text.strip():
            # Path("") is the working directory: an empty argument would read every file under it
            raise SourceError(f"empty path {text!r}: name a file, a directory or a glob")
        # a file whose own name holds glob characters ("fold[1].parquet") is that file
        if any(ch in text for ch in "*?[") and not Path(text).exists():
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True))
            found = [m for m in matches if m.is_file()]
            if not found:
                raise SourceError(f"no files match {text!r}")
            out += found
        elif Path(text).is_dir():
            found = sorted(p for p in Path(text).rglob("*") if p.is_file() and p.suffix.lower() in FORMATS)
            if not found:
                raise SourceError(f"directory {text!r} holds no parquet, ipc or csv files")
            out += found
        elif Path(text).is_file() or (keep_missing and Path(text).suffix.lower() in FORMATS):
            out.append(Path(text))
        else:
            raise SourceError(_no_such_file(text))
        origins += [text] * (len(out) - start)
    for path in out:
        if path.suffix.lower() not in FORMATS:
            raise SourceError(
                f"cannot read {str(path)!r}: unknown file type {path.suffix!r}; use parquet, ipc or csv"
            )
    check_each_file_once(out, origins)
    return out


def check_each_file_once(paths: list[Path], origins: list[str]) -> None:
    """Refuse a file that two entries name (a glob and a file it matches, a directory and a file in
    it, ``./a.parquet`` and ``a.parquet``, a symbolic or hard link and its target): its rows were
    counted twice without a word. ``origins``: the entry that named each path.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "a.parquet").touch(), (d / "b").mkdir()
    (None, None)
    >>> other = d / "b/../a.parquet"
    >>> check_each_file_once([d / "a.parquet", other], ["*.parquet", str(other)])
    Traceback (most recent call last):
    ...
    batcheval.errors.SourceError: '...a.parquet' (from '*.parquet') and '...b/../a.parquet' are one file; ...
    """
    seen: dict[tuple[int, int], int] = {}
    for i, path in enumerate(paths):
        try:
            stat = os.stat(path)  # through links; a hard link is the same inode too
        except OSError:  # counts no rows: reading it says it is missing
            continue
        real = (stat.st_dev, stat.st_ino)
        if real not in seen:
            seen[real] = i
            continue
        j = seen[real]

        def named(k: int) -> str:
            return repr(str(paths[k])) + ("" if origins[k] == str(paths[k]) else f" (from {origins[k]!r})")

        if str(paths[j]) != str(path):  # a link and its target, or "b/../a.parquet"
            what = f"{named(j)} and {named(i)} are one file"
        elif origins[i] == origins[j]:
            what = f"{str(path)!r} is named twice"
        else:
            what = f"{str(path)!r} is named twice (by {origins[j]!r} and by {origins[i]!r})"
        raise SourceError(
            f"{what}; name each file once, or its rows are counted once for each time it is named"
        )


def _no_such_file(text: str) -> str:
    return f"cannot read {text!r}: no such file or directory"


@dataclass
class Part:
    """One independently readable piece of a source."""

    name: str
    batches: Callable[[int], Iterator[pl.DataFrame]]
    rows: Callable[[], int | None]


@dataclass
class NamedFrame:
    """A frame in memory and the name its errors and reports give it ("partition 3" of a Dask
    DataFrame: one of many, where a bare "partition" would not say which)."""

    name: str
    frame: Any


def open_parts(data: Any, columns: Sequence[str], roles: dict[str, str]) -> list[Part]:
    """Split ``data`` into parts that each stream the named ``columns``."""
    columns = list(columns)
    name = "partition"
    if isinstance(data, NamedFrame):
        name, data = data.name, data.frame
    if not is_streamed(data):  # a frame in memory (e.g. a Dask partition) is one part

        def whole(batch_rows: int) -> Iterator[pl.DataFrame]:
            try:
                yield select_columns(data, columns, roles)
            except ColumnNotFoundError as exc:
                raise ColumnNotFoundError(f"{name}: {exc}") from None

        return [Part(name, whole, lambda: None)]
    if isinstance(data, pl.LazyFrame):
        return [_lazy_part(LAZY_FRAME, lambda: data, columns, roles)]
    if isinstance(data, str | os.PathLike) or isinstance(data, list | tuple):
        return [_file_part(path, columns, roles) for path in resolve_paths(data, keep_missing=True)]
    name = type(data).__name__
    if name == "RecordBatchReader":
        return [_reader_part(data, columns, roles)]
    if name == "InMemoryDataset":
        return [_scanned_part(data, columns, roles, "in-memory dataset")]
    try:
        fragments = data.get_fragments()
    except ValueError:  # a filtered dataset has none to give: it is read whole, through its filter
        return [_scanned_part(data, columns, roles, "filtered dataset")]
    # the dataset's schema, not each file's: it holds the partition columns (run=1/...)
    return [_fragment_part(fragment, columns, roles, data.schema) for fragment in fragments]


def _check_columns(names: Sequence[str], columns: Sequence[str], roles: dict[str, str], where: str) -> None:
    for col in columns:
        if col not in names:
            if where == LAZY_FRAME:  # one frame, as in memory: nothing to name
                raise ColumnNotFoundError(
                    f"{roles[col]} column {col!r} not found; the frame has columns {list(names)}"
                )
            raise ColumnNotFoundError(
                f"{where}: {roles[col]} column {col!r} not found; it has columns {list(names)}"
            )


def in_part(where: str, message: str) -> str:
    """``message`` about the part ``where``, naming it: a lazy frame is one frame, as in memory,
    so its messages are those of a frame in memory."""
    return message if where == LAZY_FRAME else f"{where}: {message}"


def _wrapped(where: str, batches: Iterator[pl.DataFrame]) -> Iterator[pl.DataFrame]:
    """Re-raise a reader's failure as a SourceError that names the part."""
    with reading(where):
        yield from batches


def _lazy_part(
    where: str, make: Callable[[], pl.LazyFrame], columns: list[str], roles: dict[str, str]
) -> Part:
    def batches(batch_rows: int) -> Iterator[pl.DataFrame]:
        def inner() -> Iterator[pl.DataFrame]:
            lazy = make()
            _check_columns(lazy.collect_schema().names(), columns, roles, where)
            empty = True
            for frame in lazy.select(columns).collect_batches(chunk_size=batch_rows):
                if frame.height:
                    empty = False
                    yield frame
            if empty:  # still one frame, so an empty part has a schema
                yield lazy.select(columns).head(0).collect()

        return _wrapped(where, inner())

    def rows() -> int | None:
        return None

    return Part(where, batches, rows)


def _file_part(path: Path, columns: list[str], roles: dict[str, str]) -> Part:
    fmt = FORMATS[path.suffix.lower()]
    where = f"file {str(path)!r}"

    def scan() -> pl.LazyFrame:
        if not path.is_file():  # named in a list but absent (or removed since): unreadable, skippable
            raise SourceError(_no_such_file(str(path)))
        # glob=False: the path is resolved already, and polars would read "fold[1].csv" as a pattern
        return _SCANNERS[fmt](path, glob=False)

    part = _lazy_part(where, scan, columns, roles)
    if fmt != "csv":  # the row count is in the footer; csv would need a full read

        def rows() -> int | None:
            try:
                return int(_SCANNERS[fmt](path, glob=False).select(pl.len()).collect().item())
            except Exception:  # an unreadable file is reported when it is read
                return None

        part.rows = rows
    return part


# the RecordBatchReaders batcheval has started reading (weak: a reader is not kept alive by it)
_READ_READERS: weakref.WeakSet = weakref.WeakSet()


def _reader_part(reader: Any, columns: list[str], roles: dict[str, str]) -> Part:
    where = "record batch reader"
    _check_columns(reader.schema.names, columns, roles, where)

    def batches(batch_rows: int) -> Iterator[pl.DataFrame]:
        # a reader yields its batches once: a second pass, in this call or a later one, would see
        # no rows and count nothing
        if reader in _READ_READERS:
            raise SourceError(
                f"{where}: it was read already, and a reader can be read only once; pass a pyarrow "
                "Dataset, file paths or a frame to read the data again"
            )
        _READ_READERS.add(reader)
        return _wrapped(where, _rebatched(iter(reader), columns, batch_rows, reader.schema))

    return Part(where, batches, lambda: None)


def _fragment_part(fragment: Any, columns: list[str], roles: dict[str, str], schema: Any) -> Part:
    where = f"fragment {getattr(fragment, 'path', repr(fragment))!r}"

    def batches(batch_rows: int) -> Iterator[pl.DataFrame]:
        def inner() -> Iterator[pl.DataFrame]:
            import pyarrow.dataset as pads

            # the file's own columns and its partition keys: the dataset's schema alone
            # would let pyarrow fill a column this file lacks with nulls
            keys = pads.get_partition_keys(fragment.partition_expression)
            _check_columns([*fragment.physical_schema.names, *keys], columns, roles, where)
            batches = fragment.to_batches(schema=schema, columns=columns, batch_size=_arrow_batch(batch_rows))
            yield from _rebatched(batches, columns, batch_rows, schema)

        return _wrapped(where, inner())

    return Part(where, batches, functools.partial(_count_rows, fragment))


def _scanned_part(dataset: Any, columns: list[str], roles: dict[str, str], where: str) -> Part:
    """A dataset read as one part through its scanner, which applies its filter."""

    def batches(batch_rows: int) -> Iterator[pl.DataFrame]:
        def inner() -> Iterator[pl.DataFrame]:
            _check_columns(dataset.schema.names, columns, roles, where)
            scanned = dataset.scanner(columns=columns, batch_size=_arrow_batch(batch_rows)).to_batches()
            yield from _rebatched(scanned, columns, batch_rows, dataset.schema)

        return _wrapped(where, inner())

    return Part(where, batches, functools.partial(_count_rows, dataset))


def _arrow_batch(batch_rows: int) -> int:
    """The record batch size asked of a pyarrow scan: ``batch_rows``, or pyarrow's default
    (2**17) when that is smaller, so a large ``batch_rows`` is gathered from batches of the usual size."""
    return min(batch_rows, _ARROW_BATCH_ROWS)


def _count_rows(piece: Any) -> int | None:
    """A fragment's or dataset's rows, or None where counting fails (an unreadable part is
    reported when it is read)."""
    try:
        return int(piece.count_rows())
    except Exception:
        return None


def _rebatched(
    record_batches: Iterator[Any], columns: list[str], batch_rows: int, schema: Any
) -> Iterator[pl.DataFrame]:
    """Gather arrow record batches into polars frames of ``batch_rows`` rows (the last one fewer),
    splitting a record batch larger than that (a reader's, or a dataset's written in one piece)."""
    import pyarrow as pa

    pending: list[Any] = []
    size = 0
    empty = True
    for whole in record_batches:
        rb = whole.select(columns)
        start = 0
        while start < rb.num_rows:
            take = min(batch_rows - size, rb.num_rows - start)
            pending.append(rb.slice(start, take))
            size += take
            start += take
            if size == batch_rows:
                yield pl.from_arrow(pa.Table.from_batches(pending))  # type: ignore[misc]
                pending, size, empty = [], 0, False
    if size or empty:
        selected = pa.schema([schema.field(c) for c in columns])
        yield pl.from_arrow(pa.Table.from_batches(pending, schema=selected))  # type: ignore[misc]
