"""Binary measures for every group at once, from the four cell counts.

The kernel computes the measures of spec §2 and the chi-squared family of §3
that are asked for: ``slots[m]`` is the output row of measure ``m`` (its index
in :data:`NAMES`) or -1 to skip it. Each measure asked for is its own loop
over a block of groups (the cells stay in cache between loops), holding one
formula, so it vectorises; asking for all of them costs about a tenth more
than one loop testing every measure per group did, since each loop converts
the cells again.

Determinants are formed in exact int64 arithmetic (``tp*tn - fp*fn``) so that
coefficients close to zero are not lost to cancellation; floats appear only
in the final divisions.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .jit import jit, jit_parallel, prange

NAMES = (
    "prevalence",
    "bias",
    "recall",
    "precision",
    "inverse_recall",
    "inverse_precision",
    "fallout",
    "miss_rate",
    "accuracy",
    "jaccard",
    "f1",
    "f_beta",
    "g_measure",
    "informedness",
    "markedness",
    "correlation",
    "bookmark",
    "dtp",
    "evenness_real",
    "evenness_predicted",
    "evenness_global",
    "kappa_cohen",
    "kappa_fleiss",
    "wracc",
    "auc_single",
    "lift",
    "lr_plus",
    "lr_minus",
    "odds_ratio",
    "chi2",
    "g2",
    "chi2_pos_pred",
    "chi2_pos_real",
    "chi2_kb",
    "chi2_km",
    "chi2_kbm",
)

# counts above this make tp*tn overflow int64; the determinant then goes float
EXACT_LIMIT = 3_000_000_000
# groups per block: a block's cell columns (4 × 16 KiB) stay in L1/L2 while each
# measure asked for makes its own pass over them
_BLOCK = 2048


@jit
def safe_ratio(num, den):
    """A plain ratio: NaN when the denominator is 0 (spec §2, degenerate tables)."""
    return num / den if den != 0 else np.nan


@jit
def margin_coef(num, den):
    """A chance-corrected coefficient: 0 when its margin is 0, because dtp is too."""
    return num / den if den != 0 else 0.0


@jit
def _xlogx_ratio(o, e):
    """``o * ln(o / e)`` with 0·ln 0 = 0, one cell of G²."""
    return o * math.log(o / e) if o > 0 else 0.0


@jit
def _correlation(det, rp, rn, pp, pn):
    return margin_coef(det, math.sqrt(rp * rn) * math.sqrt(pp * pn))


@jit
def _evenness(share):
    return share * (1.0 - share)


class _Table(NamedTuple):
    """One table's cells as floats, its margins and determinant, and β²."""

    a: float  # tp
    b: float  # fp
    c: float  # fn
    d: float  # tn
    n: float
    rp: float  # real positives
    rn: float
    pp: float  # predicted positives
    pn: float
    det: float  # tp·tn − fp·fn, formed exactly while it fits int64
    b2: float


@jit
def _table(tp, fp, fn, tn, b2):
    a, b, c, d = float(tp), float(fp), float(fn), float(tn)
    # a select, not a branch, so that the per-measure loops stay vectorisable
    exact = float(tp * tn - fp * fn)
    det = exact if tp + fp + fn + tn < EXACT_LIMIT else a * d - b * c
    return _Table(a, b, c, d, a + b + c + d, a + c, b + d, a + b, c + d, det, b2)


# One formula per measure of NAMES, of a table t (spec §2 and §3).
@jit
def _prevalence(t):
    return t.rp / t.n


@jit
def _bias(t):
    return t.pp / t.n


@jit
def _recall(t):
    return safe_ratio(t.a, t.rp)


@jit
def _precision(t):
    return safe_ratio(t.a, t.pp)


@jit
def _inverse_recall(t):
    return safe_ratio(t.d, t.rn)


@jit
def _inverse_precision(t):
    return safe_ratio(t.d, t.pn)


@jit
def _fallout(t):
    return safe_ratio(t.b, t.rn)


@jit
def _miss_rate(t):
    return safe_ratio(t.c, t.rp)


@jit
def _accuracy(t):
    return (t.a + t.d) / t.n


@jit
def _jaccard(t):
    return safe_ratio(t.a, t.a + t.b + t.c)


@jit
def _f1(t):
    return safe_ratio(2.0 * t.a, 2.0 * t.a + t.b + t.c)


@jit
def _f_beta(t):
    return safe_ratio((1.0 + t.b2) * t.a, (1.0 + t.b2) * t.a + t.b2 * t.c + t.b)


@jit
def _g_measure(t):
    return math.sqrt(safe_ratio(t.a, t.rp) * safe_ratio(t.a, t.pp))


@jit
def _informedness(t):
    return margin_coef(t.det, t.rp * t.rn)


@jit
def _markedness(t):
    return margin_coef(t.det, t.pp * t.pn)


@jit
def _correlation_of(t):
    return _correlation(t.det, t.rp, t.rn, t.pp, t.pn)


@jit
def _bookmark(t):
    return margin_coef(t.det, t.rp * t.rn) * margin_coef(t.det, t.pp * t.pn)


@jit
def _dtp(t):
    return t.det / (t.n * t.n)


@jit
def _evenness_real(t):
    return _evenness(t.rp / t.n)


@jit
def _evenness_predicted(t):
    return _evenness(t.pp / t.n)


@jit
def _evenness_global(t):
    return math.sqrt(_evenness(t.rp / t.n) * _evenness(t.pp / t.n))


@jit
def _kappa_cohen(t):
    return margin_coef(2.0 * t.det, t.rp * t.pn + t.pp * t.rn)


@jit
def _kappa_fleiss(t):
    # Scott/Fleiss: (accuracy - e)/(1 - e), both scaled by 4n². Not dtp over a
    # margin term as spec §2's identity says: that holds only when prevalence = bias.
    s_pos = t.rp + t.pp
    s_neg = t.rn + t.pn
    n4 = 4.0 * t.n
    return margin_coef(
        n4 * (t.a + t.d) - s_pos * s_pos - s_neg * s_neg, n4 * t.n - s_pos * s_pos - s_neg * s_neg
    )


@jit
def _wracc(t):
    return 4.0 * (t.det / (t.n * t.n))


@jit
def _auc_single(t):
    # (recall + inverse_recall)/2: NaN with one class absent, like any ROC AUC
    return 0.5 * (safe_ratio(t.a, t.rp) + safe_ratio(t.d, t.rn))


@jit
def _lift(t):
    return safe_ratio(t.a * t.n, t.pp * t.rp)


@jit
def _lr_plus(t):
    return safe_ratio(safe_ratio(t.a, t.rp), safe_ratio(t.b, t.rn))


@jit
def _lr_minus(t):
    return safe_ratio(safe_ratio(t.c, t.rp), safe_ratio(t.d, t.rn))


@jit
def _odds_ratio(t):
    return safe_ratio(t.a * t.d, t.b * t.c)


@jit
def _chi2(t):
    r = _correlation(t.det, t.rp, t.rn, t.pp, t.pn)
    return t.n * r * r


@jit
def _g2(t):
    if not (t.rp > 0 and t.rn > 0 and t.pp > 0 and t.pn > 0):
        return 0.0
    return 2.0 * (
        _xlogx_ratio(t.a, t.rp * t.pp / t.n)
        + _xlogx_ratio(t.b, t.rn * t.pp / t.n)
        + _xlogx_ratio(t.c, t.rp * t.pn / t.n)
        + _xlogx_ratio(t.d, t.rn * t.pn / t.n)
    )


# the +P row and +R column statistics are 0 when that row/column is empty
@jit
def _chi2_pos_pred(t):
    bm = margin_coef(t.det, t.rp * t.rn)
    return margin_coef(bm * bm * t.rp * t.rn, t.pp)


@jit
def _chi2_pos_real(t):
    mk = margin_coef(t.det, t.pp * t.pn)
    return margin_coef(mk * mk * t.pp * t.pn, t.rp)


@jit
def _chi2_kb(t):
    bm = margin_coef(t.det, t.rp * t.rn)
    return 2.0 * t.n * bm * bm * _evenness(t.rp / t.n)


@jit
def _chi2_km(t):
    mk = margin_coef(t.det, t.pp * t.pn)
    return 2.0 * t.n * mk * mk * _evenness(t.pp / t.n)


@jit
def _chi2_kbm(t):
    even_g = math.sqrt(_evenness(t.rp / t.n) * _evenness(t.pp / t.n))
    return 2.0 * t.n * margin_coef(t.det, t.rp * t.rn) * margin_coef(t.det, t.pp * t.pn) * even_g


@jit
def measure_value(m, tp, fp, fn, tn, b2):
    """Measure ``NAMES[m]`` of one table, as :func:`binary_measures` gives it: for
    kernels that measure tables one at a time (a branch per measure, which the
    CPU predicts when ``m`` is the same for every call). Called, not inlined:
    36 formulas inlined at every call site would take minutes to compile."""
    t = _table(tp, fp, fn, tn, b2)
    if t.n == 0:
        return np.nan
    if m == 0:
        return _prevalence(t)
    elif m == 1:
        return _bias(t)
    elif m == 2:
        return _recall(t)
    elif m == 3:
        return _precision(t)
    elif m == 4:
        return _inverse_recall(t)
    elif m == 5:
        return _inverse_precision(t)
    elif m == 6:
        return _fallout(t)
    elif m == 7:
        return _miss_rate(t)
    elif m == 8:
        return _accuracy(t)
    elif m == 9:
        return _jaccard(t)
    elif m == 10:
        return _f1(t)
    elif m == 11:
        return _f_beta(t)
    elif m == 12:
        return _g_measure(t)
    elif m == 13:
        return _informedness(t)
    elif m == 14:
        return _markedness(t)
    elif m == 15:
        return _correlation_of(t)
    elif m == 16:
        return _bookmark(t)
    elif m == 17:
        return _dtp(t)
    elif m == 18:
        return _evenness_real(t)
    elif m == 19:
        return _evenness_predicted(t)
    elif m == 20:
        return _evenness_global(t)
    elif m == 21:
        return _kappa_cohen(t)
    elif m == 22:
        return _kappa_fleiss(t)
    elif m == 23:
        return _wracc(t)
    elif m == 24:
        return _auc_single(t)
    elif m == 25:
        return _lift(t)
    elif m == 26:
        return _lr_plus(t)
    elif m == 27:
        return _lr_minus(t)
    elif m == 28:
        return _odds_ratio(t)
    elif m == 29:
        return _chi2(t)
    elif m == 30:
        return _g2(t)
    elif m == 31:
        return _chi2_pos_pred(t)
    elif m == 32:
        return _chi2_pos_real(t)
    elif m == 33:
        return _chi2_kb(t)
    elif m == 34:
        return _chi2_km(t)
    elif m == 35:
        return _chi2_kbm(t)
    return np.nan


@jit
def _measure_rows(m, row, tp, fp, fn, tn, b2, out, lo, hi):
    """``out[row, g]`` = measure ``NAMES[m]`` of table g for the groups
    ``lo..hi-1`` (NaN for an empty table); nothing when ``row`` is -1.

    One loop per measure, each with its formula alone, so that it vectorises.
    """
    if row < 0:
        return
    o = out[row]
    if m == 0:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _prevalence(t) if t.n != 0 else np.nan
    elif m == 1:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _bias(t) if t.n != 0 else np.nan
    elif m == 2:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _recall(t) if t.n != 0 else np.nan
    elif m == 3:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _precision(t) if t.n != 0 else np.nan
    elif m == 4:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _inverse_recall(t) if t.n != 0 else np.nan
    elif m == 5:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _inverse_precision(t) if t.n != 0 else np.nan
    elif m == 6:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _fallout(t) if t.n != 0 else np.nan
    elif m == 7:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _miss_rate(t) if t.n != 0 else np.nan
    elif m == 8:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _accuracy(t) if t.n != 0 else np.nan
    elif m == 9:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _jaccard(t) if t.n != 0 else np.nan
    elif m == 10:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _f1(t) if t.n != 0 else np.nan
    elif m == 11:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _f_beta(t) if t.n != 0 else np.nan
    elif m == 12:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _g_measure(t) if t.n != 0 else np.nan
    elif m == 13:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _informedness(t) if t.n != 0 else np.nan
    elif m == 14:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _markedness(t) if t.n != 0 else np.nan
    elif m == 15:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _correlation_of(t) if t.n != 0 else np.nan
    elif m == 16:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _bookmark(t) if t.n != 0 else np.nan
    elif m == 17:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _dtp(t) if t.n != 0 else np.nan
    elif m == 18:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _evenness_real(t) if t.n != 0 else np.nan
    elif m == 19:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _evenness_predicted(t) if t.n != 0 else np.nan
    elif m == 20:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _evenness_global(t) if t.n != 0 else np.nan
    elif m == 21:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _kappa_cohen(t) if t.n != 0 else np.nan
    elif m == 22:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _kappa_fleiss(t) if t.n != 0 else np.nan
    elif m == 23:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _wracc(t) if t.n != 0 else np.nan
    elif m == 24:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _auc_single(t) if t.n != 0 else np.nan
    elif m == 25:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _lift(t) if t.n != 0 else np.nan
    elif m == 26:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _lr_plus(t) if t.n != 0 else np.nan
    elif m == 27:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _lr_minus(t) if t.n != 0 else np.nan
    elif m == 28:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _odds_ratio(t) if t.n != 0 else np.nan
    elif m == 29:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2(t) if t.n != 0 else np.nan
    elif m == 30:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _g2(t) if t.n != 0 else np.nan
    elif m == 31:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2_pos_pred(t) if t.n != 0 else np.nan
    elif m == 32:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2_pos_real(t) if t.n != 0 else np.nan
    elif m == 33:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2_kb(t) if t.n != 0 else np.nan
    elif m == 34:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2_km(t) if t.n != 0 else np.nan
    elif m == 35:
        for g in range(lo, hi):
            t = _table(tp[g], fp[g], fn[g], tn[g], b2)
            o[g] = _chi2_kbm(t) if t.n != 0 else np.nan


@jit_parallel
def binary_measures(tp, fp, fn, tn, beta, slots, out):
    """Write the measures selected by ``slots`` into ``out[slot, group]``.

    ``tp fp fn tn`` are the int64 cell columns of G tables. Each measure runs
    as its own loop over a block of groups that stays in cache: a loop with
    one formula vectorises, where one loop testing every measure for every
    group did not (informedness alone over 10M tables: 127 → 20 ms). The
    loop over measures sits here, not in a helper of its own: numba would
    compile and optimise the 36 loops once more inside such a helper.
    """
    n_groups = tp.shape[0]
    n_blocks = (n_groups + _BLOCK - 1) // _BLOCK
    for i in prange(n_blocks):
        lo = i * _BLOCK
        hi = min(n_groups, lo + _BLOCK)
        for m in range(len(NAMES)):
            _measure_rows(m, slots[m], tp, fp, fn, tn, beta * beta, out, lo, hi)
