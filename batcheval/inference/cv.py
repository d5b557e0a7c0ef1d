"""Cross-validated comparisons of runs: corrected resampled t-test, Bayesian correlated t-test, 5×2cv.

Every run is measured on the same J = r·k folds (r repeats of k-fold cross-validation). The
difference ``d_j = run_j − reference_j`` on each fold is the unit of evidence, and every test is a
statistic of the mean ``d̄`` and the sample variance ``s²`` of the J differences; so all runs are
compared at once with numpy on a runs × folds matrix.

Why the plain paired t-test over folds is wrong
    Folds share most of their training data (two training sets of 10-fold cross-validation share
    8/9 of their rows), so the J differences are positively correlated and ``s²/J`` underestimates
    the variance of ``d̄``. The test rejects far more often than its level says: under Nadeau and
    Bengio's correlation model a 5 % test rejects 57 % of the time with ten repeats of 10-fold
    cross-validation (the table in docs/comparing.md).

``test="corrected_t"``
    Nadeau & Bengio (2003, Machine Learning 52:239) replace ``1/J`` by ``1/J + n_test/n_train``:
    ``t = d̄ / sqrt((1/J + n_test/n_train) s²)`` on J − 1 degrees of freedom. For k-fold
    cross-validation ``n_test/n_train = 1/(k − 1)``, derived here from the number of folds per
    repeat; ``test_fraction=`` gives it for repeated hold-out splits (``ρ = f/(1 − f)``).
    Bouckaert & Frank (2004) recommend it with 10 repeats of 10 folds.
``test="bayes"``
    The Bayesian correlated t-test of Corani & Benavoli (2015, Machine Learning 100:285) used by
    Benavoli, Corani, Demšar & Zaffalon (2017, JMLR 18(77)) and the ``baycomp`` library: under a
    non-informative prior the posterior of the mean difference is a Student t with J − 1 degrees
    of freedom, location ``d̄`` and scale ``sqrt((1/J + n_test/n_train) s²)``. With a region of
    practical equivalence (ROPE) ``[low, high]`` it reports ``p_left = P(δ < low)``,
    ``p_rope = P(low ≤ δ ≤ high)`` and ``p_right = P(δ > high)``: the posterior probabilities that
    the run is practically worse, equivalent, or better than the reference (for a measure where
    higher is better; where lower is better, δ is still run − reference, so ``p_left`` is the
    probability that the run is practically better and ``p_right`` worse). A ROPE is the range of
    differences too small to matter in practice (e.g. ±0.01 of accuracy); unlike a p-value these
    probabilities can *support* equivalence.
``test="5x2cv"``
    Dietterich's (1998, Neural Computation 10:1895) 5×2cv paired t-test for exactly 5 repeats of
    2-fold cross-validation: ``t = d_11 / sqrt(Σ_i s_i² / 5)`` on 5 degrees of freedom, with
    ``s_i² = Σ_j (d_ij − d̄_i)²`` and ``d_11`` the first fold of the first repeat (repeats and
    folds in sorted order). Conservative under the null in docs/comparing.md's simulation (two
    equally good classifiers on 40 to 400 examples: 0.0262–0.0405 rejected at α = 0.05).
``test="t"``
    The plain paired t-test over the J folds (``scipy.stats.ttest_rel``), for comparison only.

Choosing the reference
    ``reference=value`` compares every other run with that run. ``reference=None`` picks the run
    with the best mean over all folds (by default the measure's own direction: lowest for
    ``fallout``, ``miss_rate``, ``lr_minus``, ``conditional_entropy``, the p-values and
    ``alpha_sbb``, in any case and as the ``<measure>_mean`` column of a pooled evaluate,
    highest for any other name; ``higher_is_better=`` overrides; the first in
    sort order on ties). That choice is made on the same folds the tests then use, so
    the tests against it are *optimistic* for the reference: a run is less often found better
    than a data-selected leader than it would be against a fixed one, and more often found worse.
    Fix the reference in advance (a baseline), or confirm on fresh data, when it matters.
    ``pairs="all"`` compares every pair of runs (R(R − 1)/2 rows).

Differences with no spread (``sd_diff`` within one ``eps·max|value|``: rounding) have no variance
for a t-test to divide by: identical runs get ``t = 0`` and ``p_value = 1``, and a constant nonzero
difference ``se = 0``, ``t = ±inf`` and the exact sign test's ``p_value = 2^(1 − J)`` (every fold
agrees; with J = 5 that is 0.0625, not 0); under ``test="bayes"`` the posterior sits on the mean.
Under ``test="5x2cv"``, differences that vary while each repeat's two are equal leave Dietterich's
t nothing to divide by (it pools the spread within repeats): ``se = 0``, ``t`` NaN, and the exact
sign-flip test of the J differences' mean gives ``p_value`` (it was 0).

Two-sided p-values of the t-tests get a Holm-adjusted column (``p_holm``, over the rows of the
result); the Bayesian test reports posterior probabilities, which need no multiplicity correction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from ..core.encode import WIDE_INTEGERS
from ..core.memory import check_allocation
from ..errors import InvalidArgumentError, NullValuesError
from ..io.arguments import as_count, as_flag, as_real
from ..io.frames import as_key_list, check_free_names, check_roles, column_names, select_columns
from ..kernels import ranks as _rank_kernels
from ..kernels.jit import readonly
from ..measures import names as _names
from ..scores.prepare import check_exact_in_float
from .adjust import adjust

__all__ = [
    "COMPARE_TESTS",
    "FoldMatrix",
    "compare",
    "fold_matrix",
    "is_tiled",
    "key_codes",
    "matches",
    "numeric_values",
    "parse_rope",
    "reference_row",
    "sorted_grid",
]

COMPARE_TESTS = ("corrected_t", "bayes", "5x2cv", "t")

#: The largest measure value :func:`compare` takes, 2**500: a difference of two below it squares to at
#: most 2**1002, so sums of squares over up to 2**21 folds stay finite.
LARGEST_MEASURE = 2.0**500

#: How many runs or folds an error message lists before "...".
_SHOW = 5


@dataclass
class FoldMatrix:
    """Each run's measure on every fold: ``values[run, cell]``.

    ``runs`` holds the run keys in row order, ``cells`` the (repeat, fold) keys in column order
    (sorted), ``n_repeats`` and ``n_folds`` the layout (``cells`` = repeats × folds).
    """

    runs: pl.DataFrame
    cells: pl.DataFrame
    values: np.ndarray
    n_repeats: int
    n_folds: int


def parse_rope(rope: Any) -> tuple[float, float]:
    """A ROPE as ``(low, high)``: a half-width ``w ≥ 0`` means ``(−w, w)``.

    Examples
    --------
    >>> parse_rope(0.01)
    (-0.01, 0.01)
    >>> parse_rope((-0.02, 0.01))
    (-0.02, 0.01)
    >>> parse_rope((0.1, 0.0))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: rope= low 0.1 is greater than high 0.0
    """
    if np.ndim(rope) == 0:
        w = as_real(rope, "rope=")
        if not (w >= 0 and np.isfinite(w)):  # also catches NaN
            raise InvalidArgumentError(f"rope= half-width must be finite and >= 0, got {rope!r}")
        return -w, w
    parts = list(rope)
    if len(parts) != 2:
        raise InvalidArgumentError(f"rope= takes a half-width or (low, high), got {rope!r}")
    low, high = as_real(parts[0], "rope= low"), as_real(parts[1], "rope= high")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise InvalidArgumentError(f"rope= bounds must be finite, got {rope!r}")
    if low > high:
        raise InvalidArgumentError(f"rope= low {low!r} is greater than high {high!r}")
    return low, high


def numeric_values(frame: pl.DataFrame, column: str) -> pl.Series:
    """The ``column`` of scores or measures as Float64; a column polars cannot read as numbers (text
    such as "n/a") is an :class:`InvalidArgumentError` naming it, not polars' own error; 64-bit
    integers beyond 2^53 that are equal as float64 (they tied silently) are refused as
    :func:`batcheval.compare_auc` refuses them (:func:`batcheval.scores.prepare.check_exact_in_float`).

    Only numeric, Boolean, text and all-null columns are read. Any other dtype is refused by name,
    as :func:`batcheval.compare_auc` refuses a score column of it: Categorical, Enum, List, Array,
    Binary and Struct (polars' own cast errors escaped, or a Struct failed later), and the temporal
    dtypes (Date, Datetime, Duration, Time), which cast to day or tick counts that were compared
    as if they were the measure.

    Examples
    --------
    >>> numeric_values(pl.DataFrame({"acc": ["0.5", "1"]}), "acc").to_list()
    [0.5, 1.0]
    >>> numeric_values(pl.DataFrame({"acc": [1, 2]}).cast(pl.Date), "acc")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: measure column 'acc' has dtype Date; measures must be numbers ...
    """
    s = frame.get_column(column)
    if not (s.dtype.is_numeric() or s.dtype in (pl.Boolean, pl.String, pl.Null)):
        raise InvalidArgumentError(
            f"measure column {column!r} has dtype {s.dtype}; measures must be numbers "
            "(a numeric, Boolean or text column)"
        )
    check_exact_in_float(s, column, role="measure")
    try:
        return s.cast(pl.Float64)
    except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError):
        text = s.filter(s.cast(pl.Float64, strict=False).is_null() & s.is_not_null())
        raise InvalidArgumentError(
            f"measure column {column!r} of dtype {s.dtype} has {len(text)} non-numeric values "
            f"(first: {text[0]!r})"
        ) from None


def _show(items: Sequence[Any]) -> str:
    shown = ", ".join(str(x) for x in items[:_SHOW])
    return shown + (f", ... ({len(items)} in all)" if len(items) > _SHOW else "")


def _key_text(frame: pl.DataFrame, rows: np.ndarray) -> list[str]:
    sub = frame[rows.tolist()]
    if sub.width == 1:
        return [f"{sub.columns[0]}={v!r}" for v in sub.to_series().to_list()]
    return [str(dict(zip(sub.columns, r, strict=True))) for r in sub.rows()]


def _holds_predictions(names: Sequence[str], measure: str, label: str, prediction: str) -> bool:
    """Whether a frame of columns ``names`` holds predictions to count rather than measures: it has
    no ``measure`` column, and has a class column or was given one by a name other than the
    default. A typo in ``label=`` was read as an evaluated frame lacking the measure column, whose
    message named the measure (``measure column 'informedness' not found``).

    Examples
    --------
    >>> _holds_predictions(["run", "fold", "y", "prediction"], "informedness", "lbl", "prediction")
    True
    >>> _holds_predictions(["run", "fold", "accuracy"], "informedness", "label", "prediction")
    False
    """
    if measure in names:
        return False
    return label in names or prediction in names or (label, prediction) != ("label", "prediction")


def fold_matrix(
    data: Any,
    run: str | Sequence[str] = "run",
    fold: str = "fold",
    repeat: str | None = None,
    measure: str = "informedness",
    *,
    label: str = "label",
    prediction: str = "prediction",
    drop_nulls: bool = False,
) -> FoldMatrix:
    """Arrange one measure per (run, repeat, fold) as a runs × folds matrix, checking the layout.

    ``data`` is either an evaluated frame (it has the ``measure`` column) or per-example
    predictions (it has ``label`` and ``prediction``), which are counted per (run, repeat, fold)
    first, as ``evaluate(data, by=[*run, repeat, fold])`` would. A frame without the ``measure``
    column that has one of the two class columns, or given a ``label`` or ``prediction`` other
    than the default name, is read as predictions, and a class column it lacks is named.

    Raises :class:`~batcheval.errors.InvalidArgumentError` for a ``label`` or ``prediction`` that is
    not a column name (a string), even where ``data`` is an evaluated frame, for fewer than 2 folds,
    a NaN, infinite or null measure (counted, with the runs and folds named), text that is not a
    number, a run measured twice on one fold, or runs whose folds do not match (naming the runs and
    the missing folds).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"run": [1, 1, 2, 2], "fold": [0, 1, 0, 1], "accuracy": [0.8, 0.7, 0.6, 0.9]})
    >>> fold_matrix(df, measure="accuracy").values.tolist()
    [[0.8, 0.7], [0.6, 0.9]]
    """
    runs = as_key_list(run, "run")
    if not runs:
        raise InvalidArgumentError("run= must name at least one column")
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    for what, col in (("fold", fold), ("repeat", repeat)):
        if not isinstance(col, str) and (col is not None or what == "fold"):
            raise InvalidArgumentError(f"{what}= takes a column name, got {col!r}")
    for col, role in ((label, "label"), (prediction, "prediction")):
        # each on its own, as leaderboard and evaluate check them: a list or None was simply not among
        # the frame's columns, which then read as an evaluated frame lacking the measure column
        check_roles([], col, roles=(role,))
    cell_cols = ([repeat] if repeat is not None else []) + [fold]
    if not isinstance(data, pl.DataFrame | pl.LazyFrame):  # pandas, pyarrow or a dict
        names = column_names(data)
        counted = _holds_predictions(names, measure, label, prediction)
        wanted = [*runs, *cell_cols, *((label, prediction) if counted else (measure,))]
        # the columns present, each once: the checks below name what is missing or repeated
        present = [c for c in dict.fromkeys(wanted) if c in names]
        if counted:  # a class column it lacks, named beside every column of the frame
            present += [c for c in dict.fromkeys((label, prediction)) if c not in names]
        roles = {**dict.fromkeys(present, "named"), label: "label", prediction: "prediction"}
        data = select_columns(data, present, roles)
    named = [*runs, fold, *([repeat] if repeat is not None else []), measure]
    kinds = [*("run" for _ in runs), "fold", *(["repeat"] if repeat is not None else []), "measure"]
    # before the count of predictions, whose by= is runs and folds: a run column that is also the
    # fold was refused there as "named twice in by=['run', 'fold', 'fold']", an argument compare lacks
    roles = check_roles([], *named, roles=kinds)  # a column in two roles is named in both
    names = data.collect_schema().names() if isinstance(data, pl.LazyFrame) else data.columns
    if _holds_predictions(names, measure, label, prediction):
        from ..core.engine import count_any

        table, _ = count_any(
            data, [*runs, *cell_cols], label, prediction, classes=None, drop_nulls=drop_nulls
        )
        data = table.measures([measure])
    check_free_names(runs, [*RESULT_COLUMNS, *(f"reference_{c}" for c in runs)], "compare's result", "run")
    frame = select_columns(data, [*runs, *cell_cols, measure], roles)
    if frame.height == 0:
        raise InvalidArgumentError("the frame has no rows to compare")
    value = numeric_values(frame, measure)
    if value.null_count() or not value.is_finite().all():
        # an infinite measure gives NaN differences and an all-NaN row, as silently as NaN would
        bad = (value.is_null() | ~value.is_finite()).fill_null(True)
        where = frame.filter(bad).select(*runs, *cell_cols).rows()
        raise InvalidArgumentError(
            f"measure column {measure!r} has {int(bad.sum())} NaN, infinite or null values, at "
            f"({', '.join([*runs, *cell_cols])}) = {_show(where)}"
        )
    largest = value.abs().max()
    if largest is not None and largest > LARGEST_MEASURE:
        # the differences' squares overflow: a mean of 1e308 and 1e308 came out inf and t NaN, silently
        raise InvalidArgumentError(
            f"measure column {measure!r} holds values up to {largest:g} in size; compare takes "
            f"measures below {LARGEST_MEASURE:.3g}, whose squared differences stay finite (rescale it)"
        )
    grid = sorted_grid(frame, runs, cell_cols)
    if grid is not None:
        run_keys, cell_keys = grid
    else:
        r, run_keys = key_codes(frame, runs, "run")
        c, cell_keys = key_codes(frame, cell_cols, {fold: "fold", **({repeat: "repeat"} if repeat else {})})
    n_runs, n_cells = run_keys.height, cell_keys.height
    n_repeats = cell_keys.get_column(repeat).n_unique() if repeat is not None else 1
    n_folds = cell_keys.get_column(fold).n_unique()
    if n_cells < 2:
        raise InvalidArgumentError(f"a comparison over folds needs at least 2 folds, got {n_cells}")
    if n_repeats * n_folds != n_cells:
        raise InvalidArgumentError(
            f"folds do not form a grid: {n_cells} distinct ({repeat}, {fold}) pairs, not {n_repeats} "
            f"repeats × {n_folds} folds; give each repeat the same fold labels"
        )
    if grid is not None:
        # one row per (run, cell) in key order: the value column is the matrix already
        values = value.to_numpy().reshape(n_runs, n_cells)
        return FoldMatrix(run_keys, cell_keys, values, n_repeats, n_folds)
    values = np.empty(n_runs * n_cells)
    seen = np.zeros(n_runs * n_cells, dtype=np.uint8)
    _rank_kernels.scatter_cells(r, c, n_cells, readonly(value.to_numpy()), values, seen)
    seen = seen.reshape(n_runs, n_cells)
    if (seen > 1).any():
        rr, cc = np.nonzero(seen > 1)
        pairs = [
            f"{a} on {b}" for a, b in zip(_key_text(run_keys, rr), _key_text(cell_keys, cc), strict=True)
        ]
        raise InvalidArgumentError(f"runs measured more than once on one fold: {_show(pairs)}")
    if (seen == 0).any():
        missing = np.nonzero((seen == 0).any(axis=1))[0]
        parts = []
        for i in missing[:_SHOW]:
            gaps = np.nonzero(seen[i] == 0)[0]
            parts.append(f"{_key_text(run_keys, np.array([i]))[0]} lacks {_show(_key_text(cell_keys, gaps))}")
        more = f" ({len(missing)} runs in all)" if len(missing) > _SHOW else ""
        raise InvalidArgumentError(
            f"runs do not share the same folds, so they cannot be paired: {'; '.join(parts)}{more}"
        )
    return FoldMatrix(run_keys, cell_keys, values.reshape(n_runs, n_cells), n_repeats, n_folds)


def is_tiled(x: np.ndarray, size: int) -> bool:
    """Whether ``x`` repeats its first ``size`` rows block after block (the fold columns of a frame
    sorted by run with one row per fold). numpy compares a few thousand blocks at a time, which
    beats an element loop with an early exit several times over on one-byte columns.

    Examples
    --------
    >>> is_tiled(np.array([0, 1, 2, 0, 1, 2]), 3), is_tiled(np.array([0, 1, 2, 0, 2, 1]), 3)
    (True, False)
    """
    if len(x) % size:
        return False
    blocks = x.reshape(-1, size)
    first = x[:size]
    for i in range(0, blocks.shape[0], 4096):
        if (blocks[i : i + 4096] != first).any():
            return False
    return True


def _increasing(keys: pl.DataFrame) -> bool:
    """Whether the rows of integer ``keys`` are strictly increasing in lexicographic order."""
    greater = np.zeros(max(keys.height - 1, 0), dtype=bool)
    equal = np.ones_like(greater)
    for col in keys.columns:
        x = keys.get_column(col).to_numpy()
        greater |= equal & (x[1:] > x[:-1])
        equal &= x[1:] == x[:-1]
    return bool(greater.all())


def sorted_grid(
    frame: pl.DataFrame, runs: Sequence[str], cells: Sequence[str]
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The run keys and the cell keys when ``frame`` has one row per (run, cell), sorted by run and then
    cell, with every run on the same cells in the same order (``evaluate``'s output by run, repeat and
    fold has this layout); None otherwise, or for keys that are not integers without nulls.

    Checking this takes one pass over each key column, where coding the keys takes several and a
    scatter of the values: the layout proves there are no duplicates or gaps, and sorted order
    makes the matrix the value column itself."""
    columns = [*runs, *cells]
    schema = frame.schema
    if any(
        not schema[c].is_integer() or schema[c] in WIDE_INTEGERS or frame.get_column(c).null_count()
        for c in columns
    ):
        return None
    arrays = {c: readonly(frame.get_column(c).to_numpy()) for c in columns}
    n_cells = min(_rank_kernels.leading_run(arrays[c]) for c in runs)
    if frame.height % n_cells:
        return None
    if not all(_rank_kernels.block_constant(arrays[c], n_cells) for c in runs):
        return None
    if not all(is_tiled(arrays[c], n_cells) for c in cells):
        return None
    run_keys = frame.select(runs).gather_every(n_cells)
    cell_keys = frame.select(cells).head(n_cells)
    if not (_increasing(run_keys) and _increasing(cell_keys)):
        return None
    return run_keys, cell_keys


def key_codes(
    frame: pl.DataFrame, columns: Sequence[str], role: str | dict[str, str] = "key"
) -> tuple[np.ndarray, pl.DataFrame]:
    """Dense codes 0..u−1 of the key ``columns`` in sorted key order, and the u distinct keys.

    Integer columns of a compact range are coded through a lookup table in one numba pass (no
    sort, no int64 copy): a struct rank costs seconds over ten million rows. Several columns
    combine their codes in mixed radix. Keys may not be null; a message names a column by
    ``role`` ("run", "example"; or a role for each column).
    """
    codes = np.zeros(frame.height, dtype=np.int64)
    uniques: list[pl.Series] = []
    for col in columns:
        s = frame.get_column(col)
        if s.null_count():
            nulls = s.null_count()
            what = role.get(col, "key") if isinstance(role, dict) else role
            raise NullValuesError(f"{what} column {col!r} has {nulls} null value{'s' if nulls != 1 else ''}")
        u = _fold_codes(s, codes)
        uniques.append(u)
    if len(columns) == 1:
        return codes, uniques[0].to_frame()
    span = int(np.prod([len(u) for u in uniques]))
    if span <= 4 * len(codes) + 1024:
        occurs = np.zeros(span, dtype=np.uint8)
        _rank_kernels.mark_present(readonly(codes), 0, occurs)  # read-only, as _fold_codes passes keys
        if occurs.all():
            # every combination occurs (a full grid of repeats × folds): the mixed-radix codes are
            # already dense and in key order, so the recoding pass is skipped
            code, present = codes, np.arange(span)
        else:
            code = np.zeros(len(codes), dtype=np.int64)
            present = _fold_codes(pl.Series(codes), code).to_numpy()
    else:
        code = np.zeros(len(codes), dtype=np.int64)
        present = _fold_codes(pl.Series(codes), code).to_numpy()
    keys = {}
    for col, u in zip(reversed(columns), reversed(uniques), strict=True):
        keys[col] = u.gather(present % len(u))
        present = present // len(u)
    return code, pl.DataFrame([keys[c] for c in columns])


def _fold_codes(s: pl.Series, codes: np.ndarray) -> pl.Series:
    """``codes = codes·u + code(s)`` for the u sorted distinct values of ``s``; returns them."""
    if s.dtype.is_integer() and s.dtype not in WIDE_INTEGERS and len(s):
        lo, hi = int(s.min()), int(s.max())  # type: ignore[arg-type]
        if hi - lo <= 4 * len(s) + 1024:
            # a compact range: which keys occur from a byte map, not a hash set of ten million values
            x = readonly(s.to_numpy())
            present = np.zeros(hi - lo + 1, dtype=np.uint8)
            _rank_kernels.mark_present(x, lo, present)
            keys = np.flatnonzero(present)
            n = len(keys)
            lut = np.zeros(hi - lo + 1, dtype=np.int64)
            lut[keys] = np.arange(n)
            _rank_kernels.radix_codes(x, lo, lut, n, codes)
            return pl.Series(s.name, keys + lo).cast(s.dtype)
    u = s.unique().sort()
    n = len(u)
    codes *= n
    codes += u.search_sorted(s).to_numpy().astype(np.int64)
    return u


def matches(column: pl.Series, value: Any) -> np.ndarray:
    """Where ``column`` equals the scalar ``value``, as a boolean array.

    A string names an integer run only as its plain decimal text ("7", as the command line gives
    it; not "07" or " 7"), and a bool only a boolean run (True is no run 1). A value polars cannot
    compare with the column (a list, None, text that is no integer against integers) matches
    nowhere, so that the caller's "not found" error names it instead of polars raising its own.

    Examples
    --------
    >>> runs = pl.Series("run", [1, 2, 10])
    >>> [matches(runs, v).tolist() for v in ("2", "02", True, 10.0)]
    [[False, True, False], [False, False, False], [False, False, False], [False, False, True]]
    """
    none = np.zeros(len(column), dtype=bool)
    if value is None or isinstance(value, list | tuple | dict | set | np.ndarray | pl.Series):
        return none
    if isinstance(value, bool | np.bool_) and column.dtype != pl.Boolean:
        return none
    if isinstance(value, str) and column.dtype.is_integer():
        try:
            if str(int(value)) != value:
                return none
        except ValueError:
            return none
    try:
        hit = column == value
    except (TypeError, NotImplementedError, pl.exceptions.PolarsError):
        return np.zeros(len(column), dtype=bool)
    return hit.fill_null(False).to_numpy()


def reference_row(runs: pl.DataFrame, reference: Any) -> int:
    """The row of ``runs`` (run keys) equal to ``reference``: a value, or a tuple or dict for several
    run columns; an error listing some runs when there is none."""
    cols = runs.columns
    if isinstance(reference, dict):
        missing = [c for c in cols if c not in reference]
        unknown = [k for k in reference if k not in cols]
        if missing or unknown:
            wrong = ([f"missing {missing}"] if missing else []) + ([f"unknown {unknown}"] if unknown else [])
            raise InvalidArgumentError(
                f"reference= dict keys must be the run columns {cols}: {', '.join(wrong)} in {reference!r}"
            )
        wanted = [reference[c] for c in cols]
    elif len(cols) > 1 and isinstance(reference, tuple | list):
        wanted = list(reference)
    else:
        wanted = [reference]
    if len(wanted) != len(cols):
        raise InvalidArgumentError(f"reference= needs a value for each run column {cols}, got {reference!r}")
    hit = np.ones(runs.height, dtype=bool)
    for c, v in zip(cols, wanted, strict=True):
        hit &= matches(runs.get_column(c), v)
    rows = np.nonzero(hit)[0]
    if len(rows) == 0:
        have = _key_text(runs, np.arange(min(runs.height, _SHOW)))
        raise InvalidArgumentError(
            f"reference= run {reference!r} is not in the frame; "
            f"its {runs.height} runs include {', '.join(have)}"
        )
    return int(rows[0])


def compare(
    data: Any,
    run: str | Sequence[str] = "run",
    fold: str = "fold",
    repeat: str | None = None,
    measure: str = "informedness",
    *,
    reference: Any = None,
    pairs: Literal["reference", "all"] = "reference",
    test: Literal["corrected_t", "bayes", "5x2cv", "t"] = "corrected_t",
    rope: float | tuple[float, float] = 0.0,
    test_fraction: float | None = None,
    higher_is_better: bool | None = None,
    label: str = "label",
    prediction: str = "prediction",
    chunk_rows: int = 1 << 16,
    drop_nulls: bool = False,
) -> pl.DataFrame:
    """Compare runs measured on the same cross-validation folds, every run at once.

    See :mod:`batcheval.inference.cv` for the tests, their sources, and how the reference is chosen.

    Parameters
    ----------
    data
        Either a frame with one ``measure`` value per (run, repeat, fold) — e.g. the output of
        ``be.evaluate(predictions, by=["run", "repeat", "fold"])`` — or the per-example predictions
        themselves (with ``label`` and ``prediction`` columns), which are counted per fold first.
        A frame without the ``measure`` column is read as predictions when it has either class
        column or ``label=`` or ``prediction=`` names another column than the default, and a
        class column it lacks is named (:class:`~batcheval.errors.ColumnNotFoundError`).
    run
        The column(s) naming a run (a model or configuration).
    fold, repeat
        The fold within a repeat, and the repeat of the cross-validation (None: one repeat).
    measure
        The measure column compared.
    reference
        The run every other run is compared with (a value of ``run``; a tuple or dict for
        several run columns). None: the run with the best mean, chosen on the same data, which
        makes the tests optimistic for it (see the module notes).
    pairs
        ``"reference"``: every run against the reference; ``"all"``: every pair of runs (the
        first of the pair in the ``run`` columns, the second in ``reference_<run>``).
    test
        ``"corrected_t"`` (Nadeau–Bengio), ``"bayes"`` (Bayesian correlated t-test), ``"5x2cv"``
        (Dietterich, for 5 repeats × 2 folds) or ``"t"`` (the uncorrected paired t-test).
    rope
        The region of practical equivalence of ``test="bayes"``: a half-width ``w`` for
        ``[−w, w]``, or ``(low, high)``, on the scale of the measure difference run − reference.
        The other tests have none, and raise :class:`~batcheval.errors.InvalidArgumentError` for
        any rope but the default 0.
    test_fraction
        The share of the data in each test fold; default ``1/k`` for k folds per repeat, which
        makes ``n_test/n_train = 1/(k − 1)``. Needed for repeated hold-out splits (one "fold" per
        repeat). Only for ``test="corrected_t"`` and ``"bayes"``: the other tests have no
        correction, and raise :class:`~batcheval.errors.InvalidArgumentError` when it is given.
    higher_is_better
        Which way the best run is chosen when ``reference=None``. By default the measure's own
        direction: the lowest mean for ``fallout``, ``miss_rate``, ``lr_minus``,
        ``conditional_entropy``, the p-values and ``alpha_sbb`` (and their aliases, in any case:
        ``"FPR"``; and their means over pooled groups, ``fallout_mean``, as a pooled
        :func:`batcheval.evaluate` names them), the highest for every other name, a score column
        of your own included (pass ``False`` for a loss).
    label, prediction
        The class columns, used when ``data`` holds predictions.
    drop_nulls
        With predictions: skip rows with a null label or prediction instead of raising; a
        :class:`~batcheval.errors.BatchevalWarning` reports how many.
    chunk_rows
        Comparisons computed at once, an integer of at least 1 (bounds the differences 5×2cv holds
        at ``chunk_rows × folds`` floats; the other tests need no such matrix).

    Returns
    -------
    polars.DataFrame
        One row per comparison: the run key(s), ``reference_<key>``, ``n_folds`` (J = repeats ×
        folds), ``mean_run``, ``mean_reference``, ``mean_diff`` (run − reference), ``sd_diff`` (the
        sample standard deviation of the J differences), ``se`` (the standard error the test uses),
        then ``t``, ``df``, ``p_value`` (two-sided) and ``p_holm`` for the t-tests, or ``p_left``,
        ``p_rope``, ``p_right`` for ``test="bayes"``: the posterior probabilities of a difference
        below, inside and above the ROPE. Every column is of run − reference whatever the
        measure's direction, so where higher is better ``p_left`` is the probability that the run
        is practically worse and ``p_right`` that it is practically better; for a measure where
        lower is better (``fallout``, ``miss_rate``, ``lr_minus``, ``conditional_entropy``, a loss)
        the two swap: ``p_left`` is the probability that the run is practically better.

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({
    ...     "run": ["a"] * 4 + ["b"] * 4,
    ...     "fold": [0, 1, 2, 3] * 2,
    ...     "accuracy": [0.80, 0.82, 0.79, 0.81, 0.84, 0.83, 0.85, 0.86],
    ... })
    >>> out = be.compare(df, measure="accuracy", reference="a")
    >>> out.select("run", "reference_run", "mean_diff", "t", "df").rows()
    [('b', 'a', 0.03999999999999995, 2.4243661069253064, 3.0)]
    >>> bayes = be.compare(df, measure="accuracy", reference="a", test="bayes", rope=0.01)
    >>> [round(p, 4) for p in bayes.select("p_left", "p_rope", "p_right").row(0)]
    [0.0281, 0.0552, 0.9167]
    """
    if test not in COMPARE_TESTS:
        raise InvalidArgumentError(f"unknown test {test!r}; use one of {list(COMPARE_TESTS)}")
    if pairs not in ("reference", "all"):
        raise InvalidArgumentError(f"pairs= must be 'reference' or 'all', got {pairs!r}")
    if pairs == "all" and reference is not None:
        raise InvalidArgumentError("reference= has no meaning with pairs='all'; leave it None")
    low, high = parse_rope(rope)
    # "False" (truthy) made the highest mean of a loss the reference, without a word
    # "False" (truthy) ranked a loss highest first without a word
    higher_is_better = as_flag(_names.higher_is_better(measure, higher_is_better), "higher_is_better=")
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    if test_fraction is not None and test not in ("corrected_t", "bayes"):
        # the plain t and 5x2cv have no correction for it to set: silently applying it made
        # test="t" the corrected test
        raise InvalidArgumentError(
            f"test_fraction= applies to test='corrected_t' and test='bayes' only, not test={test!r}"
        )
    if (low, high) != (0.0, 0.0) and test != "bayes":
        # only the Bayesian test has a region of practical equivalence: the t-tests dropped it
        # without a word, so --rope 0.01 under the default corrected_t looked like it had been used
        raise InvalidArgumentError(f"rope={rope!r} applies to test='bayes' only, not test={test!r}")
    if test_fraction is not None:
        checked = as_real(test_fraction, "test_fraction=")
        if not 0.0 < checked < 1.0:
            raise InvalidArgumentError(f"test_fraction= must lie in (0, 1), got {test_fraction!r}")
        test_fraction = checked
    as_count(chunk_rows, "chunk_rows=")
    fm = fold_matrix(
        data, run, fold, repeat, measure, label=label, prediction=prediction, drop_nulls=drop_nulls
    )
    n_runs, n_cells = fm.values.shape
    if n_runs < 2:
        raise InvalidArgumentError(f"a comparison needs at least 2 runs, got {n_runs}")
    if test == "5x2cv" and (fm.n_repeats, fm.n_folds) != (5, 2):
        raise InvalidArgumentError(
            f"test='5x2cv' needs 5 repeats of 2 folds, got {fm.n_repeats} repeats of {fm.n_folds} folds"
            + ("" if repeat is not None else " (give repeat=)")
        )
    if test_fraction is not None:
        ratio = float(test_fraction) / (1.0 - float(test_fraction))
    elif test in ("corrected_t", "bayes"):
        if fm.n_folds < 2:
            raise InvalidArgumentError(
                f"k-fold cross-validation needs at least 2 folds per repeat, got {fm.n_folds}; "
                "for repeated hold-out splits give test_fraction="
            )
        ratio = 1.0 / (fm.n_folds - 1)
    else:
        ratio = 0.0
    means = fm.values.mean(axis=1)
    if pairs == "reference":
        ref = (
            reference_row(fm.runs, reference)
            if reference is not None
            else int(np.argmax(means if higher_is_better else -means))
        )
        a = np.delete(np.arange(n_runs), ref)
        b = np.full(len(a), ref)
    else:
        # R(R − 1)/2 rows: 100,000 runs are 5e9 comparisons, which filled memory before any was made
        n_pairs = n_runs * (n_runs - 1) // 2
        key_bytes = 2 * fm.runs.estimated_size() / n_runs
        check_allocation(
            int(n_pairs * (PAIR_ROW_BYTES + key_bytes)),
            f"pairs='all' of {n_runs:,} runs ({n_pairs:,} comparisons)",
            "compare with one reference (pairs='reference') or fewer runs",
        )
        a, b = np.triu_indices(n_runs, 1)
    stat = _statistics(fm, means, a, b, test, ratio, low, high, chunk_rows)
    ref_keys = fm.runs[b]
    out = pl.concat(
        [fm.runs[a], ref_keys.rename({c: f"reference_{c}" for c in ref_keys.columns})],
        how="horizontal",
    )
    columns = [pl.Series("n_folds", np.full(len(a), n_cells), dtype=pl.Int64)]
    columns += [pl.Series(k, v, dtype=pl.Float64) for k, v in stat.items()]
    out = out.hstack(columns)
    if test != "bayes":
        out = out.with_columns(adjust(out.get_column("p_value"), "holm").alias("p_holm"))
    return out


#: Bytes a comparison of ``pairs="all"`` holds beside its run keys: its two row indices and the
#: result's 10 float and 1 integer columns (with a copy each as the result is assembled).
PAIR_ROW_BYTES = 16 + 2 * 8 * 11

#: The columns :func:`compare` adds beside the run keys and ``reference_<key>`` (any test's).
RESULT_COLUMNS = ("n_folds", "mean_run", "mean_reference", "mean_diff", "sd_diff", "se", "t", "df", "p_value",
                  "p_holm", "p_left", "p_rope", "p_right")  # fmt: skip


def _statistics(fm: FoldMatrix, means: np.ndarray, a: np.ndarray, b: np.ndarray, test: str, ratio: float,
                low: float, high: float, chunk_rows: int) -> dict[str, np.ndarray]:  # fmt: skip
    from scipy import special  # imported when used: scipy is a third of importing batcheval

    n = len(a)
    j = fm.values.shape[1]
    names = ["mean_run", "mean_reference", "mean_diff", "sd_diff", "se"]
    names += ["p_left", "p_rope", "p_right"] if test == "bayes" else ["t", "df", "p_value"]
    out = {k: np.empty(n) for k in names}
    out["mean_run"] = means[a]
    out["mean_reference"] = means[b]
    values = readonly(np.ascontiguousarray(fm.values))
    # no pair's differences can be flat (below) with an sd above the rounding of the largest value:
    # one bound for all, so that the exact scale of a pair is read only for the few below it (a
    # scale per pair in diff_moments' pass kept its loop from vectorising: 12 -> 30 ms over
    # 100,000 runs × 100 folds)
    bound = np.finfo(float).eps * max(float(values.max()), -float(values.min())) if values.size else 0.0
    step = int(chunk_rows)
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        # the moments of the differences in one pass over the two runs' rows, equal to numpy's
        # d.mean(axis=1) and d.var(axis=1, ddof=1) of d = values[a] − values[b]
        mean = np.empty(hi - lo)
        var = np.empty(hi - lo)
        _rank_kernels.diff_moments(values, a[lo:hi], b[lo:hi], mean, var)
        out["mean_diff"][lo:hi] = mean
        out["sd_diff"][lo:hi] = np.sqrt(var)
        if test == "5x2cv":
            d = values[a[lo:hi]] - values[b[lo:hi]]
            per = d.reshape(hi - lo, fm.n_repeats, fm.n_folds)
            s2 = ((per - per.mean(axis=2, keepdims=True)) ** 2).sum(axis=2)
            se = np.sqrt(s2.mean(axis=1))
            with np.errstate(divide="ignore", invalid="ignore"):
                t = d[:, 0] / se
            df = 5.0
        else:
            se = np.sqrt(var * (1.0 / j + ratio))
            with np.errstate(divide="ignore", invalid="ignore"):
                t = mean / se
            df = j - 1.0
        # J equal differences have no spread to test: an sd within one unit of the rounding of the
        # pair's values (eps·max|value| of its two runs) is that rounding (identical runs gave
        # t = 0/0 = NaN, a constant shift t = 1e16 and p = 1e-79)
        rounding = np.zeros(hi - lo)
        low_sd = np.flatnonzero(np.sqrt(var) <= bound)
        if low_sd.size:
            pair = lo + low_sd
            rounding[low_sd] = np.finfo(float).eps * np.maximum(
                np.abs(values[a[pair]]).max(axis=1), np.abs(values[b[pair]]).max(axis=1)
            )
        flat = np.sqrt(var) <= rounding
        same = flat & (np.abs(mean) <= rounding)
        se = np.where(flat, 0.0, se)
        out["se"][lo:hi] = se
        if test == "bayes":
            # scipy.stats.t's cdf and sf are stdtr(df, ±x) behind argument checks (an eighth more
            # time over 100,000 runs); the values are the same
            with np.errstate(divide="ignore", invalid="ignore"):
                z_low, z_high = (low - mean) / se, (high - mean) / se
                left = special.stdtr(df, z_low)
                right = special.stdtr(df, -z_high)
                # the mass between the bounds as a difference of one tail, the one they both lie in
                # (1 − left − right left −5.6e-17 for rope=0, whose mass is exactly 0); in range
                # although stdtr rounds, and the three still sum to 1 within rounding
                rope_mass = np.where(
                    z_low > 0, special.stdtr(df, -z_low) - right, special.stdtr(df, z_high) - left
                )
            # a posterior of zero width sits on the mean (as in baycomp)
            flat = se == 0
            left = np.where(flat, (mean < low).astype(float), left)
            right = np.where(flat, (mean > high).astype(float), right)
            rope_mass = np.where(flat, ((low <= mean) & (mean <= high)).astype(float), rope_mass)
            out["p_left"][lo:hi] = left
            out["p_right"][lo:hi] = right
            out["p_rope"][lo:hi] = np.clip(rope_mass, 0.0, 1.0)
        else:
            t = np.where(same, 0.0, np.where(flat, np.copysign(np.inf, mean), t))
            out["t"][lo:hi] = t
            out["df"][lo:hi] = df
            p = 2.0 * special.stdtr(df, -np.abs(t))
            # a constant difference: the exact sign test's p, all J signs alike (the smallest p of
            # any test of J folds' signs or ranks), not a t-test's 0; identical runs: 1
            p = np.where(flat, min(1.0, 2.0 * 0.5**j), p)
            if test == "5x2cv":
                # each repeat's two differences equal (s² = 0) while the J differences are not:
                # Dietterich's t divides by 0 (t = ±inf and p = 0 for repeats shifted by 0.1,
                # −0.2, 0.05, −0.1 and 0.3, where the corrected t gives 0.88); the exact
                # sign-flip test of the J differences' mean instead, as a constant one takes its
                # own. A rounding-level s² is that rounding, as for the flat rows.
                unspread = ~flat & (se <= np.finfo(float).eps * np.maximum(bound, np.abs(d).max(axis=1)))
                if unspread.any():
                    p[unspread] = sign_flip_mean_p(d[unspread])
                    out["t"][lo:hi][unspread] = np.nan
            out["p_value"][lo:hi] = np.where(same, 1.0, p)
    return out


def sign_flip_mean_p(d: np.ndarray) -> np.ndarray:
    """Two-sided p-value of the exact sign-flip (paired randomisation) test of each row's mean
    difference: the share of the ``2^J`` sign patterns whose ``|Σ ± d|`` reaches the observed
    ``|Σ d|`` (within rounding). J of at most 20 (the 5x2cv's 10).

    Examples
    --------
    Ten differences of one sign: only the observed and the fully flipped pattern reach it.

    >>> sign_flip_mean_p(np.full((1, 10), 0.1)).tolist() == [2 / 2**10]
    True
    >>> d = np.repeat([0.1, -0.2, 0.05, -0.1, 0.3], 2)[None, :]  # each repeat's two differences equal
    >>> sign_flip_mean_p(d).round(4).tolist()
    [0.666]
    """
    d = np.asarray(d, dtype=np.float64)
    j = d.shape[1]
    if j > 20:  # pragma: no cover - the callers' J is 10
        raise InvalidArgumentError(f"the exact sign-flip test enumerates 2^J patterns; J = {j} is over 20")
    signs = 1.0 - 2.0 * ((np.arange(2**j)[:, None] >> np.arange(j)[None, :]) & 1)
    sums = np.abs(d @ signs.T)  # [rows, 2^J]
    observed = np.abs(d.sum(axis=1))
    tolerance = 1e-9 * np.abs(d).sum(axis=1)
    return (sums >= (observed - tolerance)[:, None]).mean(axis=1)
