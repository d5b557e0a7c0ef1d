"""Reduce a streamed source to one accumulator: append batches, combine partials.

Each batch of each part becomes a partial :class:`ContingencyTable`; partials
are combined eight at a time, so memory holds one batch plus a few partial
tables however large the source. A part's partials join the total only once
the whole part has been read, so a part that fails half-way contributes
nothing: with ``on_error="skip"`` it is reported as skipped, otherwise the
error names it and no result is returned.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
import polars as pl

from ..errors import BatchevalError, ColumnNotFoundError, InvalidArgumentError, MergeError, SourceError, warn
from ..io.frames import check_roles, integers_combine, widened
from ..io.sources import DEFAULT_BATCH_ROWS, Part, open_parts
from .table import ContingencyTable, key_types

__all__ = [
    "Positions",
    "SourceReport",
    "check_on_error",
    "check_part_types",
    "check_types",
    "class_kind",
    "combine",
    "count_source",
    "reduce_parts",
]

_COMBINE_EVERY = 8
_SKIPPABLE = (SourceError, ColumnNotFoundError)


@dataclass
class SourceReport:
    """What a streamed evaluation read: parts, rows, batches, and skipped parts."""

    parts: list[str] = field(default_factory=list)
    rows: int = 0
    batches: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    # rows left out before counting, by why ("a null 'label' or 'prediction'"), in the parts read
    dropped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "parts": self.parts,
            "rows": self.rows,
            "batches": self.batches,
            "dropped": sum(self.dropped.values()),
            "skipped": self.skipped,
        }

    def __add__(self, other: SourceReport) -> SourceReport:
        dropped = dict(self.dropped)
        for why, n in other.dropped.items():
            dropped[why] = dropped.get(why, 0) + n
        return SourceReport(
            self.parts + other.parts,
            self.rows + other.rows,
            self.batches + other.batches,
            self.skipped + other.skipped,
            dropped,
        )

    def warn(self) -> None:
        """One warning for everything skipped or dropped, however many batches it took."""
        if self.skipped:
            n = len(self.skipped)
            names = ", ".join(s["part"] for s in self.skipped[:5])
            more = f" and {n - 5} more" if n > 5 else ""
            warn(
                f"skipped {n} of {n + len(self.parts)} parts that could not be read: {names}{more}; "
                "see the result's .metadata['skipped']"
            )
        for why, n in self.dropped.items():
            if n:
                warn(f"dropped {n} of {self.rows} rows with {why}")

    def check_not_empty(self) -> None:
        if not self.parts:
            reasons = "; ".join(s["error"] for s in self.skipped[:3])
            raise SourceError(f"every part of the source was skipped ({len(self.skipped)}): {reasons}")


def combine(tables: Sequence[ContingencyTable]) -> ContingencyTable:
    """Merge partial tables whose class sets may differ (each batch sees its own classes).

    The class set of the result is the sorted union, exactly what one pass
    over the concatenated input would have found; integer keys of different widths
    (a file's Int32 run, another's Int64) are the widest, as :meth:`ContingencyTable.merge` casts them.
    """
    tables = list(tables)
    if len(tables) == 1:
        return tables[0]
    first = tables[0].classes
    if any(not t.classes.equals(first, check_dtypes=True) for t in tables[1:]):
        tables = _on_union_classes(tables)
    return ContingencyTable.merge(tables)


def _on_union_classes(tables: list[ContingencyTable]) -> list[ContingencyTable]:
    kinds = {class_kind(t.classes.dtype) for t in tables if len(t.classes)}
    if len(kinds) > 1:  # a relaxed concat would turn integers into strings and match nothing
        dtypes = sorted({str(t.classes.dtype) for t in tables if len(t.classes)})
        raise MergeError(f"cannot combine class sets of different kinds: {', '.join(dtypes)}")
    try:
        frames = [t.classes.to_frame() for t in tables]
        union = pl.concat(frames, how="vertical_relaxed").to_series().unique().sort()
    except pl.exceptions.PolarsError as exc:
        raise MergeError(f"cannot combine class sets of different types: {exc}") from exc
    position = {v: i for i, v in enumerate(union.to_list())}
    k = len(union)
    out = []
    for t in tables:
        idx = np.asarray([position[v] for v in t.classes.to_list()], dtype=np.int64)
        counts = np.zeros((len(t), k, k), dtype=np.int64)
        counts[:, idx[:, None], idx[None, :]] = t.counts
        out.append(ContingencyTable(t.keys, union, counts, copy=False))
    return out


class _Pending:
    """Partial tables waiting to be combined."""

    def __init__(self) -> None:
        self.tables: list[ContingencyTable] = []

    def add(self, table: ContingencyTable) -> None:
        self.tables.append(table)
        if len(self.tables) >= _COMBINE_EVERY:
            self.tables = [combine(self.tables)]

    def result(self) -> ContingencyTable | None:
        return combine(self.tables) if self.tables else None


def check_on_error(on_error: Any) -> None:
    """Refuse an ``on_error=`` other than ``"raise"`` or ``"skip"``."""
    if on_error not in ("raise", "skip"):
        raise InvalidArgumentError(f"on_error must be 'raise' or 'skip', got {on_error!r}")


def reduce_parts(
    parts: list[Part],
    make_table: Callable[[pl.DataFrame, Positions], ContingencyTable],
    *,
    filters: Sequence[tuple[Callable[[pl.DataFrame], pl.DataFrame], str]] = (),
    check_part: Callable[[str, pl.DataFrame], None] | None = None,
    on_error: Literal["raise", "skip"] = "raise",
    progress: bool | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    warn: bool = True,
    part_done: Callable[[bool], None] | None = None,
) -> tuple[ContingencyTable | None, SourceReport]:
    """Stream every part through ``make_table`` and combine the partial tables.

    ``make_table(frame, positions)`` counts the rows of a batch the filters keep; ``positions(at)``
    gives the positions in the part (0-based, dropped rows counted) of the frame's rows ``at``, for
    an error that names rows.

    ``filters`` drop rows before counting, in order, each ``(drop, why)``: ``drop(batch)`` is
    the rows kept, and the rows it drops are reported in one warning at the end, not one per
    batch, as rows with ``why`` ("a null 'label' or 'prediction'", for ``drop_nulls=``); they
    are counted in ``report.dropped``, the result's ``metadata["dropped"]``. ``check_part(name, batch)``
    checks a part's first batch: what it raises skips the part with ``on_error="skip"``, as a part
    that cannot be read is skipped. ``part_done(True)`` is called once a part's partials join the
    total, ``part_done(False)`` once it is skipped, so that what ``make_table`` gathers of a part
    beside its table (the labels a sweep checks ``positive=`` against) is kept only for the parts
    kept. With ``warn=False`` (a Dask worker's share) the report is returned unwarned
    and the table is None when every part was skipped.
    """
    check_on_error(on_error)
    report = SourceReport()
    total = _Pending()
    report.dropped = {why: 0 for _, why in filters}
    types: PartTypes | None = None
    empty: ContingencyTable | None = None  # what an all-empty source returns
    bar = _progress_bar(parts, progress)
    try:
        for part in parts:
            mine = _Pending()
            rows = batches = 0
            part_dropped = dict.fromkeys(report.dropped, 0)
            try:
                for batch in part.batches(batch_rows):
                    if check_part is not None and not batches:
                        try:
                            check_part(part.name, batch)
                        except BatchevalError as exc:
                            raise _Refused(exc) from exc
                    n = batch.height
                    frame = batch
                    for drop, why in filters:
                        kept = drop(frame)
                        part_dropped[why] += frame.height - kept.height
                        frame = kept
                    try:
                        mine.add(make_table(frame, _positions(batch, filters, rows)))
                    except BatchevalError as exc:
                        raise _naming_rows(exc, part.name, rows, rows + n) from exc
                    rows += n
                    batches += 1
                    bar.update(n)
                    bar.set_postfix(batches=report.batches + batches, refresh=False)
                table = mine.result()
                assert table is not None  # parts yield at least one (maybe empty) frame
                if len(table):
                    types = check_types(part.name, table, types)
            except (*_SKIPPABLE, _Refused) as exc:
                error = exc.error if isinstance(exc, _Refused) else exc
                if on_error == "raise":
                    if error is exc:
                        raise
                    raise error from None  # the check's own error, not its carrier
                report.skipped.append({"part": part.name, "error": str(error)})
                if part_done is not None:
                    part_done(False)
                continue
            if len(table):
                total.add(table)
            else:  # a part with no rows adds nothing, and its types (csv: all String) say nothing
                empty = table if empty is None else empty
            report.parts.append(part.name)
            report.rows += rows
            report.batches += batches
            for why, n in part_dropped.items():
                report.dropped[why] += n
            if part_done is not None:
                part_done(True)
    finally:
        bar.close()
    result = total.result()
    if result is None:
        result = empty
    if warn:
        report.check_not_empty()
        report.warn()
    return result, report


Positions = Callable[[np.ndarray], np.ndarray]
_POSITION = "__batcheval_position__"


def _positions(
    batch: pl.DataFrame, filters: Sequence[tuple[Callable[[pl.DataFrame], pl.DataFrame], str]], first: int
) -> Positions:
    """Where the rows the filters keep of ``batch`` (the part's rows from ``first`` on) are in
    the part: worked out only when an error asks, by filtering the rows' positions as the rows."""

    def positions(at: np.ndarray) -> np.ndarray:
        frame = batch.with_columns(pl.int_range(first, first + batch.height, dtype=pl.Int64).alias(_POSITION))
        for drop, _ in filters:
            frame = drop(frame)
        return frame.get_column(_POSITION).to_numpy()[at]

    return positions


class _Refused(Exception):
    """A part that ``check_part`` refused, carrying the error it raised."""

    def __init__(self, error: BatchevalError) -> None:
        super().__init__(str(error))
        self.error = error


class PartTypes(NamedTuple):
    keys: pl.Schema
    classes: str


def class_kind(dtype: pl.DataType) -> str:
    """Class sets of one kind combine; of two kinds, never. Integers of any width, booleans, floats
    and Decimals (whole-valued ones, which encoding reads as integers; others it refuses) are one kind, as
    they are in a frame in memory, where a relaxed concat of them is one numeric column."""
    if dtype.is_integer() or dtype.is_float() or dtype == pl.Boolean or isinstance(dtype, pl.Decimal):
        return "integer"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "string"
    return str(dtype)


def check_types(name: str, table: ContingencyTable, before: PartTypes | None) -> PartTypes:
    """Key types and the kind of class values must agree across parts; a part that
    disagrees is named ``name`` (and with ``on_error="skip"``, skipped)."""
    mine = PartTypes(key_types(table.keys), class_kind(table.classes.dtype))
    return check_part_types(name, mine, before, str(table.classes.dtype))


def check_part_types(name: str, mine: PartTypes, before: PartTypes | None, classes_dtype: str) -> PartTypes:
    """:func:`check_types` for a part's key schema and class kind alone (a scan that builds no
    table checks its parts as the count will); the result holds the keys widened to this part's
    integer widths, and a key all null so far typed by this part's, so that each later part is
    checked against what the parts so far combine to."""
    if before is None:
        return mine
    keys = before.keys
    if mine.keys != before.keys:
        # integers of another width combine (combine casts them to the widest), and a column of
        # the Null dtype (a part whose key is all null) with any type; nothing else does
        diffs = [
            f"{c!r} is {mine.keys.get(c)}, not {before.keys[c]}"
            for c in before.keys
            if mine.keys.get(c) != before.keys[c]
            and not integers_combine(mine.keys.get(c), before.keys[c])
            and pl.Null not in (mine.keys.get(c), before.keys[c])
        ]
        if diffs or set(mine.keys) != set(before.keys):
            what = ", ".join(diffs) or f"names {list(mine.keys)}, not {list(before.keys)}"
            raise SourceError(f"{name}: key column {what} as in the parts before it")
        keys = widened(before.keys, mine.keys)
    if mine.classes != before.classes:
        raise SourceError(
            f"{name}: its label and prediction values are {classes_dtype}, "
            f"where the parts before it had {before.classes} values"
        )
    return PartTypes(keys, before.classes)


def _naming_rows(exc: BatchevalError, part: str, lo: int, hi: int) -> BatchevalError:
    """The same error, saying which part and which of its rows it is about."""
    return type(exc)(f"{part}, rows {lo:,}-{hi:,}: {exc}")


def _progress_bar(parts: list[Part], progress: bool | None) -> Any:
    """A tqdm bar on stderr: on by default in a terminal, off otherwise."""
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return _NoBar()
    from tqdm.auto import tqdm

    sizes = [part.rows() for part in parts]
    total = None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)
    return tqdm(
        total=total, unit="rows", unit_scale=True, file=sys.stderr, desc="batcheval", dynamic_ncols=True
    )


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def set_postfix(self, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


def count_source(
    data: Any,
    by: Sequence[str],
    label: str,
    prediction: str,
    *,
    classes: Sequence[Any] | None,
    drop_nulls: bool,
    on_error: Literal["raise", "skip"],
    progress: bool | None,
    batch_rows: int | None,
    warn: bool = True,
) -> tuple[ContingencyTable | None, SourceReport]:
    """The streamed counterpart of :meth:`ContingencyTable.from_frame`."""
    roles = check_roles(by, label, prediction)
    parts = open_parts(data, list(roles), roles)

    def make_table(frame: pl.DataFrame, positions: Positions) -> ContingencyTable:
        return ContingencyTable.from_frame(frame, by, label, prediction, classes=classes)

    def drop(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.drop_nulls([label, prediction])

    return reduce_parts(
        parts,
        make_table,
        filters=[(drop, f"a null {label!r} or {prediction!r}")] if drop_nulls else [],
        on_error=on_error,
        progress=progress,
        batch_rows=batch_rows or DEFAULT_BATCH_ROWS,
        warn=warn,
    )
