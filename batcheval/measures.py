"""Every measure as a pure function of the count tensor ``counts[G, K, K]``.

This module is the registry: it knows which names exist, which apply to
binary and multiclass tables, and which kernel computes them. Significance
tails come from :mod:`scipy.special` (:func:`chi2_upper_tail`); Fisher's exact test and all the
point measures come from the numba kernels in :mod:`batcheval.kernels`.

Examples
--------
>>> import numpy as np
>>> from batcheval.measures import compute
>>> counts = np.array([[[28, 12], [30, 30]]])  # real × predicted, class 1 positive
>>> out = compute(counts, ["recall", "precision", "informedness"])
>>> {k: round(float(v[0]), 4) for k, v in out.items()}
{'recall': 0.5, 'precision': 0.7143, 'informedness': 0.2}
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .errors import UnknownMeasureError
from .kernels import binary as _binary
from .kernels import count as _count
from .kernels import fisher as _fisher
from .kernels import multiclass as _multiclass

__all__ = [
    "BINARY_MEASURES",
    "MULTICLASS_MEASURES",
    "alpha_sbb",
    "binary_cells",
    "chi2_upper_tail",
    "compute",
    "compute_cells",
    "default_measures",
]

_BINARY_STATS = ("chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km", "chi2_kbm")
_MULTICLASS_STATS = ("chi2", "g2", "chi2_kb", "chi2_km", "chi2_kbm")

#: Every binary measure (spec §2 and §3), in output order. ``f_beta`` needs ``beta=``.
BINARY_MEASURES: tuple[str, ...] = (
    *_binary.NAMES,
    *(f"p_{s}" for s in _BINARY_STATS),
    "p_fisher",
    "alpha_sbb",
)
#: Every multiclass measure (spec §3 and §4), in output order.
MULTICLASS_MEASURES: tuple[str, ...] = (
    *_multiclass.NAMES,
    *(f"p_{s}" for s in _MULTICLASS_STATS),
)


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


def alpha_sbb(p: np.ndarray | float) -> np.ndarray:
    """Sellke–Bayarri–Berger calibration of a p-value (paper 000, eqs. 36–38).

    ``alpha = 1 / (1 + 1/L(p))`` with ``L(p) = -e·p·ln p`` for ``p < 1/e``; for
    ``p >= 1/e`` the bound gives no evidence either way and alpha is 1/2, which
    keeps the calibration continuous at ``p = 1/e``.

    Parameters
    ----------
    p
        p-values in [0, 1], any shape; NaN stays NaN.

    Returns
    -------
    numpy.ndarray
        The calibrated alpha, a lower bound on the posterior probability of
        the null hypothesis at even prior odds.

    Examples
    --------
    >>> alpha_sbb([0.05, 0.01, 0.5]).round(4).tolist()
    [0.2893, 0.1113, 0.5]
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        like = -math.e * p * np.log(p)
        like = np.where(p == 0.0, 0.0, like)
        alpha = like / (1.0 + like)
    return np.where(p >= 1.0 / math.e, 0.5, alpha)


def binary_cells(counts: np.ndarray, positive: int = 1) -> tuple[np.ndarray, ...]:
    """``(tp, fp, fn, tn)`` of stacked 2×2 tables, with class index ``positive``.

    Examples
    --------
    >>> import numpy as np
    >>> tp, fp, fn, tn = binary_cells(np.array([[[5, 1], [2, 7]]]))
    >>> int(tp[0]), int(fp[0]), int(fn[0]), int(tn[0])
    (7, 1, 2, 5)
    """
    if counts.ndim != 3 or counts.shape[1:] != (2, 2):
        raise ValueError(f"binary measures need counts of shape (G, 2, 2), got {counts.shape}")
    if positive not in (0, 1):
        raise ValueError(f"positive must be class index 0 or 1, got {positive!r}")
    return _count.cells_2x2(np.ascontiguousarray(counts, dtype=np.int64), positive)


def _check_names(names: Sequence[str], n_classes: int, beta: float | None) -> None:
    known = set(BINARY_MEASURES) | set(MULTICLASS_MEASURES)
    for name in names:
        if name not in known:
            raise UnknownMeasureError(
                f"unknown measure {name!r}; see batcheval.measures.BINARY_MEASURES "
                "and MULTICLASS_MEASURES for the names"
            )
        if n_classes != 2 and name not in MULTICLASS_MEASURES:
            raise UnknownMeasureError(
                f"{name!r} is a binary measure and the table has {n_classes} classes; "
                "use per_class=True for one-vs-rest values, or a macro_/weighted_ average"
            )
        if name == "f_beta" and beta is None:
            raise UnknownMeasureError("measure 'f_beta' needs a value for beta=")


def _run_kernel(kernel_names, wanted, run) -> dict[str, np.ndarray]:
    slots = np.full(len(kernel_names), -1, dtype=np.int64)
    for row, name in enumerate(wanted):
        slots[kernel_names.index(name)] = row
    out = np.empty((len(wanted), run.n_groups), dtype=np.float64)
    if len(wanted) and run.n_groups:
        run(slots, out)
    return dict(zip(wanted, out, strict=True))


class _Call:
    """A kernel call bound to its inputs, waiting for ``slots`` and ``out``."""

    def __init__(self, fn, n_groups: int, *args) -> None:
        self.fn, self.n_groups, self.args = fn, n_groups, args

    def __call__(self, slots: np.ndarray, out: np.ndarray) -> None:
        self.fn(*self.args, slots, out)


def compute(
    counts: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    positive: int = 1,
    beta: float | None = None,
    cells: tuple[np.ndarray, ...] | None = None,
) -> dict[str, np.ndarray]:
    """Compute measures for every table of ``counts[G, K, K]`` at once.

    Parameters
    ----------
    counts
        int64 counts, ``counts[g, i, j]`` = examples of real class i predicted
        as j in group g.
    names
        Measures to compute; :func:`default_measures` when None.
    positive
        Index of the positive class for binary measures (K = 2 only).
    beta
        The β of ``f_beta``.
    cells
        ``(tp, fp, fn, tn)`` of ``counts`` at ``positive``, when the caller
        already has them (:func:`binary_cells`); saves a pass.

    Returns
    -------
    dict of str to float64 arrays of length G, in the order of ``names``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[[12, 20], [12, 56]]])
    >>> r = compute(counts, ["informedness", "mcc", "p_chi2_kb"])
    >>> [round(float(r[k][0]), 4) for k in r]
    [0.1985, 0.2168, 0.1903]
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    if counts.ndim != 3 or counts.shape[1] != counts.shape[2]:
        raise ValueError(f"counts must have shape (G, K, K), got {counts.shape}")
    if counts.shape[1] == 2 and cells is None:
        cells = binary_cells(counts, positive)
    return _compute(counts, cells, names, beta)


def compute_cells(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    names: Sequence[str] | None = None,
    *,
    beta: float | None = None,
) -> dict[str, np.ndarray]:
    """Binary measures straight from the four cell columns of G tables.

    What :func:`compute` does for ``counts[G, 2, 2]``, for callers that hold
    the cells as columns (sweeps): no table tensor is built unless a
    multiclass-only measure is asked for.

    Examples
    --------
    >>> r = compute_cells([30], [12], [30], [28], ["informedness", "precision"])
    >>> [round(float(r[k][0]), 4) for k in r]
    [0.2, 0.7143]
    """
    cells = tuple(np.ascontiguousarray(c, dtype=np.int64) for c in (tp, fp, fn, tn))
    if len({c.shape for c in cells}) != 1 or cells[0].ndim != 1:
        raise ValueError(f"cell columns must be 1-D of one length, got shapes {[c.shape for c in cells]}")
    return _compute(None, cells, names, beta)


def _compute(
    counts: np.ndarray | None,
    cells: tuple[np.ndarray, ...] | None,
    names: Sequence[str] | None,
    beta: float | None,
) -> dict[str, np.ndarray]:
    """``counts`` may be None for a binary table given as ``cells`` (positive = 1)."""
    if counts is None:
        assert cells is not None
        n_groups, n_classes = len(cells[0]), 2
    else:
        n_groups, n_classes = counts.shape[0], counts.shape[1]
    names = default_measures(n_classes, beta) if names is None else list(names)
    _check_names(names, n_classes, beta)

    binary_stats = _BINARY_STATS if n_classes == 2 else ()
    in_binary = set(_binary.NAMES) | {f"p_{s}" for s in binary_stats} | {"p_fisher", "alpha_sbb"}
    want_binary: list[str] = []
    want_multi: list[str] = []
    for name in names:
        base = {"alpha_sbb": "chi2_kb"}.get(name, name.removeprefix("p_") if name.startswith("p_") else name)
        if n_classes == 2 and name in in_binary:
            if base in _binary.NAMES and base not in want_binary:
                want_binary.append(base)
        elif base in _multiclass.NAMES and base not in want_multi:
            want_multi.append(base)

    results: dict[str, np.ndarray] = {}
    if want_binary:
        call = _Call(_binary.binary_measures, n_groups, *cells, float(beta or 1.0))
        results.update({("b", k): v for k, v in _run_kernel(_binary.NAMES, want_binary, call).items()})
    if want_multi:
        if counts is None:
            tp, fp, fn, tn = cells
            counts = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)
        call = _Call(_multiclass.multiclass_measures, n_groups, counts)
        results.update({("m", k): v for k, v in _run_kernel(_multiclass.NAMES, want_multi, call).items()})

    dof = (n_classes - 1) ** 2
    out: dict[str, np.ndarray] = {}
    for name in names:
        family = "b" if (n_classes == 2 and name in in_binary) else "m"
        if name == "p_fisher":
            p = np.empty(n_groups, dtype=np.float64)
            if n_groups:
                _fisher.fisher_greater(*cells, p)
            out[name] = p
        elif name == "alpha_sbb":
            out[name] = alpha_sbb(chi2_upper_tail(results[(family, "chi2_kb")], dof))
        elif name.startswith("p_"):
            out[name] = chi2_upper_tail(results[(family, name[2:])], dof)
        else:
            out[name] = results[(family, name)]
    return out


def chi2_upper_tail(statistic: np.ndarray, dof: int) -> np.ndarray:
    """P(X >= statistic) for X ~ χ²(dof), via :mod:`scipy.special`.

    For one degree of freedom this is ``erfc(sqrt(x/2))`` exactly, which
    scipy evaluates an order of magnitude faster than the incomplete gamma
    function at a = 1/2 (the two agree to a few ulp).

    Examples
    --------
    >>> chi2_upper_tail(np.array([3.841458820694124, 0.0]), 1).round(6).tolist()
    [0.05, 1.0]
    >>> round(float(chi2_upper_tail(np.array([9.487729036781154]), 4)[0]), 6)
    0.05
    """
    from scipy import special  # heavy; imported only when p-values are asked for

    statistic = np.asarray(statistic, dtype=np.float64)
    if dof == 1:
        return _threaded(lambda x, out: special.erfc(np.sqrt(x / 2.0), out=out), statistic)
    return _threaded(lambda x, out: special.chdtrc(float(dof), x, out=out), statistic)


def _threaded(ufunc, x: np.ndarray, min_size: int = 1 << 15) -> np.ndarray:
    """Apply a GIL-releasing scipy ufunc over halves of ``x`` in parallel threads.

    The incomplete gamma function costs ~1 µs a value for large statistics, so
    for many groups the tails are worth splitting across the kernels' threads.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .kernels.jit import n_threads

    out = np.empty_like(x)
    threads = n_threads()
    if threads == 1 or x.size < min_size:
        ufunc(x, out)
        return out
    bounds = np.linspace(0, x.size, threads + 1).astype(int)
    with ThreadPoolExecutor(threads) as pool:
        halves = itertools.pairwise(bounds)
        list(pool.map(lambda ab: ufunc(x[ab[0] : ab[1]], out[ab[0] : ab[1]]), halves))
    return out
