"""Which measures exist: the names, which apply to binary and to multiclass tables, and the defaults.

Examples
--------
>>> from batcheval.measures import BINARY_MEASURES, MULTICLASS_MEASURES
>>> "informedness" in BINARY_MEASURES and "informedness" in MULTICLASS_MEASURES
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from ..errors import InvalidArgumentError, UnknownMeasureError
from ..kernels import binary as _binary
from ..kernels import multiclass as _multiclass

__all__ = [
    "BINARY_EQUIVALENT",
    "BINARY_MEASURES",
    "BINARY_STATS",
    "CHANCE_TESTS",
    "LOWER_IS_BETTER",
    "MULTICLASS_MEASURES",
    "MULTICLASS_STATS",
    "MeasureName",
    "check_beta",
    "check_names",
    "default_measures",
    "equivalent",
    "with_beta",
]

#: The χ² statistics of a binary table; each has a ``p_`` column.
BINARY_STATS: tuple[str, ...] = (
    "chi2",
    "g2",
    "chi2_pos_pred",
    "chi2_pos_real",
    "chi2_kb",
    "chi2_km",
    "chi2_kbm",
)
#: The χ² statistics of a K×K table; each has a ``p_`` column.
MULTICLASS_STATS: tuple[str, ...] = ("chi2", "g2", "chi2_kb", "chi2_km", "chi2_kbm")

#: The calibrated chance tests (docs/measures.md, "Significance against chance"): two-sided
#: tests of informedness = 0 and markedness = 0 against the permutation null given both margins.
#: ``p_informedness`` is the recommended one.
CHANCE_TESTS: tuple[str, ...] = ("p_informedness", "p_markedness")

#: Every binary measure (Powers 2011; docs/references.md), in output order. ``f_beta`` needs ``beta=``.
BINARY_MEASURES: tuple[str, ...] = (
    *_binary.NAMES,
    *CHANCE_TESTS,
    *(f"p_{s}" for s in BINARY_STATS),
    "p_fisher",
    "alpha_sbb",
)
#: Every multiclass measure (Powers 2011; docs/references.md), in output order.
MULTICLASS_MEASURES: tuple[str, ...] = (
    *_multiclass.NAMES,
    *CHANCE_TESTS,
    *(f"p_{s}" for s in MULTICLASS_STATS),
)


#: Binary measures equal to a binary measure of its own on every table (so every paired test of
#: the one is a test of the other): ``mcc`` is ``correlation``, ``weighted_recall`` is
#: ``accuracy``, and the per-class means of informedness and markedness are those measures
#: (a class's value is the same for both classes, and 0 with its margin empty, as theirs).
#: ``macro_recall = (1 + informedness)/2`` and ``macro_precision = (1 + markedness)/2`` only
#: where both classes are present: a constant run's macro_precision is the precision of its one
#: class, and taking markedness's test gave a majority baseline against a coin p = 0.53 for
#: 0.48 against 0.87 on 300 examples. They keep the normal p-value, floored at the swap test's
#: least value.
BINARY_EQUIVALENT: dict[str, str] = {
    "mcc": "correlation",
    "macro_informedness": "informedness",
    "macro_markedness": "markedness",
    "weighted_recall": "accuracy",
}


def equivalent(measure: str, k: int) -> str:
    """The measure whose tests ``measure`` takes on tables of ``k`` classes: its
    :data:`BINARY_EQUIVALENT` on binary tables, else itself. Every test of a board (its
    comparisons, best set and rank intervals) reads this name, resolved once
    (:func:`batcheval.inference.leaderboard.leaderboard`), and so does its interval
    (:func:`batcheval.inference.intervals.default_intervals`); its value stays its own.

    Examples
    --------
    >>> equivalent("mcc", 2), equivalent("mcc", 3), equivalent("markedness", 2)
    ('correlation', 'mcc', 'markedness')
    """
    return BINARY_EQUIVALENT.get(measure, measure) if k == 2 else measure


#: The measures a better classifier has less of: rates of error, the negative likelihood ratio,
#: the uncertainty left about the class, and the p-values (with ``alpha_sbb``, the chance that
#: the table arose by chance). A leaderboard ranks them lowest first, ``auc`` takes their least.
#: Like the χ² statistics and mutual_information (highest first), conditional_entropy and the
#: two-sided p-values measure association either way: a classifier that is always wrong is as
#: far from chance as one that is always right (only p_fisher is one-sided); informedness and
#: the other signed measures tell the two apart.
LOWER_IS_BETTER: frozenset[str] = frozenset(
    {"fallout", "miss_rate", "lr_minus", "conditional_entropy", "alpha_sbb"}
    | {name for name in (*BINARY_MEASURES, *MULTICLASS_MEASURES) if name.startswith("p_")}
)


class MeasureName(str):
    """A batcheval name that keeps the alias it was asked by, so that an error about the measure
    names what the caller wrote (``specificity``, not ``inverse_recall``); equal to the name.

    Examples
    --------
    >>> name = MeasureName("inverse_recall", "specificity")
    >>> name == "inverse_recall", name.asked
    (True, 'specificity')
    """

    asked: str

    def __new__(cls, name: str, asked: str) -> MeasureName:
        self = super().__new__(cls, name)
        self.asked = asked
        return self

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # str's own would drop ``asked``
        return MeasureName, (str(self), self.asked)


def default_measures(n_classes: int, beta: float | None = None) -> list[str]:
    """The measures :func:`compute` returns when none are named.

    The binary set when there are two classes, the multiclass set otherwise;
    ``f_beta`` only when ``beta`` is given.

    Examples
    --------
    >>> default_measures(2)[:4]
    ['prevalence', 'bias', 'recall', 'precision']
    >>> "f_beta" in default_measures(2), "f_beta" in default_measures(2, beta=2.0)
    (False, True)
    >>> default_measures(3)[:3]
    ['accuracy', 'informedness', 'markedness']
    """
    if n_classes == 2:
        return [m for m in BINARY_MEASURES if m != "f_beta" or beta is not None]
    return list(MULTICLASS_MEASURES)


def with_beta(names: Sequence[str] | None, beta: float | None, binary: bool) -> list[str] | None:
    """``names`` with ``f_beta`` appended when ``beta`` is given and the list lacks it, as
    :func:`default_measures` adds it to the default set: only to binary measures (``binary``:
    the tables are measured as two classes, one-vs-rest or a positive against the rest).
    ``None`` (the default set) stays ``None``.

    Examples
    --------
    >>> with_beta(["f1", "recall"], 2.0, True)
    ['f1', 'recall', 'f_beta']
    >>> with_beta(["f_beta", "f1"], 2.0, True), with_beta(["f1"], None, True), with_beta(None, 2.0, True)
    (['f_beta', 'f1'], ['f1'], None)
    >>> with_beta(["accuracy"], 2.0, False)
    ['accuracy']
    """
    if names is None:
        return None
    names = list(names)
    if beta is not None and binary and "f_beta" not in names:
        names.append("f_beta")
    return names


def check_names(names: Sequence[str], n_classes: int, beta: float | None) -> None:
    """Raise :class:`~batcheval.errors.UnknownMeasureError` unless every name applies to tables of
    ``n_classes`` classes; an error names a measure as it was asked for (:class:`MeasureName`).

    Examples
    --------
    >>> check_names(["recall", "mcc"], 2, None)
    >>> check_names([MeasureName("inverse_recall", "specificity")], 3, None)
    Traceback (most recent call last):
    ...
    batcheval.errors.UnknownMeasureError: 'specificity' is a binary measure and the table has 3 \
classes; use per_class=True for its one-vs-rest values
    """
    known = set(BINARY_MEASURES) | set(MULTICLASS_MEASURES)
    for name in names:
        asked = name.asked if isinstance(name, MeasureName) else name
        if name not in known:
            raise UnknownMeasureError(
                f"unknown measure {asked!r}; see batcheval.measures.BINARY_MEASURES "
                "and MULTICLASS_MEASURES for the names"
            )
        # one class: its binary measures are those of its one-vs-rest table (compute)
        if n_classes not in (1, 2) and name not in MULTICLASS_MEASURES:
            # only the averages that exist: p_fisher, say, has none
            averages = [f"{a}_{name}" for a in ("macro", "weighted") if f"{a}_{name}" in MULTICLASS_MEASURES]
            others = f", or its averages {', '.join(map(repr, averages))}" if averages else ""
            raise UnknownMeasureError(
                f"{asked!r} is a binary measure and the table has {n_classes} classes; "
                f"use per_class=True for its one-vs-rest values{others}"
            )
        if name == "f_beta" and beta is None:
            raise UnknownMeasureError("measure 'f_beta' needs a value for beta=")


#: Largest β of ``f_beta``: the kernel forms β² and (1 + β²)·tp, which overflow to inf/inf = NaN
#: from β ≈ 1e144 on (tables of up to 2^63 examples); at 1e100 the value is recall to rounding.
MAX_BETA = 1e100


def check_beta(beta: float | None) -> None:
    """β of ``f_beta`` must be a finite number from 0 to :data:`MAX_BETA`; β = 0 is precision,
    β → ∞ recall.

    Examples
    --------
    >>> check_beta(0.0)
    >>> check_beta(-1.0)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: beta must be a finite number >= 0, got -1.0
    >>> check_beta(1e154)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: beta must be at most 1e+100 (...), got 1e+154
    """
    if beta is None:
        return
    # no math.isfinite: it cannot take an int beyond the floats (10**400)
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0 <= beta < math.inf:
        raise InvalidArgumentError(f"beta must be a finite number >= 0, got {beta!r}")
    if beta > MAX_BETA:
        raise InvalidArgumentError(
            f"beta must be at most {MAX_BETA:g} (beyond, beta**2 overflows; f_beta is then recall), "
            f"got {beta!r}"
        )
