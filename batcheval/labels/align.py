"""Label alignment for unsupervised predictions (clusterings; Powers 2003, docs/references.md).

A clustering's predicted ids are arbitrary names, and there may be more or
fewer of them (K) than real classes (C). Paper 001: "the classes should be
permuted to maximize the sum of the diagonal of the contingency matrix", and
when K ≠ C "combinations rather than permutations need to be explored". So,
per group:

1. count the C×K table of real class × predicted id (only the ids that occur
   in the group take part, and only the classes it holds: ids are never
   shared between groups, and a class absent from a group cannot add to its
   diagonal, so a group's result does not depend on the others);
2. match ids to classes one to one so that the matched counts sum to the
   maximum (a rectangular assignment problem), and among such matchings keep
   the ids of the most examples;
3. rename each matched id to its class, giving the C×C table the measures
   read. When K > C, the K − C unmatched ids are the catch-all clusters paper
   001 says to ignore: their examples count as **abstentions**, so the output
   has ``retained`` and the n/N-discounted ``informedness_overall`` and
   ``recall_overall``, exactly as with ``abstain=``. When K ≤ C every id is
   matched and some classes are never predicted.

Small groups (``max(C, K) <= 10``) are solved together by the subset-DP numba
kernel :func:`batcheval.kernels.assign.assign_small`; larger ones one by one by
:func:`scipy.optimize.linear_sum_assignment`. Both maximise the diagonal first
and the examples kept second (one objective, ``diagonal × (N + 1) + kept``), so
``n``, ``abstained`` and accuracy never depend on the path. Where matchings tie
on both, the kernel takes the lexicographically smallest (ids in sorted order,
each to the smallest class) and scipy its own, so such groups may differ
between the paths in measures that tell the classes apart.

Examples
--------
>>> import polars as pl
>>> import batcheval as be
>>> df = pl.DataFrame({"run": [1, 1, 1, 1, 2, 2, 2, 2], "label": ["a", "a", "b", "b"] * 2,
...                    "prediction": [5, 5, 8, 8, 0, 1, 1, 1]})
>>> out = be.evaluate(df, by="run", align="hungarian", measures=["accuracy"])
>>> out["accuracy"].to_list()
[1.0, 0.75]
>>> out["mapping"][1].to_list()
[{'predicted': 0, 'class': 'a'}, {'predicted': 1, 'class': 'b'}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ..core.counting import group_ids
from ..core.encode import as_integers, check_classes, check_nulls, label_kind, typed_classes, typed_nulls
from ..core.memory import check_allocation
from ..core.table import ContingencyTable, drop_null_rows
from ..errors import CountOverflowError, InvalidArgumentError, InvalidLabelError
from ..io.frames import as_key_list, select_predictions
from ..kernels.count import scatter_add
from ..kernels.jit import readonly
from .abstain import Retained, abstain_values, held_in_column

__all__ = ["ALIGN_METHODS", "align_frame", "assign"]

#: The ``align=`` methods :func:`batcheval.evaluate` knows.
ALIGN_METHODS: tuple[str, ...] = ("hungarian",)

# past this max(C, K) the 2**M subset table loses to scipy's O(M^3)
_DP_LIMIT = 10

_REAL, _PRED = "__batcheval_real", "__batcheval_predicted"


def check_method(method: Any) -> None:
    """Raise :class:`InvalidArgumentError` unless ``method`` is one of :data:`ALIGN_METHODS`.

    Examples
    --------
    >>> check_method("kmeans")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: align='kmeans' is not a known method; choose one of ['hungarian']
    """
    if method not in ALIGN_METHODS:
        raise InvalidArgumentError(
            f"align={method!r} is not a known method; choose one of {list(ALIGN_METHODS)}"
        )


def assign(
    weights: np.ndarray,
    n_ids: np.ndarray | None = None,
    n_classes: np.ndarray | None = None,
    *,
    dp_limit: int = _DP_LIMIT,
) -> np.ndarray:
    """Per group, the one-to-one matching of predicted ids to classes with the largest diagonal.

    Among matchings with the largest diagonal, the one that keeps the most
    examples (the largest total of the matched ids' counts) wins, so which ids
    are left unmatched, and with them ``n`` and ``accuracy``, does not depend
    on the solver.

    Parameters
    ----------
    weights
        ``[G, C, K]`` non-negative counts: ``weights[g, c, i]`` examples of
        class ``c`` given predicted id ``i``.
    n_ids
        Per group, how many leading ids take part (default: all K).
    n_classes
        Per group, how many leading classes take part (default: all C).
    dp_limit
        Groups with ``max(n_classes, n_ids) <= dp_limit`` go to the vectorised
        kernel, the others to :func:`scipy.optimize.linear_sum_assignment` one
        by one.

    Returns
    -------
    numpy.ndarray
        int64 ``[G, K]``: the class matched to each id, -1 if unmatched or
        not taking part. ``min(n_classes[g], n_ids[g])`` ids are matched in
        group ``g``.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[[0, 5, 1],
    ...                [4, 0, 0]]])       # 2 classes × 3 predicted ids
    >>> assign(w).tolist()
    [[1, 0, -1]]
    >>> assign(w, dp_limit=0).tolist()    # the scipy path agrees
    [[1, 0, -1]]
    >>> assign(np.array([[[2, 0, 3]]])).tolist()   # a tie on the diagonal: the id of 3 examples stays
    [[-1, -1, 0]]
    """
    w = np.ascontiguousarray(weights, dtype=np.int64)
    g, c, k = w.shape
    sizes = np.full(g, k, dtype=np.int64) if n_ids is None else np.asarray(n_ids, dtype=np.int64)
    classes = np.full(g, c, dtype=np.int64) if n_classes is None else np.asarray(n_classes, dtype=np.int64)
    taking_part = (np.arange(c)[None, :, None] < classes[:, None, None]) & (
        np.arange(k)[None, None, :] < sizes[:, None, None]
    )
    w = np.where(taking_part, w, 0)
    kept = w.sum(axis=1)  # [G, K]: examples an id keeps when it is matched
    total = kept.sum(axis=1)
    if len(total) and int(total.max()) > np.iinfo(np.int64).max // (int(total.max()) + 2):
        raise CountOverflowError(f"a group of {int(total.max())} examples is too large to align")
    # diagonal first, examples kept second: a diagonal step of 1 outweighs any count kept
    composite = w * (total[:, None, None] + 1) + kept[:, None, :] * taking_part
    out = np.full((g, k), -1, dtype=np.int64)
    small = np.maximum(sizes, classes) <= dp_limit
    if small.any():
        from ..kernels.assign import assign_small

        part = np.full((int(small.sum()), k), -1, dtype=np.int64)
        assign_small(np.ascontiguousarray(composite[small]), classes[small], sizes[small], part)
        out[small] = part
    if not small.all():
        from scipy.optimize import linear_sum_assignment

        for i in np.flatnonzero(~small):
            # scipy solves in float64: the composite is exact below 2**53, past it the plain counts
            exact = int(total[i]) * (int(total[i]) + 2) < 2**53
            table = (composite if exact else w)[i, : classes[i], : sizes[i]]
            rows, cols = linear_sum_assignment(table, maximize=True)
            out[i, cols] = rows
    return out


def align_frame(
    data: Any,
    by: str | Sequence[str] | None,
    label: str,
    prediction: str,
    *,
    method: str = "hungarian",
    abstain: Any = None,
    classes: Sequence[Any] | None = None,
    drop_nulls: bool = False,
) -> tuple[ContingencyTable, Retained]:
    """Count a frame of cluster ids and align each group's ids to the real classes.

    Parameters
    ----------
    data, by, label, prediction, drop_nulls
        As for :meth:`ContingencyTable.from_frame`. Labels and predictions
        need not share a type: ``"cat"``/``"dog"`` labels with integer
        cluster ids are fine.
    method
        ``"hungarian"``: the maximum-diagonal assignment (see the module
        docstring).
    abstain
        Predicted ids meaning "no cluster" (such as DBSCAN's -1): left out of
        the assignment and counted as abstentions. Labels are a different
        domain here, so a label may equal an abstain value.
    classes
        The real class set (default: the sorted label values); a label
        outside it is an error. Taken as without ``align=``: whole floats
        name integer classes, and a class the labels' integer dtype cannot
        hold gives Int64 classes.

    Returns
    -------
    (ContingencyTable, Retained)
        The aligned C×C tables of the retained examples, and per group the
        abstained count and the mapping from predicted id to class.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"label": ["a", "a", "b", "b", "b"], "prediction": [7, 7, 3, 3, 9]})
    >>> table, held = align_frame(df, None, "label", "prediction")
    >>> table.counts.tolist(), held.abstained.tolist()
    ([[[2, 0], [0, 2]]], [1])
    >>> held.mapping.rows()
    [(0, 3, 'b'), (0, 7, 'a'), (0, 9, None)]
    """
    check_method(method)
    keys = as_key_list(by)
    df = select_predictions(data, keys, label, prediction)
    if drop_nulls:
        df = drop_null_rows(df, label, prediction)
    # an all-null column (dtype Null) in the other's dtype, as without align=: empty once its nulls drop
    real, pred = typed_nulls(df.get_column(label), df.get_column(prediction))
    real, pred = _class_column(real, "label"), _class_column(pred, "prediction")

    class_values = sorted(real.unique().to_list())
    kind = label_kind(real, "label")
    classes = check_classes(classes, kind, label)
    class_dtype = real.dtype
    if classes is not None:
        outside = sorted(set(class_values) - set(classes))
        if outside:
            raise InvalidLabelError(
                f"label column {label!r} has values outside classes={list(classes)}: {outside[:5]}"
            )
        # as without align=: whole floats (2.0) name the class 2, and a class the labels' dtype
        # cannot hold (300 beside Int8, -1 beside UInt8) widens the classes to Int64
        class_values = sorted({int(v) for v in classes} if kind == "int" else set(classes))
        if kind == "int":
            class_dtype = typed_classes(class_values, real.dtype).dtype
            real = real.cast(class_dtype)
    # a value the column cannot hold (2**64 beside Int64 ids) marks nothing, as without align=
    held = held_in_column(abstain_values(abstain, pred), pred.dtype) if abstain is not None else []
    is_held = pred.is_in(held).to_numpy() if held else np.zeros(len(pred), dtype=bool)
    ids = pred.filter(~pl.Series(is_held)).unique().sort() if held else pred.unique().sort()
    n_cls = len(class_values)
    # cast: with nothing to replace (an empty frame) polars returns the column as it is, String too
    real_code = real.replace_strict(class_values, range(n_cls), return_dtype=pl.Int64).cast(pl.Int64)
    global_id = pred.replace_strict(ids, range(len(ids)), default=-1, return_dtype=pl.Int64).cast(pl.Int64)
    real_code, global_id = real_code.to_numpy(), global_id.to_numpy()
    if keys:
        gid, group_keys = group_ids(df.select(keys))
    else:  # one group, or none for an empty frame (as ContingencyTable.from_frame)
        gid, group_keys = np.zeros(df.height, dtype=np.int64), pl.DataFrame()
    n_groups = int(gid.max()) + 1 if len(gid) else 0

    # Each group's ids get local codes 0..m_g-1 (sorted), so the table is as wide as the group
    # with the most ids, not as the whole frame: globally unique cluster ids stay cheap.
    answered = global_id >= 0
    pair = gid[answered] * max(len(ids), 1) + global_id[answered]
    pairs, local_of_row = np.unique(pair, return_inverse=True)
    pair_group = pairs // max(len(ids), 1)
    first = np.searchsorted(pair_group, np.arange(n_groups))
    local = np.arange(len(pairs)) - first[pair_group]
    width = int(local.max()) + 2 if len(local) else 1  # + 1 column for abstentions
    check_allocation(
        n_groups * n_cls * width * 8 * 2,
        f"aligning {n_groups} groups with up to {width - 1} cluster ids each over {n_cls} classes",
        "use fewer clusters per group, or split the frame",
    )
    code = np.full(df.height, width - 1, dtype=np.int64)
    code[answered] = local[local_of_row.reshape(-1)]
    cells = (gid * n_cls + real_code) * width + code
    counts = np.bincount(cells, minlength=n_groups * n_cls * width).reshape(n_groups, n_cls, width)
    by_id = counts[:, :, : width - 1]
    abstained = counts[:, :, width - 1].sum(axis=1)

    present = np.zeros((n_groups, width - 1), dtype=bool)
    present[pair_group, local] = True
    # Only the classes a group holds take part, first in each group's order: an id matched to an
    # absent class adds nothing to the diagonal, so it is a catch-all as an unmatched one is,
    # and a group's result does not depend on the classes other groups bring.
    held_classes = counts.sum(axis=2) > 0
    order = np.argsort(~held_classes, axis=1, kind="stable")
    local_match = assign(np.take_along_axis(by_id, order[:, :, None], axis=1), present.sum(axis=1),
                         held_classes.sum(axis=1))  # fmt: skip
    matched = np.where(local_match >= 0, np.take_along_axis(order, np.maximum(local_match, 0), axis=1), -1)
    aligned, unmatched = _rename(by_id, matched, n_cls)
    codes = matched[pair_group, local]
    class_series = pl.Series("class", class_values, dtype=class_dtype)
    mapping = pl.DataFrame(
        [
            pl.Series("_g", pair_group, dtype=pl.Int64),
            ids.gather(pairs % max(len(ids), 1)).alias("predicted"),
            class_series.gather(pl.Series(codes, dtype=pl.Int64).replace(-1, None)),
        ]
    )
    out = ContingencyTable(group_keys, class_series, aligned, copy=False)
    return out, Retained(group_keys, (abstained + unmatched).astype(np.int64), mapping)


def _class_column(s: pl.Series, role: str) -> pl.Series:
    """Checked label or prediction values: no nulls, a class dtype, integral floats as Int64."""
    check_nulls(s, role)
    kind = label_kind(s, role)
    if kind == "int":
        return as_integers(s, role)
    if kind == "str" and s.dtype != pl.String:
        return s.cast(pl.String)
    return s


def _rename(by_id: np.ndarray, match: np.ndarray, n_cls: int) -> tuple[np.ndarray, np.ndarray]:
    """``[G, C, K]`` counts by id → the ``[G, C, C]`` table by matched class, and unmatched counts."""
    g = by_id.shape[0]
    target = np.where(match >= 0, match, n_cls)  # column n_cls collects the unmatched ids
    width = n_cls + 1
    row = np.arange(g)[:, None, None] * n_cls + np.arange(n_cls)[None, :, None]
    cell = row * width + target[:, None, :]
    total = np.zeros((g * n_cls * width, 1), dtype=np.int64)
    if by_id.size and not scatter_add(
        readonly(np.ascontiguousarray(by_id.reshape(-1, 1))), cell.reshape(-1).astype(np.int64), total
    ):
        raise CountOverflowError("aligned counts exceed the int64 range")
    full = total.reshape(g, n_cls, width)
    return np.ascontiguousarray(full[:, :, :n_cls]), full[:, :, n_cls].sum(axis=1)
