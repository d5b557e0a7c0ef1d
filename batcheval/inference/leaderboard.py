"""Leaderboards with uncertainty: rank runs, and say which could be the best.

Every run is compared with the leader (and, with ``adjacent=True``, with the
run ranked just above it), never with all other runs, so the work is linear
in the number of runs: one counting pass over the predictions, plus for
paired boards either

- nothing more, when the runs × examples table is dense (at most four cells
  per row): the counting pass also writes each run's real and predicted
  class per example into it (one byte a cell), and every comparison reads
  only that table; or
- a pass that checks no run scores an example twice, then one more pass
  over the rows per comparison, holding only the reference runs'
  predictions.

Paired comparisons (``example=`` given)
    The same test examples are scored by every run, so a run and the leader
    are compared on the examples both predicted. Each run's *joint table*
    ``joint[real, leader's prediction, run's prediction]`` holds everything
    a paired comparison needs:

    - ``p_mcnemar``: exact McNemar test of binary correctness, the two-sided
      binomial test of ``n_run_only`` successes in ``n_leader_only +
      n_run_only`` discordant examples at p = 1/2 (McNemar 1947; the exact
      form as in Fagerland, Lydersen & Laake 2013, BMC Med. Res. Methodol.
      13:91);
    - ``p_vs_leader``, for informedness (the default), accuracy, recall,
      inverse_recall, fallout, miss_rate and auc_single (multiclass:
      informedness and accuracy; ``paired_se.SIGN_FLIP_MEASURES``): the
      paired sign-flip test of the difference, whichever ``paired=`` says —
      each discordant example is the run's win or the leader's with
      probability 1/2 under the null. Binary: its mid-p value ``P(|D| > |d|)
      + ½·P(|D| = |d|)``, and 1 at ``d = 0`` (a run that ties the leader is no
      evidence against it; the formula would give less, 0.8125 for four
      discordant examples split two and two) (for accuracy the mid-p McNemar test that Fagerland,
      Lydersen & Laake recommend), enumerated while the class with fewer
      discordant examples has at most 50 of them (the normal tail beyond).
      The exact test was conservative where few examples are discordant
      (size 0.000-0.049 at 0.05); the mid-p one is within [0.04, 0.06] at
      13 of the 18 points of docs/calibration_leader.md's grid whose margins
      hold 10 examples (the exact one at 6) and at most 0.054 anywhere
      ("The board's p-value columns"); multiclass: its normal form;
    - ``p_vs_leader`` for the other binary measures (markedness, kappa,
      correlation, precision, f1, ...): the larger of two p-values. One is the
      mid-p paired randomization (swap) test, whichever ``paired=`` says: under
      its null the two runs' predictions of each example are exchangeable; of
      the ``m₁`` positives and ``m₀`` negatives they disagree on, the run
      predicts positive for ``X₁ ~ Bin(m₁, ½)`` and ``X₀ ~ Bin(m₀, ½)``, which
      fix both tables, so ``p = P(|D| > |d|) + ½·P(|D| = |d|)`` is a sum over
      ``(X₁, X₀)`` (:func:`batcheval.inference.paired_se.swap_p`; a swap that
      leaves the measure undefined counts as not extreme; measures that never
      fall as a run gets one more discordant example right,
      ``paired_se.MONOTONE_SWAP``, are summed in ``O(m₁ + m₀)``, others while
      at most ``paired_se.SWAP_POINTS`` points). The other is ``2·Φ(−|diff|/se)``
      with the paired bootstrap's standard error (or, with ``paired="delta"``,
      the delta method's); multiclass boards take it alone, never below
      ``2^-d`` for ``d`` discordant examples, the least any swap test can give
      (``paired_se.swap_floor``; it went to 0 at z ≈ 48 on 12 examples). On
      binary boards ``macro_informedness``, ``macro_markedness``, ``mcc`` and
      ``weighted_recall`` take the tests of informedness, markedness,
      correlation and accuracy, which they equal on every table
      (``measures.BINARY_EQUIVALENT``): every p-value, the best set and the
      rank intervals, paired, unpaired or clustered, and their intervals
      (their values stay their own); ``macro_recall`` and ``macro_precision`` are
      ``(1 + informedness)/2`` and ``(1 + markedness)/2`` only where both
      classes occur, and keep the floored normal p-value. Each bootstrap
      replicate resamples the examples, and measures the run and the leader
      on the same resample; for binary boards it is a Poisson bootstrap with
      the difference's linear part as a control variate, which needs about 8
      replicates a run where a plain bootstrap needs 200
      (:mod:`batcheval.inference.paired_se`). Alone, the normal p-value
      exceeds its level at small n (markedness: 0.238 with the bootstrap and
      0.169 with the delta method at 0.05 with 10 and 20 examples, 0.061-0.085
      where every margin holds 10), and the swap test for runs of equal
      markedness that are not exchangeable (unequal biases: 0.068-0.080 from
      40 to 1,000 examples); the larger of the two was at most 0.051
      (bootstrap) and 0.054 (delta) on the equal-skill grid, within [0.04, 0.06]
      at 14 and 15 of its 18 points with margins of 10 (8 and 10 with the exact
      swap test), and at most 0.050 and 0.059 on the unequal one (12,000 pairs
      a point; docs/calibration_leader.md, "The board's p-value columns").

Unpaired comparisons (no ``example=``)
    The run and the leader are treated as independent samples. Binary
    informedness and markedness, where both runs' tables hold at least 10
    examples in every real and predicted class
    (``comparisons.SCORE_MARGIN``): the score test of equal values
    (:func:`batcheval.inference.comparisons.equal_difference_p`; Miettinen &
    Nurminen's construction, the variance at the four binomial rates of most
    likelihood under the null), within [0.04, 0.06] at 0.05 at 14
    (informedness) and 11 (markedness) of the 18 grid points with margins of
    10, at most 0.056 anywhere (12,000 boards where 2,000 read above 0.055).
    Elsewhere, and for other measures or with ``ci_method="bootstrap"``: the
    z-test of ``se = sqrt(se_run² + se_leader²)`` from the delta method of the
    tables plus one example in each cell (or from the bootstrap), which holds
    the level at a few examples a class but is conservative above (it was
    within the band at 8 and 7 of those points). A standard error at or below
    ``paired_se.SE_NOISE`` of the scale (a bootstrap of a perfect run) counts
    as 0, and no p-value is below ``1/C(n + m, n)``, the least a permutation
    test of the two runs' ``n`` and ``m`` examples can give
    (``comparisons.permutation_floor``). Runs scored on the same test
    set are positively correlated, so treating them as independent overstates
    the spread and the test is conservative: give ``example=`` when you can.

Which runs could be the best, and where each could rank
    The leader is the best estimate (the lowest for ``fallout``, ``miss_rate``,
    ``lr_minus`` and ``conditional_entropy``, see ``higher_is_better``), so a run compared with it is
    compared with a maximum picked from the same data (the winner's curse):
    Holm's correction of ``p_vs_leader`` does not hold its level then (30
    unpaired runs of equal informedness on 400 examples each: a run was
    declared worse than the leader in 32 % of boards at 5 %).
    ``could_be_best`` is a set that holds every truly best run with
    probability ≥ ``ci`` although the leader is chosen from the data
    (multiple comparisons with the best, in a step-down over candidates),
    ``p_best`` the level at which a run would leave it, and ``rank_ci_low``
    / ``rank_ci_high`` simultaneous rank intervals (Mogstad, Romano, Shaikh
    & Wilhelm 2024): see :mod:`batcheval.inference.selection`. Unpaired
    boards take the runs' standard errors as independent; paired boards
    resample the examples jointly across runs (a Gaussian multiplier
    bootstrap of each run's influence per example). A run's rates, and a
    paired pair's joint predictions, are only known to within their
    intervals: a leader that got all 10 of a class right looks certain, and
    two runs that err on different classes can agree on all 10 by chance.
    So each standardized difference takes the variance at the least
    favourable rates within the ``ci`` Wilson intervals: unpaired and
    clustered boards, each run's rates; paired boards, each pair's joint table
    of predictions per class, moved towards even (and each run's variance is
    at least that of its table plus one in each cell). A clustered board's
    intervals count examples, not rows: a run's rows of a class are divided
    by how many of them count as one example (the largest of its design
    effects and the board's median, at most its rows per example), as seeds
    that repeat a run's errors tell no more than one seed. Modest
    boards (unpaired up to 316 runs; paired while runs² × examples ≤
    100,000) of at most :data:`MAX_RANKED_CLASSES` classes holding examples take
    both critical values from a studentized bootstrap of the runs' tables
    instead, as a few examples of a class defeat the normal approximation (see
    :mod:`batcheval.inference.selection`); with more classes it lost a truly
    best run in up to 0.235 of boards, and they keep the Gaussian max-t. The
    rank intervals are null (with a warning) above 5,000 runs, for paired
    boards of more than :data:`MAX_RANKED_CLASSES` classes, and for paired
    boards too large or sparse for the runs × examples influence matrix,
    whose best set then compares each run with the leader only, in
    Bonferroni's step-down over ordered pairs: paired boards of a measure
    with a sign-flip ``p_vs_leader`` (informedness, accuracy, recall, …)
    read that test one-sided with Pinelis's and Hoeffding's bounds, which
    hold for any number of discordant examples of exchangeable runs, and
    also take the normal tail of the pair's least-favourable variance (a
    run leaves only when both say so); other measures take the
    difference's standard error with both runs' smoothed variances added,
    or the pair's least-favourable one if larger.
    ``docs/calibration_leader.md`` gives the simulated error rates, for
    runs that differ in skill and for runs of equal informedness that err
    on different classes (section "two error profiles": paired boards of
    100 to 6,000 such runs with 10 positives lost a truly best run in
    0.000-0.003 of simulated boards, against 0.80-1.00 before stop 38).
    A run whose estimate is defined but has no spread (a constant run's
    correlation or markedness, 0 by convention) cannot be tested by the max
    statistic: it could rank anywhere, and on a paired board it leaves the
    best set only where its own ``p_vs_leader`` rejects at Bonferroni's
    level over the other runs (``docs/calibration_constant.md``).

``tied_with_leader`` is an alias of ``could_be_best`` (the same values). It
used to be true when the Holm-adjusted ``p_vs_leader`` exceeded ``1 − ci``;
``p_vs_leader_holm`` still gives that figure, and ``p_vs_leader`` is the
plain two-sided p-value of one run against the leader, neither valid under
the selection of the leader.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.encode import label_kind
from ..core.table import ContingencyTable, drop_null_rows
from ..errors import InvalidArgumentError, InvalidLabelError, UnknownMeasureError, warn
from ..io.arguments import as_flag, as_one_value
from ..io.frames import (
    as_key_list,
    check_free_names,
    check_roles,
    select_columns,
    unused_name,
)
from ..measures import names as _names
from . import board_bootstrap as _bootstrap
from . import clustered as _clustered
from . import comparisons as _cmp
from . import floors as _floors
from . import intervals as _intervals
from . import paired_se as _paired_se
from . import ratios as _ratios
from . import selection as _selection
from .adjust import adjust

__all__ = [
    "MAX_RANKED_CLASSES",
    "held_classes",
    "is_leaderboard",
    "leaderboard",
]


#: the most classes of a board whose best set comes from the studentized bootstrap (and, paired,
#: from every pair's comparison, the runs × examples influence matrix): with equal runs that err on
#: different classes it lost a truly best run in up to 0.080 of boards with 3-5 classes (as binary
#: boards' studentized bootstrap, at most 0.080) and in 0.110-0.190 (paired) and 0.140-0.235
#: (unpaired) with 6-11. Paired boards of more classes compare each run with the leader only
#: (0.000-0.015 at 6, 8 and 11 classes) and have no rank intervals; unpaired ones take the Gaussian
#: max-t of their floored variances (0.000-0.045) (docs/calibration_leader.md, Stop 51)
MAX_RANKED_CLASSES = 5


def held_classes(counts: np.ndarray) -> int:
    """The classes of a board's tables ``counts[R, K, K]`` that hold a real example or a
    prediction of some run (classes= may name more): what :data:`MAX_RANKED_CLASSES` counts.

    Examples
    --------
    >>> held_classes(np.array([[[3, 1, 0], [0, 2, 0], [0, 0, 0]]]))
    2
    """
    total = np.asarray(counts).sum(axis=0)
    return int(np.count_nonzero(total.sum(axis=0) + total.sum(axis=1)))


def leaderboard(
    data: Any,
    run: str | Sequence[str] = "run",
    label: str = "label",
    prediction: str = "prediction",
    *,
    pool: str | Sequence[str] | None = None,
    measure: str = "informedness",
    example: str | Sequence[str] | None = None,
    cluster: str | Sequence[str] | None = None,
    ci: float = 0.95,
    ci_method: str = "wilson_delta",
    significance: str = "informedness",
    n_boot: int = 200,
    seed: int | None = 0,
    paired: str = "bootstrap",
    adjacent: bool = False,
    classes: Sequence[Any] | None = None,
    positive: Any = None,
    drop_nulls: bool = False,
    higher_is_better: bool | None = None,
) -> pl.DataFrame:
    """Rank runs by a measure, with intervals and tests against the leader.

    Parameters
    ----------
    data
        Per-example predictions (polars, pyarrow or pandas), one row per
        run × example.
    run
        Column(s) naming a run; the board has one row per run.
    label, prediction
        The real and the predicted class.
    pool
        Columns such as ``"fold"`` that a run's predictions are summed over
        (the micro average, see docs/averaging.md). Every column not in ``run`` is pooled
        over anyway, but naming them checks that they exist and lets the board know them:
        with ``example=``, an example repeated in pooled groups (seeds) is one cluster of its
        rows, and without it, pooling a key other than a fold warns that the intervals take
        the rows as independent. Columns pooled without being named are not checked for
        repeated examples: name the seeds. A pooled column may
        be named in ``run`` too (as :func:`batcheval.evaluate` takes it in
        ``by``): ``run=["run", "fold"], pool="fold"`` is ``run="run", pool="fold"``.
    measure
        The ranking measure, best first (see ``higher_is_better``): any measure
        :func:`batcheval.evaluate` gives but the p-values (aliases too, which
        name its columns). One with no closed-form interval under
        ``ci_method="wilson_delta"`` (mcc of three classes, macro_f1, ...) gets
        the bootstrap's standard error, and the interval evaluate gives it:
        binary f1, jaccard and mcc their closed forms, the others the smoothed
        percentile bootstrap. The unbounded ratios ``odds_ratio``, ``lr_plus``
        and ``lr_minus`` keep that interval, but their tests, best set and rank
        intervals read the log of each table plus a half in each cell, with its
        delta-method standard error (Woolf's for the odds ratio), whatever
        ``ci_method`` and ``paired`` say (:mod:`batcheval.inference.ratios`):
        on the raw scale the leader's standard error grows with its ratio, and
        a run that got every prediction wrong could be the best. A ratio that
        is undefined (``odds_ratio`` with ``fp·fn = 0``, docs/measures.md) has
        no rank.
    example
        Column(s) identifying a test example across runs: comparisons with
        the leader become paired (see the module docstring). If example ids
        restart in each fold, name both: ``example=["fold", "example_id"]``.
        When a run scores an example once in each of several pooled groups
        (``pool=["seed"]``: seeds or replicates), each example is one cluster
        instead: see ``cluster``. Two rows of one example in the same pooled
        group (or without ``pool=``) are an error, and so are a null id and an
        example whose label differs between runs.
    cluster
        Column(s) grouping examples that are not independent (several
        questions about one passage). With ``cluster=``, or with ``example=``
        repeated within a run, the board is *clustered*: the interval is
        cluster-robust, and ``p_vs_leader`` (and ``p_vs_above``) comes from
        the cluster-robust standard error of the paired difference, the
        runs' per-cluster delta-method score sums subtracted cluster by
        cluster (Miller 2024, arXiv:2411.00640; see
        :mod:`batcheval.inference.clustered`), referred to Student's t with
        ``C − 1`` degrees of freedom for the ``C`` clusters of the two runs;
        ``p_informedness`` and ``p_markedness`` are the clustered chance tests
        (:func:`batcheval.inference.clustered.clustered_chance`). A clustered board has the
        columns of an unpaired one (no McNemar test, which needs one row per
        example) and needs ``ci_method="wilson_delta"``. Its best set reads
        each run's cluster-robust variance, at least the least-favourable one
        of its rows divided by
        :func:`batcheval.inference.clustered.repeated_rows`.
    ci
        Level of the intervals, of the best set and of the rank intervals
        (their family-wise error is ``1 − ci``); strictly between 0 and 1.
    ci_method
        ``"wilson_delta"`` or ``"bootstrap"`` for the measure's interval (and
        for the unpaired standard errors).
    significance
        The chance test reported as ``p_<significance>``: ``informedness``
        (default; the calibrated two-sided test of informedness = 0 given the
        margins; docs/references.md), ``markedness``, ``fisher``, or any of the χ²
        statistics (Powers 2011). ``chi2_kb``, ``chi2_km`` and ``chi2_kbm`` are the paper's
        conservative figures, not calibrated tests (docs/calibration_chance.md).
    n_boot, seed
        Bootstrap replicates (paired comparisons, and intervals with
        ``ci_method="bootstrap"``) and their seed; the default seed 0 makes
        the board reproducible: the same for the rows in any order and for example
        ids with gaps between them (the draws follow the runs' and examples' sorted
        order, so renaming runs or renumbering examples draws anew). One limit still
        reads the ids' span: a board too sparse for the runs × examples cells holds
        each compared run's prediction per id of the span, at most 2³⁰ of them.
        200 plain replicates estimate a standard error to about 5%; raise
        ``n_boot`` to 1000 or more for percentile intervals. A binary paired
        comparison draws replicates only until
        its standard error is as precise as ``n_boot`` plain replicates
        would make it: about 8 for a run of 1,000 examples.
    paired
        How ``p_vs_leader`` is found with ``example=``: ``"bootstrap"`` (the
        paired bootstrap above) or ``"delta"``, the delta-method standard
        error of the same difference on the joint table, ``var = (Σ π G² −
        (Σ π G)²)/n`` with ``G[y, l, p] = g_run[y, p] − g_leader[y, l]`` (the
        two measures' gradients, see :func:`batcheval.inference.intervals.delta_gradient`).
        It is the bootstrap's large-sample limit at no resampling cost.
        (For 100k binary runs of 1,000 examples the bootstrap adds about
        0.1 s on two cores to ``"delta"``'s time.)
    adjacent
        Also compare each run with the run ranked just above it:
        ``diff_vs_above`` and ``p_vs_above`` (NaN for the leader), tested as
        the leader comparison is — paired with ``example=`` (which also
        adds the exact McNemar ``p_mcnemar_vs_above``), unpaired without.
        Not corrected for multiplicity: each answers whether two neighbours
        on the board can be told apart. A paired adjacent test
        holds every run's prediction for every example (runs × examples
        bytes), which a dense board holds anyway.
    classes, positive
        The class set and the positive class, as in :func:`batcheval.evaluate`.
        With more than two classes, ``positive`` ranks the runs on that class
        against the rest: each example's label and prediction are read as
        whether they are ``positive``, and the measure, its interval, the
        tests (McNemar's of correctness at telling that class from the rest)
        and the best set are those of the 2×2 tables, where binary measures
        such as ``recall`` apply; a ``positive`` that is not a class is an
        :class:`~batcheval.errors.InvalidLabelError`, as in evaluate.
        Without ``classes=`` the board's classes are every label and every
        prediction of every run: one run that predicts a class no label has
        makes the whole board multiclass, and every run's interval and tests
        are then those of that many classes (the values of informedness and
        the other chance-corrected measures do not change). Map such
        predictions first (or give ``classes=``, which names them as an error)
        to keep a binary board.
        A board whose labels and predictions hold one class and no ``classes=``
        is ranked over that class and an absent one (``positive`` if it names
        another, the other category of a two-category ``Enum``, the other of 0
        and 1, ``c − 1`` for an integer ``c ≥ 1`` and ``c + 1`` below, or
        ``"not <c>"``), with a warning: every run is right on every example,
        and all tie.
    drop_nulls
        Skip rows with a null label or prediction instead of raising; a
        :class:`~batcheval.errors.BatchevalWarning` reports how many (as in
        :func:`batcheval.evaluate`).
    higher_is_better
        Whether the best run has the highest value of ``measure``. By default
        the measure's own direction: ``fallout``, ``miss_rate``, ``lr_minus``
        and ``conditional_entropy`` (and their aliases, ``fpr``, ``fnr``, ...)
        rank lowest first (:data:`batcheval.measures.LOWER_IS_BETTER`), every
        other measure highest first. The leader, the best set, ``p_best`` and
        the rank intervals follow it; ``diff_vs_leader`` stays signed as the run's
        value minus the leader's, and the two-sided p-values do not depend on it. A
        board ranked lowest first is the board of the measure's negative
        (of ``inverse_recall`` for ``fallout``): the same sets and p-values.

    Returns
    -------
    polars.DataFrame
        One row per run, best first (``higher_is_better``): the run keys, ``rank`` (ties share the
        best rank; null where the measure is undefined, those runs last; of runs tied for the top,
        the first in the order of their keys is the leader that ``diff_vs_leader`` and
        ``p_vs_leader`` compare with, and runs tied in value are listed, and ``adjacent=True``
        compares them, in the order of their keys),
        ``n``, the measure with ``<measure>_ci_low`` and ``<measure>_ci_high``,
        ``p_<significance>``, ``diff_vs_leader``,
        ``p_vs_leader``, ``p_vs_leader_holm``, ``tied_with_leader`` (alias
        of ``could_be_best``), ``could_be_best`` (null where the measure is
        undefined), ``p_best``,
        ``rank_ci_low`` and ``rank_ci_high`` (null where the measure is undefined:
        such a run is not ranked, and the other runs' intervals count the ranked
        runs only; a run whose measure is defined but has no spread of its own
        could rank anywhere, and every other run's interval reaches one place
        lower for each such run; all null, with a warning, on boards over 5,000 runs, on
        paired boards of more than :data:`MAX_RANKED_CLASSES` classes, and on paired boards of
        a measure with no delta-method influence per example, such as ``f1``, ``jaccard`` or
        ``macro_f1``, whose runs are compared with the leader only; the warning names the
        measures that have one), and with
        ``example=`` also ``n_paired``,
        ``n_leader_only``, ``n_run_only`` and ``p_mcnemar`` (NaN, as
        ``p_vs_leader``, for a run that shares no example with the leader); with
        ``adjacent=True`` also ``diff_vs_above`` and ``p_vs_above`` (and
        with both, ``p_mcnemar_vs_above``). On a paired board ``diff_vs_leader``
        and ``diff_vs_above`` are the differences on the ``n_paired`` examples the
        two runs share, the estimates their p-values test: the runs' values minus
        each other where they score the same examples, and possibly of the other
        sign where they do not (``n_leader_only`` or ``n_run_only`` above 0).
        Rows whose run key is null form one run of their own, as in
        :func:`batcheval.evaluate`.

        A run whose measure is defined but has no spread of its own (a
        constant run's markedness or correlation, 0 by convention) cannot be
        tested by the max statistic. On a paired board it stays in the best
        set, ``p_best`` 1, unless its own ``p_vs_leader`` rejects at
        Bonferroni's level over the other ``R − 1`` runs,
        ``(R − 1)·p_vs_leader ≤ 1 − ci``; its ``p_best`` is then
        ``min(1, (R − 1)·p_vs_leader)``, never below ``2^-d`` for its ``d``
        examples predicted differently from the leader
        (:func:`batcheval.inference.selection.exclude_loose`). On unpaired and
        clustered boards its variance is at least its floor (the least
        favourable one within its rates' Wilson intervals, and that of its
        table plus one in each cell) or the bootstrap's, so it is tested as
        any other run and leaves the set where that test says so; only a
        clustered run in fewer than two clusters, whose spread is undefined,
        stays with ``p_best`` 1.

    Examples
    --------
    Three runs score the same 400 test examples; run "b" is a little worse
    than "a", run "c" much worse:

    >>> import numpy as np
    >>> import polars as pl
    >>> import batcheval as be
    >>> rng = np.random.default_rng(0)
    >>> label = rng.integers(0, 2, 400)
    >>> def predict(skill):  # informed with probability skill, else a coin flip
    ...     return np.where(rng.random(400) < skill, label, rng.integers(0, 2, 400))
    >>> df = pl.concat([
    ...     pl.DataFrame({"run": r, "example_id": np.arange(400), "label": label, "prediction": predict(s)})
    ...     for r, s in [("a", 0.8), ("b", 0.75), ("c", 0.3)]
    ... ])
    >>> board = be.leaderboard(df, run="run", example="example_id")
    >>> board.select("run", "rank", "could_be_best", "rank_ci_low", "rank_ci_high").rows()
    [('a', 1, True, 1, 2), ('b', 2, True, 1, 2), ('c', 3, False, 3, 3)]
    """
    positive = as_one_value(positive, "positive=")
    if isinstance(data, ContingencyTable):
        # a board reads each example's outcome (paired tests, the best set's bootstrap), which the
        # counts have summed away; the message for other objects spoke of lists of labels
        raise InvalidArgumentError(
            f"leaderboard ranks runs from their rows, got {data!r}; a table is measured by "
            "table.measures([...])"
        )
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    adjacent = as_flag(adjacent, "adjacent=")  # any truthy value ("no") added the columns
    n_boot = _intervals.check_options(ci, ci_method, n_boot, seed)
    ci = float(ci)  # checked: a Fraction, kept, reached the metadata, whose forest plot raised TypeError
    if paired not in ("bootstrap", "delta"):
        raise InvalidArgumentError(f"unknown paired method {paired!r}; use 'bootstrap' or 'delta'")
    if not isinstance(measure, str):
        raise InvalidArgumentError(f"measure= takes one measure name, got {measure!r}")
    asked, measure = measure, _names.canonical(measure)
    # the board ranks, compares and selects on sign · measure: its best run is the highest there
    sign = 1.0 if as_flag(_names.higher_is_better(measure, higher_is_better), "higher_is_better=") else -1.0
    pools = as_key_list(pool, "pool")
    # pooled keys may be named in run too, as evaluate takes them in by
    runs = [c for c in as_key_list(run, "run") if c not in pools]
    if not runs:
        raise InvalidArgumentError(f"run must name at least one column besides pool={pools}, got {run!r}")
    examples = as_key_list(example, "example")
    clusters = as_key_list(cluster, "cluster")
    # a run or pooled key, or an example id, that is also the label or the prediction makes every
    # run look perfect (or constant): one column in two such roles is refused as evaluate refuses it
    check_roles([*runs, *pools], label, prediction)
    for c, role in [*((c, "example") for c in examples), *((c, "cluster") for c in clusters)]:
        check_roles([], c, label, prediction, roles=(role, "label", "prediction"))
    units, what = (clusters, "cluster") if clusters else (examples, "example")
    if units and set(units) <= set(runs):
        # each run then holds one cluster: every interval, p-value and test NaN, every run in the
        # best set, without a word (evaluate refuses the same)
        given = cluster if clusters else example
        raise InvalidArgumentError(
            f"{what}={given!r} names only keys of run={run!r}, so each run holds one {what}; name the "
            f"column that identifies the {what}s within a run"
        )
    if examples and set(runs) <= set(examples):
        # an example of one run is then no example of another: no pair to compare (a part of the
        # run keys is fine: run=["model", "seed"], example=["seed", "id"] pairs the models of a seed)
        raise InvalidArgumentError(
            f"example={example!r} includes every run key {runs}, so no example is shared by two runs "
            "and none can be paired; name the columns that identify an example across runs"
        )
    p_name = _significance_name(significance)
    outputs = ["rank", *_board_columns(measure, p_name, examples, adjacent)]
    check_free_names(runs, [*outputs, *_board_columns(asked, p_name, examples, adjacent)], "the board")
    roles = {
        **{c: "pool" for c in pools}, **{c: "cluster" for c in clusters}, **{c: "example" for c in examples},
        **{c: "run" for c in runs},
        label: "label", prediction: "prediction",
    }  # fmt: skip
    columns = [*runs, *pools, *examples, *clusters, label, prediction]
    # the same column in two roles (e.g. fold as pool and as part of the example) is fine
    df = select_columns(data, list(dict.fromkeys(columns)), roles)
    if drop_nulls:
        df = drop_null_rows(df, label, prediction)
    if df.height == 0:
        # nothing to rank: the columns and metadata a board of these arguments has, no rows. The
        # classes are those named (two without classes=), which decide the tests' ci_method. The
        # empty board named its columns fallout* where fpr= was asked, and had no metadata
        # refuses what a board with rows of these classes refuses
        paired_rows = bool(examples) and not clusters
        k = 2 if classes is None or positive is not None else max(len(classes), 2)
        _, method = _tests_of(measure, asked, significance, p_name, k, ci_method, bool(clusters))
        board = _empty_board(df.select(runs), measure, p_name, paired_rows, adjacent)
        return _as_asked(board, measure, asked, ci, method, paired if paired_rows else None, sign)
    cells = None
    if examples:
        # a null id paired every null row as one example, as evaluate(example=) refuses to
        _clustered.check_cluster_columns(df, examples, [])
    try:
        table, pairing = _cmp.count_board(df, runs, [] if clusters else examples, label, prediction, classes)
    except _cmp.RepeatedExampleError:
        # an example seen again in another pooled group (a seed, a replicate) is one cluster;
        # a repeat within one group means the ids do not identify examples
        # a column may be both pooled and part of the example (fold in pool= and example=): once
        keys = list(dict.fromkeys(runs + pools + examples))
        if not pools or df.select(pl.struct(keys).is_duplicated().any()).item():
            raise
        table, pairing = _cmp.count_board(df, runs, [], label, prediction, classes)
        clusters = examples
    # after the ids are known to identify examples (within a pooled group); a dense board reads
    # the runs × examples cells it just filled (where polars' group-by over the 100M rows of
    # benchmarks/bench_leaderboard.py took 0.5 s), and names the examples only when one differs
    if examples and (not isinstance(pairing, _cmp.Cells) or pairing.labels_differ()):
        _check_labels_agree(df, examples, label, [p for p in pools if p not in examples])
    if table.n_classes == 1 and classes is None:
        # one class seen is not one class meant: the board over it and a class no row holds is
        # defined (every run right on every example, all tied; NaN where a measure needs the
        # absent class), and only the user can name the real other class (or the positive one)
        seen = table.classes.item()
        absent = _absent_class(table.classes, df.schema[label], positive)
        if absent is not None:
            warn(
                f"every label and prediction is {seen!r}, one class: the runs are ranked over it and "
                f"an absent class {absent!r}, so each is right on every example and all tie; pass "
                "classes= with the full class set (e.g. classes=[0, 1]) to name the other class"
            )
            return leaderboard(
                df, run, label, prediction, pool=pool, measure=asked, example=example, cluster=cluster,
                ci=ci, ci_method=ci_method, significance=significance, n_boot=n_boot, seed=seed,
                paired=paired, adjacent=adjacent, classes=sorted([seen, absent]),
                positive=seen if positive is None and isinstance(seen, str) else positive,
                higher_is_better=sign > 0,
            )  # fmt: skip
    if table.n_classes > 2 and positive is not None:
        # as evaluate: class `positive` against the rest (its binary measures), every example's
        # label and prediction read as whether it is that class, so the paired and clustered
        # comparisons are of the same 2×2 tables; positive= was ignored with more than two classes
        table.versus_rest(positive)  # an InvalidLabelError, as evaluate's, for a class not on the board
        return leaderboard(
            df.with_columns(pl.col(label) == positive, pl.col(prediction) == positive),
            run, label, prediction, pool=pool, measure=asked, example=example, cluster=cluster,
            ci=ci, ci_method=ci_method, significance=significance, n_boot=n_boot, seed=seed,
            paired=paired, adjacent=adjacent, classes=[False, True], positive=True,
            higher_is_better=sign > 0,
        )  # fmt: skip
    if clusters:
        if ci_method != "wilson_delta":
            raise InvalidArgumentError(
                "a clustered board (cluster=, or example= repeated within a run) needs "
                f"ci_method='wilson_delta', got {ci_method!r}"
            )
        _clustered.check_cluster_columns(df, examples, clusters)
        # the example ids inside clusters count the repeats of an example's rows (seeds that copy them)
        cells = _clustered.cluster_cells(df, runs, clusters, label, prediction, table, examples)
        _clustered.warn_one_cluster(cells, cluster, example)
        examples = []  # a clustered board is compared through its clusters, not row pairs
    elif pools and not examples:
        _clustered.warn_independent_rows(pools)
    k = table.n_classes
    if k < 2:
        raise InvalidArgumentError(
            f"a leaderboard needs at least 2 classes, got {table.classes.to_list()}: every label and "
            "prediction holds that one; pass classes= with the full class set (e.g. classes=[0, 1]) "
            "to rank runs on a test set of one class"
        )
    # the interval column is evaluate's (default_intervals): the plain bootstrap, which the
    # comparisons below take where there is no closed form, gave a perfect run's f1 [1, 1]
    interval_method = ci_method
    tested, ci_method = _tests_of(measure, asked, significance, p_name, k, ci_method, cells is not None)
    pos = table.positive_index(positive) if k == 2 else 1
    counts = np.asarray(table.counts)
    held = held_classes(counts)
    if cells is None:
        # the measure, its chance test and a closed-form interval depend on the table alone, and
        # runs scored on one test set repeat tables (57 % distinct among the benchmark's 100k
        # runs): each is worked out once
        distinct, inverse = _distinct_tables(counts)
        once = _measures.compute(distinct, [measure, p_name], positive=pos)
        point = {name: values[inverse] for name, values in once.items()}
    else:
        point = _measures.compute(counts, [measure, p_name], positive=pos)
        if p_name in _clustered.CLUSTERED_CHANCE:  # count clusters, not rows
            point[p_name] = _clustered.clustered_chance(counts, cells)[p_name]
    value = point[measure]
    if cells is None:
        # a closed form depends on the table alone (each distinct one is worked out once); the
        # bootstrap seeds each table by its position: no sharing
        shared = not _intervals.resampled(measure, k, interval_method)
        low, high = _intervals.default_intervals(
            distinct if shared else counts,
            [measure],
            ci,
            interval_method,
            n_boot=n_boot,
            seed=seed,
            positive=pos,
        )[measure]
        if shared:
            low, high = low[inverse], high[inverse]
    else:
        # a binary macro_informedness, weighted_recall, ... is its equivalent on every table: so is
        # its interval, which clustered_intervals gives under the equivalent's name only
        low, high = _clustered.clustered_intervals(counts, cells, [tested], ci, positive=pos)[tested]
    low, high = _intervals.hold_estimate(measure, value, low, high)

    order = np.lexsort((np.arange(len(value)), -np.nan_to_num(sign * value, nan=-np.inf)))
    leader = int(order[0])
    ranked = value[order]
    # competition ranking: a run tied in value with the one above shares its rank
    same = np.concatenate(([False], ranked[1:] == ranked[:-1]))
    rank = np.arange(1, len(order) + 1)
    rank = np.maximum.accumulate(np.where(same, 0, rank))

    cols: dict[str, Any] = {
        "n": counts.sum(axis=(1, 2)),
        measure: value,
        f"{measure}_ci_low": low,
        f"{measure}_ci_high": high,
        p_name: point[p_name],
    }
    above = np.full(len(value), -1, dtype=np.int64)  # the run ranked just above each run
    above[order[1:]] = order[:-1]
    if examples:
        if (
            paired == "delta"
            and tested not in _intervals.interval_measures(k, "wilson_delta")
            and not _ratios.is_ratio(tested, k)
        ):
            raise UnknownMeasureError(
                f"paired='delta' needs a measure with a delta-method gradient, not {measure!r}"
            )
        assert pairing is not None
        lead = np.full(len(value), leader)
        joint_above = None
        if adjacent and isinstance(pairing, _cmp.Cells):  # both references in one pass over the cells
            joint, joint_above = pairing.joints(lead, above)
        else:
            joint = pairing.joint(lead)
        # a sign-flip measure's p-values and best set read no standard error
        cols.update(_cmp.paired_columns(joint, tested, pos, n_boot, seed, paired, with_se=False))
        chosen = _paired_selection(
            pairing, counts, value, cols, leader, tested, k, held, pos, ci, seed, joint, sign
        )
        chosen = _selection.exclude_loose(chosen, sign * value, cols["p_vs_leader"], ci)
        chosen = _selection.floor_p_best(chosen, _paired_se.swap_floor(joint), ci)
        if adjacent:
            joint = pairing.joint(above) if joint_above is None else joint_above
            vs = _cmp.paired_columns(joint, tested, pos, n_boot, seed, paired, with_se=False)
            cols["diff_vs_above"], cols["p_vs_above"] = vs["diff_vs_leader"], vs["p_vs_leader"]
            cols["p_mcnemar_vs_above"] = vs["p_mcnemar"]
    elif cells is not None:
        for name, ref in (("leader", np.full(len(value), leader)), ("above", above))[: 1 + adjacent]:
            se = _clustered.paired_cluster_se(counts, cells, tested, ref, positive=pos)
            diff = value - value[np.maximum(ref, 0)]
            # few clusters: Student's t with C − 1 degrees of freedom (Cameron & Miller 2015, §VI)
            p_t = _clustered.cluster_t_p(diff, se, _clustered.paired_cluster_count(cells, ref))
            cols[f"diff_vs_{name}"], cols[f"p_vs_{name}"] = diff, p_t
        # each run's cluster-robust spread, read as if the runs were independent: runs scored on
        # the same examples are positively correlated, so the set errs on the large side
        run_se = np.sqrt(_clustered.cluster_variance(counts, cells, tested, positive=pos))
        # the floor counts examples, not rows: a run's seeds may repeat its errors, and then a
        # floor read at the pooled rows lost a truly best run in up to 0.90 of boards (Stop 39)
        # of one copy where every row of a run repeats r times (identical seeds pooled): read at
        # the copies, the board's repeaters (repeated_rows) found r times the design effect with
        # the same degrees of freedom, and p_best moved on 11 of 80 small boards with two copies
        one, one_cells = _clustered.one_copy(counts, cells)
        repeats = _clustered.repeated_rows(one, one_cells)
        floor = _unpaired_floor(one, tested, pos, ci, repeats)
        if floor is not None:
            # a run in fewer than 2 clusters is one independent unit, whose spread (NaN, as its
            # interval) no floor can stand for: the floor alone excluded a run of one cluster
            # (p_best 0.01) where its p_vs_leader was NaN. It stays in the best set and could rank
            # anywhere, as every run whose spread is undefined (selection._select)
            floor = np.where(cells.sizes(len(value)) < 2, np.nan, floor)
        chosen = _selection.unpaired(sign * value, run_se, ci, seed, floor)
    else:
        se = _cmp.unpaired_se(counts, tested, ci_method, n_boot, seed, pos)
        centre = _cmp.unpaired_centre(counts, tested, ci_method, value, pos)
        lead = np.full(len(value), leader)
        cols.update(_cmp.unpaired_versus(counts, tested, ci_method, pos, value, se, lead, "leader", centre))
        chosen = _selection.unpaired(
            # a ratio measure is selected on the log scale, as it is compared (inference/ratios.py)
            sign * (centre if _ratios.is_ratio(tested, k) else value),
            se, ci, seed, _unpaired_floor(counts, tested, pos, ci),
            # the Student-t correction: of every pair up to RANK_LIMIT runs, of each run's largest gap above
            _floors.class_parts(counts, tested, pos),
            # a modest board's critical values: the studentized bootstrap of its tables, up to
            # MAX_RANKED_CLASSES classes (with more it lost a truly best run in up to 0.235 of boards)
            _bootstrap.Tables(counts, tested, pos, sign=sign)
            if held <= MAX_RANKED_CLASSES and _bootstrap.bootstrap_fits(len(value), 1, k)
            else None,
        )  # fmt: skip
        if adjacent:
            vs = _cmp.unpaired_versus(counts, tested, ci_method, pos, value, se, above, "above", centre)
            cols.update(vs)
    if adjacent:
        cols["diff_vs_above"][leader] = np.nan
        cols["p_vs_above"][leader] = np.nan
        if examples:
            cols["p_mcnemar_vs_above"][leader] = np.nan
    p = cols["p_vs_leader"]
    p[leader] = np.nan
    if examples:
        cols["p_mcnemar"][leader] = np.nan
    cols["diff_vs_leader"][leader] = 0.0
    cols["p_vs_leader_holm"] = adjust(p, "holm")
    cols["could_be_best"] = chosen.could_be_best
    cols["tied_with_leader"] = chosen.could_be_best  # the documented alias
    cols["p_best"] = chosen.p_best
    cols["rank_ci_low"], cols["rank_ci_high"] = chosen.rank_ci_low, chosen.rank_ci_high
    if chosen.rank_method == "none" and chosen.best_method != "none":  # ran, but without ranks
        if len(value) > _selection.RANK_LIMIT:
            why = f"the board has {len(value):,} runs, over the limit of {_selection.RANK_LIMIT:,}"
        elif held > MAX_RANKED_CLASSES:
            why = (
                f"its paired runs were compared with the leader only: every pair's comparison holds its "
                f"level up to {MAX_RANKED_CLASSES} classes, and this board has {held} classes holding "
                "examples (docs/calibration_leader.md, Stop 51)"
            )
        elif not (_ratios.is_ratio(tested, k) or tested in _intervals.interval_measures(k, "wilson_delta")):
            why = (
                f"its paired runs were compared with the leader only: {asked!r} has no delta-method "
                "influence per example to rank every pair; measures with one: "
                f"{_intervals.interval_measures(k, 'wilson_delta')}"
            )
        else:
            why = (
                "its paired runs were compared with the leader only (a board too large or sparse "
                "for the joint influence matrix)"
            )
        warn(f"rank_ci_low and rank_ci_high are null: {why}")

    # a run whose measure is undefined has no place in the order (NaN ties with nothing)
    series = [pl.Series("rank", rank, dtype=pl.Int64).scatter(np.flatnonzero(np.isnan(ranked)), None)]
    names = _board_columns(measure, p_name, examples, adjacent)
    series += [_board_series(name, np.take(cols[name], order)) for name in names]  # take: 2-6x faster
    board = table.keys[order].hstack(series)
    return _as_asked(board, measure, asked, ci, ci_method, paired if examples else None, sign)


def _tests_of(
    measure: str, asked: str, significance: str, p_name: str, k: int, ci_method: str, clustered: bool
) -> tuple[str, str]:
    """The name a board of ``k`` classes tests ``measure`` by, and the ``ci_method`` of its tests,
    refusing a ``significance`` without a p-value for ``k`` classes and a measure the board cannot
    rank runs by: one with no interval, or (``clustered``) whose tested equivalent has no
    cluster-robust comparison.

    On binary boards ``mcc`` is compared as correlation, which it equals on every table
    (``measures.BINARY_EQUIVALENT``), and the measure's own value and interval fill its columns:
    mcc went to the leader-only best set, its paired standard error to the multinomial bootstrap,
    and ``paired="delta"`` refused it. A measure with no closed form (f1, mcc of K > 2, macro_f1,
    ...) is tested through the bootstrap's interval.

    Examples
    --------
    >>> _tests_of("mcc", "mcc", "informedness", "p_informedness", 2, "wilson_delta", False)
    ('correlation', 'wilson_delta')
    >>> _tests_of("f1", "f1", "informedness", "p_informedness", 2, "wilson_delta", False)
    ('f1', 'bootstrap')
    >>> _tests_of("weighted_recall", "weighted_recall", "informedness", "p_informedness", 2, "wilson_delta",
    ...           True)
    ('accuracy', 'wilson_delta')
    """
    if p_name not in (_measures.BINARY_MEASURES if k == 2 else _measures.MULTICLASS_MEASURES):
        raise UnknownMeasureError(f"significance={significance!r} has no p-value for {k} classes")
    tested = _measures.equivalent(measure, k)
    capable = _intervals.interval_measures(k, ci_method)
    if measure not in capable:
        bootstrap_capable = _intervals.interval_measures(k, "bootstrap")
        if measure not in bootstrap_capable:
            raise UnknownMeasureError(
                f"measure {measure!r} cannot rank runs: it has no interval for {k} classes; "
                f"measures with one: {bootstrap_capable}"
            )
    if clustered and tested not in _intervals.interval_measures(k, "wilson_delta"):
        # the clustered board's tests read the measure's delta-method gradient, and their level
        # is shown for these measures only (docs/calibration_cluster.md)
        raise UnknownMeasureError(
            f"measure {asked!r} cannot rank runs whose examples repeat or come in clusters: it has no "
            f"cluster-robust comparison for {k} classes; measures with one: "
            f"{_intervals.interval_measures(k, 'wilson_delta')}"
        )
    return tested, ci_method if tested in capable else "bootstrap"


def _as_asked(
    board: pl.DataFrame, measure: str, asked: str, ci: float, ci_method: str, paired: str | None, sign: float
) -> pl.DataFrame:
    """The board with the measure's columns named as ``asked`` (an alias names them) and the
    metadata the forest plot states (an attribute of the frame, as evaluate's metadata): with
    rows or without."""
    board = _names.rename_columns(board, {measure: asked}) if asked != measure else board
    board.metadata = {  # type: ignore[attr-defined]
        "ci": ci,
        "ci_method": ci_method,
        "paired": paired,
        "higher_is_better": sign > 0,
    }
    return board


def _absent_class(classes: pl.Series, dtype: pl.DataType, positive: Any = None) -> Any:
    """A value of the type of the one class a board holds that is not that class, to rank over
    it and an absent one: ``positive`` where it names another class of the same kind; the other
    category of a two-category ``Enum``; for a 0/1 or boolean label, the other; for an integer
    ``c ≥ 1``, ``c − 1`` (``c + 1`` below), so that as with both classes present the greater is
    the positive one (a board of 1s only is one of positives); ``"not <c>"`` for a string; None
    otherwise. A ``positive`` of another kind than the class is an error, as on any board.

    Examples
    --------
    >>> [_absent_class(pl.Series([v]), pl.Null) for v in (1, 0, -1, 7, True, "spam", 1.5)]
    [0, 1, 0, 6, False, 'not spam', None]
    >>> _absent_class(pl.Series(["spam"]), pl.Enum(["ham", "spam"]))
    'ham'
    """
    seen = classes.item()
    if positive is not None and positive != seen:
        if label_kind(pl.Series("positive", [positive]), "positive") != label_kind(classes, "label"):
            raise InvalidLabelError(
                f"positive={positive!r} is not one of the classes [{seen!r}] nor of their type "
                f"({type(seen).__name__})"
            )
        return positive
    if isinstance(dtype, pl.Enum) and len(dtype.categories) == 2:
        return next(c for c in dtype.categories.to_list() if c != seen)
    if isinstance(seen, bool):
        return not seen
    if isinstance(seen, int):
        return seen - 1 if seen >= 1 else seen + 1
    if isinstance(seen, str):
        return f"not {seen}"
    return None


def _distinct_tables(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct tables of ``counts[G, K, K]`` and, per table, its row among them
    (``distinct[inverse]`` is ``counts``). Tables whose cells pack into one int64 key
    are sorted by it; others are returned as they are (``inverse`` the identity).

    Examples
    --------
    >>> counts = np.array([[[5, 1], [2, 7]], [[3, 3], [3, 3]], [[5, 1], [2, 7]]])
    >>> distinct, inverse = _distinct_tables(counts)
    >>> len(distinct), bool(np.array_equal(distinct[inverse], counts))
    (2, True)
    """
    g = counts.shape[0]
    flat = counts.reshape(g, -1)
    if g < 2:
        return counts, np.arange(g)
    if flat.shape[1] <= 64:
        # column by column: numpy's reduction over the short axis of [G, K·K] took 4x as long
        lo = np.array([flat[:, j].min() for j in range(flat.shape[1])])
        hi = np.array([flat[:, j].max() for j in range(flat.shape[1])])
    else:  # a Python call per cell was 40 s of a two-run board of 3,000 classes
        lo, hi = flat.min(axis=0), flat.max(axis=0)
    varies = hi > lo
    if np.count_nonzero(varies) > 62:  # a bit at least for each cell that varies
        return counts, np.arange(g)
    cells = np.flatnonzero(varies)  # a cell equal in every table adds nothing to the key
    span = (hi[cells] - lo[cells] + 1).tolist()
    bits = sum(max(int(w - 1).bit_length(), 0) for w in span)
    if bits > 62:
        return counts, np.arange(g)
    key = np.zeros(g, dtype=np.int64)
    # mixed radix: cell j's offset times the product of the ones after
    for j, w in zip(cells, span, strict=True):
        key = key * np.int64(w) + (flat[:, j] - lo[j])
    # np.unique's return_index sorts stably (12 ms for 100k keys); any table of a key will
    # do, so an unstable sort finds the same distinct tables in the same order (3 ms)
    order = np.argsort(key)
    ranked = key[order]
    new = np.empty(g, dtype=np.bool_)
    new[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    inverse = np.empty(g, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return np.take(counts, order[new], axis=0), inverse  # take: 6x faster than fancy indexing here


def _check_labels_agree(df: pl.DataFrame, examples: list[str], label: str, pools: list[str]) -> None:
    """Raise :class:`InvalidLabelError` for an example whose label differs between runs (or
    pooled groups): the paired tests read one label an example, and a board whose runs were
    scored against different labels was silently compared as if on one test set (two runs of
    equal predictions, ten labels changed in one run's file, showed a difference of 0 and p 1
    next to accuracies of 0.875 and 0.725)."""
    low = unused_name(examples, "__low")
    high = unused_name([*examples, low], "__high")
    # the least and greatest label of each example: a third of the time of counting distinct ones
    bad = (
        df.group_by(examples)
        .agg(pl.col(label).min().alias(low), pl.col(label).max().alias(high))
        .filter(pl.col(low) != pl.col(high))
        .drop(low, high)
        .sort(examples)
    )
    if bad.height:
        ids = bad.to_series().to_list() if len(examples) == 1 else bad.rows(named=True)
        more = f", ... ({bad.height} in all)" if bad.height > 5 else ""
        where = f"runs or pooled groups (pool={pools})" if pools else "runs"
        # ids that restart in each fold look like one example whose label changes between folds
        hint = (
            f"; if example ids restart in each {pools[0]}, name both: example={[pools[0], *examples]}"
            if pools
            else ""
        )
        raise InvalidLabelError(
            f"label column {label!r} differs between {where} for {bad.height} "
            f"example{'s' if bad.height > 1 else ''}: "
            f"{', '.join(repr(x) for x in ids[:5])}{more}; every run must score an example against "
            f"one label{hint}"
        )


def _board_columns(measure: str, p_name: str, paired: Any, adjacent: bool) -> list[str]:
    """The board's columns after the keys and ``rank``, in order."""
    head = ["n", measure, f"{measure}_ci_low", f"{measure}_ci_high", p_name, "diff_vs_leader", "p_vs_leader",
            "p_vs_leader_holm", "tied_with_leader", "could_be_best", "p_best", "rank_ci_low",
            "rank_ci_high"]  # fmt: skip
    tail = ["n_paired", "n_leader_only", "n_run_only", "p_mcnemar"] if paired else []
    tail += ["diff_vs_above", "p_vs_above"] if adjacent else []
    tail += ["p_mcnemar_vs_above"] if adjacent and paired else []
    return head + tail


def _board_series(name: str, values: np.ndarray) -> pl.Series:
    if name in ("tied_with_leader", "could_be_best"):
        if values.dtype == np.bool_:  # not via a list: 1.5 ms each for 100k runs
            return pl.Series(name, values)
        return pl.Series(name, values.tolist(), dtype=pl.Boolean)  # None where undefined
    if name in ("rank_ci_low", "rank_ci_high"):
        return pl.Series(name, values, dtype=pl.Float64).fill_nan(None).cast(pl.Int64)
    if name in ("n", "n_paired", "n_leader_only", "n_run_only"):
        return pl.Series(name, values, dtype=pl.Int64)
    return pl.Series(name, values, dtype=pl.Float64)


def _empty_board(keys: pl.DataFrame, measure: str, p_name: str, paired: bool, adjacent: bool) -> pl.DataFrame:
    """A board of no runs: the columns and types of any other board, no rows (as ``evaluate``)."""
    series = [pl.Series("rank", [], dtype=pl.Int64)]
    series += [_board_series(name, np.empty(0)) for name in _board_columns(measure, p_name, paired, adjacent)]
    return keys.clear().hstack(series)


#: binary measures of the real classes' rates alone: a clustered board may read each class's
#: rows over its own repeats without changing what the measure weighs
_ROW_RATES = frozenset({"recall", "inverse_recall", "fallout", "miss_rate", "informedness"})


def _unpaired_floor(
    counts: np.ndarray, measure: str, pos: int, ci: float, repeats: np.ndarray | None = None
) -> np.ndarray | None:
    """Each unpaired run's variance floor: at its rates' least favourable point within the ``ci``
    Wilson intervals (docs/calibration_leader.md, Stop 38), and at least its table plus one in
    each cell (measures of the predicted classes, whose rates the rows do not move).

    A clustered board's rows count an example once a seed. With ``repeats[G, K]``, how many of
    each real class's rows count as one example (:func:`batcheval.inference.clustered.repeated_rows`,
    at least 1), the intervals and the variance are read at fewer rows: where a run's seeds
    repeat its predictions its rates are known no better than from its distinct examples
    (docs/calibration_leader.md, Stop 39). Binary measures of the rows' rates alone
    (:data:`_ROW_RATES`: informedness, recall, ...) read each class at ``counts/repeats``; a
    rate's variance ``q(1 − q)/m`` at the end ``q`` of its Wilson interval nearest 1/2 grows as
    ``m`` falls. Any other measure weighs the classes by their rows, which dividing them by
    different repeats would change, so it reads the whole table over the run's largest repeat
    (each class's part of the variance grows by at most that), and its table-plus-one floor is
    scaled by it. Either is kept at least the floor read at the rows.

    Examples
    --------
    Recall of three positive rows that are one example scored by three seeds: the floor of one
    example, whose Wilson interval holds 1/2, ``0.5·0.5/1``:

    >>> t = np.array([[[27, 3], [1, 2]]])
    >>> float(_unpaired_floor(t, "recall", 1, 0.95, np.array([[1.0, 3.0]]))[0])
    0.25
    """
    low = _floors.least_favourable_variance(counts, measure, pos, ci)
    smooth = _floors.smoothed_variance(counts, measure, pos)
    if low is None or smooth is None:
        return None
    if repeats is not None:
        largest = repeats.max(axis=1)
        if measure in _ROW_RATES and counts.shape[1] == 2:
            effective = counts / repeats[:, :, None]
        else:
            effective = counts / largest[:, None, None]
            smooth = smooth * largest
        low = np.fmax(low, _floors.least_favourable_variance(effective, measure, pos, ci))
    return np.fmax(low, smooth)


def _paired_selection(
    pairing: Any,
    counts: np.ndarray,
    value: np.ndarray,
    cols: dict[str, Any],
    leader: int,
    measure: str,
    k: int,
    held: int,
    pos: int,
    ci: float,
    seed: int | None,
    joint: np.ndarray,
    sign: float,
) -> _selection.Selection:
    """The best set and rank intervals of a paired board: from every run's
    influence per example when the board is small enough (one-pass and
    two-pass boards alike), else from the comparisons with the leader
    (:mod:`batcheval.inference.selection`). Everything is ranked on ``sign`` times the
    measure (its influence and differences too): a board ranked lowest first is the board
    of the measure's negative."""
    if _ratios.is_ratio(measure, k):
        # on the log scale (batcheval.inference.ratios): from every run's influence per example (each
        # run's log-ratio gradient by cell, its pseudo-counts' part of the variance an error of its
        # own) when the board is small enough, else from each run's comparison with the leader, whose
        # standard error adds both runs' variances in full as other measures' leader-only boards do
        theta = sign * _ratios.log_ratio(counts, measure, pos, value)
        var = _ratios.log_variance(counts, measure, pos)
        if len(value) <= _selection.RANK_LIMIT:
            cells = pairing if isinstance(pairing, _cmp.Cells) else _two_pass_cells(pairing, k)
            scored = None if cells is None else _floors.scored_examples(cells, counts)
            parts = None if cells is None else _floors.influence_cells(cells, counts, measure, pos, scored)
            if parts is not None:
                u = sign * np.take_along_axis(parts.values, parts.codes, axis=1)
                return _selection.paired(theta, u, ci, seed, var, _floors.example_classes(cells, scored))
        diff = theta - theta[leader]
        se = np.sqrt(cols["se_vs_leader"] ** 2 + var + var[leader])
        se[leader] = 0.0
        return _selection.versus_leader(theta, diff, se, ci)
    u = parts = scored = None
    if (
        held <= MAX_RANKED_CLASSES
        and len(value) <= _selection.RANK_LIMIT
        and measure in _intervals.interval_measures(k, "wilson_delta")
    ):
        cells = pairing if isinstance(pairing, _cmp.Cells) else _two_pass_cells(pairing, k)
        if cells is not None:
            # only the examples some run scored: the set does not depend on how they are numbered
            scored = _floors.scored_examples(cells, counts)
            parts = _floors.influence_cells(cells, counts, measure, pos, scored)
            if parts is not None:
                parts = parts._replace(values=sign * parts.values)
                u = np.take_along_axis(parts.values, parts.codes, axis=1)
            pairing = cells
    if u is not None and len(value) <= _selection.RANK_LIMIT:
        floor = _floors.smoothed_variance(counts, measure, pos)
        tables = None
        if _bootstrap.bootstrap_fits(len(value), u.shape[1], k):  # resample the examples jointly
            # the influence's codes, as board_codes gave them (int8, as the bootstrap's kernels take)
            tables = _bootstrap.Tables(counts, measure, pos, parts.codes.astype(np.int8), sign)
        return _selection.paired(
            sign * value, u, ci, seed, floor, _floors.example_classes(pairing, scored), tables, parts
        )
    diff = sign * cols["diff_vs_leader"]
    diff[leader] = 0.0
    # each difference's variance where the pair's joint predictions could be, not only where they
    # fell: runs that err on different classes can agree on every one of ten positives by chance
    # (docs/calibration_leader.md, "two error profiles")
    pair_floor = None  # a function of run indices (all runs without one)
    if measure in _intervals.interval_measures(k, "wilson_delta"):
        values = sign * _floors.cell_values(counts, measure, pos)
        pair_floor = functools.partial(_floors.leader_floor, joint, values, leader, ci)
    if _paired_se.has_sign_flip(measure, counts.shape[1]):
        # p_vs_leader is the sign-flip test, exact under exchangeable runs (or its self-normalized
        # normal tail, bounded by Pinelis's and Hoeffding's): no standard error to collapse where
        # few examples are discordant (docs/calibration_leader.md, Stop 37); the pair's floor
        # covers runs that are not exchangeable
        return _selection.versus_leader_sign_flip(sign * value, diff, cols["p_vs_leader"], ci, pair_floor)
    se = cols["se_vs_leader"].copy()
    floor = _floors.smoothed_variance(counts, measure, pos)
    if floor is not None:
        # both runs' smoothed variances in full: a difference's delta or bootstrap SE collapses where
        # few examples are discordant, and against the largest of thousands of equal estimates at
        # Bonferroni's level over R² pairs that excluded runs under the global null (FWER 0.32-0.95
        # at 6,000 runs of 100 examples). Adding only each run's shortfall below it, as the smaller
        # boards do, still erred in 0.26-0.50 (docs/calibration_leader.md).
        se = np.sqrt(se * se + floor + floor[leader])
    if pair_floor is not None:
        se = np.fmax(se, np.sqrt(pair_floor()))
    se[leader] = 0.0
    return _selection.versus_leader(sign * value, diff, se, ci)


class _HeldCells(NamedTuple):
    """A two-pass board's class pairs per run and example, laid out as
    :class:`~batcheval.inference.comparisons.Cells` lays them out (what
    :func:`batcheval.inference.floors.influence_cells` reads)."""

    cells: np.ndarray
    n_examples: int
    rows: np.ndarray
    k: int
    class_codes: np.ndarray


def _two_pass_cells(pairing: Any, k: int) -> _HeldCells | None:
    """The runs × examples class pairs of a two-pass board, or None when they would
    pass :data:`~batcheval.inference.floors.INFLUENCE_CELLS` or ``k² + 1`` codes
    overflow a byte; the selection columns then match a one-pass board's."""
    rows = pairing.rows
    g, e = len(pairing.table), int(rows.n_examples)
    # a run's rows are at most the examples scored (one row an example, checked by count_board)
    most = int(np.asarray(pairing.table.counts).sum(axis=(1, 2)).max(initial=0))
    if _floors.over_influence(g, most) or not _cmp.paired_cells_fit(k):
        return None
    ex = np.asarray(rows.example).astype(np.int64) - rows.ex_lo
    # only the examples some run scored, in their order, as floors.scored_examples keeps them
    # of a one-pass board's cells: gaps in the ids neither count towards the budget nor draw
    seen = np.zeros(e, dtype=np.bool_)
    seen[ex] = True
    n_seen = int(np.count_nonzero(seen))
    if _floors.over_influence(g, n_seen):
        return None
    if n_seen < e:
        rank = np.cumsum(seen, dtype=np.int32)
        rank -= 1
        ex, e = rank[ex], n_seen
    run = rows.run_lut[np.asarray(rows.run).astype(np.int64) - rows.run_lo]
    real = rows.class_lut[np.asarray(rows.label).astype(np.int64) - rows.class_lo]
    pred = rows.class_lut[np.asarray(rows.pred).astype(np.int64) - rows.class_lo]
    cells = np.zeros(g * e, dtype=np.int8)
    cells[run * e + ex] = real * k + pred + 1
    return _HeldCells(cells, e, np.arange(g), k, np.arange(k))


def _significance_name(significance: str) -> str:
    stats = (
        "informedness", "markedness", "chi2", "g2", "chi2_pos_pred", "chi2_pos_real",
        "chi2_kb", "chi2_km", "chi2_kbm", "fisher",
    )  # fmt: skip
    if significance not in stats:
        raise InvalidArgumentError(f"unknown significance {significance!r}; use one of {list(stats)}")
    return f"p_{significance}"


def is_leaderboard(frame: Any) -> bool:
    """True for a frame from :func:`leaderboard` (what :func:`batcheval.plot` dispatches on)."""
    return isinstance(frame, pl.DataFrame) and {"rank", "tied_with_leader"} <= set(frame.columns)
