"""Exact references for measures whose float kernels can go wrong at the edges.

Written from the spec with Python integers, :class:`fractions.Fraction` and
:mod:`decimal`; shares no code with batcheval.

* :func:`multiclass_exact`: spec §4's informedness, markedness, correlation,
  mcc and kappa_cohen of one K×K table, as exact fractions (correlation and
  mcc, which need a square root, as floats from exact radicands).
* :func:`multiclass_means_exact`: docs/measures.md's macro_informedness,
  bias_weighted_informedness, macro_markedness and prevalence_weighted_markedness
  (the means of the one-vs-rest values) as exact fractions.
* :func:`chi2_exact`: Pearson's χ² over all K² cells, Σ (o − e)²/e, as a Fraction.
* :func:`fisher_tail_exact`: the hypergeometric upper tail as a Fraction,
  summing every term exactly (small tables).
* :func:`fisher_tail_decimal`: the same to about 40 significant digits in
  :mod:`decimal`, for tables of millions whose tail is short; ln k! comes from
  Stirling's series with enough terms for 50 digits.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

# π to 60 digits, for ½ ln 2π in Stirling's series
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
# Bernoulli numbers B_2, B_4, …, B_20
_BERNOULLI = [
    Fraction(1, 6),
    Fraction(-1, 30),
    Fraction(1, 42),
    Fraction(-1, 30),
    Fraction(5, 66),
    Fraction(-691, 2730),
    Fraction(7, 6),
    Fraction(-3617, 510),
    Fraction(43867, 798),
    Fraction(-174611, 330),
]


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def multiclass_exact(table: list[list[int]]) -> dict[str, Fraction | float]:
    """Spec §4 measures of one table ``table[i][j]`` (real i, predicted j).

    Informedness = Σ_k dtp_k/(1 − prevalence_k), markedness = Σ_k
    dtp_k/(1 − bias_k), a term with a zero denominator counting 0; correlation
    = sign·sqrt(informedness·markedness) when both have one sign, 0 when either
    is 0, NaN when they disagree; mcc = Gorodkin's R_K; kappa_cohen with
    e = Σ prevalence_k·bias_k. n = 0 gives NaN everywhere.
    """
    k = len(table)
    n = sum(sum(row) for row in table)
    if n == 0:
        return dict.fromkeys(("informedness", "markedness", "correlation", "mcc", "kappa_cohen"), math.nan)
    real = [sum(table[i]) for i in range(k)]
    pred = [sum(table[i][j] for i in range(k)) for j in range(k)]
    dtp = [Fraction(table[i][i], n) - Fraction(real[i] * pred[i], n * n) for i in range(k)]
    inf = sum((d / (1 - Fraction(real[i], n)) for i, d in enumerate(dtp) if real[i] != n), Fraction(0))
    mark = sum((d / (1 - Fraction(pred[i], n)) for i, d in enumerate(dtp) if pred[i] != n), Fraction(0))
    if inf == 0 or mark == 0:
        corr = 0.0
    elif _sign(inf) != _sign(mark):
        corr = math.nan
    else:
        corr = _sign(inf) * _sqrt_fraction(inf * mark)
    trace = sum(table[i][i] for i in range(k))
    cov = n * trace - sum(r * p for r, p in zip(real, pred, strict=True))
    var_p = n * n - sum(p * p for p in pred)
    var_r = n * n - sum(r * r for r in real)
    mcc = 0.0
    if var_p * var_r != 0:
        mcc = _sign(Fraction(cov)) * _sqrt_fraction(Fraction(cov * cov, var_p * var_r))
    acc = Fraction(trace, n)
    e = sum(Fraction(r * p, n * n) for r, p in zip(real, pred, strict=True))
    kappa = Fraction(0) if e == 1 else (acc - e) / (1 - e)
    return {"informedness": inf, "markedness": mark, "correlation": corr, "mcc": mcc, "kappa_cohen": kappa}


def multiclass_means_exact(table: list[list[int]]) -> dict[str, Fraction]:
    """The means of the one-vs-rest informedness and markedness of one table (docs/measures.md,
    "Other averages"): informedness_k = tp·tn − fp·fn over real_k·(n − real_k), markedness_k the
    same over pred_k·(n − pred_k). The macro means average over the classes with real
    (predicted) examples inside and outside the class, 0 when there is none; the weighted ones
    weight by bias_k = pred_k/n and prevalence_k = real_k/n, an undefined value counting 0."""
    k = len(table)
    n = sum(sum(row) for row in table)
    real = [sum(table[i]) for i in range(k)]
    pred = [sum(table[i][j] for i in range(k)) for j in range(k)]
    inf: list[Fraction | None] = []
    mark: list[Fraction | None] = []
    for i in range(k):
        tp = table[i][i]
        fn, fp = real[i] - tp, pred[i] - tp
        tn = n - tp - fn - fp
        det = tp * tn - fp * fn
        inf.append(Fraction(det, real[i] * (n - real[i])) if 0 < real[i] < n else None)
        mark.append(Fraction(det, pred[i] * (n - pred[i])) if 0 < pred[i] < n else None)
    inf_defined = [v for v in inf if v is not None]
    mark_defined = [v for v in mark if v is not None]
    zero = Fraction(0)
    return {
        "macro_informedness": sum(inf_defined, zero) / len(inf_defined) if inf_defined else zero,
        "bias_weighted_informedness": sum(
            (Fraction(pred[i], n) * v for i, v in enumerate(inf) if v is not None), zero
        ),
        "macro_markedness": sum(mark_defined, zero) / len(mark_defined) if mark_defined else zero,
        "prevalence_weighted_markedness": sum(
            (Fraction(real[i], n) * v for i, v in enumerate(mark) if v is not None), zero
        ),
    }


def chi2_exact(table: list[list[int]]) -> Fraction:
    """Pearson's Σ (o − e)²/e over the cells with e = real_i·pred_j/n > 0 (a cell of e = 0 has
    o = 0 and adds nothing)."""
    k = len(table)
    n = sum(sum(row) for row in table)
    real = [sum(table[i]) for i in range(k)]
    pred = [sum(table[i][j] for i in range(k)) for j in range(k)]
    total = Fraction(0)
    for i in range(k):
        for j in range(k):
            if real[i] and pred[j]:
                e = Fraction(real[i] * pred[j], n)
                total += (table[i][j] - e) ** 2 / e
    return total


def _sqrt_fraction(x: Fraction) -> float:
    """sqrt of a non-negative Fraction, correctly rounded to within an ulp."""
    with localcontext() as ctx:
        ctx.prec = 40
        return float((Decimal(x.numerator) / Decimal(x.denominator)).sqrt())


def fisher_tail_exact(tp: int, fp: int, fn: int, tn: int) -> Fraction:
    """P(X >= tp) for X hypergeometric with the table's margins, exactly."""
    n = tp + fp + fn + tn
    rp, pp = tp + fn, tp + fp
    hi = min(rp, pp)
    num = sum(math.comb(rp, k) * math.comb(n - rp, pp - k) for k in range(tp, hi + 1))
    return Fraction(num, math.comb(n, pp))


def _ln_factorial(m: int) -> Decimal:
    """ln m! at the current decimal precision."""
    if m < 2000:
        return Decimal(math.factorial(m)).ln()
    z = Decimal(m + 1)
    s = (z - Decimal("0.5")) * z.ln() - z + (2 * _PI).ln() / 2
    power = z
    for i, b in enumerate(_BERNOULLI, start=1):
        s += Decimal(b.numerator) / Decimal(b.denominator * (2 * i) * (2 * i - 1)) / power
        power *= z * z
    return s


def fisher_tail_decimal(tp: int, fp: int, fn: int, tn: int, digits: int = 40) -> Decimal:
    """P(X >= tp) to about ``digits`` significant digits, summing from ``tp``
    up until the terms stop counting: for tables whose upper tail from ``tp``
    is short (``tp`` above the mode)."""
    n = tp + fp + fn + tn
    rp, pp = tp + fn, tp + fp
    hi = min(rp, pp)
    with localcontext() as ctx:
        ctx.prec = digits + 25  # ln k! of k ~ 1e7 is ~1e8: 9 digits cancel
        # ln C(rp,tp) + ln C(n-rp,pp-tp) - ln C(n,pp)
        log_first = (
            _ln_factorial(rp)
            - _ln_factorial(tp)
            - _ln_factorial(rp - tp)
            + _ln_factorial(n - rp)
            - _ln_factorial(pp - tp)
            - _ln_factorial(n - rp - pp + tp)
            - _ln_factorial(n)
            + _ln_factorial(pp)
            + _ln_factorial(n - pp)
        )
        term = log_first.exp()
        total = term
        k = tp
        while k < hi:
            term = term * (rp - k) * (pp - k) / ((k + 1) * (n - rp - pp + k + 1))
            total += term
            k += 1
            if term < total * Decimal(10) ** -(digits + 5):
                break
        return +total
