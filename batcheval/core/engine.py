"""Which engine counts an input: a frame in memory, a streamed source read batch by batch
(:mod:`.stream`), or a source spread over a Dask cluster (:mod:`.distributed`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..errors import InvalidArgumentError
from ..io.arguments import as_count
from ..io.frames import as_key_list
from ..io.sources import is_streamed
from .distributed import check_client, count_dask
from .stream import SourceReport, check_on_error, count_source
from .table import ContingencyTable

__all__ = ["MAX_BATCH_ROWS", "check_engine", "count_any"]

#: the largest ``batch_rows=``: a row count in int64, which polars and pyarrow both read
MAX_BATCH_ROWS = 2**63 - 1


def check_engine(engine: Any, on_error: Any, batch_rows: Any = None, client: Any = None) -> None:
    """Refuse an unknown ``engine=`` or ``on_error=``, a ``batch_rows=`` that is not a count of
    rows, or a ``client=`` that is not a Dask client of ``engine="dask"``, before any data is read.

    Examples
    --------
    >>> check_engine("spark", "raise")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: engine must be 'local' or 'dask', got 'spark'
    """
    if engine not in ("local", "dask"):
        raise InvalidArgumentError(f"engine must be 'local' or 'dask', got {engine!r}")
    check_on_error(on_error)
    if batch_rows is not None:  # 0 once read as "the default" (16M rows), 1.5 failed in a reader
        # and 2**64 in every reader, as an unreadable file: no source holds more than int64 rows
        as_count(batch_rows, "batch_rows=", most=MAX_BATCH_ROWS)
    check_client(client, engine)


def count_any(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    prediction: str,
    *,
    classes: Sequence[Any] | None,
    drop_nulls: bool,
    on_error: Literal["raise", "skip"] = "raise",
    progress: bool | None = None,
    batch_rows: int | None = None,
    engine: Literal["local", "dask"] = "local",
    client: Any = None,
) -> tuple[ContingencyTable, SourceReport | None]:
    """Count any input: a frame in memory, a streamed source, or a source on a Dask cluster."""
    check_engine(engine, on_error, batch_rows, client)
    keys = as_key_list(by)
    if engine == "dask":
        return count_dask(data, keys, label, prediction, classes=classes, drop_nulls=drop_nulls,
                          on_error=on_error, batch_rows=batch_rows, client=client)  # fmt: skip
    if is_streamed(data):
        return count_source(data, keys, label, prediction, classes=classes, drop_nulls=drop_nulls,
                            on_error=on_error, progress=progress, batch_rows=batch_rows)  # fmt: skip
    return ContingencyTable.from_frame(
        data, keys, label, prediction, classes=classes, drop_nulls=drop_nulls
    ), None
