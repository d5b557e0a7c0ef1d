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


@jit_parallel
def binary_measures(tp, fp, fn, tn, beta, slots, out):
    """Write the measures selected by ``slots`` into ``out[slot, group]``.

    ``tp fp fn tn`` are the int64 cell columns of G tables.
    """
    n_groups = tp.shape[0]
    n_names = slots.shape[0]
    for g in prange(n_groups):
        tp_g = tp[g]
        fp_g = fp[g]
        fn_g = fn[g]
        tn_g = tn[g]
        n_int = tp_g + fp_g + fn_g + tn_g
        if n_int == 0:
            for m in range(n_names):
                _put(out, slots, m, g, np.nan)
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
        prevalence = rp / n
        bias = pp / n
        recall = _ratio(a, rp)
        precision = _ratio(a, pp)
        inverse_recall = _ratio(d, rn)
        fallout = _ratio(b, rn)
        miss_rate = _ratio(c, rp)
        informedness = _coef(det, rp * rn)
        markedness = _coef(det, pp * pn)
        correlation = _coef(det, math.sqrt(rp * rn) * math.sqrt(pp * pn))
        dtp = det / (n * n)
        even_r = prevalence * (1.0 - prevalence)
        even_p = bias * (1.0 - bias)
        even_g = math.sqrt(even_r * even_p)
        b2 = beta * beta

        _put(out, slots, 0, g, prevalence)
        _put(out, slots, 1, g, bias)
        _put(out, slots, 2, g, recall)
        _put(out, slots, 3, g, precision)
        _put(out, slots, 4, g, inverse_recall)
        _put(out, slots, 5, g, _ratio(d, pn))
        _put(out, slots, 6, g, fallout)
        _put(out, slots, 7, g, miss_rate)
        _put(out, slots, 8, g, (a + d) / n)
        _put(out, slots, 9, g, _ratio(a, a + b + c))
        _put(out, slots, 10, g, _ratio(2.0 * a, 2.0 * a + b + c))
        _put(out, slots, 11, g, _ratio((1.0 + b2) * a, (1.0 + b2) * a + b2 * c + b))
        _put(out, slots, 12, g, math.sqrt(recall * precision))
        _put(out, slots, 13, g, informedness)
        _put(out, slots, 14, g, markedness)
        _put(out, slots, 15, g, correlation)
        _put(out, slots, 16, g, informedness * markedness)
        _put(out, slots, 17, g, dtp)
        _put(out, slots, 18, g, even_r)
        _put(out, slots, 19, g, even_p)
        _put(out, slots, 20, g, even_g)
        _put(out, slots, 21, g, _coef(2.0 * det, rp * pn + pp * rn))
        # Scott/Fleiss: (accuracy - e)/(1 - e), both scaled by 4n². Not dtp over a
        # margin term as spec §2's identity says: that holds only when prevalence = bias.
        s_pos = rp + pp
        s_neg = rn + pn
        _put(
            out,
            slots,
            22,
            g,
            _coef(
                4.0 * n * (a + d) - s_pos * s_pos - s_neg * s_neg, 4.0 * n * n - s_pos * s_pos - s_neg * s_neg
            ),
        )
        _put(out, slots, 23, g, 4.0 * dtp)
        # (recall + inverse_recall)/2: NaN with one class absent, like any ROC AUC
        _put(out, slots, 24, g, 0.5 * (recall + inverse_recall))
        _put(out, slots, 25, g, _ratio(a * n, pp * rp))
        _put(out, slots, 26, g, _ratio(recall, fallout))
        _put(out, slots, 27, g, _ratio(miss_rate, inverse_recall))
        _put(out, slots, 28, g, _ratio(a * d, b * c))
        _put(out, slots, 29, g, n * correlation * correlation)
        g2 = 0.0
        if slots[30] >= 0 and rp > 0 and rn > 0 and pp > 0 and pn > 0:  # four logs: only on request
            g2 = 2.0 * (
                _xlogx_ratio(a, rp * pp / n)
                + _xlogx_ratio(b, rn * pp / n)
                + _xlogx_ratio(c, rp * pn / n)
                + _xlogx_ratio(d, rn * pn / n)
            )
        _put(out, slots, 30, g, g2)
        # the +P row and +R column statistics are 0 when that row/column is empty
        _put(out, slots, 31, g, _coef(informedness * informedness * rp * rn, pp))
        _put(out, slots, 32, g, _coef(markedness * markedness * pp * pn, rp))
        _put(out, slots, 33, g, 2.0 * n * informedness * informedness * even_r)
        _put(out, slots, 34, g, 2.0 * n * markedness * markedness * even_p)
        _put(out, slots, 35, g, 2.0 * n * informedness * markedness * even_g)
