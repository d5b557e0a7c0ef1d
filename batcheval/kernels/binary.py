"""Binary measures for every group at once, from the four cell counts.

The kernel computes each measure of spec §2 and the chi-squared family of §3
for a group and writes the ones asked for: ``slots[m]`` is the output row of
measure ``m`` (its index in :data:`NAMES`) or -1 to skip it.

Determinants are formed in exact int64 arithmetic (``tp*tn - fp*fn``) so that
coefficients close to zero are not lost to cancellation; floats appear only
in the final divisions.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit_inline, jit_parallel, prange

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
_EXACT_LIMIT = 3_000_000_000


@jit_inline
def _ratio(num, den):
    """A plain ratio: NaN when the denominator is 0 (spec §2, degenerate tables)."""
    return num / den if den != 0 else np.nan


@jit_inline
def _coef(num, den):
    """A chance-corrected coefficient: 0 when its margin is 0, because dtp is too."""
    return num / den if den != 0 else 0.0


@jit_inline
def _xlogx_ratio(o, e):
    """``o * ln(o / e)`` with 0·ln 0 = 0, one cell of G²."""
    return o * math.log(o / e) if o > 0 else 0.0


@jit_inline
def _put(out, slots, m, g, value):
    s = slots[m]
    if s >= 0:
        out[s, g] = value


@jit_inline
def _correlation(det, rp, rn, pp, pn):
    return _coef(det, math.sqrt(rp * rn) * math.sqrt(pp * pn))


@jit_inline
def _evenness(share):
    return share * (1.0 - share)


@jit_parallel
def binary_measures(tp, fp, fn, tn, beta, slots, out):
    """Write the measures selected by ``slots`` into ``out[slot, group]``.

    ``tp fp fn tn`` are the int64 cell columns of G tables.
    """
    n_groups = tp.shape[0]
    s = slots
    b2 = beta * beta
    for g in prange(n_groups):
        tp_g = tp[g]
        fp_g = fp[g]
        fn_g = fn[g]
        tn_g = tn[g]
        n_int = tp_g + fp_g + fn_g + tn_g
        if n_int == 0:
            for m in range(s.shape[0]):
                _put(out, s, m, g, np.nan)
            continue
        a = float(tp_g)
        b = float(fp_g)
        c = float(fn_g)
        d = float(tn_g)
        n = float(n_int)
        rp = a + c
        rn = b + d
        pp = a + b
        pn = c + d
        if n_int < _EXACT_LIMIT:
            det = float(tp_g * tn_g - fp_g * fn_g)
        else:
            det = a * d - b * c
        # Each measure is computed only when asked for: divisions dominate the
        # cost, and a sweep asks for one or two measures at ten million
        # thresholds. The tests are the same for every group, so they predict.
        if s[0] >= 0:
            out[s[0], g] = rp / n
        if s[1] >= 0:
            out[s[1], g] = pp / n
        if s[2] >= 0:
            out[s[2], g] = _ratio(a, rp)
        if s[3] >= 0:
            out[s[3], g] = _ratio(a, pp)
        if s[4] >= 0:
            out[s[4], g] = _ratio(d, rn)
        if s[5] >= 0:
            out[s[5], g] = _ratio(d, pn)
        if s[6] >= 0:
            out[s[6], g] = _ratio(b, rn)
        if s[7] >= 0:
            out[s[7], g] = _ratio(c, rp)
        if s[8] >= 0:
            out[s[8], g] = (a + d) / n
        if s[9] >= 0:
            out[s[9], g] = _ratio(a, a + b + c)
        if s[10] >= 0:
            out[s[10], g] = _ratio(2.0 * a, 2.0 * a + b + c)
        if s[11] >= 0:
            out[s[11], g] = _ratio((1.0 + b2) * a, (1.0 + b2) * a + b2 * c + b)
        if s[12] >= 0:
            out[s[12], g] = math.sqrt(_ratio(a, rp) * _ratio(a, pp))
        if s[13] >= 0:
            out[s[13], g] = _coef(det, rp * rn)
        if s[14] >= 0:
            out[s[14], g] = _coef(det, pp * pn)
        if s[15] >= 0:
            out[s[15], g] = _correlation(det, rp, rn, pp, pn)
        if s[16] >= 0:
            out[s[16], g] = _coef(det, rp * rn) * _coef(det, pp * pn)
        if s[17] >= 0:
            out[s[17], g] = det / (n * n)
        if s[18] >= 0:
            out[s[18], g] = _evenness(rp / n)
        if s[19] >= 0:
            out[s[19], g] = _evenness(pp / n)
        if s[20] >= 0:
            out[s[20], g] = math.sqrt(_evenness(rp / n) * _evenness(pp / n))
        if s[21] >= 0:
            out[s[21], g] = _coef(2.0 * det, rp * pn + pp * rn)
        if s[22] >= 0:
            # Scott/Fleiss: (accuracy - e)/(1 - e), both scaled by 4n². Not dtp over a
            # margin term as spec §2's identity says: that holds only when prevalence = bias.
            s_pos = rp + pp
            s_neg = rn + pn
            out[s[22], g] = _coef(
                4.0 * n * (a + d) - s_pos * s_pos - s_neg * s_neg, 4.0 * n * n - s_pos * s_pos - s_neg * s_neg
            )
        if s[23] >= 0:
            out[s[23], g] = 4.0 * (det / (n * n))
        if s[24] >= 0:
            # (recall + inverse_recall)/2: NaN with one class absent, like any ROC AUC
            out[s[24], g] = 0.5 * (_ratio(a, rp) + _ratio(d, rn))
        if s[25] >= 0:
            out[s[25], g] = _ratio(a * n, pp * rp)
        if s[26] >= 0:
            out[s[26], g] = _ratio(_ratio(a, rp), _ratio(b, rn))
        if s[27] >= 0:
            out[s[27], g] = _ratio(_ratio(c, rp), _ratio(d, rn))
        if s[28] >= 0:
            out[s[28], g] = _ratio(a * d, b * c)
        if s[29] >= 0:
            r = _correlation(det, rp, rn, pp, pn)
            out[s[29], g] = n * r * r
        if s[30] >= 0:
            g2 = 0.0
            if rp > 0 and rn > 0 and pp > 0 and pn > 0:
                g2 = 2.0 * (
                    _xlogx_ratio(a, rp * pp / n)
                    + _xlogx_ratio(b, rn * pp / n)
                    + _xlogx_ratio(c, rp * pn / n)
                    + _xlogx_ratio(d, rn * pn / n)
                )
            out[s[30], g] = g2
        # the +P row and +R column statistics are 0 when that row/column is empty
        if s[31] >= 0:
            bm = _coef(det, rp * rn)
            out[s[31], g] = _coef(bm * bm * rp * rn, pp)
        if s[32] >= 0:
            mk = _coef(det, pp * pn)
            out[s[32], g] = _coef(mk * mk * pp * pn, rp)
        if s[33] >= 0:
            bm = _coef(det, rp * rn)
            out[s[33], g] = 2.0 * n * bm * bm * _evenness(rp / n)
        if s[34] >= 0:
            mk = _coef(det, pp * pn)
            out[s[34], g] = 2.0 * n * mk * mk * _evenness(pp / n)
        if s[35] >= 0:
            even_g = math.sqrt(_evenness(rp / n) * _evenness(pp / n))
            out[s[35], g] = 2.0 * n * _coef(det, rp * rn) * _coef(det, pp * pn) * even_g
