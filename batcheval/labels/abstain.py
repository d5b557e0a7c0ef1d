"""Abstention: prediction values that mean "no answer" (Powers 2003; docs/references.md).

A classifier that may abstain is measured twice (Powers 2003, "Selection,
Abstention and an Example Evaluation"):

* on the ``n`` **retained** examples, whose prediction is a class: every
  measure, conditioned on the system choosing to answer;
* over the whole population of ``N`` examples: recall and informedness
  discounted by the retained fraction, ``<measure>_overall = <measure> · n/N``
  (0 for a group that abstained on every example: it recovered nothing).

The state stays ``counts[G, K, K]``: the abstain values are counted as extra
classes in the one counting pass, their columns become the per-group
abstention counts, and the table handed to the measures is the K×K block of
the real classes. No second pass over the rows, and a label that equals an
abstain value shows up for free as a non-empty abstain row.

Examples
--------
>>> import polars as pl
>>> import batcheval as be
>>> df = pl.DataFrame({"label": [1, 1, 1, 0, 0, 0], "prediction": [1, 1, -1, 0, 1, -1]})
>>> out = be.evaluate(df, abstain=-1, measures=["informedness"])
>>> out.select("n", "abstained", "retained", "informedness", "informedness_overall").rows()
[(4, 2, 0.6666666666666666, 0.5, 0.3333333333333333)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..core.encode import check_classes, is_whole_number, label_kind, typed_nulls
from ..core.table import ContingencyTable
from ..errors import InvalidArgumentError, InvalidLabelError
from ..io.frames import as_key_list, check_free_names, select_predictions, unused_name

__all__ = ["OVERALL_MEASURES", "Retained", "abstain_values", "held_in_column", "split_abstentions"]

#: Measures that also get an ``<name>_overall`` column, discounted by n/N.
#: Powers 2003 names recall and informedness; their multiclass
#: averages follow, because the discount is linear and an average of
#: discounted per-class values is the discounted average.
OVERALL_MEASURES: tuple[str, ...] = (
    "recall",
    "informedness",
    "macro_recall",
    "weighted_recall",
    "macro_informedness",
    "bias_weighted_informedness",
)


def abstain_values(abstain: Any, prediction: pl.Series) -> list[Any]:
    """The abstain values as a list of values the prediction column can hold.

    Parameters
    ----------
    abstain
        One value or a sequence of values (a string or a 0-d array is one value).
    prediction
        The prediction column, for its dtype and name.

    Raises
    ------
    InvalidArgumentError
        An empty list of values.
    InvalidLabelError
        A value that cannot occur in the column: the wrong type, a
        non-integral float for integer predictions, or None.

    Examples
    --------
    >>> import polars as pl
    >>> abstain_values([-1, -1.0, 99], pl.Series("prediction", [0, 1, -1]))
    [-1, 99]
    """
    if isinstance(abstain, np.ndarray) and abstain.ndim == 0:  # np.array(-1): one value, not iterable
        abstain = abstain[()]
    single = isinstance(abstain, str | bytes) or not isinstance(abstain, Iterable)
    raw = [abstain] if single else list(abstain)
    name, dtype = prediction.name, prediction.dtype
    if not raw:
        raise InvalidArgumentError(
            f"abstain= must hold at least one value, got {raw!r}; give one or leave it None"
        )
    kind = label_kind(prediction, "prediction")
    out: list[Any] = []
    for given in raw:
        if given is None:
            raise InvalidLabelError(
                f"abstain value None cannot mark a prediction in column {name!r}; null predictions "
                "are rejected or dropped (drop_nulls=True); fill them with an abstain value first"
            )
        # any float type (np.float32 is no Python float) holding a whole number names an integer
        v = int(given) if kind == "int" and is_whole_number(given) else given
        ok = {
            "int": isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_),
            "bool": isinstance(v, bool | np.bool_),
            "str": isinstance(v, str),
        }[kind]
        if not ok:
            raise InvalidLabelError(
                f"abstain value {v!r} ({type(v).__name__}) cannot occur in prediction column "
                f"{name!r} of dtype {dtype}"
            )
        v = bool(v) if kind == "bool" else int(v) if kind == "int" else v  # numpy scalars → Python
        if v not in out:
            out.append(v)
    return out


def held_in_column(values: Sequence[Any], dtype: pl.DataType) -> list[Any]:
    """The abstain ``values`` a prediction column of ``dtype`` can hold: any other never occurs in
    it, so it marks nothing (and compared with the column, it would be refused as another type).

    Examples
    --------
    >>> held_in_column([-1, 300, 2**64], pl.UInt8), held_in_column([-1, 2**64 - 1], pl.UInt64)
    ([], [18446744073709551615])
    """
    if dtype.is_integer():
        lo, hi = pl.select(dtype.min()).item(), pl.select(dtype.max()).item()
    elif dtype.is_float():  # whole floats are read as Int64
        lo, hi = -(1 << 63), (1 << 63) - 1
    else:
        return list(values)
    return [v for v in values if lo <= v <= hi]


@dataclass(frozen=True)
class Retained:
    """What :func:`batcheval.evaluate` reports besides the retained-example table.

    Attributes
    ----------
    keys
        The groups, row for row as the keys of the retained table.
    abstained
        int64 per group: examples left out of the table (abstentions, and
        with alignment also the examples of unmatched predicted ids).
    mapping
        For alignment only: one row per group × predicted id, with columns
        ``_g`` (group row), ``predicted`` and ``class`` (null if unmatched).
    """

    keys: pl.DataFrame
    abstained: np.ndarray
    mapping: pl.DataFrame | None = None

    def annotate(
        self, out: pl.DataFrame, *, pool: str | Sequence[str] | None, per_class: bool, n_classes: int
    ) -> pl.DataFrame:
        """Add ``abstained``, ``retained``, ``<measure>_overall`` (and ``mapping``) to ``out``.

        ``out`` is the frame of measures of the retained table, pooled over
        ``pool`` if given; pooled groups add their abstentions as they add
        their counts, so the retained fraction of a pooled row is
        pooled n / pooled N.
        """
        over = as_key_list(pool, "pool")
        added = ["abstained", "retained", *(f"{m}_overall" for m in OVERALL_MEASURES)]
        if self.mapping is not None:
            added.append("mapping")
        check_free_names([c for c in self.keys.columns if c not in over], added, "abstain= and align=")
        if self.mapping is not None:  # a pooled row's mapping names the pool keys beside these fields
            check_free_names(over, ["predicted", "class"], "the fields of align='s mapping")
        g = len(self.abstained)
        if over:
            totals = ContingencyTable(self.keys, [0], self.abstained.reshape(g, 1, 1))
            pooled, index = totals.pool_with_index(over)
            abstained = pooled.counts[:, 0, 0]
        else:
            index = np.arange(g, dtype=np.int64)
            abstained = self.abstained
        n_groups = len(abstained)
        if per_class:  # rows are group × class
            abstained = np.repeat(abstained, n_classes)
        n = out.get_column("n").to_numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            retained = n / (n + abstained)
        at = out.columns.index("n") + 1
        out = out.insert_column(at, pl.Series("abstained", abstained, dtype=pl.Int64))
        out = out.insert_column(at + 1, pl.Series("retained", retained, dtype=pl.Float64))
        for name in OVERALL_MEASURES:
            if name in out.columns:
                # abstaining on every example recovers nothing: 0, not the empty table's NaN × 0
                values = np.where(retained == 0, 0.0, out.get_column(name).to_numpy() * retained)
                out = out.insert_column(
                    out.columns.index(name) + 1, pl.Series(f"{name}_overall", values, dtype=pl.Float64)
                )
        if self.mapping is not None:
            out = out.with_columns(self._mapping_column(over, index, n_groups, per_class, n_classes))
        return out

    def _mapping_column(
        self, over: list[str], index: np.ndarray, n_groups: int, per_class: bool, n_classes: int
    ) -> pl.Series:
        """One list of ``{predicted, class}`` structs per output row (plus the pool keys when pooled)."""
        assert self.mapping is not None
        gid = self.mapping.get_column("_g").to_numpy()
        long = self.mapping.drop("_g")
        fields = ["predicted", "class"]
        if over:  # a pooled row holds several groups' mappings: say which group each came from
            long = self.keys.select(over)[gid].hstack(long)
            fields = [*over, *fields]
        row = unused_name(long.columns, "_row")
        long = long.with_columns(pl.Series(row, index[gid], dtype=pl.Int64))
        lists = (
            long.sort(row, maintain_order=True)
            .group_by(row, maintain_order=True)
            .agg(pl.struct(fields).alias("mapping"))
        )
        rows = pl.DataFrame({row: np.arange(n_groups, dtype=np.int64)})
        column = rows.join(lists, on=row, how="left", maintain_order="left").get_column("mapping")
        column = column.fill_null(pl.lit([], dtype=column.dtype))
        if per_class:
            column = column.gather(np.repeat(np.arange(n_groups), n_classes))
        return column


def split_abstentions(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    prediction: str,
    abstain: Any,
    *,
    classes: Sequence[Any] | None = None,
    drop_nulls: bool = False,
) -> tuple[ContingencyTable, Retained]:
    """Count a frame into the table of retained examples and the abstentions per group.

    Parameters
    ----------
    data, by, label, prediction, classes, drop_nulls
        As for :meth:`ContingencyTable.from_frame`; ``classes`` must not
        contain an abstain value.
    abstain
        A prediction value meaning "no answer", or a sequence of them. A
        value that never occurs is fine (nothing is abstained).

    Returns
    -------
    (ContingencyTable, Retained)
        The K×K tables of the rows whose prediction is a class (K = the
        classes without the abstain values), and the per-group abstention
        counts. Groups whose every prediction is an abstention keep their
        row, with an empty table.

    Raises
    ------
    InvalidLabelError
        When a label equals an abstain value: a real class cannot also mean
        "no answer", so the n/N discount would be meaningless. Also when an
        abstain value is one of ``classes`` or cannot occur in the column.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"run": [1, 1, 1, 2], "label": [1, 0, 1, 0], "prediction": [1, -1, -1, 0]})
    >>> table, held = split_abstentions(df, "run", "label", "prediction", abstain=-1)
    >>> table.counts.tolist(), held.abstained.tolist()
    ([[[0, 0], [0, 1]], [[1, 0], [0, 0]]], [2, 0])
    """
    keys = as_key_list(by)
    df = select_predictions(data, keys, label, prediction)
    # an all-null column (dtype Null) in the other's dtype: the count refuses its nulls, or drops them
    real, pred = typed_nulls(df.get_column(label), df.get_column(prediction))
    values = abstain_values(abstain, pred)
    if classes is not None:  # checked as the count checks them, before they are hashed below
        kinds = {label_kind(real, "label"), label_kind(pred, "prediction")}
        if len(kinds) == 1 or kinds == {"int", "bool"}:
            classes = check_classes(classes, "int" if "int" in kinds else min(kinds), label)
        else:  # the count refuses any other pair of kinds, whatever classes= holds
            classes = None
    given = classes
    if classes is not None:
        clash = [v for v in values if v in set(classes)]
        if clash:
            raise InvalidLabelError(
                f"abstain value {clash[0]!r} is also one of classes={list(classes)}; "
                "a value cannot be both a class and an abstention"
            )
    # counted as extra classes: only those the column can hold (2**64 never occurs in Int64, and as
    # a class it would be refused as one of classes=)
    shown = values = held_in_column(values, pred.dtype)
    wide = [v for v in values if isinstance(v, int) and v > _INT64_MAX]
    if wide:  # a UInt64 column's 2**64 - 1: the count holds int64 classes only, so it stands in
        df, stand_in = _wide_replaced(df, label, prediction, wide, [*(given or []), *values])
        values = [v for v in values if v not in wide] + ([] if stand_in is None else [stand_in])
    if classes is not None:
        classes = [*classes, *values]
    try:
        table = ContingencyTable.from_frame(
            df, keys, label, prediction, classes=classes, drop_nulls=drop_nulls
        )
    except InvalidLabelError as exc:
        if given is None or not values:
            raise
        raise InvalidLabelError(_as_given(str(exc), list(given), shown)) from None
    class_list = table.classes.to_list()
    held = [i for i, v in enumerate(class_list) if v in values]
    keep = [i for i in range(len(class_list)) if i not in held]
    counts = table.counts
    for i in held:
        wrong = int(counts[:, i, :].sum())
        if wrong:
            raise _label_is_abstain(label, wrong, class_list[i])
    abstained = counts[:, :, held].sum(axis=(1, 2)).astype(np.int64)
    kept = np.ascontiguousarray(counts[:, keep][:, :, keep])
    kept_table = ContingencyTable(table.keys, table.classes.gather(keep), kept, copy=False)
    return kept_table, Retained(table.keys, abstained)


def _as_given(message: str, classes: list[Any], values: list[Any]) -> str:
    """A count's message about values outside the classes it was given (the user's and the abstain
    values), naming the user's ``classes=`` and, for predictions, ``abstain=`` beside them.

    Examples
    --------
    >>> _as_given("prediction column 'p' has 1 value(s) outside classes=[-1, 0, 1]: [2]", [0, 1], [-1])
    "prediction column 'p' has 1 value(s) outside classes=[0, 1] and abstain=[-1]: [2]"
    >>> _as_given("label column 'y' has 1 value(s) outside classes=[-1, 0, 1]: [5]", [0, 1], [-1])
    "label column 'y' has 1 value(s) outside classes=[0, 1]: [5]"
    """
    shown = f"classes={classes}"
    if not message.startswith("label column"):
        shown += f" and abstain={values}"
    return re.sub(r"classes=\[.*?\](?=: \[|$)", lambda _: shown, message, count=1)


_INT64_MAX = (1 << 63) - 1


def _label_is_abstain(label: str, wrong: int, value: Any) -> InvalidLabelError:
    return InvalidLabelError(
        f"label column {label!r} has {wrong} value{'s' if wrong > 1 else ''} equal to the abstain "
        f"value {value!r}; an abstain value must never be a real class"
    )


def _wide_replaced(
    df: pl.DataFrame, label: str, prediction: str, wide: list[int], avoid: list[Any]
) -> tuple[pl.DataFrame, int | None]:
    """``df`` with the predictions equal to an abstain value beyond int64 (``wide``) replaced by one
    int64 value that no label, prediction, class or other abstain value takes, and that value
    (None when no prediction holds one of ``wide``: then they mark nothing).

    Examples
    --------
    >>> df = pl.DataFrame({"label": [1, 0], "prediction": [1, 2**64 - 1]}, schema={"label": pl.Int64,
    ...                   "prediction": pl.UInt64})
    >>> out, stand_in = _wide_replaced(df, "label", "prediction", [2**64 - 1], [])
    >>> out["prediction"].to_list(), stand_in
    ([1, -1], -1)
    """
    real = df.get_column(label)
    if real.dtype.is_integer():  # checked here: the count would refuse the label as beyond int64
        for v in wide:
            if v <= pl.select(real.dtype.max()).item():
                wrong = int((real == v).sum())
                if wrong:
                    raise _label_is_abstain(label, wrong, v)
    marked = df.get_column(prediction).is_in(wide).fill_null(False)
    if not marked.any():
        return df, None
    rest = df.get_column(prediction).filter(~marked).max()
    if rest is not None and rest > _INT64_MAX:  # type: ignore[operator]
        # a prediction beyond int64 that is no abstention: the count names it
        return df.filter(~marked), None
    # predictions here are unsigned: a value below every label, class and abstain value is free
    lows = [0, *(v for v in avoid if isinstance(v, int | float) and not isinstance(v, bool))]
    if real.dtype.is_numeric() and real.min() is not None:
        lows.append(real.min())  # type: ignore[arg-type]
    stand_in = int(min(lows)) - 1
    if stand_in < -_INT64_MAX - 1:
        raise InvalidLabelError(
            f"abstain value {wide[0]!r} does not fit in int64, and label column {label!r} reaches "
            "the int64 minimum, leaving no value to count it as; subtract an offset from the labels"
        )
    replaced = (
        pl.when(marked)
        .then(pl.lit(stand_in, dtype=pl.Int64))
        .otherwise(pl.col(prediction).cast(pl.Int64, strict=False))
        .alias(prediction)
    )
    return df.with_columns(replaced), stand_in
