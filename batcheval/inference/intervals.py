"""Confidence intervals for measures of stacked count tables ``counts[G, K, K]``.

Two methods, both vectorised over every group at once:

``"wilson_delta"`` (the default)
    *Wilson score intervals* for the measures that are a proportion of
    examples (recall, precision, inverse_recall, inverse_precision, fallout,
    miss_rate, accuracy, prevalence, bias). For ``x`` successes in ``m``
    trials, ``p = x/m`` and ``z`` the normal quantile of the level,

    .. math:: \\frac{p + z^2/2m \\pm z\\sqrt{p(1-p)/m + z^2/4m^2}}{1 + z^2/m}

    (Wilson 1927, JASA 22:209; recommended over the Wald interval by Brown,
    Cai & DasGupta 2001, Statist. Sci. 16:101). NaN when ``m = 0``. Accuracy
    (of any number of classes) gets Brown, Cai & DasGupta's *modified* Wilson
    interval (:func:`modified_wilson`), whose ends next to 0 and 1 (up to 3
    errors, or 3 correct examples) are one-sided Poisson bounds: the Wilson
    interval of accuracy covered 0.898 at n = 60 and accuracy 0.991 (exact
    binomial coverage), below the issue's floor of 0.92; the modified one
    never goes below 0.9298 on the calibration grid, at the price of covering
    up to 0.987 where few errors are expected. ``intervals(...,
    accuracy="wilson")`` keeps the plain one. The other binary proportions
    (recall, precision, inverse_recall, inverse_precision, fallout, miss_rate,
    prevalence, bias) get the modified interval with a Poisson end for 1 success
    or failure only (``x_star=1``): plain Wilson covered recall and precision
    0.8910 at n = 10, balanced, informedness 0.95 (about 5 positives), below the
    floor; with ``x* = 1`` they cover at least 0.9463 at every grid point with
    n ≤ 100 and a margin of 5 or more (exact; 0.9910 there), above the band
    only at n = 20, balanced, informedness 0.6 and 0.95 (0.9653, 0.9744), and
    ``intervals(..., proportions="wilson")`` keeps the plain one.

    *Score intervals* for binary informedness and markedness. Given the real
    class sizes, informedness ``tpr − fpr`` is a difference of two independent
    binomial proportions (markedness ``ppv − (1 − npv)`` is the same given the
    predicted sizes), and its interval is Miettinen & Nurminen's (1985,
    Statist. Med. 4:213) score interval (:func:`score_difference`): the
    differences the score test does not reject, the variance taken at the
    maximum-likelihood proportions under each hypothesised difference. It is
    statsmodels' ``confint_proportions_2indep(method="score")`` with the
    cubic's coefficient that statsmodels 0.15 gets wrong corrected (statsmodels
    issue #10269). It never has zero width: a perfect 100-example table gets
    informedness (0.925, 1].

    *Score-based intervals* for binary kappa_cohen and correlation
    (:func:`from_scores`): given the margins both are multiples of
    informedness and of markedness, so the distances of the two score
    intervals' ends from their estimates, scaled and averaged, give the
    interval, times the ratio of delta-method standard errors that accounts
    for the margins varying.

    *Adjusted delta-method intervals* for every chance-corrected measure of
    more classes (and, as ``binary="agresti_caffo"``, for binary tables). The delta method
    (below) on the table itself gives a standard error of 0 for a perfect or a
    constant classifier, and a zero-width interval that covered 62-77 % of the
    time at n = 30-60. So the interval is ``f(t̃) ± z·se(t̂)`` for the table
    ``t̃`` with a pseudo-count ``a = 2/(K(K − 1))`` added to every cell
    (:func:`pseudo_count`) and the table ``t̂`` with ``0.68·a`` in every cell
    for three or more classes, ``a`` for two (:func:`interval_pseudo_counts`),
    clipped to [−1, 1]. ``K`` counts the classes of the group's own table (a real example or a
    prediction, :func:`present_classes`), not those of the call: a group of two of them gets
    the binary intervals, so a group's interval is the same whatever the other groups and
    ``classes=`` hold. For two classes ``a = 1``, and
    for binary informedness this is Agresti & Caffo's (2000, Am. Stat. 54:280)
    interval of a difference of proportions, the default before the score
    interval (still there: ``chance_interval(..., binary="agresti_caffo")``).
    For ``K`` classes the pseudo-counts total ``2K/(K − 1)`` examples, two of
    them off the diagonal: where a few errors are expected these two
    pseudo-errors weigh like real ones in the standard error, and with ``a``
    there too three classes covered 0.978-0.982 (n = 30, three classes of
    10, informedness 0.95, exact over every table with at most 8 errors) and
    0.974-0.977 at n = 100 (three classes of 33, simulated, 40,000 tables).
    With ``0.68·a`` they cover 0.937-0.962 at n = 30 (exact) and 0.951-0.953
    at n = 100. Over 11 seeds of the whole K = 3 and K = 5 grid no point
    left the band that was in it (nor over 5 seeds with any share from 0.65
    to 0.85), but at
    n = 30 only 0.67-0.70 keeps all four measures in the band (exact): 3
    errors have probability 0.060 there, 2 or fewer 0.923, so the band needs
    a part of the 3-error tables, whose upper ends lie near 0.95; 0.68 is
    inside that window with the most room.

    Chosen by simulation (``benchmarks/calibration_intervals.py``, tables in
    ``docs/calibration_intervals.md``). For binary informedness the score
    interval covered 0.935-0.965 at every simulated grid point whose smallest
    margin is at least 10 (2,000 tables each), and, computed exactly over every
    table for n ≤ 100, at all of them but two balanced ones: 0.9340 at n = 20,
    informedness 0.95 and 0.9672 at n = 30, informedness 0.8 (markedness the
    same). The first needs its half-widths scaled by 1.030-1.035 to reach the
    band, the second by 0.975 or less, so no common factor, and no other
    critical value, puts both in it (the section "Points outside the band" of
    the docs). Agresti–Caffo covered up to 1.000 (a class of about 20
    examples and informedness 0, where its pseudo-counts double the spread of
    ``tpr``) and Newcombe's hybrid score interval (:func:`newcombe`) as little
    as 0.880 (informedness 0.95, 15 examples per class). For binary kappa and
    correlation the adjusted delta interval covered up to 0.998 (a rare class
    and informedness 0: its pseudo-counts in the cells of a class of 20
    examples), and :func:`from_scores` covers 0.935-0.965 at every grid point
    with n ≤ 100 and margin ≥ 10, computed exactly over every table, but two:
    n = 20, balanced, informedness 0.95 (0.9118: the tables with at most one
    error have probability 0.9118, those with two 0.0753, 0.0730 of it at a
    kappa of 0.75-0.80, so an interval reaches the band only by covering
    0.95 from a third to two thirds of these near-identical tables: of the
    sets of tables whose estimates are a run of consecutive values, only
    kappa ≥ 0.794, ≥ 0.798 and ≥ 0.800 have a probability in the band,
    0.9598, 0.9506 and 0.9381), and n = 30,
    balanced, informedness 0.8 (0.970 and 0.967, Agresti–Caffo's 0.971 and
    0.968). With ``K`` classes, 1/K per cell made 5-class intervals near
    informedness 0.95 miss (the centre moves too far towards 0), and keeping
    the plain centre with the larger of the plain and adjusted standard errors
    covered up to 1.000 there. Where few errors are expected the four
    intervals of more classes cover about the tables with up to some number
    of errors, like accuracy's, and the band can be out of reach of every
    interval that depends on the table only through that number: K = 5,
    n = 60, five classes of 12, informedness 0.95, where they cover exactly
    the tables with at most 5 errors, P = 0.9675, and P(≤ 4) = 0.908. At
    K = 3, n = 100, a class of 10, informedness 0.95, they cover about
    P(≤ 6 errors) = 0.972 (P(≤ 5) = 0.926); the band is reached there only
    by leaving out the perfect tables (P = 0.051) or a part of the 6-error
    tables. The intervals overcover rather than cut the tables with the same
    number of errors by where their errors fall.

    The delta method's first-order variance (used as above, by
    :func:`standard_errors`, and by the paired comparisons of the
    leaderboard): with the cell proportions ``π`` of a table of ``n``
    examples drawn as a multinomial sample, a smooth measure ``f(π)`` has

    .. math:: \\operatorname{var} f(\\hat\\pi) \\approx \\frac{1}{n}
              \\Big(\\sum_{ij} \\pi_{ij} g_{ij}^2 - \\big(\\sum_{ij} \\pi_{ij} g_{ij}\\big)^2\\Big),
              \\qquad g = \\partial f/\\partial \\pi

    (Agresti, *Categorical Data Analysis*, 3rd ed., §16.1; Bishop, Fienberg &
    Holland 1975, §14.6). The gradients, with real shares ``r_i``, predicted
    shares ``c_j`` and per-class determinants ``d_k = π_kk − r_k c_k``
    (Powers 2011, §5; docs/references.md), are

    - informedness ``B = Σ_k d_k/(1 − r_k)``:
      ``g_ij = (δ_ij − c_i)/(1 − r_i) − r_j/(1 − r_j) + d_i/(1 − r_i)²``.
      For two classes this reduces to Youden's (1950, Cancer 3:32) variance
      of ``tpr − fpr`` from two independent binomials,
      ``tpr(1 − tpr)/rp + fpr(1 − fpr)/rn``;
    - markedness ``M = Σ_k d_k/(1 − c_k)`` (the transpose):
      ``g_ij = (δ_ij − r_j)/(1 − c_j) − c_i/(1 − c_i) + d_j/(1 − c_j)²``;
      for two classes ``ppv(1 − ppv)/pp + npv(1 − npv)/pn``;
    - kappa_cohen ``κ = (p_o − p_e)/(1 − p_e)``, ``p_e = Σ_k r_k c_k``:
      ``g_ij = (δ_ij − (1 − κ)(c_i + r_j))/(1 − p_e)``, the large-sample
      variance of Fleiss, Cohen & Everitt (1969, Psychol. Bull. 72:323);
    - correlation ``ρ = ±√(B·M)``: ``g = (√(M/B)·g_B + √(B/M)·g_M)/2``; for
      two classes ``M/B = r_0 r_1/(c_0 c_1)`` whatever the determinant, which
      is the delta-method variance of the phi coefficient (Bishop, Fienberg &
      Holland 1975, §11.3).

    The interval is NaN where the measure's denominator vanishes (a single
    real class for informedness, a single predicted class for markedness,
    either for correlation, ``p_e = 1`` for kappa), where the papers' value
    of 0 is a convention, not an estimate.

    The method keeps its name ``"wilson_delta"``, although only the
    proportions other than accuracy get plain Wilson intervals, the binary
    chance-corrected measures get score-based intervals and its delta-method
    intervals are adjusted as above.

``"bootstrap"``
    Percentile intervals of ``n_boot`` multinomial resamples of each group's
    table (Efron & Tibshirani 1993, ch. 13), computed with the same kernels
    as the point measures, so every measure but the p-values has one. The
    resampling runs in numba over all groups in parallel; a group's
    replicates depend only on ``seed`` and its row, not on the thread count.
    Replicates where the measure is undefined (NaN, e.g. precision of a
    resample with no predicted positive) are left out of the percentiles. A
    binary ratio whose denominator is 0 where its numerator is not
    (``odds_ratio`` with ``fp·fn = 0`` and ``tp·tn > 0``, ``lr_plus`` with
    fallout 0 and recall above 0, ``lr_minus`` with inverse recall 0 and miss
    rate above 0) is NaN as a point estimate (docs/measures.md) but +inf, its
    limit, in a resample: it ranks above every finite one, so where more than
    ``(1 − level)/2`` of the resamples are +inf the interval's upper end is +inf.
    Left out, they had cut the interval off at the estimate (odds ratio 400 of
    ``tp, fn, fp, tn = 20, 1, 1, 20``: [30.5, 400], where 40 % of the resamples
    have ``fp·fn = 0``; Fisher's exact conditional interval is [18.7, 17299]).

    This plain percentile bootstrap is what ``evaluate(..., ci=...,
    ci_method="bootstrap")`` gives every measure, and what the leaderboard's
    bootstrap intervals still are. At small n it covers less than its level
    (``benchmarks/calibration_bootstrap.py``, ``docs/calibration_bootstrap.md``, 400
    tables per point): where the smallest expected margin is 10 or more its 95 %
    interval of the measures with no closed form covers as little as
    0.537-0.635 (two classes, per measure), 0.787-0.910 (three) and 0.880-0.927
    (five), and 0.370 at margins 5-10. It fails where a table with few errors
    resamples only itself (binary, n = 20-40, informedness 0.9: 10-36 % of the
    intervals of zero width) and where a cell expected to hold about one example
    is empty (binary, n = 100, a class of 10), since every resample then has
    that cell empty too.

*Smoothed bootstrap* (``intervals(..., "bootstrap", pseudo=a)``)
    The percentile bootstrap of resamples of ``n`` examples drawn from the table
    plus ``a`` in every cell, ``Multinomial(n, (counts + a)/(n + K²a))``
    (:func:`bootstrap_replicates`, the kernel
    :func:`batcheval.kernels.bootstrap.multinomial_resample`; ``a = 0`` is the plain
    bootstrap, bit for bit). Under ``"wilson_delta"``, :func:`add_intervals`
    (``evaluate(..., ci=...)``) gives it, with ``a = 1/(K(K − 1))``
    (:func:`bootstrap_pseudo_count`: half the closed forms' :func:`pseudo_count`, so
    one pseudo-example off the diagonal) where K counts the classes *present* in the
    group's table (a real example or a prediction), over the K² cells of those classes
    only (``pseudo="present"``, :func:`smoothed_bootstrap`): a class of the call that the
    group never has gets no pseudo-examples, so the interval does not change with the
    other groups or ``classes=`` (spreading them over the call's classes had put 180 of
    200 classes' pseudo-examples, f1 0, into a 20-class table: macro_f1 [0.483, 0.670]
    instead of [0.584, 0.680]; a group of one class is smoothed as one of two, its class
    and one other, as a binary table), to the named measures with no closed
    form: mcc with more than two classes, macro_f1, macro_recall,
    macro_precision, weighted_f1, f_beta, g_measure, kappa_fleiss,
    macro_informedness with more than two classes (binary macro_informedness,
    macro_markedness and weighted_recall are informedness, markedness and accuracy,
    ``measures.BINARY_EQUIVALENT``, and take their intervals),
    bias_weighted_informedness, mutual_information, ...
    On the same grid, where the margin is 10 or more, it covers at least
    0.930-0.935 (two classes, per measure; 21-29 of 36 points in [0.935,
    0.965]), 0.915-0.930 (three) and 0.910-0.932 (five), with no point
    clearly below the band (coverage + 2 Monte-Carlo SE < 0.935), and at least
    0.907 at margins 5-10. It over-covers where the plain one collapses (up to
    0.995). Its median width is 1.00-1.01 times the percentile bootstrap's;
    it is wider than 1.1 times at 5-6 of 36 binary points per measure, 1-2 of
    21 with three classes and 0-1 of 18 with five (at most 3.20, 1.65 and 1.23
    times at margins of 5 or more), and at all such points but two the
    percentile bootstrap itself covers below the band there (0.537-0.920 with
    two classes, 0.787-0.932 with three, 0.915 with five; the two: three
    classes, n = 100, balanced, informedness 0.9, mcc and weighted_f1, 0.938 and
    0.943, ratio 1.11), so, as for the closed forms, coverage comes first. The whole pseudo-count
    was wider (up to 3.65 times) and left three binary measures at 0.855-0.900;
    BCa kept the plain bootstrap's failures. Mutual information, whose value 0
    at independence is the end of its range, is covered there by neither
    (coverage 0); the smoothing does not make its other points worse (in the
    band at 16, 9 and 1 points against 15, 5 and 1), so it gets it too.

Examples
--------
>>> import numpy as np
>>> from batcheval.inference.intervals import intervals
>>> counts = np.array([[[40, 10], [20, 30]]])       # real × predicted
>>> out = intervals(counts, ["recall", "informedness"])
>>> [round(float(v[0]), 4) for v in out["recall"]]
[0.4618, 0.7239]
>>> [round(float(v[0]), 4) for v in out["informedness"]]
[0.2124, 0.5602]
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.memory import check_allocation
from ..core.table import one_vs_rest
from ..errors import InvalidArgumentError, UnknownMeasureError, warn
from ..kernels import bootstrap as _boot
from ..kernels import delta as _delta
from ..kernels import score_diff as _score_diff
from ..kernels.jit import readonly
from ..measures.compute import as_counts, as_tables, binary_cells, held_margins, positive_index

__all__ = [
    "ACCURACY_METHODS",
    "BINARY_CHANCE_METHODS",
    "BINARY_CLOSED_FORMS",
    "BINARY_PROPORTIONS",
    "BOOTSTRAP_PSEUDO_SHARE",
    "CHANCE_CODES",
    "DELTA_MEASURES",
    "INFINITE_RATIOS",
    "INTERVAL_METHODS",
    "JACCARD_MEASURES",
    "PROPORTION_METHODS",
    "SE_PSEUDO_SHARE",
    "SIGNED_MEASURES",
    "UNIT_MEASURES",
    "WILSON_MEASURES",
    "add_intervals",
    "adjusted_delta",
    "adjusted_se",
    "beta_is_f1",
    "binary_only",
    "binary_scores",
    "binomial_counts",
    "bootstrap_pseudo_count",
    "bootstrap_replicates",
    "by_class",
    "cells_last",
    "chance_interval",
    "chance_values",
    "chance_variance",
    "check_options",
    "class_table_ids",
    "closed_form_interval",
    "default_intervals",
    "delta_gradient",
    "delta_variance",
    "f1_interval",
    "from_scores",
    "gradient_cells_last",
    "gradient_variance",
    "hold_estimate",
    "infinite_ratios",
    "interval_columns",
    "interval_measures",
    "interval_pseudo_counts",
    "interval_twin",
    "intervals",
    "jaccard_interval",
    "kernel_chance_values",
    "kernel_counts",
    "modified_wilson",
    "newcombe",
    "ordered_sum",
    "poisson_ends",
    "present_classes",
    "present_tables",
    "proportion",
    "pseudo_count",
    "replicate_parts",
    "resampled",
    "score_difference",
    "seeds_at",
    "seeds_for",
    "smoothed_bootstrap",
    "smoothed_se",
    "standard_errors",
    "table_standard_errors",
    "trial_cells",
    "two_sided_z",
    "wilson",
    "wilson_ends",
]


def __dir__() -> list[str]:
    """What ``dir()`` (and so tab completion) lists of ``be.intervals``: its API, ``__all__``, not
    the numpy, polars, math and helpers it imports (PEP 562)."""
    return sorted(__all__)


INTERVAL_METHODS = ("wilson_delta", "bootstrap")
#: Intervals of binary informedness and markedness (and through them binary kappa and
#: correlation) that :func:`chance_interval` can use: the default and the one before it.
BINARY_CHANCE_METHODS = ("score", "agresti_caffo")

#: Binary proportions with a Wilson interval: (successes, trials) as cell sums.
_BINARY_PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "recall": (("tp",), ("tp", "fn")),
    "precision": (("tp",), ("tp", "fp")),
    "inverse_recall": (("tn",), ("fp", "tn")),
    "inverse_precision": (("tn",), ("fn", "tn")),
    "fallout": (("fp",), ("fp", "tn")),
    "miss_rate": (("fn",), ("tp", "fn")),
    "accuracy": (("tp", "tn"), ("tp", "fp", "fn", "tn")),
    "prevalence": (("tp", "fn"), ("tp", "fp", "fn", "tn")),
    "bias": (("tp", "fp"), ("tp", "fp", "fn", "tn")),
}
#: Measures with a Wilson score interval (binary; only accuracy when multiclass).
WILSON_MEASURES: tuple[str, ...] = tuple(_BINARY_PROPORTIONS)
#: (numerator cells, denominator cells) of each binary proportion measure
BINARY_PROPORTIONS = _BINARY_PROPORTIONS
#: Measures with a delta-method interval (binary and multiclass).
DELTA_MEASURES: tuple[str, ...] = ("informedness", "markedness", "correlation", "kappa_cohen")
#: Measures bounded by [0, 1] whose closed-form interval rounding could carry past the bound.
UNIT_MEASURES = frozenset({*_BINARY_PROPORTIONS, "accuracy", "f1", "jaccard"})
#: Measures bounded by [−1, 1] whose interval rounding could carry past the bound.
SIGNED_MEASURES = frozenset({*DELTA_MEASURES, "mcc"})

# replicate tables held in memory at once by the bootstrap (per chunk of groups)
_CHUNK_CELLS = 1 << 24


def check_options(ci: float, method: str, n_boot: int, seed: int | None) -> int:
    """Raise :class:`InvalidArgumentError` for unusable interval options, and
    :class:`~batcheval.errors.MemoryBudgetError` for an ``n_boot`` whose replicates' values alone
    would not fit; returns ``n_boot`` as a Python int, which callers pass on.

    Examples
    --------
    >>> check_options(1.5, "bootstrap", 1000, None)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: ci must be a confidence level strictly between 0 and 1, got 1.5
    >>> type(check_options(0.95, "bootstrap", np.int16(200), None))
    <class 'int'>
    """
    ci = _measures.check_level(ci)
    if method not in INTERVAL_METHODS:
        raise InvalidArgumentError(f"unknown ci_method {method!r}; use one of {list(INTERVAL_METHODS)}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 2:
        raise InvalidArgumentError(f"n_boot must be an integer of at least 2, got {n_boot!r}")
    # a numpy integer keeps its width in the bootstrap's products (np.int16(200) · 9 cells · 2^13
    # overflowed int16)
    n_boot = int(n_boot)
    if n_boot > _CHUNK_CELLS:  # every bootstrap holds at least a value per replicate
        check_allocation(8 * n_boot, f"n_boot={n_boot} (a value per replicate)", "draw fewer replicates")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63
    ):
        raise InvalidArgumentError(f"seed must be None or an integer in [0, 2**63), got {seed!r}")
    return n_boot


def interval_measures(n_classes: int, method: str = "wilson_delta") -> list[str]:
    """Measures that get an interval from ``method`` for ``n_classes`` classes.

    Examples
    --------
    >>> interval_measures(3)
    ['accuracy', 'informedness', 'markedness', 'correlation', 'kappa_cohen']
    >>> "f1" in interval_measures(2, "bootstrap"), "p_fisher" in interval_measures(2, "bootstrap")
    (True, False)
    """
    if method == "bootstrap":
        # a binary table has every multiclass measure too (mcc, macro_f1, ...)
        names = (
            dict.fromkeys([*_measures.BINARY_MEASURES, *_measures.MULTICLASS_MEASURES])
            if n_classes == 2
            else _measures.MULTICLASS_MEASURES
        )
        return [m for m in names if not m.startswith("p_") and m != "alpha_sbb"]
    wilson_names = WILSON_MEASURES if n_classes == 2 else ("accuracy",)
    return [*wilson_names, *DELTA_MEASURES]


def two_sided_z(level: float) -> float:
    """The normal quantile ``z`` of a two-sided interval at ``level``.

    Examples
    --------
    >>> round(two_sided_z(0.95), 6)
    1.959964
    """
    level = _measures.check_level(level, "level")
    from scipy import special

    return float(special.ndtri(0.5 + level / 2.0))


def binomial_counts(
    successes: Any, trials: Any, function: str, names: tuple[str, str] = ("successes", "trials")
) -> tuple[np.ndarray, np.ndarray]:
    """``successes`` and ``trials`` as float arrays broadcast to one shape, checked for
    ``function``: real, finite, non-negative, and no more successes than trials. Effective counts
    (a design effect's, a least-favourable table's) need not be whole, and Python integers of any
    size are taken as floats.

    Examples
    --------
    >>> binomial_counts([3, 0], [10, 0], "wilson")
    (array([3., 0.]), array([10.,  0.]))
    >>> binomial_counts([3, 4], 10, "wilson")
    (array([3., 4.]), array([10., 10.]))
    >>> binomial_counts([3, 12], [10, 10], "wilson")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: wilson: successes must not exceed trials, got ... (element 1)
    """
    got = []
    for name, values in zip(names, (successes, trials), strict=True):
        v = np.asarray(values)
        try:  # an object array of Python integers (2**70) is numbers too, as float64 takes it
            if v.dtype.kind not in "iufO":  # a bool is no count
                raise TypeError
            v = v.astype(np.float64)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"{function}: {name} must be numbers, got {reprlib.repr(values)}"
            ) from None
        bad = np.flatnonzero(~np.isfinite(v) | (v < 0))
        if len(bad):
            at = int(bad[0])
            raise InvalidArgumentError(
                f"{function}: {name} must be finite and non-negative, got {float(v.flat[at])} (element {at})"
            )
        got.append(v)
    try:  # numpy's broadcasting, as the formulas take it: 10 trials for every count of an array
        x, m = np.broadcast_arrays(*got)
    except ValueError:
        raise InvalidArgumentError(
            f"{function}: {names[0]} and {names[1]} must have the same shape or broadcast to one, "
            f"got {got[0].shape} and {got[1].shape}"
        ) from None
    over = np.flatnonzero(x > m)
    if len(over):
        at = int(over[0])
        raise InvalidArgumentError(
            f"{function}: {names[0]} must not exceed {names[1]}, got {names[0]}={float(x.flat[at])} "
            f"and {names[1]}={float(m.flat[at])} (element {at})"
        )
    return x, m


def wilson(successes: np.ndarray, trials: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``successes / trials`` (NaN where ``trials = 0``).

    Examples
    --------
    >>> low, high = wilson(np.array([7, 0]), np.array([10, 0]))
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.3968, nan], [0.8922, nan])
    """
    level = _measures.check_level(level, "level")
    return wilson_ends(*binomial_counts(successes, trials, "wilson"), two_sided_z(level))


def wilson_ends(x: np.ndarray, m: np.ndarray, z: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`wilson`'s ends of counts the caller has checked (:func:`binomial_counts`, or effective
    counts), at the critical value ``z``, one for all or one per interval (a t quantile per group:
    :func:`batcheval.inference.clustered.wilson_z`); NaN where ``m = 0`` or ``z`` is NaN.

    Examples
    --------
    >>> low, high = wilson_ends(np.array([7.0, 7.0]), np.array([10.0, 0.0]), 1.959963984540054)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.3968, nan], [0.8922, nan])
    """
    z = np.asarray(z, dtype=np.float64)
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / m
        centre = (p + z2 / (2.0 * m)) / (1.0 + z2 / m)
        half = z / (1.0 + z2 / m) * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m))
    ok = (m > 0) & np.isfinite(z)
    low = np.where(ok, np.maximum(centre - half, 0.0), np.nan)
    return low, np.where(ok, np.minimum(centre + half, 1.0), np.nan)


#: Binary measures that :func:`add_intervals` (``evaluate(..., ci=)``) gives a closed-form
#: interval, from the binomial tp in tp + fp + fn (:func:`f1_interval`): jaccard's
#: :func:`modified_wilson` and f1's mapped through 2J/(1 + J). The clustered intervals take the
#: same with the design effect of tp in tp + fp + fn; the leaderboard takes the bootstrap's.
JACCARD_MEASURES = ("f1", "jaccard")
#: Binary measures whose interval is a closed form of another's (:func:`closed_form_interval`):
#: f1 and jaccard from tp in tp + fp + fn, mcc from correlation's (binary MCC is correlation).
BINARY_CLOSED_FORMS = (*JACCARD_MEASURES, "mcc")
#: (successes, trials) as cell sums of every binary ratio with a binomial count given its
#: trials: the proportions, and jaccard's tp in tp + fp + fn (a ratio of the table, not a
#: class's rate, so it is not among the Wilson measures of :func:`interval_measures`)
_CELL_RATIOS = {**_BINARY_PROPORTIONS, "jaccard": (("tp",), ("tp", "fp", "fn"))}

#: Intervals of accuracy that :func:`intervals` can use: the default and the one before it.
ACCURACY_METHODS = ("modified_wilson", "wilson")
#: Intervals of the binary proportions other than accuracy that :func:`intervals` can use:
#: the default (:func:`modified_wilson` with ``x_star=1``) and the one before it.
PROPORTION_METHODS = ("modified_wilson", "wilson")


def modified_wilson(
    successes: np.ndarray, trials: np.ndarray, level: float = 0.95, x_star: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Brown, Cai & DasGupta's (2001, Statist. Sci. 16:101, §4.1.1) modified Wilson interval.

    The :func:`wilson` interval, except that for ``x = 1 … x*`` successes its lower end
    is the one-sided Poisson bound ``λ_x/m`` with ``λ_x = ½ χ²_{2x, α}`` (``α = 1 − level``,
    the λ with ``P(Poisson(λ) ≥ x) = α``), and for ``m − x = 1 … x*`` its upper end is
    ``1 − λ_{m−x}/m``, each only where it is wider than Wilson's (always at levels of 0.85
    and above; at lower levels the Poisson end can pass Wilson's and the estimate). The
    Wilson interval's coverage dips well below the level next to ``p = 0`` and ``p = 1``
    (0.898 for accuracy at n = 60, accuracy 0.991 in ``docs/calibration_intervals.md``);
    this removes the dips. NaN where ``m = 0``.

    Parameters
    ----------
    successes, trials
        ``x`` and ``m``, arrays of the same shape.
    level
        Confidence level in (0, 1).
    x_star
        The largest number of successes (failures) that gets the Poisson lower (upper)
        end. None (the default): Brown et al.'s rule, ``x* = 2`` for ``m ≤ 50`` and 3
        above (they give 3 for ``51 ≤ m ≤ 100``), which :func:`intervals` uses for
        accuracy. :func:`intervals` takes ``x* = 1`` for the other binary proportions
        (recall, precision, ...): Wilson covered 0.8910 for recall and precision at
        n = 10, balanced, informedness 0.95 (about 5 positives), below the floor of
        0.92, while Brown et al.'s rule puts more grid points above the band than 1
        does (``docs/calibration_intervals.md``). 0 gives the :func:`wilson` interval.

    Examples
    --------
    >>> low, high = modified_wilson(np.array([1, 7, 59]), np.array([60, 10, 60]))
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0009, 0.3968, 0.9114], [0.0886, 0.8922, 0.9991])

    With ``x_star=1`` only 1 success or failure gets a Poisson end; 2 of 5 keeps Wilson's:

    >>> low, high = modified_wilson(np.array([1, 2, 4]), np.array([5, 5, 5]), x_star=1)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0103, 0.1176, 0.3755], [0.6245, 0.7693, 0.9897])
    >>> bool(np.allclose(modified_wilson(np.array([2]), np.array([5]))[0], 0.0711, atol=1e-4))
    True
    """
    level = _measures.check_level(level, "level")
    x, m = binomial_counts(successes, trials, "modified_wilson")
    low, high = wilson_ends(x, m, two_sided_z(level))
    if x_star is None:
        cut = np.where(m <= 50, 2.0, 3.0)
    elif isinstance(x_star, bool) or not isinstance(x_star, int | np.integer) or x_star < 0:
        raise InvalidArgumentError(f"x_star must be None or an integer of at least 0, got {x_star!r}")
    else:
        cut = np.float64(x_star)
    low_poisson, high_poisson = poisson_ends(x, m, level)
    # the wider of the two ends: the Poisson end is there to widen Wilson's next to 0 and 1, but
    # at a low level (α above about 0.2) it passes Wilson's and even the estimate (λ_1 = −ln(1 − α)
    # exceeds 1 for α > 0.63: ci=0.3 gave recall 4/5 the interval [0.723, 0.759])
    low = np.where((x >= 1) & (x <= cut), np.fmin(low, low_poisson), low)
    high = np.where((m - x >= 1) & (m - x <= cut), np.fmax(high, high_poisson), high)
    return low, high


def poisson_ends(successes: np.ndarray, trials: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided Poisson ends of :func:`modified_wilson`: ``λ_x/m`` and ``1 − λ_{m−x}/m``,
    ``λ_x`` the ``α = 1 − level`` quantile of a Gamma(x) variable (``½ χ²_{2x, α}`` for whole
    ``x``), for any ``x > 0`` (effective counts too); at ``x = 0`` (or ``m − x = 0``) that of 1.

    Examples
    --------
    >>> low, high = poisson_ends(np.array([1.0]), np.array([10.0]), 0.95)
    >>> round(float(low[0]), 6), round(float(high[0]), 6)  # λ_1 = −ln 0.95; 1 − λ_9/10
    (0.005129, 0.530477)
    """
    level = _measures.check_level(level, "level")
    from scipy import special

    x = np.asarray(successes, dtype=np.float64)
    m = np.asarray(trials, dtype=np.float64)
    f = m - x
    alpha = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        low = special.gammaincinv(np.where(x > 0, x, 1.0), alpha) / m
        high = 1.0 - special.gammaincinv(np.where(f > 0, f, 1.0), alpha) / m
    return low, high


def _proportion(counts: np.ndarray, name: str, positive: int) -> tuple[np.ndarray, np.ndarray]:
    """(successes, trials) of a proportion measure."""
    if counts.shape[1] != 2:  # multiclass: only accuracy
        return np.trace(counts, axis1=1, axis2=2), counts.sum(axis=(1, 2))
    cells = dict(zip(("tp", "fp", "fn", "tn"), _measures.binary_cells(counts, positive), strict=True))
    num, den = _CELL_RATIOS[name]
    return sum(cells[c] for c in num), sum(cells[c] for c in den)


def _binary_informedness(counts: np.ndarray, name: str) -> bool:
    """Whether ``counts`` are integer 2×2 tables and ``name`` is informedness: the case
    :mod:`batcheval.kernels.delta` computes table by table, with numpy's bits."""
    counts = np.asarray(counts)
    return (
        name == "informedness"
        and counts.ndim == 3
        and counts.shape[1:] == (2, 2)
        and counts.dtype.kind in "iu"  # float tables take numpy's path
    )


def _informedness_variance(counts: np.ndarray, extra: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    var = np.empty(len(counts))
    undefined = np.empty(len(counts), dtype=np.bool_)
    # read-only as every caller's tables (a writable one compiled the kernel again, 0.4 s)
    _delta.informedness_variance(readonly(np.ascontiguousarray(counts)), float(extra), var, undefined)
    return var, undefined


#: the measure codes of :func:`batcheval.kernels.delta.chance_variance`
CHANCE_CODES = {
    "informedness": _delta.INFORMEDNESS,
    "markedness": _delta.MARKEDNESS,
    "kappa_cohen": _delta.KAPPA,
    "correlation": _delta.CORRELATION,
}


def kernel_counts(counts: np.ndarray) -> np.ndarray:
    """Tables ``[G, K, K]`` as one of the two flavours the variance kernels compile for: read-only
    C-ordered int64 (whole counts, not copied when they are already) or float64 (a clustered
    board's rows over their repeats, a pseudo-count added).

    Examples
    --------
    >>> kernel_counts(np.ones((1, 2, 2), dtype=np.int32)).dtype, kernel_counts(np.ones((1, 2, 2)) / 2).dtype
    (dtype('int64'), dtype('float64'))
    """
    c = np.asarray(counts)
    return readonly(np.ascontiguousarray(c, dtype=np.int64 if c.dtype.kind in "iub" else np.float64))


def chance_variance(counts: np.ndarray, name: str, extra: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The delta-method variance of the chance-corrected measure ``name`` at every table
    ``counts[G, K, K] + extra`` (every cell plus ``extra``), and where its gradient is undefined:
    :func:`gradient_variance` of :func:`gradient_cells_last`, computed table by table without the
    ``[K, K, G]`` arrays of the gradient (:func:`batcheval.kernels.delta.chance_variance`; the
    same to a few ulps).

    Examples
    --------
    >>> var, undefined = chance_variance(np.array([[[40, 10], [20, 30]], [[5, 5], [0, 0]]]), "informedness")
    >>> round(float(var[0]), 6), undefined.tolist()
    (0.008, [False, True])
    """
    c = kernel_counts(counts)
    var = np.empty(len(c))
    undefined = np.empty(len(c), dtype=np.bool_)
    if len(c):
        _delta.chance_variance(c, float(extra), CHANCE_CODES[name], var, undefined)
    return var, undefined


def delta_variance(counts: np.ndarray, name: str, extra: float = 0.0) -> np.ndarray:
    """First-order variance of a chance-corrected measure (see the module docstring) at every
    table plus ``extra`` a cell, NaN where its gradient is undefined.

    Examples
    --------
    >>> delta_variance(np.array([[[40, 10], [20, 30]], [[5, 5], [0, 0]]]), "informedness").round(6).tolist()
    [0.008, nan]
    """
    if _binary_informedness(counts, name):
        var, undefined = _informedness_variance(counts, extra)
    else:
        var, undefined = chance_variance(counts, name, extra)
    return np.where(undefined, np.nan, var)


def gradient_variance(c: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``(Σ π g² − (Σ π g)²) / n`` per group of cells-last counts ``c`` (:func:`cells_last`)
    and a gradient ``g`` of the same shape, summed over every axis but the last:
    the delta method's variance (NaN for an empty table)."""
    axes = tuple(range(c.ndim - 1))
    n = ordered_sum(c, axes)
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = c / n
        s1 = ordered_sum(pi * g, axes)
        s2 = ordered_sum(pi * g * g, axes)
        return np.maximum(s2 - s1 * s1, 0.0) / n


def _cell_mask(cells: tuple[str, ...], positive: int) -> np.ndarray:
    p, q = positive, 1 - positive
    where = {"tp": (p, p), "fp": (q, p), "fn": (p, q), "tn": (q, q)}
    mask = np.zeros((2, 2))
    for cell in cells:
        mask[where[cell]] = 1.0
    return mask


def delta_gradient(counts: np.ndarray, name: str, *, positive: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``∂measure/∂π`` of every table at its cell proportions, and where it is undefined.

    For a proportion ``x/m`` with ``x`` and ``m`` sums of cells ``S ⊆ T``:
    ``g = (1[S] − p·1[T]) / π(T)``; for the chance-corrected measures see the
    module docstring. The paired comparisons of :func:`batcheval.leaderboard`
    combine two of these into the gradient of a difference.

    Examples
    --------
    >>> g, undefined = delta_gradient(np.array([[[40, 10], [20, 30]]]), "recall")
    >>> g[0].round(3).tolist(), undefined.tolist()
    ([[0.0, 0.0], [-1.2, 0.8]], [False])
    """
    g, undefined = gradient_cells_last(cells_last(counts), name, positive=positive)
    return np.moveaxis(g, -1, 0), undefined


def cells_last(counts: np.ndarray) -> np.ndarray:
    """``counts[G, ...]`` as float64 ``[..., G]``, contiguous.

    Elementwise numpy over stacked 2×2 tables runs an inner loop of two
    elements per call; with the groups last it runs one of G, several times
    faster (the gradients of 100k tables: 35 ms with groups first).

    Examples
    --------
    >>> c = cells_last(np.array([[[40, 10], [20, 30]], [[5, 0], [0, 5]]]))
    >>> c.shape, c.dtype, c[:, :, 0].tolist()
    ((2, 2, 2), dtype('float64'), [[40.0, 10.0], [20.0, 30.0]])
    """
    c = np.asarray(counts, dtype=np.float64)
    return np.ascontiguousarray(np.moveaxis(c, 0, -1))


#: :func:`ordered_sum` adds up to this many cells in plain C order (every table of up to 8
#: classes, and every paired joint table of up to 4); more are summed axis by axis
_SEQUENTIAL_CELLS = 64
#: slices that numpy cannot sum in place are added in a Python loop when there are at most
#: ``_LOOP_SLICES`` of them or they hold ``_LOOP_WIDTH`` values or more (else copied first)
_LOOP_SLICES = 16
_LOOP_WIDTH = 256


def ordered_sum(x: np.ndarray, axes: int | tuple[int, ...]) -> np.ndarray:
    """``x.sum(axis=axes)`` of stacked tables with the groups last (:func:`cells_last`), in an
    order fixed by the shape of ``axes`` alone, so a group's sum has the same bits whatever
    other groups share the array.

    numpy picks its order by layout: the cells of one group ``[K, K, 1]`` are contiguous and it
    sums them pairwise (eight partial sums from 8 cells on), those of two or more one after
    another along the strided axes, so a run's multiclass interval moved by an ulp with the
    runs evaluated beside it. Here up to ``_SEQUENTIAL_CELLS`` cells are added one after another
    in C order: numpy's order for two or more groups, and the order of the kernels that
    compute binary tables cell by cell (:mod:`batcheval.kernels.delta`). More cells (over 8
    classes) are summed along the first of ``axes`` first, slice after slice, and the result
    along the others the same way (a 1000-class table's million cells one after another took
    3 ms, numpy's pairwise sum 0.2).

    Examples
    --------
    >>> x = np.arange(27.0).reshape(3, 3, 3) / 7
    >>> bool(np.array_equal(ordered_sum(x, (0, 1))[:1], ordered_sum(x[..., :1], (0, 1))))
    True
    >>> ordered_sum(np.ones((3, 3, 2)), 1).tolist()
    [[3.0, 3.0], [3.0, 3.0], [3.0, 3.0]]
    """
    x = np.asarray(x)
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    if len(axes) == 1:
        return _axis_sum(x, axes[0])
    lead = tuple(range(len(axes)))
    moved = x if axes == lead else np.moveaxis(x, axes, lead)
    cells = math.prod(moved.shape[: len(axes)])
    if cells <= _SEQUENTIAL_CELLS:
        return _axis_sum(moved.reshape(cells, *moved.shape[len(axes) :]), 0)
    return ordered_sum(_axis_sum(moved, 0), lead[:-1])


def _axis_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """``x.sum(axis=axis)`` with the slices along ``axis`` added one after another."""
    n = x.shape[axis]
    if n <= 1 or (x.flags.c_contiguous and math.prod(x.shape[axis + 1 :]) >= 2):
        # numpy sums pairwise only along the fast axis; with a faster axis of two or more
        # values after this one it adds the slices one after another, as fast as any sum (the
        # tests hold it to that order)
        return np.add.reduce(x, axis=axis)
    slices = np.moveaxis(x, axis, 0)
    width = x.size // n
    if n <= _LOOP_SLICES or width >= _LOOP_WIDTH:  # no copy (a 1000-class table's rows: 3.4 -> 2.2 ms)
        total = slices[0].copy()
        for part in slices[1:]:
            total += part
        return total
    if width == 1:  # the cells of a single group: a running sum's last value is the sum in order
        return np.add.accumulate(slices.reshape(-1))[-1:].reshape(slices.shape[1:])
    return np.add.reduce(np.ascontiguousarray(slices), axis=0)  # the slices outermost, as above


def gradient_cells_last(c: np.ndarray, name: str, *, positive: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """:func:`delta_gradient` of tables ``c[K, K, G]`` (:func:`cells_last`), as ``[K, K, G]``.

    Examples
    --------
    Recall ``tp/(tp + fn)`` = 30/50 of ``[[40, 10], [20, 30]]``: its gradient in the cells'
    shares is ``(1 − 0.6)/0.5`` at tp, ``−0.6/0.5`` at fn and 0 elsewhere.

    >>> g, undefined = gradient_cells_last(cells_last(np.array([[[40, 10], [20, 30]]])), "recall")
    >>> g[:, :, 0].round(4).tolist(), undefined.tolist()
    ([[0.0, 0.0], [-1.2, 0.8]], [False])
    """
    if name in DELTA_MEASURES:
        return _chance_gradient(c, name)
    k = c.shape[0]
    if k == 2 and name in _CELL_RATIOS:
        num, den = _CELL_RATIOS[name]
        s_mask, t_mask = _cell_mask(num, positive), _cell_mask(den, positive)
    elif name == "accuracy":
        s_mask, t_mask = np.eye(k), np.ones((k, k))
    else:
        raise UnknownMeasureError(f"measure {name!r} has no delta-method gradient")
    s_mask, t_mask = s_mask[:, :, None], t_mask[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = c / ordered_sum(c, (0, 1))
        t = ordered_sum(pi * t_mask, (0, 1))
        f = ordered_sum(pi * s_mask, (0, 1)) / t
        g = (s_mask - f * t_mask) / t
    return g, ~(t > 0)


def _one_class(shares: np.ndarray) -> np.ndarray:
    """Where the shares ``[K, G]`` of one margin of cells-last tables hold fewer than two
    classes (one class, or an empty table): told by the classes held, as
    :func:`~batcheval.measures.compute.held_margins` does, not by a share reaching 1, which the
    shares of a class's cells summed can miss (2/6 + 3/6 + 1/6 = 0.9999999999999999).

    Examples
    --------
    >>> c = cells_last(np.array([[[2, 3, 1], [0, 0, 0], [0, 0, 0]], [[2, 3, 1], [1, 0, 0], [0, 0, 0]]]))
    >>> _one_class(ordered_sum(c / ordered_sum(c, (0, 1)), 1)).tolist()
    [True, False]
    """
    return np.count_nonzero(shares > 0, axis=0) < 2


def _chance_gradient(c: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    # tables are [K (real), K (predicted), G]: a class's share is [K, G], and
    # [:, None] / [None, :] broadcast it along the predicted / real axis
    k = c.shape[0]
    n = ordered_sum(c, (0, 1))
    eye = np.eye(k)[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = c / n
        r = ordered_sum(pi, 1)
        col = ordered_sum(pi, 0)
        diagonal = np.einsum("iig->ig", pi)
        dtp = diagonal - r * col
        one_class_real, one_class_pred = _one_class(r), _one_class(col)

        def grad_informedness() -> np.ndarray:
            inv = np.where(r < 1.0, 1.0 / (1.0 - r), 0.0)
            return (eye - col[:, None]) * inv[:, None] - (r * inv)[None, :] + (dtp * inv * inv)[:, None]

        def grad_markedness() -> np.ndarray:
            inv = np.where(col < 1.0, 1.0 / (1.0 - col), 0.0)
            return (eye - r[None, :]) * inv[None, :] - (col * inv)[:, None] + (dtp * inv * inv)[None, :]

        if name == "informedness":
            g, undefined = grad_informedness(), one_class_real
        elif name == "markedness":
            g, undefined = grad_markedness(), one_class_pred
        elif name == "kappa_cohen":
            pe = ordered_sum(r * col, 0)
            po = ordered_sum(diagonal, 0)
            kappa = (po - pe) / (1.0 - pe)
            g = (eye - (1.0 - kappa) * (col[:, None] + r[None, :])) / (1.0 - pe)
            undefined = pe >= 1.0
        elif name == "correlation":
            if k == 2:  # M/B is a ratio of margins for 2×2 tables, defined even at B = M = 0
                ratio = (r[0] * r[1]) / (col[0] * col[1])
            else:
                b_val = ordered_sum(np.where(r < 1.0, dtp / (1.0 - r), 0.0), 0)
                m_val = ordered_sum(np.where(col < 1.0, dtp / (1.0 - col), 0.0), 0)
                ratio = np.where(b_val * m_val > 0, m_val / b_val, np.nan)
            root = np.sqrt(ratio)
            g = 0.5 * (root * grad_informedness() + grad_markedness() / root)
            undefined = one_class_real | one_class_pred | ~np.isfinite(ratio)
        else:  # pragma: no cover - guarded by the callers
            raise UnknownMeasureError(f"measure {name!r} has no delta-method interval")
    return g, undefined | (n == 0)


def standard_errors(
    counts: np.ndarray, names: Sequence[str], *, positive: int = 1, adjusted: bool = False
) -> dict[str, np.ndarray]:
    """Large-sample standard errors of measures with a ``wilson_delta`` interval.

    The delta-method standard error for the chance-corrected measures, and
    the binomial ``sqrt(p(1 − p)/m)`` for proportions. Both are 0 for a
    perfect or a constant classifier; ``adjusted=True`` gives standard errors
    that are positive for every non-empty table, for tests: :func:`adjusted_se`
    for the chance-corrected measures, and ``sqrt(p̃(1 − p̃)/(m + 2))`` with
    ``p̃ = (x + 1)/(m + 2)`` (Agresti & Coull 1998) for proportions.

    Examples
    --------
    >>> counts = np.array([[[40, 10], [20, 30]]])
    >>> se = standard_errors(counts, ["informedness", "recall"])
    >>> round(float(se["informedness"][0]), 4), round(float(se["recall"][0]), 4)
    (0.0894, 0.0693)
    >>> perfect = np.array([[[5, 0], [0, 5]]])
    >>> float(standard_errors(perfect, ["recall"])["recall"][0])
    0.0
    >>> round(float(standard_errors(perfect, ["recall"], adjusted=True)["recall"][0]), 4)
    0.1323
    """
    if isinstance(names, str):  # one measure, as intervals() reads it, not its letters
        names = [names]
    # checked as intervals() checks them: 5.9 read as 5, and -5 gave NaN with numpy's own warning
    return table_standard_errors(as_tables(counts), names, positive_index(positive), adjusted)


def table_standard_errors(
    counts: np.ndarray, names: Sequence[str], positive: int = 1, adjusted: bool = False
) -> dict[str, np.ndarray]:
    """:func:`standard_errors` of tables the caller has checked (int64 counts, read as such).

    Examples
    --------
    >>> round(float(table_standard_errors(np.array([[[40, 10], [20, 30]]]), ["recall"])["recall"][0]), 4)
    0.0693
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    _check_interval_names(names, counts.shape[1], "wilson_delta")
    out: dict[str, np.ndarray] = {}
    for name in names:
        if name in DELTA_MEASURES:
            out[name] = adjusted_se(counts, name) if adjusted else np.sqrt(delta_variance(counts, name))
        else:
            x, m = _proportion(counts, name, positive)
            extra = 1.0 if adjusted else 0.0
            with np.errstate(invalid="ignore", divide="ignore"):
                p = (x + extra) / (m + 2.0 * extra)
                out[name] = np.where(m > 0, np.sqrt(p * (1.0 - p) / (m + 2.0 * extra)), np.nan)
    return out


def _check_interval_names(names: Sequence[str], n_classes: int, method: str) -> None:
    capable = interval_measures(n_classes, method)
    for name in names:
        if name not in capable:
            hint = (
                " (try ci_method='bootstrap')"
                if method == "wilson_delta" and name in (interval_measures(n_classes, "bootstrap"))
                else ""
            )
            raise UnknownMeasureError(
                f"measure {name!r} has no {method} interval for {n_classes} classes{hint}; "
                f"measures with one: {capable}"
            )


def _resolve_seed(seed: int | None) -> int:
    if seed is None:  # fresh entropy: different intervals on each call, as asked
        return int(np.random.SeedSequence().entropy % (2**63))
    return int(seed)


def seeds_for(seed: int | None, first: int, n: int) -> np.ndarray:
    """Generator seeds of groups ``first .. first + n - 1`` under ``seed``."""
    seeds = np.empty(n, dtype=np.uint64)
    _boot.group_seeds(np.uint64(_resolve_seed(seed)), first, n, seeds)
    return seeds


def seeds_at(seed: int | None, ids: np.ndarray) -> np.ndarray:
    """Generator seeds of groups ``ids`` under ``seed``: :func:`seeds_for`'s, group by group.

    Examples
    --------
    >>> bool((seeds_at(3, np.array([4, 1])) == seeds_for(3, 0, 5)[[4, 1]]).all())
    True
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    out = np.empty(len(ids), dtype=np.uint64)
    if len(ids):
        _boot.id_seeds(np.uint64(_resolve_seed(seed)), ids, out)
    return out


def bootstrap_replicates(
    counts: np.ndarray,
    n_boot: int,
    seed: int | None = None,
    *,
    first: int = 0,
    pseudo: float = 0.0,
    ids: np.ndarray | None = None,
) -> np.ndarray:
    """``n_boot`` multinomial resamples of every table: ``[G, n_boot, *table_shape]``.

    ``counts`` is ``[G, ...]`` (any table shape: K×K, or K×K×K joint tables).
    Group ``g`` is resampled with a generator seeded from ``seed`` and
    ``first + g``, so a slice of groups gets the same replicates as in the
    whole (``ids``, when given, are the groups' numbers instead of ``first + g``: a subset
    of groups, or their tables cut to fewer classes, drawn with their own generators).
    ``pseudo > 0`` draws the ``n`` examples of each resample from the
    table's shares plus ``pseudo`` in every cell, ``(counts + pseudo)/(n + C·pseudo)``
    over the ``C`` cells (the smoothed bootstrap, :func:`bootstrap_pseudo_count`);
    ``pseudo = 0`` is the plain multinomial bootstrap, the same replicates bit for bit.

    Examples
    --------
    >>> reps = bootstrap_replicates(np.array([[[5, 1], [2, 7]]]), n_boot=3, seed=1)
    >>> reps.shape, reps.sum(axis=(2, 3)).tolist()
    ((1, 3, 2, 2), [[15, 15, 15]])
    >>> perfect = np.array([[[10, 0], [0, 10]]])
    >>> bool((bootstrap_replicates(perfect, 200, seed=1)[0, :, 0, 1] == 0).all())
    True
    >>> bool((bootstrap_replicates(perfect, 200, seed=1, pseudo=0.5)[0, :, 0, 1] > 0).any())
    True
    """
    if not (isinstance(pseudo, int | float | np.integer | np.floating) and 0 <= pseudo < np.inf):
        raise InvalidArgumentError(f"pseudo must be a finite number of at least 0, got {pseudo!r}")
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    g = counts.shape[0]
    flat = readonly(counts.reshape(g, -1))  # read-only, whichever the caller's counts are: one compile
    seeds = seeds_for(seed, first, g) if ids is None else seeds_at(seed, ids)
    nbytes = g * n_boot * flat.shape[1] * 8
    if nbytes > _CHUNK_CELLS * 8:  # beyond what the bootstrap holds at once: checked, not just asked for
        check_allocation(
            nbytes,
            f"{n_boot} bootstrap replicates of {g} table(s) of {flat.shape[1]} cells each",
            "resample fewer tables at once, or draw fewer replicates (n_boot)",
        )
    out = np.empty((g, n_boot, flat.shape[1]), dtype=np.int64)
    if g:
        _boot.multinomial_resample(flat, float(pseudo), n_boot, seeds, out)
    return out.reshape(g, n_boot, *counts.shape[1:])


def _bootstrap(
    counts: np.ndarray,
    names: Sequence[str],
    level: float,
    n_boot: int,
    seed: int,
    positive: int,
    beta: float | None,
    pseudo: float = 0.0,
    ids: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Percentile intervals of ``n_boot`` resamples of each table; ``ids`` are the groups'
    numbers for their generators (:func:`bootstrap_replicates`), ``0 .. G - 1`` by default."""
    g, k, _ = counts.shape
    low = {m: np.empty(g) for m in names}
    high = {m: np.empty(g) for m in names}
    alpha = 1.0 - level
    per_group = n_boot * (k * k + len(names))
    if per_group > _CHUNK_CELLS:
        # one group's replicates fill more than a chunk (n_boot·K² cells: 30 GiB for 1,000 of
        # 2,000 classes): each group alone, its replicates drawn and measured in parts
        for i in range(g):
            number = i if ids is None else int(ids[i])
            values = _replicate_values(counts, i, names, n_boot, seed, positive, beta, pseudo, number)
            for m, v in values.items():
                _boot.percentiles(v.reshape(1, n_boot), alpha / 2.0, 1.0 - alpha / 2.0, low[m][i : i + 1],
                                  high[m][i : i + 1])  # fmt: skip
        return {m: (low[m], high[m]) for m in names}
    step = _CHUNK_CELLS // per_group
    # a Python loop over chunks of groups, each one parallel kernel call: it bounds
    # the memory of the replicate tables, not the work per group
    for start in range(0, g, step):
        stop = min(g, start + step)
        part = None if ids is None else ids[start:stop]
        reps = bootstrap_replicates(counts[start:stop], n_boot, seed, first=start, pseudo=pseudo, ids=part)
        values = _measures.compute(reps.reshape(-1, k, k), names, positive=positive, beta=beta)
        infinite_ratios(reps.reshape(-1, k, k), values, positive)
        for m, v in values.items():
            _boot.percentiles(
                v.reshape(stop - start, n_boot), alpha / 2.0, 1.0 - alpha / 2.0, low[m][start:stop],
                high[m][start:stop],
            )  # fmt: skip
    return {m: (low[m], high[m]) for m in names}


def smoothed_bootstrap(
    counts: np.ndarray,
    names: Sequence[str],
    level: float,
    n_boot: int,
    seed: int,
    positive: int = 1,
    beta: float | None = None,
    ids: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The smoothed percentile bootstrap of ``evaluate(ci=)`` (``pseudo="present"``): each
    group's table of its *present* classes, those with a real example or a prediction in it,
    resampled from that table plus :func:`bootstrap_pseudo_count` of their number in each of its
    cells. A class of the call's class set that the group never has (another group's, or one
    named in ``classes=``) gets no pseudo-count: resamples put no example in it, and a group's
    interval is the same, bit for bit, whatever the other groups and classes of the call (with
    the same seed and its position among the groups).

    A group with every class present (and an empty one) is resampled whole, as
    ``pseudo=bootstrap_pseudo_count(K)`` does (the same replicates); a group with fewer, from
    its table cut to its present classes in their order, with the generator of its position. A
    group of one present class is smoothed as a table of two classes (1/2 in each of four cells):
    its class and one other, the call's other class in a binary table (as before, the same
    replicates) and otherwise an empty class after it (a one-class call included): its one cell
    alone would resample only itself, the plain bootstrap's failure that the smoothing is for.

    Examples
    --------
    The first table has classes 0 and 1 of three: it is resampled as the 2 × 2 table alone is.

    >>> counts = np.array([[[6, 2, 0], [1, 5, 0], [0, 0, 0]], [[3, 1, 1], [0, 4, 1], [2, 0, 3]]])
    >>> got = smoothed_bootstrap(counts, ["macro_f1"], 0.95, 200, seed=3)["macro_f1"]
    >>> alone = _bootstrap(counts[:1, :2, :2], ["macro_f1"], 0.95, 200, 3, 1, None, bootstrap_pseudo_count(2))
    >>> bool(got[0][0] == alone["macro_f1"][0][0] and got[1][0] == alone["macro_f1"][1][0])
    True
    """
    g, k, _ = counts.shape
    if k == 1:  # one class in the call: each table as one of two, an empty class after its own
        counts = np.pad(counts, ((0, 0), (0, 1), (0, 1)))
        k = 2
    present = present_classes(counts)
    k_present = np.count_nonzero(present, axis=1)
    # whole: every class present, none (an empty group), or one of a binary table's two
    whole = (k_present == k) | (k_present == 0) | ((k_present == 1) & (k == 2))
    if whole.all():
        return _bootstrap(counts, names, level, n_boot, seed, positive, beta, _smoothing(k), ids=ids)
    numbers = np.arange(g) if ids is None else np.asarray(ids, dtype=np.int64)
    low = {m: np.full(g, np.nan) for m in names}
    high = {m: np.full(g, np.nan) for m in names}
    parts = [(np.flatnonzero(whole), k)] + [
        (np.flatnonzero(k_present == m), int(m)) for m in np.unique(k_present[~whole])
    ]
    for rows, m in parts:
        if not len(rows):
            continue
        if m == k:
            tables = counts[rows]
        elif m == 1:  # its one class and an empty one after it
            cls = np.nonzero(present[rows])[1]
            tables = np.zeros((len(rows), 2, 2), dtype=counts.dtype)
            tables[:, 0, 0] = counts[rows, cls, cls]
        else:
            tables = present_tables(counts, present, rows, m)
        got = _bootstrap(tables, names, level, n_boot, seed, positive, beta, _smoothing(m), ids=numbers[rows])
        for name, (lo, hi) in got.items():
            low[name][rows] = lo
            high[name][rows] = hi
    return {m: (low[m], high[m]) for m in names}


def present_classes(counts: np.ndarray) -> np.ndarray:
    """``present[g, k]``: whether class ``k`` has a real example or a prediction in table ``g``
    of ``counts[G, K, K]``; the classes of the call that a group never has are left out of its
    smoothed bootstrap (:func:`smoothed_bootstrap`) and of its adjusted delta interval
    (:func:`chance_interval`), so that neither moves with the other groups of the call.

    Examples
    --------
    >>> present_classes(np.array([[[3, 0, 1], [0, 0, 0], [2, 0, 4]]])).tolist()
    [[True, False, True]]
    """
    real, pred = held_margins(counts)
    return real | pred


def present_tables(counts: np.ndarray, present: np.ndarray, ids: np.ndarray, m: int) -> np.ndarray:
    """The tables ``counts[ids]`` cut to their ``m`` present classes (``present`` of
    :func:`present_classes`; every table of ``ids`` has ``m``), in the classes' order.

    Examples
    --------
    >>> counts = np.array([[[3, 0, 1], [0, 0, 0], [2, 0, 4]]])
    >>> present_tables(counts, present_classes(counts), np.array([0]), 2).tolist()
    [[[3, 1], [2, 4]]]
    """
    cls = np.nonzero(present[ids])[1].reshape(len(ids), m)
    return counts[ids[:, None, None], cls[:, :, None], cls[:, None, :]]


def _smoothing(n_classes: int) -> float:
    """:func:`bootstrap_pseudo_count` of ``n_classes`` present classes, a table of one class
    smoothed as one of two (:func:`smoothed_bootstrap`)."""
    return bootstrap_pseudo_count(max(n_classes, 2))


def _replicate_values(
    counts: np.ndarray, index: int, names: Sequence[str], n_boot: int, seed: int, positive: int,
    beta: float | None, pseudo: float, number: int | None = None,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Every measure of :func:`bootstrap_replicates`' ``n_boot`` replicates of table ``index``
    (as ``first=index``, or ``ids=[number]``), the replicates drawn a chunk at a time from one generator
    (:func:`batcheval.kernels.bootstrap.resample_more`): the same tables, in the same order,
    in memory bounded by :data:`_CHUNK_CELLS` (or one table where a table is larger)."""
    k = counts.shape[1]
    part = min(n_boot, max(1, _CHUNK_CELLS // (k * k + len(names))))
    if n_boot * len(names) > _CHUNK_CELLS:
        check_allocation(
            8 * n_boot * len(names),
            f"n_boot={n_boot} values of each of {len(names)} measure(s)",
            "draw fewer replicates, or ask for fewer measures",
        )
    values = {m: np.empty(n_boot) for m in names}
    for start, reps in replicate_parts(counts, index, n_boot, seed, part, pseudo, number=number):
        got = _measures.compute(reps, names, positive=positive, beta=beta)
        infinite_ratios(reps, got, positive)
        for m, v in got.items():
            values[m][start : start + len(reps)] = v
    return values


#: The binary ratios that are +inf in a bootstrap resample where their denominator is 0 and their
#: numerator is not (:func:`infinite_ratios`).
INFINITE_RATIOS = ("odds_ratio", "lr_plus", "lr_minus")


def infinite_ratios(reps: np.ndarray, values: dict[str, np.ndarray], positive: int) -> None:
    """Set to +inf, in place, the values of :data:`INFINITE_RATIOS` among ``values`` (the
    measures of the binary tables ``reps[R, 2, 2]``, class ``positive`` positive) whose denominator
    is 0 while their numerator is not: ``odds_ratio`` where ``fp·fn = 0 < tp·tn``, ``lr_plus`` where
    fallout is 0 and recall and inverse recall are not (``fp = 0 < tp, tn``), ``lr_minus`` where
    inverse recall is 0 and miss rate and fallout are not (``tn = 0 < fn, fp``). Their point
    estimate there is NaN (docs/measures.md), but a resample's ratio is that limit, above every
    finite resample: dropped as undefined, they cut the percentile interval off at its estimate.
    ``0/0`` stays NaN; other measures, and tables of other sizes, are left as they are.

    Examples
    --------
    >>> reps = np.array([[[20, 0], [1, 21]], [[20, 1], [1, 20]], [[0, 0], [1, 41]]])
    >>> values = _measures.compute(reps, ["odds_ratio", "lr_plus"])
    >>> infinite_ratios(reps, values, 1)
    >>> values["odds_ratio"].tolist(), values["lr_plus"].tolist()
    ([inf, 400.0, nan], [inf, 20.0, nan])
    """
    wanted = [m for m in INFINITE_RATIOS if m in values]
    if not wanted or reps.shape[1:] != (2, 2):
        return
    tp, fp, fn, tn = binary_cells(reps, positive)
    limits = {
        "odds_ratio": ((fp == 0) | (fn == 0)) & (tp > 0) & (tn > 0),
        "lr_plus": (fp == 0) & (tp > 0) & (tn > 0),
        "lr_minus": (tn == 0) & (fn > 0) & (fp > 0),
    }
    for m in wanted:
        values[m][limits[m]] = np.inf


def replicate_parts(
    counts: np.ndarray,
    index: int,
    n_boot: int,
    seed: int | None,
    part: int,
    pseudo: float = 0.0,
    *,
    number: int | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """:func:`bootstrap_replicates`' ``n_boot`` replicates of table ``index`` of ``counts[G, ...]``
    (as ``first=index``; with ``number``, as ``ids=[number]``), ``part`` at a time:
    ``(start, reps[n, *table shape])`` for replicates ``start`` to ``start + n``, drawn in order
    from one generator (:func:`batcheval.kernels.bootstrap.resample_more`), the same tables bit
    for bit in ``part`` replicates' memory. ``reps`` is one buffer, overwritten by the next part.

    Examples
    --------
    >>> counts = np.array([[[5, 1], [2, 7]], [[3, 3], [0, 9]]])
    >>> whole = bootstrap_replicates(counts, 5, seed=2)[1]
    >>> parts = [reps.copy() for _, reps in replicate_parts(counts, 1, 5, 2, part=2)]
    >>> [len(p) for p in parts], bool((np.concatenate(parts) == whole).all())
    ([2, 2, 1], True)
    """
    shape = counts.shape[1:]
    cells = math.prod(shape)
    part = max(1, min(part, n_boot))
    flat = readonly(np.ascontiguousarray(counts[index : index + 1], dtype=np.int64).reshape(1, cells))
    state = np.empty(4, dtype=np.uint64)
    _boot.start_state(seeds_for(seed, index if number is None else number, 1)[0], state)
    reps = np.empty((part, cells), dtype=np.int64)
    for start in range(0, n_boot, part):
        n = min(part, n_boot - start)
        _boot.resample_more(flat, 0, float(pseudo), n, state, reps[:n])
        yield start, reps[:n].reshape(n, *shape)


def intervals(
    counts: np.ndarray,
    names: Sequence[str],
    level: float = 0.95,
    method: str = "wilson_delta",
    *,
    n_boot: int = 1000,
    seed: int | None = None,
    positive: int = 1,
    beta: float | None = None,
    binary: str = "score",
    accuracy: str = "modified_wilson",
    proportions: str = "modified_wilson",
    pseudo: float | str = 0.0,
    ids: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``(low, high)`` arrays of every measure in ``names`` for every table.

    Parameters
    ----------
    counts
        ``counts[G, K, K]`` (real × predicted).
    names
        Measures (one name, or a list); each must have an interval under ``method``
        (:func:`interval_measures`), else :class:`UnknownMeasureError`.
    level
        Confidence level in (0, 1).
    method
        ``"wilson_delta"`` or ``"bootstrap"`` (see the module docstring).
    n_boot, seed
        Bootstrap replicates per table and the seed that makes them
        reproducible (None: fresh entropy).
    positive
        Index of the positive class for binary proportions.
    beta
        β of ``f_beta`` (bootstrap only).
    binary
        ``"wilson_delta"`` only: the interval of the four chance-corrected measures of
        binary tables, ``"score"`` (the default) or ``"agresti_caffo"`` (the one before;
        see :func:`chance_interval`).
    accuracy
        ``"wilson_delta"`` only: ``"modified_wilson"`` (the default,
        :func:`modified_wilson`) or ``"wilson"`` (the one before).
    proportions
        ``"wilson_delta"`` only: the interval of the binary proportions other than
        accuracy (recall, precision, ...): ``"modified_wilson"`` (the default,
        :func:`modified_wilson` with ``x_star=1``: a one-sided Poisson end for 1
        success or failure) or ``"wilson"`` (the one before).
    pseudo
        ``"bootstrap"`` only: resample from the table plus ``pseudo`` in every cell
        (:func:`bootstrap_replicates`). 0 (the default here) is the plain percentile
        bootstrap. ``"present"`` is the smoothed bootstrap that :func:`add_intervals` gives
        the measures with no closed form under ``"wilson_delta"``: each group's table of the
        classes present in it (a real example or a prediction) plus
        :func:`bootstrap_pseudo_count` of their number in each of its cells
        (:func:`smoothed_bootstrap`).

    Examples
    --------
    >>> counts = np.array([[[40, 10], [20, 30]], [[0, 0], [0, 0]]])
    >>> low, high = intervals(counts, ["kappa_cohen"])["kappa_cohen"]
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.21, nan], [0.559, nan])
    >>> low, high = intervals(counts, ["informedness"], method="bootstrap", seed=7)["informedness"]
    >>> bool(low[0] < 0.4 < high[0]), bool(np.isnan(low[1]))
    (True, True)
    """
    level = _measures.check_level(level, "level")
    n_boot = check_options(level, method, n_boot, seed)
    if isinstance(names, str):  # one measure, as compute() and evaluate() read it, not its letters
        names = [names]
    if accuracy not in ACCURACY_METHODS:
        raise InvalidArgumentError(f"accuracy must be one of {list(ACCURACY_METHODS)}, got {accuracy!r}")
    if proportions not in PROPORTION_METHODS:
        raise InvalidArgumentError(
            f"proportions must be one of {list(PROPORTION_METHODS)}, got {proportions!r}"
        )
    if binary not in BINARY_CHANCE_METHODS:
        raise InvalidArgumentError(f"binary must be one of {list(BINARY_CHANCE_METHODS)}, got {binary!r}")
    counts = as_tables(counts)
    positive = positive_index(positive)
    names = list(names)
    _check_interval_names(names, counts.shape[1], method)
    if method == "bootstrap":
        if "f_beta" in names and beta is None:
            raise UnknownMeasureError("measure 'f_beta' needs a value for beta=")
        if isinstance(pseudo, str):
            if pseudo != "present":
                raise InvalidArgumentError(
                    f"pseudo must be a finite number of at least 0 or 'present', got {pseudo!r}"
                )
            return smoothed_bootstrap(
                counts, names, level, n_boot, _resolve_seed(seed), positive, beta, ids=ids
            )
        return _bootstrap(counts, names, level, n_boot, _resolve_seed(seed), positive, beta, pseudo, ids=ids)
    if pseudo != 0:
        raise InvalidArgumentError(f"pseudo= is for method='bootstrap' only, got pseudo={pseudo!r}")
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    scores: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    # kappa and correlation are built on both score intervals; informedness alone needs only its own
    wanted = {"informedness", "markedness"} & set(names)
    if {"kappa_cohen", "correlation"} & set(names):
        wanted = {"informedness", "markedness"}
    for name in names:
        if name in DELTA_MEASURES and counts.shape[1] == 2 and binary == "score":
            # the score intervals of informedness and markedness, computed once for all four
            scores = scores or binary_scores(counts, level, sorted(wanted))
            out[name] = scores[name] if name in scores else from_scores(counts, name, level, scores=scores)
        elif name in DELTA_MEASURES:
            out[name] = _chance_interval(counts, name, level, binary)
        elif name == "accuracy" and accuracy == "modified_wilson":
            out[name] = modified_wilson(*_proportion(counts, name, positive), level)
        elif name != "accuracy" and proportions == "modified_wilson":
            out[name] = modified_wilson(*_proportion(counts, name, positive), level, x_star=1)
        else:
            out[name] = wilson(*_proportion(counts, name, positive), level)
    return out


def newcombe(
    x1: np.ndarray, m1: np.ndarray, x2: np.ndarray, m2: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval of ``x1/m1 − x2/m2`` for two independent
    binomials (Newcombe 1998, Statist. Med. 17:873, method 10).

    With ``(l_i, u_i)`` the Wilson interval of ``p_i = x_i/m_i`` and ``d = p1 − p2``,

    .. math:: \\big(d - \\sqrt{(p_1 - l_1)^2 + (u_2 - p_2)^2},\\;
              d + \\sqrt{(u_1 - p_1)^2 + (p_2 - l_2)^2}\\big),

    the square-and-add (MOVER) combination of the two score intervals
    (Zou & Donner 2008, Statist. Med. 27:1693). NaN where ``m1`` or ``m2`` is 0.
    Not the default interval of informedness (see the module docstring); the
    calibration benchmark compares the two.

    Examples
    --------
    >>> low, high = newcombe(np.array([30]), np.array([50]), np.array([20]), np.array([50]))
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.0046, 0.3752)
    """
    level = _measures.check_level(level, "level")
    x1, m1 = binomial_counts(x1, m1, "newcombe", ("x1", "m1"))
    x2, m2 = binomial_counts(x2, m2, "newcombe", ("x2", "m2"))
    try:
        np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"newcombe: x1 and x2 must have the same shape or broadcast to one, got {x1.shape} and {x2.shape}"
        ) from None
    z = two_sided_z(level)
    l1, u1 = wilson_ends(x1, m1, z)
    l2, u2 = wilson_ends(x2, m2, z)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1 = x1 / m1
        p2 = x2 / m2
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return low, high


def chance_values(c: np.ndarray) -> dict[str, np.ndarray]:
    """Informedness, markedness, kappa_cohen and correlation of cells-last tables
    ``c[K, K, G]`` of any non-negative weights (pseudo-counts included), in numpy.

    The formulas of docs/measures.md, multiclass measures (the kernels take integer counts only): NaN where
    the measure's denominator vanishes.

    Examples
    --------
    ``[[40, 10], [20, 30]]``: informedness 30/50 + 40/50 − 1, markedness 30/40 + 40/60 − 1,
    kappa (0.7 − 0.5)/(1 − 0.5), correlation the geometric mean of the first two.

    >>> v = chance_values(cells_last(np.array([[[40, 10], [20, 30]], [[3, 0], [0, 0]]])))
    >>> list(v)
    ['informedness', 'markedness', 'kappa_cohen', 'correlation']
    >>> [values.round(4).tolist() for values in v.values()]
    [[0.4, nan], [0.4167, nan], [0.4, nan], [0.4082, nan]]
    """
    n = ordered_sum(c, (0, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = c / n
        r = ordered_sum(pi, 1)
        col = ordered_sum(pi, 0)
        diagonal = np.einsum("iig->ig", pi)
        dtp = diagonal - r * col
        b = ordered_sum(np.where(r < 1.0, dtp / (1.0 - r), 0.0), 0)
        m = ordered_sum(np.where(col < 1.0, dtp / (1.0 - col), 0.0), 0)
        b = np.where(_one_class(r), np.nan, b)
        m = np.where(_one_class(col), np.nan, m)
        pe = ordered_sum(r * col, 0)
        kappa = (ordered_sum(diagonal, 0) - pe) / (1.0 - pe)
        corr = np.where(b * m >= 0.0, np.sign(b + m) * np.sqrt(np.abs(b * m)), np.nan)
    return {"informedness": b, "markedness": m, "kappa_cohen": kappa, "correlation": corr}


def kernel_chance_values(counts: np.ndarray, extra: float = 0.0) -> np.ndarray:
    """:func:`chance_values` of the tables ``counts[G, K, K] + extra`` (every cell plus ``extra``)
    as rows in the order of :data:`DELTA_MEASURES`, table by table
    (:func:`batcheval.kernels.delta.chance_values`: no ``[K, K, G]`` copies; the same bits).

    Examples
    --------
    >>> kernel_chance_values(np.array([[[40, 10], [20, 30]]])).round(4).tolist()
    [[0.4], [0.4167], [0.4082], [0.4]]
    """
    c = kernel_counts(counts)
    values = np.empty((4, len(c)))
    if len(c):
        _delta.chance_values(c, float(extra), values)
    return values[[0, 1, 3, 2]]  # the kernel's rows: informedness, markedness, kappa, correlation


def pseudo_count(n_classes: int) -> float:
    """Pseudo-count added to every cell by the adjusted intervals, ``2/(K(K − 1))``:
    1 for two classes (Agresti & Caffo 2000), 1/3 for three, 1/10 for five (chosen
    by simulation, see the module docstring).

    Examples
    --------
    >>> [round(pseudo_count(k), 4) for k in (2, 3, 5)]
    [1.0, 0.3333, 0.1]
    """
    return 2.0 / (n_classes * (n_classes - 1))


#: Share of :func:`pseudo_count` added to every cell of the table that the smoothed bootstrap
#: of :func:`add_intervals` resamples from (:func:`bootstrap_pseudo_count`): half, chosen by
#: simulation (``benchmarks/calibration_bootstrap.py``; the whole pseudo-count over-covered more).
BOOTSTRAP_PSEUDO_SHARE = 0.5


def bootstrap_pseudo_count(n_classes: int) -> float:
    """The pseudo-count per cell of the smoothed bootstrap that ``evaluate(ci=)`` gives the
    measures with no closed form: ``BOOTSTRAP_PSEUDO_SHARE · pseudo_count(K) = 1/(K(K − 1))``,
    so ``2K/(K − 1)/2 = K/(K − 1)`` pseudo-examples in all (one off the diagonal), K the
    classes present in the group's table (:func:`smoothed_bootstrap`).

    Examples
    --------
    >>> [round(bootstrap_pseudo_count(k), 4) for k in (2, 3, 5)]
    [0.5, 0.1667, 0.05]
    """
    return BOOTSTRAP_PSEUDO_SHARE * pseudo_count(n_classes)


#: Share of :func:`pseudo_count` that the adjusted delta interval of a measure of three or
#: more classes adds to every cell for its standard error (its centre gets the whole
#: pseudo-count): chosen by simulation and by exact enumeration (see the module docstring).
SE_PSEUDO_SHARE = 0.68


def interval_pseudo_counts(n_classes: int) -> tuple[float, float]:
    """The pseudo-counts per cell of the adjusted delta interval (:func:`chance_interval`
    for more than two classes, and ``binary="agresti_caffo"``): ``(centre, standard error)``.

    The centre is the measure of the table plus :func:`pseudo_count` in every cell, the
    standard error the delta method's on the table plus :data:`SE_PSEUDO_SHARE` of that
    for three or more classes (all of it for two: Agresti & Caffo). With the whole
    pseudo-count in the standard error too, the intervals of three classes covered up to
    0.982 (exact, n = 30, informedness 0.95) where a few errors are expected: its two
    pseudo-errors weigh as much as the real ones.

    Examples
    --------
    >>> [tuple(round(v, 4) for v in interval_pseudo_counts(k)) for k in (2, 3, 5)]
    [(1.0, 1.0), (0.3333, 0.2267), (0.1, 0.068)]
    """
    a = pseudo_count(n_classes)
    return a, (a if n_classes == 2 else SE_PSEUDO_SHARE * a)


def smoothed_se(counts: np.ndarray, name: str, extra_count: float) -> np.ndarray:
    """Delta-method standard error of the table plus ``extra_count`` in every cell; NaN where
    the measure is undefined on the table itself."""
    plain = np.sqrt(delta_variance(counts, name))
    if _binary_informedness(counts, name):
        return np.where(np.isnan(plain), np.nan, np.sqrt(_informedness_variance(counts, extra_count)[0]))
    return np.where(np.isnan(plain), np.nan, np.sqrt(chance_variance(counts, name, extra_count)[0]))


def adjusted_se(counts: np.ndarray, name: str) -> np.ndarray:
    """Standard error of a chance-corrected measure that is never 0 for a
    non-empty table: the delta method on the table plus :func:`pseudo_count` in
    every cell. NaN where the measure is undefined on the table itself. Tests of
    a difference between runs use it, so that no p-value comes from a standard
    error of 0. (The interval of more than two classes uses a share of the
    pseudo-count: :func:`interval_pseudo_counts`.)

    Examples
    --------
    >>> se = adjusted_se(np.array([[[2, 0], [0, 2]]]), "informedness")
    >>> round(float(se[0]), 4)  # Agresti-Caffo: 2·(3/4)(1/4)/4 under the root
    0.3062
    """
    return smoothed_se(counts, name, pseudo_count(np.shape(counts)[1]))


def score_difference(
    x1: np.ndarray, m1: np.ndarray, x2: np.ndarray, m2: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Miettinen & Nurminen's (1985, Statist. Med. 4:213) score interval of
    ``x1/m1 − x2/m2`` for two independent binomials, for every element at once.

    The set of differences ``δ`` that the score test (variance at the maximum-likelihood
    proportions under ``δ``, times ``N/(N − 1)``, ``N = m1 + m2``) does not reject at
    ``1 − level``; see :mod:`batcheval.kernels.score_diff`. It lies in [−1, 1] and has
    positive width for every pair of non-empty samples; NaN where ``m1`` or ``m2`` is 0. The
    counts must be whole numbers, non-negative, as many of each, with ``x1 ≤ m1`` and ``x2 ≤ m2``
    (else :class:`~batcheval.errors.InvalidArgumentError`).

    Examples
    --------
    >>> low, high = score_difference(np.array([30]), np.array([50]), np.array([20]), np.array([50]))
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.003, 0.382)
    """
    level = _measures.check_level(level, "level")
    # whole non-negative counts, as intervals() takes (the cast truncated 2.5 to 2), the same
    # number of each (the kernel read past a shorter one), and no more successes than trials
    args = {"x1": x1, "m1": m1, "x2": x2, "m2": m2}
    got = {arg: as_counts(np.ravel(v), arg) for arg, v in args.items()}
    sizes = [len(v) for v in got.values()]
    if len(set(sizes)) > 1:
        raise InvalidArgumentError(f"x1, m1, x2 and m2 must have the same number of elements, got {sizes}")
    for x, m in (("x1", "m1"), ("x2", "m2")):
        over = np.flatnonzero(got[x] > got[m])
        if len(over):
            at = int(over[0])
            raise InvalidArgumentError(
                f"{x} must not exceed {m}, got {x}={int(got[x][at])} and {m}={int(got[m][at])} (group {at})"
            )
    # writable too: one table's cell of a read-only tensor (ContingencyTable.counts) is a contiguous
    # read-only view, which numba compiled the kernel for a second time (0.9 s of CPU on a fresh
    # machine for evaluate(ci=) of one table after one of several)
    x1, m1, x2, m2 = (np.require(v, np.int64, ["C", "W"]) for v in got.values())
    low = np.empty(x1.shape[0])
    high = np.empty(x1.shape[0])
    if x1.shape[0]:
        _score_diff.score_diff_interval(x1, m1, x2, m2, two_sided_z(level), low, high)
    return low, high


def _check_chance_measure(name: str, function: str) -> None:
    """Refuse a measure that ``function`` has no interval of (the chance-corrected ones only)."""
    if name not in DELTA_MEASURES:
        raise UnknownMeasureError(
            f"measure {name!r} has no chance-corrected interval; {function} is for {list(DELTA_MEASURES)}"
        )


def adjusted_delta(
    counts: np.ndarray, name: str, level: float = 0.95, se_count: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``f(t̃) ± z·se(t̂)``: ``t̃`` and ``t̂`` the table plus the pseudo-counts of
    :func:`interval_pseudo_counts` in every cell (``se_count``: another for ``t̂``), widened
    to hold the estimate and clipped. NaN for tables of one class (every example of one group
    set in one class, predicted and real): the chance-corrected measures compare classes, and
    there is none to compare. Where the smoothed table's informedness and markedness disagree
    in sign, correlation's interval spans theirs. Another measure than those of
    :data:`DELTA_MEASURES` is refused (:class:`~batcheval.errors.UnknownMeasureError`), as by
    :func:`chance_interval`.

    Examples
    --------
    A perfect classifier of 15 examples in three classes: the interval reaches 1.

    >>> low, high = adjusted_delta(np.array([np.eye(3, dtype=np.int64) * 5]), "informedness", 0.9)
    >>> round(float(low[0]), 4), float(high[0])
    (0.6714, 1.0)
    """
    level = _measures.check_level(level, "level")
    _check_chance_measure(name, "adjusted_delta")
    if counts.shape[1] < 2:
        nan = np.full(len(counts), np.nan)
        return nan, nan.copy()
    a_centre, a_se = interval_pseudo_counts(counts.shape[1])
    if se_count is not None:
        a_se = se_count
    z = two_sided_z(level)
    # the estimate as the measures report it (chance_values' own may differ in the last bit, and
    # is NaN for a correlation of 0 where informedness or markedness is 0)
    raw = _measures.compute(counts, [name])[name]
    se = smoothed_se(counts, name, a_se)
    centre = kernel_chance_values(counts, a_centre)[DELTA_MEASURES.index(name)]
    ok = np.isfinite(raw) & np.isfinite(se) & np.isfinite(centre)
    with np.errstate(invalid="ignore"):
        # an interval holds its own estimate: with a handful of examples (two classes of three
        # present) the pseudo-counts' centre lay further from it than the half-width
        low = np.where(ok, np.clip(np.minimum(centre - z * se, raw), -1.0, 1.0), np.nan)
        high = np.where(ok, np.clip(np.maximum(centre + z * se, raw), -1.0, 1.0), np.nan)
    lost = np.flatnonzero(np.isfinite(raw) & ~ok)
    if name == "correlation" and len(lost):
        # the smoothed table's informedness and markedness disagree in sign, or one is 0 (so the
        # correlation is near 0, where sqrt(B·M) has no gradient): correlation lies between
        # informedness and markedness, so between the ends of their intervals
        sub = counts[lost]
        b_low, b_high = adjusted_delta(sub, "informedness", level, se_count)
        m_low, m_high = adjusted_delta(sub, "markedness", level, se_count)
        low[lost], high[lost] = np.minimum(b_low, m_low), np.maximum(b_high, m_high)
    return low, high


def binary_scores(
    counts: np.ndarray,
    level: float = 0.95,
    names: Sequence[str] = ("informedness", "markedness"),
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The score intervals of binary informedness (``tpr − fpr`` given the real class sizes) and
    markedness (``ppv − for`` given the predicted sizes) of 2×2 tables, by :func:`score_difference`;
    only those of the two in ``names`` (each costs a root search per end and table).

    Examples
    --------
    >>> out = binary_scores(np.array([[[40, 10], [20, 30]]]))
    >>> [round(float(v[0]), 4) for v in out["informedness"]]
    [0.2124, 0.5602]
    >>> list(binary_scores(np.array([[[40, 10], [20, 30]]]), names=["markedness"]))
    ['markedness']
    """
    level = _measures.check_level(level, "level")
    t = np.ascontiguousarray(counts, dtype=np.int64)
    tn, fp, fn, tp = t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1]
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if "informedness" in names:
        out["informedness"] = score_difference(tp, tp + fn, fp, fp + tn, level)
    if "markedness" in names:
        out["markedness"] = score_difference(tp, tp + fp, fn, fn + tn, level)
    return out


def from_scores(
    counts: np.ndarray,
    name: str,
    level: float = 0.95,
    *,
    scores: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Interval of binary kappa_cohen or correlation built on the score intervals
    (:func:`score_difference`) of informedness and markedness, for every 2×2 table.

    Given the real shares ``r`` and the predicted shares ``c``, both measures are
    multiples of informedness ``B`` and of markedness ``M``: ``κ = s_B·B = s_M·M`` with
    ``s_B = 2 r_0 r_1/(r_0 c_1 + r_1 c_0)``, ``s_M = 2 c_0 c_1/(r_0 c_1 + r_1 c_0)``, and
    ``ρ = s_B·B = s_M·M`` with ``s_B = √(r_0 r_1/(c_0 c_1)) = 1/s_M``. The distances of the
    score ends ``(l_B, u_B)`` and ``(l_M, u_M)`` from ``B̂`` and ``M̂``, scaled by ``s_B`` and
    ``s_M`` and averaged, are multiplied by

    .. math:: k = \\frac{se(f)}{\\big(s_B\\, se(B) + s_M\\, se(M)\\big)/2},

    the ratio of the delta-method standard error of the measure (whose margins vary)
    to the same average of those of ``B`` and ``M`` (each given its margins), the larger
    of ``k`` on the table and on the table plus one per cell (:func:`adjusted_se`; on a
    perfect table only the latter is defined):

    .. math:: \\big(f̂ - k\\,\\tfrac{s_B (B̂ - l_B) + s_M (M̂ - l_M)}{2},\\;
              f̂ + k\\,\\tfrac{s_B (u_B - B̂) + s_M (u_M - M̂)}{2}\\big),

    clipped to [−1, 1]; ``scores`` are :func:`binary_scores` of the same tables and level,
    if already at hand (the score intervals are most of the cost). Where a class is absent
    (the score intervals are NaN, kappa is still defined) it is the adjusted delta
    interval (:func:`chance_interval` with ``binary="agresti_caffo"``); NaN where the
    measure is undefined. Chosen by
    simulation over the adjusted delta interval, which covered up to 0.998 with a rare
    class (see the module docstring).

    Examples
    --------
    >>> low, high = from_scores(np.array([[[40, 10], [20, 30]], [[50, 0], [0, 50]]]), "kappa_cohen")
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.2101, 0.9253], [0.5591, 1.0])
    """
    level = _measures.check_level(level, "level")
    if name not in ("kappa_cohen", "correlation"):
        raise InvalidArgumentError(f"from_scores is for 'kappa_cohen' or 'correlation', got {name!r}")
    t = np.ascontiguousarray(counts, dtype=np.int64)
    if t.ndim != 3 or t.shape[1:] != (2, 2):
        raise InvalidArgumentError(f"from_scores needs 2×2 tables, got counts of shape {t.shape}")
    tn, fp, fn, tp = t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1]
    if scores is None:
        scores = binary_scores(t, level)
    (lb, ub), (lm, um) = scores["informedness"], scores["markedness"]
    v = chance_values(cells_last(t))
    n = t.sum(axis=(1, 2)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r0, r1, c0, c1 = (tn + fp) / n, (fn + tp) / n, (tn + fn) / n, (fp + tp) / n
        if name == "kappa_cohen":
            sb, sm = 2 * r0 * r1 / (r0 * c1 + r1 * c0), 2 * c0 * c1 / (r0 * c1 + r1 * c0)
        else:
            sb = np.sqrt(r0 * r1 / (c0 * c1))
            sm = 1.0 / sb
        adj = {m: adjusted_se(t, m) for m in ("informedness", "markedness", name)}
        plain = table_standard_errors(t, ["informedness", "markedness", name])
        ratios = [se[name] / (0.5 * (sb * se["informedness"] + sm * se["markedness"])) for se in (adj, plain)]
        # a perfect (or inverted) table has plain standard errors of 0, up to rounding: no ratio
        ratios[1] = np.where((fp + fn > 0) & (tp + tn > 0), ratios[1], np.nan)
        k = np.fmax(ratios[0], ratios[1])
        low = v[name] - 0.5 * (sb * (v["informedness"] - lb) + sm * (v["markedness"] - lm)) * k
        high = v[name] + 0.5 * (sb * (ub - v["informedness"]) + sm * (um - v["markedness"])) * k
    low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    # the centre is chance_values' estimate, which may differ from the reported one in the last
    # bit: an end on the centre (a score end at −1 or 1) then missed the estimate by an ulp
    raw = _measures.compute(t, [name])[name]
    held = np.isfinite(raw) & np.isfinite(low) & np.isfinite(high)
    low, high = np.where(held, np.minimum(low, raw), low), np.where(held, np.maximum(high, raw), high)
    missing = ~(np.isfinite(low) & np.isfinite(high))
    if missing.any():
        old_low, old_high = adjusted_delta(t[missing], name, level)
        low[missing], high[missing] = old_low, old_high
    return low, high


def chance_interval(
    counts: np.ndarray, name: str, level: float = 0.95, *, binary: str = "score"
) -> tuple[np.ndarray, np.ndarray]:
    """The default interval of informedness, markedness, kappa_cohen or
    correlation for every table of ``counts[G, K, K]`` (see the module docstring).

    ``binary`` picks the interval of binary informedness and markedness:
    ``"score"`` (the default, Miettinen–Nurminen, :func:`score_difference`) or
    ``"agresti_caffo"`` (the default before, the adjusted delta method, which
    for them is Agresti & Caffo's interval). Binary kappa and correlation, and
    every measure of more classes, use the adjusted delta method either way.

    A table is taken over its present classes (:func:`present_classes`): a table of
    three or more classes in which only some have an example or a prediction gets the
    interval of its table cut to those (the binary one for two), not pseudo-counts in the
    classes it never has, which moved its interval with the other groups of the call.

    Examples
    --------
    >>> low, high = chance_interval(np.array([[[50, 0], [0, 50]]]), "informedness")
    >>> round(float(low[0]), 4), float(high[0])
    (0.9253, 1.0)
    >>> low, high = chance_interval(np.array([[[50, 0], [0, 50]]]), "informedness", binary="agresti_caffo")
    >>> round(float(low[0]), 4), float(high[0])
    (0.9087, 1.0)

    The same table with an empty third class gets the same interval:

    >>> low, high = chance_interval(np.array([[[50, 0, 0], [0, 50, 0], [0, 0, 0]]]), "informedness")
    >>> round(float(low[0]), 4), float(high[0])
    (0.9253, 1.0)
    """
    level = _measures.check_level(level, "level")
    _check_chance_measure(name, "chance_interval")
    if binary not in BINARY_CHANCE_METHODS:
        raise InvalidArgumentError(f"binary must be one of {list(BINARY_CHANCE_METHODS)}, got {binary!r}")
    # checked as intervals() checks them: 5.9 read as 5 and -5 gave NaN with numpy's own warning
    return _chance_interval(as_tables(counts), name, level, binary)


def _chance_interval(
    counts: np.ndarray, name: str, level: float, binary: str
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chance_interval` of checked tables and arguments: intervals() checks them once for
    every measure, not once a measure."""
    if counts.shape[1] > 2:
        present = present_classes(counts)
        k_present = np.count_nonzero(present, axis=1)
        cut = (k_present >= 2) & (k_present < counts.shape[1])
        if cut.any():
            # a group is the table of its own classes: the pseudo-counts of the classes of the call
            # that it never has moved its interval with the other groups (and classes=), and a
            # group of two classes gets the binary interval it gets alone
            low, high = np.full(len(counts), np.nan), np.full(len(counts), np.nan)
            whole = np.flatnonzero(~cut)
            if len(whole):
                low[whole], high[whole] = adjusted_delta(counts[whole], name, level)
            for m in np.unique(k_present[cut]):
                ids = np.flatnonzero(cut & (k_present == m))
                tables = present_tables(counts, present, ids, int(m))
                low[ids], high[ids] = _chance_interval(tables, name, level, binary)
            return low, high
    if counts.shape[1] == 2 and binary == "score" and name in ("informedness", "markedness"):
        # tpr − fpr given the real class sizes; ppv − (1 − npv) given the predicted ones
        t = counts if name == "informedness" else np.swapaxes(counts, 1, 2)
        return score_difference(t[:, 1, 1], t[:, 1].sum(axis=1), t[:, 0, 1], t[:, 0].sum(axis=1), level)
    if counts.shape[1] == 2 and binary == "score":
        return from_scores(counts, name, level)
    return adjusted_delta(counts, name, level)


def add_intervals(
    frame: pl.DataFrame,
    table: Any,
    *,
    pool: str | Sequence[str] | None,
    measures: Sequence[str] | None,
    per_class: bool,
    positive: Any,
    beta: float | None,
    ci: float,
    method: str,
    n_boot: int,
    seed: int | None,
) -> pl.DataFrame:
    """Append ``<measure>_ci_low`` / ``_ci_high`` to an :func:`~batcheval.evaluate` frame.

    The intervals are those of the tables behind the frame's rows: pooled
    when ``pool`` is given, one-vs-rest when ``per_class``. Binary ``f1`` and
    ``jaccard`` named in ``measures`` get closed forms (:data:`JACCARD_MEASURES`), binary ``mcc``
    that of ``correlation`` (the same value), and so the other measures equal to one with an
    interval of its own (``measures.BINARY_EQUIVALENT``; ``weighted_recall`` at any K, the others
    in a group of at most two present classes, as mcc; binary ``f_beta`` with ``beta=1`` is ``f1``,
    :func:`beta_is_f1`, and with ``beta=0`` ``precision``); the other measures that have
    no closed-form interval under ``"wilson_delta"`` get the *smoothed* percentile
    bootstrap (``n_boot`` resamples of the table of the group's present classes plus
    :func:`bootstrap_pseudo_count` of their number in each of its cells; see the module
    docstring and :func:`smoothed_bootstrap`), while ``method="bootstrap"`` gives every
    measure the plain percentile bootstrap. p-values have none, and naming some of them
    warns with their names (naming only such measures is an error). The leaderboard's
    interval columns are these intervals too.

    Examples
    --------
    >>> import batcheval as be
    >>> import polars as pl
    >>> frame = pl.DataFrame({"label": [0] * 10 + [1] * 10, "prediction": [0] * 10 + [1] * 10})
    >>> plain = be.evaluate(frame, measures=["macro_f1"], ci=0.95, ci_method="bootstrap", seed=1)
    >>> plain.select("macro_f1_ci_low", "macro_f1_ci_high").row(0)
    (1.0, 1.0)
    >>> smoothed = be.evaluate(frame, measures=["macro_f1"], ci=0.95, seed=1)
    >>> bool(smoothed["macro_f1_ci_low"][0] < 0.9), smoothed["macro_f1_ci_high"][0]
    (True, 1.0)
    """
    if pool is not None:
        table = table.pool(pool)
    counts = np.asarray(table.counts)
    k = table.n_classes
    if k == 0:
        counts, k = np.zeros((0, 2, 2), dtype=np.int64), 2
    # two classes per class: each class's rows are positive=c's, of the table as counted (see
    # by_class), not of the table reoriented for class 0 (its informedness interval moved an ulp)
    positives = (0, 1) if per_class and table.n_classes == 2 else None
    ids = None
    if per_class and positives is None:
        ids = class_table_ids(counts)
        counts, k, pos = one_vs_rest(counts), 2, 1
    else:
        pos = table.positive_index(positive) if k == 2 and table.n_classes == 2 else 1
    if k == 1 and binary_only(measures):
        # one class: its binary measures are those of the class against the (empty) rest, as
        # the point values are computed (measures.compute), so their intervals are that table's
        counts, k, pos = one_vs_rest(counts), 2, 1
    wanted = _measures.default_measures(k, beta) if measures is None else list(measures)
    boot = interval_measures(k, "bootstrap")
    # measures with no closed form (mcc of K > 2, macro_f1, ...) fall back to the (smoothed)
    # bootstrap, when named by the caller (for the default set it would cost far more than it)
    result = by_class(
        lambda c: default_intervals(counts, wanted, ci, method, n_boot=n_boot, seed=seed, positive=c,
                                    beta=beta, fallback=measures is not None, ids=ids),
        positives or (pos,),
    )  # fmt: skip
    if not result:
        raise UnknownMeasureError(
            f"none of measures={list(wanted)} has an interval; measures with one: {boot}"
        )
    left = [m for m in wanted if m not in result and m not in boot]
    if left and measures is not None:
        why = (
            "p-values and alpha_sbb have none"
            if all(m.startswith("p_") or m == "alpha_sbb" for m in left)
            else f"no interval method for {k} class{'es' if k != 1 else ''}"
        )
        warn(f"no interval for {left}: {why}; the other measures have one")
    return frame.hstack(interval_columns(frame, result))


def class_table_ids(counts: np.ndarray) -> np.ndarray:
    """The bootstrap generators' numbers of the one-vs-rest tables of ``counts[G, K, K]``
    (:func:`~batcheval.core.table.one_vs_rest`, its row order): class ``c`` of group ``g`` gets
    ``g·2³² + r``, ``r`` the rank of ``c`` among the group's present classes
    (:func:`present_classes`; ``K + c`` for a class it never has). Numbered by their rows,
    ``g·K + c``, a group's per-class intervals moved with the call's class count: another
    group's class, or ``classes=`` naming one, redrew every group's resamples. (So the per-class
    bootstrap intervals of every group but the first differ, by their Monte-Carlo error, from
    those of the versions that numbered them so.)

    Examples
    --------
    Classes 0 and 2 of three in the first group, all three in the second:

    >>> counts = np.array([[[3, 0, 1], [0, 0, 0], [2, 0, 4]], np.eye(3, dtype=np.int64)])
    >>> (class_table_ids(counts) - np.repeat([0, 2**32], 3)).tolist()
    [0, 4, 1, 0, 1, 2]
    """
    g, k, _ = counts.shape
    present = present_classes(counts)
    rank = np.where(present, np.cumsum(present, axis=1) - 1, k + np.arange(k))
    return (np.arange(g, dtype=np.int64)[:, None] * 2**32 + rank).reshape(-1)


def by_class(
    intervals_of: Callable[[int], dict[str, tuple[np.ndarray, np.ndarray]]], positives: Sequence[int]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The intervals ``intervals_of(c)`` of the same tables with each class of ``positives`` the
    positive one, interleaved as the rows of ``per_class`` (each group's classes in turn); with
    one class, its intervals as they are.

    A binary table's ``per_class`` rows are those of ``positive=0`` and ``positive=1``. Their
    intervals come from the table as counted, with index ``c`` positive, not from the table
    reoriented for class 0 (as more classes are, :func:`~batcheval.core.table.one_vs_rest`):
    the measures that do not depend on the positive class (informedness, markedness,
    correlation, kappa_cohen) then come from the one orientation in both rows, as with
    ``positive=``, and a seeded bootstrap draws what ``positive=c`` draws.

    Examples
    --------
    Two groups: the lower ends of recall (40/50, then 30/50 for the first group's classes;
    5/10, then 10/10 for the second's):

    >>> counts = np.array([[[40, 10], [20, 30]], [[5, 5], [0, 10]]])
    >>> both = by_class(lambda c: {"recall": wilson(*proportion(counts, "recall", c), 0.95)}, (0, 1))
    >>> both["recall"][0].round(4).tolist()
    [0.6696, 0.4618, 0.2366, 0.7225]
    """
    parts = [intervals_of(c) for c in positives]
    if len(parts) == 1:
        return parts[0]
    out = {}
    for name in parts[0]:
        low, high = (np.stack([part[name][end] for part in parts], axis=1).reshape(-1) for end in (0, 1))
        out[name] = (low, high)
    return out


def interval_twin(name: str, n_classes: int, beta: float | None = None) -> str:
    """The measure whose interval ``name`` takes on every table of ``n_classes`` classes, being
    equal to it there: accuracy for weighted_recall, the measure of
    :data:`batcheval.measures.registry.BINARY_EQUIVALENT` on binary tables, f1 for binary
    ``f_beta`` where ``beta`` is 1 (:func:`beta_is_f1`) and precision where it is 0
    (``tp/(tp + fp)``); else ``name`` itself. Plain
    (:func:`default_intervals`) and cluster-robust
    (:func:`batcheval.inference.clustered.clustered_intervals`) intervals both read it.

    Examples
    --------
    >>> interval_twin("weighted_recall", 3), interval_twin("mcc", 2), interval_twin("mcc", 3)
    ('accuracy', 'correlation', 'mcc')
    >>> interval_twin("f_beta", 2, beta=1.0), interval_twin("f_beta", 2, beta=0.0)
    ('f1', 'precision')
    >>> interval_twin("f_beta", 2, beta=2.0)
    'f_beta'
    """
    if name == "weighted_recall":
        return "accuracy"
    if n_classes == 2 and name == "f_beta" and beta_is_f1(beta):
        return "f1"
    if n_classes == 2 and name == "f_beta" and beta is not None and beta == 0:
        return "precision"
    return _measures.equivalent(name, n_classes)


def beta_is_f1(beta: float | None) -> bool:
    """Whether ``f_beta`` at this ``beta`` is binary ``f1`` on every table (β = 1), so that it takes
    f1's interval, plain (:func:`default_intervals`) and cluster-robust
    (:func:`batcheval.inference.clustered.add_clustered_intervals`).

    Examples
    --------
    >>> beta_is_f1(1.0), beta_is_f1(1), beta_is_f1(2.0), beta_is_f1(None)
    (True, True, False, False)
    """
    return beta is not None and beta == 1


def resampled(name: str, n_classes: int, method: str) -> bool:
    """Whether :func:`default_intervals` gives ``name`` a bootstrap's interval, which depends on
    the table's position (its seed), not on the table alone.

    Examples
    --------
    >>> resampled("f1", 2, "wilson_delta"), resampled("macro_f1", 2, "wilson_delta")
    (False, True)
    """
    if method != "wilson_delta":
        return True
    return name not in interval_measures(n_classes, method) and not (
        n_classes == 2 and name in BINARY_CLOSED_FORMS
    )


def default_intervals(
    counts: np.ndarray,
    names: Sequence[str],
    level: float,
    method: str,
    *,
    n_boot: int,
    seed: int | None,
    positive: int = 1,
    beta: float | None = None,
    fallback: bool = True,
    ids: np.ndarray | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The interval evaluate gives each of ``names`` that has one: the closed forms of
    ``method="wilson_delta"`` (binary f1, jaccard and mcc their own, f_beta f1's where ``beta``
    is 1, precision's where it is 0), and for the other measures (with ``fallback``) the
    *smoothed* percentile bootstrap; ``method="bootstrap"`` gives every measure the plain one. The
    leaderboard's interval columns are these too. ``ids`` number the tables' bootstrap generators
    (their positions by default).

    Examples
    --------
    >>> counts = np.array([[[5, 0], [0, 5]]])
    >>> got = default_intervals(counts, ["f1", "recall", "p_chi2"], 0.95, "wilson_delta", n_boot=200, seed=0)
    >>> sorted(got)
    ['f1', 'recall']
    """
    level = _measures.check_level(level, "level")
    k = counts.shape[1]
    capable = interval_measures(k, method)
    names = list(names)
    # a measure equal on every table to one with an interval of its own takes that interval
    # (interval_twin): the smoothed bootstrap gave one number two intervals (binary
    # macro_informedness 0.320-0.632 against informedness's 0.315-0.627, f_beta at beta = 1
    # [0.421, 0.870] against f1's [0.463, 0.858])
    twin = {m: t for m in names if (t := interval_twin(m, k, beta)) != m} if method == "wilson_delta" else {}
    own = list(dict.fromkeys(twin.get(m, m) for m in names))
    plain = [m for m in own if m in capable]
    # binary f1, jaccard and mcc: closed forms, which cost nothing, so the default set has them too
    closed = [m for m in own if m in BINARY_CLOSED_FORMS] if k == 2 and method == "wilson_delta" else []
    boot = interval_measures(k, "bootstrap")
    # mcc, macro_informedness and macro_markedness are correlation, informedness and markedness on a
    # table of at most two present classes whatever the call's class count, and take their intervals
    # there: they took the smoothed bootstrap beside a group of three classes or with
    # classes=[0, 1, 2], and a one-class table a bootstrap interval around its conventional 0
    part = {}
    if fallback and method == "wilson_delta":
        part = {m: b for m, b in _measures.BINARY_EQUIVALENT.items() if m in own}
    few = np.count_nonzero(present_classes(counts), axis=1) <= 2 if part else np.zeros(0, dtype=bool)
    skip = [*capable, *closed, *(part if few.all() else ())]
    smoothed = [m for m in own if m not in skip and m in boot] if fallback else []
    opts = {"n_boot": n_boot, "seed": seed, "positive": positive, "beta": beta, "ids": ids}
    result = intervals(counts, plain, level, method, **opts) if plain else {}
    for name in closed:
        result[name] = closed_form_interval(counts, name, level, positive)
    if smoothed:
        # the smoothed bootstrap: the plain one covered as little as 0.562 at margins >= 10
        # (docs/calibration_bootstrap.md); an explicit ci_method="bootstrap" keeps the plain one
        # each group's own classes smoothed (smoothed_bootstrap), not the call's
        result.update(intervals(counts, smoothed, level, "bootstrap", pseudo="present", **opts))
    if few.any():
        # the equivalents' intervals cut each table to its present classes (chance_interval)
        at = np.flatnonzero(few)
        base = intervals(counts[at], list(dict.fromkeys(part.values())), level)
        for name, b in part.items():
            low, high = result[name] if name in result else (np.full(len(counts), np.nan),) * 2
            low, high = low.copy(), high.copy()
            low[at], high[at] = base[b]
            result[name] = (low, high)
    result.update({m: result[t] for m, t in twin.items() if t in result})
    return {m: result[m] for m in names if m in result}


def hold_estimate(
    name: str, estimate: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` widened to hold ``estimate`` exactly and kept in the measure's range;
    NaN where the estimate is NaN (undefined), and where the interval is.

    The closed forms round: accuracy 1.0 got ``ci_high`` 0.9999999999999999 and recall 0/7
    ``ci_low`` 2.8e-17. The smoothed percentile bootstrap is biased towards the inside of
    the range next to its edge (a perfect 3-class table of 30 has mutual information
    log2 3 = 1.585 above its whole interval [1.016, 1.580]), and both bootstraps resample
    tables whose measure is defined where the table's is not (auc_single of a table with no
    positives); widening to the estimate is the least that makes these intervals hold it.
    It is not what keeps a ratio's bootstrap interval above its estimate: a resample whose
    ``odds_ratio``, ``lr_plus`` or ``lr_minus`` has a denominator of 0 counts as +inf in the
    percentiles (:func:`infinite_ratios`), where dropped as undefined it had cut the upper end
    off at the estimate, and this widening hid that.

    Examples
    --------
    >>> low, high = hold_estimate("accuracy", np.array([1.0, np.nan, 0.5]),
    ...                           np.array([0.9, 0.2, np.nan]), np.array([1 - 2**-53, 0.8, np.nan]))
    >>> low.tolist(), high.tolist()
    ([0.9, nan, nan], [1.0, nan, nan])
    """
    est = np.asarray(estimate, dtype=np.float64)
    # np.minimum and np.maximum keep a NaN of either side
    low, high = np.minimum(low, est), np.maximum(high, est)
    if name in UNIT_MEASURES or name in SIGNED_MEASURES:
        bottom = 0.0 if name in UNIT_MEASURES else -1.0
        low, high = np.clip(low, bottom, 1.0), np.clip(high, bottom, 1.0)
    return low, high


def interval_columns(
    frame: pl.DataFrame, result: dict[str, tuple[np.ndarray, np.ndarray]]
) -> list[pl.Series]:
    """The ``<measure>_ci_low`` / ``_ci_high`` columns of ``result``, row by row the intervals of
    ``frame``'s estimates, each made to hold its estimate (:func:`hold_estimate`).

    Examples
    --------
    The second row's interval ends below its estimate 1.0, so its upper end becomes 1.0:

    >>> frame = pl.DataFrame({"accuracy": [0.7, 1.0]})
    >>> result = {"accuracy": (np.array([0.6, 0.7]), np.array([0.8, 0.99]))}
    >>> [(c.name, c.to_list()) for c in interval_columns(frame, result)]
    [('accuracy_ci_low', [0.6, 0.7]), ('accuracy_ci_high', [0.8, 1.0])]
    """
    columns = []
    for name, ends in result.items():
        low, high = hold_estimate(name, frame[name].to_numpy(), *ends) if name in frame.columns else ends
        columns += [pl.Series(f"{name}_ci_low", low), pl.Series(f"{name}_ci_high", high)]
    return columns


def binary_only(measures: Sequence[str] | None) -> bool:
    """Whether the measures asked of a one-class table include binary ones (and only measures
    that have an interval with one or two classes): they are read from its one-vs-rest table
    (here and in :func:`batcheval.inference.clustered.add_clustered_intervals`).

    Examples
    --------
    >>> binary_only(["recall"]), binary_only(["accuracy", "macro_f1"]), binary_only(None)
    (True, False, False)
    """
    one, two = set(interval_measures(1, "bootstrap")), set(interval_measures(2, "bootstrap"))
    binary = [m for m in measures or () if m not in one]
    return bool(binary) and all(m in two for m in binary)


def closed_form_interval(
    counts: np.ndarray, name: str, level: float = 0.95, positive: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of a binary measure of :data:`BINARY_CLOSED_FORMS` for every table of
    ``counts[G, 2, 2]``: :func:`f1_interval`, :func:`jaccard_interval`, or for mcc (binary MCC
    is Powers' correlation, sign·sqrt(informedness·markedness)) correlation's interval (the
    bootstrap's covered 0.398 at n = 20, informedness 0.95; docs/calibration_f1.md).
    :class:`~batcheval.errors.UnknownMeasureError` for any other measure.

    Examples
    --------
    >>> counts = np.array([[[40, 10], [5, 45]]])
    >>> mcc = closed_form_interval(counts, "mcc")
    >>> bool(np.array_equal(mcc, intervals(counts, ["correlation"])["correlation"]))
    True
    """
    level = _measures.check_level(level, "level")
    if name not in BINARY_CLOSED_FORMS:
        raise UnknownMeasureError(
            f"measure {name!r} has no closed-form interval; closed_form_interval is for "
            f"{list(BINARY_CLOSED_FORMS)}"
        )
    if name == "mcc":
        return intervals(counts, ["correlation"], level, positive=positive)["correlation"]
    return (f1_interval if name == "f1" else jaccard_interval)(counts, level, positive)


def f1_interval(counts: np.ndarray, level: float = 0.95, positive: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Interval of binary F1 for every table of ``counts[G, 2, 2]``: the recall interval's
    :func:`modified_wilson` (``x_star=1``) of ``tp`` in ``m = tp + fp + fn`` trials, through
    ``F1 = 2J/(1 + J)``.

    ``J = tp/(tp + fp + fn)`` (Jaccard's index, the critical success index) is an increasing
    function of F1, and given ``m`` (the examples that are not true negatives) ``tp`` is exactly
    Binomial(m, J) when the table is a multinomial sample, so the binomial interval of ``J``
    maps to one of F1 with its coverage. The multinomial percentile bootstrap that
    :func:`add_intervals` used before covered F1 0.375-0.405 at n = 20 and informedness 0.95,
    with zero width in 59-62 % of the tables (a perfect table resamples only itself); this one
    covers 0.940-0.976 over the grid of ``benchmarks/calibration_f1.py``
    (``docs/calibration_f1.md``). NaN where ``m = 0``.

    Examples
    --------
    >>> low, high = f1_interval(np.array([[[5, 0], [0, 5]], [[40, 10], [20, 30]]]))
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.7225, 0.5479], [1.0, 0.7674])
    """
    level = _measures.check_level(level, "level")
    low, high = jaccard_interval(counts, level, positive)
    return 2.0 * low / (1.0 + low), 2.0 * high / (1.0 + high)


def jaccard_interval(
    counts: np.ndarray, level: float = 0.95, positive: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Interval of binary Jaccard's index ``J = tp/(tp + fp + fn)`` for every table of
    ``counts[G, 2, 2]``: given ``m = tp + fp + fn``, ``tp`` is Binomial(m, J), so the recall
    interval's :func:`modified_wilson` (``x_star=1``) of ``tp`` in ``m`` trials. NaN where ``m = 0``.

    Examples
    --------
    >>> low, high = jaccard_interval(np.array([[[5, 0], [0, 5]]]))
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.5655, 1.0)
    """
    level = _measures.check_level(level, "level")
    counts = np.asarray(counts)
    other = 1 - positive
    tp, fp, fn = counts[:, positive, positive], counts[:, other, positive], counts[:, positive, other]
    return modified_wilson(tp, tp + fp + fn, level, x_star=1)


def proportion(counts: np.ndarray, name: str, positive: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``(successes, trials)`` of a proportion measure (one of :data:`WILSON_MEASURES`) per table.

    Examples
    --------
    >>> proportion(np.array([[[40, 10], [20, 30]]]), "recall")
    (array([30]), array([50]))
    """
    return _proportion(counts, name, positive)


def trial_cells(k: int, name: str, positive: int = 1) -> np.ndarray:
    """``[K, K]`` booleans: the cells whose examples are trials of a proportion measure (those
    :func:`proportion` sums into its trials): every cell for multiclass accuracy, the
    denominator's cells of a binary proportion. ``K²`` booleans, where proportion's trials of
    the ``K²`` one-example tables took a ``K²×K²`` array (60 GiB at 300 classes).

    Examples
    --------
    >>> trial_cells(2, "recall").tolist(), trial_cells(3, "accuracy").all()
    ([[False, False], [True, True]], np.True_)
    """
    if k != 2:  # multiclass: only accuracy, whose trials are every example
        return np.ones((k, k), dtype=np.bool_)
    one_example = np.eye(4, dtype=np.int64).reshape(4, 2, 2)  # the four one-example tables
    return (_proportion(one_example, name, positive)[1] > 0).reshape(2, 2)
