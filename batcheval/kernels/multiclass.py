"""Multiclass measures (docs/measures.md, multiclass measures) for every K×K table at once.

Per class k the one-vs-rest determinant ``det_k = n*tp_k - real_k*pred_k``
(= tp·tn − fp·fn of the 2×2 table) is formed exactly and rounded once, so the
Bookmaker sums ``Σ det_k / (n (n - real_k))`` keep full precision: in int64
while products of counts fit (tables below :data:`~.binary.EXACT_LIMIT`
examples), in 30-bit limbs (:mod:`.wide`) above, where int64 would wrap.
The same holds for the sums of margin products behind kappa and mcc.

The sign of informedness and markedness decides correlation (NaN when they
disagree, 0 when either is 0). A float sum that cancels to within its
rounding bound of zero is re-done exactly over the common denominator, so an
exact 0 is 0 and never ±1e-17: informedness and markedness, and the macro,
bias-weighted and prevalence-weighted means of the one-vs-rest values alike.
"""

from __future__ import annotations

import math

import numpy as np

from . import wide as _wide
from .binary import EXACT_LIMIT, margin_coef, safe_ratio, series_tail, unit
from .jit import jit, jit_inline, jit_parallel, prange, readonly


@jit_inline
def _put(out, slots, m, g, value):
    s = slots[m]
    if s >= 0:
        out[s, g] = value


NAMES = (
    "accuracy",
    "informedness",
    "markedness",
    "correlation",
    "mcc",
    "kappa_cohen",
    "kappa_fleiss",
    "evenness_real",
    "evenness_predicted",
    "evenness_global",
    "chi2",
    "g2",
    "chi2_kb",
    "chi2_km",
    "chi2_kbm",
    "mutual_information",
    "conditional_entropy",
    "macro_recall",
    "macro_precision",
    "macro_f1",
    "weighted_recall",
    "weighted_precision",
    "weighted_f1",
    "bias_weighted_informedness",
    "macro_informedness",
    "prevalence_weighted_markedness",
    "macro_markedness",
)

_CHI2, _G2 = NAMES.index("chi2"), NAMES.index("g2")
_MI, _H_COND = NAMES.index("mutual_information"), NAMES.index("conditional_entropy")
_LN2 = math.log(2.0)
#: The slots :func:`_put_bookmaker` writes: the measures made of the Bookmaker sums.
_BOOKMAKER = (1, 2, 3, 12, 13, 14, 23, 24, 25, 26)
# 2u: twice the unit roundoff, for the rounding bound of a float sum
_EPS = 2.0**-52


@jit_inline
def table_margins(c, real, pred):
    """Fill the margins ``real`` and ``pred`` of the K×K table ``c``; returns its n (int64)."""
    k = c.shape[0]
    # integer sums (any order gives the same integers): a row's in a register, the columns' as a
    # vector add of each row, not a store-to-load chain through real[i] and pred[j] per cell
    for j in range(k):
        pred[j] = 0
    for i in range(k):
        s = 0
        for j in range(k):
            v = c[i, j]
            s += v
            pred[j] += v
        real[i] = s
    # typed int64 from the start: the literal 0 compiled every callee of n twice (for the literal
    # and for int64), some 6 s of a first multiclass call
    n = np.int64(0)
    for i in range(k):
        n += real[i]
    return n


@jit_inline
def _near_zero(value, abs_sum, n_terms):
    """Whether a float sum of ``n_terms`` terms of absolute sum ``abs_sum`` is within its rounding
    of zero, where only the exact sum can tell its sign, or its value from 0 (:func:`_sign`)."""
    return abs_sum > 0.0 and abs(value) <= (n_terms + 8) * _EPS * abs_sum


@jit_inline
def _terms(det, r, p, n_int, n):
    """A class's terms of informedness and markedness, and its one-vs-rest informedness and
    markedness, from ``det = n·c_kk − r·p`` (the same operations wherever they are summed)."""
    return (
        margin_coef(det, n * (n_int - r)),
        margin_coef(det, n * (n_int - p)),
        margin_coef(det, float(r) * float(n_int - r)),
        margin_coef(det, float(p) * float(n_int - p)),
    )


@jit_inline
def _bookmaker_sums(det, real, pred, n_int, n, real_share, pred_share):
    """The Bookmaker sums of a table from each class's ``det = n·c_kk − r·p`` and shares: informedness,
    markedness, the bias-weighted informedness, the prevalence-weighted markedness and the sums of
    the unweighted means, each with the absolute sum of its terms (the scale of its rounding,
    :func:`_near_zero`), and the classes each unweighted mean counts. One loop for
    :func:`_one_table` and :func:`exact_bookmaker`: the same terms in the same order."""
    informedness = markedness = inf_abs = mark_abs = 0.0
    inf_bias_w = mark_prev_w = inf_sum = mark_sum = 0.0
    inf_bias_abs = mark_prev_abs = inf_sum_abs = mark_sum_abs = 0.0
    # the unweighted means count the classes whose one-vs-rest value is defined: a class with no
    # real (predicted) example in this group, or only such examples, has none, and counting its
    # conventional 0 scored a perfect classifier of a fold that lacks a class below 1
    inf_classes = 0
    mark_classes = 0
    for i in range(det.shape[0]):
        r = real[i]
        p = pred[i]
        t_inf, t_mark, inf_i, mark_i = _terms(det[i], r, p, n_int, n)
        informedness += t_inf
        inf_abs += abs(t_inf)
        markedness += t_mark
        mark_abs += abs(t_mark)
        term = pred_share[i] * inf_i
        inf_bias_w += term
        inf_bias_abs += abs(term)
        term = real_share[i] * mark_i
        mark_prev_w += term
        mark_prev_abs += abs(term)
        # a class out of the mean has a quotient of 0, so adding its magnitude changes nothing
        inf_sum_abs += abs(inf_i)
        mark_sum_abs += abs(mark_i)
        if 0 < r < n_int:
            inf_sum += inf_i
            inf_classes += 1
        if 0 < p < n_int:
            mark_sum += mark_i
            mark_classes += 1
    return (
        informedness, inf_abs, markedness, mark_abs, inf_bias_w, inf_bias_abs, mark_prev_w, mark_prev_abs,
        inf_sum, inf_sum_abs, mark_sum, mark_sum_abs, inf_classes, mark_classes,
    )  # fmt: skip


@jit_inline
def _put_bookmaker(out, slots, g, n, sums, real, pred, even_r, even_p):
    """The measures made of the Bookmaker sums ``sums`` = (informedness, markedness, their signs,
    the bias-weighted informedness, the prevalence-weighted markedness, the two unweighted means)
    into column ``g``: those :func:`exact_bookmaker` writes again from exact sums."""
    informedness, markedness, sign_i, sign_m, inf_bias_w, mark_prev_w, inf_mean, mark_mean = sums
    # each a mean of one-vs-rest values in [−1, 1], clipped there: a perfect table's mean of ones
    # rounds a unit in the last place above 1 at any size ([[258, 0, 0], [0, 613, 0], [0, 0, 4]]
    # had informedness 1.0000000000000002), and the clipped informedness and markedness keep
    # correlation's √ within [−1, 1] too
    informedness = unit(informedness)
    markedness = unit(markedness)
    if sign_i == 0 or sign_m == 0:
        correlation = 0.0
    elif sign_i == sign_m:
        correlation = sign_i * math.sqrt(informedness * markedness)
    else:
        correlation = np.nan
    _put(out, slots, 1, g, informedness)
    _put(out, slots, 2, g, markedness)
    _put(out, slots, 3, g, correlation)
    # K_real·N·B²·even_r, K_pred·N·M²·even_p and their signed geometric mean
    # (docs/measures.md, multiclass measures)
    chi2_kb = _present(real) * n * informedness * informedness * even_r
    chi2_km = _present(pred) * n * markedness * markedness * even_p
    chi2_kbm = math.copysign(math.sqrt(chi2_kb * chi2_km), informedness * markedness)
    _put(out, slots, 12, g, chi2_kb)
    _put(out, slots, 13, g, chi2_km)
    _put(out, slots, 14, g, chi2_kbm)
    _put(out, slots, 23, g, unit(inf_bias_w))
    _put(out, slots, 24, g, unit(inf_mean))
    _put(out, slots, 25, g, unit(mark_prev_w))
    _put(out, slots, 26, g, unit(mark_mean))


@jit_inline
def _float_sign(value, abs_sum):
    """The sign of a Bookmaker sum that is not :func:`_near_zero`, and the sum (0 for a sum of
    terms all 0)."""
    if abs_sum == 0.0:
        return 0, 0.0
    return (1 if value > 0.0 else -1), value


@jit
def _sign(value, abs_sum, n_terms, n, c, real, pred, weight):
    """Exact sign of a Bookmaker sum ``value`` and the sum itself.

    The float sum of ``n_terms`` terms of absolute sum ``abs_sum`` is off by
    less than about ``(n_terms + 5)·u·abs_sum`` (each term is rounded at most
    five times, the sum once a term); only within twice that of zero can its
    sign be wrong, and then the sum is computed exactly.
    """
    if _near_zero(value, abs_sum, n_terms):
        return _wide.ratio_sum_sign(n, c, real, pred, weight)
    return _float_sign(value, abs_sum)


@jit
def _exact_sums(
    n, n_int, c, real, pred, informedness, inf_abs, markedness, mark_abs, inf_bias_w, inf_bias_abs,
    mark_prev_w, mark_prev_abs, inf_sum, inf_sum_abs, mark_sum, mark_sum_abs,
):  # fmt: skip
    """The signs of informedness and markedness and the Bookmaker sums, each float sum within its
    rounding of zero replaced by the exact one (:func:`_sign`, :func:`_exact_mean`)."""
    k = c.shape[0]
    sign_i, informedness = _sign(informedness, inf_abs, k, n_int, c, real, pred, real)
    sign_m, markedness = _sign(markedness, mark_abs, k, n_int, c, real, pred, pred)
    # the means of the one-vs-rest values, checked as informedness is (a sum of terms all 0 is 0)
    # (``real`` stands in for the weights of the unweighted means, which are not read)
    if _near_zero(inf_bias_w, inf_bias_abs, k):
        inf_bias_w = _exact_mean(n, n_int, c, real, pred, pred, np.bool_(True), real)
    if _near_zero(mark_prev_w, mark_prev_abs, k):
        mark_prev_w = _exact_mean(n, n_int, c, real, pred, real, np.bool_(True), pred)
    if _near_zero(inf_sum, inf_sum_abs, k):
        inf_sum = _exact_mean(1.0, n_int, c, real, pred, real, np.bool_(False), real)
    if _near_zero(mark_sum, mark_sum_abs, k):
        mark_sum = _exact_mean(1.0, n_int, c, real, pred, real, np.bool_(False), pred)
    return sign_i, informedness, sign_m, markedness, inf_bias_w, mark_prev_w, inf_sum, mark_sum


@jit
def _exact_mean(divisor, n, c, real, pred, weight, use_weight, den):
    """A mean of one-vs-rest quotients ``Σ w_k·det_k / (den_k·(n − den_k)) / divisor`` from the exact
    sum (:func:`.wide.quotient_sum`), for a float sum within its rounding bound of zero (as in
    :func:`_sign`, each term rounded at most nine times): the sign is right and an exact 0 is 0."""
    return _wide.quotient_sum(n, c, real, pred, weight, use_weight, den)[1] / divisor


@jit
def _wide_sums(n, trace, real, pred):
    """``(n·trace − Σ r·p, n² − Σ r·p, n² − Σ p², n² − Σ r²)`` exactly, then
    rounded once each: the kappa and mcc terms of a table too large for int64
    (every sum is at most n²)."""
    size = _wide.PAIR_LIMBS
    nn = np.zeros(size, np.int64)
    nt = np.zeros(size, np.int64)
    s_rp = np.zeros(size, np.int64)
    s_rr = np.zeros(size, np.int64)
    s_pp = np.zeros(size, np.int64)
    t = np.zeros(size, np.int64)
    scratch = np.zeros(size, np.int64)
    _wide.set_int(nn, n)
    _wide.mul_int(nn, n)
    _wide.set_int(nt, n)
    _wide.mul_int(nt, trace)
    for i in range(real.shape[0]):
        _wide.set_int(t, real[i])
        _wide.mul_int(t, pred[i])
        _wide.add(s_rp, t)
        _wide.set_int(t, real[i])
        _wide.mul_int(t, real[i])
        _wide.add(s_rr, t)
        _wide.set_int(t, pred[i])
        _wide.mul_int(t, pred[i])
        _wide.add(s_pp, t)
    return (
        _wide.difference(nt, s_rp, scratch),
        _wide.difference(nn, s_rp, scratch),
        _wide.difference(nn, s_pp, scratch),
        _wide.difference(nn, s_rr, scratch),
    )


@jit_inline
def _evenness(margin, n_int, n):
    """Half the harmonic mean of the shares p_k and 1 - p_k of the classes present in a margin
    (``margin[k]``: its count of class k, of ``n_int`` examples, ``n`` as a float).

    A class absent from the margin is left out (docs/measures.md, multiclass measures): otherwise one class
    missing from a group makes the evenness, and chi2_kb, 0 for a perfect
    classifier. 0 when one class holds the whole margin. ``1/(1 − p)`` is ``n/(n − r)`` with
    ``n − r`` exact: ``1 − r/n`` cancels when one class holds nearly all of n (chi2_kb 3 % off at
    n = 1e17).
    """
    k = 0
    s = 0.0
    for i in range(margin.shape[0]):
        r = margin[i]
        if r == 0:
            continue
        if r >= n_int:
            return 0.0
        k += 1
        s += n / float(r) + n / float(n_int - r)
    return k / s if k > 0 else 0.0


@jit_inline
def _present(margin):
    """How many classes the margin holds (K_real or K_pred of docs/measures.md's chi2_kb and chi2_km)."""
    k = 0
    for i in range(margin.shape[0]):
        if margin[i] > 0:
            k += 1
    return k


@jit_inline
def _mean_defined(values, weights, use_weights):
    """Weighted mean over the defined (non-NaN) entries, as scikit-learn's
    ``zero_division=np.nan`` averages; NaN when none is defined."""
    num = 0.0
    den = 0.0
    for i in range(values.shape[0]):
        v = values[i]
        if not math.isnan(v):
            w = weights[i] if use_weights else 1.0
            num += w * v
            den += w
    return num / den if den > 0 else np.nan


@jit_parallel
def multiclass_tables(counts, slots, out, left, wide):
    """Write the measures selected by ``slots`` into ``out[slot, group]``. ``wide=None`` compiles
    the kernel without the limbs of tables of :data:`~.binary.EXACT_LIMIT` examples and without the
    exact Bookmaker sums (numba prunes the branches of an argument that is None): it leaves such a
    table undone (``left[group]`` 1) and writes one whose Bookmaker sums are within their rounding
    of zero from its float sums (``left[group]`` 2), and returns how many it left; with
    ``wide=True`` every table is done in full."""
    n_groups, k, _ = counts.shape
    n_chunks = min(n_groups, 64)
    # chi2, g2, mutual_information and conditional_entropy take a few divisions per cell and a
    # logarithm per nonzero cell far from its expected count, most of a table's cost at K = 10:
    # skipped when none is asked for (every other measure comes out of the same operations either
    # way, so the same bits)
    cell_sums = slots[_CHI2] >= 0 or slots[_G2] >= 0 or slots[_MI] >= 0 or slots[_H_COND] >= 0
    missed = 0
    for chunk in prange(n_chunks):
        # scratch once per chunk: a per-group allocation would dominate the run time
        real = np.empty(k, np.int64)
        pred = np.empty(k, np.int64)
        recall_k = np.empty(k)
        precision_k = np.empty(k)
        f1_k = np.empty(k)
        real_share = np.empty(k)
        pred_share = np.empty(k)
        chi_term = np.empty(k)
        dev_term = np.empty(k)
        diff_k = np.empty(k)
        log_arg = np.empty(k)
        far = np.empty(k, np.bool_)
        positive = np.empty(k, np.int64)
        lo = chunk * n_groups // n_chunks
        hi = (chunk + 1) * n_groups // n_chunks
        for g in range(lo, hi):
            done = _one_table(
                counts[g],
                g,
                slots,
                out,
                real,
                pred,
                recall_k,
                precision_k,
                f1_k,
                real_share,
                pred_share,
                chi_term,
                dev_term,
                diff_k,
                log_arg,
                far,
                positive,
                cell_sums,
                wide,
            )
            left[g] = done
            missed += done != 0
    return missed


# as multiclass_chance's: a call of a few hundred small tables compiles only the serial version
@jit_parallel(serial_below=512)
def exact_bookmaker(counts, at, slots, out):
    """Write again the measures of :func:`_put_bookmaker` for the tables ``at``, from their exact
    Bookmaker sums: the same float sums as :func:`_one_table`'s, each within its rounding of zero
    replaced by the exact one (:func:`_exact_sums`)."""
    k = counts.shape[1]
    n_chunks = min(at.shape[0], 64)
    for chunk in prange(n_chunks):
        real = np.empty(k, np.int64)
        pred = np.empty(k, np.int64)
        real_share = np.empty(k)
        pred_share = np.empty(k)
        det_k = np.empty(k)
        lo = chunk * at.shape[0] // n_chunks
        hi = (chunk + 1) * at.shape[0] // n_chunks
        for t in range(lo, hi):
            g = at[t]
            c = counts[g]
            n_int = table_margins(c, real, pred)
            n = float(n_int)
            for i in range(k):
                det_k[i] = float(n_int * c[i, i] - real[i] * pred[i])
                real_share[i] = real[i] / n
                pred_share[i] = pred[i] / n
            (informedness, inf_abs, markedness, mark_abs, inf_bias_w, inf_bias_abs, mark_prev_w,
             mark_prev_abs, inf_sum, inf_sum_abs, mark_sum, mark_sum_abs, inf_classes,
             mark_classes) = _bookmaker_sums(det_k, real, pred, n_int, n, real_share, pred_share)  # fmt: skip
            exact = _exact_sums(
                n, n_int, c, real, pred, informedness, inf_abs, markedness, mark_abs, inf_bias_w,
                inf_bias_abs, mark_prev_w, mark_prev_abs, inf_sum, inf_sum_abs, mark_sum, mark_sum_abs,
            )  # fmt: skip
            sign_i, informedness, sign_m, markedness, inf_bias_w, mark_prev_w, inf_sum, mark_sum = exact
            inf_mean = inf_sum / inf_classes if inf_classes else 0.0
            mark_mean = mark_sum / mark_classes if mark_classes else 0.0
            sums = (informedness, markedness, sign_i, sign_m, inf_bias_w, mark_prev_w, inf_mean, mark_mean)
            even_r = _evenness(real, n_int, n)
            even_p = _evenness(pred, n_int, n)
            _put_bookmaker(out, slots, g, n, sums, real, pred, even_r, even_p)


def multiclass_measures(counts: np.ndarray, slots: np.ndarray, out: np.ndarray) -> None:
    """Write the measures selected by ``slots`` (``slots[m]``: the output row of ``NAMES[m]``, -1 to
    skip it) into ``out[slot, group]`` for every table of ``counts[G, K, K]``.

    Tables of 3e9 examples, and Bookmaker sums within their rounding of zero (a few tables in a
    hundred of three classes and 10 examples, none in 200,000 of 100), are rare, so the kernel is
    the version compiled without the limbs and the exact sums they need: a call with a table of
    3e9 is done again in full by the version with them, and otherwise the Bookmaker measures of a
    table whose sums are near zero are written again by :func:`exact_bookmaker`.

    Examples
    --------
    >>> counts = np.array([[[5, 1, 0], [1, 4, 1], [0, 2, 6]]])
    >>> slots = np.full(len(NAMES), -1)
    >>> slots[NAMES.index("accuracy")] = 0
    >>> out = np.empty((1, 1))
    >>> multiclass_measures(counts, slots, out)
    >>> out.tolist()
    [[0.75]]
    """
    counts = readonly(counts)  # what the library passes: a caller's writable counts would compile again
    left = np.zeros(counts.shape[0], np.uint8)
    if multiclass_tables(counts, slots, out, left, None):
        if (left == 1).any():
            # a table of 3e9 examples: the version with the limbs (and the exact sums) does them all
            multiclass_tables(counts, slots, out, left, True)
        elif any(slots[m] >= 0 for m in _BOOKMAKER):  # else nothing to write again, or compile
            near = np.flatnonzero(left == 2)
            # threads by the tables written again, not by the size of the whole tensor
            exact_bookmaker.by_work(len(near))(counts, near, slots, out)


@jit
def _one_table(
    c,
    g,
    slots,
    out,
    real,
    pred,
    recall_k,
    precision_k,
    f1_k,
    real_share,
    pred_share,
    chi_term,
    dev_term,
    diff_k,
    log_arg,
    far,
    positive,
    cell_sums,
    wide,
):
    """All multiclass measures of table ``c`` into column ``g`` of ``out`` (the χ² and
    information sums only if ``cell_sums``); 1 for a table of :data:`~.binary.EXACT_LIMIT`
    examples left undone as ``wide`` is None, else 0."""
    k = c.shape[0]
    n_names = slots.shape[0]
    n_int = table_margins(c, real, pred)
    trace = np.int64(0)  # not the literal 0, which _wide_sums would be compiled for too
    for i in range(k):
        trace += c[i, i]
    if n_int == 0:
        for m in range(n_names):
            _put(out, slots, m, g, np.nan)
        return 0
    n = float(n_int)

    is_wide = n_int >= EXACT_LIMIT
    if wide is None and is_wide:
        return 1
    sum_rc = 0
    sum_r2 = 0
    sum_c2 = 0
    # Fleiss's (accuracy − e)/(1 − e) scaled by 4n²: (4·agree − Σ (r − p)²)/Σ s(2n − s), s = r + p,
    # each term formed from the integer margins: 1 − e from float shares cancels when one class
    # holds nearly all of n
    fleiss_d2 = 0.0
    fleiss_den = 0.0
    for i in range(k):
        r = real[i]
        p = pred[i]
        if wide is not None and is_wide:  # pruned when None
            diff_k[i] = _wide.mul_sub(n_int, c[i, i], r, p)
        else:
            diff_k[i] = float(n_int * c[i, i] - r * p)
            sum_rc += r * p
            sum_r2 += r * r
            sum_c2 += p * p
        # each class's shares r/n and p/n once: the evenness, the weights and the conditional
        # entropy below divide the same two numbers again (the same quotients, so the same bits)
        real_share[i] = r / n
        pred_share[i] = p / n
        d = float(r - p)
        fleiss_d2 += d * d
        # r + p and (n − r) + (n − p) summed as floats: a table may hold up to 2^63 − 1 examples, so
        # the int64 sums of two counts wrap (kappa_fleiss −1 and weighted_f1 −1 for a perfect table)
        fleiss_den += (float(r) + float(p)) * (float(n_int - r) + float(n_int - p))
        recall_k[i] = safe_ratio(float(c[i, i]), float(r))
        precision_k[i] = safe_ratio(float(c[i, i]), float(p))
        f1_k[i] = safe_ratio(2.0 * c[i, i], float(r) + float(p))
    (informedness, inf_abs, markedness, mark_abs, inf_bias_w, inf_bias_abs, mark_prev_w, mark_prev_abs,
     inf_sum, inf_sum_abs, mark_sum, mark_sum_abs, inf_classes, mark_classes) = _bookmaker_sums(
        diff_k, real, pred, n_int, n, real_share, pred_share
    )  # fmt: skip

    left = 0
    if wide is None:  # pruned when not None
        # a sum within its rounding of zero needs the exact sums of .wide, whose compiling was most
        # of this kernel's (8.8 of 11 s of CPU on a fresh machine): such a table is written from its
        # float sums and marked, and exact_bookmaker writes its Bookmaker measures again
        if (
            _near_zero(informedness, inf_abs, k)
            or _near_zero(markedness, mark_abs, k)
            or _near_zero(inf_bias_w, inf_bias_abs, k)
            or _near_zero(mark_prev_w, mark_prev_abs, k)
            or _near_zero(inf_sum, inf_sum_abs, k)
            or _near_zero(mark_sum, mark_sum_abs, k)
        ):
            left = 2
        sign_i, informedness = _float_sign(informedness, inf_abs)
        sign_m, markedness = _float_sign(markedness, mark_abs)
    else:
        sign_i, informedness, sign_m, markedness, inf_bias_w, mark_prev_w, inf_sum, mark_sum = _exact_sums(
            n, n_int, c, real, pred, informedness, inf_abs, markedness, mark_abs, inf_bias_w, inf_bias_abs,
            mark_prev_w, mark_prev_abs, inf_sum, inf_sum_abs, mark_sum, mark_sum_abs,
        )  # fmt: skip
    if wide is not None and is_wide:  # pruned when None
        agree, kappa_den, mcc_den_p, mcc_den_r = _wide_sums(n_int, trace, real, pred)
    else:
        agree = float(n_int * trace - sum_rc)
        kappa_den = float(n_int * n_int - sum_rc)
        mcc_den_p = float(n_int * n_int - sum_c2)
        mcc_den_r = float(n_int * n_int - sum_r2)
    # a perfect table's product of roots can round below its numerator (mcc 1.0000000000000002)
    mcc = unit(margin_coef(agree, math.sqrt(mcc_den_p) * math.sqrt(mcc_den_r)))
    # the kappas in [−1, 1] likewise (a perfect table of 1.08e9 examples had kappa_fleiss
    # 1.0000000000000002)
    kappa = unit(margin_coef(agree, kappa_den))
    accuracy = trace / n
    fleiss = unit(margin_coef(4.0 * agree - fleiss_d2, fleiss_den))
    even_r = _evenness(real, n_int, n)
    even_p = _evenness(pred, n_int, n)
    even_g = math.sqrt(even_r * even_p)

    chi2 = 0.0
    g2 = 0.0
    h_cond = 0.0
    inv_n = 1.0 / n
    for i in range(k if cell_sums else 0):
        if real[i] == 0:
            continue  # expected count 0, so the observed count is 0 too
        # a row's terms first, without a branch or a call (a cell of an empty predicted class gets
        # 0/0, never summed), then the sums cell by cell in the same order as one loop would. G²/2
        # is the sum of the cells' deviances o ln(o/e) + e − o (binary.deviance), each >= 0 and
        # accurate, as o − e is formed from the exact n·o − r·p: the plain Σ o ln(o/e) cancels to
        # its rounding near independence (G² < 0 at n = 3e10). χ² takes the same diff: (o − e)²/e
        # from the rounded o − e kept only its rounding there too (27 % high at n = 4.5e15). A cell
        # far from e (|v| >= 0.1) with a count takes a logarithm: those are listed first without a
        # branch and summed after
        r_f = float(real[i])
        if wide is not None and is_wide:  # pruned when None
            for j in range(k):
                diff_k[j] = _wide.mul_sub(n_int, c[i, j], real[i], pred[j]) * inv_n
        else:
            for j in range(k):
                diff_k[j] = float(n_int * c[i, j] - real[i] * pred[j]) * inv_n
        for j in range(k):
            e = r_f * float(pred[j]) / n
            o = float(c[i, j])
            diff = diff_k[j]
            chi_term[j] = diff * diff / e
            log_arg[j] = o / e
            v = diff / (o + e)
            w = v * v
            near = diff * v + 2.0 * o * v * w * series_tail(w)
            is_near = abs(v) < 0.1
            # a cell of 0 is −diff = e; a far cell with a count gets its logarithm below
            dev_term[j] = near if is_near else (-diff if o == 0.0 else 0.0)
            far[j] = not is_near and o > 0.0
        n_far = 0
        for j in range(k):
            positive[n_far] = j
            n_far += far[j]
        for j in range(k):
            if pred[j] != 0:
                chi2 += chi_term[j]
                g2 += dev_term[j]
        for t in range(n_far):
            j = positive[t]
            g2 += float(c[i, j]) * math.log(log_arg[j]) - diff_k[j]
    g2 *= 2.0
    # H(real | predicted) = H(real) - MI: K logs instead of one more per cell
    for i in range(k if cell_sums else 0):
        r = real[i]
        if r > n_int - r:
            # ln(r/n) as log1p(−(n − r)/n) from the exact n − r: r/n rounded near 1 kept few of
            # its digits (conditional_entropy 2e-5 off with one example in 1e15 of the other class)
            h_cond -= r * math.log1p(-float(n_int - r) / n)
        elif r > 0:
            h_cond -= r * math.log(real_share[i])
    h_real = h_cond
    h_cond -= 0.5 * g2
    # a difference below a 16th of H(real) has lost more than 4 bits to cancellation (a diagonal
    # table gave -5e-16 for a perfect classifier, 2e-8 had 8 digits): it is re-done directly,
    # Σ c ln(p_j/c) over the nonzero cells, terms >= 0, exactly 0 when each column has one (such
    # a table of a good classifier is sparse, so these logarithms are few)
    if cell_sums and h_cond <= 0.0625 * h_real:
        h_cond = 0.0
        for i in range(k):
            for j in range(k):
                if c[i, j] > 0:
                    # ln(c/p), as log1p((c − p)/p) from c ≥ p/2: ln of a c/p rounded near 1 loses
                    # its digits (and log1p of a quotient near −1 would)
                    cf = float(c[i, j])
                    if c[i, j] < pred[j] - c[i, j]:  # 2·c would wrap for a count over 2^62
                        h_cond -= cf * math.log(cf / pred[j])
                    else:
                        h_cond -= cf * math.log1p(float(c[i, j] - pred[j]) / pred[j])
    _put(out, slots, 0, g, accuracy)
    inf_mean = inf_sum / inf_classes if inf_classes else 0.0
    mark_mean = mark_sum / mark_classes if mark_classes else 0.0
    sums = (informedness, markedness, sign_i, sign_m, inf_bias_w, mark_prev_w, inf_mean, mark_mean)
    _put_bookmaker(out, slots, g, n, sums, real, pred, even_r, even_p)
    _put(out, slots, 4, g, mcc)
    _put(out, slots, 5, g, kappa)
    _put(out, slots, 6, g, fleiss)
    _put(out, slots, 7, g, even_r)
    _put(out, slots, 8, g, even_p)
    _put(out, slots, 9, g, even_g)
    _put(out, slots, 10, g, chi2)
    _put(out, slots, 11, g, g2)
    # MI <= H(real) <= log2 K, which g2/(2n ln 2) of a perfect table passed by a unit in the last
    # place (1.0000000000000002 for K = 2, and for [[5, 0, 0], [0, 5, 0], [0, 0, 0]], whose H(real)
    # is 1), as correlation passes ±1. H(real) is h_real where the cell sums were taken, which MI's are
    mi = g2 / (2.0 * n * _LN2)
    top = min(math.log2(k), h_real / (n * _LN2)) if cell_sums else math.log2(k)
    _put(out, slots, 15, g, top if mi > top else mi)
    _put(out, slots, 16, g, h_cond / (n * _LN2))
    _put(out, slots, 17, g, _mean_defined(recall_k, real_share, False))
    _put(out, slots, 18, g, _mean_defined(precision_k, real_share, False))
    _put(out, slots, 19, g, _mean_defined(f1_k, real_share, False))
    _put(out, slots, 20, g, _mean_defined(recall_k, real_share, True))
    _put(out, slots, 21, g, _mean_defined(precision_k, real_share, True))
    _put(out, slots, 22, g, _mean_defined(f1_k, real_share, True))
    return left
