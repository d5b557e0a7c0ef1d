"""Standard errors of paired differences: ``measure(run) − measure(leader)``
estimated from each run's joint table with its reference,
``joint[G, real, reference's prediction, run's prediction]``.

:func:`delta_se`
    The delta method: ``Var ≈ (Σ π g² − (Σ π g)²) / n`` with ``g`` the
    gradient of the difference over the joint table's cells.

:func:`bootstrap_se`
    The paired bootstrap: each replicate reweights the test examples, the
    same weights for the run and its reference, and the standard error is
    the spread of the difference over replicates. For binary tables and a
    measure that does not change when every count is scaled (all but the
    chi-squared family) it is made cheap three times over, in one numba
    kernel (:func:`poisson_se`):

    - *Poisson bootstrap.* Each example gets an independent Poisson(1)
      weight (Hanley & MacGibbon 2006, Comput. Methods Programs Biomed.
      83:57-62; Chamandy et al. 2012, "Estimating uncertainty for massive
      data streams"), so each joint cell is an independent Poisson draw of
      its count: by inversion of a cdf table made once per distinct mean
      (:func:`poisson_tables`, means below 2^14), else by transformed
      rejection whose constants are worked out once per table. Given its
      total ``N``, a Poisson replicate is a multinomial one of size ``N``;
      for a measure that ignores scale the two bootstraps differ only in
      that random size, about ``1/n`` of the variance.
    - *Summed agreement.* A measure linear in tp and tn given the real
      class sizes (informedness, recall, accuracy, ...) sees the two cells
      where run and reference agree, within a real class, only through their
      sum; a sum of independent Poissons is one Poisson, so a replicate takes
      6 draws rather than 8, from the same distribution.
    - *Control variate.* The difference's linear part
      ``L = Σ_c s_c · (x_c − count_c)``, with ``s_c`` its secant slope in
      cell c over one count either side, has the known Poisson-bootstrap
      variance ``V_L = Σ_c s_c² · count_c``. So ``Var(T) = V_L + [Var(T) − Var(L)]``,
      and only the bracket, small when ``T`` is close to linear, is
      estimated from the replicates (Davison & Hinkley 1997, *Bootstrap
      Methods and their Application*, §9.3; Efron 1990, JASA 85:79-89).
      The slopes come from the measure itself, so every measure has one.
      So few replicates estimate the standard error well. Each group draws
      them in rounds (:data:`MIN_REPLICATES`, then doubling) until the
      estimate is as precise as ``n_boot`` plain replicates would make it,
      :func:`tolerance` (or ``n_boot`` are drawn). On the leaderboard
      benchmark's 1,000-example tables that takes 7.6 replicates a table on
      average, and the standard errors of informedness are within 2.1-2.2 %
      (root mean square, four seeds) of 20,000-replicate ones, where 200
      plain replicates give 4.9 %.
    - *Shared draws.* Runs scored on one test set share their cell counts
      (100,000 runs of 1,000 examples draw about 1,000 means a cell), so each
      mean a cell draws gets a pool of 32 draws, made once, and a group's
      first 32 replicates of that cell take them in an order of its own (an
      offset and an odd stride mod 32): still independent Poisson draws for
      each group; two groups that stop after a few replicates share few of
      them, two that reach 32 share all 32 in different orders (the benchmark's kernel:
      96 -> 65 ms of one thread, its standard errors within 2.1 % root mean
      square of 20,000-replicate ones, as before).

    Other tables and measures take ``n_boot`` multinomial replicates and
    their plain standard deviation.

Every group draws from its own generator, seeded from ``seed`` and its
index, so results do not depend on threads or rounds; in the Poisson bootstrap,
from ``seed`` and its table (and the pools from ``seed``), so equal tables get
equal standard errors wherever they stand.

:func:`paired_p`
    The p-value of a paired difference, valid at small n. For a measure
    that is linear in the counts given the real class sizes (informedness,
    accuracy, recall, ...), the sign-flip randomization test: under the
    null that run and reference are exchangeable on every example, each
    example's two predictions are swapped with probability 1/2. For two
    classes the null distribution is that of ``w₁(2X₁ − m₁) + w₀(2X₀ − m₀)``
    with ``X_c ~ Bin(m_c, 1/2)`` over the ``m_c`` discordant examples of
    real class c (one of the two right), enumerated while the class with
    fewer discordant examples has at most 50. The p-value is its mid-p value
    ``P(|D| > |d|) + ½·P(|D| = |d|)`` (for accuracy the mid-p McNemar test;
    beyond 50, the normal tail without continuity correction): the exact
    ``P(|D| ≥ |d|)`` (:func:`sign_flip_p`'s default) is conservative where few
    examples are discordant. With more classes, its normal approximation (a
    score test: the variance is the null's, never the estimate's). Other
    binary measures take the larger of the mid-p swap test (:func:`swap_p`:
    the same randomization, the null distribution of their difference
    enumerated over the discordant examples) and ``2·Φ(−|diff|/se)`` with a
    standard error that is never 0; multiclass ones that normal p-value alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import measures as _measures
from ..core.memory import check_allocation
from ..core.table import sum_axes
from ..errors import UnknownMeasureError
from ..kernels import binary as _binary
from ..kernels import bootstrap as _boot
from ..kernels import leaderboard as _lb
from ..kernels import sampling as _sampling
from ..kernels import signflip as _signflip
from . import intervals as _intervals

__all__ = [
    "MIN_REPLICATES", "MONOTONE_SWAP", "SE_NOISE", "SIGN_FLIP_MEASURES", "SWAP_POINTS",
    "bootstrap_se", "collapsed", "delta_se", "has_sign_flip", "normal_paired_p", "paired_p",
    "poisson_se", "poisson_tables", "replicate_spread", "sign_flip_p", "swap_floor", "swap_p", "tolerance",
]  # fmt: skip

# the first round's replicates: enough for the control variate to estimate its own precision
MIN_REPLICATES = 4
# Poisson means whose sampler constants poisson_se works out once for all tables (1.8 MiB)
_SETUP_MEANS = 1 << 15
# Poisson means below this get an inversion table (poisson_tables) when they occur, while the
# tables' entries stay within _TABLE_ENTRIES (16 MiB of probabilities, 8 MiB of guide)
_TABLE_MEANS = 1 << 14
_TABLE_ENTRIES = 1 << 21
# replicate cells held in memory at once by replicate_spread
_CHUNK_CELLS = 1 << 24
# measures linear in tp and tn given the real margins: a run's difference from its
# reference sees the cells where the two agree only through their sum per real class
_AGREEMENT_SUMMED = frozenset((
    "prevalence", "evenness_real", "recall", "inverse_recall", "fallout", "miss_rate", "accuracy",
    "informedness", "auc_single", "dtp", "wracc",
))  # fmt: skip
# the chi-squared family grows with the table's size, so the Poisson bootstrap's
# random size would add to its spread
_SIZE_DEPENDENT = frozenset(_measures.BINARY_STATS)


def _gradient(joint: np.ndarray, measure: str, pos: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The joint tables cells-last, ``[real, leader, run, G]``, the difference's
    gradient ``∂T/∂π`` over their cells, and where it is undefined."""
    j = _intervals.cells_last(joint)
    g_run, bad_run = _intervals.gradient_cells_last(_intervals.ordered_sum(j, 1), measure, positive=pos)
    g_lead, bad_lead = _intervals.gradient_cells_last(_intervals.ordered_sum(j, 2), measure, positive=pos)
    return j, g_run[:, None] - g_lead[:, :, None], bad_run | bad_lead


def delta_se(joint: np.ndarray, measure: str, pos: int) -> np.ndarray:
    """Delta-method standard error of the paired difference (NaN where undefined)."""
    if (
        measure == "informedness"
        and joint.ndim == 4
        and joint.shape[1:] == (2, 2, 2)
        and joint.dtype.kind in "iu"  # counts; a float joint takes numpy's path, not a truncation
    ):
        # the same arithmetic per table in one kernel (numpy's temporaries took 54 ms for 100k);
        # ``pos`` does not enter: binary informedness is the same with either class positive
        g = joint.shape[0]
        se = np.empty(g)
        _lb.paired_informedness_se(np.ascontiguousarray(joint, dtype=np.int64).reshape(g, 8), se)
        return se
    j, grad, bad = _gradient(joint, measure, pos)
    return np.where(bad, np.nan, np.sqrt(_intervals.gradient_variance(j, grad)))


def bootstrap_se(
    joint: np.ndarray, measure: str, pos: int, n_boot: int, seed: int | None, diff: np.ndarray
) -> np.ndarray:
    """Paired bootstrap standard error of ``diff`` (the observed differences), per group.

    Examples
    --------
    >>> joint = np.array([[[[300, 20], [40, 20]], [[30, 50], [40, 500]]]])
    >>> run, lead = joint.sum(axis=2), joint.sum(axis=3)
    >>> d = [r[1, 1] / r[1].sum() + r[0, 0] / r[0].sum() - 1 for r in (run[0], lead[0])]
    >>> se = bootstrap_se(joint, "informedness", 1, 200, 7, np.array([d[0] - d[1]]))
    >>> 0.02 < float(se[0]) < 0.04
    True
    """
    joint = np.ascontiguousarray(joint, dtype=np.int64)
    if joint.shape[1] == 2 and measure not in _SIZE_DEPENDENT and measure in _binary.NAMES:
        return poisson_se(joint, measure, pos, n_boot, seed, diff)[0]
    return _multinomial_se(joint, measure, pos, n_boot, seed)


def poisson_se(
    joint: np.ndarray, measure: str, pos: int, n_boot: int, seed: int | None, diff: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The sequential Poisson bootstrap with a control variate for binary joint
    tables ``[G, 2, 2, 2]``: each group's standard error, and the replicates it drew.

    Examples
    --------
    >>> joint = np.array([[[[300, 20], [40, 20]], [[30, 50], [40, 500]]]])
    >>> se, drawn = poisson_se(joint, "informedness", 1, 200, 7, np.array([0.0]))
    >>> bool(0.02 < se[0] < 0.04), bool(MIN_REPLICATES <= drawn[0] <= 200)
    (True, True)
    """
    g = joint.shape[0]
    joint = np.ascontiguousarray(joint, dtype=np.int64).reshape(g, 8)
    center = np.nan_to_num(np.asarray(diff, dtype=np.float64))  # sums of (T − T̂) lose no digits
    cells = np.array([0, 1, 2, 4, 5, 6] if measure in _AGREEMENT_SUMMED else range(8), dtype=np.int64)
    se = np.empty(g)
    drawn = np.empty(g, dtype=np.int64)
    if g:
        # every mean drawn from is a cell count or the sum of two, at most a table's total
        setups = np.zeros((min(int(joint.sum(axis=1).max()) + 1, _SETUP_MEANS), _sampling.POISSON_PARAMS))
        used = np.zeros((8, _TABLE_MEANS), dtype=np.bool_)
        _boot.drawn_means(joint, cells, used)
        tables, cdf, guide = _inversion_tables(used.any(axis=0))
        # a mean drawn below the tables' length has a table, or is 0 and draws 0 from a zero row:
        # only the means past it need the sampler's constants (on the benchmark: none of 1,001)
        _boot.poisson_setups(setups, min(tables.shape[0], setups.shape[0]))
        base = np.uint64(_intervals.seeds_for(seed, 0, 1)[0])
        # each mean a cell draws, once for all groups: 32 draws (0.9 ms for the benchmark's 6,006)
        pool = np.empty((8, tables.shape[0], _boot.POOL), dtype=np.int16)
        _boot.pool_draws(used[:, : tables.shape[0]], tables, cdf, guide, base, pool)
        _boot.paired_poisson_se(
            joint, base, pos, _binary.NAMES.index(measure), cells, center, n_boot, MIN_REPLICATES,
            _doubt(n_boot), tolerance(n_boot), setups, tables, cdf, guide, pool, se, drawn,
        )  # fmt: skip
    return se, drawn


def poisson_tables(joint: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The inversion tables of the Poisson means that :func:`poisson_se` draws from
    the joint tables ``joint[G, 8]``'s ``cells`` (a summed pair at its first cell):
    ``tables[m] = (low, start, size)`` of mean m in ``cdf`` and ``guide``, size 0 for
    a mean without one (kernels/sampling.poisson_tables).

    Each table spans ``m − 9√m − 5`` to ``m + 9.5√m + 10``, past which the Poisson
    tails hold at most 3.4e-20 of the mass each (scipy, every mean below 2^14). Means
    of :data:`_TABLE_MEANS` and more, and those past :data:`_TABLE_ENTRIES` entries in
    all, keep the transformed rejection.

    Examples
    --------
    >>> joint = np.array([[3, 0, 0, 0, 0, 0, 0, 0]])
    >>> tables, cdf, guide = poisson_tables(joint, np.arange(8))
    >>> tables[3].tolist(), round(float(cdf[0]), 6), round(float(cdf[3]), 6)
    ([0, 0, 31], 0.049787, 0.647232)
    """
    used = np.zeros((8, _TABLE_MEANS), dtype=np.bool_)
    _boot.drawn_means(joint, cells, used)
    return _inversion_tables(used.any(axis=0))


def _inversion_tables(drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`poisson_tables` of the means ``m`` where ``drawn[m]``."""
    used = np.flatnonzero(drawn[1:]) + 1  # a mean of 0 draws 0 without a table
    root = np.sqrt(used)
    low = np.maximum(0, np.floor(used - 9.0 * root - 5.0)).astype(np.int64)
    size = np.ceil(used + 9.5 * root + 10.0).astype(np.int64) - low + 1
    keep = np.cumsum(size) <= _TABLE_ENTRIES
    used, low, size = used[keep], low[keep], size[keep]
    starts = np.zeros(used.shape[0] + 1, dtype=np.int64)
    np.cumsum(size, out=starts[1:])
    cdf = np.empty(int(starts[-1]))
    guide = np.empty(int(starts[-1]), dtype=np.int32)
    _sampling.poisson_tables(used, low, starts, cdf, guide)
    tables = np.zeros((int(used[-1]) + 1 if used.shape[0] else 0, 3), dtype=np.int64)
    tables[used] = np.stack([low, starts[:-1], size], axis=1)
    return tables, cdf, guide


def tolerance(n_boot: int) -> float:
    """The relative standard error of a standard error from ``n_boot`` plain
    replicates, ``1/√(2(n_boot − 1))``: the precision a group draws replicates
    until it reaches (5.0% for 200 replicates).

    Examples
    --------
    >>> round(tolerance(200), 4), round(tolerance(4000), 4)
    (0.0501, 0.0112)
    """
    return 1.0 / math.sqrt(2.0 * max(n_boot - 1, 1))


def _doubt(n_boot: int) -> np.ndarray:
    """``doubt[m]``: how far a relative error estimated from ``m`` replicates may
    understate the truth, ``√((m − 1) / χ²_{m−1}(0.1))``, its 90% upper bound if the
    replicates' squared deviations were normal (1.94 for 5 replicates, 1.47 for 10,
    1.18 for 40). A few replicates of a small table can look precise by chance; this
    keeps them going.

    Examples
    --------
    >>> _doubt(40)[[5, 10, 40]].round(2).tolist()
    [1.94, 1.47, 1.18]
    """
    from scipy import special

    if n_boot > _CHUNK_CELLS:  # four arrays of n_boot + 1
        check_allocation(32 * (n_boot + 1), f"n_boot={n_boot} replicates' bounds", "draw fewer replicates")
    dof = np.maximum(np.arange(n_boot + 1) - 1, 1)
    return np.sqrt(dof / special.chdtri(dof, 0.9))


def _multinomial_se(joint: np.ndarray, measure: str, pos: int, n_boot: int, seed: int | None) -> np.ndarray:
    def difference(reps: np.ndarray) -> np.ndarray:  # [R, real, leader, run]
        run = _measures.compute(sum_axes(reps, 2), [measure], positive=pos)[measure]
        return run - _measures.compute(sum_axes(reps, 3), [measure], positive=pos)[measure]

    return replicate_spread(joint, n_boot, seed, difference)


def replicate_spread(
    counts: np.ndarray, n_boot: int, seed: int | None, statistic: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """Per group, the standard deviation of ``statistic`` over ``n_boot`` multinomial
    replicates of its table (``counts[G, ...]``; NaN replicates are left out).

    ``statistic`` maps stacked replicate tables ``[R, ...]`` to ``R`` values.
    Groups are resampled in chunks that bound the replicate memory; a group's
    replicates do not depend on the chunk it falls in. A group whose replicates fill more
    than a chunk (``n_boot`` joint tables of K³ cells: 781 MiB for 200 of 80 classes) draws
    them a chunk at a time from its one generator (:func:`batcheval.inference.intervals.replicate_parts`),
    the same replicates in the same order, so the same standard error bit for bit.
    """
    g = counts.shape[0]
    se = np.empty(g)
    cells = math.prod(counts.shape[1:])
    if n_boot * cells > _CHUNK_CELLS:
        part = max(1, _CHUNK_CELLS // cells)
        values = np.empty((1, n_boot))
        for i in range(g):
            for start, reps in _intervals.replicate_parts(counts, i, n_boot, seed, part):
                values[0, start : start + len(reps)] = statistic(reps)
            _boot.nan_std(values, se[i : i + 1])
        return se
    step = _CHUNK_CELLS // (n_boot * cells)
    for start in range(0, g, step):
        stop = min(g, start + step)
        reps = _intervals.bootstrap_replicates(counts[start:stop], n_boot, seed, first=start)
        values = statistic(reps.reshape(-1, *counts.shape[1:]))
        _boot.nan_std(values.reshape(stop - start, n_boot), se[start:stop])
    return se


#: Measures with an exact (binary) or score (multiclass) sign-flip test of a paired
#: difference: linear in the counts given the real class sizes.
SIGN_FLIP_MEASURES: dict[int, tuple[str, ...]] = {
    2: ("informedness", "accuracy", "recall", "inverse_recall", "fallout", "miss_rate", "auc_single"),
    3: ("informedness", "accuracy"),  # and every K > 2
}


def has_sign_flip(measure: str, k: int) -> bool:
    """Whether ``measure`` of ``k``-class tables has a paired sign-flip test
    (:data:`SIGN_FLIP_MEASURES`): :func:`paired_p` then reads no standard error.

    Examples
    --------
    >>> has_sign_flip("informedness", 2), has_sign_flip("markedness", 2), has_sign_flip("recall", 3)
    (True, False, False)
    """
    return measure in SIGN_FLIP_MEASURES[2 if k == 2 else 3]


# binary sign-flip tests enumerate the class with fewer discordant examples up to this many;
# beyond, the continuity-corrected normal tail: never below the exact p-value by more than 0.4 %
# on 9,000 simulated pairs of 150-1,000 examples and 900 pairs of 51-139 discordant examples a
# class, but up to 0.068 above it where p < 0.2 (the plain normal tail was up to 19 % below)
_EXACT_DISCORDANT = 50


# the weights of a discordant example of each real class (kernels/signflip.binary_sign_flip)
_SIGN_FLIP_KIND = {
    "informedness": 0, "auc_single": 1, "accuracy": 2, "recall": 3, "miss_rate": 3, "inverse_recall": 4,
    "fallout": 4,
}  # fmt: skip


def sign_flip_p(joint: np.ndarray, measure: str, pos: int = 1, mid_p: bool = False) -> np.ndarray:
    """Two-sided p-value of the paired sign-flip test of ``measure(run) −
    measure(reference)`` from joint tables ``[G, real, reference's prediction,
    run's prediction]`` (see the module docstring). NaN where the measure is
    undefined on the pair's tables.

    ``mid_p=True`` gives the mid-p value, ``P(|D| > |d|) + ½·P(|D| = |d|)`` (1 at
    ``d = 0``), binary tables only: for accuracy the mid-p McNemar test that Fagerland,
    Lydersen & Laake (2013, BMC Med. Res. Methodol. 13:91) recommend. It is not exact
    but holds the level closely where the exact test is conservative for want of
    discordant examples (docs/calibration_leader.md); :func:`paired_p` uses it. Beyond 50
    discordant examples in the smaller class, the normal tail without continuity correction.

    Examples
    --------
    Four examples, the reference perfect and the run always predicting
    positive: two discordant negatives, both in the reference's favour, so
    P(|D| ≥ 1) = 2 · (1/2)² = 0.5, the exact McNemar p-value.

    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> joint[0, 1, 1, 1] = 2  # positives: both right
    >>> joint[0, 0, 0, 1] = 2  # negatives: reference right, run wrong
    >>> sign_flip_p(joint, "informedness").tolist()
    [0.5]

    Its mid-p value takes half the atom ``P(|D| = 1) = 0.5``:

    >>> sign_flip_p(joint, "informedness", mid_p=True).tolist()
    [0.25]
    """
    joint = np.ascontiguousarray(joint, dtype=np.int64)
    k = joint.shape[1]
    if not has_sign_flip(measure, k):
        raise UnknownMeasureError(
            f"measure {measure!r} has no sign-flip test for {k} classes; it is for "
            f"{list(SIGN_FLIP_MEASURES[2 if k == 2 else 3])}"
        )
    if k == 2:
        return _binary_sign_flip(joint, measure, pos, mid_p)
    return _score_sign_flip(joint, measure)


def _binary_sign_flip(joint: np.ndarray, measure: str, pos: int, mid_p: bool = False) -> np.ndarray:
    """The binary test in one kernel: the weights, statistic, exact tails and the normal
    statistic per table, as numpy did them over arrays (the same bits; 100k tables 47 ->
    about 25 ms of CPU, the tails); scipy's erfc of the normal ones."""
    from scipy import special

    g = joint.shape[0]
    p, z = np.empty(g), np.empty(g)
    _signflip.binary_sign_flip(
        joint.reshape(g, 8), pos, _SIGN_FLIP_KIND[measure], _EXACT_DISCORDANT, mid_p, p, z
    )
    approx = ~np.isnan(z)
    if approx.any():
        p[approx] = np.minimum(1.0, special.erfc(z[approx]))
    return p


def _score_sign_flip(joint: np.ndarray, measure: str) -> np.ndarray:
    from scipy import special

    j = _intervals.cells_last(joint)  # [real, reference, run, G]
    k = j.shape[0]
    n = _intervals.ordered_sum(j, (0, 1, 2))
    eye = np.eye(k)[:, :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if measure == "informedness":
            r = _intervals.ordered_sum(j, (1, 2)) / n  # real shares [K, G]
            a = (eye - r[None, :]) / (n * (1.0 - r))[None, :]  # a[y, p]: an example's share of B
            undefined = np.any(r >= 1.0, axis=0) | (n == 0)
        else:  # accuracy
            a = eye / n
            undefined = n == 0
        h = a[:, None, :, :] - a[:, :, None, :]  # [real, reference, run, G]: run − reference
        h = np.where(j > 0, h, 0.0)
        stat = np.abs(_intervals.ordered_sum(j * h, (0, 1, 2)))
        var = _intervals.ordered_sum(j * h * h, (0, 1, 2))
        p = np.where(var > 0, special.erfc(stat / np.sqrt(2.0 * var)), 1.0)
    return np.where(undefined, np.nan, p)


#: Binary measures whose swap test walks a staircase: nondecreasing in tp and nonincreasing in fp
#: with the real class sizes fixed (precision, f1, jaccard and g_measure plainly; markedness,
#: kappa_cohen and correlation by their derivatives, and at an empty margin where they are 0), and
#: undefined only where a margin is empty, at a corner of the swaps (or everywhere: then so is
#: the observed difference).
MONOTONE_SWAP = frozenset((
    "precision", "inverse_precision", "jaccard", "f1", "g_measure", "markedness", "correlation",
    "kappa_cohen", "dtp", "wracc",
))  # fmt: skip
# swap tests enumerate at most this many (x₁, x₀) points a table (a measure's value each); beyond,
# the normal p-value with the method's standard error, calibrated there (docs/calibration_leader.md)
SWAP_POINTS = 1 << 14


def swap_p(
    joint: np.ndarray, measure: str, pos: int = 1, mid_p: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The exact paired randomization (swap) test of ``measure(run) − measure(reference)``
    for binary joint tables ``[G, 2, 2, 2]`` (``[real, reference's prediction, run's
    prediction]``), any binary measure: the p-values, and where they were enumerated.

    Under the null the two runs' predictions of each example are exchangeable, so each
    example's pair is swapped with probability 1/2. Only the discordant examples change
    anything: of the ``m₁`` real positives (and ``m₀`` negatives) the runs disagree on, the
    run predicts positive for ``X₁ ~ Bin(m₁, 1/2)`` (``X₀ ~ Bin(m₀, 1/2)``), independently,
    and ``(X₁, X₀)`` fixes both runs' tables, so the difference ``D(X₁, X₀)``. Swapping
    every discordant example maps ``D`` to ``−D``: the null distribution is symmetric, and
    ``p = P(|D| ≥ |d|)`` (the observed point counted despite rounding: a relative 1e-9) sums
    the binomial weights of the points at least as extreme, over all of them except tails
    of at most 1e-16 each. Where the measure is undefined at a point (precision with no
    predicted positive) the point counts as less extreme than any defined one, which keeps
    the test exact (a randomization test of any statistic is); a NaN observed difference
    gives NaN.

    For the measures of :data:`MONOTONE_SWAP` the value of a run's table never falls when
    one of its discordant positives turns right, nor when one of its discordant negatives
    does (shown for each in ``tests/test_swap_test.py``), so the points with ``D ≥ |d|``
    form a staircase that is walked with ``O(m₁ + m₀)`` measures, and every table is
    enumerated. Other measures measure every point, and tables with more than
    :data:`SWAP_POINTS` of them are not enumerated (``enumerated`` false, ``p`` NaN there).
    ``mid_p=True``: the mid-p value ``P(|D| > |d|) + ½·P(|D| = |d|)`` (1 at ``|d| ≤ 1e-12``).

    Examples
    --------
    Ten examples: the runs agree on six, and the run is right on all four where they
    disagree (two positives, two negatives). Of the 16 equally likely swaps only this one
    and its mirror image give markedness's difference (1 − 0.2) its size: p = 2/16.

    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> joint[0, 1, 1, 1] = joint[0, 0, 0, 0] = 3  # both right
    >>> joint[0, 1, 0, 1] = joint[0, 0, 1, 0] = 2  # the run right, the reference wrong
    >>> p, enumerated = swap_p(joint, "markedness")
    >>> p.tolist(), enumerated.tolist()
    ([0.125], [True])
    """
    g = joint.shape[0]
    flat = np.ascontiguousarray(joint, dtype=np.int64).reshape(g, 8)
    p, enumerated = np.empty(g), np.empty(g, dtype=np.bool_)
    monotone = measure in MONOTONE_SWAP
    m = _binary.NAMES.index(measure)
    _signflip.binary_swap_test(flat, pos, m, 1.0, monotone, SWAP_POINTS, mid_p, p, enumerated)
    return p, enumerated


def paired_p(
    joint: np.ndarray, measure: str, pos: int, diff: np.ndarray, se: np.ndarray | None, method: str = "delta"
) -> np.ndarray:
    """p-value of each paired difference ``diff`` (run − reference) with standard
    error ``se`` (from ``method``, ``"delta"`` or ``"bootstrap"``), valid at small n.
    ``se`` may be None for a measure of :func:`has_sign_flip`, whose test does not read it.
    On binary tables a measure of :data:`batcheval.measures.registry.BINARY_EQUIVALENT` takes
    the tests of its equivalent.
    Where no swap test is enumerated, the p-value is never below :func:`swap_floor`, the least
    any swap test of the pair's discordant examples can give.

    :func:`sign_flip_p` for the measures of :data:`SIGN_FLIP_MEASURES` (binary: its mid-p
    value). Otherwise :func:`normal_paired_p`, ``2·Φ(−|diff|/se)``, where a standard error of 0
    (a perfect or a constant run on few examples) is replaced by that of the joint table with
    one pseudo-example in every cell, by the same method; for binary tables the larger of that
    and the mid-p swap test's :func:`swap_p`, where it is enumerated: the swap test holds the
    level at small n when the runs are exchangeable, the normal p-value at large n when they
    are not (docs/calibration_leader.md).

    Examples
    --------
    Two discordant negatives, both the reference's: the mid-p sign-flip test,
    ``P(|D| > 1) + ½·P(|D| = 1) = 0 + ½ · 2 · (1/2)²``.

    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> joint[0, 1, 1, 1] = joint[0, 0, 0, 1] = 2
    >>> paired_p(joint, "informedness", 1, np.array([-1.0]), np.array([0.0])).tolist()
    [0.25]
    """
    k = joint.shape[1]
    # an increasing affine function of a binary measure has its tests: balanced_accuracy went to
    # the normal p-value alone (0.0003 where informedness's exact test gives 0.031). Both halves
    # of the normal and swap pair read the equivalent: mcc's normal p-value was mcc's own
    measure = _measures.equivalent(measure, k)
    if has_sign_flip(measure, k):
        # the mid-p value: the exact test is conservative wherever few examples are discordant
        # (size 0.000-0.049 at 0.05), the mid-p one within [0.04, 0.06] at 13 of the 18 grid
        # points whose margins hold 10 and at most 0.054 anywhere (docs/calibration_leader.md)
        return sign_flip_p(joint, measure, pos, mid_p=True)
    assert se is not None
    normal = normal_paired_p(joint, measure, pos, diff, se, method)
    # no swap of d discordant examples' predictions reaches a mid-p value below 2^-d (only the
    # observed assignment and its mirror are as extreme): where no swap test is enumerated the
    # normal p-value is floored there, as it went to 0 (z ≈ 48) on 12 examples of 3 classes
    normal = np.maximum(normal, swap_floor(joint))
    if k == 2 and measure in _binary.NAMES:
        # the larger of the two: the swap test is exact where the runs are exchangeable but can
        # exceed its level for equal measures of runs that are not (0.068-0.080 at 0.05, equal
        # markedness and unequal biases, n = 40-1,000), the normal one holds it at large n and
        # fails at small n (0.238); rejecting only where both do holds it in both cases. The swap
        # test's mid-p value: the exact one left the pair conservative wherever few examples are
        # discordant (docs/calibration_leader.md)
        swap, enumerated = swap_p(joint, measure, pos, mid_p=True)
        return np.where(enumerated, np.maximum(swap, normal), normal)
    return normal


#: A standard error at or below this fraction of its estimate's scale (at least 1) is float
#: noise of a spread that is truly 0: a bootstrap of a perfect run gave 3.4e-16, which read as
#: a standard error made p-values of exactly 0 on ten examples.
SE_NOISE = 1e-12


def collapsed(se: np.ndarray, scale: np.ndarray | float = 1.0) -> np.ndarray:
    """Where a standard error is 0, NaN or float noise (:data:`SE_NOISE`): the places a test
    must not read it.

    Examples
    --------
    >>> collapsed(np.array([0.0, 3.4e-16, 0.02, np.nan])).tolist()
    [True, True, False, True]
    """
    return ~(np.asarray(se) > SE_NOISE * np.fmax(np.abs(scale), 1.0))


def swap_floor(joint: np.ndarray) -> np.ndarray:
    """The smallest two-sided mid-p value a swap test of each pair's joint table
    ``joint[G, K, K, K]`` (real class, then the two runs' predictions) can give, ``2^-d`` for
    ``d`` discordant examples: of the ``2^d`` swaps only the observed one and its mirror can be
    the most extreme.

    Examples
    --------
    >>> joint = np.zeros((1, 3, 3, 3), dtype=np.int64)
    >>> joint[0, 0, 0, 1] = joint[0, 1, 1, 1] = 3
    >>> swap_floor(joint).tolist()
    [0.125]
    """
    j = np.asarray(joint)
    d = j.sum(axis=(1, 2, 3)) - np.einsum("gkaa->g", j)
    return np.exp2(-d.astype(np.float64))


def normal_paired_p(
    joint: np.ndarray, measure: str, pos: int, diff: np.ndarray, se: np.ndarray, method: str
) -> np.ndarray:
    """``2·Φ(−|diff|/se)`` of paired differences, a standard error of 0 replaced by that of the
    joint table with one pseudo-example in every cell, by the same ``method``: what
    :func:`paired_p` gives where no exact test applies (and gave every measure outside
    :data:`SIGN_FLIP_MEASURES` before the swap test; ``benchmarks/calibration_board.py`` shows both).

    Examples
    --------
    >>> joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    >>> p = normal_paired_p(joint, "kappa_cohen", 1, np.array([0.1]), np.array([0.05]), "delta")
    >>> round(float(p[0]), 4)
    0.0455
    """
    from scipy import special

    se = np.asarray(se, dtype=np.float64).copy()
    flat = np.isfinite(diff) & collapsed(se, diff)
    if flat.any():
        extra = np.ascontiguousarray(joint[flat], dtype=np.int64) + 1
        if method == "delta":
            se[flat] = delta_se(extra, measure, pos)
        else:
            se[flat] = _multinomial_se(extra, measure, pos, 200, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = special.erfc(np.abs(diff) / se / np.sqrt(2.0))
    return np.where(diff == 0, 1.0, p)
