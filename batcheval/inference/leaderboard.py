"""Leaderboards with uncertainty: rank runs, and say which are tied with the leader.

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
    - ``p_vs_leader``: the paired bootstrap of the measure difference. Each
      replicate resamples the examples, and measures the run and the leader
      on the same resample. The standard error of the difference is the
      replicates' spread, and ``p = 2·Φ(−|diff|/se)``. A normal p-value
      rather than a percentile one because a percentile p-value cannot fall
      below 1/(n_boot + 1), which a Holm correction over many runs could
      never reject. For binary boards it is a Poisson bootstrap with the
      difference's linear part as a control variate, which needs about 8
      replicates a run where a plain bootstrap needs 200
      (:mod:`batcheval.inference.paired_se`).

Unpaired comparisons (no ``example=``)
    The run and the leader are treated as independent samples:
    ``se = sqrt(se_run² + se_leader²)`` from the delta method (or from the
    bootstrap with ``ci_method="bootstrap"``). Runs scored on the same test
    set are positively correlated, so this overstates the standard error
    and the test is conservative: give ``example=`` when you can.

``tied_with_leader`` is true when the Holm-adjusted ``p_vs_leader`` (over all
runs but the leader) exceeds ``1 − ci``: the board cannot tell that run from
the leader at that family-wise error rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..errors import InvalidArgumentError, UnknownMeasureError
from ..io.frames import as_key_list, select_columns
from ..measures import names as _names
from . import comparisons as _cmp
from . import intervals as _intervals
from .adjust import adjust

__all__ = ["leaderboard"]


def leaderboard(
    data: Any,
    run: str | Sequence[str] = "run",
    label: str = "label",
    prediction: str = "prediction",
    *,
    pool: str | Sequence[str] | None = None,
    measure: str = "informedness",
    example: str | Sequence[str] | None = None,
    ci: float = 0.95,
    ci_method: str = "wilson_delta",
    significance: str = "chi2_kb",
    n_boot: int = 200,
    seed: int | None = 0,
    paired: str = "bootstrap",
    adjacent: bool = False,
    classes: Sequence[Any] | None = None,
    positive: Any = None,
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
        over anyway; naming them checks that they exist. A pooled column may
        be named in ``run`` too (as :func:`batcheval.evaluate` takes it in
        ``by``): ``run=["run", "fold"], pool="fold"`` is ``run="run", pool="fold"``.
    measure
        The ranking measure, highest first: any measure
        :func:`batcheval.evaluate` gives but the p-values (aliases too, which
        name its columns). One with no closed-form interval under
        ``ci_method="wilson_delta"`` (f1, mcc, macro_f1, ...) gets the
        bootstrap's interval and standard error.
    example
        Column(s) identifying a test example across runs: comparisons with
        the leader become paired (see the module docstring). If example ids
        restart in each fold, name both: ``example=["fold", "example_id"]``.
    ci
        Level of the intervals; ``1 − ci`` is the level of the Holm-corrected
        tie test.
    ci_method
        ``"wilson_delta"`` or ``"bootstrap"`` for the measure's interval (and
        for the unpaired standard errors).
    significance
        The statistic whose chance p-value is reported as ``p_<significance>``:
        ``chi2_kb`` (default), any other statistic of the χ² family (Powers 2011), or ``fisher``.
    n_boot, seed
        Bootstrap replicates (paired comparisons, and intervals with
        ``ci_method="bootstrap"``) and their seed; the default seed 0 makes
        the board reproducible. 200 plain replicates estimate a standard
        error to about 5%; raise ``n_boot`` to 1000 or more for percentile
        intervals. A binary paired comparison draws replicates only until
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

    Returns
    -------
    polars.DataFrame
        One row per run, best first: the run keys, ``rank`` (ties share the
        best rank), ``n``, the measure with ``<measure>_ci_low`` and
        ``<measure>_ci_high``, ``p_<significance>``, ``diff_vs_leader``,
        ``p_vs_leader``, ``p_vs_leader_holm`` and ``tied_with_leader`` (true
        for the leader), and with ``example=`` also ``n_paired``,
        ``n_leader_only``, ``n_run_only`` and ``p_mcnemar``; with
        ``adjacent=True`` also ``diff_vs_above`` and ``p_vs_above`` (and
        with both, ``p_mcnemar_vs_above``).

    Examples
    --------
    Three runs score the same 400 test examples; run "b" is a little worse
    than "a", run "c" much worse:

    >>> import numpy as np
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
    >>> board.select("run", "rank", "tied_with_leader").rows()
    [('a', 1, True), ('b', 2, True), ('c', 3, False)]
    """
    _intervals.check_options(ci, ci_method, n_boot, seed)
    if paired not in ("bootstrap", "delta"):
        raise InvalidArgumentError(f"unknown paired method {paired!r}; use 'bootstrap' or 'delta'")
    asked, measure = measure, _names.canonical(measure)
    pools = as_key_list(pool, "pool")
    # pooled keys may be named in run too, as evaluate takes them in by
    runs = [c for c in as_key_list(run, "run") if c not in pools]
    if not runs:
        raise InvalidArgumentError(f"run must name at least one column besides pool={pools}, got {run!r}")
    examples = as_key_list(example, "example")
    p_name = _significance_name(significance)
    roles = {
        **{c: "pool" for c in pools}, **{c: "example" for c in examples}, **{c: "run" for c in runs},
        label: "label", prediction: "prediction",
    }  # fmt: skip
    columns = [*runs, *pools, *examples, label, prediction]
    # the same column in two roles (e.g. fold as pool and as part of the example) is fine
    df = select_columns(data, list(dict.fromkeys(columns)), roles)
    table, pairing = _cmp.count_board(df, runs, examples, label, prediction, classes)
    k = table.n_classes
    if k < 2:
        raise InvalidArgumentError(f"a leaderboard needs at least 2 classes, got {table.classes.to_list()}")
    if p_name not in (_measures.BINARY_MEASURES if k == 2 else _measures.MULTICLASS_MEASURES):
        raise UnknownMeasureError(f"significance={significance!r} has no p-value for {k} classes")
    capable = _intervals.interval_measures(k, ci_method)
    if measure not in capable:
        bootstrap_capable = _intervals.interval_measures(k, "bootstrap")
        if measure not in bootstrap_capable:
            raise UnknownMeasureError(
                f"measure {measure!r} cannot rank runs: it has no interval for {k} classes; "
                f"measures with one: {bootstrap_capable}"
            )
        ci_method = "bootstrap"  # no closed form (f1, mcc, macro_f1, ...): the bootstrap's interval
    pos = table.positive_index(positive) if k == 2 else 1
    counts = np.asarray(table.counts)
    point = _measures.compute(counts, [measure, p_name], positive=pos)
    value = point[measure]
    low, high = _intervals.intervals(
        counts, [measure], ci, ci_method, n_boot=n_boot, seed=seed, positive=pos
    )[measure]

    order = np.lexsort((np.arange(len(value)), -np.nan_to_num(value, nan=-np.inf)))
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
        if paired == "delta" and measure not in _intervals.interval_measures(k, "wilson_delta"):
            raise UnknownMeasureError(
                f"paired='delta' needs a measure with a delta-method gradient, not {measure!r}"
            )
        assert pairing is not None
        joint = pairing.joint(np.full(len(value), leader))
        cols.update(_cmp.paired_columns(joint, measure, pos, n_boot, seed, paired))
        if adjacent:
            joint = pairing.joint(above)
            vs = _cmp.paired_columns(joint, measure, pos, n_boot, seed, paired)
            cols["diff_vs_above"], cols["p_vs_above"] = vs["diff_vs_leader"], vs["p_vs_leader"]
            cols["p_mcnemar_vs_above"] = vs["p_mcnemar"]
    else:
        se = _cmp.unpaired_se(counts, measure, ci_method, n_boot, seed, pos)
        cols.update(_cmp.versus(value, se, np.full(len(value), leader), "leader"))
        if adjacent:
            cols.update(_cmp.versus(value, se, above, "above"))
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
    holm = adjust(p, "holm")
    tied = np.where(np.isnan(holm), None, holm > 1.0 - ci).astype(object)
    tied[leader] = True
    cols["p_vs_leader_holm"] = holm
    cols["tied_with_leader"] = tied

    head = ["n", measure, f"{measure}_ci_low", f"{measure}_ci_high", p_name, "diff_vs_leader", "p_vs_leader",
            "p_vs_leader_holm", "tied_with_leader"]  # fmt: skip
    tail = ["n_paired", "n_leader_only", "n_run_only", "p_mcnemar"] if examples else []
    tail += ["diff_vs_above", "p_vs_above"] if adjacent else []
    tail += ["p_mcnemar_vs_above"] if adjacent and examples else []
    series = [pl.Series("rank", rank, dtype=pl.Int64)]
    for name in head + tail:
        values = cols[name][order]
        if name == "tied_with_leader":
            series.append(pl.Series(name, values.tolist(), dtype=pl.Boolean))
        elif name in ("n", "n_paired", "n_leader_only", "n_run_only"):
            series.append(pl.Series(name, values, dtype=pl.Int64))
        else:
            series.append(pl.Series(name, values, dtype=pl.Float64))
    board = table.keys[order].hstack(series)
    board = _names.rename_columns(board, {measure: asked}) if asked != measure else board
    # what the forest plot states (an attribute of this frame, as evaluate's metadata)
    board.metadata = {"ci": ci, "ci_method": ci_method, "paired": paired if examples else None}  # type: ignore[attr-defined]
    return board


def _significance_name(significance: str) -> str:
    stats = ("chi2", "g2", "chi2_pos_pred", "chi2_pos_real", "chi2_kb", "chi2_km", "chi2_kbm", "fisher")
    if significance not in stats:
        raise InvalidArgumentError(f"unknown significance {significance!r}; use one of {list(stats)}")
    return f"p_{significance}"


def is_leaderboard(frame: Any) -> bool:
    """True for a frame from :func:`leaderboard` (what :func:`batcheval.plot` dispatches on)."""
    return isinstance(frame, pl.DataFrame) and {"rank", "tied_with_leader"} <= set(frame.columns)
