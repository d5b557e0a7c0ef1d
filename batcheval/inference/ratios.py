"""The leaderboard's comparisons of unbounded ratio measures (``odds_ratio``, ``lr_plus``,
``lr_minus``), made on the log scale.

On the raw scale a ratio's delta-method (or bootstrap) standard error grows with the ratio
itself: a leader of odds ratio 29 had a bootstrap standard error near 39, so a run that got
every prediction wrong (odds ratio 0, interval [0, 0.0009]) was 0.75 standard errors behind it,
``p_vs_leader`` 0.45 and in the best set. The log is monotone, so it keeps the ranking, and
its standard error does not grow with the ratio: the tests, the best set and the rank
intervals of these measures read each run's log ratio of its table plus
:data:`RATIO_PSEUDO` (one half, Haldane 1956 and Anscombe 1956; the same half an example per
cell that the smoothed bootstrap of their interval columns resamples from,
:func:`batcheval.inference.intervals.bootstrap_pseudo_count`), so that a ratio of 0 has a
finite log, and its delta-method variance on that table:

- ``odds_ratio``, ``log(tp·tn/(fp·fn))``: Woolf's (1955) ``1/tp + 1/fn + 1/fp + 1/tn``;
- ``lr_plus``, ``log(recall/fallout)``: ``1/tp − 1/(tp + fn) + 1/fp − 1/(fp + tn)``
  (Simel, Samsa & Matchar 1991);
- ``lr_minus``, ``log(miss_rate/inverse_recall)``: ``1/fn − 1/(tp + fn) + 1/tn − 1/(fp + tn)``;

every cell counted with its half. A run whose ratio is undefined (NaN: ``odds_ratio`` where
``fp·fn = 0``, ``lr_plus`` where fallout is 0, ``lr_minus`` where inverse recall is 0,
docs/measures.md) stays undefined: no rank, no test. The displayed value, its interval and
``diff_vs_leader`` stay on the measure's own scale.

Paired runs (``example=``): the difference of the two log ratios on their joint table plus
``RATIO_PSEUDO/2`` in each of its eight cells (each run's own table then holds the half per
cell), with the delta method's variance ``Σ J̃ (a_run[y, p] − a_ref[y, l])²``, ``a`` each
run's gradient by count (:func:`count_gradient`); the p-value is the larger of its normal
one and the mid-p swap test, as for the other binary measures
(:func:`batcheval.inference.paired_se.paired_p`). The best set's influence by example is
``a − ā`` of each run's cell (:func:`cell_values`), with each run's pseudo-count part added
as an error of its own.
"""

from __future__ import annotations

import numpy as np

from . import intervals as _intervals
from . import paired_se as _paired_se

__all__ = [
    "RATIO_MEASURES",
    "RATIO_PSEUDO",
    "cell_values",
    "count_gradient",
    "is_ratio",
    "log_ratio",
    "log_variance",
    "paired_log",
    "paired_p",
]  # fmt: skip

#: binary measures whose comparisons are made on the log scale
RATIO_MEASURES = ("odds_ratio", "lr_plus", "lr_minus")
#: examples added to every cell of a run's table before its log ratio and variance: 0.5, the
#: smoothed bootstrap's share for two classes (Haldane–Anscombe)
RATIO_PSEUDO = _intervals.bootstrap_pseudo_count(2)


def is_ratio(measure: str, k: int) -> bool:
    """Whether ``measure`` of a ``k``-class board is compared on the log scale.

    Examples
    --------
    >>> is_ratio("odds_ratio", 2), is_ratio("informedness", 2)
    (True, False)
    """
    return k == 2 and measure in RATIO_MEASURES


def _cells(t: np.ndarray, pos: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    neg = 1 - pos
    return t[..., pos, pos], t[..., pos, neg], t[..., neg, pos], t[..., neg, neg]


def log_ratio(counts: np.ndarray, measure: str, pos: int, value: np.ndarray | None = None) -> np.ndarray:
    """The log of ``measure`` of each table ``counts[G, 2, 2]`` (real class first) plus
    :data:`RATIO_PSEUDO` in every cell; NaN where ``value`` (the measure of the table
    itself) is undefined.

    Examples
    --------
    Every prediction wrong: an odds ratio of 0, a log of ``log(0.5²/10.5²)``:

    >>> round(float(log_ratio(np.array([[[0, 10], [10, 0]]]), "odds_ratio", 1)[0]), 4)
    -6.089
    """
    tp, fn, fp, tn = _cells(np.asarray(counts, dtype=np.float64) + RATIO_PSEUDO, pos)
    if measure == "odds_ratio":
        out = np.log(tp) + np.log(tn) - np.log(fp) - np.log(fn)
    elif measure == "lr_plus":
        out = np.log(tp) - np.log(tp + fn) - np.log(fp) + np.log(fp + tn)
    elif measure == "lr_minus":
        out = np.log(fn) - np.log(tp + fn) - np.log(tn) + np.log(fp + tn)
    else:
        raise ValueError(f"measure {measure!r} is not one of {list(RATIO_MEASURES)}")
    return out if value is None else np.where(np.isnan(value), np.nan, out)


def count_gradient(counts: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """The gradient of :func:`log_ratio` by count, ``a[..., real, predicted]``, at each table
    plus :data:`RATIO_PSEUDO` (``counts[..., 2, 2]``). The log ratio is unchanged by scaling
    the table, so ``Σ (c + ½)·a = 0``.

    Examples
    --------
    tn, fp, fn, tp of 2, 4, 2 and 1 with their halves: ``1/tn, −1/fp, −1/fn, 1/tp``.

    >>> count_gradient(np.array([[1.5, 3.5], [1.5, 0.5]]), "odds_ratio", 1).tolist()
    [[0.5, -0.25], [-0.5, 1.0]]
    """
    t = np.asarray(counts, dtype=np.float64) + RATIO_PSEUDO
    tp, fn, fp, tn = _cells(t, pos)
    p, n = tp + fn, fp + tn
    if measure == "odds_ratio":
        a_tp, a_fn, a_fp, a_tn = 1.0 / tp, -1.0 / fn, -1.0 / fp, 1.0 / tn
    elif measure == "lr_plus":
        a_tp, a_fn, a_fp, a_tn = 1.0 / tp - 1.0 / p, -1.0 / p, 1.0 / n - 1.0 / fp, 1.0 / n
    elif measure == "lr_minus":
        a_tp, a_fn, a_fp, a_tn = -1.0 / p, 1.0 / fn - 1.0 / p, 1.0 / n, 1.0 / n - 1.0 / tn
    else:
        raise ValueError(f"measure {measure!r} is not one of {list(RATIO_MEASURES)}")
    neg = 1 - pos
    a = np.empty_like(t)
    a[..., pos, pos], a[..., pos, neg], a[..., neg, pos], a[..., neg, neg] = a_tp, a_fn, a_fp, a_tn
    return a


def log_variance(counts: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """The delta-method variance of :func:`log_ratio`, ``Σ (c + ½)·a²`` over the four cells:
    Woolf's ``Σ 1/(c + ½)`` for the odds ratio.

    Examples
    --------
    >>> round(float(log_variance(np.array([[[0, 10], [10, 0]]]), "odds_ratio", 1)[0]), 4)  # 2/0.5 + 2/10.5
    4.1905
    """
    c = np.asarray(counts, dtype=np.float64)
    a = count_gradient(c, measure, pos)
    return ((c + RATIO_PSEUDO) * a * a).sum(axis=(-2, -1))


def paired_log(joint: np.ndarray, measure: str, pos: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's difference of log ratios (run − reference) and its delta-method standard
    error, from the joint tables ``joint[G, real, reference's prediction, run's prediction]``
    plus ``RATIO_PSEUDO/2`` in each cell (see the module docstring). Both are finite for any
    table with examples of both classes.

    Examples
    --------
    Runs that agree on every example: no difference, and the spread of the pseudo-counts'
    disagreements alone, ``4 · ¼ · (1/8.5 + 1/2.5)²`` under the root.

    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> joint[0, 1, 1, 1], joint[0, 0, 0, 0], joint[0, 1, 0, 0], joint[0, 0, 1, 1] = 8, 8, 2, 2
    >>> d, se = paired_log(joint, "odds_ratio", 1)
    >>> float(d[0]), round(float(se[0]), 4)
    (0.0, 0.5176)
    """
    j = np.asarray(joint, dtype=np.float64)
    run, ref = j.sum(axis=2), j.sum(axis=3)  # real × run's prediction, real × reference's
    a_run = count_gradient(run, measure, pos)
    a_ref = count_gradient(ref, measure, pos)
    g = a_run[:, :, None, :] - a_ref[:, :, :, None]
    var = ((j + RATIO_PSEUDO / 2) * g * g).sum(axis=(1, 2, 3))
    return log_ratio(run, measure, pos) - log_ratio(ref, measure, pos), np.sqrt(var)


def paired_p(joint: np.ndarray, measure: str, pos: int, diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p-value of each paired comparison of a ratio measure, and the standard error of its
    log difference: the larger of ``2·Φ(−|d|/se)`` (:func:`paired_log`, never below
    :func:`~batcheval.inference.paired_se.swap_floor`) and the mid-p swap test where it is
    enumerated; NaN where ``diff`` (the raw difference) is undefined.

    Examples
    --------
    Fifty positives and fifty negatives; the run is right on 40 examples the reference gets
    wrong, the reference on 4 the run gets wrong (the swap test: 1.2e-08).

    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> joint[0, 1, 0, 1] = joint[0, 0, 1, 0] = 20
    >>> joint[0, 1, 1, 0] = joint[0, 0, 0, 1] = 2
    >>> joint[0, 1, 1, 1] = joint[0, 0, 0, 0] = 28
    >>> p, se = paired_p(joint, "odds_ratio", 1, np.array([1.0]))
    >>> f"{float(p[0]):.3g}", round(float(se[0]), 4)
    ('1.06e-06', 1.0526)
    """
    from scipy import special

    d, se = paired_log(joint, measure, pos)
    with np.errstate(divide="ignore", invalid="ignore"):
        normal = special.erfc(np.abs(d) / se / np.sqrt(2.0))
    normal = np.where(d == 0, 1.0, np.maximum(normal, _paired_se.swap_floor(joint)))
    swap, enumerated = _paired_se.swap_p(joint, measure, pos, mid_p=True)
    p = np.where(enumerated, np.maximum(swap, normal), normal)
    return np.where(np.isnan(diff), np.nan, p), se


def cell_values(counts: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """Each run's influence by cell for the paired best set, ``values[run, 1 + real·2 +
    predicted] = a − ā`` (``ā`` the mean over the run's examples; column 0, not scored, is 0),
    as :func:`batcheval.inference.floors.cell_values` gives other measures'. Its ``Σ_e U²``
    falls short of :func:`log_variance` by the pseudo-counts' part, which the selection adds as
    an error of the run's own.

    Examples
    --------
    A perfect run of ten examples a class: its hits carry no influence (``1/10.5`` is their
    mean), a miss would carry ``−1/0.5 − 1/10.5``.

    >>> cell_values(np.array([[[10, 0], [0, 10]]]), "odds_ratio", 1).round(4).tolist()
    [[0.0, 0.0, -2.0952, -2.0952, 0.0]]
    """
    c = np.asarray(counts, dtype=np.float64)
    a = count_gradient(c, measure, pos)
    n = c.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (c * a).sum(axis=(1, 2)) / n
    g = len(c)
    values = np.zeros((g, 5))
    values[:, 1:] = a.reshape(g, 4) - mean[:, None]
    values[n == 0] = np.nan
    return values
