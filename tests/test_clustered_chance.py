"""Clustered chance tests (p_informedness / p_markedness / alpha_sbb with example= or cluster=) and
the few-clusters t reference: against a pair-by-pair numpy reference, identities, and seeded
size and coverage simulations with tolerances from the binomial standard error."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.errors import BatchevalWarning
from batcheval.inference import clustered as cl
from tests.reference import clustered_chance as ref


def _sweep(rng: np.random.Generator, k: int, n_examples: int = 45, seeds: int = 3) -> pl.DataFrame:
    """Two runs × ``seeds`` seeds over the same examples in passages of 1-4 examples; labels and
    predictions share passage effects (the second run weakly informed)."""
    passage = np.sort(rng.integers(0, n_examples // 2, n_examples))
    tilt = rng.integers(0, k, n_examples // 2)[passage]
    label = np.where(rng.random(n_examples) < 0.5, tilt, rng.integers(0, k, n_examples))
    parts = []
    for run in range(2):
        base = np.where(rng.random(n_examples) < 0.3 * run, label, np.where(rng.random(n_examples) < 0.5,
                        tilt, rng.integers(0, k, n_examples)))  # fmt: skip
        for seed in range(seeds):
            pred = np.where(rng.random(n_examples) < 0.8, base, rng.integers(0, k, n_examples))
            parts.append(pl.DataFrame({"run": run, "seed": seed, "example": np.arange(n_examples),
                                       "passage": passage, "label": label, "prediction": pred}))  # fmt: skip
    return pl.concat(parts)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("unit", ["example", "passage"])
def test_clustered_chance_matches_pair_by_pair_reference(k: int, unit: str) -> None:
    df = _sweep(np.random.default_rng(40 + k), k)
    kwargs = {"example": "example"} if unit == "example" else {"example": "example", "cluster": "passage"}
    names = ["p_informedness", "p_markedness"] + (["alpha_sbb"] if k == 2 else [])  # alpha_sbb: binary
    out = be.evaluate(df, by=["run", "seed"], pool="seed", measures=names, **kwargs)
    table = be.ContingencyTable.from_frame(df, by="run")
    cells = cl.cluster_cells(df, ["run"], [unit], "label", "prediction", table)
    deff = cl.chance_design_effects(np.asarray(table.counts), cells)
    for run in range(2):
        rows = df.filter(pl.col("run") == run)
        y, p, c = rows["label"].to_list(), rows["prediction"].to_list(), rows[unit].to_list()
        for which, col, d in (
            ("informedness", "p_informedness", deff[0]),
            ("markedness", "p_markedness", deff[1]),
        ):
            assert d[run] == pytest.approx(ref.design_effect(y, p, c, k, which), rel=1e-10, abs=1e-12)
            assert out[col][run] == pytest.approx(ref.clustered_p(y, p, c, k, which), rel=1e-9, abs=1e-10)
        if k == 2:
            assert out["alpha_sbb"][run] == pytest.approx(
                float(be.alpha_sbb(out["p_informedness"][run])), rel=1e-12
            )
        assert deff[0][run] > 1.2  # the passages matter: the test is not the row test here


@pytest.mark.parametrize("k", [2, 3])
def test_single_row_clusters_give_the_unclustered_test_exactly(k: int) -> None:
    rng = np.random.default_rng(50 + k)
    n = 400
    df = pl.DataFrame({"run": rng.integers(0, 6, n), "row": np.arange(n), "label": rng.integers(0, k, n),
                       "prediction": rng.integers(0, k, n)})  # fmt: skip
    names = ["p_informedness", "p_markedness"] + (["alpha_sbb"] if k == 2 else [])
    rows = be.evaluate(df, by="run", measures=names)
    clus = be.evaluate(df, by="run", measures=names, cluster="row")
    for name in names:
        np.testing.assert_array_equal(clus[name].to_numpy(), rows[name].to_numpy())
    table = be.ContingencyTable.from_frame(df, by="run")
    cells = cl.cluster_cells(df, ["run"], ["row"], "label", "prediction", table)
    for d in cl.chance_design_effects(np.asarray(table.counts), cells):
        np.testing.assert_array_equal(d, np.ones(len(table)))


@pytest.mark.parametrize("k", [2, 3])
def test_examples_repeated_with_the_same_prediction_give_the_test_without_repeats(k: int) -> None:
    rng = np.random.default_rng(60 + k)
    n = 90
    one = pl.DataFrame(
        {"run": rng.integers(0, 3, n), "example": np.arange(n), "label": rng.integers(0, k, n)}
    )
    one = one.with_columns(prediction=pl.when(pl.Series(rng.random(n) < 0.3)).then(pl.col("label"))
                           .otherwise(pl.Series(rng.integers(0, k, n))))  # fmt: skip
    df = pl.concat([one.with_columns(seed=pl.lit(s)) for s in range(3)])
    names = ["p_informedness", "p_markedness"] + (["alpha_sbb"] if k == 2 else [])
    alone = be.evaluate(one, by="run", measures=names)
    tripled = be.evaluate(df, by=["run", "seed"], pool="seed", measures=names, example="example")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchevalWarning)
        as_rows = be.evaluate(df, by=["run", "seed"], pool="seed", measures=names)
    for name in names:
        np.testing.assert_array_equal(tripled[name].to_numpy(), alone[name].to_numpy())
    assert (as_rows["p_informedness"].to_numpy() < alone["p_informedness"].to_numpy()).all()


def test_per_class_clustered_chance_is_the_binary_test_of_each_class() -> None:
    df = _sweep(np.random.default_rng(70), 3)
    out = be.evaluate(df, by=["run", "seed"], pool="seed", measures=["p_informedness"], per_class=True,
                      example="example", cluster="passage")  # fmt: skip
    assert out.height == 6
    for i, row in enumerate(out.iter_rows(named=True)):
        run, k = divmod(i, 3)
        rows = df.filter(pl.col("run") == run)
        y = (rows["label"].to_numpy() == k).astype(int).tolist()
        p = (rows["prediction"].to_numpy() == k).astype(int).tolist()
        want = ref.clustered_p(y, p, rows["passage"].to_list(), 2, "informedness")
        assert row["p_informedness"] == pytest.approx(want, rel=1e-9, abs=1e-10)


def test_clustered_board_uses_the_clustered_chance_test() -> None:
    df = _sweep(np.random.default_rng(80), 2)
    board = be.leaderboard(df, run="run", pool="seed", example="example", cluster="passage").sort("run")
    out = be.evaluate(df, by=["run", "seed"], pool="seed", measures=["p_informedness"], example="example",
                      cluster="passage")  # fmt: skip
    np.testing.assert_array_equal(board["p_informedness"].to_numpy(), out["p_informedness"].to_numpy())


def _null_frame(rng: np.random.Generator, reps: int, n_clusters: int, size: int, icc: float,
                prev: float) -> pl.DataFrame:  # fmt: skip
    """Labels and predictions independent, each with its own Beta cluster rate (mean prev)."""
    a, b = prev * (1 - icc) / icc, (1 - prev) * (1 - icc) / icc
    shape = (reps, n_clusters)
    rate_y = np.repeat(rng.beta(a, b, shape), size, axis=1)
    rate_p = np.repeat(rng.beta(a, b, shape), size, axis=1)
    return pl.DataFrame({
        "rep": np.repeat(np.arange(reps), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters), size), reps),
        "label": (rng.random(rate_y.shape) < rate_y).astype(np.int8).ravel(),
        "prediction": (rng.random(rate_p.shape) < rate_p).astype(np.int8).ravel(),
    })  # fmt: skip


def test_size_of_the_clustered_chance_test_under_the_null() -> None:
    reps = 2000
    df = _null_frame(np.random.default_rng(90), reps, n_clusters=100, size=5, icc=0.5, prev=0.3)
    tol = 4 * np.sqrt(0.05 * 0.95 / reps)
    naive = be.evaluate(df, by="rep", measures=["p_informedness"])["p_informedness"].to_numpy()
    clus = be.evaluate(df, by="rep", measures=["p_informedness"], cluster="passage")[
        "p_informedness"
    ].to_numpy()
    assert np.mean(naive < 0.05) > 0.05 + tol  # counting rows: anti-conservative
    assert abs(np.mean(clus < 0.05) - 0.05) <= tol, np.mean(clus < 0.05)


def test_size_with_seeds_that_repeat_the_examples() -> None:
    rng = np.random.default_rng(91)
    reps, n = 2000, 100
    label = rng.integers(0, 2, (reps, n))
    base = rng.integers(0, 2, (reps, n))  # independent of the label: the null
    parts = []
    for seed in range(3):
        pred = np.where(rng.random((reps, n)) < 0.9, base, rng.integers(0, 2, (reps, n)))
        parts.append(pl.DataFrame({"rep": np.repeat(np.arange(reps), n), "seed": seed,
                                   "example": np.tile(np.arange(n), reps), "label": label.ravel(),
                                   "prediction": pred.ravel()}))  # fmt: skip
    df = pl.concat(parts)
    tol = 4 * np.sqrt(0.05 * 0.95 / reps)
    clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["p_informedness"], example="example")
    rejected = np.mean(clus["p_informedness"].to_numpy() < 0.05)
    assert abs(rejected - 0.05) <= tol, rejected


def _copied(rng: np.random.Generator, reps: int, n_clusters: int, size: int, copies: int, icc: float,
            prev: float) -> pl.DataFrame:  # fmt: skip
    """:func:`_null_frame` with every row scored the same under ``copies`` seeds."""
    one = _null_frame(rng, reps, n_clusters, size, icc, prev).with_columns(row=pl.int_range(pl.len()))
    return pl.concat([one.with_columns(seed=pl.lit(s, pl.Int8)) for s in range(copies)])


def test_seeds_that_copy_rows_multiply_the_design_effect_by_the_copies() -> None:
    # cluster= with pool= over seeds and no example=: each passage's rows appear `copies` times. Its
    # copies add their products to the passage's score sum as any two rows do, so the design effect
    # is the copies times that of one seed (stop 52's pooled estimate took a copy for an ordinary
    # neighbour, 2.3 for 3 copies at a true 3.4, and rejected 0.18 of true nulls with 5 copies)
    df = _copied(np.random.default_rng(96), 40, 30, 5, 3, 0.3, 0.3)
    one = df.filter(pl.col("seed") == 0)
    deffs = []
    for frame in (df, one):
        table = be.ContingencyTable.from_frame(frame, by="rep")
        cells = cl.cluster_cells(frame, ["rep"], ["passage"], "label", "prediction", table)
        deffs.append(cl.chance_design_effects(np.asarray(table.counts), cells))
    for tripled, single in zip(*deffs, strict=True):
        np.testing.assert_allclose(tripled, 3 * single, rtol=1e-12)
    assert np.median(deffs[1][0]) > 1.2  # the passages matter
    # so the effective table is the one seed's, and so is the test wherever the rows' own p-value,
    # which the rounding can cross (clustered_chance), does not bind
    tables = [np.asarray(be.ContingencyTable.from_frame(f, by="rep").counts) for f in (df, one)]
    effective = [cl.effective_counts(t, d[0]) for t, d in zip(tables, deffs, strict=True)]
    np.testing.assert_array_equal(effective[0], effective[1])
    clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["p_informedness"], cluster="passage")
    alone = be.evaluate(one, by="rep", measures=["p_informedness"], cluster="passage")
    p3, p1 = clus["p_informedness"].to_numpy(), alone["p_informedness"].to_numpy()
    own = be.measures.compute(effective[1], ["p_informedness"])["p_informedness"]
    assert np.mean(p3 == own) > 0.9
    np.testing.assert_array_equal(p3 < 0.05, p1 < 0.05)
    assert 0 < np.mean(p1 < 0.05) < 0.5


def test_copies_of_balanced_passages_keep_the_p_value_of_one_copy() -> None:
    # 20 passages of 9 rows, each balanced against the next, so the passages' score sums nearly
    # cancel: a design effect of 1/9. A fixed floor at 1/2 bound for one copy and not for five,
    # and the copies' p-value fell from 0.0359 to 7.8e-06, below the 0.00087 of counting every copy
    lab, pre = [1, 0, 1, 0, 1, 1, 0, 1, 0], [1, 0, 1, 0, 0, 1, 1, 0, 1]
    rows = [(p, lab_ if p % 2 else 1 - lab_, q if p % 2 else 1 - q) for p in range(20)
            for lab_, q in zip(lab, pre, strict=True)]  # fmt: skip
    one = pl.DataFrame(rows, schema=["passage", "label", "prediction"], orient="row")
    got = []
    for m in (1, 2, 5):
        df = pl.concat([one.with_columns(seed=pl.lit(s)) for s in range(m)])
        table = be.ContingencyTable.from_frame(df)
        cells = cl.cluster_cells(df, [], ["passage"], "label", "prediction", table)
        deff = cl.chance_design_effects(np.asarray(table.counts), cells)[0][0]
        assert deff == pytest.approx(m / 9, rel=1e-12)
        kw = {"by": "seed", "pool": "seed", "measures": ["p_informedness"]}
        got.append(be.evaluate(df, **kw, cluster="passage")["p_informedness"][0])
    want = ref.clustered_p(one["label"].to_list(), one["prediction"].to_list(), one["passage"].to_list(), 2,
                           "informedness")  # fmt: skip
    assert got == pytest.approx([want] * 3, rel=1e-12)
    # balanced passages: more evidence than the rows give
    assert want < be.evaluate(one, measures=["p_informedness"])["p_informedness"][0]


@pytest.mark.parametrize("how", [{"per_class": True}, {"positive": 0}, {"positive": 1}])
def test_single_row_clusters_give_the_tests_of_the_table_as_counted(how: dict) -> None:
    # a two-class table's tests come from the table as counted for both classes, so that the class
    # rows agree (tests/test_per_class_binary.py): exactly the unclustered ones of positive=1, and
    # within the last bits of positive=0's, which reorient the table for class 0
    rng = np.random.default_rng(53)
    n = 300
    df = pl.DataFrame({"run": rng.integers(0, 4, n), "row": np.arange(n), "label": rng.integers(0, 2, n),
                       "prediction": rng.integers(0, 2, n)})  # fmt: skip
    names = ["p_informedness", "p_markedness", "alpha_sbb"]
    clus = be.evaluate(df, by="run", measures=names, cluster="row", **how)
    per = 2 if "per_class" in how else 1
    for positive in (1, 0):
        rows = be.evaluate(df, by="run", measures=names, positive=positive)
        for name in names:
            want = np.repeat(rows[name].to_numpy(), per)
            if positive == 1:
                np.testing.assert_array_equal(clus[name].to_numpy(), want)
            else:
                np.testing.assert_allclose(clus[name].to_numpy(), want, rtol=1e-13)


def test_size_with_seeds_that_copy_a_passages_rows() -> None:
    reps = 1500
    df = _copied(np.random.default_rng(97), reps, 100, 5, 5, 0.1, 0.5)
    tol = 4 * np.sqrt(0.05 * 0.95 / reps)
    clus = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["p_informedness"], cluster="passage")
    rejected = np.mean(np.nan_to_num(clus["p_informedness"].to_numpy(), nan=1.0) < 0.05)
    assert abs(rejected - 0.05) <= tol, rejected


def test_coverage_at_20_clusters_with_the_t_reference() -> None:
    # clusters of 10 rows at an intra-cluster correlation of 0.5; the truth: informedness 0.6
    rng = np.random.default_rng(92)
    reps, n_clusters, size, icc = 2000, 20, 10, 0.5
    q = np.repeat(rng.beta(0.8 * (1 - icc) / icc, 0.2 * (1 - icc) / icc, (reps, n_clusters)), size, axis=1)
    label = rng.integers(0, 2, q.shape)
    df = pl.DataFrame({
        "rep": np.repeat(np.arange(reps), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters), size), reps),
        "label": label.ravel(), "prediction": np.where(rng.random(q.shape) < q, label, 1 - label).ravel(),
    })  # fmt: skip
    tol = 4 * np.sqrt(0.95 * 0.05 / reps)
    out = be.evaluate(df, by="rep", measures=["informedness"], ci=0.95, cluster="passage")
    low, high = out["informedness_ci_low"].to_numpy(), out["informedness_ci_high"].to_numpy()
    assert abs(np.mean((low <= 0.6) & (high >= 0.6)) - 0.95) <= tol
    table = be.ContingencyTable.from_frame(df, by="rep")
    cells = cl.cluster_cells(df, ["rep"], ["passage"], "label", "prediction", table)
    low, high = cl.clustered_intervals(np.asarray(table.counts), cells, ["informedness"], reference="normal")[
        "informedness"
    ]
    assert np.mean((low <= 0.6) & (high >= 0.6)) < 0.95 - tol  # the normal Wald interval falls short


def test_t_helpers_against_scipy_and_a_plain_count() -> None:
    c = np.array([2.0, 5.0, 20.0, 300.0])
    np.testing.assert_allclose(cl.cluster_quantile(0.9, c), stats.t.ppf(0.95, c - 1), rtol=1e-12)
    diff, se = np.array([0.1, -0.3, 0.05, 0.2]), np.array([0.05, 0.1, 0.2, 0.1])
    np.testing.assert_allclose(
        cl.cluster_t_p(diff, se, c), 2 * stats.t.sf(np.abs(diff) / se, c - 1), rtol=1e-12
    )
    rng = np.random.default_rng(93)
    group = np.repeat(np.arange(4), 30)
    cluster = rng.integers(0, 40, 120)
    _, first = np.unique(group * 1000 + cluster, return_index=True)  # one (group, cluster) pair each
    keep = np.isin(np.arange(120), first)
    cells = cl.ClusterCells.from_dense(np.zeros((keep.sum(), 2, 2), np.int64), group[keep], cluster[keep], 4)
    ref_run = np.array([1, 0, 3, 2])
    want = [len(set(cluster[group == g]) | set(cluster[group == ref_run[g]])) for g in range(4)]
    assert cl.paired_cluster_count(cells, ref_run).tolist() == want


def test_multiclass_positive_is_the_clustered_test_of_that_class() -> None:
    # positive= turns a 3-class table into class-vs-rest; the clusters are counted over all classes first
    df = _sweep(np.random.default_rng(94), 3)
    out = be.evaluate(df, by=["run", "seed"], pool="seed", measures=["p_informedness", "informedness"],
                      positive=1, example="example", cluster="passage", ci=0.95)  # fmt: skip
    for run in range(2):
        rows = df.filter(pl.col("run") == run)
        y = (rows["label"].to_numpy() == 1).astype(int).tolist()
        p = (rows["prediction"].to_numpy() == 1).astype(int).tolist()
        want = ref.clustered_p(y, p, rows["passage"].to_list(), 2, "informedness")
        assert out["p_informedness"][run] == pytest.approx(want, rel=1e-9, abs=1e-10)
        assert out["informedness_ci_low"][run] < out["informedness"][run] < out["informedness_ci_high"][run]


def test_one_cluster_has_no_chance_test() -> None:
    # 12 questions about one passage are one independent unit: the intervals were NaN but the
    # clustered test fell back to the rows' p-value (0.001) and alpha_sbb to 0.02
    labels = [0, 1] * 6
    one = pl.DataFrame({"passage": ["p1"] * 12, "question": range(12), "label": labels, "prediction": labels})
    two = one.with_columns(passage=pl.Series(["p2", "p3"] * 6), question=pl.col("question") + 12)
    names = ["informedness", "p_informedness", "p_markedness", "alpha_sbb"]
    out = be.evaluate(pl.concat([one.with_columns(g=pl.lit(0)), two.with_columns(g=pl.lit(1))]), by="g",
                      ci=0.95, example="question", cluster="passage", measures=names)  # fmt: skip
    first = out.row(0, named=True)
    assert np.isnan(first["informedness_ci_low"])
    assert all(np.isnan(first[c]) for c in ("p_informedness", "p_markedness", "alpha_sbb"))
    # two clusters of 6 rows that split the classes alike: the design effect is at most the
    # cluster size, so the test is defined and no smaller than that of 2 examples
    second = out.row(1, named=True)
    assert 0.0 < second["p_informedness"] <= 1.0 and not np.isnan(second["alpha_sbb"])


def test_clustered_chance_stays_on_the_side_of_the_rows_its_design_effect_points_to() -> None:
    # stop 52's pooled design effect (1.13) divided [[12, 6], [6, 12]] into [[11, 5], [5, 11]] once
    # rounded: an odds ratio of 4.84 for 4, whose test (0.044) was more significant than that of the 36
    # rows (0.056). Every row here scores ±1/4, and the passages' score sums square to 36/16: 1 exactly
    clusters = [([1, 0, 0], [0, 0, 1]), ([1, 0, 1, 0], [1, 0, 1, 0]), ([0, 1, 0], [0, 1, 1]),
                ([0, 0, 1, 0], [1, 0, 1, 0]), ([1, 0, 0], [1, 1, 0]), ([1], [1]), ([1], [0]), ([1], [0]),
                ([0, 0, 1, 1], [0, 0, 1, 0]), ([0, 1, 1, 0], [1, 1, 1, 0]), ([1, 0], [1, 1]),
                ([1, 0, 1], [0, 0, 1]), ([1, 0, 1], [1, 0, 0])]  # fmt: skip
    df = pl.DataFrame(
        [
            {"passage": c, "label": y, "prediction": p}
            for c, (ys, ps) in enumerate(clusters)
            for y, p in zip(ys, ps, strict=True)
        ]
    )
    names = ["p_informedness", "p_markedness", "alpha_sbb"]
    rows = be.evaluate(df, measures=names).row(0, named=True)
    clus = be.evaluate(df, measures=names, cluster="passage").row(0, named=True)
    fp, fn, tp = 6, 6, 12  # the rows' exact two-sided mid-p (a symmetric null), from scipy
    null = stats.hypergeom(36, tp + fn, tp + fp)
    want = 2 * null.sf(tp) + null.pmf(tp)
    assert rows["p_informedness"] == pytest.approx(want, rel=1e-9)
    assert clus["p_informedness"] == rows["p_informedness"] > 0.05
    assert clus["p_markedness"] == clus["p_informedness"]
    assert clus["alpha_sbb"] >= rows["alpha_sbb"]
    # random small clustered groups of two and three classes
    rng = np.random.default_rng(95)
    for k in (2, 3):
        parts = []
        for rep in range(400):
            sizes = rng.integers(1, 5, rng.integers(3, 15))
            passage = np.repeat(np.arange(len(sizes)), sizes)
            label = np.where(rng.random(len(passage)) < 0.7, rng.integers(0, k, len(sizes))[passage],
                             rng.integers(0, k, len(passage)))  # fmt: skip
            pred = np.where(rng.random(len(passage)) < rng.random(), label, rng.integers(0, k, len(passage)))
            parts.append(pl.DataFrame({"rep": rep, "passage": passage, "label": label, "prediction": pred}))
        data = pl.concat(parts)
        names = ["p_informedness", "p_markedness"]
        rows_all = be.evaluate(data, by="rep", measures=names)
        clus_all = be.evaluate(data, by="rep", measures=names, cluster="passage")
        table = be.ContingencyTable.from_frame(data, by="rep")
        cells = cl.cluster_cells(data, ["rep"], ["passage"], "label", "prediction", table)
        counts = np.asarray(table.counts)
        for name, deff in zip(names, cl.chance_design_effects(counts, cells), strict=True):
            r, c = rows_all[name].to_numpy(), clus_all[name].to_numpy()
            ok = np.isfinite(c) & np.isfinite(deff)
            assert ok.mean() > 0.9
            up, down = ok & (deff >= 1), ok & (deff < 1)
            assert up.sum() > 50 and down.sum() > 50  # both sides are tried
            assert (c[up] >= r[up]).all(), (k, name, np.flatnonzero(up & (c < r))[:5])
            assert (c[down] <= r[down]).all(), (k, name, np.flatnonzero(down & (c > r))[:5])
            # the rounding crossed the rows' p-value on both sides, so both bounds were needed
            eff = be.measures.compute(cl.effective_counts(counts, deff), [name])[name]
            assert (up & (eff < r)).any() and (down & (eff > r)).any()
