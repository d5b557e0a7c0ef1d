"""Measures for every table of ``counts[G, K, K]`` at once: the registry's names dispatched to the kernels.

Fisher's exact test, the chance tests ``p_informedness`` and ``p_markedness``
and all the point measures come from the numba kernels in
:mod:`batcheval.kernels`; χ² tails from :mod:`batcheval.measures.significance`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import CountOverflowError, InvalidArgumentError
from ..kernels import binary as _binary
from ..kernels import chance as _chance
from ..kernels import count as _count
from ..kernels import fisher as _fisher
from ..kernels import multiclass as _multiclass
from ..kernels import pvalues as _pvalues
from .registry import (
    BINARY_STATS,
    CHANCE_TESTS,
    MULTICLASS_MEASURES,
    check_beta,
    check_names,
    default_measures,
)
from .significance import calibrate_sbb, chi2_upper_tail

__all__ = ["binary_cells", "compute", "compute_cells"]


_INT64_MAX = int(np.iinfo(np.int64).max)


def as_counts(values: np.ndarray, name: str = "counts", group_axis: int = 0) -> np.ndarray:
    """``values`` as int64 counts, checked: integers (or floats holding whole numbers), none
    negative, none beyond the int64 range, nor (stacked tables ``[G, K, K]``) any table's total.
    ``name`` is the argument a message names, and a bad value's index on ``group_axis`` the group
    it gives.

    Examples
    --------
    >>> as_counts(np.array([[[3.0, 1.0], [0.0, 2.0]]])).dtype
    dtype('int64')
    >>> as_counts(np.array([[[3, 1], [0, -2]]]))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: counts must be non-negative, got -2 (group 0)
    >>> from fractions import Fraction
    >>> as_counts(np.array([3, Fraction(4, 2), 2**40], dtype=object)).tolist()
    [3, 2, 1099511627776]
    >>> as_counts(np.array([4, 2.5]), "tp")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: tp must hold whole numbers, got 2.5 (group 1)
    """
    values = np.asarray(values)
    if values.dtype.kind == "O":  # Python ints, Fractions, Decimals: whole numbers of any size
        whole = np.empty(values.shape, dtype=object)
        for at, v in np.ndenumerate(values):
            try:
                ok = not isinstance(v, str | bytes) and v == int(v)
            except (TypeError, ValueError, OverflowError):
                ok = False
            if not ok:
                raise InvalidArgumentError(
                    f"{name} must hold whole numbers, got {reprlib.repr(v)} (group {at[group_axis]})"
                )
            whole[at] = int(v)
        values = whole
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values) | (values != np.floor(values))
        if bad.any():
            at = np.argwhere(bad)[0]
            raise InvalidArgumentError(
                f"{name} must hold whole numbers, got {values[tuple(at)].item()!r} (group {at[group_axis]})"
            )
    elif values.dtype.kind not in "iubO":
        raise InvalidArgumentError(f"{name} must be integers, got dtype {values.dtype}")
    if not values.size or values.dtype.kind == "b":
        return np.ascontiguousarray(values, dtype=np.int64)
    low, high = values.min(), values.max()
    if low < 0:
        at = np.unravel_index(values.argmin(), values.shape)
        raise InvalidArgumentError(f"{name} must be non-negative, got {int(low)!r} (group {at[group_axis]})")
    # a float of 2^63 is past the int64 range, yet not > _INT64_MAX, which numpy rounds up to 2^63
    # for the comparison (and the cast wrapped it to -2^63)
    if (float(high) >= 2.0**63) if values.dtype.kind == "f" else (high > _INT64_MAX):
        at = np.unravel_index(values.argmax(), values.shape)
        raise CountOverflowError(f"{name} exceed the int64 range: {int(high)!r} (group {at[group_axis]})")
    counts = np.ascontiguousarray(values, dtype=np.int64)
    if counts.ndim == 3 and group_axis == 0 and int(high) * counts.shape[1] * counts.shape[2] > _INT64_MAX:
        # stacked tables whose totals could pass int64, by the maximum at hand (no pass of its own)
        found = overflowing_table(counts)
        if found is not None:
            raise CountOverflowError(
                f"{name} of group {found[0]} add up to {found[1]} examples, beyond the int64 range"
            )
    return counts


def overflowing_group(parts: Sequence[np.ndarray]) -> tuple[int, int] | None:
    """``(group, total)`` of the first group whose cells (``parts``: arrays of one int64 value per
    group) add up beyond the int64 range, else None. A sum is formed only where the largest cell
    times the number of cells could pass 2^63, so a usual table costs the maxima alone; the float
    sum only preselects, and the exact total is summed in Python integers.

    Examples
    --------
    >>> big = np.array([0, 2**62])
    >>> overflowing_group([big, np.array([1, 1]), np.array([1, 1]), big])
    (1, 9223372036854775810)
    """
    largest = max((int(p.max()) for p in parts if p.size), default=0)
    if largest * len(parts) <= _INT64_MAX:
        return None
    rough = np.zeros(len(parts[0]))
    for p in parts:
        rough += p
    for g in np.flatnonzero(rough >= 2.0**62):
        total = sum(int(p[g]) for p in parts)
        if total > _INT64_MAX:
            return int(g), total
    return None


def overflowing_table(counts: np.ndarray) -> tuple[int, int] | None:
    """:func:`overflowing_group` of stacked tables ``counts[G, K, K]`` (int64), in whole-array
    reductions: a list of their K² cell columns cost a Python call per cell (9M at K = 3,000, where
    counting an id column as the label spent minutes here).

    Examples
    --------
    >>> overflowing_table(np.array([[[0, 1], [1, 0]], [[2**62, 1], [1, 2**62]]]))
    (1, 9223372036854775810)
    >>> overflowing_table(np.zeros((2, 3, 3), dtype=np.int64)) is None
    True
    """
    flat = counts.reshape(counts.shape[0], -1)
    if not flat.size or int(flat.max()) * flat.shape[1] <= _INT64_MAX:
        return None
    rough = flat.sum(axis=1, dtype=np.float64)  # only preselects: the exact total is a Python sum
    for g in np.flatnonzero(rough >= 2.0**62):
        total = sum(int(v) for v in flat[g])
        if total > _INT64_MAX:
            return int(g), total
    return None


def check_totals(parts: Sequence[np.ndarray], name: str = "counts") -> None:
    """Raise :class:`~batcheval.errors.CountOverflowError` if some group's cells add up beyond the
    int64 range (:func:`overflowing_group`): its total n would wrap negative in the kernels and
    give silent nonsense (informedness of ``[[2^62, 1], [1, 2^62]]`` read -4.7e-38)."""
    found = overflowing_group(parts)
    if found is not None:
        group, total = found
        raise CountOverflowError(
            f"{name} of group {group} add up to {total} examples, beyond the int64 range"
        )


def as_tables(counts: Any) -> np.ndarray:
    """``counts`` as checked int64 tables ``[G, K, K]`` (:func:`as_counts`), or an
    :class:`~batcheval.errors.InvalidArgumentError` naming the shape.

    Examples
    --------
    >>> as_tables([[[5, 1], [2, 7]]]).shape
    (1, 2, 2)
    >>> as_tables([[5, 1], [2, 7]])
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: counts must have shape (G, K, K), got (2, 2)
    """
    counts = np.asarray(counts)
    if counts.ndim != 3 or counts.shape[1] != counts.shape[2]:
        raise InvalidArgumentError(f"counts must have shape (G, K, K), got {counts.shape}")
    return as_counts(counts)


def positive_index(positive: Any) -> int:
    """``positive=`` of the count functions: the index 0 or 1 of the positive class on the
    counts' axes. True and 1.0 passed ``positive in (0, 1)``, and numpy read True as a mask:
    ``intervals(counts, ["recall"], positive=True)`` gave (2, 2, 2, 2) arrays of no meaning.

    Examples
    --------
    >>> positive_index(np.int64(0))
    0
    >>> positive_index(True)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: positive must be class index 0 or 1, got True (here it is ...
    """
    if isinstance(positive, bool | np.bool_):
        raise InvalidArgumentError(
            f"positive must be class index 0 or 1, got {positive!r} (here it is the index of the class "
            "on the counts' axes, not a class value; a table's measures() take a class value)"
        )
    if not isinstance(positive, int | np.integer) or positive not in (0, 1):
        raise InvalidArgumentError(f"positive must be class index 0 or 1, got {positive!r}")
    return int(positive)


def binary_cells(counts: np.ndarray, positive: int = 1) -> tuple[np.ndarray, ...]:
    """``(tp, fp, fn, tn)`` of stacked 2×2 tables, with class index ``positive``.

    Examples
    --------
    >>> import numpy as np
    >>> tp, fp, fn, tn = binary_cells(np.array([[[5, 1], [2, 7]]]))
    >>> int(tp[0]), int(fp[0]), int(fn[0]), int(tn[0])
    (7, 1, 2, 5)
    >>> binary_cells(np.array([[[5, 1], [2, 7]]]), positive=2)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: positive must be class index 0 or 1, got 2
    """
    counts = np.asarray(counts)
    if counts.ndim != 3 or counts.shape[1:] != (2, 2):
        raise InvalidArgumentError(f"binary measures need counts of shape (G, 2, 2), got {counts.shape}")
    return _cells(as_counts(counts), positive)


def _cells(counts: np.ndarray, positive: int) -> tuple[np.ndarray, ...]:
    """:func:`binary_cells` of counts already checked."""
    positive = positive_index(positive)
    # a writable copy of read-only counts (a table from a buffer): numba types read-only arrays
    # apart, and would compile the kernel a second time for them
    return _count.cells_2x2(np.require(counts, np.int64, ["C", "W"]), positive)


def _run_kernel(kernel_names, wanted, run) -> dict[str, np.ndarray]:
    slots = np.full(len(kernel_names), -1, dtype=np.int64)
    for row, name in enumerate(wanted):
        slots[kernel_names.index(name)] = row
    out = np.empty((len(wanted), run.n_groups), dtype=np.float64)
    if len(wanted) and run.n_groups:
        run(slots, out)
    return dict(zip(wanted, out, strict=True))


class _Call:
    """A kernel call bound to its inputs, waiting for ``slots`` and ``out``."""

    def __init__(self, fn, n_groups: int, *args) -> None:
        self.fn, self.n_groups, self.args = fn, n_groups, args

    def __call__(self, slots: np.ndarray, out: np.ndarray) -> None:
        self.fn(*self.args, slots, out)


def compute(
    counts: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    positive: int = 1,
    beta: float | None = None,
    cells: tuple[np.ndarray, ...] | None = None,
) -> dict[str, np.ndarray]:
    """Compute measures for every table of ``counts[G, K, K]`` at once.

    Parameters
    ----------
    counts
        int64 counts, ``counts[g, i, j]`` = examples of real class i predicted
        as j in group g.
    names
        Measures to compute (one name, or a list); :func:`default_measures` when None.
    positive
        Index of the positive class for binary measures (K = 2 only).
    beta
        The β of ``f_beta``.
    cells
        ``(tp, fp, fn, tn)`` of ``counts`` at ``positive``, when the caller
        already has them (:func:`binary_cells`); saves a pass.

    Returns
    -------
    dict of str to float64 arrays of length G, in the order of ``names``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[[12, 20], [12, 56]]])
    >>> r = compute(counts, ["informedness", "mcc", "p_informedness", "p_chi2_kb"])
    >>> [round(float(r[k][0]), 4) for k in r]
    [0.1985, 0.2168, 0.0336, 0.1903]
    """
    counts = as_tables(counts)
    positive = positive_index(positive)
    if counts.shape[1] == 2 and cells is None:
        cells = _cells(counts, positive)
    return _compute(counts, cells, names, beta)


def compute_cells(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    beta: float | None = None,
) -> dict[str, np.ndarray]:
    """Binary measures straight from the four cell columns of G tables.

    What :func:`compute` does for ``counts[G, 2, 2]``, for callers that hold
    the cells as columns (sweeps): no table tensor is built unless a
    multiclass-only measure is asked for.

    Examples
    --------
    >>> r = compute_cells([30], [12], [30], [28], ["informedness", "precision"])
    >>> [round(float(r[k][0]), 4) for k in r]
    [0.2, 0.7143]
    """
    cells = tuple(np.asarray(c) for c in (tp, fp, fn, tn))
    if len({c.shape for c in cells}) != 1 or cells[0].ndim != 1:
        raise InvalidArgumentError(
            f"cell columns must be 1-D of one length, got shapes {[c.shape for c in cells]}"
        )
    cells = tuple(as_counts(c, name) for c, name in zip(cells, ("tp", "fp", "fn", "tn"), strict=True))
    check_totals(cells, "tp, fp, fn and tn")
    return _compute(None, cells, names, beta)


def _compute(
    counts: np.ndarray | None,
    cells: tuple[np.ndarray, ...] | None,
    names: Sequence[str] | None,
    beta: float | None,
) -> dict[str, np.ndarray]:
    """``counts`` may be None for a binary table given as ``cells`` (positive = 1)."""
    if counts is None:
        assert cells is not None
        n_groups, n_classes = len(cells[0]), 2
    else:
        n_groups, n_classes = counts.shape[0], counts.shape[1]
    check_beta(beta)
    # one name is one measure, as evaluate(measures="f1") reads it (a string iterated as its letters:
    # "unknown measure 'i'" for compute(counts, "informedness"))
    names = (
        default_measures(n_classes, beta)
        if names is None
        else [names]
        if isinstance(names, str)
        else list(names)
    )
    check_names(names, n_classes, beta)
    if n_classes == 1 and counts is not None and not set(names) <= set(MULTICLASS_MEASURES):
        return _one_class(counts, names, beta)

    binary_stats = BINARY_STATS if n_classes == 2 else ()
    in_binary = set(_binary.NAMES) | {f"p_{s}" for s in binary_stats} | {"p_fisher", "alpha_sbb"}
    want_binary: list[str] = []
    want_multi: list[str] = []
    for name in names:
        if name in CHANCE_TESTS or name == "alpha_sbb":
            continue  # from the chance kernels below, not from a statistic
        base = name.removeprefix("p_") if name.startswith("p_") else name
        if n_classes == 2 and name in in_binary:
            if base in _binary.NAMES and base not in want_binary:
                want_binary.append(base)
        elif base in _multiclass.NAMES and base not in want_multi:
            want_multi.append(base)

    # the p-values, by far the costliest per table, are computed once per distinct table
    # (every measure is a function of the table's cells, so gathering gives each group the
    # bits computing its own would); so is g2, whose four logarithms cost ten times another
    # measure's formula, and, when the tables are hashed anyway and at most _POINT_SHARE of
    # them distinct, every other binary point measure
    tails = [n for n in names if n.startswith("p_") and n != "p_fisher" and n not in CHANCE_TESTS]
    exact_tests = {"alpha_sbb", *CHANCE_TESTS} & set(names)
    binary = counts is None or counts.shape[1] == 2
    per_distinct = [n for n in want_binary if n in _PER_DISTINCT]
    tested = bool(exact_tests or tails or "p_fisher" in names or per_distinct)
    distinct = distinct_groups(cells, n_groups) if binary and tested and cells is not None else None

    results: dict[str, np.ndarray] = {}
    b = 1.0 if beta is None else float(beta)
    # of each distinct table once: the tests, the tails and the costly statistics, in one pass
    shared: dict[str, np.ndarray] = {}
    if distinct is not None:
        few = len(distinct[1]) <= _POINT_SHARE * n_groups
        point = [n for n in want_binary if n in names and (few or n in _PER_DISTINCT)]
        shared = _distinct_tests(cells, names, point, tails, distinct, b)
        want_binary = [n for n in want_binary if n not in point and n in names]
        exact_tests, tails = set(), []
    if want_binary:
        call = _Call(_binary.binary_measures, n_groups, *cells, b)
        results.update({("b", k): v for k, v in _run_kernel(_binary.NAMES, want_binary, call).items()})
    if want_multi:
        if counts is None:
            tp, fp, fn, tn = cells
            counts = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)
        # read-only as the intervals' tables (ContingencyTable.counts): one compiled kernel for both
        call = _Call(_multiclass.multiclass_measures, n_groups, counts)
        results.update({("m", k): v for k, v in _run_kernel(_multiclass.NAMES, want_multi, call).items()})

    if exact_tests:
        results.update(_chance_tests(counts, cells, n_groups))

    # every χ² tail in one call (one per distinct number of degrees of freedom), spread over the
    # threads once
    if tails:
        family_of = {n: "b" if (n_classes == 2 and n in in_binary) else "m" for n in tails}
        stats = np.stack([results[(family_of[n], n[2:])] for n in tails])
        if n_classes == 2:
            p = chi2_upper_tail(stats.reshape(-1), 1).reshape(stats.shape)
        else:
            assert counts is not None
            p = _tails_by_dof(stats, present_dof(counts))
        results.update(zip(tails, p, strict=True))
    out: dict[str, np.ndarray] = {}
    for name in names:
        family = "b" if (n_classes == 2 and name in in_binary) else "m"
        if name in shared:
            out[name] = shared[name]
        elif name == "p_fisher":
            out[name] = _per_table(_fisher.fisher_greater, cells, n_groups)
        elif name == "alpha_sbb":
            out[name] = calibrate_sbb(results["p_informedness"])
        elif name in CHANCE_TESTS or name in tails:
            out[name] = results[name]
        else:
            out[name] = results[(family, name)]
    return out


def held_margins(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(real, pred)``, each ``[G, K]``: whether class k has a real example, and a prediction,
    in each table of ``counts[G, K, K]``.

    Examples
    --------
    >>> real, pred = held_margins(np.array([[[3, 0, 1], [0, 0, 0], [2, 0, 0]]]))
    >>> real.tolist(), pred.tolist()
    ([[True, False, True]], [[True, False, True]])
    """
    # OR-ing the K slices of one boolean pass: any() along a short axis took three to five times
    # as long (2M three-class tables: 0.31 -> 0.11 s)
    held = counts != 0
    real, pred = held[:, :, 0].copy(), held[:, 0, :].copy()
    for j in range(1, held.shape[2]):
        real |= held[:, :, j]
        pred |= held[:, j, :]
    return real, pred


def present_dof(counts: np.ndarray) -> np.ndarray:
    """Each group's degrees of freedom for a χ² test of independence of its table,
    (K_real − 1)(K_pred − 1): K_real counts the rows with a real example, K_pred the columns with
    a prediction, so a class of the call's class set absent from the group's table changes nothing
    (scipy's ``chi2_contingency`` of the table without its empty rows and columns). 0 when either
    margin holds fewer than two classes (nothing to test: the p-value is 1) and for an empty group.

    Examples
    --------
    >>> present_dof(np.array([[[3, 1, 0], [2, 4, 0], [0, 0, 0]], [[2, 0, 1], [0, 0, 0], [0, 0, 0]]]))
    array([1, 0])
    """
    real, pred = held_margins(counts)
    k_real = np.count_nonzero(real, axis=1)
    k_pred = np.count_nonzero(pred, axis=1)
    return np.maximum(k_real - 1, 0) * np.maximum(k_pred - 1, 0)


def _tails_by_dof(stats: np.ndarray, dof: np.ndarray) -> np.ndarray:
    """:func:`chi2_upper_tail` of ``stats[t, g]`` with ``dof[g]`` degrees of freedom: one call for
    the groups of each distinct value (a single call when all groups share it, as tables using
    every class do)."""
    values = np.unique(dof)
    if len(values) == 1:
        return chi2_upper_tail(stats.reshape(-1), int(values[0])).reshape(stats.shape)
    out = np.empty_like(stats, dtype=np.float64)
    for d in values:
        cols = np.flatnonzero(dof == d)
        part = stats[:, cols]
        out[:, cols] = chi2_upper_tail(part.reshape(-1), int(d)).reshape(part.shape)
    return out


def _one_class(counts: np.ndarray, names: list[str], beta: float | None) -> dict[str, np.ndarray]:
    """Tables of one class: its binary measures from its one-vs-rest table, the class positive
    (as ``per_class=True`` gives them), the others from the 1×1 tables."""
    binary = [n for n in names if n not in MULTICLASS_MEASURES]
    # a writable copy, as _cells gives: a view of read-only counts would compile the binary
    # kernels a second time
    tp = np.array(counts[:, 0, 0], dtype=np.int64)
    zero = np.zeros_like(tp)
    out = _compute(None, (tp, zero, zero, zero), binary, beta)
    out.update(_compute(counts, None, [n for n in names if n not in out], beta))
    return {name: out[name] for name in names}


# p-values are computed once per distinct binary table when there are at least this many
# groups and at most _DISTINCT_SHARE of them distinct: hashing costs about 20 ns a table and
# gathering a value a few ns, against some 200 ns a table for Fisher's test or the chance test
_DISTINCT_MIN_GROUPS = 4096
# binary point measures computed once per distinct table when the tables are hashed anyway
_PER_DISTINCT = frozenset({"g2"})
_DISTINCT_SHARE = 0.75
# ... and every binary point measure once per distinct table when at most this share of the
# tables is distinct: the 35 point measures cost about 77 ns a table (100k tables: 7.7 ms of
# CPU), gathering their rows about 42 ns a group (0.12 ms a row of 100k), so it pays below
# about 0.45; at a quarter, the distinct tables' rows (until gathered) add at most a quarter to
# the point measures' memory
_POINT_SHARE = 0.25


def distinct_groups(cells: tuple[np.ndarray, ...], n_groups: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(ids, first)`` of the distinct binary tables when few enough repeat to pay, else None."""
    if not _DISTINCT_MIN_GROUPS <= n_groups < 2**31:  # the ids are int32
        return None
    # a prefix shows cheaply whether tables repeat: it has fewer repeats than the whole
    _, first = _distinct_tables(tuple(c[:_DISTINCT_MIN_GROUPS] for c in cells))
    if len(first) > _DISTINCT_SHARE * _DISTINCT_MIN_GROUPS:
        return None
    ids, first = _distinct_tables(cells)
    return (ids, first) if len(first) <= _DISTINCT_SHARE * n_groups else None


def _distinct_tables(cells: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, first)`` of :func:`~batcheval.kernels.count.distinct_tables`, by the packed keys of
    :func:`~batcheval.kernels.count.distinct_small_tables` while every cell is below 2¹⁶."""
    ids, first, small = _count.distinct_small_tables(*cells)
    return (ids, first) if small else _count.distinct_tables(*cells)


def gather_shared(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``values[..., ids]`` for one row or rows of per-table values, in parallel."""
    rows = np.atleast_2d(values)
    out = np.empty((rows.shape[0], len(ids)), dtype=np.float64)
    _count.gather_two(rows, ids, out, np.empty((0, len(ids))))
    return out if values.ndim == 2 else out[0]


def _distinct_tests(
    cells: tuple[np.ndarray, ...],
    names: Sequence[str],
    point: Sequence[str],
    tails: Sequence[str],
    distinct: tuple[np.ndarray, np.ndarray],
    beta: float,
) -> dict[str, np.ndarray]:
    """The binary point measures ``point`` and the tests asked for among ``names`` (``p_fisher``,
    the chance tests, ``alpha_sbb``, the χ² ``tails``), each computed once per distinct table and
    handed to every group by a gather."""
    ids, first = distinct
    chance = [t for t in CHANCE_TESTS if t in names]
    handed = [*point, *tails, *(["p_fisher"] if "p_fisher" in names else []), *chance]
    handed += ["alpha_sbb"] if "alpha_sbb" in names else []
    row = {name: i for i, name in enumerate(handed)}
    # the statistics only their tails need, after the rows that are handed out
    stats = list(dict.fromkeys([*point, *(t[2:] for t in tails)]))
    for name in stats:
        row.setdefault(name, len(row))
    chance_rows = [row[t] for t in chance]
    if "alpha_sbb" in names and not chance:
        chance_rows = [row.setdefault("p_informedness", len(row))]  # alpha_sbb's p, not handed out
    # one block for every row of the distinct tables, written by one kernel pass: the point
    # measures, the χ² statistics and their tails, Fisher's test and the chance test
    once = np.empty((len(row), len(first)), dtype=np.float64)
    slots = np.full(len(_binary.NAMES), -1, dtype=np.int64)
    for name in stats:
        slots[_binary.NAMES.index(name)] = row[name]
    _pvalues.distinct_pass(
        *cells,
        first,
        _binary.program(slots, beta),
        np.array([row["p_fisher"]] if "p_fisher" in names else [], dtype=np.int64),
        np.array(chance_rows, dtype=np.int64),
        np.array([row[t[2:]] for t in tails], dtype=np.int64),
        np.array([row[t] for t in tails], dtype=np.int64),
        once,
    )
    if "alpha_sbb" in names:
        once[row["alpha_sbb"]] = calibrate_sbb(once[chance_rows[0]])
    # the point measures and the tests into two blocks: one block of 46 rows of 100k groups
    # (36.8 MB) passes glibc's largest mmap threshold (32 MiB), so every call mapped it afresh
    # and faulted its pages in; one gather pass writes both
    n_point = len(point)
    blocks = (np.empty((n_point, len(ids))), np.empty((len(handed) - n_point, len(ids))))
    if len(ids):
        _count.gather_two(once, ids, *blocks)
    rows = [*blocks[0], *blocks[1]]
    return dict(zip(handed, rows, strict=True))


def _per_table(kernel, cells: tuple[np.ndarray, ...], n_groups: int) -> np.ndarray:
    """``kernel(tp, fp, fn, tn, out)`` for every table."""
    p = np.empty(n_groups, dtype=np.float64)
    if n_groups:
        kernel(*cells, p)
    return p


def _chance_tests(
    counts: np.ndarray | None,
    cells: tuple[np.ndarray, ...] | None,
    n_groups: int,
) -> dict[str, np.ndarray]:
    """``p_informedness`` and ``p_markedness`` of every table (one kernel computes both)."""
    if counts is None or counts.shape[1] == 2:
        assert cells is not None
        p = np.empty(n_groups, dtype=np.float64)
        if n_groups:
            # n <= 4·(largest cell), in Python's integers: bound enough to choose the kernel's version
            se = _chance.saddle_terms(4 * int(max(np.max(c) for c in cells)))
            # the version with the exact tail of 2^31 examples or more only if a table needs it
            if _chance.binary_chance(*cells, p, se, None):
                _chance.binary_chance(*cells, p, se, True)
        # for K = 2 both are tests of the one cell tp given the margins
        return {"p_informedness": p, "p_markedness": p.copy()}
    out = np.empty((2, n_groups), dtype=np.float64)
    if n_groups:
        bound = int(counts.max()) * counts.shape[1] ** 2  # n <= K²·(largest cell)
        _chance.multiclass_chance_tests(counts, out, _chance.saddle_terms(bound))
    return {"p_informedness": out[0], "p_markedness": out[1]}
