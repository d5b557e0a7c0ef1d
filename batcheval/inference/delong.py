"""Paired comparison of many runs' AUCs on shared examples with DeLong's covariance.

Each run scores the same test examples. DeLong, DeLong & Clarke-Pearson (1988, Biometrics
44:837) give the covariance of two AUCs measured on the same examples from their structural
components (``V10`` over the positives, ``V01`` over the negatives):
``cov(A, B) = cov(V10_A, V10_B)/m + cov(V01_A, V01_B)/n`` with sample covariances, so the
difference has variance ``var A + var B − 2 cov(A, B)`` and ``z = (A − B)/sqrt(that)``, R's
``pROC::roc.test(method="delong", paired=TRUE)``. pROC refers ``z`` to the standard normal, which
rejected equal AUCs in up to 0.074 of simulated boards at 0.05 (10 + 40 examples); here it is
referred to Student's t on the Welch–Satterthwaite degrees of freedom of the variance's two parts,
each a sample variance of one class's per-example differences (on DeLong's variance at most
0.0585; docs/calibration_auc_difference.md). DeLong's variance is biased upwards, by the pairs' own
variance ``W/(mn)`` (:func:`unbiased_variance`), most near AUC 1 and between runs that agree: the
test on it held below 0.04 at nominal 0.05 at 97 of 168 simulated null points, on the unbiased
estimate at 82 (none above 0.06 beyond Monte-Carlo error; the largest, 0.062 in 2,000 boards, was
0.0486 in 20,000). ``se_diff`` and ``z`` take the unbiased estimate; DeLong's variance stays in the
interval's correlation and the degrees of freedom. The
components of every run come from midranks (Sun & Xu 2014), O(E log E) a run, in a numba kernel
parallel over runs (:mod:`batcheval.kernels.delong`); the variance of each run's difference with
the reference is that of the difference of their components, in blocks of runs with numpy.

The reference is a fixed run (``reference=``) or, by default, the run with the highest AUC.
Choosing it on the same examples makes the comparisons with it optimistic for it (the leader's
AUC is biased upwards by the selection), as with :func:`batcheval.compare`, so ``p_value`` and
``p_holm`` against a data-chosen leader do not hold their level. The question "which runs could
be the best?" is answered as :func:`batcheval.leaderboard` answers it (issue 20's calibrated
leaderboard, :mod:`batcheval.inference.selection`): ``could_be_best`` is a set that holds every
truly best run with probability ≥ ``ci`` although the leader is picked from the data, ``p_best``
the level at which a run would leave it, and ``rank_ci_low`` / ``rank_ci_high`` simultaneous rank
intervals. DeLong's structural components are each run's influence per example: with
``U[r, i] = (V10[r, i] − AUC_r)/sqrt(m(m − 1))`` over the m positives and
``(V01[r, j] − mean)/sqrt(n(n − 1))`` over the n negatives, ``U Uᵀ`` is DeLong's covariance matrix
of all the AUCs, and :func:`batcheval.inference.selection.paired` takes it as the leaderboard's
paired boards take their delta-method influences (Gaussian max-t with the Student-t correction
over the two classes). Boards too large for ``U Uᵀ`` (:data:`~batcheval.inference.floors.INFLUENCE_CELLS`,
:data:`~batcheval.inference.floors.INFLUENCE_FLOPS`, or over
:data:`~batcheval.inference.selection.RANK_LIMIT` runs) compare each run with the leader only
(still valid, as the leader is one of the runs it maximises over) and give null rank intervals:
the difference over the spread of the two runs' structural components centred at the null (DeLong's
variance of the difference plus ``D²(1/m + 1/n)``), read as a self-normalized sum by
:func:`batcheval.inference.selection.sign_flip_tail` at Bonferroni's level. For the AUC, a
U-statistic, this is not the Rademacher sum that bound is proven for (swapping one example's
scores moves other examples' components): the rule is a heuristic whose level rests on the
simulation below. DeLong's own standard
error there lost a run in 0.06-0.99 of simulated null boards of 6,000 runs
(docs/calibration_leader.md, Stop 37).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ..core.encode import as_integers
from ..errors import InvalidArgumentError, InvalidLabelError, InvalidScoreError, NullValuesError
from ..io.arguments import as_one_value
from ..io.frames import as_key_list, check_free_names, check_roles, select_columns
from ..kernels import delong as _kernels
from ..kernels.jit import readonly
from ..scores.auc_interval import auc_interval, difference_interval
from ..scores.prepare import check_exact_in_float
from . import floors as _floors
from . import selection as _selection
from .adjust import adjust
from .clustered import check_cluster_columns
from .cv import is_tiled, key_codes, reference_row, sorted_grid
from .intervals import check_options, seeds_at

# the columns compare_auc adds beside the run keys
_OUTPUTS = ("roc_auc", "roc_auc_se", "diff", "se_diff", "diff_ci_low", "diff_ci_high", "z", "df", "p_value",
            "p_holm", "is_reference", "could_be_best", "p_best", "rank_ci_low", "rank_ci_high")  # fmt: skip

__all__ = ["compare_auc"]

_SHOW = 5
_BLOCK_CELLS = 1 << 20


def _show(items: Sequence[Any]) -> str:
    shown = ", ".join(str(x) for x in items[:_SHOW])
    return shown + (f", ... ({len(items)} in all)" if len(items) > _SHOW else "")


def _scatter(
    frame: pl.DataFrame, runs: list[str], example: str, label: str, s: pl.Series, is_pos_row: np.ndarray
) -> tuple[pl.DataFrame, int, np.ndarray, np.ndarray]:
    """Run keys, example count, each example's class and the runs × examples score matrix of a frame
    in any row order, with errors naming duplicated or missing (run, example) pairs and examples
    whose label differs between runs."""
    r, run_keys = key_codes(frame, runs, "run")
    e, ex_frame = key_codes(frame, [example], "example")
    ex_keys = ex_frame.to_series()
    n_runs, n_ex = run_keys.height, len(ex_keys)
    if n_runs < 2:
        raise InvalidArgumentError(f"a comparison needs at least 2 runs, got {n_runs}")
    seen = np.bincount(r * n_ex + e, minlength=n_runs * n_ex).reshape(n_runs, n_ex)
    if (seen > 1).any():
        rr, ee = np.nonzero(seen > 1)
        pairs = [
            f"{run_keys.row(int(a))} on {ex_keys[int(b)]!r}"
            for a, b in zip(rr[:_SHOW], ee[:_SHOW], strict=True)
        ]
        raise InvalidArgumentError(f"runs score an example more than once: {_show(pairs)}")
    if (seen == 0).any():
        missing = np.nonzero((seen == 0).any(axis=1))[0]
        parts = [
            f"{run_keys.row(int(i))} lacks {_show(ex_keys.gather(np.nonzero(seen[i] == 0)[0]).to_list())}"
            for i in missing[:_SHOW]
        ]
        raise InvalidArgumentError(
            f"{len(missing)} runs do not score every example, so they cannot be paired: {'; '.join(parts)}"
        )
    is_pos = np.zeros(n_ex, dtype=bool)
    is_pos[e] = is_pos_row
    disagree = np.zeros(n_ex, dtype=bool)
    disagree[e[is_pos_row != is_pos[e]]] = True
    if disagree.any():
        raise InvalidLabelError(
            f"label column {label!r} differs between runs for {int(disagree.sum())} examples: "
            f"{_show(ex_keys.filter(pl.Series(disagree)).to_list())}"
        )
    matrix = np.empty(n_runs * n_ex)
    matrix[r * n_ex + e] = s.to_numpy()
    return run_keys, n_ex, is_pos, matrix.reshape(n_runs, n_ex)


def compare_auc(
    data: Any,
    run: str | Sequence[str] = "run",
    example: str = "example",
    score: str = "score",
    label: str = "label",
    *,
    reference: Any = None,
    positive: Any = None,
    ci: float = 0.95,
    seed: int | None = 0,
) -> pl.DataFrame:
    """Compare every run's ROC AUC with a reference run's on the same examples (paired DeLong test).

    Parameters
    ----------
    data
        One row per (run, example): the run's score for the example and the example's label
        (the same label in every run).
    run, example, score, label
        The columns naming the run, the example, the score and the true class (two classes).
    reference
        The run compared against (a value of ``run``, a tuple or dict for several run columns);
        default the run with the highest AUC (see the module notes on selection).
    positive
        The positive class; default the greater of the two.
    ci
        Level of the interval of the difference, of the best set and of the rank intervals.
    seed
        Seed of the Gaussian draws behind the best set's and the rank intervals' critical values.
        None or an integer in [0, 2**63). The draws follow the examples in sorted order, so
        renumbering the examples draws anew: ``p_best`` then moves by its Monte-Carlo error.

    Returns
    -------
    polars.DataFrame
        One row per run, best AUC first: the run key(s), ``roc_auc``, ``roc_auc_se`` (DeLong),
        ``diff`` (run − reference), ``se_diff`` (the square root of the unbiased estimate of the
        difference's variance, :func:`unbiased_variance`: DeLong's less its bias, at least half of
        DeLong's), ``diff_ci_low``, ``diff_ci_high`` (the runs' own ``be.auc(ci=)`` intervals
        combined by MOVER with DeLong's correlation,
        :func:`~batcheval.scores.auc_interval.difference_interval`; not ``diff ± z·se`` with
        DeLong's se, which covered 0.70 near AUC 1 with 10 + 10 examples,
        docs/calibration_auc_difference.md), ``z`` = ``diff / se_diff``, ``df`` (the
        Welch–Satterthwaite degrees of freedom of DeLong's variance) and ``p_value``
        (two-sided, on Student's t with ``df``; NaN for the reference itself; where ``se_diff`` is
        0, ``df`` is NaN and ``p_value`` is 1 for a difference of 0, else the swap test's, with
        ``z`` NaN),
        ``p_holm`` (Holm over the other runs), ``is_reference``, then ``could_be_best``,
        ``p_best``, ``rank_ci_low`` and ``rank_ci_high`` (integers; null where undefined), valid
        although the best run is chosen from the data (see the module notes).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({
    ...     "run": ["a"] * 6 + ["b"] * 6,
    ...     "example": list(range(6)) * 2,
    ...     "label": [0, 0, 0, 1, 1, 1] * 2,
    ...     "score": [0.1, 0.3, 0.5, 0.4, 0.8, 0.9, 0.2, 0.6, 0.1, 0.3, 0.5, 0.7],
    ... })
    >>> out = be.compare_auc(df)
    >>> out.select("run", "roc_auc", "diff", "is_reference").rows()
    [('a', 0.8888888888888888, 0.0, True), ('b', 0.7777777777777778, -0.11111111111111105, False)]
    >>> out.select("run", "could_be_best", "rank_ci_low", "rank_ci_high").rows()
    [('a', True, 1, 2), ('b', True, 1, 2)]
    """
    positive = as_one_value(positive, "positive=")
    from scipy import special

    # ci and seed checked as the leaderboard's are (the interval method and n_boot do not apply here)
    check_options(ci, "wilson_delta", 2, seed)
    ci = float(ci)  # checked
    runs = as_key_list(run, "run")
    if not runs:
        raise InvalidArgumentError("run= must name at least one column")
    roles = check_roles([], *runs, example, score, label,
                        roles=("run",) * len(runs) + ("example", "score", "label"))  # fmt: skip
    check_free_names(runs, _OUTPUTS, "compare_auc's result", "run")
    frame = select_columns(data, [*runs, example, score, label], roles)
    ids = frame.get_column(example)
    if ids.dtype.is_float() and not ids.null_count():
        # NaN is one key to polars: one NaN example per run passed as an example, two read as one
        # example scored twice. Nulls are left to the key encoding's NullValuesError below
        check_cluster_columns(frame, [example], [])
    if frame.height == 0:
        # be.compare's words: "must hold two classes, got []" blamed the label column
        raise InvalidArgumentError("the frame has no rows to compare")
    s = frame.get_column(score)
    if not s.dtype.is_numeric():
        # be.auc's class for the same column: a handler of InvalidScoreError missed this one
        raise InvalidScoreError(f"score column {score!r} has dtype {s.dtype}; scores must be numeric")
    check_exact_in_float(s, score)
    s = s.cast(pl.Float64)
    # the classes be.auc raises for the same columns; no drop_nulls= here: a row dropped from one
    # run would unpair its example in every other
    at = f"({', '.join([*runs, example])})"
    if s.null_count():
        where = frame.filter(s.is_null()).select(*runs, example).rows()
        raise NullValuesError(
            f"score column {score!r} has {s.null_count()} null value{'s' if s.null_count() != 1 else ''}, "
            f"at {at} = {_show(where)}"
        )
    if not s.is_finite().all():
        bad = ~s.is_finite()
        where = frame.filter(bad).select(*runs, example).rows()
        n_bad = int(bad.sum())
        raise InvalidScoreError(
            f"score column {score!r} has {n_bad} NaN or infinite value{'s' if n_bad != 1 else ''}, "
            f"at {at} = {_show(where)}"
        )
    lab = frame.get_column(label)
    if lab.null_count():
        nulls = lab.null_count()
        raise NullValuesError(f"label column {label!r} has {nulls} null value{'s' if nulls != 1 else ''}")
    # NaN or 0.5 is no class (NaN sorted last and became the positive class); whole floats are
    lab = as_integers(lab, "label")
    # sorted by value, as be.auc sorts them: an Enum's own sort follows its category order, which
    # made "0" of Enum(["1", "0"]) the positive class
    classes = sorted(lab.unique().to_list())
    if len(classes) != 2:
        raise InvalidLabelError(f"label column {label!r} must hold two classes, got {classes}")
    if positive is not None and positive not in classes:
        raise InvalidLabelError(f"positive= {positive!r} is not a class of {label!r}: {classes}")
    # the class's own value: positive=1 of Boolean labels is True (1 == True), which polars compares
    pos_class = classes[1] if positive is None else classes[classes.index(positive)]
    is_pos_row = (lab == pos_class).to_numpy()
    grid = sorted_grid(frame, runs, [example])
    if grid is not None and is_tiled(is_pos_row, grid[1].height):
        # sorted by run and example, every run on the same examples with the same labels: the score
        # column is the runs × examples matrix already (no key codes, no scatter)
        run_keys, ex_frame = grid
        n_runs, n_ex = run_keys.height, ex_frame.height
        if n_runs < 2:
            raise InvalidArgumentError(f"a comparison needs at least 2 runs, got {n_runs}")
        is_pos = is_pos_row[:n_ex]
        matrix = s.to_numpy().reshape(n_runs, n_ex)
    else:
        run_keys, n_ex, is_pos, matrix = _scatter(frame, runs, example, label, s, is_pos_row)
        n_runs = run_keys.height
    m, n = int(is_pos.sum()), int((~is_pos).sum())
    if m < 2 or n < 2:
        raise InvalidArgumentError(
            f"the DeLong variance needs at least 2 examples of each class, got {m} and {n}"
        )
    v10 = np.empty((n_runs, m))
    v01 = np.empty((n_runs, n))
    twice_u = np.empty(n_runs, dtype=np.int64)
    # int32: the doubled midranks reach 2·E, and a runs × examples array of them is kept
    twice_rank = np.empty((n_runs, n_ex), dtype=np.int32)
    _kernels.run_components(matrix, is_pos, v10, v01, twice_u, twice_rank)
    auc = twice_u / (2.0 * m * n)
    # centred in place: the same values as v10 − auc, without two more runs × examples arrays
    c10 = v10
    c10 -= auc[:, None]
    c01 = v01
    c01 -= v01.mean(axis=1)[:, None]
    var = (c10 * c10).sum(1) / ((m - 1) * m) + (c01 * c01).sum(1) / ((n - 1) * n)
    if reference is None:
        ref = int(np.argmax(auc))
    else:
        ref = reference_row(run_keys, reference)
    diff = auc - auc[ref]
    # DeLong's var + var[ref] − 2 cov, taken as the variance of the components' differences: the
    # three terms summed apart left a rounding residue (se_diff 2.6e-9 for an exact copy of the
    # reference, and a cancellation for any run close to it), where a difference of 0 is exactly 0
    part10 = _difference_sums(c10, ref) / ((m - 1) * m)
    part01 = _difference_sums(c01, ref) / ((n - 1) * n)
    var_diff = part10 + part01
    se_diff = np.sqrt(unbiased_variance(twice_rank, is_pos, twice_u, ref, diff, part10, part01))
    with np.errstate(divide="ignore", invalid="ignore"):
        # a run that ranks every pair as the reference does (a copy, or any increasing transform of
        # its scores) has difference 0 with variance 0: z 0, not 0/0
        z = np.where((diff == 0) & (se_diff == 0), 0.0, diff / se_diff)
        # each class's part of DeLong's variance is a variance of m (or n) per-example differences,
        # so z is referred to Student's t on their Welch–Satterthwaite degrees of freedom: the normal
        # tail gave sizes up to 0.0740 at nominal 0.05 with 10 + 40 examples
        # (docs/calibration_auc_difference.md)
        df = var_diff * var_diff / (part10 * part10 / (m - 1) + part01 * part01 / (n - 1))
    df = np.where(se_diff > 0, df, np.nan)
    p = 2.0 * special.stdtr(df, -np.abs(z))
    p = np.where(se_diff == 0, np.where(diff == 0, 1.0, 0.0), p)
    # a difference with no DeLong spread (a perfect run beside a constant one: every example's
    # components differ alike) is no certainty: p was 0 on 3 + 3 examples. The exact (Monte-Carlo
    # beyond 16 examples) swap test of the two runs' ranks takes it, and z is NaN (the interval
    # below is the runs' own intervals combined, which have width)
    unspread = np.flatnonzero((se_diff == 0) & (diff != 0))
    unspread = unspread[unspread != ref]
    if unspread.size:
        p[unspread] = _swap_p(twice_rank, is_pos, unspread, ref, seed)
        z[unspread] = np.nan
    p[ref] = df[ref] = np.nan
    q = float(special.ndtri(0.5 + float(ci) / 2))
    # the runs' own intervals combined (MOVER), not diff ± q·se with DeLong's se: that covered a difference
    # near AUC 1 in 72 % of 10 + 10 groups, and had no width where both runs separate the classes
    own_low, own_high = auc_interval(auc, var, m, n, q)
    low, high = difference_interval(auc, own_low, own_high, var, var_diff, ref)
    chosen = _best_set(auc, c10, c01, m, n, float(ci), seed)
    # no test of a run against the leader can say more than that the d examples the two rank
    # differently all went the leader's way, 2^-d (the swap test's least p, one-sided), as the
    # leaderboard floors its paired runs: a run with no DeLong spread had p_best 0.0005 on 4
    # examples, where its exact swap test gives 0.125
    chosen = _selection.floor_p_best(chosen, _swap_floor(twice_rank, int(np.argmax(auc))), float(ci))
    is_ref = np.zeros(n_runs, dtype=bool)
    is_ref[ref] = True
    out = run_keys.hstack([
        pl.Series("roc_auc", auc), pl.Series("roc_auc_se", np.sqrt(var)), pl.Series("diff", diff),
        pl.Series("se_diff", se_diff), pl.Series("diff_ci_low", low),
        pl.Series("diff_ci_high", high), pl.Series("z", np.where(is_ref, np.nan, z)), pl.Series("df", df),
        pl.Series("p_value", p), pl.Series("p_holm", adjust(p, "holm")), pl.Series("is_reference", is_ref),
        # as the leaderboard gives them: a nullable boolean and integer ranks (null where undefined)
        pl.Series("could_be_best", chosen.could_be_best.tolist(), dtype=pl.Boolean),
        pl.Series("p_best", chosen.p_best),
        pl.Series("rank_ci_low", chosen.rank_ci_low).fill_nan(None).cast(pl.Int64),
        pl.Series("rank_ci_high", chosen.rank_ci_high).fill_nan(None).cast(pl.Int64),
    ])  # fmt: skip
    order = np.lexsort((np.arange(n_runs), -auc))
    return out[order.tolist()]


#: random swap patterns of :func:`_swap_p` beyond 16 examples, whatever their number (fewer for
#: more examples made stronger evidence read weaker: p = 0.005 at 100,000 examples, 1e-4 at 20)
SWAP_DRAWS = 1999


def _swap_p(
    twice_rank: np.ndarray, is_pos: np.ndarray, runs: np.ndarray, ref: int, seed: int | None
) -> np.ndarray:
    """Two-sided p-values of the paired swap test (Bandos, Rockette & Gur 2005, Stat. Med. 24:2873)
    of each of ``runs`` against ``ref``: their within-run midranks (doubled, integers: the rows of
    ``twice_rank``) swapped example by example, every pattern up to 16 examples, else
    :data:`SWAP_DRAWS` random ones and the observed (each pattern's U counted in O(n) over the
    ranks' values).

    Examples
    --------
    A perfect run against a constant one on 3 + 3 examples (DeLong's se of the difference is 0
    there): of the 64 patterns only the observed one and the full swap reach a difference of 0.5.

    >>> from scipy import stats
    >>> ranks = 2 * stats.rankdata([[0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0.5] * 6], axis=1)
    >>> _swap_p(ranks.astype(np.int32), np.array([False] * 3 + [True] * 3), np.array([1]), 0, 0).tolist()
    [0.03125]
    """
    n = twice_rank.shape[1]
    reference = twice_rank[ref].astype(np.int64)
    out = np.empty(len(runs))
    # each run's generator seeded as the bootstrap seeds its groups (None: fresh entropy)
    for i, (r, run_seed) in enumerate(zip(runs, seeds_at(seed, runs), strict=True)):
        ranked = twice_rank[r].astype(np.int64)
        reaching, patterns = _kernels.swap_test(ranked, reference, is_pos, SWAP_DRAWS, run_seed)
        out[i] = reaching / patterns if n <= 16 else (1.0 + reaching) / (1.0 + patterns)
    return out


def _swap_floor(twice_rank: np.ndarray, leader: int) -> np.ndarray:
    """``2^-d`` of every run, ``d`` the examples whose within-run ranks differ from ``leader``'s:
    the least one-sided p of the swap test of the two (patterns that swap equal ranks are one).

    Examples
    --------
    >>> _swap_floor(np.array([[2, 4, 6, 8], [2, 4, 8, 6], [8, 6, 4, 2]], dtype=np.int32), 0).tolist()
    [1.0, 0.25, 0.0625]
    """
    d = np.empty(len(twice_rank), dtype=np.int64)
    step = max(1, _BLOCK_CELLS // max(twice_rank.shape[1], 1))
    for lo in range(0, len(twice_rank), step):  # a block of runs at a time, not a runs × examples mask
        d[lo : lo + step] = (twice_rank[lo : lo + step] != twice_rank[leader]).sum(axis=1)
    return np.ldexp(1.0, -d)


def unbiased_variance(
    twice_rank: np.ndarray,
    is_pos: np.ndarray,
    twice_u: np.ndarray,
    ref: int,
    diff: np.ndarray,
    part10: np.ndarray,
    part01: np.ndarray,
) -> np.ndarray:
    """The unbiased estimate of each run's ``var(AUC_run − AUC_ref)``: DeLong's ``part10 + part01``
    less its bias ``W/(mn)``, floored at half of DeLong's.

    With ``δ = ψ_run − ψ_ref`` the pairs' kernel differences (ψ = 1, ½ or 0 as a positive scores
    above, level with or below a negative), ``ξ10`` the covariance of two pairs that share their
    positive and ``ξ01`` their negative, the difference's variance is
    ``ξ10/m + ξ01/n + W/(mn)`` with ``W = var δ − ξ10 − ξ01``, and DeLong's estimate has expectation
    ``ξ10/m + ξ01/n + 2W/(mn)``: it counts ``W`` twice (Brunner & Konietschke 2024,
    arXiv:2409.05038, give the unbiased estimate of one AUC's variance, ties included). The pairs'
    mean square
    ``Q = Σδ²/(mn) − diff²`` has expectation ``var δ − var(diff)``, which gives
    ``Ŵ = (Q − (m − 1)·part10 − (n − 1)·part01) / ((1 − 1/m)(1 − 1/n))`` unbiased (it is the
    two-way interaction mean square of δ, never negative, so the estimate never exceeds DeLong's).
    The variance is ``A + W/(mn)`` with ``A ≥ 0`` and DeLong's has mean ``A + 2W/(mn)``, so the true
    variance is at least half of DeLong's expectation: the floor at half of DeLong's estimate keeps
    a noisy estimate of nothing (an exact 0 that rounds to 1e-18 gave ``se_diff`` 2e-9 and p 6e-62
    on 5 + 5 examples) from making a test of one; it left the size table's counts as they were
    (docs/calibration_auc_difference.md). ``Σδ²`` comes
    from :func:`batcheval.kernels.delong.pair_agreement` in O(E log E) a run. Near AUC 1 and with
    runs that agree, ``W/(mn)`` is a large share of DeLong's variance (24 % on average at 10 + 10
    binormal examples, AUC 0.9, runs correlated 0.8; 3 % at 100 + 100).

    Examples
    --------
    Four positives and four negatives, the second run one swapped pair away from the first:

    >>> from scipy import stats
    >>> scores = np.array([[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 5, 4, 6, 7, 8]], dtype=float)
    >>> is_pos = np.array([False] * 4 + [True] * 4)
    >>> twice_rank = (2 * stats.rankdata(scores, axis=1)).astype(np.int32)
    >>> twice_u = np.array([32, 30])
    >>> diff = (twice_u - 32) / 32.0
    >>> part10 = part01 = np.array([0.0, 1 / 256])  # one component of each class 1/4 lower
    >>> unbiased_variance(twice_rank, is_pos, twice_u, 0, diff, part10, part01).tolist()
    [0.0, 0.00390625]

    DeLong's is 1/128: the one discordant pair (δ = −1) gives ``Ŵ = 1/16``, ``Ŵ/(mn) = 1/256``.
    """
    m, n = int(is_pos.sum()), int(len(is_pos) - is_pos.sum())
    agree = np.empty(len(twice_u), dtype=np.int64)
    ties = np.empty(len(twice_u), dtype=np.int64)
    _kernels.pair_agreement(readonly(twice_rank), readonly(is_pos), ref, agree, ties)
    # Σ(2ψ)² = 2·(2U) − ties, as (2ψ)² = 2·2ψ except at a tie (2ψ = 1); so 4·Σδ² in integers
    own = 2 * twice_u - ties
    four_sq = own + own[ref] - 2 * agree
    q = four_sq / (4.0 * m * n) - diff * diff
    w = (q - (m - 1) * part10 - (n - 1) * part01) / ((1.0 - 1.0 / m) * (1.0 - 1.0 / n))
    var = part10 + part01
    return np.maximum(var - w / (m * n), 0.5 * var)


def _difference_sums(c: np.ndarray, ref: int) -> np.ndarray:
    """``Σ_e (c[r, e] − c[ref, e])²`` of every run ``r``, a block of runs at a time."""
    out = np.empty(len(c))
    # a block's differences are at most _BLOCK_CELLS floats, not another runs × examples array
    step = max(1, _BLOCK_CELLS // max(c.shape[1], 1))
    for lo in range(0, len(c), step):
        d = c[lo : lo + step] - c[ref]
        out[lo : lo + step] = np.einsum("re,re->r", d, d)
    return out


def _best_set(
    auc: np.ndarray,
    c10: np.ndarray,
    c01: np.ndarray,
    m: int,
    n: int,
    ci: float,
    seed: int | None,
) -> _selection.Selection:
    """The best set and rank intervals of the runs' AUCs, from DeLong's components centred per run
    (``c10`` over the positives, ``c01`` over the negatives), as the leaderboard's paired boards
    find theirs (see the module notes)."""
    r, e = len(auc), m + n
    if (
        r <= _selection.RANK_LIMIT
        and r * e <= _floors.INFLUENCE_CELLS
        and r * r * e <= _floors.INFLUENCE_FLOPS
    ):
        u = np.hstack([c10 / np.sqrt((m - 1.0) * m), c01 / np.sqrt((n - 1.0) * n)])
        classes = np.r_[np.ones(m, dtype=np.int64), np.zeros(n, dtype=np.int64)]
        return _selection.paired(auc, u, ci, seed, classes=classes)
    return _large_best_set(auc, c10, c01, ci)


def _large_best_set(auc: np.ndarray, c10: np.ndarray, c01: np.ndarray, ci: float) -> _selection.Selection:
    """The best set of a board compared with its leader only: each run's difference ``D`` with the
    leader over the null-centred spread of its structural components, ``Σ_pos d10²/m² + Σ_neg
    d01²/n²`` with ``d = V_run − V_leader`` (DeLong's variance plus ``D²(1/m + 1/n)``), read as a
    self-normalized Rademacher sum (:func:`batcheval.inference.selection.sign_flip_tail`).

    DeLong's own variance of the difference is estimated low exactly where the max over millions
    of pairs looks: a run far below the leader of thousands of equal runs, with few positives
    (0.4 of 10 simulated null boards of 6,000 runs, 400 examples, prevalence 0.1, lost a run;
    docs/calibration_leader.md, Stop 37). Centred at the null instead of at ``D``, the spread
    grows with the gap, as the sign-flip test's does for the leaderboard's paired boards."""
    from scipy import special

    m, n = c10.shape[1], c01.shape[1]
    leader = int(np.argmax(auc))
    diff = auc - auc[leader]
    # Σ_e (c_run − c_leader)² of each class, the components centred per run
    s10 = np.einsum("re,re->r", c10, c10) + c10[leader] @ c10[leader] - 2.0 * (c10 @ c10[leader])
    s01 = np.einsum("re,re->r", c01, c01) + c01[leader] @ c01[leader] - 2.0 * (c01 @ c01[leader])
    var0 = np.maximum(s10, 0.0) / (m * m) + np.maximum(s01, 0.0) / (n * n) + diff * diff * (1.0 / m + 1.0 / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var0 > 0, -diff / np.sqrt(var0), np.where(diff < 0, np.inf, 0.0))
    p_two = np.minimum(1.0, special.erfc(t / np.sqrt(2.0)))
    p_two[leader] = 1.0
    return _selection.versus_leader_sign_flip(auc, diff, p_two, ci)
