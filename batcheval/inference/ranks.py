"""Many methods over many datasets: average ranks, Friedman, Nemenyi, Holm and Wilcoxon (Demšar 2006).

Demšar (2006, JMLR 7:1) is the reference for every statistic here. Each dataset ranks the k
methods (1 = best; tied scores share the mean of their ranks), and each method's average rank
``R_j`` over the N datasets is what the tests compare.

- **Friedman χ²**: ``12N/(k(k+1)) [Σ R_j² − k(k+1)²/4]``, divided by the tie correction
  ``1 − Σ(t³ − t)/(N k (k² − 1))`` as ``scipy.stats.friedmanchisquare`` does (the two agree without
  ties; with ties Demšar's uncorrected form is conservative). χ² with k − 1 df.
- **Iman–Davenport F** ``= (N − 1) χ² / (N(k − 1) − χ²)`` with (k − 1, (k − 1)(N − 1)) df, less
  conservative than the χ² approximation (Iman & Davenport 1980), but above its level at small N:
  under the null with N = 5 datasets it rejects 0.0239 of the time at α = 0.01 for k = 3 (exact),
  and up to 0.0630 ± 0.0038 at α = 0.05 with tied scores (k = 5); the χ² is conservative there;
  with heavy ties k = 3 still exceeded it at N = 20 (0.0585 ± 0.0037 at α = 0.05).
- **Permutation p-values at small N.** So when ``(k − 1)(N − 1) ≤ 40`` (:data:`PERMUTATION_MAX_DF`;
  N ≤ 21 datasets for k = 3, N ≤ 11 for k = 5, N ≤ 5 for k = 10) both ``friedman_p`` and
  ``iman_davenport_p`` are the p-value of the permutation test (:func:`permutation_p`): under the
  null the ranks within each dataset are exchangeable, so every ordering of each dataset's
  (mid-)ranks is equally likely, ties kept. The two statistics are increasing functions of each
  other given N, k and the ties, so they share one p-value. It is exact when the orderings of
  N − 1 datasets number at most 20,000 (:data:`PERMUTATION_EXACT_MAX`; counted one by one) or
  the rank sums fit a grid of 200,000 cells (:data:`PERMUTATION_GRID_MAX`: 3 methods, or 4 up
  to N = 9; their distribution convolved dataset by dataset), else Monte Carlo: 20,000 orderings
  (:data:`PERMUTATION_DRAWS`) from a stream seeded with 2006 (:data:`PERMUTATION_SEED`) hashed
  with the tie pattern (:func:`pattern_seed`), p = (1 + #{T* ≥ T}) / (1 + 20,000), which is
  valid at any number of draws. ``RankResult.p_method`` says which: ``"exact"``, ``"monte_carlo"`` or
  ``"asymptotic"`` (χ² and F tails, above the bound), or ``"undefined"`` when every method ties on
  every dataset (χ², F and both p-values NaN). docs/comparing.md, "Calibration of the
  5×2cv and rank tests", has the size of both and of every other test here.
- **Nemenyi**: two methods differ when their average ranks differ by at least the critical
  difference ``CD = q_α sqrt(k(k+1)/(6N))``, ``q_α`` the studentized range quantile (∞ df) over
  √2; ``p_nemenyi`` is the studentized-range tail of ``|R_i − R_j| / sqrt(k(k+1)/(6N)) · √2``, as
  scikit-posthocs' ``posthoc_nemenyi_friedman`` computes it.
- **Holm**: ``z = (R_i − R_j) / sqrt(k(k+1)/(6N))`` with a two-sided normal p-value, Holm-adjusted
  over the comparisons made (against ``control`` when given, else all pairs). More powerful than
  Nemenyi against a control.
- **Wilcoxon signed-rank** for each pair over the N datasets, Holm-adjusted over all pairs (a pair
  of identical methods, whose ``p_wilcoxon`` is NaN above N = 13 as in scipy, counts in Holm's
  family as p = 1, as it is at N ≤ 13). Zeros
  are dropped (Wilcoxon's convention; equal scores are a zero difference, infinite ones too), ties
  get mid-ranks. The p-value is exact (the null
  distribution of the rank sum, by enumeration) for N ≤ 50 without zeros or ties; for N ≤ 13
  with ties or zeros it is the exact sign-flip distribution given the mid-ranks (scipy's
  permutation test over all 2^N flips), since the normal approximation over-rejects there for some
  patterns of ties (0.0625 at α = 0.05); else the normal approximation with the tie-corrected
  variance and no continuity correction. These are ``scipy.stats.wilcoxon``'s defaults.

How to read the critical-difference diagram (``be.plot(result, chart="cd")``): methods sit on the
average-rank axis (best on the left); a thick bar joins methods whose ranks differ by less than
the CD, i.e. that the Nemenyi test cannot tell apart at level α; the CD is drawn as a ruler above.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError, NullValuesError, warn
from ..io.arguments import as_count, as_flag, as_real, is_real
from ..io.frames import check_free_names, check_roles, select_columns
from ..kernels import ranks as _kernels
from ..measures import names as _names
from .adjust import adjust
from .cv import matches, numeric_values

__all__ = [
    "PERMUTATION_DRAWS",
    "PERMUTATION_EXACT_MAX",
    "PERMUTATION_GRID_MAX",
    "PERMUTATION_MAX_DF",
    "PERMUTATION_SEED",
    "SIGN_FLIP_MAX_N",
    "RankResult",
    "friedman_tests",
    "friedman_with_method",
    "is_rank_result",
    "nemenyi_cd",
    "pattern_seed",
    "permutation_p",
    "rank_methods",
    "studentized_range_sf",
    "wilcoxon_pairs",
]

_SHOW = 5

#: The largest N for which tied or zero differences get the exact sign-flip distribution (scipy's).
SIGN_FLIP_MAX_N = 13
#: Friedman's and Iman–Davenport's p-values come from the permutation distribution of the ranks
#: within datasets, not the χ² and F approximations, when the F's denominator degrees of freedom
#: ``(k − 1)(N − 1)`` are at most this (k methods, N datasets): there the F exceeds its level.
PERMUTATION_MAX_DF = 40
#: Arrangements drawn for a Monte-Carlo permutation p-value, and the seed of their stream.
PERMUTATION_DRAWS = 20_000
PERMUTATION_SEED = 2006
#: Enumerate the arrangements exactly when there are at most this many (N − 1 datasets).
PERMUTATION_EXACT_MAX = 20_000
#: Else the exact distribution of the rank sums when its grid, ``(2(k − 1)N + 1)^(k − 1)`` cells,
#: is at most this (3 methods at any N the permutation p-value covers; 4 up to N = 9).
PERMUTATION_GRID_MAX = 200_000


@dataclass
class RankResult:
    """What :func:`rank_methods` returns.

    Attributes
    ----------
    ranks
        One row per method, best first (ties in sorted method order): the method (a column named as
        ``method``), ``mean_rank`` (its average rank R_j over the datasets, 1 = best) and
        ``mean_score`` (its average score).
    pairwise
        One row per pair of methods (``method_a`` ranked above ``method_b``; both columns named
        after ``method``, e.g. ``model_a`` and ``model_b``): ``rank_diff``
        (R_b − R_a), ``z``, ``p_nemenyi``, ``p_holm``, ``nemenyi_different`` (rank difference at
        least the CD), Wilcoxon's ``w`` (the smaller rank sum), ``p_wilcoxon`` and
        ``p_wilcoxon_holm`` (Holm over all k(k − 1)/2 pairs: a pair whose differences are all zero,
        ``p_wilcoxon`` NaN above N = 13, counts as p = 1). Empty with ``pairwise=False``.
    control
        With ``control=``: one row per other method, best first, ``rank_diff`` (R_method −
        R_control), ``z``, ``p_value`` (two-sided normal), ``p_holm`` (Holm over these k − 1
        tests); else None.
    friedman_chi2, friedman_p, iman_davenport_f, iman_davenport_p, cd, alpha
        The omnibus tests: Friedman's χ² (tie-corrected) and Iman–Davenport's F with their
        p-values, the null hypothesis being that every method ranks alike; and Nemenyi's critical
        difference (in average ranks) at level ``alpha``, the ``alpha=`` of :func:`rank_methods`.
        With ``(k − 1)(N − 1) ≤ 40`` both p-values are the permutation test's (one number; see the
        module notes), since the F approximation rejects more often than its level there (0.0239
        at α = 0.01 for 3 methods on 5 datasets).
    n_methods, n_datasets
        k and N: the methods and datasets ranked, after ``drop_incomplete`` dropped any.
    method
        The name of the method column of :func:`rank_methods` (``method=``), which names the
        methods' column in ``ranks`` and ``control`` and prefixes ``pairwise``'s.
    dropped
        The methods that ``drop_incomplete=True`` left out for missing on some datasets;
        empty when none were.
    p_method
        How ``friedman_p`` and ``iman_davenport_p`` were found: ``"exact"`` (every ordering of the
        ranks within datasets), ``"monte_carlo"`` (20,000 seeded orderings) or ``"asymptotic"``
        (the χ² and F tails, when ``(k − 1)(N − 1) > 40``); ``"undefined"`` when there are none
        (every method ties on every dataset: χ², F and both p-values are NaN).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"model": ["x", "y"] * 3, "dataset": [1, 1, 2, 2, 3, 3],
    ...                    "score": [0.7, 0.6, 0.8, 0.75, 0.55, 0.5]})
    >>> res = be.rank_methods(df, method="model", control="y")
    >>> res.method, res.n_methods, res.n_datasets, res.dropped
    ('model', 2, 3, [])
    >>> res.control.select("model", "rank_diff").rows()
    [('x', -1.0)]
    >>> res.pairwise.columns[:3]
    ['model_a', 'model_b', 'rank_diff']
    """

    ranks: pl.DataFrame
    pairwise: pl.DataFrame
    control: pl.DataFrame | None
    friedman_chi2: float
    friedman_p: float
    iman_davenport_f: float
    iman_davenport_p: float
    cd: float
    alpha: float
    n_methods: int
    n_datasets: int
    method: str = "method"
    dropped: list[Any] = field(default_factory=list)
    p_method: str = "asymptotic"

    def summary(self) -> str:
        """One paragraph: the omnibus tests and the CD.

        Returns
        -------
        str
            One line: k methods on N datasets, Friedman's χ² and Iman–Davenport's F with their
            p-values (and how those were found, when by permutation), and Nemenyi's CD at
            ``alpha``.

        Examples
        --------
        >>> import polars as pl
        >>> import batcheval as be
        >>> df = pl.DataFrame({"method": list("abc") * 3, "dataset": [0, 0, 0, 1, 1, 1, 2, 2, 2],
        ...                    "score": [3, 2, 1, 3, 1, 2, 2, 3, 1]})
        >>> print(be.rank_methods(df).summary())  # doctest: +NORMALIZE_WHITESPACE
        3 methods on 3 datasets: Friedman chi2 = 2.667 (p = 0.361), Iman-Davenport F = 1.6
        (p = 0.361); exact permutation p-values; Nemenyi CD at alpha = 0.05: 1.914
        """
        how = {"exact": "; exact permutation p-values", "monte_carlo": "; Monte Carlo permutation p-values",
               "undefined": "; no test: every method ties on every dataset"}  # fmt: skip
        return (
            f"{self.n_methods} methods on {self.n_datasets} datasets: Friedman chi2 = "
            f"{self.friedman_chi2:.4g} (p = {self.friedman_p:.3g}), Iman-Davenport F = "
            f"{self.iman_davenport_f:.4g} (p = {self.iman_davenport_p:.3g}){how.get(self.p_method, '')}; "
            f"Nemenyi CD at alpha = {self.alpha:g}: {self.cd:.4g}"
        )


def is_rank_result(obj: Any) -> bool:
    """True for a :func:`rank_methods` result (what :func:`batcheval.plot` dispatches on)."""
    return isinstance(obj, RankResult)


def studentized_range_sf(q: np.ndarray, k: int, nodes: int = 1201) -> np.ndarray:
    """Upper tail of the studentized range of k standard normals (∞ df), for many ``q`` at once.

    ``P(range ≤ q) = k ∫ φ(z) [Φ(z) − Φ(z − q)]^(k−1) dz`` by the trapezoid rule on a fine grid of
    z (exponentially accurate for this smooth, fast-decaying integrand), evaluated on a grid of
    q and interpolated with cubic Hermite splines when there are more distinct ``q`` than grid
    points (step 0.005): scipy's ``studentized_range.sf`` takes about
    a millisecond a value at k = 1000, too slow for the half a million pairs of 1000 methods.

    Examples
    --------
    >>> from scipy import stats
    >>> round(float(studentized_range_sf(np.array([3.0]), 5)[0]), 10)
    0.210876505
    >>> round(float(stats.studentized_range.sf(3.0, 5, np.inf)), 10)
    0.210876505
    """
    from scipy import special

    q = np.asarray(q, dtype=np.float64)
    if k < 2 or q.size == 0:
        return np.full(q.shape, np.nan)
    z = np.linspace(-9.0, 9.0, nodes)
    h = z[1] - z[0]
    w = np.full(nodes, h * k / np.sqrt(2 * np.pi))
    w[[0, -1]] /= 2
    weight = np.exp(-0.5 * z * z) * w
    upper = special.ndtr(z)

    def cdf_at(points: np.ndarray) -> np.ndarray:
        out = np.empty(len(points))
        for lo in range(0, len(points), 128):
            g = points[lo : lo + 128, None]
            inner = np.clip(upper[None, :] - special.ndtr(z[None, :] - g), 0.0, 1.0)
            with np.errstate(divide="ignore"):
                out[lo : lo + 128] = np.exp((k - 1) * np.log(inner)) @ weight
        return out

    finite = np.clip(np.nan_to_num(q, nan=0.0), 0.0, 40.0)
    distinct, back = np.unique(finite, return_inverse=True)
    top = float(distinct[-1])
    grid = np.linspace(0.0, top + 0.01, int((top + 0.01) / 0.005) + 2)
    if len(distinct) <= len(grid):  # fewer values than grid points: integrate each one
        cdf = cdf_at(distinct)[back]
    else:
        from scipy.interpolate import PchipInterpolator

        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            cdf = PchipInterpolator(grid, cdf_at(grid))(finite.reshape(-1))
    sf = np.clip(1.0 - cdf.reshape(q.shape), 0.0, 1.0)
    return np.where(np.isnan(q), np.nan, sf)


def _flip_cdf(weights: np.ndarray) -> np.ndarray:
    """``cdf[p, t] = P(T ≤ t)`` of the sum ``T`` of a random half of each row's integer
    ``weights[p]`` (every subset equally likely: the sign flips of a signed-rank sum), for
    ``t = 0..max row sum``: subset-sum counts, built one weight at a time, over their total.
    Counts below 2^53 are exact in floating point."""
    top = int(weights.sum(axis=1).max())
    dist = np.zeros((len(weights), top + 1))
    dist[:, 0] = 1.0
    cols = np.arange(top + 1)
    for j in range(weights.shape[1]):
        src = cols[None, :] - weights[:, j : j + 1]
        dist = dist + np.where(src >= 0, np.take_along_axis(dist, np.maximum(src, 0), axis=1), 0.0)
    cdf = np.cumsum(dist, axis=1)
    return cdf / cdf[:, -1:]


def _arrangements(pattern: tuple[int, ...]) -> np.ndarray:
    """Every distinct ordering of the sorted ``pattern`` (a block's doubled mid-ranks), in
    lexicographic order by the classic next-permutation step: ``k!/Π t!`` rows for tie groups of
    sizes t. Cached, since tables share few tie patterns."""
    got = _ARRANGEMENTS.get(pattern)
    if got is not None:
        return got
    a = list(pattern)
    rows = [tuple(a)]
    k = len(a)
    while True:
        i = k - 2
        while i >= 0 and a[i] >= a[i + 1]:
            i -= 1
        if i < 0:
            break
        j = k - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
        a[i + 1 :] = reversed(a[i + 1 :])
        rows.append(tuple(a))
    got = np.array(rows, dtype=np.int64)
    if len(_ARRANGEMENTS) < 4096:
        _ARRANGEMENTS[pattern] = got
    return got


_ARRANGEMENTS: dict[tuple[int, ...], np.ndarray] = {}


def _count_arrangements(pattern: np.ndarray, cap: int) -> int:
    """``k!/Π t!`` distinct orderings of a sorted block, or ``cap + 1`` if more than ``cap``."""
    import math

    _, sizes = np.unique(pattern, return_counts=True)
    count = math.factorial(len(pattern))
    for t in sizes:
        count //= math.factorial(int(t))
    return min(count, cap + 1)


def permutation_p(doubled_ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Permutation p-values of Friedman's statistic for stacked tables ``doubled_ranks[t, method,
    dataset]`` (twice the within-dataset mid-ranks, integers), and whether each is exact.

    Under the global null the k ranks within each dataset are exchangeable, so every arrangement
    of each dataset's (mid-)rank vector, independently of the others, is equally likely given the
    ties. Friedman's χ² (tie-corrected) and the Iman–Davenport F are increasing functions of
    ``Σ_j R_j²`` (R_j the rank sums) given N, k and the ties, which arrangements keep, so one
    distribution serves both: the p-value is the chance of ``Σ_j R_j² ≥`` the observed value.
    Fixing one dataset's arrangement leaves that distribution unchanged (relabelling the methods
    changes no statistic), so the other N − 1 are enumerated exactly when they have at most
    :data:`PERMUTATION_EXACT_MAX` arrangements together (p = the share reaching the observed
    value); else, for few methods (:data:`PERMUTATION_GRID_MAX`), the exact distribution of the
    rank sums is built dataset by dataset on a grid; else :data:`PERMUTATION_DRAWS` arrangements
    are drawn (p = (1 + #reaching)/(1 + B), a valid p-value for any B; its Monte-Carlo standard
    error is at most ``sqrt(p(1 − p)/B)``, 0.0015 at p = 0.05) from a xoshiro256** stream whose
    seed hashes :data:`PERMUTATION_SEED` with the table's multiset of datasets' tie patterns. So
    a table's p-value depends on its own ranks only, tables with the same patterns (all untied
    tables of a size) share one distribution, computed once, and tables with different patterns
    get independent draws.

    Examples
    --------
    >>> r = np.array([[[2, 2, 2], [4, 4, 4], [6, 6, 6]]])  # 3 methods, 3 datasets, same order
    >>> p, exact = permutation_p(r)
    >>> float(p[0]), bool(exact[0])  # (3!)² arrangements of two datasets: 1 in 36 is as extreme
    (0.027777777777777776, True)
    """
    r2 = np.asarray(doubled_ranks, dtype=np.int64)
    t_count, k, n = r2.shape
    stat = np.sum(np.sum(r2, axis=2) ** 2, axis=1)
    blocks = np.sort(np.swapaxes(r2, 1, 2), axis=2)  # [t, dataset, method]: each dataset's pattern
    distinct, block_id = np.unique(blocks.reshape(t_count * n, k), axis=0, return_inverse=True)
    block_id = block_id.reshape(t_count, n)
    # datasets in the order of their patterns (np.unique sorts them lexicographically), so a table's
    # canonical form, and the stream of draws it meets, is a function of its own ranks only
    order = np.argsort(block_id, axis=1, kind="stable")
    block_id = np.take_along_axis(block_id, order, axis=1)
    _, first, which = np.unique(block_id, axis=0, return_index=True, return_inverse=True)
    which = which.reshape(-1)
    counts = np.array([_count_arrangements(d, PERMUTATION_EXACT_MAX) for d in distinct])
    p = np.empty(t_count)
    exact = np.zeros(t_count, dtype=bool)
    mc_patterns: list[np.ndarray] = []
    mc_tables: list[np.ndarray] = []
    for s, row in enumerate(first):
        ids = block_id[row]
        tables = np.flatnonzero(which == s)
        # fix the dataset with the most arrangements; enumerate or draw the others
        lead = int(np.argmax(counts[ids]))
        ids = np.r_[ids[lead], np.delete(ids, lead)]
        total = 1
        for i in ids[1:]:
            total = min(total * int(counts[i]), PERMUTATION_EXACT_MAX + 1)
        cells = (2 * (k - 1) * n + 1) ** (k - 1)
        if total > PERMUTATION_EXACT_MAX and cells <= PERMUTATION_GRID_MAX:
            p[tables] = _rank_sum_tail(distinct[ids], stat[tables])
            exact[tables] = True
        elif total <= PERMUTATION_EXACT_MAX:
            arr = [_arrangements(tuple(int(v) for v in distinct[i])) for i in ids[1:]]
            offsets = np.r_[0, np.cumsum([len(a) for a in arr])].astype(np.int64)
            stack = np.vstack(arr) if arr else np.zeros((0, k), dtype=np.int64)
            null = np.empty(total, dtype=np.int64)
            _kernels.enumerate_rank_sums(distinct[ids[0]].astype(np.int64), stack, offsets, null)
            null.sort()
            p[tables] = (total - np.searchsorted(null, stat[tables])) / total
            exact[tables] = True
        else:
            mc_patterns.append(distinct[ids])
            mc_tables.append(tables)
    if mc_patterns:
        tables = np.concatenate(mc_tables)
        start = np.r_[0, np.cumsum([len(t) for t in mc_tables])].astype(np.int64)
        at_least = np.empty(len(tables), dtype=np.int64)
        patterns = np.ascontiguousarray(np.stack(mc_patterns), dtype=np.int64)
        seeds = np.array([pattern_seed(pat) for pat in patterns], dtype=np.uint64)
        _kernels.permutation_rank_sums(patterns, seeds, PERMUTATION_DRAWS, start,
                                       np.ascontiguousarray(stat[tables]), at_least)  # fmt: skip
        p[tables] = (1.0 + at_least) / (1.0 + PERMUTATION_DRAWS)
    return p, exact


def _rank_sum_tail(pattern: np.ndarray, stat: np.ndarray) -> np.ndarray:
    """``P(Σ_j R_j² ≥ stat)`` exactly, from the distribution of the rank sums ``(R_1..R_{k−1})``
    (``R_k`` is the total less them) over the orderings of datasets 1..N−1 of ``pattern``
    (``[dataset, method]`` doubled mid-ranks, dataset 0 kept in place): one dense array of
    ``(2(k − 1)N + 1)^(k − 1)`` probabilities, convolved with each dataset's distinct orderings in
    turn. For few methods (3, or 4 up to N = 9) this is exact where enumerating the orderings one by
    one is not (6^20 of them at k = 3, N = 21)."""
    n, k = pattern.shape
    size = 2 * (k - 1) * n + 1
    dist = np.zeros((size,) * (k - 1))
    dist[tuple(int(v) - 2 for v in pattern[0, : k - 1])] = 1.0  # doubled mid-ranks are ≥ 2
    for i in range(1, n):
        rows = _arrangements(tuple(int(v) for v in pattern[i]))
        new = np.zeros_like(dist)
        for a in rows[:, : k - 1] - 2:
            new[tuple(slice(int(o), None) for o in a)] += dist[tuple(slice(0, size - int(o)) for o in a)]
        dist = new / len(rows)
    grid = np.indices(dist.shape).reshape(k - 1, -1) + 2 * n
    ss = np.sum(grid.astype(np.int64) ** 2, axis=0) + (int(pattern.sum()) - grid.sum(axis=0)) ** 2
    prob = dist.reshape(-1)
    keep = prob > 0
    ss, prob = ss[keep], prob[keep]
    order = np.argsort(ss)
    ss, upper = ss[order], np.cumsum(prob[order][::-1])[::-1]  # upper[i] = P(S ≥ ss[i])
    at = np.searchsorted(ss, stat)
    return np.where(at < len(ss), upper[np.minimum(at, len(ss) - 1)], 0.0) / upper[0]


def pattern_seed(pattern: np.ndarray) -> int:
    """The seed of a tie pattern's stream of Monte-Carlo draws in :func:`permutation_p`:
    :data:`PERMUTATION_SEED` and the pattern ``[dataset, method]`` (each dataset's sorted doubled
    mid-ranks, datasets in canonical order, the one kept in place first), hashed with BLAKE2b.
    Patterns sharing one stream would share its Monte-Carlo error, which then would not average
    out over the tables of a study or a simulation.

    Examples
    --------
    >>> pattern = np.array([[2, 4, 6]] * 5)  # 3 methods, 5 datasets, no ties
    >>> pattern_seed(pattern) == pattern_seed(pattern.copy()) != pattern_seed(pattern[:4])
    True
    """
    import hashlib

    key = PERMUTATION_SEED.to_bytes(8, "little")
    digest = hashlib.blake2b(pattern.astype("<i8").tobytes(), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "little")


def _two_sided_p(cdf: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``2 min(P(T ≤ t), P(T ≥ t))`` capped at 1, from rows of :func:`_flip_cdf` (last axis)."""
    lower = np.take_along_axis(cdf, t[..., None], axis=-1)[..., 0]
    below = np.take_along_axis(cdf, np.maximum(t - 1, 0)[..., None], axis=-1)[..., 0]
    upper = 1.0 - np.where(t > 0, below, 0.0)
    return np.minimum(2.0 * np.minimum(lower, upper), 1.0)


def rank_methods(
    scores: Any,
    method: str = "method",
    dataset: str = "dataset",
    measure: str = "score",
    *,
    higher_is_better: bool | None = None,
    control: Any = None,
    alpha: float = 0.05,
    pairwise: bool = True,
    drop_incomplete: bool = False,
) -> RankResult:
    """Rank k methods over N datasets and test their differences (Demšar 2006).

    See :mod:`batcheval.inference.ranks` for the statistics and their conventions.

    Parameters
    ----------
    scores
        One score per (method, dataset), e.g. an :func:`batcheval.evaluate` frame grouped by
        method and dataset.
    method, dataset, measure
        The columns naming the method, the dataset, and the score.
    higher_is_better
        Whether a higher score ranks first (False for losses and errors). By default the
        measure's own direction when ``measure`` names one (``fallout``, ``miss_rate``,
        ``lr_minus``, ``conditional_entropy``, the p-values and ``alpha_sbb``, and their aliases,
        in any case, and their means over pooled groups as a pooled :func:`batcheval.evaluate`
        names them, ``fallout_mean``, rank lowest first), else True.
    control
        A method to compare every other one with (Holm over k − 1 tests).
    alpha
        The level of Nemenyi's critical difference.
    pairwise
        Compute the pairwise table (k(k − 1)/2 rows; Nemenyi, Holm, Wilcoxon).
    drop_incomplete
        Drop methods missing on some datasets (with a warning) instead of raising.

    Returns
    -------
    RankResult

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({
    ...     "method": ["a", "b", "c"] * 4,
    ...     "dataset": [d for d in "wxyz" for _ in range(3)],
    ...     "score": [0.9, 0.8, 0.7, 0.85, 0.86, 0.6, 0.7, 0.65, 0.5, 0.92, 0.9, 0.91],
    ... })
    >>> res = be.rank_methods(df)
    >>> res.ranks.rows()
    [('a', 1.25, 0.8425), ('b', 2.0, 0.8025), ('c', 2.75, 0.6775)]
    >>> round(res.friedman_chi2, 4), round(res.friedman_p, 4), round(res.cd, 4), res.p_method
    (4.5, 0.125, 1.6572, 'exact')
    """
    from scipy import special

    checked = as_real(alpha, "alpha=")  # a Decimal, kept, raised TypeError in 1 - alpha
    if not 0.0 < checked < 1.0:
        raise InvalidArgumentError(f"alpha= must lie in (0, 1), got {alpha!r}")
    alpha = checked
    # "False" (truthy) ranked a loss highest first without a word
    higher_is_better = as_flag(_names.higher_is_better(measure, higher_is_better), "higher_is_better=")
    pairwise = as_flag(pairwise, "pairwise=")
    drop_incomplete = as_flag(drop_incomplete, "drop_incomplete=")
    roles = check_roles([], method, dataset, measure, roles=("method", "dataset", "measure"))
    # the method column is a column of the rank and control frames
    taken = {"mean_rank", "mean_score", "rank_diff", "z", "p_value", "p_holm", "p_nemenyi",
             "nemenyi_different", "w", "p_wilcoxon", "p_wilcoxon_holm"}  # fmt: skip
    check_free_names([method], taken, "rank_methods' result", "method")
    frame = select_columns(scores, [method, dataset, measure], roles)
    for col in (method, dataset):
        nulls = frame.get_column(col).null_count()
        if nulls:
            raise NullValuesError(
                f"{roles[col]} column {col!r} has {nulls} null value{'s' if nulls > 1 else ''} "
                f"out of {frame.height}"
            )
    frame = frame.with_columns(numeric_values(frame, measure))  # read as numbers once
    value = frame.get_column(measure)
    bad = (value.is_null() | value.is_nan()).fill_null(True)
    if bad.any():
        where = frame.filter(bad).select(method, dataset).rows()
        raise InvalidArgumentError(
            f"measure column {measure!r} has {int(bad.sum())} NaN or null scores, at "
            f"({method}, {dataset}) = {_show(where)}"
        )
    dup = frame.select(method, dataset).is_duplicated()
    if dup.any():
        where = frame.filter(dup).select(method, dataset).unique(maintain_order=True).rows()
        raise InvalidArgumentError(f"more than one score per ({method}, {dataset}): {_show(where)}")
    methods = frame.get_column(method).unique().sort()
    datasets = frame.get_column(dataset).unique().sort()
    per_method = frame.group_by(method).agg(pl.col(dataset).alias("_have")).sort(method)
    incomplete = per_method.filter(pl.col("_have").list.len() < len(datasets))
    dropped: list[Any] = []
    if incomplete.height:
        all_sets = set(datasets.to_list())
        lines = [
            f"{m!r} lacks {_show(sorted(all_sets - set(have), key=str))}"
            for m, have in incomplete.head(_SHOW).rows()
        ]
        some = f"{incomplete.height} method{'s' if incomplete.height != 1 else ''}"
        text = f"missing on some datasets: {'; '.join(lines)}"
        if not drop_incomplete:
            verb = "are" if incomplete.height != 1 else "is"
            raise InvalidArgumentError(f"{some} {verb} {text}; pass drop_incomplete=True to drop them")
        dropped = incomplete.get_column(method).to_list()
        warn(f"dropped {some} {text}")
        frame = frame.filter(~pl.col(method).is_in(incomplete.get_column(method).implode()))
        methods = frame.get_column(method).unique().sort()
        datasets = frame.get_column(dataset).unique().sort()
    k, n = len(methods), len(datasets)
    if n < 2:
        raise InvalidArgumentError(f"ranking methods needs at least 2 datasets, got {n}")
    if k < 2:
        # "got 1" alone did not say that drop_incomplete=True had left the others out
        after = (
            f", after drop_incomplete=True dropped {len(dropped)} of {k + len(dropped)}" if dropped else ""
        )
        raise InvalidArgumentError(f"ranking methods needs at least 2 methods, got {k}{after}")
    mi = frame.select(pl.col(method).rank("dense") - 1).to_series().to_numpy().astype(np.int64)
    di = frame.select(pl.col(dataset).rank("dense") - 1).to_series().to_numpy().astype(np.int64)
    x = np.empty((k, n))  # methods × datasets
    x[mi, di] = frame.get_column(measure).to_numpy()
    mean_rank, *omnibus, how = friedman_with_method(x, higher_is_better)
    chi2, p_chi2, f, p_f = (float(v) for v in omnibus)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    cd = nemenyi_cd(k, n, alpha)
    order = np.lexsort((np.arange(k), mean_rank))  # best first, ties in method order
    names = methods.gather(order)
    rank_frame = pl.DataFrame(
        [
            names.alias(method),
            pl.Series("mean_rank", mean_rank[order]),
            pl.Series("mean_score", _row_means(x)[order]),
        ]
    )
    control_frame = None
    if control is not None:
        hit = np.nonzero(matches(methods, control))[0]
        if len(hit) == 0:
            raise InvalidArgumentError(
                f"control= method {control!r} is not among the {k} methods{' kept' if dropped else ''}"
            )
        ci = int(hit[0])
        others = order[order != ci]
        diff = mean_rank[others] - mean_rank[ci]
        z = diff / se
        p = 2.0 * special.ndtr(-np.abs(z))
        control_frame = pl.DataFrame(
            [methods.gather(others).alias(method), pl.Series("rank_diff", diff), pl.Series("z", z),
             pl.Series("p_value", p), pl.Series("p_holm", adjust(p, "holm"))]
        )  # fmt: skip
    if pairwise:
        ia, ib = np.triu_indices(k, 1)
        a, b = order[ia], order[ib]
        diff = mean_rank[b] - mean_rank[a]
        z = diff / se
        p_z = 2.0 * special.ndtr(-np.abs(z))
        p_nem = studentized_range_sf(np.abs(diff) / se * np.sqrt(2), k)
        w, p_w = wilcoxon_pairs(x, a, b)
        # NaN only where every difference is zero (two identical methods, N > 13): a test of the family
        # with p = 1 (as at N ≤ 13), which adjust would leave out, shrinking Holm's m for every other pair
        p_w_family = np.where(np.isnan(p_w), 1.0, p_w)
        pair_frame = pl.DataFrame(
            [methods.gather(a).alias(f"{method}_a"), methods.gather(b).alias(f"{method}_b"),
             pl.Series("rank_diff", diff), pl.Series("z", z), pl.Series("p_nemenyi", p_nem),
             pl.Series("p_holm", adjust(p_z, "holm")), pl.Series("nemenyi_different", np.abs(diff) >= cd),
             pl.Series("w", w), pl.Series("p_wilcoxon", p_w),
             pl.Series("p_wilcoxon_holm", adjust(p_w_family, "holm"))]
        )  # fmt: skip
    else:
        pair_frame = pl.DataFrame()
    return RankResult(rank_frame, pair_frame, control_frame, float(chi2), p_chi2, float(f), p_f,
                      float(cd), float(alpha), k, n, method, dropped, str(how))  # fmt: skip


def friedman_tests(
    x: np.ndarray, higher_is_better: bool = True, *, permutation_max_df: int = PERMUTATION_MAX_DF
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Average ranks, Friedman χ² and Iman–Davenport F with their p-values, for stacked tables.

    ``x[..., method, dataset]`` holds k methods' scores on N datasets; leading axes are independent
    tables (the calibration benchmark passes thousands of simulated ones at once). Each dataset
    ranks the methods (1 = best, mid-ranks for ties). χ² is divided by the tie correction as
    ``scipy.stats.friedmanchisquare`` does (NaN when every dataset ties every method); F is
    infinite when χ² reaches its maximum N(k − 1).

    The p-values: when ``(k − 1)(N − 1) ≤ permutation_max_df`` (default
    :data:`PERMUTATION_MAX_DF`, 40: N ≤ 21 datasets for 3 methods, N ≤ 11 for 5, N ≤ 5 for 10)
    both are the permutation p-value of :func:`permutation_p` (exact, always for 3 methods, or
    seeded Monte Carlo with 20,000 draws), one number for both statistics, since they are
    increasing functions of each other; the F approximation exceeds its level there (0.0239 at
    α = 0.01 for 3 methods on 5 datasets), the χ² one is conservative. Above it, χ² with k − 1
    df and F with (k − 1, (k − 1)(N − 1)) df (p-value 0 for an infinite F).
    ``permutation_max_df=0`` gives the approximations everywhere.

    Returns ``mean_rank[..., k]``, ``chi2``, ``p_chi2``, ``f``, ``p_f`` (each of the leading shape).
    ``x`` must be at least 2-D, with at least 2 methods and 1 dataset.

    Examples
    --------
    >>> from scipy import stats
    >>> x = np.array([[0.9, 0.85, 0.7, 0.92], [0.8, 0.86, 0.65, 0.9], [0.7, 0.6, 0.5, 0.91]])
    >>> mean_rank, chi2, p, f, p_f = friedman_tests(x, permutation_max_df=0)
    >>> mean_rank.tolist(), float(chi2), bool(np.isclose(p, stats.friedmanchisquare(*x).pvalue))
    ([1.25, 2.0, 2.75], 4.5, True)
    >>> _, _, p, _, p_f = friedman_tests(x)  # 4 datasets: exact, (3!)³ arrangements of 3 of them
    >>> float(p), float(p_f)
    (0.125, 0.125)
    """
    return friedman_with_method(x, higher_is_better, permutation_max_df=permutation_max_df)[:5]


def friedman_with_method(
    x: np.ndarray, higher_is_better: bool = True, *, permutation_max_df: int = PERMUTATION_MAX_DF
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`friedman_tests` and, last, how each table's p-values were found: ``"exact"``,
    ``"monte_carlo"`` (the permutation distribution) or ``"asymptotic"`` (χ² and F), an array of
    the leading shape; ``"undefined"`` where χ² is NaN (every method ties on every dataset), which
    had been called ``"exact"`` beside p-values of NaN.

    Examples
    --------
    >>> x = np.array([[0.9, 0.85, 0.7, 0.92], [0.8, 0.86, 0.65, 0.9], [0.7, 0.6, 0.5, 0.91]])
    >>> str(friedman_with_method(x)[-1])
    'exact'
    """
    from scipy import stats

    # "False" is a true string, and a df of "40" or -1 failed inside numpy (or took every table
    # to the permutation test)
    higher_is_better = as_flag(higher_is_better, "higher_is_better=")
    # a whole float (40.0) or +inf (every table to the permutation test) was taken before, as now
    if not (is_real(permutation_max_df) and float(permutation_max_df) == math.inf):
        whole = is_real(permutation_max_df) and float(permutation_max_df).is_integer()
        permutation_max_df = as_count(
            int(permutation_max_df) if whole else permutation_max_df, "permutation_max_df=", least=0
        )
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:  # a 1-D array raised IndexError: tuple index out of range
        raise InvalidArgumentError(
            f"x must be methods × datasets (x[..., method, dataset], at least 2-D), got shape {x.shape}"
        )
    k, n = x.shape[-2], x.shape[-1]
    if k < 2 or n < 1:
        raise InvalidArgumentError(
            f"x (x[..., method, dataset]) must hold at least 2 methods and 1 dataset, got {k} and {n}"
        )
    ranks = stats.rankdata(-x if higher_is_better else x, axis=-2, method="average")  # per dataset
    mean_rank = ranks.mean(axis=-1)
    # Σ(t³ − t) over groups of tied scores from the mid-ranks: a group of t ties at ranks a+1..a+t
    # loses t(t² − 1)/12 of Σ r² to its mid-rank, so no pass over the groups is needed (mid-ranks
    # are multiples of 1/2, so the sums are exact in floating point)
    tie_sum = 2.0 * n * k * (k + 1) * (2 * k + 1) - 12.0 * np.sum(ranks * ranks, axis=(-2, -1))
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean_rank**2, axis=-1) - k * (k + 1) ** 2 / 4.0)
    c = 1.0 - tie_sum / (n * k * (k * k - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(c > 0, chi2 / np.where(c > 0, c, 1.0), np.nan)
        denom = n * (k - 1) - chi2
        f = np.where(denom > 0, (n - 1) * chi2 / np.where(denom > 0, denom, 1.0), np.inf)
    f = np.where(np.isnan(chi2), np.nan, f)
    how = np.full(chi2.shape, "asymptotic", dtype=object)
    if (k - 1) * (n - 1) <= permutation_max_df:
        doubled = np.rint(2.0 * ranks).astype(np.int64).reshape(-1, k, n)
        p_perm, exact = permutation_p(doubled)
        p_chi2 = p_perm.reshape(chi2.shape)
        p_f = p_chi2.copy()
        how[...] = np.where(exact.reshape(chi2.shape), "exact", "monte_carlo")
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            p_chi2 = stats.chi2.sf(chi2, k - 1)
            finite = np.isfinite(f)
            p_f = np.where(finite, stats.f.sf(np.where(finite, f, 0.0), k - 1, (k - 1) * (n - 1)), 0.0)
    p_chi2 = np.where(np.isnan(chi2), np.nan, p_chi2)
    p_f = np.where(np.isnan(chi2), np.nan, p_f)
    how = np.where(np.isnan(chi2), "undefined", how).astype(object)
    return mean_rank, chi2, p_chi2, f, p_f, how


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference ``q_α sqrt(k(k+1)/(6N))`` of average ranks, ``q_α`` the
    studentized range quantile (∞ df) over √2.

    ``k`` (methods) must be at least 2, ``n`` (datasets) at least 1 and ``alpha`` in (0, 1): α = 2
    and k = 1 gave NaN, n = 0 a ZeroDivisionError.

    Examples
    --------
    >>> round(nemenyi_cd(5, 8), 4)
    2.1565
    >>> nemenyi_cd(5, 8, 2.0)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: alpha= must lie in (0, 1), got 2.0
    """
    from scipy import stats

    k = as_count(k, "k=", least=2)
    n = as_count(n, "n=", least=1)
    checked = as_real(alpha, "alpha=")  # a Decimal, kept, raised TypeError in 1 - alpha
    if not 0.0 < checked < 1.0:
        raise InvalidArgumentError(f"alpha= must lie in (0, 1), got {alpha!r}")
    alpha = checked
    q_alpha = float(stats.studentized_range.ppf(1 - alpha, k, np.inf)) / np.sqrt(2)
    return float(q_alpha * np.sqrt(k * (k + 1) / (6.0 * n)))


def wilcoxon_pairs(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank tests of the rows ``x[a[p]]`` against ``x[b[p]]`` over the columns.

    Returns the smaller rank sum ``w`` and the two-sided p-value of each pair, as
    ``scipy.stats.wilcoxon``'s defaults give them: zeros dropped, mid-ranks for ties; the exact null
    distribution for N ≤ 50 columns without ties or zeros; for N ≤ 13 with ties or zeros the exact
    sign-flip (permutation) distribution of the rank sum given the mid-ranks, which scipy computes
    by enumerating the 2^N flips; else the normal approximation with the tie-corrected variance and
    no continuity correction.

    Examples
    --------
    >>> from scipy import stats
    >>> x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, 2.0, 2.0, 3.5, 4.0, 5.2]])
    >>> w, p = wilcoxon_pairs(x, np.array([0]), np.array([1]))
    >>> float(w[0]), bool(np.isclose(p[0], stats.wilcoxon(x[0], x[1]).pvalue))
    (0.0, True)
    """
    from scipy import special

    m = len(a)
    n = x.shape[1]
    r_plus, r_minus, tie = np.empty(m), np.empty(m), np.empty(m)
    count = np.empty(m, dtype=np.int64)
    if m:
        _kernels.signed_rank_sums(np.ascontiguousarray(x), a.astype(np.int64), b.astype(np.int64),
                                  r_plus, r_minus, count, tie)  # fmt: skip
    mean = count * (count + 1) / 4.0
    var = (count * (count + 1) * (2 * count + 1) - tie / 2.0) / 24.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / np.sqrt(var)
    p = 2.0 * special.ndtr(-np.abs(z))
    exact = (count == n) & (tie == 0) & (n <= 50)
    if exact.any():
        cdf = _flip_cdf(np.arange(1, n + 1)[None])
        p[exact] = _two_sided_p(cdf, r_plus[exact].astype(np.int64))  # one row for every pair
    flips = ~exact if n <= SIGN_FLIP_MAX_N else np.zeros(m, dtype=bool)
    if flips.any():
        # the normal approximation is liberal here (docs/comparing.md, Calibration), and 2^N ≤ 8192
        # sign flips are few enough to count exactly
        rows = np.flatnonzero(flips)
        for lo in range(0, len(rows), 1 << 14):
            sel = rows[lo : lo + (1 << 14)]
            p[sel] = _sign_flip_p(_score_differences(x[a[sel]], x[b[sel]]))
    return np.minimum(r_plus, r_minus), p


def _score_differences(xa: np.ndarray, xb: np.ndarray) -> np.ndarray:
    """``xa − xb``, with 0 where the scores are equal: two infinite losses on a dataset tie, as the
    ranks of Friedman's test tie them, where inf − inf would be NaN.

    Examples
    --------
    >>> _score_differences(np.array([np.inf, 1.0, np.inf]), np.array([np.inf, 0.5, 2.0])).tolist()
    [0.0, 0.5, inf]
    """
    with np.errstate(invalid="ignore"):
        return np.where(xa == xb, 0.0, xa - xb)


def _sign_flip_p(d: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the signed-rank sum of each row of ``d`` under all 2^N sign flips.

    Zeros are dropped and ties get mid-ranks, as in the test; doubled mid-ranks are integers, so the
    flip distribution of the doubled positive rank sum is a subset-sum count over at most
    N(N + 1) + 1 values, built one difference at a time. It depends only on the multiset of
    doubled mid-ranks, which takes at most 2^N values (the ways to split the non-zero differences
    into tie groups), so it is built once per distinct multiset: 500,000 pairs of 1,000 methods
    share a few thousand. The p-value is ``2 min(P(T ≤ t), P(T ≥ t))`` capped at 1, as
    ``scipy.stats.permutation_test`` gives it.
    """
    from scipy import stats

    n = d.shape[1]
    # zeros rank first and get weight 0; the others' ranks, less the zeros' count, are their ranks
    # among themselves (parking the zeros at +inf instead tied them with an infinite difference)
    zeros = np.sum(d == 0, axis=1, keepdims=True)
    mag = np.where(d == 0, -np.inf, np.abs(d))
    doubled = np.rint(2.0 * stats.rankdata(mag, axis=1)) - 2 * zeros
    weight = np.where(d != 0, doubled, 0.0).astype(np.int64)
    t = np.sum(np.where(d > 0, weight, 0), axis=1)
    # weights are at most 2N ≤ 26: one byte each, so a row of sorted weights is an N-byte key
    rows = np.ascontiguousarray(np.sort(weight, axis=1).astype(np.uint8))
    _, first, which = np.unique(rows.view(np.dtype((np.void, n))).ravel(), return_index=True,
                                return_inverse=True)  # fmt: skip
    cdf = _flip_cdf(rows[first].astype(np.int64))
    return _two_sided_p(cdf[which.reshape(-1)], t)


def _row_means(x: np.ndarray) -> np.ndarray:
    """Each row's mean, finite wherever its values are: the sum of two scores of 1e308 overflowed to
    inf. Such rows are averaged over their largest magnitude (a power of two, so exactly).

    >>> _row_means(np.array([[1e308, 1e308], [1.0, np.inf], [1.0, 2.0]])).tolist()
    [1e+308, inf, 1.5]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        means = x.mean(axis=1)
        over = ~np.isfinite(means) & np.isfinite(x).all(axis=1)
        if over.any():
            # 2^(e − 1) ≤ the largest magnitude < 2^e: the scaled values stay within ±2
            scale = np.ldexp(1.0, np.frexp(np.abs(x[over]).max(axis=1))[1] - 1)
            means[over] = (x[over] / scale[:, None]).mean(axis=1) * scale
    return means


def _show(items: Sequence[Any]) -> str:
    shown = ", ".join(str(x) for x in items[:_SHOW])
    return shown + (f", ... ({len(items)} in all)" if len(items) > _SHOW else "")
