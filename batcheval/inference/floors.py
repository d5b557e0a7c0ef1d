"""The variances under the leaderboard's best set and rank intervals
(:mod:`batcheval.inference.selection`): each run's and each pair's least-favourable
variance, the paired board's influence by cell, and each run's variance split by class.

The smoothed floor
    :func:`smoothed_variance`: the delta-method variance at every table plus one in each
    cell, so that a perfect run (plain variance 0) keeps some spread.

The paired influence by cell
    A paired board's first-order errors ``U[run, example] = (g_r(e) − ḡ_r)/n_r`` depend on an
    example only through the cell it falls in for the run, so they are kept by cell
    (:class:`PairCells`: :func:`cell_values` of each run's table and :func:`board_codes` of the
    board's class pairs; :func:`influence_cells`), over the examples some run scored
    (:func:`scored_examples`), while runs × examples stay within :data:`INFLUENCE_CELLS` and
    runs² × examples within :data:`INFLUENCE_FLOPS` (:func:`over_influence`).

Rates known only to within their intervals
    The leader of many runs is the run whose rates came out luckiest, and
    with about ten examples of a class a lucky rate is an extreme one: all
    ten found, a recall whose plug-in variance is 0. Runs of equal skill
    whose errors fall on different classes (recall 0.9 with false-positive
    rate 0.4 against 0.6 with 0.1) are not exchangeable, so neither the
    floors above nor the sign-flip test help there: the paired best set of
    100-1,000 such runs lost a truly best run in 0.80-1.00 of simulated
    boards (docs/calibration_leader.md, "two error profiles"). Two runs can
    also agree on all ten positives by chance, and their difference's
    paired variance on that class then reads 0. So the normal-theory paths
    take each variance at the least favourable point of the ``ci`` Wilson
    intervals (binomial rates: the end nearest 1/2):

    - unpaired boards (the Gaussian max-t, over 316 runs), each run's
      variance at its table with every real class's row moved towards even
      (:func:`least_favourable_table`, :func:`least_favourable_variance`);
    - paired boards (the influence matrix's max-t), each pair's
      difference's variance at least ``Σ_k m_k·Var(U_j − U_i)`` at the pair's
      joint table of predictions on class k moved towards ``1/K²`` a cell
      (:func:`pair_floor`; K classes cost ``(K − 1)²`` matrix products a
      class and ``K²`` cells a pair);
    - paired boards compared with the leader only, the same for each run and
      the leader (:func:`leader_floor`, from the joint tables alone): the
      sign-flip measures keep a run only if either the sign-flip bound or
      the normal tail of that variance (through the same bounds) keeps it
      (:func:`~batcheval.inference.selection.versus_leader_sign_flip`).

    A move stops where the first cell reaches the end of its interval, so
    the variance grows less as the classes grow (with 200 examples a class
    and rates near 0.85, 15-30 % for a run, less for a pair: the price in
    power is in the docs); the studentized bootstrap of modest boards
    (:mod:`batcheval.inference.board_bootstrap`), which held the level on
    that design, is unchanged.

The variance by class
    :func:`class_parts` splits each run's delta variance over its real classes, and
    :func:`example_classes` gives each example's real class: the parts whose
    Welch–Satterthwaite degrees of freedom the max-t statistics read
    (:mod:`batcheval.inference.selection`, "Few examples behind a variance").
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..kernels import delta as _delta_k
from ..kernels import selection as _k
from ..kernels.jit import readonly
from . import intervals as _intervals
from . import ratios as _ratios

__all__ = [
    "FLOOR_TABLE_CELLS",
    "INFLUENCE_CELLS",
    "INFLUENCE_FLOPS",
    "PairCells",
    "board_codes",
    "cell_values",
    "class_parts",
    "example_classes",
    "influence_cells",
    "leader_floor",
    "least_favourable_table",
    "least_favourable_variance",
    "over_influence",
    "pair_floor",
    "scored_examples",
    "smoothed_variance",
]  # fmt: skip


#: the paired influence matrix U (runs × examples float64) up to this many cells
INFLUENCE_CELLS = 25_000_000
#: and its covariance U Uᵀ up to this many multiply-adds
INFLUENCE_FLOPS = 4_000_000_000


def smoothed_variance(counts: np.ndarray, measure: str, pos: int) -> np.ndarray | None:
    """The delta-method variance of ``measure`` at every table plus one in each
    cell (Agresti & Caffo 2000 for informedness, a difference of two
    proportions), or None for a measure without a delta-method gradient.

    Examples
    --------
    A perfect classifier's plain delta variance is 0; this one is not:

    >>> smoothed_variance(np.array([[[10, 0], [0, 10]]]), "informedness", 1).round(5).tolist()
    [0.01273]
    """
    if measure not in _intervals.interval_measures(np.shape(counts)[1], "wilson_delta"):
        return None
    counts = np.asarray(counts)
    if measure in _intervals.DELTA_MEASURES and counts.dtype.kind in "iu":
        # one in each cell added as the kernel reads it (float(c) + 1.0 is float(c + 1) below
        # 2**53), not by a copy of the tables; the root and its square as standard_errors gives them
        var = _intervals.delta_variance(counts, measure, extra=1.0)
        se = np.sqrt(var)
        return se * se
    se = _intervals.table_standard_errors(counts + 1, [measure], pos)[measure]
    return se * se


def least_favourable_table(counts: np.ndarray, level: float) -> np.ndarray:
    """Every table with each real-class row moved towards even (``1/K`` a cell), as far as
    every cell's Wilson interval at ``level`` allows; the rows keep their sizes.

    A row's rates are known to within their interval, and a binomial rate's variance
    ``p(1 − p)`` grows towards 1/2, so this is the table of the largest row-wise variance
    that the data cannot rule out (for two classes exactly: each rate goes to the end of
    its interval nearest 1/2, or to 1/2 where the interval holds it).

    Examples
    --------
    Ten positives all found: the recall moves to Wilson's lower end, 10/(10 + z²) = 0.7225,
    and the negatives' false-positive rate of 1/9 up to its upper end, 0.193:

    >>> least_favourable_table(np.array([[[80, 10], [0, 10]]]), 0.95).round(3).tolist()
    [[[72.668, 17.332], [2.775, 7.225]]]
    """
    c = _intervals.kernel_counts(counts)
    out = np.empty(c.shape)
    # a kernel, row by row: numpy's Wilson ends of every cell held seven [G, K, K] temporaries
    _delta_k.least_favourable_tables(c, _intervals.two_sided_z(level), out)
    return out


def least_favourable_variance(counts: np.ndarray, measure: str, pos: int, level: float) -> np.ndarray | None:
    """The delta-method variance of ``measure`` at :func:`least_favourable_table`, or None
    for a measure without a delta-method gradient (NaN where the measure is undefined on
    the table itself).

    The plain variance reads a run's rates as exact. The leader of many runs is the one
    whose rates came out luckiest, and with a few examples of a class a lucky rate is an
    extreme one (all ten positives found) whose variance reads near 0: a best set built on
    it excludes truly best runs that err on another class (docs/calibration_leader.md,
    "two error profiles"). For rates of the real classes (informedness, recall, fallout)
    this is the largest variance of any rates within the intervals; measures conditioned on
    the predicted classes (precision, markedness) are only moved with the rows, so callers
    keep :func:`smoothed_variance` as a floor too.

    Examples
    --------
    Informedness of a run that found all ten positives: the plain delta variance, then this
    one (the recall's part ``0.7225·0.2775/10`` instead of 0, plus the false-positive
    rate's ``0.193·0.807/90``):

    >>> t = np.array([[[80, 10], [0, 10]]])
    >>> from batcheval.inference.intervals import standard_errors
    >>> round(float(standard_errors(t, ["informedness"])["informedness"][0] ** 2), 5)
    0.0011
    >>> round(float(least_favourable_variance(t, "informedness", 1, 0.95)[0]), 5)
    0.02178
    """
    counts = np.asarray(counts)
    if measure not in _intervals.interval_measures(counts.shape[1], "wilson_delta"):
        return None
    if measure == "informedness" and counts.shape[1] == 2:  # a kernel: 100k tables 70 -> 1 ms
        var = np.empty(len(counts))
        # float counts: a clustered board reads its rows over their repeats (Stop 39)
        table = np.ascontiguousarray(counts, dtype=np.float64)
        _k.least_favourable_informedness(table, _intervals.two_sided_z(level) ** 2, var)
        return var
    if measure in _intervals.DELTA_MEASURES:  # a kernel, table by table, without the gradient's arrays
        var = np.empty(len(counts))
        if len(counts):
            code, z = _intervals.CHANCE_CODES[measure], _intervals.two_sided_z(level)
            _delta_k.least_favourable_chance(_intervals.kernel_counts(counts), code, z, var)
        return var
    # the delta variance from the gradient, not standard_errors: a clustered board's tables
    # hold rows over their repeats, which are not whole counts (Stop 39)
    here = _intervals.cells_last(np.asarray(counts, dtype=np.float64))
    g, undefined = _intervals.gradient_cells_last(here, measure, positive=pos)
    plain = np.where(undefined, np.nan, _intervals.gradient_variance(here, g))
    moved = _intervals.cells_last(least_favourable_table(counts, level))
    g, _ = _intervals.gradient_cells_last(moved, measure, positive=pos)
    var = _intervals.gradient_variance(moved, g)
    return np.where(np.isnan(plain), np.nan, np.fmax(var, plain))


class PairCells(NamedTuple):
    """A paired board's influence by cell: ``values[run, 1 + real·K + predicted]`` is the
    ``U`` of any example in that cell (column 0, and every column of an undefined run's
    row: 0 or NaN as in :func:`cell_values`), ``codes[run, example]`` each example's cell (0:
    not scored), ``k`` the board's classes (codes as :func:`board_codes` gives them).
    ``U = take_along_axis(values, codes)``; a pair's
    :func:`pair_floor` reads the two runs' joint cells from ``codes``."""

    values: np.ndarray
    codes: np.ndarray
    k: int


def influence_cells(
    cells: Any, counts: np.ndarray, measure: str, pos: int, scored: np.ndarray | None = None
) -> PairCells | None:
    """The influence matrix ``U[run, example]`` by cell (:class:`PairCells`), from a dense
    board's cells (the leaderboard's :class:`~batcheval.inference.comparisons.Cells`), or None
    when the board is too large (:data:`INFLUENCE_CELLS`, :data:`INFLUENCE_FLOPS`). ``U`` is
    each run's first-order error term per example, ``(g_r(e) − ḡ_r)/n_r``; a run's ``Σ_e U²``
    is its delta-method variance, and undefined gradients give NaN rows.
    ``scored``: only these of the cells' examples (:func:`scored_examples`), whose number the
    budget counts."""
    g = len(cells.rows)
    if over_influence(g, int(cells.n_examples) if scored is None else int(np.count_nonzero(scored))):
        return None
    # the board's classes as the tables keep them (labels -1/+1 or 0/3 leave unused codes between)
    codes = board_codes(cells, scored).astype(np.intp)
    return PairCells(cell_values(counts, measure, pos), codes, len(cells.class_codes))


def over_influence(runs: int, examples: int) -> bool:
    """Whether a runs × examples influence matrix is over its budget (:data:`INFLUENCE_CELLS`,
    :data:`INFLUENCE_FLOPS`).

    Examples
    --------
    >>> over_influence(100, 250_000), over_influence(100, 250_001)
    (False, True)
    """
    return runs * examples > INFLUENCE_CELLS or runs * runs * examples > INFLUENCE_FLOPS


def scored_examples(cells: Any, counts: np.ndarray) -> np.ndarray | None:
    """The examples some run of a dense board scored, as a mask over its cells' examples (None:
    every one, or a board whose largest run alone puts it over the influence budget: ``counts``
    are the runs' tables, one count per example a run scored, so a run's total is at most the
    scored examples).

    An example no run scored (a gap in the ids; an end of a range guessed from a sample,
    ``comparisons.count_board``) adds nothing to a run's influence but would take normal draws
    and count towards the budget: the paired best set leaves those out, so that it does not
    depend on how the examples are numbered.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> cells = SimpleNamespace(cells=np.array([1, 0, 4, 0, 0, 2, 0, 0], np.int8), n_examples=4,
    ...                         rows=np.array([0, 1]))
    >>> scored_examples(cells, np.array([[[1, 0], [0, 1]], [[0, 1], [0, 0]]])).tolist()
    [True, True, True, False]
    """
    most = int(np.asarray(counts).sum(axis=(1, 2)).max(initial=0))
    if over_influence(len(cells.rows), most):
        return None
    codes = np.asarray(cells.cells).reshape(-1, int(cells.n_examples))[np.asarray(cells.rows)]
    some = (codes != 0).any(axis=0)
    return None if some.all() else some


def pair_floor(cells: PairCells, level: float) -> Any:
    """A function of the runs' indices giving a function of a block of rows: every pair's
    least-favourable variance of their difference ``θ̂_j − θ̂_i`` (``[len(rows), R]``), or with
    ``pairs=(i, j)`` only those pairs' (``_FloorBlocks``), for any number of classes.

    The paired variance of a difference, ``Σ_e (U_j(e) − U_i(e))²``, is read from the
    examples on which the two runs disagree; in a class of ten examples two runs that err
    differently often happen to agree on all ten, and the difference's variance on that
    class then reads 0 (docs/calibration_leader.md, "two error profiles"). So, per real
    class, the pair's K×K joint table of predictions is moved towards even (``1/K²`` a cell)
    within every cell's Wilson interval at ``level`` (:func:`least_favourable_table`'s move),
    and the class's variance of ``U_j − U_i`` is taken there: ``Σ_k m_k·Var_π*(d)``. Two
    classes take one float32 matrix product a class; K classes ``(K − 1)²`` a class, on the
    class's examples only, and a kernel over ``K²`` cells a pair
    (docs/calibration_leader.md, "Stop 39").

    Examples
    --------
    Two runs that agree on all ten positives and all ninety negatives; the plain paired
    variance of their difference is 0:

    >>> values = np.array([[0.0, 0.0, -0.001, -0.01, 0.0]] * 2)  # cells 1 + real·2 + predicted
    >>> codes = np.array([[1] * 90 + [4] * 10] * 2)
    >>> floor = pair_floor(PairCells(values, codes, 2), 0.95)(np.arange(2))
    >>> float(floor(slice(0, 1))[0, 1]) > 0
    True

    Three classes, the same agreement on every example:

    >>> values = np.zeros((2, 10)); values[:, 1:] = [0.01, -0.002, -0.002, -0.004, 0.008, -0.004,
    ...                                             -0.03, -0.03, 0.01]
    >>> codes = np.array([[1] * 45 + [5] * 45 + [9] * 10] * 2)
    >>> floor = pair_floor(PairCells(values, codes, 3), 0.95)(np.arange(2))
    >>> float(floor(slice(0, 1))[0, 1]) > 0
    True
    """
    z2 = _intervals.two_sided_z(level) ** 2
    codes = cells.codes
    k = cells.k

    def of(idx: np.ndarray) -> Any:
        sub = codes[idx]
        vals = cells.values[idx]
        parts = [part for real in range(k) if (part := _class_cells(sub, real, k)) is not None]
        return _FloorBlocks(parts, vals, k, z2)

    return of


def _class_cells(sub: np.ndarray, real: int, k: int) -> tuple | None:
    """Real class ``real``'s part of a K-class :func:`pair_floor`: on the examples some run saw
    in that class, each predicted class's 0/1 matrix (float32) and whether every run scored
    every one of them; None for a class no run saw."""
    base = 1 + real * k
    inside = (sub >= base) & (sub < base + k)
    cols = np.flatnonzero(inside.any(axis=0))
    if not len(cols):
        return None
    here = sub[:, cols]
    ones = [(here == base + c).astype(np.float32) for c in range(k)]
    return real, ones, bool(inside[:, cols].all())


#: a K-class pair floor's joint counts (float32, ``(K − 1)²`` or ``K²`` a pair) up to this many at once
FLOOR_TABLE_CELLS = 8_000_000


def cell_values(counts: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """Each run's ``U`` by cell, ``values[run, 1 + real·K + predicted] = (g − ḡ)/n`` from its
    table alone (column 0 is 0; NaN rows where the gradient is undefined): the values of
    :class:`PairCells` for a board without an influence matrix."""
    g, k = np.shape(counts)[:2]
    if _ratios.is_ratio(measure, k):  # the gradient of the log ratio (inference/ratios.py)
        return _ratios.cell_values(counts, measure, pos)
    if measure == "informedness" and k == 2:  # the gradient in closed form: 100k tables 20 -> 1 ms
        values = np.empty((g, 5))
        _k.informedness_cell_values(readonly(np.ascontiguousarray(counts)), values)
        return values
    counts = np.asarray(counts, dtype=np.float64)
    grad, undefined = _intervals.delta_gradient(counts, measure, positive=pos)
    n = counts.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (counts * grad).sum(axis=(1, 2)) / n
        values = np.zeros((g, k * k + 1))
        values[:, 1:] = (grad.reshape(g, k * k) - mean[:, None]) / n[:, None]
    values[undefined | (n == 0)] = np.nan
    return values


def leader_floor(
    joint: np.ndarray, values: np.ndarray, leader: int, level: float, rows: np.ndarray | None = None
) -> np.ndarray:
    """Each run's least-favourable paired variance of its difference with the leader
    (:func:`pair_floor`'s, for one pair a run), from the joint tables
    ``joint[g, real, leader's prediction, g's prediction]`` and :func:`cell_values`, for the
    runs ``rows`` (default: every run), for any number of classes.

    Examples
    --------
    A run that agrees with the leader on all ten positives and all ninety negatives:

    >>> joint = np.zeros((2, 2, 2, 2)); joint[:, 0, 0, 0] = 90; joint[:, 1, 1, 1] = 10
    >>> values = cell_values(np.array([[[90, 0], [0, 10]]] * 2), "informedness", 1)
    >>> round(float(leader_floor(joint, values, 0, 0.95)[1]), 4)
    0.0188
    """
    rows = np.arange(len(joint)) if rows is None else np.asarray(rows, dtype=np.int64)
    out = np.empty(len(rows))
    z2 = _intervals.two_sided_z(level) ** 2
    _k.leader_floor(np.ascontiguousarray(joint), np.ascontiguousarray(values, dtype=np.float64), int(leader),
                    rows, z2, out)  # fmt: skip
    return out


class _FloorBlocks:
    """:func:`pair_floor`'s function of a block of rows: ``floor(rows)`` is every pair's floor
    (``[len(rows), R]``), ``floor(rows, (i, j))`` that of the pairs ``(rows.start + i, j)``
    only. Per real class (:func:`_class_cells`' parts) the pairs' joint counts are float32
    products (exact sums of 0/1 below 2**24 examples), built in sub-blocks of
    :data:`FLOOR_TABLE_CELLS` and kept for the next call on the same rows while they fit in
    four, as :func:`~batcheval.inference.selection._pairs_t` asks twice."""

    def __init__(self, parts: list, vals: np.ndarray, k: int, z2: float) -> None:
        self.vals, self.k, self.z2 = vals, k, z2
        # per class: its runs' U by prediction, and (dense: the table's last row and column) each
        # run's count of each prediction
        self.parts = [
            (real, ones, dense, np.ascontiguousarray(vals[:, 1 + real * k : 1 + (real + 1) * k]),
             np.array([o.sum(axis=1, dtype=np.float64) for o in ones]))
            for real, ones, dense in parts
        ]  # fmt: skip
        self.rows: tuple[int, int] | None = None
        self.kept: dict = {}
        # A class's part is m·Var(d) of d_ab = U_j[b] − U_i[a] over a distribution on the
        # cells, so at most m·(ρ_i + ρ_j)²/4 with ρ a run's range of U on the class (Popoviciu)
        # and m at most the class's examples; summed over classes (Minkowski) the floor is at
        # most (sd_bound[i] + sd_bound[j])². NaN where a run's U is.
        square = np.zeros(len(vals))
        for _, ones, _, u, _ in self.parts:
            square += ones[0].shape[1] * (u.max(axis=1) - u.min(axis=1)) ** 2 / 4.0
        self.sd_bound = np.sqrt(square)

    def __call__(self, rows: slice, pairs: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        k, r, nb = self.k, len(self.vals), rows.stop - rows.start
        i, j = np.divmod(np.arange(nb * r), r) if pairs is None else pairs
        if self.rows != (rows.start, rows.stop):
            self.rows, self.kept = (rows.start, rows.stop), {}
        out = np.zeros(len(i))
        keep = sum((k - 1 if part[2] else k) ** 2 for part in self.parts) * nb * r
        for real, ones, dense, u, own in self.parts:
            last = k - 1 if dense else k
            step = max(1, FLOOR_TABLE_CELLS // (r * last * last))
            for lo in range(rows.start, rows.stop, step):
                hi = min(rows.stop, lo + step)
                here = (i >= lo - rows.start) & (i < hi - rows.start)
                if not here.any():
                    continue
                prod = self.kept.get((real, lo))
                if prod is None:
                    prod = np.empty((last * last, hi - lo, r), dtype=np.float32)
                    for a in range(last):
                        for b in range(last):
                            np.matmul(ones[a][lo:hi], ones[b].T, out=prod[a * last + b])
                    if keep <= 4 * FLOOR_TABLE_CELLS:
                        self.kept[(real, lo)] = prod
                part = np.zeros(int(here.sum()))
                sel = np.flatnonzero(here)
                _k.pair_floor_add(prod, own, dense, lo, i[sel] - (lo - rows.start), j[sel], u, self.z2, part)
                out[sel] += part
        return out.reshape(nb, r) if pairs is None else out


def board_codes(cells: Any, scored: np.ndarray | None = None) -> np.ndarray:
    """Each run's class pair per example ``[R, E]`` of a dense board (the leaderboard's
    :class:`~batcheval.inference.comparisons.Cells`): 0 where the run did not score
    the example, else ``1 + real·K + predicted`` over the board's K classes; with
    ``scored`` (:func:`scored_examples`), of those examples only."""
    k = int(cells.k)
    kk = len(cells.class_codes)
    where = np.full(k, -1, dtype=np.int64)
    where[np.asarray(cells.class_codes)] = np.arange(kk)
    raw = np.asarray(cells.cells).reshape(-1, int(cells.n_examples))[np.asarray(cells.rows)]
    if scored is not None:  # C order, as without: the products of U (BLAS) round by layout
        raw = np.ascontiguousarray(raw[:, scored])
    raw = raw.astype(np.int64)
    real, pred = where[np.maximum(raw - 1, 0) // k], where[np.maximum(raw - 1, 0) % k]
    return np.where(raw > 0, 1 + real * kk + pred, 0).astype(np.int8)


def class_parts(counts: np.ndarray, measure: str, pos: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Each run's delta variance split by real class, ``v[r, k] = Σ_p c[r,k,p] (g[r,k,p] −
    ḡ[r,k])² / n_r²`` (the within-class spread of the gradient), and the class sizes: the
    parts whose Welch–Satterthwaite degrees of freedom
    :func:`~batcheval.inference.selection.unpaired` uses. None for a measure without a
    delta-method gradient.

    Examples
    --------
    For informedness the parts are ``tpr(1 − tpr)/P`` and ``fpr(1 − fpr)/N``:

    >>> v, n = class_parts(np.array([[[30, 10], [5, 15]]]), "informedness", 1)
    >>> v.round(5).tolist(), n.tolist()
    ([[0.00469, 0.00937]], [[40, 20]])
    """
    if measure not in _intervals.interval_measures(np.shape(counts)[1], "wilson_delta"):
        return None
    c = np.asarray(counts, dtype=np.float64)
    if c.shape[1] == 2:  # a kernel instead of ten [G, 2, 2] temporaries: 30 -> 9 ms for 100k runs
        grad, _ = _intervals.gradient_cells_last(_intervals.cells_last(c), measure, positive=pos)
        v, n_k = np.empty((len(c), 2)), np.empty((len(c), 2), dtype=np.int64)
        _k.binary_class_parts(np.ascontiguousarray(counts), grad, v, n_k)
        return v, n_k
    if measure in _intervals.DELTA_MEASURES:  # a kernel, table by table, without the gradient's arrays
        v = np.empty(c.shape[:2])
        if len(c):
            _delta_k.chance_class_parts(_intervals.kernel_counts(counts), _intervals.CHANCE_CODES[measure], v)
        return np.nan_to_num(v), c.sum(axis=2).astype(np.int64)
    grad, _ = _intervals.delta_gradient(c, measure, positive=pos)
    n_k = c.sum(axis=2)
    n = n_k.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (c * grad).sum(axis=2) / n_k
        v = (c * (grad - mean[:, :, None]) ** 2).sum(axis=2) / (n * n)[:, None]
    return np.nan_to_num(v), n_k.astype(np.int64)


def example_classes(cells: Any, scored: np.ndarray | None = None) -> np.ndarray:
    """The real class code of every example of a dense board (-1: no run scored it),
    from :class:`~batcheval.inference.comparisons.Cells`; with ``scored``, of those examples."""
    codes = np.asarray(cells.cells).reshape(-1, int(cells.n_examples))[np.asarray(cells.rows)]
    if scored is not None:
        codes = codes[:, scored]
    real = np.where(codes > 0, (codes.astype(np.int64) - 1) // cells.k, -1)
    return real.max(axis=0)
