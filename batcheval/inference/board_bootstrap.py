"""The studentized bootstrap of modest boards: replicate boards drawn from a smoothed fit
of the leaderboard's runs, whose maxima give :mod:`batcheval.inference.selection` its
critical values when the board is small enough.

With a few examples of a class per run neither the Gaussian law of the
max-t statistic nor the Student-t correction (:mod:`batcheval.inference.selection`) holds
the level: at 4 positives per run (30 unpaired runs, 40 examples) the best set lost a
truly best run in 0.152 of 400 simulated null boards, nearly always
through a run with no hit among its positives, whose variance is then
estimated at about half its value (docs/calibration_leader.md). So while
``N_BOOT · R²`` (unpaired) or ``N_BOOT · R² · E`` (paired, E examples)
stays within :data:`BOOT_BUDGET`, the replicate tables' ``N_BOOT · R · K²`` cells
within :data:`BOOT_CELLS`, and the measure has a delta-method
variance (:func:`bootable`, :func:`bootstrap_fits`), both critical values come from
:data:`N_BOOT` replicate boards instead (the bootstrap-t; Hall 1992, *The Bootstrap and
Edgeworth Expansion*; Romano & Wolf 2005 for the max over many statistics). Each
replicate is drawn from a smoothed fit of the board
(:func:`bootstrap_law`: every cell plus the adjusted intervals'
pseudo-count, 1 for two classes, so a run with no hit keeps some spread):

- unpaired, each run's real-class rows as multinomials, class sizes fixed
  (:func:`resample_unpaired`);
- paired, the examples of each real class drawn with replacement jointly
  for every run (keeping the runs' dependence), each prediction then
  swapped for a uniform class with the probability that makes every
  run's rows follow the same smoothed law (:func:`resample_paired`).

Every replicate's estimates are centred at the smoothed fit's values
(:func:`expected_value`) and studentized with the replicate's own
variance, computed as the board's is (:func:`unpaired_variance`; paired,
the influence covariance with the
:func:`~batcheval.inference.floors.smoothed_variance` floor), and
the replicates' maxima (:func:`bootstrap_stats`) give the rank intervals'
two-sided critical value and the best set's step-down, with the board's
standardized differences taken as they are (no Student-t correction: the
bootstrap's studentization accounts for the variance's own error). The
method columns then read ``"bootstrap"``. Larger boards, boards of a
measure without a delta-method variance, and boards of more than
:data:`~batcheval.inference.leaderboard.MAX_RANKED_CLASSES` classes holding examples (the
leaderboard's rule: with more, many of them small, the bootstrap lost a truly best run in up
to 0.235 of boards) keep the Gaussian max-t; the leaderboard's 100,000-run path never
reaches the bootstrap.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import measures as _measures
from ..kernels import selection as _k
from . import intervals as _intervals
from .floors import smoothed_variance

__all__ = [
    "BOOT_BUDGET",
    "BOOT_CELLS",
    "N_BOOT",
    "Tables",
    "bootable",
    "bootstrap_fits",
    "bootstrap_law",
    "bootstrap_stats",
    "expected_value",
    "resample_paired",
    "resample_unpaired",
    "unpaired_variance",
]  # fmt: skip


#: bootstrap replicates behind a modest board's critical values (studentized bootstrap)
N_BOOT = 1000
#: the studentized bootstrap while ``N_BOOT · R²`` (unpaired) or ``N_BOOT · R² · E`` (paired, E
#: examples) stays within this; beyond, the Gaussian max-t with the Student-t correction
BOOT_BUDGET = 100_000_000
#: and while the replicate boards' ``N_BOOT · R · K²`` cells (K classes) stay within this: each
#: replicate is R tables of K × K cells, held together with their measure and variance (at the peak
#: of an unpaired board about 18 bytes a cell for accuracy, 0.3 GB here, and 34-53 for the measures
#: with a delta-method variance, whose float copies of the replicates add up: 0.9 GB for
#: informedness at 8 classes and 256 runs). Before this cap an informedness board of 100 classes,
#: 20 runs and 2,000 examples (a 1 MB frame) peaked 8.1 GB above its start (accuracy: 3.4 GB), and
#: 200 classes, 100 runs failed asking 29.8 GiB; such boards take the Gaussian max-t (or
#: Bonferroni) as larger ones do
BOOT_CELLS = 1 << 24


class Tables(NamedTuple):
    """What the studentized bootstrap resamples: the runs' tables ``counts[R, K, K]``
    (real class first), the measure, the positive class index and, for runs scored on
    the same examples, each run's class pair per example (:func:`~batcheval.inference.floors.board_codes`),
    and ``sign``, −1 for a board ranked lowest first (the replicates are ranked as the board is)."""

    counts: np.ndarray
    measure: str
    positive: int
    codes: np.ndarray | None = None
    sign: float = 1.0


def bootable(tables: Tables | None, r: int, e: int) -> bool:
    """Whether :func:`bootstrap_stats` runs: tables given, a measure with a delta-method
    variance, and the board within both budgets (:func:`bootstrap_fits`; E = 1 unpaired).

    Examples
    --------
    >>> tables = Tables(np.ones((30, 2, 2), dtype=np.int64), "informedness", 1)
    >>> bootable(tables, 30, 1), bootable(tables, 30, 400), bootable(None, 30, 1)
    (True, False, False)
    >>> bootable(Tables(np.ones((30, 40, 40), dtype=np.int64), "accuracy", 1), 30, 1)  # 48 million cells
    False
    """
    if tables is None or r < 2:
        return False
    k = np.shape(tables.counts)[1]
    if tables.measure not in _intervals.interval_measures(k, "wilson_delta"):
        return False
    return bootstrap_fits(r, e, k)


def bootstrap_fits(r: int, e: int, k: int) -> bool:
    """Whether a board of ``r`` runs (paired: on ``e`` examples; unpaired: ``e`` = 1) of ``k``
    classes is within :data:`BOOT_BUDGET` (``N_BOOT · r² · e``) and its replicate tables within
    :data:`BOOT_CELLS` (``N_BOOT · r · k²``).

    Examples
    --------
    >>> bootstrap_fits(30, 1, 2), bootstrap_fits(30, 400, 2), bootstrap_fits(1000, 1, 2)
    (True, False, False)
    >>> bootstrap_fits(30, 1, 20), bootstrap_fits(30, 1, 30)  # 12 and 27 million cells
    (True, False)
    """
    return N_BOOT * r * r * max(e, 1) <= BOOT_BUDGET and N_BOOT * r * k * k <= BOOT_CELLS


def unpaired_variance(counts: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """The variance an unpaired board's bootstrap studentizes with, for the board and for
    each replicate alike: the larger of the adjusted delta variance
    (:func:`~batcheval.inference.intervals.standard_errors` with ``adjusted=True``) and
    :func:`~batcheval.inference.floors.smoothed_variance`.

    Examples
    --------
    For informedness both are the delta variance of the table plus one per cell:

    >>> unpaired_variance(np.array([[[10, 0], [0, 10]]]), "informedness", 1).round(5).tolist()
    [0.01273]
    """
    counts = np.asarray(counts)
    se = _intervals.table_standard_errors(counts, [measure], pos, adjusted=True)[measure]
    if measure in _intervals.DELTA_MEASURES and _intervals.pseudo_count(counts.shape[1]) == 1.0:
        # two classes: the adjusted variance is the smoothed one, where the measure is defined
        var = se * se
        bad = ~np.isfinite(var)
        if bad.any():
            smooth = smoothed_variance(counts[bad], measure, pos)
            assert smooth is not None
            var[bad] = smooth
        return var
    smooth = smoothed_variance(counts, measure, pos)
    return se * se if smooth is None else np.fmax(se * se, smooth)


def bootstrap_law(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The law each run's table is resampled from: for real class k of run r,
    ``n[r, k]`` examples with predicted class b of probability ``p[r, k, b] = (c[r, k, b]
    + a)/(n[r, k] + K·a)``, ``a`` the adjusted intervals' pseudo-count (1 for two
    classes, :func:`~batcheval.inference.intervals.pseudo_count`). Smoothing keeps a run
    with no hit among a few examples of a class from having no spread in its replicates,
    the case where its variance is estimated lowest.

    Examples
    --------
    >>> p, n = bootstrap_law(np.array([[[36, 0], [0, 4]]]))
    >>> p.round(4).tolist(), n.tolist()
    ([[[0.9737, 0.0263], [0.1667, 0.8333]]], [[36, 4]])
    """
    c = np.asarray(counts, dtype=np.float64)
    k = c.shape[1]
    a = _intervals.pseudo_count(k)
    n = c.sum(axis=2)
    return (c + a) / (n + k * a)[:, :, None], n.astype(np.int64)


def expected_value(tables: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """``measure`` of tables of non-negative weights ``[G, K, K]`` (not only counts): the
    true values of the bootstrap's world, the measure of ``n[r, k] · p[r, k, b]``.

    Examples
    --------
    >>> t = np.array([[[27.0, 9.0], [1.5, 2.5]]])
    >>> expected_value(t, "informedness", 1).round(12).tolist(), expected_value(t, "recall", 1).tolist()
    ([0.375], [0.625])
    """
    t = np.asarray(tables, dtype=np.float64)
    if measure in _intervals.DELTA_MEASURES:
        return _intervals.chance_values(_intervals.cells_last(t))[measure]
    if t.shape[1] != 2:  # multiclass: accuracy only
        num, den = np.trace(t, axis1=1, axis2=2), t.sum(axis=(1, 2))
    else:
        q = 1 - pos
        cells = {"tp": t[:, pos, pos], "fn": t[:, pos, q], "fp": t[:, q, pos], "tn": t[:, q, q]}
        top, bottom = _intervals.BINARY_PROPORTIONS[measure]
        num, den = sum(cells[x] for x in top), sum(cells[x] for x in bottom)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def resample_unpaired(counts: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` replicate boards ``[m, R, K, K]`` of independent runs: each run's real-class
    rows drawn from :func:`bootstrap_law` (multinomial, class sizes fixed).

    Examples
    --------
    >>> reps = resample_unpaired(np.array([[[36, 0], [1, 3]]]), 2, np.random.default_rng(0))
    >>> reps.shape, reps.sum(axis=3).tolist()
    ((2, 1, 2, 2), [[[36, 4]], [[36, 4]]])
    """
    p, n = bootstrap_law(counts)
    if p.shape[1] == 2:  # two classes: the same law, drawn as binomials (several times faster)
        hits = rng.binomial(np.broadcast_to(n, (m, *n.shape)), np.broadcast_to(p[:, :, 1], (m, *n.shape)))
        return np.stack([n - hits, hits], axis=-1)
    return rng.multinomial(np.broadcast_to(n, (m, *n.shape)), np.broadcast_to(p, (m, *p.shape)))


def resample_paired(codes: np.ndarray, k: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` replicate boards ``[m, R, E']`` of runs scored on the same examples: within
    each real class the examples are drawn with replacement (jointly for every run,
    keeping the runs' dependence), then each run's prediction on each drawn example
    is, with probability ``ε[r, k] = K·a/(n[r, k] + K·a)``, replaced by a uniformly
    drawn class. Each run's replicate rows then follow :func:`bootstrap_law` on
    average, as an unpaired run's do. E' counts the examples with a real class.

    Examples
    --------
    >>> codes = np.array([[4, 4, 1], [4, 3, 1]], dtype=np.int8)  # 2 classes: 1 + real·2 + pred
    >>> reps = resample_paired(codes, 2, 3, np.random.default_rng(0))
    >>> reps.shape, bool(((reps - 1) // 2 == np.array([0, 1, 1])).all())
    ((3, 2, 3), True)
    """
    codes = np.asarray(codes)
    a = _intervals.pseudo_count(k)
    real = np.where(codes > 0, (codes.astype(np.int64) - 1) // k, -1).max(axis=0)
    r = codes.shape[0]
    blocks = []
    for cls in range(k):
        ex = np.flatnonzero(real == cls)
        if len(ex) == 0:
            continue
        block = np.moveaxis(codes[:, ex[rng.integers(0, len(ex), (m, len(ex)))]], 0, 1)  # [m, R, n_k]
        n_rk = (codes[:, ex] > 0).sum(axis=1)
        eps = (k * a / (n_rk + k * a)).astype(np.float32)
        swap = (rng.random(block.shape, dtype=np.float32) < eps[None, :, None]) & (block > 0)
        guess = (1 + cls * k + rng.integers(0, k, block.shape)).astype(block.dtype)
        blocks.append(np.where(swap, guess, block))
    if not blocks:
        return np.zeros((m, r, 0), dtype=np.int8)
    return np.ascontiguousarray(np.concatenate(blocks, axis=2))


def _tables_of(codes: np.ndarray, k: int) -> np.ndarray:
    """``[..., K, K]`` counts of class-pair codes ``[..., E]`` (0: not scored)."""
    lead = codes.shape[:-1]
    flat = codes.reshape(-1, codes.shape[-1]).astype(np.int64)
    rows = np.arange(flat.shape[0])[:, None] * (k * k + 1)
    counts = np.bincount((rows + flat).ravel(), minlength=flat.shape[0] * (k * k + 1))
    return counts.reshape(flat.shape[0], k * k + 1)[:, 1:].reshape(*lead, k, k)


def bootstrap_stats(
    tables: Tables, idx: np.ndarray, m: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The studentized bootstrap's maxima over runs ``idx``: ``m`` replicate boards
    (:func:`resample_unpaired`, or :func:`resample_paired` with ``tables.codes``), each
    run's error ``θ* − θ̃`` against the bootstrap world's value θ̃
    (:func:`expected_value` of the law's mean table), studentized by the replicate's
    own variance, as the board is; returns the two-sided maximum over pairs ``[m]``
    and, per run b, the most any run overtakes it ``[m, R]``
    (:func:`~batcheval.kernels.selection.boot_max_unpaired` /
    :func:`~batcheval.kernels.selection.boot_max_paired`)."""
    counts = np.asarray(tables.counts)[idx]
    r, k = counts.shape[0], counts.shape[1]
    measure, pos = tables.measure, tables.positive
    p, n = bootstrap_law(counts)
    truth = expected_value(p * n[:, :, None], measure, pos)
    # a class no example of a run has: the measure's own convention for the empty class
    # holds in every replicate as on the board
    truth = np.where(np.isfinite(truth), truth, _measures.compute(counts, [measure], positive=pos)[measure])
    if tables.codes is None:
        reps = resample_unpaired(counts, m, rng).reshape(m * r, k, k)
    else:
        codes = resample_paired(np.asarray(tables.codes)[idx], k, m, rng)
        reps = _tables_of(codes, k).reshape(m * r, k, k)
    theta = _measures.compute(reps, [measure], positive=pos)[measure].reshape(m, r)
    err = np.ascontiguousarray(tables.sign * (theta - truth[None, :]))
    stat_abs, stat_vs = np.empty(m), np.empty((m, r))
    if tables.codes is None:
        var = unpaired_variance(reps, measure, pos).reshape(m, r)
        _k.boot_max_unpaired(err, np.ascontiguousarray(var), stat_abs, stat_vs)
        return stat_abs, stat_vs
    grad, undefined = _intervals.delta_gradient(reps, measure, positive=pos)
    lut = np.zeros((m * r, k * k + 1))
    lut[:, 1:] = tables.sign * grad.reshape(m * r, k * k)
    lut[undefined] = np.nan
    floor = smoothed_variance(reps, measure, pos)
    assert floor is not None
    _k.boot_max_paired(err, codes, lut.reshape(m, r, k * k + 1), floor.reshape(m, r), stat_abs, stat_vs)
    return stat_abs, stat_vs
