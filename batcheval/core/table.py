"""The mergeable accumulator: keys, classes and ``counts[G, K, K]``.

A :class:`ContingencyTable` is to batcheval what a histogram is to
boost-histogram: you fill it from a frame, merge it with ``+`` or ``sum()``,
pickle it, pool it over keys, and every measure is a pure function of it.
Merges never mutate their operands, so a failed merge leaves both untouched.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..errors import (
    ClassMismatchError,
    ColumnNotFoundError,
    CountOverflowError,
    InvalidArgumentError,
    InvalidLabelError,
    MergeError,
    NullValuesError,
    warn,
)
from ..io.arguments import as_flag, as_one_value
from ..io.frames import (
    as_key_list,
    check_free_names,
    check_in_memory,
    check_roles,
    integers_combine,
    select_columns,
    select_predictions,
    shown_value,
    widened,
)
from ..kernels.count import group_totals, scatter_add
from ..kernels.jit import readonly
from ..measures import names as _names
from ..measures.compute import as_counts, overflowing_table
from .counting import count_frame, group_ids
from .encode import (
    WIDE_INTEGERS,
    as_integers,
    check_classes,
    check_key_dtype,
    decimal_integers,
    label_kind,
    not_whole,
    split_decimals,
)

__all__ = [
    "ContingencyTable",
    "drop_null_rows",
    "key_types",
    "one_vs_rest",
    "sum_axes",
]

_CELL_NAMES = ("tp", "fp", "fn", "tn")

#: what ``+`` of a table takes, for the message that refuses anything else
_ADDS = "+ adds tables (build one from a frame with ContingencyTable.from_frame)"


class ContingencyTable:
    """Stacked K×K contingency tables, one per group of key values.

    ``counts[g, i, j]`` is the number of examples of real class ``classes[i]``
    predicted as ``classes[j]`` in the group whose keys are row ``g`` of
    ``keys``.

    Parameters
    ----------
    keys
        One row per group, one column per key; no duplicate rows.
    classes
        The class values, in the order of the counts' axes; distinct, without nulls. Tables
        keep their classes sorted: classes given in another order (a confusion matrix laid out
        positive class first) are sorted, and both axes of ``counts`` permuted with them.
        Categorical and Enum classes are read as strings and sorted as strings, as
        :meth:`from_frame` reads such labels (not in an Enum's category order).
    counts
        Non-negative int64 counts of shape ``(len(keys), K, K)``.
    copy
        Keep a copy of ``counts`` and of ``keys`` and ``classes`` (the default), so that later
        writes to the caller's objects cannot change the table; ``False`` adopts them as they
        are, for a caller that built them and will not write to them again (its keys are
        taken as distinct, unchecked). A table's counts are read-only: ``False`` makes the
        adopted array read-only, and the array it is a view of, if any.

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"run": [1, 1, 1, 2, 2], "label": [1, 0, 1, 1, 0],
    ...                    "prediction": [1, 0, 0, 1, 1]})
    >>> a = be.ContingencyTable.from_frame(df, by="run")
    >>> a
    ContingencyTable(2 groups by ['run'], classes [0, 1], 5 examples)
    >>> a.counts[0].tolist()
    [[1, 0], [1, 1]]
    >>> (a + a).n
    10

    Built from counts (one confusion matrix per group), with the properties that read it back
    (``keys``, ``by``, ``classes``, ``n_classes``, ``counts``, ``n``):

    >>> import numpy as np
    >>> t = be.ContingencyTable(pl.DataFrame({"fold": ["a", "b"]}), ["neg", "pos"],
    ...                         np.array([[[5, 1], [2, 7]], [[4, 0], [3, 6]]]))
    >>> t.keys["fold"].to_list(), t.by, t.classes.to_list(), t.n_classes
    (['a', 'b'], ['fold'], ['neg', 'pos'], 2)
    >>> t.counts[1].tolist(), t.n
    ([[4, 0], [3, 6]], 28)
    """

    __slots__ = ("_classes", "_counts", "_keys", "_totals")

    def __init__(
        self, keys: pl.DataFrame, classes: Sequence[Any] | pl.Series, counts: np.ndarray, *, copy: bool = True
    ) -> None:
        if not isinstance(keys, pl.DataFrame):
            raise InvalidArgumentError(f"keys must be a polars DataFrame, got {type(keys).__name__}")
        for name, dtype in keys.schema.items():  # as every merge and from_long refuse them
            check_key_dtype(name, dtype)
        classes = _class_series(classes)
        given = counts
        try:
            counts = np.asarray(counts)
        except (ValueError, TypeError) as exc:  # nested lists of unequal lengths
            raise InvalidArgumentError(
                f"counts must be an array of shape (G, K, K), got {_shown(counts)} ({exc})"
            ) from exc
        k = len(classes)
        if counts.dtype.kind not in "iu":
            counts = _python_integers(given, counts)
        if counts.ndim != 3 or counts.shape[1:] != (k, k):
            raise InvalidArgumentError(
                f"counts must have shape (G, {k}, {k}) for {k} classes, got {counts.shape}"
            )
        if keys.width and keys.height != counts.shape[0]:
            raise InvalidArgumentError(
                f"keys have {keys.height} rows but counts have {counts.shape[0]} groups"
            )
        if not keys.width and counts.shape[0] > 1:
            raise InvalidArgumentError(
                f"a table without keys holds exactly one group, got {counts.shape[0]} groups"
            )
        if counts.size and counts.min() < 0:
            group = np.unravel_index(counts.argmin(), counts.shape)[0]
            raise InvalidArgumentError(f"counts must be non-negative, got {counts.min()} (group {group})")
        if counts.dtype == np.uint64 and counts.size and counts.max() > np.iinfo(np.int64).max:
            group = np.unravel_index(counts.argmax(), counts.shape)[0]
            raise CountOverflowError(f"counts exceed the int64 range: {counts.max()} (group {group})")
        _check_group_totals(counts, keys)
        if copy:
            # a hash pass over the keys: tables built inside batcheval (copy=False) have distinct
            # keys by construction, and merging 100k groups should not pay it again
            _check_distinct_keys(keys)
            keys, classes = keys.clone(), classes.clone()
        if not classes.is_sorted():
            # positive_index takes code 1 as the greater class, and merges compare classes as
            # they stand: both need one order
            order = classes.arg_sort().to_numpy()
            classes = classes.gather(order)
            counts = counts[:, order][:, :, order]
            copy = False  # the gather made a fresh array
        self._keys = keys
        self._classes = classes
        self._counts = _frozen(np.array(counts, dtype=np.int64, order="C", copy=True if copy else None))
        # rows per group when counting gave them (a pass over K = 10's 100k tables, ~15 ms saved)
        self._totals: np.ndarray | None = None

    # -- construction -------------------------------------------------------------

    @classmethod
    def from_frame(
        cls,
        data: Any,
        by: str | Sequence[str] | None = None,
        label: str = "label",
        prediction: str = "prediction",
        *,
        classes: Sequence[Any] | None = None,
        drop_nulls: bool = False,
    ) -> ContingencyTable:
        """Count a frame of (keys..., label, prediction) rows.

        Parameters
        ----------
        data
            polars DataFrame or LazyFrame, pyarrow Table, or pandas DataFrame.
        by
            Key columns; one table per distinct combination.
        label, prediction
            Columns holding the real class and the predicted class: integers, booleans, strings
            or categoricals; floats and Decimals holding whole numbers are read as integers.
        classes
            The class set; by default the sorted union of both columns, but for boolean columns
            always ``[False, True]`` (a boolean is a binary class, so a file of negatives alone
            still has a positive class: its recall is NaN, where integer labels all 0 make 0 the
            one class, and positive, of a one-class table).
        drop_nulls
            Skip rows whose label or prediction is null (with a warning that
            says how many) instead of raising :class:`NullValuesError`.

        Returns
        -------
        ContingencyTable
            One group per distinct key combination present in the rows, keys sorted (nulls
            last); classes sorted. Without ``by``, one group, or none when no rows are left.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> df = pl.DataFrame({"label": ["cat", "dog", "dog"], "prediction": ["cat", "cat", "dog"]})
        >>> be.ContingencyTable.from_frame(df).counts.tolist()
        [[[1, 0], [1, 1]]]
        """
        drop_nulls = as_flag(drop_nulls, "drop_nulls=")
        keys = as_key_list(by)
        df = select_predictions(data, keys, label, prediction)
        if drop_nulls:
            df = drop_null_rows(df, label, prediction)
        counted = count_frame(df, keys, label, prediction, classes)
        table = cls(counted.keys, counted.classes, counted.counts, copy=False)
        table._totals = counted.totals
        return table

    @classmethod
    def from_long(
        cls,
        frame: pl.DataFrame,
        by: str | Sequence[str] | None = None,
        *,
        real: str = "real",
        predicted: str = "predicted",
        count: str = "count",
        classes: Sequence[Any] | None = None,
    ) -> ContingencyTable:
        """Rebuild a table from the long frame of :meth:`to_long`.

        Rows with the same keys and cell are added; ``classes`` defaults to
        the sorted union of the ``real`` and ``predicted`` values.

        Parameters
        ----------
        frame
            A polars DataFrame (or LazyFrame, pandas or arrow frame) with the key columns and a
            real class, predicted class and count column per row; any other column is ignored.
            Classes are read as :meth:`from_frame` reads labels (floats holding whole numbers as integers,
            categoricals as strings); real and predicted must be of one kind.
        by
            Key columns; one table per distinct combination.
        real, predicted, count
            The columns holding the real class, the predicted class and the number of
            examples in that cell (integers, non-negative, no nulls; floats holding whole
            numbers are read as the integers they hold, as class labels are, and other values
            are an :class:`~batcheval.errors.InvalidArgumentError`).
        classes
            The class set, checked as in :meth:`from_frame`; a class named twice is one class.
            A ``real`` or ``predicted`` value outside it is an :class:`InvalidLabelError`.

        Returns
        -------
        ContingencyTable
            One group per distinct key combination, keys sorted (nulls last); without ``by``,
            one group, or none for a frame of no rows. Cells no row names are 0.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> long = pl.DataFrame({"run": [7, 7], "real": [0, 1], "predicted": [0, 1], "count": [3, 4]})
        >>> be.ContingencyTable.from_long(long, by="run").counts.tolist()
        [[[3, 0], [0, 4]]]
        """
        keys = as_key_list(by)
        roles = check_roles(keys, real, predicted, count, roles=("real", "predicted", "count"))
        check_in_memory(frame, "from_long")
        # a LazyFrame, a pandas or an arrow frame too, as from_frame reads them
        frame = select_columns(frame, list(roles), roles)
        for col, role in ((real, "real"), (predicted, "predicted")):
            if nulls := frame.get_column(col).null_count():
                raise NullValuesError(
                    f"{role} column {col!r} has {nulls} null values; every cell names a class"
                )
        # a frame of no rows written by to_long of a table of no classes: its class columns are of
        # the Null dtype, which holds no value of a wrong kind
        frame = frame.with_columns(
            pl.col(c).cast(pl.Int64) for c in (real, predicted) if frame.schema[c] == pl.Null
        )
        counts_col = frame.get_column(count)
        if counts_col.null_count():
            raise NullValuesError(f"count column {count!r} has {counts_col.null_count()} nulls")
        counts_col = _whole_counts(counts_col, count)
        if counts_col.dtype == pl.UInt64 and len(counts_col) and counts_col.max() > np.iinfo(np.int64).max:  # type: ignore[operator]
            raise CountOverflowError(f"count column {count!r} has values beyond the int64 range")
        real_col, pred_col = (
            _long_classes(frame.get_column(real), "real"),
            _long_classes(frame.get_column(predicted), "predicted"),
        )
        r_type, p_type = real_col.dtype, pred_col.dtype
        if r_type != p_type:
            if not (r_type.is_integer() and p_type.is_integer()):
                raise InvalidLabelError(
                    f"real column {real!r} is {r_type} but predicted column {predicted!r} is "
                    f"{p_type}: they must hold classes of one kind"
                )
            for col, s in ((real, real_col), (predicted, pred_col)):
                top = s.max() if s.dtype == pl.UInt64 else None
                if top is not None and top > np.iinfo(np.int64).max:  # type: ignore[operator]
                    raise InvalidLabelError(f"{col!r} column has classes beyond the int64 range, up to {top}")
            # one type for both: Int64, as from_frame gives labels and predictions of two widths
            real_col, pred_col = real_col.cast(pl.Int64), pred_col.cast(pl.Int64)
        kind = label_kind(real_col, "real")
        given = check_classes(classes, kind, real)
        if given is None:
            values = pl.concat([real_col.unique(), pred_col.unique()]).unique().drop_nulls().sort().to_list()
        else:
            # integral floats name integer classes; a class named twice is one class
            values = sorted({int(v) for v in given} if kind == "int" else set(given))
        class_series = pl.Series("class", values)
        if class_series.dtype != real_col.dtype:
            try:  # the frame's class type, as to_long wrote it
                class_series = class_series.cast(real_col.dtype, strict=True)
            except pl.exceptions.InvalidOperationError:  # classes= beyond a narrow integer type
                real_col, pred_col = real_col.cast(pl.Int64), pred_col.cast(pl.Int64)
                class_series = class_series.cast(pl.Int64)
        k = len(values)
        # codes by lookup on the columns themselves: no helper column joins the user's frame,
        # whose own column of that name would be read in its place
        code_of = pl.Series(np.arange(k, dtype=np.int64))
        r_codes, p_codes = (
            s.replace_strict(class_series, code_of, default=None, return_dtype=pl.Int64)
            for s in (real_col, pred_col)
        )
        missing = (r_codes.is_null() | p_codes.is_null()).sum()
        if missing:
            raise InvalidLabelError(
                f"long frame has {missing} rows whose {real!r}/{predicted!r} value "
                f"is outside classes={values}"
            )
        if keys:
            gid, key_frame = group_ids(frame.select(keys))
            n_groups = key_frame.height
        else:
            key_frame = pl.DataFrame()
            gid = np.zeros(frame.height, dtype=np.int64)
            n_groups = min(1, frame.height)  # no rows, no group: as to_long of such a table
        flat = np.zeros((n_groups, k * k), dtype=np.int64)
        cell = r_codes.to_numpy() * k + p_codes.to_numpy()
        src = counts_col.cast(pl.Int64).to_numpy().reshape(-1, 1)
        rows = gid * (k * k) + cell
        if not scatter_add(readonly(src), rows.astype(np.int64), flat.reshape(-1, 1)):
            raise CountOverflowError(f"summing column {count!r} overflows int64")
        return cls(key_frame, class_series, flat.reshape(n_groups, k, k), copy=False)

    # -- state --------------------------------------------------------------------

    @property
    def keys(self) -> pl.DataFrame:
        """One row per group, one column per key (a copy: writing to it leaves the table as it is)."""
        return self._keys.clone()

    @property
    def by(self) -> list[str]:
        """The key column names."""
        return list(self._keys.columns)

    @property
    def classes(self) -> pl.Series:
        """The class values, sorted, in the order of the counts' axes (a copy, as :attr:`keys`)."""
        return self._classes.clone()

    @property
    def counts(self) -> np.ndarray:
        """``counts[g, real, predicted]`` as int64 (a read-only view)."""
        return self._counts.view()

    @property
    def n_classes(self) -> int:
        """The number of classes K: the length of :attr:`classes` and of the counts' last two axes."""
        return len(self._classes)

    @property
    def n(self) -> int:
        """Total number of examples counted.

        Each group's total fits int64 (the constructor checks it), but the sum over groups
        may not: it is summed in Python integers when it could wrap.
        """
        totals = self._counts.sum(axis=(1, 2))
        if totals.sum(dtype=np.float64) < 2.0**62:
            return int(totals.sum())
        return sum(totals.tolist())

    def __len__(self) -> int:
        return self._counts.shape[0]

    def __repr__(self) -> str:
        return (
            f"ContingencyTable({len(self)} group{'s' if len(self) != 1 else ''} by {self.by}, "
            f"classes {self._classes.to_list()}, {self.n} examples)"
        )

    def __getstate__(self) -> dict[str, Any]:
        return {"keys": self._keys, "classes": self._classes, "counts": self._counts}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # through the constructor's checks: a table pickled by 0.1 (or before classes were sorted)
        # kept its classes as given, and loaded so it gave wrong measures and refused merges
        self.__init__(state["keys"], state["classes"], state["counts"], copy=False)  # type: ignore[misc]

    def equals(self, other: ContingencyTable) -> bool:
        """True when keys, classes and counts are all identical, dtypes included (as ``+`` needs).

        Parameters
        ----------
        other
            The table to compare with; anything else than a ContingencyTable gives False.

        Returns
        -------
        bool
            Whether both have the same key columns (names, dtypes and rows, nulls equal to
            nulls), the same classes of the same dtype, and equal counts.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], [[[2, 0], [1, 3]]])
        >>> t.equals(be.ContingencyTable.from_long(t.to_long(), by="run"))
        True
        >>> t.equals(be.ContingencyTable(pl.DataFrame({"run": [1]}), pl.Series([0, 1], dtype=pl.Int32),
        ...                              [[[2, 0], [1, 3]]]))
        False
        """
        return (
            isinstance(other, ContingencyTable)
            and self._keys.schema == other._keys.schema
            and self._keys.equals(other._keys, null_equal=True)
            and self._classes.equals(other._classes, check_dtypes=True)
            and np.array_equal(self._counts, other._counts)
        )

    # -- merging ------------------------------------------------------------------

    def __add__(self, other: ContingencyTable) -> ContingencyTable:
        if not isinstance(other, ContingencyTable):
            # refused here, not left to other.__radd__ (NotImplemented): a polars frame or Series
            # took over and failed with its own error ("failed to determine supertype of i64 and
            # object"), and a numpy array added the table to each of its elements
            raise InvalidArgumentError(f"cannot add {shown_value(other)} to a ContingencyTable; {_ADDS}")
        return ContingencyTable.merge([self, other])

    def __radd__(self, other: Any) -> ContingencyTable:
        if isinstance(other, int) and other == 0:  # sum() starts from 0
            return self
        raise InvalidArgumentError(f"cannot add a ContingencyTable to {shown_value(other)}; {_ADDS}")

    @staticmethod
    def merge(*tables: ContingencyTable | Iterable[ContingencyTable]) -> ContingencyTable:
        """Add many tables by key in one pass (cheaper than chaining ``+``).

        Takes the tables as arguments, ``merge(a, b, c)``, or as one iterable,
        ``merge([a, b, c])``.

        Raises :class:`ClassMismatchError` when the class sets differ,
        :class:`MergeError` when the key columns differ,
        :class:`CountOverflowError` (not a :class:`MergeError`) when a merged count
        or a group's total would pass the int64 range, and
        :class:`InvalidArgumentError` for something that is not a table (``a + b`` is
        ``merge(a, b)``, and refuses a frame or a number the same way); the inputs are
        never modified.

        Parameters
        ----------
        *tables
            At least one ContingencyTable, as separate arguments or as one iterable. All must
            have the same key column names, in any order, each of one type (integers of different widths
            are cast to the widest, but UInt64 combines with no signed type; a column all null
            takes the others' type) and equal classes of one kind (integer classes of different
            widths are cast to the widest, as keys are); a table of no groups adds nothing,
            whatever its classes.

        Returns
        -------
        ContingencyTable
            One group per distinct key row over all the tables, keys sorted (nulls last), key
            columns in the first table's order, its counts the sum of that key's counts in every
            table; the classes of the inputs.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> parts = [pl.DataFrame({"run": [r], "label": [1], "prediction": [1]}) for r in (1, 2, 1)]
        >>> be.ContingencyTable.merge(be.ContingencyTable.from_frame(p, by="run", classes=[0, 1])
        ...                            for p in parts).counts[:, 1, 1].tolist()
        [2, 1]
        >>> t = be.ContingencyTable.from_frame(parts[0], by="run", classes=[0, 1])
        >>> be.ContingencyTable.merge(t, t).counts[:, 1, 1].tolist()
        [2]
        """
        if len(tables) == 1 and not isinstance(tables[0], ContingencyTable):
            one = tables[0]
            # a frame, a string or a mapping iterates too, over what are no tables (a DataFrame was
            # refused as its first column, a Series), and None or a number not at all
            if (
                isinstance(one, str | bytes | Mapping)
                or hasattr(one, "shape")
                or not isinstance(one, Iterable)
            ):
                raise InvalidArgumentError(
                    f"merge takes ContingencyTables, or one list of them, got {shown_value(one)}"
                )
            tables = tuple(one)  # merge([a, b]): one iterable of tables
        for i, t in enumerate(tables):
            if not isinstance(t, ContingencyTable):
                raise InvalidArgumentError(f"merge takes ContingencyTables, got {shown_value(t)} (item {i})")
        tables = list(tables)
        if not tables:
            raise InvalidArgumentError("merge needs at least one table, got none")
        first = tables[0]
        by = first.by  # the result's key order, whatever the order of the others' key columns
        for t in tables[1:]:
            if sorted(t.by) != sorted(by):
                raise MergeError(f"cannot merge tables keyed by {by} and {t.by}")
        # a table of no groups adds nothing, whatever its classes (a shard of no rows read back by
        # from_long has none) or key types (a csv's header alone reads as String)
        tables = [t for t in tables if len(t)] or tables[:1]
        tables = _widened_classes(tables)
        first = tables[0]
        for t in tables[1:]:
            if _equal_values(t._classes, first._classes) and t._classes.dtype != first._classes.dtype:
                # "the same classes=" would not help: the values are equal, their types are not
                raise ClassMismatchError(
                    f"cannot merge tables whose classes {first._classes.to_list()} are of different "
                    f"dtypes, {first._classes.dtype} and {t._classes.dtype}; cast the label and "
                    f"prediction columns to one dtype (e.g. .cast(pl.{first._classes.dtype})) before "
                    "building the tables"
                )
            if not t._classes.equals(first._classes, check_dtypes=True):
                raise ClassMismatchError(
                    f"cannot merge tables with different classes: {first._classes.to_list()} "
                    f"({first._classes.dtype}) and {t._classes.to_list()} ({t._classes.dtype}); "
                    "build both with the same classes="
                )
        k = first.n_classes
        if not first.by:
            # an unkeyed table from no rows has no group; adding such tables keeps none
            total = np.zeros((1 if any(len(t) for t in tables) else 0, k * k), dtype=np.int64)
            for t in tables:
                _checked_add(t._counts.reshape(len(t), k * k), np.zeros(len(t), np.int64), total)
            # len(total), not -1: numpy cannot infer an axis of a table of no classes (k = 0)
            return ContingencyTable(first._keys, first._classes, total.reshape(len(total), k, k), copy=False)
        keys = [t._keys.select(by) for t in tables]  # each in the first table's column order
        stacked = pl.concat(_common_keys(_typed_null_keys(keys)), how="vertical")
        ids, union = group_ids(stacked)
        total = np.zeros((union.height, k * k), dtype=np.int64)
        _checked_add(np.concatenate([t._counts.reshape(len(t), k * k) for t in tables]), ids, total)
        return ContingencyTable(union, first._classes, total.reshape(len(total), k, k), copy=False)

    # -- pooling ------------------------------------------------------------------

    def pool(self, over: str | Sequence[str]) -> ContingencyTable:
        """Sum the tables over the key columns ``over`` (micro-averaging, docs/averaging.md).

        Parameters
        ----------
        over
            One key column or a list of them (each must be in :attr:`by`); None is an
            :class:`InvalidArgumentError`.

        Returns
        -------
        ContingencyTable
            Keyed by the remaining key columns, one group per distinct combination of them,
            sorted; its counts the sum over the groups that share it. Pooled over every key:
            one unkeyed group, or none when the table has no groups.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> df = pl.DataFrame({"run": [1, 1, 2], "fold": [0, 1, 0],
        ...                    "label": [1, 0, 1], "prediction": [1, 1, 0]})
        >>> be.ContingencyTable.from_frame(df, by=["run", "fold"]).pool("fold")
        ContingencyTable(2 groups by ['run'], classes [0, 1], 3 examples)
        """
        pooled, _ = self.pool_with_index(over)
        return pooled

    def pool_with_index(self, over: str | Sequence[str]) -> tuple[ContingencyTable, np.ndarray]:
        """The pooled table and, per group of ``self``, its row in it.

        Parameters
        ----------
        over
            As in :meth:`pool`.

        Returns
        -------
        pooled : ContingencyTable
            What :meth:`pool` returns.
        index : numpy.ndarray
            int64 of length ``len(self)``: ``index[g]`` is the group of ``pooled`` that group
            ``g`` of ``self`` was added into.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> df = pl.DataFrame({"run": [1, 1, 2], "fold": [0, 1, 0],
        ...                    "label": [1, 0, 1], "prediction": [1, 1, 0]})
        >>> pooled, index = be.ContingencyTable.from_frame(df, by=["run", "fold"]).pool_with_index("fold")
        >>> pooled.keys.rows(), index.tolist()
        ([(1,), (2,)], [0, 0, 1])
        """
        if over is None:  # as_key_list reads None as no key: pooling over nothing is a slip
            raise InvalidArgumentError("pool takes the key column(s) to sum over, got None")
        over = as_key_list(over, "pool")
        for col in over:
            if col not in self.by:
                raise ColumnNotFoundError(f"pool column {col!r} is not a key; the keys are {self.by}")
        rest = [c for c in self.by if c not in over]
        k = self.n_classes
        flat = self._counts.reshape(len(self), k * k)
        if rest:
            index, keys = group_ids(self._keys.select(rest))
        else:
            index = np.zeros(len(self), dtype=np.int64)
            keys = pl.DataFrame()
        # pooled over every key: one group, or none from no rows (as an unkeyed merge of none)
        total = np.zeros((keys.height if rest else min(1, len(self)), k * k), dtype=np.int64)
        _checked_add(flat, index, total)
        return ContingencyTable(keys, self._classes, total.reshape(len(total), k, k), copy=False), index

    # -- output -------------------------------------------------------------------

    def to_long(self, *, nonzero: bool = False) -> pl.DataFrame:
        """One row per group × real × predicted cell: keys, ``real``, ``predicted``, ``count``.

        Parameters
        ----------
        nonzero
            Leave out the cells that count 0.

        Returns
        -------
        polars.DataFrame
            The key columns, then ``real`` and ``predicted`` (of the classes' dtype) and
            ``count`` (Int64), ordered by group, then real class, then predicted class:
            ``len(self) · K²`` rows unless ``nonzero``. :meth:`from_long` reads it back. A key
            column named ``real``, ``predicted`` or ``count`` is a
            :class:`~batcheval.errors.DuplicateColumnError`.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], [[[2, 0], [1, 3]]])
        >>> t.to_long(nonzero=True).rows()
        [(1, 0, 0, 2), (1, 1, 0, 1), (1, 1, 1, 3)]
        """
        nonzero = as_flag(nonzero, "nonzero=")
        # a key named like an added column was overwritten by it, its values lost
        check_free_names(self.by, ("real", "predicted", "count"), "the long frame")
        g, k = len(self), self.n_classes
        flat = self._counts.reshape(-1)
        rows = np.repeat(np.arange(g), k * k)
        real = np.tile(np.repeat(np.arange(k), k), g)
        pred = np.tile(np.tile(np.arange(k), k), g)
        if nonzero:
            keep = flat != 0
            rows, real, pred, flat = rows[keep], real[keep], pred[keep], flat[keep]
        out = self._keys[rows] if self.by else pl.DataFrame()
        return (
            out.with_columns(
                self._classes.gather(real).alias("real"),
                self._classes.gather(pred).alias("predicted"),
                pl.Series("count", flat, dtype=pl.Int64),
            )
            if self.by
            else pl.DataFrame(
                [
                    self._classes.gather(real).alias("real"),
                    self._classes.gather(pred).alias("predicted"),
                    pl.Series("count", flat, dtype=pl.Int64),
                ]
            )
        )

    def positive_index(self, positive: Any = None) -> int:
        """Code of the positive class: ``positive`` if given, else the greater class.

        Parameters
        ----------
        positive
            A class value of the table, or None for the greater of the two classes.

        Returns
        -------
        int
            Its index on the counts' axes (and in :attr:`classes`): 0 or 1. A table without
            exactly two classes, or a ``positive`` that is not one of them, is an
            :class:`InvalidLabelError`.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame(), ["no", "yes"], [[[5, 1], [2, 4]]])
        >>> t.positive_index(), t.positive_index("no")
        (1, 0)
        """
        if self.n_classes != 2:
            raise InvalidLabelError(
                f"a positive class needs 2 classes, the table has {self._classes.to_list()}"
            )
        if positive is None:
            return 1
        return self._class_index(positive)

    def _class_index(self, positive: Any) -> int:
        """Code of class ``positive``; :class:`InvalidLabelError` when it is not a class."""
        positive = as_one_value(positive, "positive=")
        values = self._classes.to_list()
        if positive not in values:
            raise InvalidLabelError(f"positive={positive!r} is not one of the classes {values}")
        return values.index(positive)

    def measures(
        self,
        measures: Sequence[str] | None = None,
        *,
        per_class: bool = False,
        positive: Any = None,
        beta: float | None = None,
    ) -> pl.DataFrame:
        """Measures of every group as a polars frame.

        One row per group: the keys, ``n``, the cells ``tp fp fn tn`` when
        binary, then one float64 column per measure. With ``per_class=True``,
        one row per group × class with the one-vs-rest binary measures.

        Parameters
        ----------
        measures
            Measure names or aliases (an alias names its column); default every measure that
            applies: the binary set for two classes (and for ``per_class`` or a ``positive``
            among more), the multiclass set otherwise.
        per_class
            One row per group × class (a ``class`` column after the keys), each class against
            the rest, with its ``tp fp fn tn``.
        positive
            The positive class of a two-class table (default the greater); with more classes,
            that class against the rest (as :meth:`versus_rest`). Ignored with ``per_class``,
            but it must name a class either way.
        beta
            β of the ``f_beta`` measure, which needs it; given, it adds that column to the binary
            measures: to the default set, and after the last of a ``measures`` list that lacks it.

        Returns
        -------
        polars.DataFrame
            The keys, ``n`` (Int64), the cells when binary, and the measures (Float64; NaN
            where undefined), one row per group (per group × class with ``per_class``).

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], [[[28, 12], [30, 30]]])
        >>> t.measures(["informedness", "markedness"])
        shape: (1, 8)
        ┌─────┬─────┬─────┬─────┬─────┬─────┬──────────────┬────────────┐
        │ run ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  ┆ informedness ┆ markedness │
        │ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ ---          ┆ ---        │
        │ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ f64          ┆ f64        │
        ╞═════╪═════╪═════╪═════╪═════╪═════╪══════════════╪════════════╡
        │ 1   ┆ 100 ┆ 30  ┆ 12  ┆ 30  ┆ 28  ┆ 0.2          ┆ 0.197044   │
        └─────┴─────┴─────┴─────┴─────┴─────┴──────────────┴────────────┘
        """
        names, rename = _names.resolve(measures)
        binary = as_flag(per_class, "per_class=") or self.n_classes <= 2 or positive is not None
        names = _measures.with_beta(names, beta, binary)  # as the default set has it
        head, arrays = self.measure_arrays(names, per_class=per_class, positive=positive, beta=beta)
        out = head.hstack([pl.Series(name, values, dtype=pl.Float64) for name, values in arrays.items()])
        return _names.rename_columns(out, rename)

    def versus_rest(self, positive: Any) -> ContingencyTable:
        """The 2×2 table of class ``positive`` against every other class, for every group.

        Its classes are ``[False, True]`` (True: the example is of class
        ``positive``), so its binary measures are one-vs-rest for that class.

        Parameters
        ----------
        positive
            One of :attr:`classes`; otherwise an :class:`InvalidLabelError`.

        Returns
        -------
        ContingencyTable
            The same keys; ``counts[g]`` is ``[[tn, fp], [fn, tp]]`` with ``positive`` as the
            positive class.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame({"run": [1]}), ["a", "b", "c"],
        ...                      [[[5, 1, 0], [2, 7, 1], [0, 3, 4]]])
        >>> t.versus_rest("b").counts.tolist()  # 23 examples: tp 7, fn 2 + 1, fp 1 + 3, tn the other 9
        [[[9, 4], [3, 7]]]
        """
        p = self._class_index(positive)
        c = self._counts
        tp = c[:, p, p]
        fn = c[:, p, :].sum(axis=1) - tp
        fp = c[:, :, p].sum(axis=1) - tp
        tn = c.sum(axis=(1, 2)) - tp - fn - fp
        counts = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)
        return ContingencyTable(self._keys, pl.Series("class", [False, True]), counts, copy=False)

    def measure_arrays(
        self,
        measures: Sequence[str] | None = None,
        *,
        per_class: bool = False,
        positive: Any = None,
        beta: float | None = None,
        check_names: bool = True,
    ) -> tuple[pl.DataFrame, dict[str, np.ndarray]]:
        """The identifying columns (keys, n, cells) and the measure arrays (batcheval names).

        ``check_names=False``: the keys are not the result's (tables about to be pooled, whose
        pooled keys leave it), so a key named like a measure is no clash; one named like a count
        column still is, as the counts stand beside the keys here.

        Parameters
        ----------
        measures, per_class, positive, beta
            As in :meth:`measures`, with its defaults (aliases are read, but the arrays keep
            batcheval's names).
        check_names
            Refuse a key column named like a measure (:class:`~batcheval.errors.DuplicateColumnError`).

        Returns
        -------
        head : polars.DataFrame
            What :meth:`measures` returns before its measure columns: keys (and ``class``), ``n``
            and, when binary, ``tp fp fn tn``.
        arrays : dict of str to numpy.ndarray
            One float64 array per measure, aligned with the rows of ``head``.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> t = be.ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], [[[2, 0], [1, 3]]])
        >>> head, arrays = t.measure_arrays(["tpr"], per_class=False, positive=None, beta=None)
        >>> head.rows(), {name: values.tolist() for name, values in arrays.items()}
        ([(1, 6, 3, 0, 1, 2)], {'recall': [0.75]})
        """
        measures, _ = _names.resolve(measures)
        per_class = as_flag(per_class, "per_class=")
        counts, k = self._counts, self.n_classes
        if positive is not None:
            # checked whatever the table: per class or with one class it is not used, and a
            # positive= that names no class is a mistake all the same
            self._class_index(positive)
        if positive is not None and k > 2 and not per_class:
            # a class named among three or more: that class against the rest, as evaluate does
            # (the positive of more classes was ignored here)
            return self.versus_rest(positive).measure_arrays(
                measures, per_class=False, positive=True, beta=beta, check_names=check_names
            )
        if k == 0:
            # no classes (empty input with none named, or a table built so): the binary
            # schema, each group a row of no examples (per class, no row)
            counts, k = np.zeros((0 if per_class else len(self), 2, 2), dtype=np.int64), 2
        added = ["class"] * per_class + ["n"] + list(_CELL_NAMES) * (per_class or k == 2)
        check_free_names(self.by, added, "the counts")
        if per_class:
            counts = one_vs_rest(counts)
            pos = 1
            n_cls = self.n_classes  # not k: zero classes give no row
            keys = self._keys[np.repeat(np.arange(len(self)), n_cls)] if self.by else pl.DataFrame()
            cls_col = (
                self._classes.gather(np.tile(np.arange(n_cls), len(self)))
                if len(self._classes)
                else self._classes
            )
            head = (
                keys.hstack([cls_col.alias("class")]) if self.by else pl.DataFrame([cls_col.alias("class")])
            )
        else:
            pos = self.positive_index(positive) if k == 2 and len(self._classes) == 2 else 1
            head = self._keys.clone() if self.by else pl.DataFrame()
        cells = _measures.binary_cells(counts, pos) if counts.shape[1] == 2 else None
        if cells is None:
            n = self._totals if self._totals is not None and not per_class else group_totals(counts)[0]
        else:
            # the same integers as group_totals, from the cells at hand: three adds of G values
            # against a pass over the tables that also sums every class (0.94 ms for 100k groups)
            n = cells[0] + cells[1]
            n += cells[2]
            n += cells[3]
        cols = [pl.Series("n", n, dtype=pl.Int64)]
        if cells is not None:
            cols += [pl.Series(c, arr, dtype=pl.Int64) for c, arr in zip(_CELL_NAMES, cells, strict=True)]
        head = head.hstack(cols) if head.width else pl.DataFrame(cols)
        arrays = _measures.compute(counts, measures, positive=pos, beta=beta, cells=cells)
        if check_names:
            check_free_names(self.by, list(arrays), "the measures")
        return head, arrays


# Pickles name the public path, which stays put when modules move (tables pickled by 0.1 name
# batcheval.table, which batcheval/table.py keeps importable).
ContingencyTable.__module__ = "batcheval"


def sum_axes(a: np.ndarray, axes: int | tuple[int, ...]) -> np.ndarray:
    """``a.sum(axis=axes)`` for stacked tables, whose axes after the first are short.

    Adds the slices of each short axis instead: numpy's strided reduction
    over ``[G, K, K, K]`` arrays is several times slower (16 ms against 3 ms
    for 100k × 2 × 2 × 2). Float sums may differ from numpy's in the last bit.

    Examples
    --------
    >>> import numpy as np
    >>> from batcheval.core.table import sum_axes
    >>> a = np.arange(24).reshape(3, 2, 2, 2)
    >>> bool(np.array_equal(sum_axes(a, (1, 3)), a.sum(axis=(1, 3))))
    True
    """
    for ax in sorted((axes,) if isinstance(axes, int) else axes, reverse=True):
        if a.shape[ax] == 0:
            a = np.zeros(a.shape[:ax] + a.shape[ax + 1 :], dtype=a.dtype)
            continue
        lead = (slice(None),) * ax
        out = a[(*lead, 0)].copy()
        for i in range(1, a.shape[ax]):
            out += a[(*lead, i)]
        a = out
    return a


def one_vs_rest(counts: np.ndarray) -> np.ndarray:
    """``[G, K, K]`` → ``[G·K, 2, 2]``: for each class, class-vs-rest with index 1 positive."""
    g, k, _ = counts.shape
    real = counts.sum(axis=2)
    pred = counts.sum(axis=1)
    n = real.sum(axis=1, keepdims=True)
    tp = np.diagonal(counts, axis1=1, axis2=2)
    fn = real - tp
    fp = pred - tp
    tn = n - tp - fn - fp
    out = np.empty((g, k, 2, 2), dtype=np.int64)
    out[:, :, 1, 1], out[:, :, 1, 0], out[:, :, 0, 1], out[:, :, 0, 0] = tp, fn, fp, tn
    return out.reshape(g * k, 2, 2)


def _long_classes(s: pl.Series, role: str) -> pl.Series:
    """A long frame's real or predicted column as :meth:`ContingencyTable.from_frame` reads
    labels: floats holding whole numbers as Int64 (others refused), categoricals as strings."""
    if label_kind(s, role) == "str":
        return s.cast(pl.String)
    return as_integers(s, role)


def _whole_counts(s: pl.Series, name: str) -> pl.Series:
    """A long frame's count column as integers: floats and Decimals holding whole numbers within
    int64 as Int64 (a count column read through pandas or a csv with gaps is float, and one
    summed by duckdb a Decimal), anything else
    but integers an :class:`InvalidArgumentError` naming the column and showing the value.

    Examples
    --------
    >>> _whole_counts(pl.Series("count", [3.0, 4.0]), "count").to_list()
    [3, 4]
    >>> _whole_counts(pl.Series("count", [3.0, 0.5]), "count")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: count column 'count' holds 1 value that is no whole number ...
    """
    if isinstance(s.dtype, pl.Decimal):  # SQL's SUM of an integer column is a DECIMAL in duckdb
        whole, wide, bad = split_decimals(s)
        if len(wide):
            raise CountOverflowError(
                f"count column {name!r} ({s.dtype}) has values beyond the int64 range (first: {wide[0]})"
            )
        if len(bad):
            raise InvalidArgumentError(
                f"count column {name!r} ({s.dtype}) holds {len(bad)} value{'s' if len(bad) > 1 else ''} "
                f"with a fraction (first: {bad[0]}); counts are numbers of examples"
            )
        s = whole
    if not (s.dtype.is_integer() or s.dtype.is_float()):
        raise InvalidArgumentError(
            f"count column {name!r} must hold integers (numbers of examples), got {s.dtype} values "
            f"{s.head(3).to_list()}"
        )
    if len(s) and s.min() < 0:  # type: ignore[operator]
        raise InvalidArgumentError(
            f"count column {name!r} has negative values (min {s.min()!r}); counts are numbers of examples"
        )
    if s.dtype.is_integer() and s.dtype not in WIDE_INTEGERS:
        return s
    if s.dtype.is_float():
        bad = not_whole(s)
        if len(bad):
            raise InvalidArgumentError(
                f"count column {name!r} holds {len(bad)} value{'s' if len(bad) > 1 else ''} that "
                f"{'are' if len(bad) > 1 else 'is'} no whole number (first: {bad[0]!r}); counts are "
                "numbers of examples"
            )
    elif len(s) and s.max() < 2**63:  # type: ignore[operator]
        return s.cast(pl.Int64)  # a 128-bit column of counts that fit
    if len(s) and s.max() >= 2**63:  # type: ignore[operator]
        raise CountOverflowError(
            f"count column {name!r} ({s.dtype}) has values beyond the int64 range (up to {s.max()!r})"
        )
    return s.cast(pl.Int64)


def _widened_classes(tables: list[ContingencyTable]) -> list[ContingencyTable]:
    """``tables`` with integer classes of equal values in the widest of their types, as merge widens
    integer keys (and the streamed engine class sets): one table a file, an Int32 file beside an
    Int64 one, with the same ``classes=``, was refused. UInt64 with a signed type does not combine,
    and other kinds are left for merge's own checks."""
    first = tables[0]._classes
    if all(t._classes.dtype == first.dtype for t in tables) or not all(
        integers_combine(first.dtype, t._classes.dtype) and _equal_values(t._classes, first) for t in tables
    ):
        return tables
    dtype = pl.concat([t._classes.to_frame() for t in tables], how="vertical_relaxed").to_series().dtype
    return [
        t
        if t._classes.dtype == dtype
        else ContingencyTable(t._keys, t._classes.cast(dtype), t._counts, copy=False)
        for t in tables
    ]


def _class_series(classes: Sequence[Any] | pl.Series) -> pl.Series:
    """``classes`` as the table's Series named ``class``: distinct, no nulls, of one kind that
    :meth:`ContingencyTable.from_long` reads back (integers, booleans or strings), read as
    :meth:`ContingencyTable.from_frame` reads labels: floats holding whole numbers become Int64,
    categoricals and enums strings.

    Examples
    --------
    >>> _class_series([1.0, 0.0]).to_list(), _class_series(c for c in "ba").to_list()
    ([1, 0], ['b', 'a'])
    >>> _class_series(pl.Series(["yes", "no"], dtype=pl.Enum(["yes", "no"]))).dtype
    String
    >>> _class_series(2)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: classes takes a list of class values, got 2
    """
    # a 0-d array is one value, not a list (its iteration is a TypeError of numpy's)
    zero_d = isinstance(classes, np.ndarray) and classes.ndim == 0
    if isinstance(classes, str | bytes | Mapping) or isinstance(classes, pl.DataFrame) or zero_d:
        raise InvalidArgumentError(f"classes takes a list of class values, got {classes!r}")
    if not isinstance(classes, pl.Series):
        if not isinstance(classes, Iterable):
            raise InvalidArgumentError(f"classes takes a list of class values, got {classes!r}")
        if isinstance(classes, set | frozenset):
            # the classes name the counts' axes in order, and a set of strings iterates in an order
            # that changes with the hash seed: {"neg", "pos"} gave recall 0.833 in one process and
            # 0.875 in another
            raise InvalidArgumentError(
                f"classes takes the class values in the order of the counts' axes, got "
                f"{shown_value(classes)}, which has no order; pass a list"
            )
        values = list(classes)  # once: a generator is spent by the first reading
        for v in values:
            if isinstance(v, int | np.integer) and not -(2**63) <= int(v) < 2**63:
                raise InvalidLabelError(
                    f"classes must be integers within int64, booleans or strings, got {values}: "
                    f"{v!r} does not fit in int64"
                )
        try:
            classes = pl.Series("class", values)
        except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError) as exc:
            raise InvalidLabelError(
                f"classes must be values of one kind (integers, booleans or strings), got {values}"
            ) from exc
    if classes.null_count():
        raise InvalidLabelError(f"classes must not hold nulls, got {classes.to_list()}")
    if classes.dtype == pl.Categorical or isinstance(classes.dtype, pl.Enum):
        # as from_frame and from_long read such labels: an Enum kept sorted in category order, so
        # the positive class was not evaluate's, and to_long's frame read back as another table
        classes = classes.cast(pl.String)
    if isinstance(classes.dtype, pl.Decimal):  # as from_frame reads a Decimal label column
        classes = decimal_integers(classes, "classes")
    dtype = classes.dtype
    if dtype == pl.UInt64 and len(classes) and classes.max() >= 2**63:  # type: ignore[operator]
        # a UInt64 Series (and from_long's UInt64 class columns) passed, where from_frame refuses
        # the same labels: the kernels count classes as int64
        beyond = classes.filter(classes >= 2**63)[0]
        raise InvalidLabelError(
            f"classes must be integers within int64, booleans or strings, got {classes.head(5).to_list()}: "
            f"{beyond!r} does not fit in int64"
        )
    if dtype.is_float() or dtype in WIDE_INTEGERS:
        # whole floats are the integers they hold, as from_frame reads labels; other floats,
        # and integers beyond int64, are no class from_long could read back
        low, high = float(-(2**63)), float(2**63)
        bad = classes.filter(
            ~classes.cast(pl.Float64).is_finite()
            | (classes.cast(pl.Float64) != classes.cast(pl.Float64).floor())
            | (classes.cast(pl.Float64) < low)
            | (classes.cast(pl.Float64) >= high)
        )
        if len(bad):
            raise InvalidLabelError(
                f"classes must be integers within int64, booleans or strings, got {dtype} values "
                f"{classes.head(5).to_list()}: {bad[0]!r} is no integer class"
            )
        classes = classes.cast(pl.Int64)
    elif not (dtype.is_integer() or dtype in (pl.Boolean, pl.String, pl.Null)):
        # a Date, list or binary class was kept, but to_long's frame of it from_long cannot read
        raise InvalidLabelError(
            f"classes must be integers, booleans or strings, got {dtype} values {classes.head(5).to_list()}"
        )
    if classes.is_duplicated().any():
        repeated = classes.filter(classes.is_duplicated()).unique(maintain_order=True).to_list()
        raise InvalidLabelError(f"classes must be distinct, got {classes.to_list()} (repeated: {repeated})")
    return classes.alias("class")


def _frozen(counts: np.ndarray) -> np.ndarray:
    """``counts`` read-only for good: numpy lets a view be made writable again while the array it
    views is, so that array is frozen too (an adopted view: its caller gave the memory up), and
    memory no array owns (a buffer) is copied first.

    Examples
    --------
    >>> base = np.zeros(4, dtype=np.int64)
    >>> view = _frozen(base.reshape(1, 2, 2)).view()
    >>> view.flags.writeable = True
    Traceback (most recent call last):
    ...
    ValueError: cannot set WRITEABLE flag to True of this array
    """
    owner = counts
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner.base is not None:
        counts = owner = counts.copy()
    owner.flags.writeable = False
    counts.flags.writeable = False
    return counts


def _shown(value: Any, limit: int = 200) -> str:
    """``repr(value)``, cut at ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _check_distinct_keys(keys: pl.DataFrame) -> None:
    if keys.width and keys.height > 1 and keys.is_duplicated().any():
        first = keys.filter(keys.is_duplicated()).row(0, named=True)
        raise InvalidArgumentError(f"keys must be distinct rows, one per group; {first} is repeated")


def _python_integers(given: Any, counts: np.ndarray) -> np.ndarray:
    """``counts``, which numpy made neither int nor uint, as int64 if it holds integers alone: nested
    lists whose Python ints pass the int64 range come out as float64 (2**63) or object (2**64), and
    such a count is a :class:`~batcheval.errors.CountOverflowError` naming it (:func:`.as_counts`), as
    in a uint64 array; any other dtype (floats, even whole) is refused.

    Examples
    --------
    >>> _python_integers([[[2**64, 0], [0, 1]]], np.asarray([[[2**64, 0], [0, 1]]]))
    Traceback (most recent call last):
    ...
    batcheval.errors.CountOverflowError: counts exceed the int64 range: 18446744073709551616 (group 0)
    """
    if counts.dtype.kind == "O" or (counts.dtype.kind == "f" and not isinstance(given, np.ndarray)):
        exact = np.asarray(given, dtype=object)
        if exact.ndim and all(isinstance(v, int | np.integer) for v in exact.flat):
            # one row per group, so that a bad value names its group while the totals are left to
            # _check_group_totals, whose message names the group's keys
            rows = exact.reshape(exact.shape[0], int(np.prod(exact.shape[1:])))
            return as_counts(rows).reshape(exact.shape)
    raise InvalidArgumentError(f"counts must be integers, got dtype {counts.dtype}")


def _check_group_totals(counts: np.ndarray, keys: pl.DataFrame) -> None:
    """Each group's number of examples must fit int64: a wrapped total would be a negative n."""
    if not counts.size:
        return
    found = overflowing_table(counts)
    if found is not None:
        g, total = found
        where = f" ({keys.row(g, named=True)})" if keys.width else ""
        raise CountOverflowError(f"group {g}{where} holds {total} examples, beyond the int64 range")


def key_types(keys: pl.DataFrame) -> pl.Schema:
    """The types the key columns of ``keys`` show: a column whose rows are all null shows none
    (``pl.Null``) whatever its dtype, and so merges with a column of any type. A csv's all-empty
    column reads as String, and beside a file of Int64 runs it was refused as a String key.

    Examples
    --------
    >>> import polars as pl
    >>> key_types(pl.DataFrame({"run": pl.Series([None, None], dtype=pl.String), "fold": [0, 1]}))
    Schema([('run', Null), ('fold', Int64)])
    """
    height = keys.height
    return pl.Schema({
        name: pl.Null if height and column.null_count() == height else column.dtype
        for name, column in zip(keys.columns, keys.get_columns(), strict=True)
    })  # fmt: skip


def _typed_null_keys(keys: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Key frames with a key column all null (:func:`key_types`) cast to that column's type in the
    frames where it holds a value, else to its first declared type: polars stacks a Null column
    after a typed one, not before it, so ``a + n`` merged and ``n + a`` did not."""
    shown = [key_types(frame) for frame in keys]
    typed: dict[str, pl.DataType] = {}
    for schema in shown:
        for name, dtype in schema.items():
            if dtype != pl.Null:
                typed.setdefault(name, dtype)
    for frame in keys:  # a column all null everywhere keeps the type it was given (String and
        for name, dtype in frame.schema.items():  # Int64 both all null: the first)
            if dtype != pl.Null:
                typed.setdefault(name, dtype)
    return [
        frame.with_columns(
            pl.col(name).cast(typed[name])
            for name, dtype in schema.items()
            if dtype == pl.Null and name in typed and frame.schema[name] != typed[name]
        )
        for frame, schema in zip(keys, shown, strict=True)
    ]


def _common_keys(keys: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Key frames with a column of integers of different widths cast to the widest (a file's Int32
    run, another's Int64, as a streamed source combines them); a column of types that differ
    otherwise (String and Int64, or UInt64 and a signed type, which only Int128 holds) is a
    :class:`MergeError` naming it and two of its types."""
    for name in keys[0].columns:
        dtypes = list(dict.fromkeys(k.schema[name] for k in keys if k.schema[name] != pl.Null))
        for a, b in itertools.combinations(dtypes, 2):
            if not integers_combine(a, b):
                raise MergeError(
                    f"cannot merge tables whose key columns have different types: {name!r} is {a} in "
                    f"one table and {b} in another; cast it to one type in every table"
                )
    common = functools.reduce(widened, (k.schema for k in keys))
    return [k if k.schema == common else k.cast(dict(common)) for k in keys]


def _checked_add(src: np.ndarray, index: np.ndarray, total: np.ndarray) -> None:
    # read-only whatever the path: a pool or an unkeyed merge passes a table's frozen counts, a keyed
    # merge a fresh concatenation, and numba compiled scatter_add once for each
    if len(src) and not scatter_add(readonly(np.ascontiguousarray(src)), index, total):
        raise CountOverflowError("merged counts exceed the int64 range")


def drop_null_rows(df: pl.DataFrame, label: str, prediction: str) -> pl.DataFrame:

    kept = df.filter(pl.col(label).is_not_null() & pl.col(prediction).is_not_null())
    dropped = df.height - kept.height
    if dropped:
        warn(f"dropped {dropped} of {df.height} rows with a null {label!r} or {prediction!r}")
    return kept


def _equal_values(a: pl.Series, b: pl.Series) -> bool:
    """Whether two class sets hold the same values, whatever their dtypes."""
    try:
        return a.to_list() == b.to_list()
    except Exception:  # values that do not compare
        return False
