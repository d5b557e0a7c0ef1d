"""Cluster-robust intervals (example=, cluster=): against a row-by-row numpy reference,
identities, bad input, and a seeded coverage simulation."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import batcheval as be
from batcheval.errors import BatchevalWarning, ColumnNotFoundError, InvalidArgumentError
from batcheval.inference import clustered as cl
from batcheval.inference import paired_se
from batcheval.inference.intervals import intervals, proportion, standard_errors, trial_cells
from tests.reference import clustered as ref
from tests.reference import clustered_cr2 as cr2

Z95 = stats.norm.ppf(0.975)


def _sweep(rng: np.random.Generator, k: int, n_examples: int = 60, seeds: int = 3) -> pl.DataFrame:
    """Two runs × ``seeds`` seeds over the same examples, grouped into passages of 1-4 examples;
    a prediction mostly repeats across seeds."""
    passage = np.sort(rng.integers(0, n_examples // 2, n_examples))
    label = rng.integers(0, k, n_examples)
    parts = []
    for run in range(2):
        base = np.where(rng.random(n_examples) < 0.6 + 0.2 * run, label, rng.integers(0, k, n_examples))
        for seed in range(seeds):
            pred = np.where(rng.random(n_examples) < 0.8, base, rng.integers(0, k, n_examples))
            parts.append(pl.DataFrame({"run": run, "seed": seed, "example": np.arange(n_examples),
                                       "passage": passage, "label": label, "prediction": pred}))  # fmt: skip
    return pl.concat(parts)


def _pooled_sweep(seed: int, k: int, unit: str):
    """``_sweep``'s frame, its tables pooled over seeds, its cluster cells by ``unit`` and the
    measures with a clustered variance for ``k`` classes."""
    df = _sweep(np.random.default_rng(seed), k)
    table = be.ContingencyTable.from_frame(df, by=["run", "seed"]).pool("seed")
    cells = cl.cluster_cells(df, ["run"], [unit], "label", "prediction", table)
    names = ["informedness", "markedness", "kappa_cohen", "accuracy", "correlation"]
    names += ["recall", "precision", "inverse_recall"] if k == 2 else []
    return df, table, cells, names


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("unit", ["example", "passage"])
def test_variance_matches_row_by_row_reference(k: int, unit: str) -> None:
    df, table, cells, names = _pooled_sweep(10 + k, k, unit)
    for name in names:
        got = cl.cluster_variance(np.asarray(table.counts), cells, name)
        for run in range(2):
            rows = df.filter(pl.col("run") == run)
            want = ref.cluster_variance(rows["label"].to_list(), rows["prediction"].to_list(),
                                        rows[unit].to_list(), k, name)  # fmt: skip
            assert got[run] == pytest.approx(want, rel=1e-5), (name, run)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("unit", ["example", "passage"])
def test_design_effect_matches_the_cr2_matrix_reference(k: int, unit: str) -> None:
    # passages of 1-4 examples, each scored under 3 seeds: unequal clusters, where CR2's leverage
    # (each cluster's share of the units) differs from CR1's common factor C/(C - 1)
    df, table, cells, names = _pooled_sweep(30 + k, k, unit)
    got, pure = cl.design_effects(np.asarray(table.counts), cells, names)
    assert pure.tolist() == cl.pure_groups(cells, 2).tolist() == [False, False]
    for name in names:
        for run in range(2):
            rows = df.filter(pl.col("run") == run)
            args = (rows["label"].to_list(), rows["prediction"].to_list(), rows[unit].to_list(), k, name)
            assert got[name][0][run] == pytest.approx(cr2.design_effect(*args), rel=1e-5), (name, run)
            assert got[name][3][run] == pytest.approx(cr2.bell_mccaffrey_dof(*args), rel=1e-9), (name, run)


@pytest.mark.parametrize("k", [2, 3])
def test_evaluate_intervals_from_reference_design_effect(k: int) -> None:
    df = _sweep(np.random.default_rng(20 + k), k)
    names = ["informedness", "kappa_cohen", "accuracy"] + (["recall", "jaccard"] if k == 2 else [])
    asked = names + (["f1", "mcc", "correlation"] if k == 2 else [])
    out = be.evaluate(df, by=["run", "seed"], pool="seed", measures=asked, ci=0.95, example="example",
                      cluster="passage")  # fmt: skip
    for run in range(2):
        rows = df.filter(pl.col("run") == run)
        y, p, c = rows["label"].to_list(), rows["prediction"].to_list(), rows["passage"].to_list()
        table = np.zeros((k, k))
        np.add.at(table, (np.array(y), np.array(p)), 1)
        cells_of = {}
        for yi, pi, ci in zip(y, p, c, strict=True):
            cells_of.setdefault(ci, set()).add((yi, pi))
        assert any(len(v) > 1 for v in cells_of.values())  # not every passage in one cell: t, not z
        for name in names:
            deff = cr2.design_effect(y, p, c, k, name)
            est = ref.measure(table, name)
            low, high = out[f"{name}_ci_low"][run], out[f"{name}_ci_high"][run]
            if name in ("informedness", "kappa_cohen"):
                # the unclustered interval of the table divided by the design effect, moved to the
                # estimate and widened from z to Student's t with Bell & McCaffrey's degrees of freedom
                t95 = stats.t.ppf(0.975, cr2.bell_mccaffrey_dof(y, p, c, k, name))
                eff = np.rint(table / deff).astype(np.int64)
                low_e, high_e = (v[0] for v in intervals(eff[None], [name], 0.95)[name])
                est_e = ref.measure(eff, name)
                stretch = t95 / Z95
                want = (max(est - stretch * (est_e - low_e), -1.0),
                        min(est + stretch * (high_e - est_e), 1.0))  # fmt: skip
            else:  # Wilson with Korn & Graubard's effective trials m/deff
                trial = cr2.PROPORTIONS[name][0](np.array(y), np.array(p))
                t95 = stats.t.ppf(0.975, cr2.bell_mccaffrey_dof(y, p, c, k, name))
                m_eff = trial.sum() / deff
                # Wilson at the critical value t95: statsmodels' at the level whose normal quantile is t95
                alpha = 2 * stats.norm.sf(t95)
                want = proportion_confint(est * m_eff, m_eff, alpha=alpha, method="wilson")
            assert (low, high) == pytest.approx(want, rel=1e-5), (name, run)
        if k == 2:  # f1 is 2J/(1 + J) of jaccard's ends, binary mcc is correlation
            j_low, j_high = out["jaccard_ci_low"][run], out["jaccard_ci_high"][run]
            f1 = (out["f1_ci_low"][run], out["f1_ci_high"][run])
            assert f1 == pytest.approx((2 * j_low / (1 + j_low), 2 * j_high / (1 + j_high)), rel=1e-12)
            mcc = (out["mcc_ci_low"][run], out["mcc_ci_high"][run])
            assert mcc == (out["correlation_ci_low"][run], out["correlation_ci_high"][run])


@pytest.mark.parametrize("k", [1, 2, 3, 5, 12])
def test_trial_cells_are_the_cells_each_one_example_table_counts_as_a_trial(k: int) -> None:
    # the K² one-example tables (what design_effects built, K²×K² cells: 60 GiB at 300 classes)
    one_example = np.eye(k * k, dtype=np.int64).reshape(k * k, k, k)
    binary = ["recall", "precision", "inverse_recall", "accuracy", "jaccard", "prevalence"]
    names = binary if k == 2 else ["accuracy"]
    for name in names:
        for positive in (0, 1) if k == 2 else (1,):
            trials = proportion(one_example, name, positive)[1].reshape(k, k) > 0
            assert np.array_equal(trial_cells(k, name, positive), trials), (name, positive)


def test_three_hundred_classes_give_the_cr2_reference_interval_in_little_memory() -> None:
    # design_effects and reference="normal" built a K²×K² identity to find each measure's trial
    # cells: MemoryError (60.3 GiB) at 300 classes however few the rows
    import tracemalloc

    k, n_examples, seeds = 300, 300, 2
    rng = np.random.default_rng(300)
    label = rng.permutation(k)  # every class once
    passage = rng.integers(0, 40, n_examples)
    rows = seeds * n_examples
    pred = np.where(rng.random(rows) < 0.7, np.tile(label, seeds), rng.integers(0, k, rows))
    df = pl.DataFrame({"seed": np.repeat(np.arange(seeds), n_examples),
                       "example": np.tile(np.arange(n_examples), seeds), "passage": np.tile(passage, seeds),
                       "label": np.tile(label, seeds), "prediction": pred})  # fmt: skip
    asked = dict(by="seed", pool="seed", example="example", cluster="passage", ci=0.95)
    be.evaluate(df.head(6), measures=["accuracy", "informedness"], **asked)  # compiled outside the count
    tracemalloc.start()
    try:
        out = be.evaluate(df, measures=["accuracy", "informedness"], **asked)
        table = be.ContingencyTable.from_frame(df)
        cells = cl.cluster_cells(df, [], ["passage"], "label", "prediction", table)
        normal = cl.clustered_intervals(np.asarray(table.counts), cells, ["accuracy"], reference="normal")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 2**20, peak  # the 40 passages' tables are 29 MB
    y, p, c = df["label"].to_numpy(), df["prediction"].to_numpy(), df["passage"].to_list()
    deff = cr2.design_effect(y, p, c, k, "accuracy")
    t95 = stats.t.ppf(0.975, cr2.bell_mccaffrey_dof(y, p, c, k, "accuracy"))
    m_eff = len(y) / deff
    want = proportion_confint(np.mean(y == p) * m_eff, m_eff, alpha=2 * stats.norm.sf(t95), method="wilson")
    assert (out["accuracy_ci_low"][0], out["accuracy_ci_high"][0]) == pytest.approx(want, rel=1e-5)
    assert np.isfinite([out["informedness_ci_low"][0], out["informedness_ci_high"][0]]).all()
    assert out["informedness_ci_low"][0] < out["informedness"][0] < out["informedness_ci_high"][0]
    # the first interval: Wilson with min(p(1 − p)/var, m) trials, the CR1 variance of the reference
    # (accuracy only sees whether a row is right: two classes, each row right as before)
    acc, y2 = np.mean(y == p), y % 2
    p2 = np.where(y == p, y2, 1 - y2)
    m_normal = min(acc * (1 - acc) / ref.cluster_variance(y2.tolist(), p2.tolist(), c, 2, "accuracy"), len(y))
    want = proportion_confint(acc * m_normal, m_normal, alpha=0.05, method="wilson")
    assert (normal["accuracy"][0][0], normal["accuracy"][1][0]) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("k", [2, 3])
def test_single_row_clusters_give_the_unclustered_interval(k: int) -> None:
    rng = np.random.default_rng(12 + k)
    df = pl.DataFrame({"run": rng.integers(0, 6, 300), "label": rng.integers(0, k, 300),
                       "prediction": rng.integers(0, k, 300)}).with_row_index("example")  # fmt: skip
    names = ["informedness", "markedness", "kappa_cohen", "correlation", "accuracy"]
    names += ["recall", "precision", "f1", "jaccard", "mcc"] if k == 2 else []
    plain = be.evaluate(df, by="run", measures=names, ci=0.95)
    clus = be.evaluate(df, by="run", measures=names, ci=0.95, example="example")
    for name in names:
        for side in ("low", "high"):
            col = f"{name}_ci_{side}"
            np.testing.assert_allclose(clus[col].to_numpy(), plain[col].to_numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("measures", [["recall", "informedness"], ["recall"], ["accuracy", "recall"]])
def test_single_row_clusters_of_one_class_give_the_unclustered_interval(measures: list[str]) -> None:
    # one class: recall's interval was dropped without a word with example= (recall alone an
    # UnknownMeasureError); it is the one-vs-rest table's, as without example=, and single-row
    # clusters give the unclustered interval exactly
    df = pl.DataFrame({"run": [0] * 6 + [1] * 9, "ex": list(range(15)), "label": [1] * 15,
                       "prediction": [1] * 15})  # fmt: skip
    plain = be.evaluate(df, by="run", ci=0.95, measures=measures)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clus = be.evaluate(df, by="run", ci=0.95, measures=measures, example="ex")
    assert clus.columns == plain.columns
    assert [c for c in clus.columns if c.endswith("_ci_low")] == [f"{m}_ci_low" for m in measures]
    for col in clus.columns[1:]:
        np.testing.assert_allclose(clus[col].to_numpy(), plain[col].to_numpy(), rtol=1e-13, atol=1e-15)
    # every positive found: Wilson's interval of n successes in n trials
    for run, n in enumerate([6, 9]):
        want = proportion_confint(n, n, alpha=0.05, method="wilson")
        assert (clus["recall_ci_low"][run], clus["recall_ci_high"][run]) == pytest.approx(want, rel=1e-12)


def test_all_positives_in_one_cluster_count_as_one_trial() -> None:
    # 6 positives (4 found) in passage 0, negatives spread over 5 passages: no spread between
    # clusters to measure recall's design effect from, so recall has 1 effective trial: Wilson's
    # interval of 2/3 of a success in 1 trial at t of 1 degree of freedom, widened to the Poisson
    # ends of 2/3 successes and 1/3 failures (the 5 % quantiles of Gamma(2/3) and Gamma(1/3))
    df = pl.DataFrame({"passage": [0] * 6 + [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
                       "label": [1] * 6 + [0] * 10,
                       "prediction": [1, 1, 1, 1, 0, 0] + [0, 1] * 5})  # fmt: skip
    out = be.evaluate(df, measures=["recall"], ci=0.95, cluster="passage")
    t = stats.t.ppf(0.975, 1)
    low, high = proportion_confint(2 / 3, 1, alpha=2 * stats.norm.sf(t), method="wilson")
    want = (min(low, stats.gamma.ppf(0.05, 2 / 3)), max(high, 1 - stats.gamma.ppf(0.05, 1 / 3)))
    assert (out["recall_ci_low"][0], out["recall_ci_high"][0]) == pytest.approx(want, rel=1e-9)


def test_singleton_clusters_are_the_delta_variance_times_n_over_n_minus_1() -> None:
    rng = np.random.default_rng(3)
    for k in (2, 4):
        df = pl.DataFrame({"run": rng.integers(0, 5, 400), "label": rng.integers(0, k, 400),
                           "prediction": rng.integers(0, k, 400)}).with_row_index("example")  # fmt: skip
        table = be.ContingencyTable.from_frame(df, by="run")
        counts = np.asarray(table.counts)
        n = counts.sum(axis=(1, 2))
        cells = cl.cluster_cells(df, ["run"], ["example"], "label", "prediction", table)
        names = ["informedness", "markedness", "kappa_cohen", "accuracy"] + (["recall"] if k == 2 else [])
        se = standard_errors(counts, names)
        for name in names:
            got = cl.cluster_variance(counts, cells, name)
            np.testing.assert_allclose(got, se[name] ** 2 * n / (n - 1), rtol=1e-10)


@pytest.mark.parametrize("k", [2, 3])
def test_examples_repeated_three_times_give_the_unrepeated_interval(k: int) -> None:
    rng = np.random.default_rng(4)
    one = pl.DataFrame({"run": rng.integers(0, 3, 300), "example": np.arange(300),
                        "label": rng.integers(0, k, 300), "prediction": rng.integers(0, k, 300)})  # fmt: skip
    tripled = pl.concat([one.with_columns(seed=pl.lit(s)) for s in range(3)])
    names = ["informedness", "markedness", "kappa_cohen", "accuracy"] + (
        ["recall", "precision", "f1", "jaccard", "mcc"] if k == 2 else []
    )
    alone = be.evaluate(one, by="run", measures=names, ci=0.9, example="example")
    pooled = be.evaluate(tripled, by=["run", "seed"], pool="seed", measures=names, ci=0.9, example="example")
    for name in names:
        for side in ("low", "high"):
            col = f"{name}_ci_{side}"
            np.testing.assert_allclose(pooled[col].to_numpy(), alone[col].to_numpy(), rtol=1e-12)
    # and per class: the one-vs-rest tables are clustered the same way
    a = be.evaluate(one, by="run", measures=["recall"], per_class=True, ci=0.9, example="example")
    b = be.evaluate(tripled, by=["run", "seed"], pool="seed", measures=["recall"], per_class=True, ci=0.9,
                    example="example")  # fmt: skip
    np.testing.assert_allclose(b["recall_ci_low"].to_numpy(), a["recall_ci_low"].to_numpy(), rtol=1e-12)


def test_paired_difference_matches_reference() -> None:
    df = _sweep(np.random.default_rng(5), 2)
    table = be.ContingencyTable.from_frame(df, by="run")
    cells = cl.cluster_cells(df, ["run"], ["passage"], "label", "prediction", table)
    se = cl.paired_cluster_se(np.asarray(table.counts), cells, "informedness", np.array([1, 0]))
    # reference: the difference's per-cluster score sums, each run's influence over its own n
    sums: dict[int, float] = {}
    for run, sign in ((0, 1.0), (1, -1.0)):
        rows = df.filter(pl.col("run") == run)
        t = np.zeros((2, 2))
        np.add.at(t, (rows["label"].to_numpy(), rows["prediction"].to_numpy()), 1)
        u = ref.influence(t, "informedness")
        for y, p, c in rows.select("label", "prediction", "passage").iter_rows():
            sums[c] = sums.get(c, 0.0) + sign * u[y, p] / rows.height
    c = len(sums)
    want = (c / (c - 1) * sum(s * s for s in sums.values())) ** 0.5
    assert se[0] == pytest.approx(want, rel=1e-5)
    assert se[1] == pytest.approx(want, rel=1e-5)


def test_bad_input_names_argument_and_value() -> None:
    df = pl.DataFrame({"run": [1, 1, 1, 1], "q": [1, 2, 3, None], "passage": ["a", "a", "b", "b"],
                       "label": [1, 0, 1, 0], "prediction": [1, 0, 0, 0]})  # fmt: skip
    with pytest.raises(
        InvalidArgumentError, match=r"example column 'q' holds 1 null\(s\) \(first at row 3\)"
    ):
        be.evaluate(df, by="run", ci=0.95, example="q")
    varying = df.with_columns(pl.col("q").fill_null(1))
    with pytest.raises(InvalidArgumentError, match=r"cluster=\['passage'\] varies within example \{'q': 1\}"):
        be.evaluate(varying, by="run", ci=0.95, example="q", cluster="passage")
    with pytest.raises(ColumnNotFoundError, match="example column 'nope' not found"):
        be.evaluate(varying, by="run", ci=0.95, example="nope")
    with pytest.raises(ColumnNotFoundError, match="cluster column 'nope' not found"):
        be.evaluate(varying, by="run", ci=0.95, cluster="nope")
    with pytest.raises(InvalidArgumentError, match="ci_method='bootstrap'"):
        be.evaluate(varying, by="run", ci=0.95, ci_method="bootstrap", example="q")


@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32])
def test_nan_example_or_cluster_ids_are_refused_as_nulls_are(dtype: type) -> None:
    # a polars float id column's NaNs were one example (one cluster) and got an interval, where the
    # same ids from pandas (NaN read as null) were refused
    rng = np.random.default_rng(30)
    n = 40
    y = rng.integers(0, 2, n)
    ids = np.arange(n, dtype=float)
    ids[[3, 7, 8]] = np.nan
    df = pl.DataFrame({"run": 0, "ex": np.arange(n), "id": pl.Series(ids, dtype=dtype), "label": y,
                       "prediction": np.where(rng.random(n) < 0.7, y, 1 - y)})  # fmt: skip
    tail = "(first at row 3); every row needs {} id, or drop those rows first"
    example = "example column 'id' holds 3 NaN(s) " + tail.format("an example")
    cluster = "cluster column 'id' holds 3 NaN(s) " + tail.format("a cluster")
    for message, kwargs in ((example, {"example": "id"}), (cluster, {"example": "ex", "cluster": "id"})):
        with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
            be.evaluate(df, by="run", ci=0.95, **kwargs)
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(example)}$"):
        be.leaderboard(df.with_columns(run=pl.col("id").is_nan()), run="run", example="id")
    # a null is named before a NaN; a float id column without NaN is taken
    mixed = df.with_columns(pl.when(pl.col("ex").is_in([3, 7])).then(None).otherwise("id").alias("id"))
    with pytest.raises(
        InvalidArgumentError, match=r"example column 'id' holds 2 null\(s\) \(first at row 3\)"
    ):
        be.evaluate(mixed, by="run", ci=0.95, example="id")
    kept = df.filter(pl.col("id").is_not_nan())
    got = be.evaluate(kept, by="run", ci=0.95, example="id", measures=["informedness"])
    want = be.evaluate(kept, by="run", ci=0.95, example="ex", measures=["informedness"])
    assert got.equals(want)


def test_pooling_seeds_without_example_warns_once_naming_them() -> None:
    df = _sweep(np.random.default_rng(6), 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        be.evaluate(df, by=["run", "seed"], pool="seed", measures=["recall"], ci=0.95)
        be.evaluate(df, by=["run", "seed"], pool="seed", measures=["recall"], ci=0.95, example="example")
        be.evaluate(
            df.rename({"seed": "fold"}), by=["run", "fold"], pool="fold", measures=["recall"], ci=0.95
        )
    messages = [str(w.message) for w in caught if issubclass(w.category, BatchevalWarning)]
    assert len(messages) == 1 and messages[0].startswith("pool=['seed'] pools groups that may repeat")


def _independence_warnings(df: pl.DataFrame, **kwargs) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        be.evaluate(df, by=["run", "seed"], pool="seed", **kwargs)
    return [str(w.message) for w in caught if issubclass(w.category, BatchevalWarning)]


WARNED = (
    "pool=['seed'] pools groups that may repeat the same examples (seeds, replicates); the intervals and "
    "p-values treat every row as independent. Pass example= (the column that identifies an example) to "
    "count each example as one cluster"
)


@pytest.mark.parametrize(
    "measures", [["informedness", "p_informedness"], ["recall", "p_chi2"], ["alpha_sbb"], None]
)
def test_pooling_seeds_warns_without_ci_when_the_output_has_a_p_value(measures) -> None:
    # the warning came only with ci=, though p_informedness (and every p_ column) counts rows all
    # the same: 3 seeds scoring the same examples made it smaller than the clustered test's
    df = _sweep(np.random.default_rng(6), 2)
    assert _independence_warnings(df, measures=measures) == [WARNED]
    assert _independence_warnings(df, measures=measures, example="example") == []
    if measures == ["informedness", "p_informedness"]:
        with pytest.warns(BatchevalWarning, match=r"pools groups that may repeat"):
            rows = be.evaluate(df, by=["run", "seed"], pool="seed", measures=measures)
        clus = be.evaluate(df, by=["run", "seed"], pool="seed", measures=measures, example="example")
        assert (rows["p_informedness"] < clus["p_informedness"]).all()  # what the warning is about


def test_pooling_seeds_does_not_warn_without_an_interval_or_a_p_value() -> None:
    df = _sweep(np.random.default_rng(6), 3)
    assert _independence_warnings(df, measures=["informedness", "macro_f1", "accuracy"]) == []
    assert _independence_warnings(df, measures=["informedness"], ci=0.95) == [WARNED]
    folds = df.rename({"seed": "fold"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        be.evaluate(folds, by=["run", "fold"], pool="fold", measures=["p_informedness"])
    assert [w for w in caught if issubclass(w.category, BatchevalWarning)] == []


def _clustered_frame(
    rng: np.random.Generator, reps: int, n_clusters: int, size: int, icc: float
) -> pl.DataFrame:
    """``reps`` replicate boards; in each, clusters of ``size`` rows whose chance of a correct
    prediction is Beta with mean 0.8 and intra-cluster correlation ``icc``; labels are fair
    coins, so the true informedness is 0.8 + 0.8 − 1 = 0.6."""
    a, b = 0.8 * (1 - icc) / icc, 0.2 * (1 - icc) / icc
    q = np.repeat(rng.beta(a, b, (reps, n_clusters)), size, axis=1)
    label = rng.integers(0, 2, q.shape)
    pred = np.where(rng.random(q.shape) < q, label, 1 - label)
    return pl.DataFrame({
        "rep": np.repeat(np.arange(reps), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters), size), reps),
        "label": label.ravel(), "prediction": pred.ravel(),
    })  # fmt: skip


def test_coverage_naive_undercovers_clustered_is_nominal() -> None:
    reps = 1000
    df = _clustered_frame(np.random.default_rng(7), reps, n_clusters=200, size=10, icc=0.5)
    tol = 4 * np.sqrt(0.95 * 0.05 / reps)
    naive = be.evaluate(df, by="rep", measures=["informedness"], ci=0.95)
    clus = be.evaluate(df, by="rep", measures=["informedness"], ci=0.95, cluster="passage")

    def cover(out: pl.DataFrame) -> float:
        low, high = out["informedness_ci_low"].to_numpy(), out["informedness_ci_high"].to_numpy()
        return float(np.mean((low <= 0.6) & (high >= 0.6)))

    assert cover(naive) < 0.95 - tol
    assert abs(cover(clus) - 0.95) <= tol


def test_coverage_of_seeds_that_repeat_the_examples() -> None:
    # each example scored under 3 seeds, the prediction kept with probability 0.9 (else a coin)
    rng = np.random.default_rng(8)
    reps, n = 600, 300
    base = _clustered_frame(rng, reps, n_clusters=n, size=1, icc=0.05).rename({"passage": "example"})
    parts = []
    for seed in range(3):
        flip = rng.random(base.height) < 0.1
        coin = rng.integers(0, 2, base.height)
        kept = np.where(flip, coin, base["prediction"].to_numpy())
        parts.append(base.with_columns(seed=pl.lit(seed), prediction=pl.Series(kept)))
    df = pl.concat(parts)
    tol = 4 * np.sqrt(0.95 * 0.05 / reps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchevalWarning)
        naive = be.evaluate(df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95)
    clus = be.evaluate(
        df, by=["rep", "seed"], pool="seed", measures=["informedness"], ci=0.95, example="example"
    )
    # the truth: a kept prediction is right with probability 0.8, a coin with 0.5
    truth = 2 * (0.9 * 0.8 + 0.1 * 0.5) - 1

    def cover(out: pl.DataFrame) -> float:
        low, high = out["informedness_ci_low"].to_numpy(), out["informedness_ci_high"].to_numpy()
        return float(np.mean((low <= truth) & (high >= truth)))

    assert cover(naive) < 0.95 - tol
    assert abs(cover(clus) - 0.95) <= tol


def _board_frame(seeds: int) -> pl.DataFrame:
    rng = np.random.default_rng(9)
    label = rng.integers(0, 2, 250)
    parts = []
    for run, skill in enumerate([0.85, 0.8, 0.6]):
        base = np.where(rng.random(250) < skill, label, 1 - label)
        for seed in range(seeds):
            parts.append(pl.DataFrame({"run": run, "seed": seed, "example": np.arange(250), "label": label,
                                       "prediction": base}))  # fmt: skip
    return pl.concat(parts)


def test_board_with_repeated_examples_equals_the_board_of_one_seed() -> None:
    one = be.leaderboard(_board_frame(1), run="run", example="example", cluster="example", adjacent=True)
    tripled = be.leaderboard(_board_frame(3), run="run", pool="seed", example="example", adjacent=True)
    assert tripled["n"].to_list() == [750, 750, 750]
    for col in ("informedness_ci_low", "informedness_ci_high", "p_vs_leader", "p_vs_above"):
        np.testing.assert_allclose(tripled[col].to_numpy(), one[col].to_numpy(), rtol=1e-10)


def test_board_with_a_pooled_column_in_the_example_gives_evaluate_s_interval() -> None:
    # fold both pooled and part of the example (ids restart in each fold), seeds repeating the
    # examples: the board crashed with polars' DuplicateError ("multiple fields with name 'fold'")
    # where evaluate gives the interval; the board's interval is evaluate's, and the seeds, which
    # repeat every prediction, count each example once (the board of one seed, clustered by it)
    rng = np.random.default_rng(0)
    label = {f: rng.integers(0, 2, 40) for f in range(2)}
    parts = []
    for run, skill in enumerate([0.8, 0.65]):
        for f in range(2):
            pred = np.where(rng.random(40) < skill, label[f], 1 - label[f])
            parts += [pl.DataFrame({"run": run, "seed": s, "fold": f, "ex": np.arange(40), "label": label[f],
                                    "prediction": pred}) for s in range(3)]  # fmt: skip
    df = pl.concat(parts)
    board = be.leaderboard(df, run="run", pool=["seed", "fold"], example=["fold", "ex"]).sort("run")
    want = be.evaluate(df, by="run", pool=["seed", "fold"], measures=["informedness"], ci=0.95,
                       example=["fold", "ex"]).sort("run")  # fmt: skip
    one = be.leaderboard(df.filter(pl.col("seed") == 0), run="run", pool="fold", example=["fold", "ex"],
                         cluster=["fold", "ex"]).sort("run")  # fmt: skip
    assert board["n"].to_list() == [240, 240]
    for col in ("informedness", "informedness_ci_low", "informedness_ci_high"):
        np.testing.assert_allclose(board[col].to_numpy(), want[col].to_numpy(), rtol=1e-12)
        np.testing.assert_allclose(board[col].to_numpy(), one[col].to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(board["p_vs_leader"].to_numpy(), one["p_vs_leader"].to_numpy(), rtol=1e-10)


def test_board_with_singleton_clusters_is_the_paired_delta_test_times_n_over_n_minus_1() -> None:
    df = _board_frame(1)
    # kappa: the paired delta board tests informedness and the rates with an exact sign-flip
    # test instead, so the identity is with a measure it still tests by its delta-method SE
    clus = be.leaderboard(df, run="run", example="example", cluster="example", measure="kappa_cohen")
    delta = be.leaderboard(df, run="run", example="example", paired="delta", measure="kappa_cohen")
    # the clustered test refers its statistic to t with C - 1 = 249 degrees of freedom
    z_clus = stats.t.isf(clus["p_vs_leader"].to_numpy()[1:] / 2, 249)
    # the paired board's p-value of kappa is the larger of the swap test's and the delta
    # method's normal one, so the delta method's z is rebuilt from the joint tables here
    pred = {r: df.filter(pl.col("run") == r).sort("example")["prediction"].to_numpy() for r in range(3)}
    label = df.filter(pl.col("run") == 0).sort("example")["label"].to_numpy()
    leader = delta["run"][0]
    joint = np.zeros((2, 2, 2, 2), dtype=np.int64)  # [run, real, leader's prediction, run's prediction]
    for i, r in enumerate(delta["run"].to_list()[1:]):
        np.add.at(joint[i], (label, pred[leader], pred[r]), 1)
    se = paired_se.delta_se(joint, "kappa_cohen", 1)
    z_delta = np.abs(delta["diff_vs_leader"].to_numpy()[1:]) / se
    np.testing.assert_allclose(z_clus, z_delta * np.sqrt(249 / 250), rtol=1e-6)
    assert clus.columns == be.leaderboard(df, run="run", measure="kappa_cohen").columns  # unpaired columns


def test_size_of_the_clustered_paired_test_under_the_null() -> None:
    # two runs of equal skill on the same clustered examples (difficulty shared by both runs);
    # a two-run board's p_vs_leader does not depend on which run leads, so its size is the test's
    rng = np.random.default_rng(11)
    reps, n_clusters, size, icc = 1000, 60, 5, 0.3
    q = np.repeat(rng.beta(0.8 * (1 - icc) / icc, 0.2 * (1 - icc) / icc, (reps, n_clusters)), size, axis=1)
    label = rng.integers(0, 2, q.shape)
    frames = [
        pl.DataFrame(
            {
                "rep": np.repeat(np.arange(reps), n_clusters * size),
                "run": run,
                "passage": np.tile(np.repeat(np.arange(n_clusters), size), reps),
                "label": label.ravel(),
                "prediction": np.where(rng.random(q.shape) < q, label, 1 - label).ravel(),
            }
        )
        for run in range(2)
    ]
    df = pl.concat(frames)
    table = be.ContingencyTable.from_frame(df, by=["rep", "run"])
    cells = cl.cluster_cells(df, ["rep", "run"], ["passage"], "label", "prediction", table)
    counts = np.asarray(table.counts)
    partner = np.arange(len(table)) ^ 1  # keys sorted by (rep, run): rows 2r and 2r + 1 are one board
    value = be.ContingencyTable(table.keys, table.classes, counts).measures(["informedness"])["informedness"]
    se = cl.paired_cluster_se(counts, cells, "informedness", partner)
    z = np.abs(value.to_numpy() - value.to_numpy()[partner]) / se
    rejected = (2 * stats.norm.sf(z[::2])) < 0.05
    tol = 4 * np.sqrt(0.05 * 0.95 / reps)
    assert abs(rejected.mean() - 0.05) <= tol, rejected.mean()


def test_measures_without_a_clustered_interval_are_named() -> None:
    # with example= the measures with no cluster-robust interval were dropped without a word
    # (stop 43): they are named, and f1, jaccard and mcc of two classes have one
    rng = np.random.default_rng(0)
    n = 60
    y, p = rng.integers(0, 2, 3 * n), rng.integers(0, 2, 3 * n)
    df = pl.DataFrame(
        {"run": np.repeat([0, 1, 2], n), "ex": np.tile(np.arange(n), 3), "label": y, "prediction": p}
    )
    asked = ["recall", "f1", "mcc", "jaccard", "macro_f1", "p_informedness"]
    with pytest.warns(BatchevalWarning, match=r"no cluster-robust interval for \['macro_f1'\]:"):
        out = be.evaluate(df, by="run", measures=asked, ci=0.95, example="ex")
    got = [c.removesuffix("_ci_low") for c in out.columns if c.endswith("_ci_low")]
    assert got == ["recall", "f1", "mcc", "jaccard"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default set: no warning
        out = be.evaluate(df, by="run", ci=0.95, example="ex")
    assert {"f1_ci_low", "jaccard_ci_low", "informedness_ci_low"} <= set(out.columns)


@pytest.mark.parametrize(
    "names", [{"run": "__row"}, {"run": "__pair"}, {"ex": "__i"}, {"ex": "__c"}, {"run": "__g"}]
)
def test_columns_named_like_intermediates_give_the_same_results(names: dict) -> None:
    # string example ids take the joins of the clustered path, which named their intermediate
    # columns __row, __pair, __i, __values and __g: a user's column of that name failed with
    # polars' DuplicateError (stop 43)
    rng = np.random.default_rng(0)
    n = 60
    # one label an example, in every run (a paired board refuses labels that differ)
    y, p = np.tile(rng.integers(0, 2, n), 3), rng.integers(0, 2, 3 * n)
    ex = np.tile(np.arange(n), 3).astype(str)
    df = pl.DataFrame({"run": np.repeat([0, 1, 2], n), "ex": ex, "label": y, "prediction": p})
    run, example = names.get("run", "run"), names.get("ex", "ex")
    renamed = df.rename(names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BatchevalWarning)
        for call in (
            lambda d, r, e: be.evaluate(d, by=r, ci=0.95, example=e, measures=["informedness"]),
            lambda d, r, e: be.leaderboard(d, run=r, example=e),
            lambda d, r, e: be.evaluate(
                d.with_columns(__values=pl.col(e)),
                by=r,
                ci=0.95,
                example=e,
                cluster="__values",
                measures=["recall"],
            ),
        ):
            assert call(renamed, run, example).drop(run).equals(call(df, "run", "ex").drop("run"))


@pytest.mark.parametrize("measure", ["f1", "jaccard", "macro_f1"])
def test_a_clustered_board_names_the_measures_it_cannot_compare(measure: str) -> None:
    # its tests read the measure's delta-method gradient: f1's interval has a clustered closed
    # form since stop 43, but the board's comparisons do not, so the board says so before it
    # starts (not "no delta-method gradient" from inside the paired test). Binary mcc is compared
    # as correlation (test_leaderboard.py, test_binary_equivalents_rank_a_clustered_board_as_their_measure)
    rng = np.random.default_rng(3)
    n = 30
    y = rng.integers(0, 2, n)
    df = pl.concat(
        pl.DataFrame(
            {
                "run": r,
                "seed": s,
                "example": np.arange(n),
                "label": y,
                "prediction": np.where(rng.random(n) < 0.7, y, 1 - y),
            }
        )
        for r in range(2)
        for s in range(3)
    )
    with pytest.raises(
        be.UnknownMeasureError, match=rf"measure '{measure}' cannot rank runs whose examples repeat"
    ):
        be.leaderboard(df, pool="seed", measure=measure, example="example")
    be.leaderboard(df.filter(pl.col("seed") == 0), measure=measure, example="example")  # unrepeated: fine


def test_no_side_of_a_clustered_interval_is_narrower_than_the_rows_own() -> None:
    # design effect 2.02: [[20, 1], [1, 15]] rounds to the perfect [[10, 0], [0, 7]], and the interval
    # ended at the estimate, 0.890, on a table with two errors (the rows' upper end is 0.970)
    clusters = [([0, 0], [0, 0]), ([0] * 6, [0] * 6), ([0, 0, 1, 1], [0, 1, 0, 1]), ([1] * 6, [1] * 6),
                ([0] * 6, [0] * 6), ([0, 1], [0, 1]), ([1, 1, 1, 1, 0], [1, 1, 1, 1, 0]),
                ([0, 1, 0, 0], [0, 1, 0, 0]), ([1, 1], [1, 1])]  # fmt: skip
    df = pl.DataFrame(
        [
            {"passage": c, "label": y, "prediction": p}
            for c, (ys, ps) in enumerate(clusters)
            for y, p in zip(ys, ps, strict=True)
        ]
    )
    names = ["informedness", "markedness", "kappa_cohen"]
    rows = be.evaluate(df, measures=names, ci=0.95).row(0, named=True)
    clus = be.evaluate(df, measures=names, ci=0.95, cluster="passage").row(0, named=True)
    assert (rows["fp"], rows["fn"]) == (1, 1)
    for m in names:
        assert (
            clus[m + "_ci_low"] < rows[m + "_ci_low"] < clus[m] < rows[m + "_ci_high"] <= clus[m + "_ci_high"]
        )
    assert rows["informedness_ci_high"] == pytest.approx(0.9701, abs=1e-4)
    # random clustered groups of mostly right predictions, where rounding empties cells most
    rng = np.random.default_rng(96)
    parts = []
    for rep in range(2000):
        sizes = rng.integers(1, 7, rng.integers(4, 30))
        passage = np.repeat(np.arange(len(sizes)), sizes)
        label = np.where(rng.random(len(passage)) < 0.9, rng.integers(0, 2, len(sizes))[passage],
                         rng.integers(0, 2, len(passage)))  # fmt: skip
        good = (rng.random(len(sizes)) < 0.9)[passage] | (rng.random(len(passage)) < 0.3)
        pred = np.where(good ^ (rng.random(len(passage)) < 0.03), label, 1 - label)
        parts.append(pl.DataFrame({"rep": rep, "passage": passage, "label": label, "prediction": pred}))
    data = pl.concat(parts)
    table = be.ContingencyTable.from_frame(data, by="rep")
    cells = cl.cluster_cells(data, ["rep"], ["passage"], "label", "prediction", table)
    effects, _ = cl.design_effects(np.asarray(table.counts), cells, names)
    rows = be.evaluate(data, by="rep", measures=names, ci=0.95)
    clus = be.evaluate(data, by="rep", measures=names, ci=0.95, cluster="passage")
    for m in names:
        at = (effects[m][0] >= 1.0) & np.isfinite(rows[m + "_ci_low"].to_numpy())
        assert at.sum() > 1500
        # within rounding: where both ends are the same bound (kappa's -0.374 of one group) the two
        # paths' last bits may fall either way
        assert (clus[m + "_ci_low"].to_numpy()[at] <= rows[m + "_ci_low"].to_numpy()[at] + 1e-12).all()
        assert (clus[m + "_ci_high"].to_numpy()[at] >= rows[m + "_ci_high"].to_numpy()[at] - 1e-12).all()
