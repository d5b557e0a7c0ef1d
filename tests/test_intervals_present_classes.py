"""The smoothed bootstrap of ``evaluate(ci=)`` (measures with no closed form) smooths each group's
own classes: the table of the classes present in the group (a real example or a prediction) plus
``1/(K(K − 1))`` in each of its cells, K the number of those classes. A class the group never has
gets no pseudo-count, so a group's interval does not depend on the other groups or classes of the
call."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm

import batcheval as be
from batcheval.inference import intervals as iv
from batcheval.measures import BINARY_EQUIVALENT

MEASURES = ["macro_f1", "macro_recall", "mcc"]
ENDS = [f"{m}_ci_{end}" for m in MEASURES for end in ("low", "high")]


def _twenty_classes() -> pl.DataFrame:
    rng = np.random.default_rng(13)
    n = 400
    y = rng.integers(0, 20, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, 20, n))
    return pl.DataFrame({"label": y, "prediction": p})


def _ends(frame: pl.DataFrame, **kwargs) -> tuple:
    out = be.evaluate(frame, measures=MEASURES, ci=0.95, seed=1, **kwargs)
    return out.sort(kwargs["by"]).row(0, named=True) if "by" in kwargs else out.row(0, named=True)


def test_the_interval_does_not_change_with_classes_the_group_never_has():
    """Before: macro_f1 [0.5841, 0.6803] with the table's 20 classes, [0.4828, 0.6704] with
    classes= naming 200 (pseudo-examples in 180 classes the table never has, their f1 0)."""
    df = _twenty_classes()
    alone = _ends(df)
    wide = _ends(df, classes=list(range(200)))
    assert [wide[c] for c in ENDS] == [alone[c] for c in ENDS]
    assert alone["macro_f1_ci_low"] == pytest.approx(0.5841, abs=1e-4)
    assert alone["macro_f1_ci_high"] == pytest.approx(0.6803, abs=1e-4)


def test_a_group_beside_a_group_of_other_classes_gets_its_own_interval():
    """The same group evaluated alone and as the first of two groups, the second over 200 classes."""
    df = _twenty_classes().with_columns(g=pl.lit(0))
    rng = np.random.default_rng(5)
    m = 2000
    big = pl.DataFrame(
        {"label": rng.integers(0, 200, m), "prediction": rng.integers(0, 200, m)}
    ).with_columns(g=pl.lit(1))
    both = pl.concat([df, big.cast(df.schema)])
    alone = _ends(df, by="g")
    beside = _ends(both, by="g")
    assert [beside[c] for c in ENDS] == [alone[c] for c in ENDS]


def _numpy_macro_f1(tables: np.ndarray) -> np.ndarray:
    """macro_f1 of ``tables[B, K, K]``, each class's f1 left out where undefined (scikit-learn's
    zero_division=np.nan)."""
    tp = np.diagonal(tables, axis1=1, axis2=2).astype(float)
    den = tables.sum(axis=1) + tables.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(den > 0, 2 * tp / den, np.nan)
    return np.nanmean(f1, axis=1)


def test_the_interval_is_the_smoothed_bootstrap_of_the_present_sub_table():
    """Plain numpy: resamples of n examples from the 8 present classes' table plus 1/(8·7) in each
    of its 64 cells; the ends agree within Monte-Carlo error (batcheval's 4,000 replicates: the
    ends' standard error is about 0.002). The 12 classes beside them that the group never has
    took pseudo-examples before: [0.383, 0.687] against numpy's [0.520, 0.695] (now [0.522, 0.694])."""
    rng = np.random.default_rng(21)
    n = 120
    y = rng.integers(0, 8, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, 8, n))
    sub = np.zeros((8, 8), dtype=np.int64)
    np.add.at(sub, (y, p), 1)
    assert (sub.sum(axis=0) > 0).all() and (sub.sum(axis=1) > 0).all()
    a = 1 / (8 * 7)
    shares = ((sub + a) / (n + 64 * a)).ravel()
    draws = np.random.default_rng(3).multinomial(n, shares, size=40_000).reshape(-1, 8, 8)
    want = np.percentile(_numpy_macro_f1(draws), [2.5, 97.5])
    counts = np.zeros((1, 20, 20), dtype=np.int64)
    place = np.arange(2, 20, 18 // 8)[:8]  # the group's 8 classes among 20
    counts[0][np.ix_(place, place)] = sub
    low, high = iv.intervals(counts, ["macro_f1"], 0.95, "bootstrap", n_boot=4000, seed=2, pseudo="present")[
        "macro_f1"
    ]
    assert low[0] == pytest.approx(want[0], abs=0.01)
    assert high[0] == pytest.approx(want[1], abs=0.01)
    df = pl.DataFrame({"label": place[y], "prediction": place[p]})
    got = be.evaluate(df, measures=["macro_f1"], classes=list(range(20)), ci=0.95, seed=2, n_boot=4000)
    assert got["macro_f1_ci_low"][0] == pytest.approx(want[0], abs=0.01)
    assert got["macro_f1_ci_high"][0] == pytest.approx(want[1], abs=0.01)


def test_groups_with_every_class_keep_the_smoothing_of_all_k_bit_for_bit():
    """A group using every class of the call is resampled as pseudo=bootstrap_pseudo_count(K)
    resamples it, with the generator of its position, whatever groups with absent classes lie
    between (and with the replicates drawn a chunk at a time)."""
    rng = np.random.default_rng(8)
    counts = rng.integers(0, 6, size=(9, 4, 4)) + np.eye(4, dtype=np.int64)
    counts[[1, 4, 5]] *= np.array([1, 1, 0, 1])[None, :, None] * np.array([1, 1, 0, 1])[None, None, :]
    counts[7] = 0
    counts[7, 3, 3] = 5  # one present class: smoothed as a table of two, its class and an empty one
    names = ["macro_f1", "mcc", "kappa_fleiss"]
    opts = {"n_boot": 300, "seed": 4}
    present = iv.intervals(counts, names, 0.95, "bootstrap", pseudo="present", **opts)
    whole = iv.intervals(counts, names, 0.95, "bootstrap", pseudo=iv.bootstrap_pseudo_count(4), **opts)
    full = np.array([g not in (1, 4, 5, 7) for g in range(9)])
    for m in names:
        for end in (0, 1):
            np.testing.assert_array_equal(present[m][end][full], whole[m][end][full], err_msg=m)
    for g in (1, 4, 5):  # three present classes: as the 3 × 3 table in its place
        cut = np.delete(np.delete(counts, 2, axis=1), 2, axis=2)
        own = iv._bootstrap(cut[g : g + 1], names, 0.95, 300, 4, 1, None, iv.bootstrap_pseudo_count(3),
                            ids=np.array([g]))  # fmt: skip
        for m in names:
            assert (present[m][0][g], present[m][1][g]) == (own[m][0][0], own[m][1][0]), (g, m)
    two = np.array([[[5, 0], [0, 0]]])
    own = iv._bootstrap(two, names, 0.95, 300, 4, 1, None, iv.bootstrap_pseudo_count(2), ids=np.array([7]))
    for m in names:
        assert (present[m][0][7], present[m][1][7]) == (own[m][0][0], own[m][1][0]), m
    small = iv._CHUNK_CELLS
    try:
        iv._CHUNK_CELLS = 64 * (16 + len(names))  # each group past a chunk: drawn in parts
        parted = iv.intervals(counts, names, 0.95, "bootstrap", pseudo="present", **opts)
    finally:
        iv._CHUNK_CELLS = small
    for m in names:
        for end in (0, 1):
            np.testing.assert_array_equal(parted[m][end], present[m][end], err_msg=m)


def test_a_group_of_one_class_is_smoothed_as_one_of_two_in_any_call():
    """A group with one class present is smoothed as a table of two classes, its own and one other,
    as a binary table is (the plain bootstrap would resample only itself): the same interval in a
    call of one class (before: ZeroDivisionError from 1/(K(K − 1))), of two and of five."""
    frame = pl.DataFrame({"label": [0] * 10, "prediction": [0] * 10})
    got = [
        be.evaluate(frame, measures=["macro_f1", "macro_recall"], ci=0.95, seed=1, classes=classes)
        .select("macro_f1_ci_low", "macro_f1_ci_high", "macro_recall_ci_low", "macro_recall_ci_high")
        .row(0)
        for classes in (None, [0, 1], list(range(5)))
    ]
    assert got[0] == got[1] == got[2]
    assert got[0][0] < 1.0 and got[0][1] == 1.0


def test_an_unknown_pseudo_word_is_named():
    with pytest.raises(be.InvalidArgumentError, match=r"pseudo must be .* or 'present', got 'all'"):
        iv.intervals(np.array([[[5, 1], [2, 7]]]), ["macro_f1"], 0.95, "bootstrap", pseudo="all", seed=1)


def _three_class_runs() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    lab = rng.integers(0, 3, 200)
    pred = np.where(rng.random(200) < 0.6, lab, rng.integers(0, 3, 200))
    return pl.DataFrame({"run": np.repeat([0, 1], 100), "label": lab, "prediction": pred})


@pytest.mark.parametrize("method", ["wilson_delta", "bootstrap"])
def test_per_class_bootstrap_intervals_do_not_change_with_the_calls_classes(method: str):
    """per_class with three or more classes resamples each class's one-vs-rest table; its
    generator was numbered by the table's row, g·K + c, so naming a class no row has, or adding a
    group with a fourth class, redrew every group's resamples: run 1's class-0 g_measure interval
    [0.5790, 0.8454] became [0.5636, 0.8352]."""
    df = _three_class_runs()
    kw = {"by": "run", "per_class": True, "measures": ["g_measure"], "ci": 0.95, "seed": 1}
    kw["ci_method"] = method
    seen = be.evaluate(df, **kw)
    named = be.evaluate(df, classes=[0, 1, 2, 3], **kw)
    other = be.evaluate(pl.concat([df, pl.DataFrame({"run": [2], "label": [3], "prediction": [3]})]), **kw)
    ends = ["g_measure_ci_low", "g_measure_ci_high"]
    for got in (named, other):
        for run in (0, 1):
            for cls in (0, 1, 2):
                pick = (pl.col("run") == run) & (pl.col("class") == cls)
                assert got.filter(pick).select(ends).row(0) == seen.filter(pick).select(ends).row(0)


def test_per_class_smoothed_interval_is_the_bootstrap_of_the_one_vs_rest_table():
    """Plain numpy: resamples of run 1's class-0 one-vs-rest table plus 1/2 in each of its four
    cells, g_measure = sqrt(recall · precision); the ends agree within Monte-Carlo error (a run
    beside it with a fourth class, its tables numbered as before)."""
    df = _three_class_runs().filter(pl.col("run") == 1)
    y, p = df["label"].to_numpy() == 0, df["prediction"].to_numpy() == 0
    table = np.array([[np.sum(~y & ~p), np.sum(~y & p)], [np.sum(y & ~p), np.sum(y & p)]])
    n = table.sum()
    draws = np.random.default_rng(5).multinomial(n, ((table + 0.5) / (n + 2)).ravel(), size=40_000)
    _, fp, fn, tp = draws.T.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.sqrt(tp / (tp + fn) * tp / (tp + fp))
    want = np.nanpercentile(g, [2.5, 97.5])
    got = be.evaluate(
        pl.concat([df, pl.DataFrame({"run": [2], "label": [7], "prediction": [7]})]),
        by="run", per_class=True, measures=["g_measure"], ci=0.95, seed=2, n_boot=4000,
    ).filter((pl.col("run") == 1) & (pl.col("class") == 0))  # fmt: skip
    assert got["g_measure_ci_low"][0] == pytest.approx(want[0], abs=0.01)
    assert got["g_measure_ci_high"][0] == pytest.approx(want[1], abs=0.01)


def _binary_run() -> pl.DataFrame:
    """Run 0: two classes, 40 examples scored by three seeds; run 1: three classes."""
    rng = np.random.default_rng(0)
    lab = rng.integers(0, 2, 40)
    seeds = [
        pl.DataFrame(
            {
                "seed": s,
                "ex": np.arange(40),
                "label": lab,
                "prediction": np.where(rng.random(40) < 0.8, lab, 1 - lab),
            }
        )
        for s in range(3)
    ]
    return pl.concat(seeds).with_columns(run=pl.lit(0))


@pytest.mark.parametrize("clustered", [False, True])
def test_mcc_of_a_two_class_group_has_correlations_interval_in_any_call(clustered: bool):
    """Binary mcc is correlation, and its interval correlation's: a two-class run got it alone, but
    the smoothed bootstrap with classes=[0, 1, 2] or beside a run of three classes ([0.2456, 0.6104]
    where correlation's was [0.2424, 0.6255] in the hunt's run), and with example= those two calls
    raised UnknownMeasureError for measures=['mcc']. The run of three classes keeps the smoothed
    bootstrap, and has no cluster-robust mcc interval (NaN, with a warning)."""
    df = _binary_run()
    other = pl.DataFrame(
        {"seed": 0, "ex": np.arange(30), "label": [0, 1, 2] * 10, "prediction": [0, 1, 2] * 9 + [1, 2, 0]}
    ).with_columns(run=pl.lit(1))
    both = pl.concat([df, other.cast(df.schema)])
    kw = {"by": "run", "pool": "seed", "ci": 0.95, "seed": 0}
    if clustered:
        kw["example"] = "ex"
    ends = ["mcc_ci_low", "mcc_ci_high"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)  # pooled seeds without example=
        want = be.evaluate(df, measures=["correlation"], **kw).select(
            "correlation_ci_low", "correlation_ci_high"
        )
        for data, classes in ((df, None), (df, [0, 1, 2]), (both, None)):
            for measures in (["mcc"], ["mcc", "accuracy"]):
                got = be.evaluate(data, measures=measures, classes=classes, **kw)
                assert got.filter(pl.col("run") == 0).select(ends).row(0) == want.row(0), (classes, measures)
        third = be.evaluate(both, measures=["mcc"], **kw).filter(pl.col("run") == 1).select(ends).row(0)
    assert 0.0 < want.row(0)[0] < want.row(0)[1] < 1.0
    if clustered:
        assert np.isnan(third).all()
        with pytest.warns(
            be.BatchevalWarning, match="no cluster-robust interval for mcc of a group of three"
        ):
            be.evaluate(both, measures=["mcc"], **kw)
    else:
        assert -1.0 < third[0] < third[1] <= 1.0


@pytest.mark.parametrize("clustered", [False, True])
def test_mcc_of_a_one_class_table_has_no_interval_whatever_else_is_named(clustered: bool):
    """mcc of a table of one class is the conventional 0 of an empty margin, whose interval evaluate
    documents as NaN (binary mcc is correlation): measures=['mcc'] gave [-0.11, 1.0] (the smoothed
    bootstrap) and with example= raised UnknownMeasureError, where ['mcc', 'recall'] and
    classes=[0, 1] gave NaN."""
    frame = pl.DataFrame({"ex": range(10), "label": [1] * 10, "prediction": [1] * 10})
    kw = {"example": "ex"} if clustered else {"seed": 0}
    for classes in (None, [0, 1], [0, 1, 2]):
        named = (["mcc"], ["mcc", "accuracy"]) + ((["mcc", "recall"],) if classes != [0, 1, 2] else ())
        for measures in named:
            out = be.evaluate(frame, measures=measures, ci=0.95, classes=classes, **kw)
            assert out["mcc"][0] == 0.0
            assert np.isnan(out["mcc_ci_low"][0]) and np.isnan(out["mcc_ci_high"][0]), (classes, measures)


@pytest.mark.parametrize("clustered", [False, True])
def test_binary_equivalents_take_their_equivalents_interval(clustered: bool):
    """Binary macro_informedness, macro_markedness and mcc equal informedness, markedness and
    correlation on every table of at most two present classes, and weighted_recall equals accuracy
    on every table (measures.BINARY_EQUIVALENT), so their intervals are the same, whatever the
    call's class count: the smoothed bootstrap gave macro_informedness [0.320, 0.632] beside
    informedness's [0.315, 0.627] on one table, and with example= they had no interval at all (NaN
    and a warning). A group of three classes keeps the smoothed bootstrap for macro_informedness
    (NaN with example=), and weighted_recall accuracy's interval there too."""
    df = _binary_run()
    three = pl.DataFrame({"seed": 0, "ex": np.arange(30), "label": [0, 1, 2] * 10,
                          "prediction": [0, 1, 2] * 9 + [1, 2, 0]}).with_columns(run=pl.lit(1))  # fmt: skip
    three = three.cast(df.schema)
    kw = {"by": "run", "pool": "seed", "ci": 0.95, "seed": 0}
    if clustered:
        kw["example"] = "ex"
    pairs = BINARY_EQUIVALENT
    names = [m for pair in pairs.items() for m in pair]
    calls = ((df, None), (df, [0, 1, 2]), (pl.concat([df, three]), None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        got = [be.evaluate(data, measures=names, classes=classes, **kw) for data, classes in calls]
    for result in got:
        run = result.filter(pl.col("run") == 0)
        for measure, base in pairs.items():
            assert run[measure][0] == pytest.approx(run[base][0], abs=1e-15)
            ends = [run[f"{m}_ci_{end}"][0] for m in (measure, base) for end in ("low", "high")]
            assert ends[:2] == ends[2:], measure
            assert ends[0] < run[measure][0] < ends[1]
            # the binary call's interval, whatever the call's classes (to rounding: the clustered
            # design effects of a three-class call's table sum over its empty class too)
            binary = [got[0][f"{base}_ci_{end}"][0] for end in ("low", "high")]
            assert ends[:2] == pytest.approx(binary, rel=1e-12, abs=1e-15)
    # sklearn's accuracy is the independent anchor for weighted_recall
    assert got[0]["weighted_recall"][0] == pytest.approx(
        skm.accuracy_score(df["label"].to_numpy(), df["prediction"].to_numpy()), abs=1e-15
    )
    wide = got[2].filter(pl.col("run") == 1)
    assert wide["weighted_recall_ci_low"][0] == wide["accuracy_ci_low"][0]
    if clustered:
        assert np.isnan(wide["macro_informedness_ci_low"][0])
    else:
        assert wide["macro_informedness_ci_low"][0] != wide["informedness_ci_low"][0]
    if clustered:  # nothing warns for a call of two classes (it warned of no cluster-robust interval)
        with warnings.catch_warnings():
            warnings.simplefilter("error", be.BatchevalWarning)
            be.evaluate(df, measures=names, **kw)
