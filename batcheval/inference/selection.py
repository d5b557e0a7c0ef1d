"""Which runs could be the best, and where each run could really rank: the
leaderboard's columns that stay valid although the leader is picked from
the same data (:func:`batcheval.leaderboard`).

This module holds the selection rules: the max-t best set and rank intervals of unpaired
and paired runs (:func:`unpaired`, :func:`paired`), the leader-only best sets
(:func:`versus_leader`, :func:`versus_leader_sign_flip`) and the leaderboard's adjustments
of a selection (:func:`exclude_loose`, :func:`floor_p_best`). The variances they read are
in :mod:`batcheval.inference.floors`, the studentized bootstrap's replicate boards in
:mod:`batcheval.inference.board_bootstrap`.

The best set (``could_be_best``)
    Multiple comparisons with the best (Hsu 1984; Hsu 1996, *Multiple
    Comparisons*, ch. 4), in the form of a confidence set for the best run
    (Gupta's subset selection): run i stays unless some run j beats it by
    more than a simultaneous one-sided critical value,

        t_i = max_j (θ̂_j − θ̂_i) / s_ij > d,    s_ij = sd(θ̂_j − θ̂_i).

    Every truly best run (several, when runs tie at the top) stays with
    probability ≥ 1 − α whatever the leader turns out to be, as in the
    confidence set for the τ-best of Mogstad, Romano, Shaikh & Wilhelm
    (2024) with τ = 1: with B the truly best runs and Z_jb the centred
    differences ``((θ̂_j − θ_j) − (θ̂_b − θ_b))/s_bj``, a best run b leaves
    only if ``max_{b∈B, j} Z_jb > d``, since θ_j ≤ θ_b.

    ``d`` comes from a step-down over candidate sets C (Romano & Wolf
    2005), starting from every run: d bounds the 1 − α quantile of
    ``max_{b∈C, j≠b} Z_jb``, the runs with ``t_i > d`` leave C, and the
    steps repeat until none leaves. As long as B ⊆ C, d is at least B's own
    quantile, so B stays whole with probability ≥ 1 − α. The first steps
    use Bonferroni, ``d = z(1 − α/(|C|·(R − 1)))``; then, while ``M · R ·
    |C|`` stays within :data:`DRAW_BUDGET`, ``M`` = 2,000 Gaussian draws of
    the estimates' errors give the max-t statistic's quantile over C.
    ``p_best`` is the final step's p-value of ``t_i`` (Monte-Carlo ``(1 +
    #{draws ≥ t_i})/(1 + M)``, or Bonferroni's ``min(1, |C|·(R − 1)·Φ(−t_i))``),
    and ``could_be_best`` is ``p_best > 1 − ci``.

    Ties: a draw (or bootstrap replicate) equal to ``t_i`` within a relative
    :data:`~batcheval.kernels.selection.TIE_RTOL` (1e-12) counts as ``≥ t_i``, and a
    standardized difference equal to a critical value within it does not exceed it, the
    sides that keep the level. The bootstrap of small tables reproduces observed statistics
    exactly, and their last bits had decided: a board ranked lowest first had other sets,
    ``p_best`` and rank intervals than the board of the measure's negative (miss_rate against
    recall), where the two are the same board.

Simultaneous rank intervals (``rank_ci_low``, ``rank_ci_high``)
    Mogstad, Romano, Shaikh & Wilhelm (2024, REStud, "Inference for ranks
    with applications to mobility across neighbourhoods and academic
    achievement across countries"; R package csranks): with c the 1 − α
    quantile of the two-sided max-t statistic over every pair,
    ``max_{i<j} |Z_ij|``, run i's rank lies in ``[1 + #{j: (θ̂_j − θ̂_i)/s_ij >
    c}, R − #{j: (θ̂_i − θ̂_j)/s_ij > c}]`` for every i at once with
    probability ≥ 1 − α (rank 1 is the best). ``c`` comes from the same
    Gaussian draws while ``M · R(R − 1)/2`` stays within
    :data:`DRAW_BUDGET` (about 220 runs), else from Bonferroni over the
    pairs, ``z(1 − α/(R(R − 1)))``. Counting the pairs is O(R²): above
    :data:`RANK_LIMIT` runs the intervals are NaN, with a warning.

The errors' joint law
    Unpaired runs (independent test sets): independent normal errors with
    each run's standard error, ``s_ij² = s_i² + s_j²``. For the best set
    the maximiser of ``θ̂_j − d·s_ij`` lies on the Pareto frontier of high
    θ̂ and low s, so ``t_i`` costs O(R · frontier), not O(R²).

    Paired runs (one test set, ``example=``): the first-order (delta-method)
    expansion ``θ̂_r − θ_r ≈ Σ_e U[r, e]`` with ``U[r, e] = (g_r(e) −
    ḡ_r)/n_r``, g_r the measure's gradient at the cell example e falls in
    for run r. The covariance of any two runs is ``U Uᵀ``, and a draw is
    ``U ξ`` with ``ξ ~ N(0, I)`` over examples: a Gaussian multiplier
    bootstrap that resamples the examples jointly across runs. It needs
    every run's class pair per example (a dense board) and ``R · E`` and
    ``R² · E`` within :data:`~batcheval.inference.floors.INFLUENCE_CELLS` and
    :data:`~batcheval.inference.floors.INFLUENCE_FLOPS` (the influence by cell:
    :func:`~batcheval.inference.floors.influence_cells`), and at most
    :data:`~batcheval.inference.leaderboard.MAX_RANKED_CLASSES` classes holding
    examples (with more the best set lost a truly best run in up to 0.19 of boards);
    otherwise each run is compared with the leader only (valid, as the
    leader is one of the j) in Bonferroni's step-down over ordered pairs,
    and the rank intervals are NaN. Where the board's ``p_vs_leader`` is the
    sign-flip test, that p-value is read one-sided (:func:`sign_flip_tail`:
    exact where enumerated, else Pinelis's and Hoeffding's bounds on a
    Rademacher sum, valid for any number of discordant examples;
    :func:`versus_leader_sign_flip`); otherwise the difference's paired
    standard error with both runs' smoothed variances added. Either way the
    pair's least-favourable variance (below) bounds it too.

Few examples behind a variance
    The max over many pairs picks the pairs whose variance happens to be
    estimated low, and with a few dozen examples of a class those estimates
    are noisy (the paired covariances most of all). So every standardized
    difference is read as Student's t with Welch–Satterthwaite degrees of
    freedom over its variance's parts from each real class (a class of m
    examples: m − 1), and replaced by the normal deviate with the same tail
    before the max-t machinery above. Paired parts are the class-wise
    blocks of ``U Uᵀ``; unpaired ones each run's within-class spread of the
    gradient (:func:`~batcheval.inference.floors.class_parts`). With hundreds of examples in every
    class this changes little. Boards over :data:`RANK_LIMIT` (and
    leader-only paired boards) skip it: their classes are large.

The studentized bootstrap of modest boards
    While ``N_BOOT · R²`` (unpaired) or ``N_BOOT · R² · E`` (paired, E examples) stays
    within :data:`~batcheval.inference.board_bootstrap.BOOT_BUDGET`, the replicates'
    ``N_BOOT · R · K²`` cells within :data:`~batcheval.inference.board_bootstrap.BOOT_CELLS`
    (K classes), the board's classes holding examples are at most
    :data:`~batcheval.inference.leaderboard.MAX_RANKED_CLASSES` (more erred in up to 0.235
    of boards), and the measure has a
    delta-method variance, both critical values come from replicate boards drawn from a
    smoothed fit of the board instead of the Gaussian max-t, with no Student-t correction
    (the bootstrap-t: :mod:`batcheval.inference.board_bootstrap`); the method columns then
    read ``"bootstrap"``.

Rates known only to within their intervals
    The normal-theory paths take each variance at the least favourable point of the ``ci``
    Wilson intervals of the runs' rates: an unpaired run's at its table moved towards even,
    a paired pair's at its joint table moved so, and on leader-only paired boards each run's
    against the leader (:mod:`batcheval.inference.floors`).

A pair with no spread at all (``s_ij = 0``, e.g. two perfect classifiers)
counts as a certain difference when the estimates differ and as none when
they are equal.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..kernels import selection as _k
from ..kernels.jit import n_threads as _n_threads
from . import board_bootstrap as _bootstrap
from . import floors as _floors

__all__ = [
    "DRAW_BUDGET",
    "N_DRAWS",
    "PINELIS",
    "RANK_LIMIT",
    "Selection",
    "exclude_loose",
    "floor_p_best",
    "paired",
    "sign_flip_tail",
    "unpaired",
    "versus_leader",
    "versus_leader_sign_flip",
]  # fmt: skip


#: Gaussian draws of the estimates' errors behind the max-t critical values
N_DRAWS = 2000
#: at most this many draw × pair evaluations for a simulated critical value; beyond, Bonferroni
DRAW_BUDGET = 50_000_000
#: rank intervals for boards of at most this many runs (the pairs are counted in O(R²))
RANK_LIMIT = 5000
#: arrays at least this long go through scipy in one slice per thread (:func:`_spread`)
_SPREAD_MIN = 16384


class Selection(NamedTuple):
    """Per run (board order): ``could_be_best`` (None where undefined),
    ``p_best``, ``rank_ci_low`` and ``rank_ci_high`` (NaN where undefined),
    and how the critical values were found (``"bootstrap"``, ``"max-t"`` or ``"bonferroni"``,
    for the best set and for the ranks; ``"none"`` when not computed)."""

    could_be_best: np.ndarray
    p_best: np.ndarray
    rank_ci_low: np.ndarray
    rank_ci_high: np.ndarray
    best_method: str
    rank_method: str
    #: the runs :func:`_loosen` gave back (an estimate without a spread), or None for none
    loose: np.ndarray | None = None


def _upper_z(tail: float) -> float:
    """The standard normal quantile with upper tail ``tail``."""
    from scipy import special

    return float(-special.ndtri(tail))


def _bonferroni_p(t: np.ndarray, r: int) -> np.ndarray:
    """Bonferroni's p-value of each run's largest standardized gap ``t`` over ``R − 1``
    others; 1 where no run is ahead (``t ≤ 0``), as nothing is evidence against it."""
    from scipy import special

    return np.where(t > 0, np.minimum(1.0, (r - 1) * special.ndtr(-t)), 1.0)


def _bonferroni_step_down(single: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Bonferroni's step-down over candidate sets: ``single`` is each run's p-value against
    one other run times ``R − 1``; returns every run's ``p = min(1, |C|·single)`` over the
    final candidates C, and C (the runs with ``p > α``)."""
    cand = np.arange(len(single))
    while True:
        p = np.minimum(1.0, len(cand) * single)
        keep = cand[p[cand] > alpha]
        if len(keep) == len(cand):
            return p, cand
        cand = keep


def _empty(g: int) -> Selection:
    nan = np.full(g, np.nan)
    return Selection(np.full(g, None, dtype=object), nan, nan.copy(), nan.copy(), "none", "none")


def unpaired(
    theta: np.ndarray,
    se: np.ndarray,
    level: float,
    seed: int | None,
    floor: np.ndarray | None = None,
    parts: tuple[np.ndarray, np.ndarray] | None = None,
    tables: _bootstrap.Tables | None = None,
) -> Selection:
    """The best set and rank intervals of runs with independent estimates
    ``theta`` and standard errors ``se`` (see the module docstring). With the
    runs' ``tables`` (and a measure with a delta-method variance, within
    :data:`~batcheval.inference.board_bootstrap.BOOT_BUDGET` and, for the replicate cells,
    :data:`~batcheval.inference.board_bootstrap.BOOT_CELLS`) the critical values come from
    the studentized bootstrap and the variances from
    :func:`~batcheval.inference.board_bootstrap.unpaired_variance` of the tables.

    Examples
    --------
    Three runs on test sets of their own; the third is far behind:

    >>> sel = unpaired(np.array([0.50, 0.48, 0.20]), np.array([0.03, 0.03, 0.03]), 0.95, 0)
    >>> sel.could_be_best.tolist(), sel.rank_ci_low.tolist(), sel.rank_ci_high.tolist()
    ([True, True, False], [1.0, 1.0, 3.0], [2.0, 2.0, 3.0])
    """
    theta = np.asarray(theta, dtype=np.float64)
    if _bootstrap.bootable(tables, len(theta), 1):
        assert tables is not None
        var = _bootstrap.unpaired_variance(tables.counts, tables.measure, tables.positive)
        return _select(theta, var, None, None, level, seed, boot=tables)
    var = np.asarray(se, dtype=np.float64) ** 2
    if floor is not None:
        var = np.fmax(var, floor)
    return _select(theta, var, None, None, level, seed, None if parts is None else ("unpaired", *parts))


def paired(
    theta: np.ndarray,
    u: np.ndarray,
    level: float,
    seed: int | None,
    floor: np.ndarray | None = None,
    classes: np.ndarray | None = None,
    tables: _bootstrap.Tables | None = None,
    pairs: _floors.PairCells | None = None,
) -> Selection:
    """The best set and rank intervals of runs scored on the same examples,
    from their influence matrix ``u[run, example]``
    (:func:`~batcheval.inference.floors.influence_cells`). With the runs' ``tables``
    (``codes`` included, within :data:`~batcheval.inference.board_bootstrap.BOOT_BUDGET` and
    :data:`~batcheval.inference.board_bootstrap.BOOT_CELLS`) the
    critical values come from the studentized bootstrap, and ``floor`` from
    :func:`~batcheval.inference.floors.smoothed_variance` of the tables.

    Examples
    --------
    Two runs on four examples whose errors move together, and a third:

    >>> u = np.array([[0.02, -0.02, 0.02, -0.02], [0.02, -0.02, 0.01, -0.01], [0.0, 0.01, -0.01, 0.0]])
    >>> sel = paired(np.array([0.6, 0.5, 0.56]), u, 0.95, 0)
    >>> sel.could_be_best.tolist(), sel.rank_ci_low.tolist(), sel.rank_ci_high.tolist()
    ([True, False, True], [1.0, 2.0, 1.0], [2.0, 3.0, 3.0])
    """
    theta = np.asarray(theta, dtype=np.float64)
    u = np.asarray(u, dtype=np.float64)
    boot = tables if tables is not None and tables.codes is not None else None
    if _bootstrap.bootable(boot, len(theta), u.shape[1]):
        assert boot is not None
        floor = _floors.smoothed_variance(boot.counts, boot.measure, boot.positive)
    else:
        boot = None
    extra = None
    if floor is not None:  # each run's shortfall below the floor, as an error of its own
        extra = np.maximum(np.asarray(floor, float) - np.einsum("re,re->r", u, u), 0.0)
    dof = None if classes is None or boot is not None else ("paired", classes)
    floor_of = None if pairs is None or boot is not None else _floors.pair_floor(pairs, level)
    return _select(theta, extra, u, None, level, seed, dof, boot=boot, floor_of=floor_of)


def versus_leader(theta: np.ndarray, diff: np.ndarray, se: np.ndarray, level: float) -> Selection:
    """The best set from each run's difference with the leader, ``diff = θ̂_i −
    θ̂_leader``, and its standard error, with Bonferroni's critical value; no
    rank intervals (NaN).

    Examples
    --------
    >>> theta = np.array([0.6, 0.5, 0.3])
    >>> sel = versus_leader(theta, theta - 0.6, np.array([0.0, 0.06, 0.06]), 0.95)
    >>> sel.could_be_best.tolist(), sel.best_method
    ([True, True, False], 'bonferroni')
    """
    theta = np.asarray(theta, dtype=np.float64)
    return _select(theta, None, None, (np.asarray(diff, float), np.asarray(se, float)), level, None)


def _loosen(out: Selection, theta: np.ndarray, ok: np.ndarray) -> Selection:
    """Give back their place to the runs left out of a selection although their estimate is
    defined (a constant run's correlation is 0, but its influence and variance are not): the
    max-statistic selection has no spread to test them by, so it cannot exclude them; each stays
    in the best set (``p_best`` 1) and could rank anywhere among the runs with an estimate, and
    every other run's rank interval reaches that many places lower. This is conservative: the
    board's own pairwise test (``p_vs_leader``, the swap test) may tell such a run apart from
    the leader, and mcc, the same value on binary tables, has an influence and can exclude it.
    Dropping them ranked the rest among themselves: a board of a constant leader and one other
    run gave the other rank interval [1, 1] at rank 2, and a best set without the leader. The
    other runs' sets stay valid: the truly best run, if tested, is still best among the runs it
    is tested against."""
    loose = np.isfinite(theta) & ~ok
    if not loose.any():
        return out
    out = out._replace(loose=loose)
    ranked = not ok.any() or bool(np.isfinite(out.rank_ci_low[ok]).any())
    out.could_be_best[loose] = True
    out.p_best[loose] = 1.0
    if ranked:
        out.rank_ci_high[ok] += loose.sum()
        out.rank_ci_low[loose] = 1.0
        out.rank_ci_high[loose] = float(np.isfinite(theta).sum())
    return out


def exclude_loose(sel: Selection, theta: np.ndarray, p_vs_leader: np.ndarray, level: float) -> Selection:
    """Take out of the best set each run :func:`_loosen` kept (an estimate without a spread: a
    constant run's correlation or markedness) whose own test against the leader rejects at
    Bonferroni's level over the ``R − 1`` others, ``(R − 1)·p ≤ 1 − level``, its estimate below
    the leader's. If such a run is truly best, each of its comparisons with another run errs
    with probability at most ``p``'s level, so the selected leader's does with at most their
    sum, ``1 − level``; if another run is truly best, this rule cannot lose it. ``p_best``
    becomes ``min(1, (R − 1)·p)``. The rank intervals stay as wide as :func:`_loosen` left
    them: the best set and the ranks are two families, and this test tells a run only from the
    leader. A constant baseline on a paired correlation board stayed in the best set with
    ``p_best`` 1 at ``p_vs_leader`` 5e-16.

    Examples
    --------
    >>> sel = Selection(np.array([True, True, True], dtype=object), np.array([1.0, 0.4, 1.0]),
    ...                 np.ones(3), np.full(3, 3.0), "max-t", "max-t", np.array([False, False, True]))
    >>> out = exclude_loose(sel, np.array([0.7, 0.6, 0.0]), np.array([np.nan, 0.3, 1e-6]), 0.95)
    >>> out.could_be_best.tolist(), out.p_best.tolist()
    ([True, True, False], [1.0, 0.4, 2e-06])
    """
    if sel.loose is None:
        return sel
    theta, p = np.asarray(theta, dtype=np.float64), np.asarray(p_vs_leader, dtype=np.float64)
    defined = np.isfinite(theta)
    r = int(defined.sum())
    if r < 2:
        return sel
    top = np.max(theta[defined])
    below = sel.loose & defined & (theta < top) & np.isfinite(p)
    if not below.any():
        return sel
    p_best, best = sel.p_best.copy(), sel.could_be_best.copy()
    p_best[below] = np.minimum(1.0, (r - 1) * p[below])
    best[below] = p_best[below] > 1.0 - level
    return sel._replace(could_be_best=best, p_best=p_best)


def floor_p_best(sel: Selection, floor: np.ndarray, level: float) -> Selection:
    """``p_best`` never below ``floor`` (a paired board: each run's least swap p-value against
    the leader, ``2^-d`` for ``d`` examples the two predict differently,
    :func:`~batcheval.inference.paired_se.swap_floor`): no test of the pair can say more than
    that its ``d`` discordant examples all went the leader's way, which exchangeable runs do
    with probability ``2^-d``. The max statistic's normal or bootstrap tail can: a run five
    examples from a perfect leader got ``p_best`` 0.0018 (macro_f1 on 12 examples) where
    ``2^-5 = 0.031``, and left the set at ``ci=0.99``. A run the floor lifts above ``1 − level``
    is back in the best set, its rank interval reaching rank 1, and every other run's interval
    reaches one rank lower, up to the last: the lifted run may now be above any of them (the
    leader of two kept [1, 1] beside a runner-up now at [1, 2]). Which runs were surely above it
    is not kept, so each is widened, also those whose interval already counted it. Raising
    p-values and widening intervals keeps every level the selection held.

    Examples
    --------
    >>> sel = Selection(np.array([True, False], dtype=object), np.array([1.0, 0.0018]),
    ...                 np.array([1.0, 2.0]), np.array([1.0, 2.0]), "bootstrap", "bootstrap")
    >>> out = floor_p_best(sel, np.array([1.0, 2.0**-5]), 0.99)
    >>> out.could_be_best.tolist(), out.p_best.tolist(), out.rank_ci_low.tolist(), out.rank_ci_high.tolist()
    ([True, True], [1.0, 0.03125], [1.0, 1.0], [2.0, 2.0])
    """
    floor = np.asarray(floor, dtype=np.float64)
    lift = np.isfinite(sel.p_best) & (sel.p_best < floor)
    if not lift.any():
        return sel
    p_best = np.where(lift, floor, sel.p_best)
    back = lift & (p_best > 1.0 - level) & (sel.could_be_best == False)  # noqa: E712 (object array)
    best, low, high = sel.could_be_best.copy(), sel.rank_ci_low.copy(), sel.rank_ci_high
    best[back] = True
    # each run reaches one rank lower for every run brought back but itself
    ranked = back & np.isfinite(low)
    lower = ranked.sum() - ranked
    high = np.where(np.isfinite(high), np.minimum(high + lower, len(high)), high)
    low[ranked] = 1.0
    return sel._replace(could_be_best=best, p_best=p_best, rank_ci_low=low, rank_ci_high=high)


def _select(
    theta: np.ndarray,
    var: np.ndarray | None,
    u: np.ndarray | None,
    leader: tuple[np.ndarray, np.ndarray] | None,
    level: float,
    seed: int | None,
    dof: tuple | None = None,
    boot: _bootstrap.Tables | None = None,
    floor_of: Any = None,
) -> Selection:
    if u is not None:
        ok = np.isfinite(theta) & np.all(np.isfinite(u), axis=1)
        if var is not None:
            ok &= np.isfinite(var)
    elif var is not None:
        ok = np.isfinite(theta) & np.isfinite(var)
    else:
        assert leader is not None
        ok = np.isfinite(theta) & np.isfinite(leader[0]) & np.isfinite(leader[1])
    g = len(theta)
    alpha = 1.0 - level
    idx = np.flatnonzero(ok)
    r = len(idx)
    out = _empty(g)
    if r == 0:
        return _loosen(out, theta, ok)
    th = np.ascontiguousarray(theta[idx])
    if r == 1:
        out.could_be_best[idx] = True
        out.p_best[idx] = 1.0
        out.rank_ci_low[idx] = out.rank_ci_high[idx] = 1.0
        return _loosen(out._replace(best_method="bonferroni", rank_method="bonferroni"), theta, ok)
    rng = np.random.default_rng(seed)
    draws = None
    cov = np.zeros((1, 1))
    if u is not None:
        uu = np.ascontiguousarray(u[idx])
        cov = uu @ uu.T
        extra = np.zeros(r) if var is None else var[idx]
        cov[np.diag_indices(r)] += extra
        v = np.ascontiguousarray(np.diag(cov))
    elif var is not None:
        v = np.ascontiguousarray(var[idx])
    is_paired = u is not None

    def get_draws() -> np.ndarray:
        nonlocal draws
        if draws is None:
            if is_paired:
                draws = rng.standard_normal((N_DRAWS, uu.shape[1])) @ uu.T
                draws += rng.standard_normal((N_DRAWS, r)) * np.sqrt(extra)
            else:
                draws = rng.standard_normal((N_DRAWS, r)) * np.sqrt(v)
        return draws

    rank_method = "none"
    t_normal = None  # runs left on their normal t, and every run's degrees of freedom
    if leader is not None:
        diff, se = leader[0][idx], leader[1][idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, -diff / se, np.where(diff < 0, np.inf, 0.0))
    elif boot is not None:
        stat_abs, stat_vs = _bootstrap.bootstrap_stats(boot, idx, _bootstrap.N_BOOT, rng)
        c, rank_method = _mc_quantile(stat_abs, alpha), "bootstrap"
        above, below = np.empty(r, np.int64), np.empty(r, np.int64)
        t = np.empty(r)
        _k.pair_counts(th, v, cov, is_paired, c, above, below, t)
        out.rank_ci_low[idx] = 1.0 + above
        out.rank_ci_high[idx] = float(r) - below
    elif r <= RANK_LIMIT:
        pairs = r * (r - 1) // 2
        if N_DRAWS * pairs <= DRAW_BUDGET:
            inv = _inverse_sd(v, cov if is_paired else None, np.arange(r))
            stat = np.empty(N_DRAWS)
            _k.max_abs_pair(get_draws(), inv, stat)
            c, rank_method = _mc_quantile(stat, alpha), "max-t"
        else:
            c, rank_method = _upper_z(alpha / (r * (r - 1))), "bonferroni"
        above, below = np.empty(r, np.int64), np.empty(r, np.int64)
        t = np.empty(r)
        if dof is None and floor_of is None:
            _k.pair_counts(th, v, cov, is_paired, c, above, below, t)
        else:
            df_of, df_low = (
                (None, None)
                if dof is None
                else _pair_dof(dof, idx, v, uu if is_paired else None, extra if is_paired else None)
            )
            pf = None if floor_of is None else floor_of(idx)
            sd = None if pf is None else pf.sd_bound
            _pairs_t(th, v, cov if is_paired else None, df_of, c, above, below, t, pf, df_low, sd)
        out.rank_ci_low[idx] = 1.0 + above
        out.rank_ci_high[idx] = float(r) - below
    else:
        if is_paired:  # the caller keeps U within budget, so r is small; kept for completeness
            raise AssertionError("a paired board over RANK_LIMIT has no influence matrix")
        t, front = _frontier_tmax(th, v)
        if dof is not None:
            # Student's t for each run's largest gap, with degrees of freedom no pair of it can
            # fall below: (v_i + v_j)²/(w_i + w_j) ≥ min(v_i²/w_i, v_j²/w_j), and the gap's other
            # run lies on the frontier. Without it the normal tail at Bonferroni's level over R²
            # pairs excluded runs of 6,000 equal ones with 10 positives each (FWER 0.64).
            w = _welch_weights(dof, idx, v)
            with np.errstate(invalid="ignore", divide="ignore"):
                df = np.where(w > 0, v * v / w, np.inf)
            # Student's tail is heavier than the normal one: where (r − 1)·Φ(−t) ≥ 2 it leaves
            # Bonferroni's p (and p_best) at 1, so those runs keep their normal t for now
            # (13 % of the benchmark's 100k runs: the rest are excluded and need their p); the
            # max-t step-down below reads every t, so it converts them first
            df = np.minimum(df, df[front].min())
            near = np.flatnonzero(~(t <= _upper_z(2.0 / (r - 1))))
            t[near] = _as_normal(t[near], df[near])
            t_normal = (np.setdiff1d(np.arange(r), near, assume_unique=True), df)
    t = np.maximum(t, 0.0)  # a run nobody beats: 0, whatever the nearest one below

    # step-down over candidate sets C (Romano & Wolf 2005): each step's critical value
    # bounds the max-t over C × (every other run), so every truly best run stays
    cand = np.arange(r)
    best_method = "bonferroni"
    if boot is not None:
        p = _step_down(stat_vs, cand, t, alpha)
        best_method = "bootstrap"
    else:
        p, cand = _bonferroni_step_down(_bonferroni_p(t, r), alpha)
    if boot is None and leader is None and 0 < N_DRAWS * r * len(cand) <= DRAW_BUDGET:
        if t_normal is not None:
            rest, df = t_normal
            t[rest] = np.maximum(_as_normal(t[rest], df[rest]), 0.0)
        inv = _inverse_sd(v, cov if is_paired else None, cand)
        stat = np.empty((N_DRAWS, len(cand)))
        _k.max_vs(get_draws(), cand, inv, stat)
        p = _step_down(stat, cand, t, alpha)
        best_method = "max-t"
    out.p_best[idx] = p
    out.could_be_best[idx] = p > alpha
    return _loosen(out._replace(best_method=best_method, rank_method=rank_method), theta, ok)


def _step_down(stat: np.ndarray, cand: np.ndarray, t: np.ndarray, alpha: float) -> np.ndarray:
    """Monte-Carlo step-down over candidate sets (Romano & Wolf 2005): ``stat[m, c]`` is
    replicate m's max-t statistic against candidate ``cand[c]``; returns every run's
    p-value ``(1 + #{max over the final candidates ≥ t_i})/(1 + M)``, and 1 for a run no
    other is ahead of (``t_i ≤ 0``): the max-t of a leader is a draw of the null itself, and
    read as a p-value it took the leader out of the set at ``α ≥ ½`` (two runs: ``p ≈ ½``).

    A replicate equal to ``t_i`` within :data:`~batcheval.kernels.selection.TIE_RTOL` counts
    as ``≥ t_i`` (the larger p-value, which keeps the level): the studentized bootstrap of small
    tables reproduces the observed statistic exactly, and the last bit of ``t_i`` decided 175
    such replicates of a 3-run board (``p_best`` 0.735 ranked lowest first on miss_rate, 0.642
    on recall, one board).

    Examples
    --------
    >>> stat = np.array([[1.0], [2.0], [3.0]])
    >>> _step_down(stat, np.array([0]), np.array([2.0 * (1 + 1e-15), 2.5, 0.0]), 0.05).tolist()
    [0.75, 0.5, 1.0]
    """
    m = stat.shape[0]
    cols = np.arange(len(cand))
    # the least t_i a replicate may fall short of and still count as reaching it
    # an infinite t (a difference with no spread: compare_auc's se 0) is its own least (inf − inf
    # was NaN, with numpy's RuntimeWarning)
    with np.errstate(invalid="ignore"):
        reach = np.where(np.isinf(t), t, t - _k.TIE_RTOL * np.abs(t))
    while True:
        top = np.sort(stat[:, cols].max(axis=1))
        p = np.minimum((1.0 + m - np.searchsorted(top, reach, "left")) / (1.0 + m), 1.0)
        p[~(t > 0)] = 1.0
        stay = cols[p[cand[cols]] > alpha]
        if len(stay) == len(cols) or len(stay) == 0:
            return p
        cols = stay


def _pair_dof(
    dof: tuple, idx: np.ndarray, v: np.ndarray, uu: np.ndarray | None, extra: np.ndarray | None
) -> tuple[Any, np.ndarray]:
    """A function of two index arrays ``(i, j)`` giving the Welch–Satterthwaite degrees of
    freedom of each pair's variance (inf where nothing is estimated), and a bound per run that
    no pair's falls below: ``df(i, j) ≥ min(low[i], low[j])``.

    Both are ``(Σ p)²/Σ (p²/s)`` of nonnegative parts ``p`` (a class's share of the variance;
    paired: plus the runs' extra, which only adds to the numerator) over sizes ``s``, and
    ``Σ p²/s ≤ (Σ p)²/min s``, so the smallest size of the parts bounds it: the board's
    smallest class (paired), the smaller of the two runs' smallest (unpaired)."""
    if dof[0] == "paired":
        classes = np.asarray(dof[1])
        assert uu is not None and extra is not None
        grams, sizes = [], []
        for k in np.unique(classes[classes >= 0]):
            on = classes == k
            part = uu[:, on]
            grams.append(part @ part.T)
            sizes.append(max(int(on.sum()) - 1, 1))

        def paired_df(i: np.ndarray, j: np.ndarray) -> np.ndarray:
            num = extra[i] + extra[j]
            den = np.zeros_like(num)
            for gram, size in zip(grams, sizes, strict=True):
                d = np.diag(gram)
                part = np.maximum(d[i] + d[j] - 2.0 * gram[i, j], 0.0)
                num = num + part
                den += part * part / size
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(den > 0, num * num / den, np.inf)

        return paired_df, np.full(len(idx), float(min(sizes, default=np.inf)))
    w = _welch_weights(dof, idx, v)
    # every class's divisor in _welch_weights, max(n − 1, 1): a class of one example or none
    # divides by 1 (and a run with no class at all puts its variance on one)
    low = np.maximum(np.asarray(dof[2], float)[idx] - 1.0, 1.0).min(axis=1)

    def unpaired_df(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        num = v[i] + v[j]
        den = w[i] + w[j]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num * num / den, np.inf)

    return unpaired_df, low


def _welch_weights(dof: tuple, idx: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each unpaired run's ``Σ_k s_k²/(n_k − 1)``, its variance ``v`` split over its classes
    as ``dof``'s parts are: a pair's Welch–Satterthwaite degrees of freedom are
    ``(v_i + v_j)²/(w_i + w_j)``."""
    if np.shape(dof[1])[1] == 2:  # a kernel, the same bits: 10 -> 1 ms for 100k runs
        w = np.empty(len(idx))
        _k.binary_welch_weights(np.asarray(dof[1], float), np.asarray(dof[2]), idx, v, w)
        return w
    parts, sizes = np.asarray(dof[1], float)[idx], np.asarray(dof[2], float)[idx]
    total = parts.sum(axis=1)
    # the parts scaled to the (floored) variance used; a run without spread in any
    # class puts it all on its smallest class
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(total[:, None] > 0, parts * (v / total)[:, None], 0.0)
    smallest = np.argmin(np.where(sizes > 0, sizes, np.inf), axis=1)
    none = total <= 0
    scaled[none, smallest[none]] = v[none]
    return np.where(sizes > 1, scaled * scaled / np.maximum(sizes - 1, 1), scaled * scaled).sum(axis=1)


def _as_normal(z: np.ndarray, df: np.ndarray) -> np.ndarray:
    """The normal deviate with the tail of Student's t at ``z`` with ``df`` degrees of
    freedom: a studentized difference whose variance rests on few examples counts
    for less. Student's tail is heavier, so it is never further from 0 than ``z``; where
    ``stdtr`` rounds (``|z|`` near 1e-8 at one degree of freedom) or underflows (``|z|`` above
    about 38) it is held to ``z``, which :func:`_pairs_t`'s pruning relies on.

    Examples
    --------
    >>> z, df = np.array([2.0, -2.0, 1e-8, 60.0]), np.array([10.0, 10.0, 1.0, 1e3])
    >>> _as_normal(z, df).round(4).tolist()
    [1.7904, -1.7904, 0.0, 60.0]
    """
    from scipy import special

    finite = np.isfinite(z) & np.isfinite(df)
    dof, at = np.where(finite, df, 1.0), -np.abs(np.where(finite, z, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        tail = _spread(special.stdtr, dof, at)
        out = np.sign(z) * np.minimum(-special.ndtri(tail), np.abs(z))
    return np.where(finite, out, z)


def _spread(ufunc: Any, *args: np.ndarray) -> np.ndarray:
    """``ufunc(*args)`` of equal-length arrays in one slice per thread: scipy's loops release the
    GIL, and Student's tail of 100k runs takes 26 ms of one thread (elementwise: the same
    values)."""
    threads = _n_threads()
    n = len(args[0])
    if threads < 2 or n < _SPREAD_MIN:
        return ufunc(*args)
    from concurrent.futures import ThreadPoolExecutor

    bounds = [(n * i // threads, n * (i + 1) // threads) for i in range(threads)]
    with ThreadPoolExecutor(threads) as pool:
        parts = list(pool.map(lambda b: ufunc(*(a[b[0] : b[1]] for a in args)), bounds))
    return np.concatenate(parts)


def _pairs_t(th, v, cov, df_of, c, above, below, tmax, floor_of=None, df_low=None, floor_sd=None) -> None:
    """:func:`~batcheval.kernels.selection.pair_counts` with every pair's variance at least
    ``floor_of``'s and its standardized difference taken through :func:`_as_normal`, in
    blocks of rows; ``tmax`` is each row's largest difference above it, 0 where none is
    positive (as :func:`_select` reads it).

    Both steps only shrink ``|z|``, so a pair is finished only where the counts or a row's
    max can read it (:func:`_read_first`, :func:`_read_more`): the same counts and maxima as
    finishing every pair, from 0.4-3 % of the pairs on the staircases of 1,000-4,000 runs
    of ``benchmarks/bench_selection_cost.py`` (Student's tail of every pair had been 60 % of
    the call). Nor do the counts need a pair that stays beyond ``c`` however far both steps
    go: with ``df_of(i, j) ≥ min(df_low[i], df_low[j])`` and a floor at most ``(floor_sd[i] +
    floor_sd[j])²`` (:func:`_pair_dof`, :class:`~batcheval.inference.floors._FloorBlocks`),
    :func:`_surely_beyond`."""
    r = len(th)
    step = max(1, 1_000_000 // r)
    tau = c * (1.0 + _SURE_SLACK) if df_low is None else _t_beyond(c, df_low)
    if floor_of is not None and floor_sd is None:  # a floor of no known bound: no pair is sure
        floor_sd = np.full(r, np.inf)
    for lo in range(0, r, step):
        rows = slice(lo, min(r, lo + step))
        diff = th[None, :] - th[rows, None]
        var = v[rows, None] + v[None, :]
        if cov is not None:
            var = var - 2.0 * cov[rows]
        var = np.maximum(var, 0.0)
        z = _standardized(diff, var)
        own = np.arange(rows.start, rows.stop)
        z[own - lo, own] = np.nan
        raw = z.copy()
        read = _read_first(raw, c, _surely_beyond(raw, diff, rows, tau, floor_sd))
        _finish(z, read, diff, var, floor_of, df_of, rows)
        more = _read_more(raw, z, read)
        if more.any():
            _finish(z, more, diff, var, floor_of, df_of, rows)
        above[rows] = _beyond(z, c).sum(axis=1)
        below[rows] = _beyond(-z, c).sum(axis=1)
        tmax[rows] = np.maximum(np.nanmax(np.where(np.isnan(z), -np.inf, z), axis=1), 0.0)


def _t_beyond(c: float, df: np.ndarray) -> np.ndarray:
    """The ``|z|`` beyond which :func:`_as_normal` at ``df`` or more degrees of freedom stays
    beyond ``c``: Student's quantile at the normal tail of ``c`` (``c`` itself where ``df`` is
    inf, which :func:`_as_normal` leaves normal; inf where it is NaN, no bound), a little
    widened against rounding.

    Examples
    --------
    >>> _t_beyond(2.0, np.array([np.inf, 1e6, 10.0, np.nan])).round(4).tolist()
    [2.0, 2.0, 2.2837, inf]
    """
    from scipy import special

    finite = np.isfinite(df)
    with np.errstate(invalid="ignore"):
        q = -special.stdtrit(np.where(finite, df, 1.0), special.ndtr(-c))
    return np.where(finite, q, np.where(np.isnan(df), np.inf, c)) * (1.0 + _SURE_SLACK)


#: relative widening of :func:`_t_beyond`: far above ``stdtr``'s and ``stdtrit``'s rounding
_SURE_SLACK = 1e-6


def _surely_beyond(z, diff, rows: slice, tau, floor_sd) -> np.ndarray:
    """The pairs of a block whose ``|z|`` stays beyond ``c`` after the floor and Student's tail:
    beyond ``τ`` (:func:`_t_beyond`, the larger of the two runs' where it is per run: fewer
    degrees of freedom only shrink ``|z|``) at their own variance, and ``|diff| > τ·(floor_sd[i]
    + floor_sd[j])``, at the floor's bound (the floor can only raise the variance to it)."""
    t = np.maximum(tau[rows, None], tau[None, :]) if np.ndim(tau) else tau
    with np.errstate(invalid="ignore"):
        sure = np.abs(z) > t
        if floor_sd is not None:
            sure &= np.abs(diff) > t * (floor_sd[rows, None] + floor_sd[None, :])
    return sure


def _finish(z, read, diff, var, floor_of, df_of, rows: slice) -> None:
    """``z`` of the pairs ``read`` of the block ``rows``, in place: the variance at least
    ``floor_of(rows, (i, j))``, then Student's tail at the pair's degrees of freedom."""
    i, j = np.nonzero(read)
    at = var[i, j] if floor_of is None else np.maximum(var[i, j], floor_of(rows, (i, j)))
    done = _standardized(diff[i, j], at)
    z[i, j] = done if df_of is None else _as_normal(done, df_of(i + rows.start, j))


def _beyond(z: np.ndarray, c: float) -> np.ndarray:
    """Where ``z`` exceeds the critical value ``c`` by more than
    :data:`~batcheval.kernels.selection.TIE_RTOL` of it, as
    :func:`~batcheval.kernels.selection.beyond` (NaN never does): a ``z`` equal to ``c`` to the
    last bits is a tie, and no evidence.

    Examples
    --------
    >>> _beyond(np.array([3.704051835490427, 3.7040518355, np.nan]), 3.704051835490426).tolist()
    [False, True, False]
    """
    with np.errstate(invalid="ignore"):
        return z > c + _k.TIE_RTOL * abs(c)


def _standardized(diff: np.ndarray, var: np.ndarray) -> np.ndarray:
    """``diff/√var``, ±inf for a difference of no variance and 0 for none at all."""
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(var > 0, diff / np.sqrt(var), np.sign(diff) * np.inf)
    z[diff == 0] = 0.0
    return z


#: relative slack for a finished ``|z|`` never reading above the raw one (which the floor's
#: ``max`` and :func:`_as_normal`'s bound already ensure): a pair left raw must not cross c
#: (or a row's max) by a rounding
_TAIL_SLACK = 1e-9


def _read_first(z: np.ndarray, c: float, sure: np.ndarray) -> np.ndarray:
    """The pairs :func:`_pairs_t` must finish whatever their value: beyond ±c, where the
    counts read them, unless ``sure`` to stay there; and each row's largest."""
    read = (np.abs(z) > c * (1.0 - _TAIL_SLACK)) & ~sure
    read[np.arange(len(z)), np.argmax(np.where(np.isnan(z), -np.inf, z), axis=1)] = True
    return read


def _read_more(raw: np.ndarray, done: np.ndarray, read: np.ndarray) -> np.ndarray:
    """The pairs left raw that could still be their row's max: a finished positive value
    is at most its raw one, so only those raw above the row's largest finished value.

    Examples
    --------
    A row whose largest raw value finishes at 1.3 (few degrees of freedom): both raw values
    above 1.3 could still be its max, the one below it cannot:

    >>> raw = np.array([[np.nan, 3.0, 2.9, 2.5, 1.0]])
    >>> done = np.array([[np.nan, 1.3, 2.9, 2.5, 1.0]])
    >>> _read_more(raw, done, np.array([[False, True, False, False, False]])).tolist()
    [[False, False, True, True, False]]
    """
    top = np.maximum(np.max(np.where(read, done, -np.inf), axis=1), 0.0)[:, None]
    finite = np.where(np.isnan(raw), -np.inf, raw)
    with np.errstate(invalid="ignore"):  # an infinite top leaves NaN, past which nothing is read
        floor = top - _TAIL_SLACK * (1.0 + top)
    return ~read & (finite > floor) & (finite > 0)


def _mc_quantile(stat: np.ndarray, alpha: float) -> float:
    """The smallest draw c with ``(1 + #{stat > c})/(1 + M) ≤ α``: exceeding c is
    a Monte-Carlo test at level α."""
    s = np.sort(stat)
    m = len(s)
    k = min(m - 1, max(0, math.ceil((1.0 - alpha) * (m + 1)) - 1))
    return float(s[k])


def _inverse_sd(v: np.ndarray, cov: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
    """``1/s_ij`` for i in ``rows`` and every j (0 where ``s_ij = 0``)."""
    var = v[rows, None] + v[None, :]
    if cov is not None:
        var = var - 2.0 * cov[rows]
    with np.errstate(divide="ignore"):
        inv = 1.0 / np.sqrt(np.maximum(var, 0.0))
    return np.ascontiguousarray(np.where(var > 0, inv, 0.0))


def _frontier_order(theta: np.ndarray, var: np.ndarray) -> np.ndarray:
    """``np.lexsort((var, -theta))``, or the part of it that :func:`_frontier_tmax` can keep:
    the runs of a variance below the first's (highest θ, then lowest variance, then lowest
    index), which comes first and bounds every later run's running minimum. The rest never
    passes it, nor lowers it. (The benchmark's 100k unpaired runs: 14,211 such, 19 → 2.5 ms.)
    A NaN would carry through the running minimum: then every run is sorted."""
    if len(theta) < 2 or not (np.isfinite(theta).all() and np.isfinite(var).all()):
        return np.lexsort((var, -theta))
    top = np.flatnonzero(theta == theta.max())
    first = top[np.argmin(var[top])]
    kept = np.sort(np.append(np.flatnonzero(var < var[first]), first))  # index order: lexsort's last key
    return kept[np.lexsort((var[kept], -theta[kept]))]


def _frontier_tmax(theta: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``max_j (θ_j − θ_i)/sqrt(v_i + v_j)`` over the Pareto frontier (high θ, low v), and
    the frontier's runs."""
    order = _frontier_order(theta, var)
    running = np.minimum.accumulate(var[order])
    keep = np.concatenate(([True], var[order][1:] < running[:-1]))
    front = np.ascontiguousarray(order[keep])
    t = np.empty(len(theta))
    _k.frontier_tmax(theta, var, front, t)
    return t, front


#: Pinelis's (1994) constant: a Rademacher sum ``S = Σ a_e ε_e`` with ``Σ a_e² = 1`` has
#: ``P(S ≥ x) ≤ (2e³/9)·Φ(−x)`` at every x
PINELIS = 2.0 * math.e**3 / 9.0
# below this two-sided p-value Pinelis's bound is the smaller (their ratio is at most 0.944 on a
# log grid of 200,000 points from 1e-300 up to it), so Hoeffding's needs no normal quantile there
_PINELIS_BELOW = 0.15


def sign_flip_tail(p_two: np.ndarray) -> np.ndarray:
    """A one-sided p-value of a paired difference, valid at any level, from its
    two-sided sign-flip p-value ``p_two`` (:func:`batcheval.inference.paired_se.sign_flip_p`
    with ``mid_p=True``: enumerated exactly, or the normal tail ``2·Φ(−x)`` of the
    self-normalized statistic ``x = |d|/sqrt(Σ_e w_e²)`` over the discordant examples).

    ``min(1, (e³/9)·p_two, exp(−x²/2))``: where ``p_two`` is enumerated, the null law is
    symmetric, so ``P(|D| > |d|) + ½·P(|D| = |d|) ≥ P(D ≥ |d|)`` and both other terms are
    at least ``p_two`` (``2·Φ(−x) ≤ exp(−x²/2)``); where it is the normal tail, the
    one-sided tail of the Rademacher sum is at most Pinelis's ``(2e³/9)·Φ(−x)`` (Pinelis
    1994, Ann. Statist. 22, Theorem 1.2) and Hoeffding's ``exp(−x²/2)``. Both hold for
    any number of discordant examples, where a normal tail at Bonferroni's level over
    millions of pairs does not.

    Examples
    --------
    >>> sign_flip_tail(np.array([0.25, 1e-6, 1.0])).round(9).tolist()
    [0.515998279, 2.232e-06, 1.0]
    """
    from scipy import special

    p_two = np.asarray(p_two, dtype=np.float64)
    tail = np.minimum(1.0, PINELIS / 2.0 * p_two)
    high = np.flatnonzero(p_two >= _PINELIS_BELOW)  # NaN stays NaN
    x = -special.ndtri(np.minimum(p_two[high], 1.0) / 2.0)
    tail[high] = np.minimum(tail[high], np.where(x > 0, np.exp(-0.5 * x * x), 1.0))
    return tail


def versus_leader_sign_flip(
    theta: np.ndarray, diff: np.ndarray, p_two: np.ndarray, level: float, floor: Any = None
) -> Selection:
    """The best set of a paired board from each run's exact sign-flip test against the
    leader: ``diff = θ̂_i − θ̂_leader`` and its two-sided mid-p value ``p_two``, read
    one-sided by :func:`sign_flip_tail`, in :func:`versus_leader`'s Bonferroni step-down
    over ordered pairs (``p_best = min(1, |C|·(R − 1)·p)``) on the p-values themselves; no
    rank intervals. Under the global null of exchangeable runs every pair's test is exact
    (or bounded), so the set keeps every run with probability ≥ 1 − α for any number of
    examples, with no standard error to collapse. The sign-flip null is exchangeability of a
    pair's predictions, not equality of their measure: for runs of equal informedness whose
    errors fall differently on the classes the bound is approximate. So ``floor``, a function
    of run indices giving each one's least-favourable paired variance against the leader
    (:func:`~batcheval.inference.floors.leader_floor`), adds a second test: a run leaves only
    when the normal tail of its difference over that variance, read through the same bounds,
    says so too (the larger
    p-value: valid wherever the sign-flip bound is, and where it is not, a normal
    approximation shown by simulation to hold; docs/calibration_leader.md, Stop 38).

    Examples
    --------
    >>> theta = np.array([0.6, 0.5, 0.1])
    >>> sel = versus_leader_sign_flip(theta, theta - 0.6, np.array([1.0, 0.3, 1e-14]), 0.95)
    >>> sel.could_be_best.tolist(), sel.best_method
    ([True, True, False], 'bonferroni')
    """
    theta = np.asarray(theta, dtype=np.float64)
    diff = np.asarray(diff, dtype=np.float64)
    tail = sign_flip_tail(p_two)
    p_one = np.where(diff < 0, tail, np.where(np.isnan(diff), np.nan, 1.0))
    ok = np.isfinite(theta) & np.isfinite(p_one)
    idx = np.flatnonzero(ok)
    r = len(idx)
    if r < 2:  # nothing to compare: versus_leader's answer for none or one run
        return versus_leader(theta, np.where(np.isfinite(p_one), 0.0, np.nan), np.ones(len(theta)), level)
    if floor is not None:
        from scipy import special

        # the floor can only raise a p-value, so only a run that could leave, (R − 1)·p ≤ α at the
        # smallest candidate set, needs it
        could = idx[(diff[idx] < 0) & ((r - 1) * p_one[idx] <= 1.0 - level)]
        var = floor(could)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.where(var > 0, np.abs(diff[could]) / np.sqrt(var), np.inf)
        # sign_flip_tail of the normal tail 2·Φ(−x), read from x itself (no normal quantile)
        bound = np.minimum(np.minimum(1.0, PINELIS * special.ndtr(-x)), np.exp(-0.5 * x * x))
        p_one[could] = np.fmax(p_one[could], bound)
    alpha = 1.0 - level
    p, _ = _bonferroni_step_down(np.minimum(1.0, (r - 1) * p_one[idx]), alpha)
    out = _empty(len(theta))
    out.p_best[idx] = p
    out.could_be_best[idx] = p > alpha
    return _loosen(out._replace(best_method="bonferroni"), theta, ok)
