"""Edges that used to give a wrong answer or a crash (issue 21): f_beta at β = 0, empty sweeps,
one-class AUC groups, and the memory guards of sweeps and cluster alignment."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics

import batcheval as be
from batcheval.core import memory


def _binary_frame(seed: int = 0, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pl.DataFrame(
        {
            "run": rng.integers(0, 4, n),
            "label": label,
            "prediction": np.where(rng.random(n) < 0.7, label, 1 - label),
            "score": np.round(rng.random(n) * 0.6 + 0.4 * label, 2),
        }
    )


def test_f_beta_at_beta_zero_is_precision():
    """β = 0 weighs recall by 0: F_0 = precision (before: β = 0 was read as 1 and gave F1)."""
    df = _binary_frame()
    out = be.evaluate(df, by="run", measures=["f_beta", "f1"], beta=0.0).sort("run")
    for run, got in out.select("run", "f_beta").iter_rows():
        part = df.filter(pl.col("run") == run)
        expected = metrics.precision_score(part["label"], part["prediction"])
        assert got == pytest.approx(expected, rel=1e-15)
    assert not np.allclose(out["f_beta"], out["f1"])


@pytest.mark.parametrize("beta", [-1.0, float("nan"), float("inf"), "2", True])
def test_f_beta_rejects_a_beta_that_is_not_a_finite_non_negative_number(beta):
    with pytest.raises(be.InvalidArgumentError, match=r"beta must be a finite number >= 0, got"):
        be.evaluate(_binary_frame(), by="run", measures=["f_beta"], beta=beta)


@pytest.mark.parametrize("beta", [1e101, 1e154, 1e200, 1.7e308, 10**400])
def test_f_beta_refuses_a_beta_whose_square_overflows(beta):
    """Before: β = 1e154 or 1e200 passed the check and gave NaN (β² = inf, then inf/inf)."""
    with pytest.raises(
        be.InvalidArgumentError,
        match=r"beta must be at most 1e\+100 \(beyond, beta\*\*2 overflows; f_beta is then recall\)",
    ):
        be.evaluate(_binary_frame(), by="run", measures=["f_beta"], beta=beta)


def test_f_beta_at_the_largest_beta_is_recall():
    df = _binary_frame()
    out = be.evaluate(df, by="run", measures=["f_beta"], beta=1e100).sort("run")
    for run, got in out.select("run", "f_beta").iter_rows():
        part = df.filter(pl.col("run") == run)
        assert got == pytest.approx(metrics.recall_score(part["label"], part["prediction"]), rel=1e-15)


def test_f_beta_matches_sklearn_at_a_numpy_beta():
    df = _binary_frame(1)
    got = be.evaluate(df, measures=["f_beta"], beta=np.float64(0.5))["f_beta"][0]
    assert got == pytest.approx(metrics.fbeta_score(df["label"], df["prediction"], beta=0.5), rel=1e-14)


def _fbeta(part: pl.DataFrame, beta: float, predicted: str = "prediction") -> float:
    return metrics.fbeta_score(part["label"], part[predicted], beta=beta)


def test_beta_adds_f_beta_after_a_measures_list_in_evaluate():
    """docs: "f_beta (added when given)"; with a measures= list beta was dropped without a word."""
    df = _binary_frame(2)
    out = be.evaluate(df, by="run", measures=["f1", "recall"], beta=2.0).sort("run")
    assert out.columns == ["run", "n", "tp", "fp", "fn", "tn", "f1", "recall", "f_beta"]
    for run, got in out.select("run", "f_beta").iter_rows():
        assert got == pytest.approx(_fbeta(df.filter(pl.col("run") == run), 2.0), rel=1e-14)
    # an alias and f_beta named in the list: its place is kept, no second column
    out = be.evaluate(df, by="run", measures=["f_beta", "tpr"], beta=0.5)
    assert out.columns == ["run", "n", "tp", "fp", "fn", "tn", "f_beta", "tpr"]
    one = be.evaluate(y_true=df["label"], y_pred=df["prediction"], measures="accuracy", beta=0.5)
    assert one.columns[-2:] == ["accuracy", "f_beta"]
    assert one["f_beta"][0] == pytest.approx(_fbeta(df, 0.5), rel=1e-14)
    pooled = be.evaluate(df.with_columns(fold=pl.col("run") % 2), by=["run", "fold"], pool="fold",
                         measures=["informedness"], beta=2.0).sort("run")  # fmt: skip
    assert pooled.columns[-4:] == ["informedness_mean", "informedness_std", "f_beta_mean", "f_beta_std"]
    for run, got in pooled.select("run", "f_beta").iter_rows():
        assert got == pytest.approx(_fbeta(df.filter(pl.col("run") == run), 2.0), rel=1e-14)
    # the one-vs-rest rows of three classes are binary too; three classes measured whole have no f_beta,
    # as the default set has none
    three = df.with_columns(label=pl.col("label") + (pl.col("run") == 3), prediction=pl.col("prediction") * 2)
    per = be.evaluate(three, measures=["recall"], per_class=True, beta=2.0).sort("class")
    want = metrics.fbeta_score(three["label"], three["prediction"], beta=2.0, average=None, labels=[0, 1, 2])
    assert per.columns[-1] == "f_beta" and per["f_beta"].to_list() == pytest.approx(want, rel=1e-14)
    assert "f_beta" not in be.evaluate(three, measures=["accuracy"], beta=2.0).columns


def test_beta_adds_f_beta_after_a_measures_list_in_sweep_and_table_measures():
    df = _binary_frame(3)
    out = be.sweep(df, by="run", score="score", thresholds=[0.3, 0.6], measures=["f1"], beta=2.0)
    assert out.columns == ["run", "threshold", "n", "tp", "fp", "fn", "tn", "f1", "f_beta"]
    for run, threshold, got in out.select("run", "threshold", "f_beta").iter_rows():
        part = df.filter(pl.col("run") == run).with_columns(cut=pl.col("score") >= threshold)
        assert got == pytest.approx(_fbeta(part, 2.0, "cut"), rel=1e-14)
    pooled = be.sweep(df.with_columns(fold=pl.col("run") % 2), by="run", score="score", thresholds=[0.5],
                      pool="fold", measures=[], beta=2.0)  # fmt: skip
    assert pooled.columns[-3:] == ["f_beta", "f_beta_mean", "f_beta_std"]
    table = be.ContingencyTable.from_frame(df, by="run")
    got = table.measures(["precision"], beta=0.5).sort("run")
    assert got.columns[-2:] == ["precision", "f_beta"]
    for run, value in got.select("run", "f_beta").iter_rows():
        assert value == pytest.approx(_fbeta(df.filter(pl.col("run") == run), 0.5), rel=1e-14)


def test_cli_beta_adds_f_beta_after_measures(tmp_path):
    from tests.cli_run import run_cli

    df = _binary_frame(4)
    path = tmp_path / "p.parquet"
    df.write_parquet(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "--measures", "f1", "--beta", "2",
                   "-o", str(tmp_path / "e.parquet"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = pl.read_parquet(tmp_path / "e.parquet").sort("run")
    assert out.columns[-2:] == ["f1", "f_beta"]
    for run, got in out.select("run", "f_beta").iter_rows():
        assert got == pytest.approx(_fbeta(df.filter(pl.col("run") == run), 2.0), rel=1e-14)
    proc = run_cli("sweep", str(path), "--by", "run", "--thresholds", "0.5", "--measures", "recall",
                   "--beta", "0.5", "-o", str(tmp_path / "s.parquet"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = pl.read_parquet(tmp_path / "s.parquet").sort("run")
    assert out.columns[-2:] == ["recall", "f_beta"]
    for run, got in out.select("run", "f_beta").iter_rows():
        part = df.filter(pl.col("run") == run).with_columns(cut=pl.col("score") >= 0.5)
        assert got == pytest.approx(_fbeta(part, 0.5, "cut"), rel=1e-14)


def test_sweep_of_an_empty_frame_has_the_full_schema():
    """Before: a reshape error from numpy for an int number of thresholds."""
    df = _binary_frame().clear()
    full = be.sweep(_binary_frame(), by="run", score="score", thresholds=5)
    for thresholds in (5, [0.2, 0.5], "exact"):
        out = be.sweep(df, by="run", score="score", thresholds=thresholds)
        assert out.height == 0
        assert out.schema == full.schema


def _folds() -> pl.DataFrame:
    return pl.DataFrame({"fold": [0, 0, 1, 1], "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.2, 0.8]})


_UNKEYED_CALLS = {
    "sweep 3": lambda d, **kw: be.sweep(d, thresholds=3, **kw),
    "sweep list": lambda d, **kw: be.sweep(d, thresholds=[0.2, 0.5], **kw),
    "sweep exact": lambda d, **kw: be.sweep(d, thresholds="exact", **kw),
    "sweep pool": lambda d, **kw: be.sweep(d, thresholds=3, pool="fold", **kw),
    "sweep list pool": lambda d, **kw: be.sweep(d, thresholds=[0.2, 0.5], pool="fold", **kw),
    "auc": be.auc,
    "auc pool": lambda d, **kw: be.auc(d, pool="fold", **kw),
    "auc by pool": lambda d, **kw: be.auc(d, by="fold", pool="fold", **kw),
    "auc ci": lambda d, **kw: be.auc(d, ci=0.95, **kw),
}


@pytest.mark.parametrize("call", _UNKEYED_CALLS.values(), ids=list(_UNKEYED_CALLS))
def test_no_rows_without_keys_give_no_row_in_sweep_and_auc(call):
    """Without by, one group, or none when no rows are left (ContingencyTable.from_frame, .pool; docs/
    cli.md: a result with no rows is an empty table in evaluate, sweep, auc). Before: an empty input
    gave sweep a row of n = 0 at each made-up threshold 0, 0.5, 1 (or at each one asked) and auc one
    row of n = 0, with pool= too; evaluate gives none."""
    df = _folds()
    full = call(df)
    nan = df.with_columns(score=pl.lit(float("nan")))
    nulls = df.with_columns(label=pl.lit(None, dtype=pl.Int64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)  # the rows dropped
        empties = {
            "filtered": call(df.filter(pl.col("fold") > 5)),
            "cleared": call(df.clear()),
            "nulls dropped": call(nulls, drop_nulls=True),
            "non-finite dropped": call(nan, drop_nonfinite=True),
        }
    assert full.height >= 1
    assert be.evaluate(df.clear().with_columns(prediction=pl.col("label"))).height == 0
    for how, empty in empties.items():
        assert empty.height == 0, how
        assert empty.schema == full.schema, how
        assert pl.concat([full, empty]).height == full.height, how


@pytest.mark.parametrize("pool", [None, "fold"])
def test_no_rows_without_keys_give_no_row_in_a_streamed_sweep(pool):
    df = _folds()
    full = be.sweep(df.lazy(), thresholds=[0.2, 0.5], pool=pool)
    empty = be.sweep(df.lazy().filter(pl.col("fold") > 5), thresholds=[0.2, 0.5], pool=pool)
    assert full.height == 2 and empty.height == 0
    assert empty.schema == full.schema


@pytest.mark.parametrize(
    "kwargs", [{}, {"pool": "fold"}, {"per_class": True}, {"per_class": True, "ci": 0.95}]
)
def test_no_rows_without_keys_give_no_row_in_a_multiclass_auc(kwargs):
    """The averages over classes of no rows: no row either (before: one of n = 0)."""
    df = pl.DataFrame(
        {
            "fold": [0, 0, 0, 1, 1, 1],
            "label": [0, 1, 2, 0, 1, 2],
            "s0": [0.5, 0.2, 0.3, 0.6, 0.1, 0.3],
            "s1": [0.2, 0.5, 0.3, 0.2, 0.6, 0.2],
            "s2": [0.3, 0.3, 0.4, 0.2, 0.3, 0.5],
        }
    )
    full = be.auc(df, score=["s0", "s1", "s2"], classes=[0, 1, 2], **kwargs)
    empty = be.auc(df.clear(), score=["s0", "s1", "s2"], classes=[0, 1, 2], **kwargs)
    assert full.height == (3 if "per_class" in kwargs else 1) and empty.height == 0
    assert empty.schema == full.schema
    assert pl.concat([full, empty]).height == full.height


def test_auc_of_a_one_class_group_has_no_best_threshold():
    """Before: best_threshold = the top score and best_informedness = 0 where the docstring
    promises NaN."""
    df = pl.DataFrame(
        {"run": [1, 1, 1, 2, 2, 2], "label": [1, 1, 1, 0, 1, 0], "score": [0.2, 0.5, 0.9, 0.1, 0.7, 0.3]}
    )
    out = be.auc(df, by="run", score="score").sort("run")
    one, two = out.row(0, named=True), out.row(1, named=True)
    assert np.isnan(one["best_threshold"]) and np.isnan(one["best_informedness"])
    assert np.isnan(one["roc_auc"])
    assert two["roc_auc"] == metrics.roc_auc_score([0, 1, 0], [0.1, 0.7, 0.3])
    assert (two["best_threshold"], two["best_informedness"]) == (0.7, 1.0)


def _sweep_reference(df: pl.DataFrame, thresholds: np.ndarray) -> dict[tuple[int, float], tuple[int, ...]]:
    """Plain numpy: per (run, threshold) the cells with ``score >= threshold`` predicted positive."""
    out = {}
    for run in df["run"].unique().to_list():
        part = df.filter(pl.col("run") == run)
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        for t in thresholds:
            p = s >= t
            out[(run, float(t))] = (
                int(np.sum(p & (y == 1))),
                int(np.sum(p & (y == 0))),
                int(np.sum(~p & (y == 1))),
                int(np.sum(~p & (y == 0))),
            )
    return out


def test_sweep_counts_on_fewer_threads_when_thread_tables_would_be_too_large(monkeypatch):
    """Many groups × many thresholds × threads of private tables is bounded: past PRIVATE_CELLS
    the sweep counts on fewer threads and the cells stay exact."""
    from batcheval.scores import sweep as sweep_module

    df = _binary_frame(2, 2000)
    thresholds = np.linspace(0.0, 1.0, 11)
    monkeypatch.setattr(sweep_module, "PRIVATE_CELLS", 1)
    out = be.sweep(df, by="run", score="score", thresholds=thresholds.tolist(), measures=[])
    expected = _sweep_reference(df, thresholds)
    got = {
        (r, t): (a, b, c, d)
        for r, t, a, b, c, d in out.select("run", "threshold", "tp", "fp", "fn", "tn").rows()
    }
    assert got == expected


def test_sweep_refuses_a_histogram_larger_than_memory_before_allocating(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 1000)
    with pytest.raises(be.MemoryBudgetError, match=r"a sweep of 4 groups × 101 thresholds needs 9\.6 KiB"):
        be.sweep(_binary_frame(), by="run", score="score", thresholds=101)


def test_sweep_refuses_a_histogram_larger_than_memory_before_making_its_grid(monkeypatch):
    # thresholds=10**9 over 3 groups built 16 GB of linspace grid before the histogram's check refused
    size = 4 * (101 + 1) * 2 * 12  # 4 groups, two cells a bin, 12 B a cell: the histogram's check
    monkeypatch.setattr(memory, "available_bytes", lambda: size - 1)

    def no_grid(*args, **kwargs):
        raise AssertionError("the grid was made before the histogram was checked")

    monkeypatch.setattr(np, "linspace", no_grid)
    with pytest.raises(be.MemoryBudgetError, match=r"^a sweep of 4 groups × 101 thresholds needs 9\.6 KiB"):
        be.sweep(_binary_frame(), by="run", score="score", thresholds=101)
    monkeypatch.undo()
    monkeypatch.setattr(memory, "available_bytes", lambda: 10**9)
    assert be.sweep(_binary_frame(), by="run", score="score", thresholds=101, measures=[]).height == 4 * 101


@pytest.mark.parametrize("measures", [None, ["informedness", "kappa", "f1", "mcc", "recall"], "all"])
def test_sweep_refuses_an_output_larger_than_memory_before_allocating(monkeypatch, measures):
    # the histogram's guard passed grids whose output is five times its size: 1,000 groups × 40,000
    # thresholds under ulimit -v 4 GB ended in pyarrow's "malloc of size 1600000000 failed"
    frame = _binary_frame()
    out = be.sweep(frame, by="run", score="score", thresholds=101, measures=measures)
    size = out.estimated_size()  # what polars says the output holds: the guard's own count
    assert out.height == 4 * 101
    monkeypatch.setattr(memory, "available_bytes", lambda: size - 1)
    message = rf"^the sweep of 4 groups × 101 thresholds needs {re.escape(memory.format_bytes(size))}, "
    with pytest.raises(be.MemoryBudgetError, match=message):
        be.sweep(frame, by="run", score="score", thresholds=101, measures=measures)
    monkeypatch.setattr(memory, "available_bytes", lambda: size)
    assert be.sweep(frame, by="run", score="score", thresholds=101, measures=measures).equals(out)


def test_sweep_refuses_a_count_and_one_groups_output_before_making_its_grid(monkeypatch):
    # 3 groups × 2e8 thresholds passed the histogram's check, built a 1.6 GB grid and filled a 14 GB
    # histogram for 20-30 s before the output's check refused: both are alive at once, and every
    # group with a finite score writes at least its own rows
    frame = _binary_frame()
    one_group = 101 * 8 * (6 + 1 + 8)  # n, threshold, four cells, the key and the eight default measures
    needed = 4 * (101 + 1) * 2 * 12 + one_group
    monkeypatch.setattr(memory, "available_bytes", lambda: needed - 1)

    def no_grid(*args, **kwargs):
        raise AssertionError("the grid was made before the output's floor was checked")

    monkeypatch.setattr(np, "linspace", no_grid)
    message = (
        r"^the sweep of 4 groups × 101 thresholds \(its count and one group's rows\) needs "
        + re.escape(memory.format_bytes(needed))
    )
    with pytest.raises(be.MemoryBudgetError, match=message):
        be.sweep(frame, by="run", score="score", thresholds=101)
    monkeypatch.undo()
    monkeypatch.setattr(memory, "available_bytes", lambda: needed)
    with pytest.raises(be.MemoryBudgetError, match=r"^the sweep of 4 groups × 101 thresholds needs"):
        be.sweep(frame, by="run", score="score", thresholds=101)  # four groups' rows do not fit
    # scores all equal give one threshold whatever the count: no floor of 101 rows
    monkeypatch.setattr(memory, "available_bytes", lambda: 10**9)
    flat = frame.with_columns(score=pl.lit(0.5))
    assert be.sweep(flat, by="run", score="score", thresholds=10**6, measures=[]).height == 4


def test_a_streamed_sweep_refuses_its_whole_output_before_measuring_it(monkeypatch):
    # each part's counts were guarded, the measures of the merged parts not: they are 15 columns a row
    # where a part's counts are 11
    frame = _binary_frame()
    out = be.sweep(frame.lazy(), by="run", score="score", thresholds=101)
    assert out.equals(be.sweep(frame, by="run", score="score", thresholds=101))
    size = out.estimated_size()
    monkeypatch.setattr(memory, "available_bytes", lambda: size - 1)
    message = rf"^the sweep's 404 rows \(groups × thresholds\) needs {re.escape(memory.format_bytes(size))}, "
    with pytest.raises(be.MemoryBudgetError, match=message):
        be.sweep(frame.lazy(), by="run", score="score", thresholds=101)
    monkeypatch.setattr(memory, "available_bytes", lambda: size)
    assert be.sweep(frame.lazy(), by="run", score="score", thresholds=101).equals(out)


def test_alignment_table_is_as_wide_as_a_group_not_as_the_whole_frame():
    """Globally unique cluster ids: 3,000 groups with 3 ids each. Sized by the frame's 9,000 ids,
    the table was 3,000 × 9,001² int64 (1.9 TB); sized per group it is 3,000 × 2 × 4."""
    n_groups = 3000
    run = np.repeat(np.arange(n_groups), 6)
    label = np.tile([0, 0, 0, 1, 1, 1], n_groups)
    local = np.tile([0, 0, 1, 2, 2, 2], n_groups)  # ids 0 and 1 mostly class 0, id 2 class 1
    df = pl.DataFrame({"run": run, "label": label, "cluster": run * 3 + local})
    out = be.evaluate(df, by="run", prediction="cluster", align="hungarian", measures=["accuracy"])
    assert out.height == n_groups
    # per group: id 0 → class 0 (2 right), id 2 → class 1 (3 right); id 1 is unmatched (abstained)
    assert out["abstained"].to_list() == [1] * n_groups
    assert out["accuracy"].to_list() == [1.0] * n_groups


def test_alignment_refuses_a_table_larger_than_memory(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 100)
    df = pl.DataFrame({"run": [1, 1, 2], "label": [0, 1, 1], "cluster": [5, 6, 7]})
    with pytest.raises(be.MemoryBudgetError, match=r"aligning 2 groups with up to 2 cluster ids each"):
        be.evaluate(df, by="run", prediction="cluster", align="hungarian", measures=["accuracy"])


@pytest.mark.parametrize("kwargs", [{}, {"example": "example"}, {"classes": [0, 1], "adjacent": True}])
def test_leaderboard_of_an_empty_frame_has_the_full_schema(kwargs):
    """Before: 'a leaderboard needs at least 2 classes, got []', or an IndexError with classes=."""
    df = _binary_frame().with_columns(example=pl.int_range(pl.len()) % 75)
    df = df.with_columns(pl.col("label").first().over("example"))  # one label an example
    full = be.leaderboard(df.filter(pl.col("run") < 2).unique(["run", "example"]), run="run", **kwargs)
    empty = be.leaderboard(df.clear(), run="run", **kwargs)
    assert empty.height == 0
    assert empty.schema == full.schema


@pytest.mark.parametrize("measure", ["fpr", "matthews", "f1", "fnr"])
@pytest.mark.parametrize(
    "kwargs", [{}, {"example": "example", "adjacent": True}, {"ci": 0.9, "drop_nulls": True}]
)
def test_an_empty_leaderboard_names_its_columns_as_asked_and_has_the_metadata(measure, kwargs):
    """The measure's columns as asked (docs: "aliases too, which name its columns"), as evaluate
    names them and a board with rows does, and the same metadata. Before: fallout*, and no
    metadata, as the empty board returned before the alias's renaming."""
    df = _binary_frame().with_columns(example=pl.int_range(pl.len()) % 75)
    df = df.with_columns(pl.col("label").first().over("example"))
    two = df.filter(pl.col("run") < 2).unique(["run", "example"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # paired f1 has no rank intervals
        full = be.leaderboard(two, measure=measure, **kwargs)
    empty = be.leaderboard(df.filter(pl.col("run") > 5), measure=measure, **kwargs)
    assert empty.height == 0
    assert empty.schema == full.schema
    assert [f"{measure}", f"{measure}_ci_low", f"{measure}_ci_high"] == empty.columns[3:6]
    assert measure in be.evaluate(df.clear(), by="run", measures=[measure]).columns
    assert empty.metadata == full.metadata  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"ci": 0.95}, {"ci": 0.95, "example": "example"}, {"per_class": True}, {"measures": ["accuracy"]}],
)
def test_pooled_evaluate_of_an_empty_frame_is_empty(kwargs):
    """Before: 'cannot reshape array of size 0 into shape (0,0)' from numpy (stop 43)."""
    df = pl.DataFrame({"run": [0, 0, 1, 1], "seed": [0, 1, 0, 1], "example": [0, 0, 1, 1],
                       "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)  # intervals of one-row groups
        full = be.evaluate(df, by=["run", "seed"], pool="seed", **kwargs)
        empty = be.evaluate(df.clear(), by=["run", "seed"], pool="seed", **kwargs)
    assert empty.height == 0
    assert empty.columns == full.columns


def test_pooling_no_rows_over_every_key_has_no_group():
    # with classes= an empty frame pooled over all its keys gave one group of n = 0 (stop 43),
    # where the unpooled frame and the pooled one without classes= give none
    df = pl.DataFrame({"run": [1], "fold": [0], "label": [0], "prediction": [1]}).clear()
    table = be.ContingencyTable.from_frame(df, by=["run", "fold"], classes=[0, 1])
    assert len(table.pool(["run", "fold"])) == 0
    assert be.evaluate(df, by="run", pool="run", classes=[0, 1]).height == 0
    one = pl.DataFrame({"run": [1, 2], "fold": [0, 0], "label": [0, 1], "prediction": [1, 1]})
    assert be.evaluate(one, by="run", pool="run", classes=[0, 1]).select("n", "n_pooled").rows() == [(2, 2)]


def _typed_runs(label: pl.DataType, prediction: pl.DataType) -> pl.DataFrame:
    return pl.DataFrame(
        {"run": [1, 1, 2, 2], "label": [0, 1, 2, 1], "prediction": [0, 1, 1, 2]},
        schema_overrides={"label": label, "prediction": prediction},
    )


@pytest.mark.parametrize(
    ("label", "prediction", "class_dtype"),
    [(pl.Int32, pl.Int32, pl.Int32), (pl.UInt8, pl.UInt8, pl.UInt8), (pl.Int32, pl.Int16, pl.Int64)],
)
@pytest.mark.parametrize(
    "kwargs", [{}, {"classes": [0, 1, 2]}, {"abstain": 9}, {"drop_nulls": True}, {"classes": [-1, 0, 1, 2]}]
)
def test_no_rows_keep_the_class_dtype_of_the_labels(tmp_path, label, prediction, class_dtype, kwargs):
    """encode.typed_classes: "Integer classes in the labels' dtype" (Int64 when they differ). With no
    rows (filtered to nothing, every row dropped as null, an empty file) the classes were Int64 where
    the same call with rows gives the labels' dtype, so pl.concat of the two failed."""
    if -1 in kwargs.get("classes", []) and label == pl.UInt8:
        class_dtype = pl.Int64  # a class UInt8 cannot hold
    df = _typed_runs(label, prediction)
    nulls = df.with_columns(pl.lit(None, dtype=label).alias("label"))
    measures = {"per_class": True, "measures": ["recall"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)  # the nulls dropped
        full = be.evaluate(df, by="run", **measures, **kwargs)
        empties = [
            be.evaluate(df.filter(pl.col("run") > 9), by="run", **measures, **kwargs),
            be.evaluate(nulls, by="run", **measures, **kwargs | {"drop_nulls": True}),
        ]
        if "abstain" not in kwargs:  # evaluate's abstain= reads no streamed source
            df.clear().write_parquet(tmp_path / "empty.parquet")
            empties.append(be.evaluate(tmp_path / "empty.parquet", by="run", **measures, **kwargs))
    assert full.schema["class"] == class_dtype and full.height == 2 * len(kwargs.get("classes", "012"))
    for empty in empties:
        assert empty.height == 0
        assert empty.schema == full.schema
        assert pl.concat([full, empty]).height == full.height
    if "abstain" in kwargs or "drop_nulls" in kwargs:
        return
    table = be.ContingencyTable.from_frame(df, by="run", **kwargs)
    none = be.ContingencyTable.from_frame(df.head(0), by="run", **kwargs)
    assert none.classes.dtype == table.classes.dtype == class_dtype
    long, no_long = table.to_long(), none.to_long()
    assert no_long.height == 0 and no_long.schema == long.schema
    assert long.schema["real"] == long.schema["predicted"] == class_dtype
    assert pl.concat([long, no_long]).height == long.height


@pytest.mark.parametrize(
    ("label", "prediction"),
    [
        (pl.String, pl.String),
        (pl.Categorical, pl.Categorical),
        (pl.Boolean, pl.Boolean),
        (pl.Float64, pl.Float64),
    ],
)
def test_no_rows_keep_the_class_kind_of_other_labels(label, prediction):
    """Strings, categoricals (as strings), booleans and integral floats (as Int64): the same classes'
    dtype with rows and without."""
    df = _typed_runs(pl.Int64, pl.Int64)
    if label == pl.Boolean:
        df = df.with_columns(pl.col("label") > 0, pl.col("prediction") > 0)
    else:
        df = df.with_columns(pl.col("label", "prediction").cast(pl.String).cast(label))
    full = be.evaluate(df, by="run", per_class=True, measures=["recall"])
    empty = be.evaluate(df.clear(), by="run", per_class=True, measures=["recall"])
    assert empty.height == 0 and empty.schema == full.schema
    assert pl.concat([full, empty]).height == full.height
    long = be.ContingencyTable.from_frame(df, by="run").to_long()
    assert be.ContingencyTable.from_frame(df.clear(), by="run").to_long().schema == long.schema


def test_counting_refuses_tables_larger_than_memory_before_allocating(monkeypatch):
    # 200,000 groups × 3,000 classes asked numpy for 13.1 TiB (a MemoryError from numpy)
    monkeypatch.setattr(memory, "available_bytes", lambda: 100)
    df = pl.DataFrame({"run": [1, 2, 3], "label": [0, 1, 2], "prediction": [2, 1, 0]})
    message = r"counting 3 groups over 3 classes \(3×3 cells each\) needs 216 B, more than the 100 B"
    with pytest.raises(be.MemoryBudgetError, match=message):
        be.ContingencyTable.from_frame(df.with_columns(pl.col("run") * 10**9), by="run")
    with pytest.raises(be.MemoryBudgetError, match=r"counting 3 groups over 3 classes"):
        be.evaluate(df, by="run")


def test_binary_measures_of_one_class_are_its_one_vs_rest_values():
    """A table of one class refused every binary measure ("'recall' is a binary measure and the
    table has 1 classes"); they are those of the class against (no) rest, as per_class=True gives."""
    from scipy import stats

    y = [1, 1, 1]
    names = ["recall", "precision", "informedness", "fallout", "p_fisher", "alpha_sbb", "accuracy"]
    out = be.evaluate(y_true=y, y_pred=y, measures=names)
    assert out.columns == ["n", *names]
    row = out.row(0, named=True)
    assert row["recall"] == metrics.recall_score(y, y) == 1.0
    assert row["precision"] == metrics.precision_score(y, y) == 1.0
    assert row["accuracy"] == metrics.accuracy_score(y, y)
    assert row["informedness"] == 0.0  # docs/measures.md: a zero margin gives 0
    assert np.isnan(row["fallout"])  # fp/rn with no real negative
    assert row["p_fisher"] == stats.fisher_exact([[3, 0], [0, 0]], alternative="greater").pvalue
    assert row["alpha_sbb"] == 0.5
    per_class = be.evaluate(y_true=y, y_pred=y, measures=names, per_class=True)
    assert per_class.select(names).equals(out.select(names))


def test_intervals_of_a_binary_measure_of_one_class_are_its_one_vs_rest_tables():
    """recall of a one-class table got no interval ("none of measures=['recall'] has an interval"),
    and with informedness beside it a warning blamed p-values. Recall's interval reads tp and the
    real positives only: a correctly rejected negative added to the data leaves it unchanged."""
    one = be.evaluate(y_true=[1] * 4, y_pred=[1] * 4, measures=["recall", "precision"], ci=0.95)
    two = be.evaluate(y_true=[1] * 4 + [0], y_pred=[1] * 4 + [0], measures=["recall", "precision"], ci=0.95)
    names = ["recall_ci_low", "recall_ci_high", "precision_ci_low", "precision_ci_high"]
    assert one.select(names).rows() == two.select(names).rows()
    assert 0 < one["recall_ci_low"][0] < 1 == one["recall_ci_high"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.evaluate(y_true=[1] * 4, y_pred=[1] * 4, measures=["informedness", "recall"], ci=0.95)


def test_null_dtype_label_prediction_and_score_columns_hold_no_values():
    typed = pl.DataFrame(
        {"run": [1, 2], "label": [None, None], "prediction": [1, 0], "score": [0.2, 0.3]},
        schema_overrides={"label": pl.Int64},
    )
    untyped = typed.with_columns(pl.lit(None).alias("label"))
    assert untyped.schema["label"] == pl.Null
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        for run in (
            lambda df: be.evaluate(df, by="run", drop_nulls=True, measures="accuracy"),
            lambda df: be.sweep(df, by="run", drop_nulls=True, thresholds=[0.5]),
            lambda df: be.auc(df, by="run", drop_nulls=True),
            lambda df: be.curves(df, by="run", drop_nulls=True),
        ):
            out = run(untyped)
            assert out.height == 0
            assert out.schema == run(typed).schema
        no_scores = typed.with_columns(pl.lit(1).alias("label"), pl.lit(None).alias("score"))
        assert be.auc(no_scores, by="run", drop_nulls=True).height == 0
    with pytest.raises(be.NullValuesError, match="label column 'label' has 2 null values out of 2"):
        be.evaluate(untyped, by="run")
    both = untyped.with_columns(pl.lit(None).alias("prediction"))
    with pytest.raises(be.NullValuesError, match="label column 'label' has 2 null values out of 2"):
        be.evaluate(both, by="run")
    empty = be.evaluate(y_true=[], y_pred=[], measures="accuracy")
    assert empty.height == 0
    assert empty.columns == ["n", "tp", "fp", "fn", "tn", "accuracy"]


@pytest.mark.parametrize("kw", [{"measure": "p_chi2"}, {"measure": "f1", "cluster": "ex"}])
def test_an_empty_leaderboard_refuses_what_a_board_with_rows_refuses(kw: dict) -> None:
    # a --filter that kept nothing turned a measure the board cannot rank by into an empty board
    df = pl.DataFrame({"run": ["a", "a", "b", "b"], "label": [0, 1, 0, 1], "prediction": [0, 1, 1, 1],
                       "ex": [0, 1, 0, 1]})  # fmt: skip
    messages = []
    for frame in (df, df.filter(pl.col("run") == "z")):
        with pytest.raises(be.errors.UnknownMeasureError) as caught:
            be.leaderboard(frame, run="run", **kw)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "cannot rank runs" in messages[0]


@pytest.mark.parametrize("entry", ["evaluate", "sweep"])
def test_weighted_fold_spread_of_one_table_is_nan_and_of_equal_tables_zero(entry):
    # mean_weights="n" took the mean one rounding step off a lone table's value (5/6 came out
    # 0.8333333333333335), and that deviation over Σw − Σw²/Σw = 0 made precision_std inf
    one = pl.DataFrame({"run": ["a"] * 11, "fold": [0] * 11, "label": [1] * 5 + [0] * 6,
                        "prediction": [1] * 6 + [0] * 5, "score": [0.9] * 6 + [0.1] * 5})  # fmt: skip
    rng = np.random.default_rng(3)
    folds = pl.DataFrame(
        {"run": ["b"] * 90, "fold": np.repeat([0, 1, 2], 30), "label": rng.integers(0, 2, 90)}
    )
    folds = folds.with_columns(
        prediction=pl.Series(np.where(rng.random(90) < 0.7, folds["label"], 1 - folds["label"]))
    ).with_columns(score=pl.col("prediction") * 0.8 + 0.1)
    same = one.with_columns(run=pl.lit("c"))
    same = pl.concat([same, same.with_columns(fold=pl.lit(1, dtype=pl.Int64))])  # two equal tables
    df = pl.concat([one, folds, same], how="vertical_relaxed")
    if entry == "evaluate":
        out = be.evaluate(df, by=["run", "fold"], pool="fold", measures=["precision"], mean_weights="n")
    else:
        out = be.sweep(df, by=["run", "fold"], pool="fold", thresholds=[0.5], measures=["precision"],
                       mean_weights="n")  # fmt: skip
    got = {r["run"]: r for r in out.iter_rows(named=True)}
    assert got["a"]["precision_mean"] == 5 / 6 and np.isnan(got["a"]["precision_std"])
    assert got["c"]["precision_mean"] == 5 / 6 and got["c"]["precision_std"] == 0.0
    # the three folds: reliability-weighted mean and std in plain numpy
    parts = folds.group_by("fold").agg(
        n=pl.len(),
        v=((pl.col("label") == 1) & (pl.col("prediction") == 1)).sum() / (pl.col("prediction") == 1).sum(),
    )
    w, v = parts["n"].to_numpy().astype(float), parts["v"].to_numpy()
    mean = (w * v).sum() / w.sum()
    std = np.sqrt((w * (v - mean) ** 2).sum() / (w.sum() - (w * w).sum() / w.sum()))
    assert got["b"]["precision_mean"] == pytest.approx(mean, rel=1e-14)
    assert got["b"]["precision_std"] == pytest.approx(std, rel=1e-12)
