"""Algebraic properties, checked with hypothesis on random frames and tables."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import batcheval as be
from batcheval.measures import compute


@st.composite
def frames(draw, max_rows=120, n_classes=None):
    n = draw(st.integers(1, max_rows))
    k = n_classes or draw(st.integers(2, 4))
    ints = lambda hi: arrays(np.int64, n, elements=st.integers(0, hi))  # noqa: E731
    return pl.DataFrame(
        {
            "run": draw(ints(5)),
            "fold": draw(ints(3)),
            "label": draw(ints(k - 1)),
            "prediction": draw(ints(k - 1)),
        }
    )


def _frame_equal(a: pl.DataFrame, b: pl.DataFrame) -> None:
    from polars.testing import assert_frame_equal

    assert_frame_equal(a, b, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)


def _cut(df: pl.DataFrame, n_parts: int, rnd) -> tuple[list, list[pl.DataFrame]]:
    """The frame's classes, and the frame cut into ``n_parts`` slices (some may be empty)."""
    classes = sorted(set(df["label"]) | set(df["prediction"]))
    cuts = sorted(rnd.randrange(df.height + 1) for _ in range(n_parts - 1))
    bounds = [0, *cuts, df.height]
    return classes, [df[a:b] for a, b in itertools.pairwise(bounds)]


@given(frames(), st.integers(1, 5), st.randoms(use_true_random=False))
def test_merging_parts_equals_the_whole(df, n_parts, rnd):
    classes, parts = _cut(df, n_parts, rnd)
    tables = [be.ContingencyTable.from_frame(p, by=["run", "fold"], classes=classes) for p in parts]
    whole = be.ContingencyTable.from_frame(df, by=["run", "fold"], classes=classes)
    assert sum(tables).equals(whole)
    assert be.ContingencyTable.merge(tables).equals(whole)
    assert (tables[0] + whole).equals(whole + tables[0])


@given(frames(), st.integers(1, 5), st.randoms(use_true_random=False))
def test_merging_unkeyed_parts_equals_the_whole(df, n_parts, rnd):
    """Without keys too, and a part with no rows (no group) adds nothing, not an empty group."""
    classes, parts = _cut(df, n_parts, rnd)
    tables = [be.ContingencyTable.from_frame(p, classes=classes) for p in parts]
    assert be.ContingencyTable.merge(tables).equals(be.ContingencyTable.from_frame(df, classes=classes))
    empty = be.ContingencyTable.from_frame(df.head(0), classes=classes)
    assert len(empty + empty) == len(empty) == 0


@given(frames(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(df, rnd):
    order = list(range(df.height))
    rnd.shuffle(order)
    _frame_equal(be.evaluate(df, by=["run", "fold"]), be.evaluate(df[order], by=["run", "fold"]))


@given(frames())
def test_pooled_equals_evaluating_concatenated_folds(df):
    pooled = be.evaluate(df, by=["run", "fold"], pool="fold", measures=["accuracy", "informedness"])
    direct = be.evaluate(df, by="run", measures=["accuracy", "informedness"])
    _frame_equal(pooled.select(direct.columns), direct)


@given(frames(n_classes=2))
def test_pool_mean_std_match_polars_over_per_fold_rows(df):
    names = ["accuracy", "recall"]
    per_fold = be.evaluate(df, by=["run", "fold"], measures=names, classes=[0, 1])
    expected = (
        per_fold.group_by("run")
        .agg(
            *(pl.col(m).mean().alias(f"{m}_mean") for m in names),
            *(pl.col(m).std(ddof=1).fill_null(float("nan")).alias(f"{m}_std") for m in names),
        )
        .sort("run")
    )
    pooled = be.evaluate(df, by=["run", "fold"], pool="fold", measures=names, classes=[0, 1])
    _frame_equal(pooled.select(expected.columns), expected)


@given(arrays(np.int64, (6, 2, 2), elements=st.integers(0, 40)))
def test_two_class_multiclass_measures_equal_binary_ones(tables):
    from batcheval.kernels import multiclass as mk

    shared = [m for m in mk.NAMES if m in be.BINARY_MEASURES]
    binary = compute(tables, shared)  # K = 2 dispatches these to the binary kernel
    slots = np.arange(len(mk.NAMES), dtype=np.int64)
    out = np.empty((len(mk.NAMES), len(tables)))
    mk.multiclass_measures(tables, slots, out)  # the multiclass kernel, forced on K = 2
    for name in shared:
        np.testing.assert_allclose(
            out[mk.NAMES.index(name)], binary[name], rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=name
        )


@given(arrays(np.int64, (6, 2, 2), elements=st.integers(0, 40)))
def test_spec_identities(tables):
    m = compute(tables)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (m["evenness_real"] > 0) & (m["evenness_predicted"] > 0)
        p, b = m["prevalence"], m["bias"]
        checks = {
            "informedness": m["dtp"] / m["evenness_real"],
            "markedness": m["dtp"] / m["evenness_predicted"],
            "correlation": m["dtp"] / m["evenness_global"],
            "kappa_cohen": m["dtp"] / ((p * (1 - b) + b * (1 - p)) / 2),
            # spec §2 prints dtp/((p+b)(2-p-b)/4); that holds only when p = b. In general
            # (accuracy - e) = 2·dtp - (p - b)²/2 and (1 - e) = (p+b)(2-p-b)/2:
            "kappa_fleiss": (2 * m["dtp"] - (p - b) ** 2 / 2) / ((p + b) * (2 - p - b) / 2),
            "chi2": tables.sum(axis=(1, 2)) * m["correlation"] ** 2,
            "wracc": 4 * m["dtp"],
            "bookmark": m["informedness"] * m["markedness"],
        }
    for name, expected in checks.items():
        np.testing.assert_allclose(m[name][ok], expected[ok], rtol=1e-9, atol=1e-12, err_msg=name)
    both = ok & (m["recall"] == m["recall"]) & (m["inverse_recall"] == m["inverse_recall"])
    np.testing.assert_allclose(m["auc_single"][both], (1 + m["informedness"][both]) / 2, rtol=1e-12)


@given(arrays(np.int64, (6, 2, 2), elements=st.integers(0, 40)))
def test_swapping_classes_keeps_informedness(tables):
    swapped = tables[:, ::-1, ::-1]
    a, b = compute(tables, ["informedness", "markedness"]), compute(swapped, ["informedness", "markedness"])
    np.testing.assert_allclose(a["informedness"], b["informedness"], rtol=1e-12, atol=1e-15, equal_nan=True)
    np.testing.assert_allclose(a["markedness"], b["markedness"], rtol=1e-12, atol=1e-15, equal_nan=True)


@given(arrays(np.int64, (6, 2, 2), elements=st.integers(0, 40)))
def test_transposing_swaps_informedness_with_markedness(tables):
    names = ["informedness", "markedness", "recall", "precision"]
    a, t = compute(tables, names), compute(np.transpose(tables, (0, 2, 1)), names)
    for x, y in (("informedness", "markedness"), ("recall", "precision")):
        np.testing.assert_allclose(a[x], t[y], rtol=1e-12, atol=1e-15, equal_nan=True)


@given(st.integers(3, 6).flatmap(lambda k: arrays(np.int64, (4, k, k), elements=st.integers(0, 20))))
def test_multiclass_informedness_is_prevalence_weighted_one_vs_rest(tables):
    k = tables.shape[1]
    m = compute(tables, ["informedness", "markedness"])
    per_class = be.ContingencyTable(pl.DataFrame({"g": range(len(tables))}), list(range(k)), tables).measures(
        ["informedness", "markedness", "prevalence", "bias"], per_class=True
    )
    agg = (
        per_class.group_by("g")
        .agg(
            (pl.col("prevalence") * pl.col("informedness")).sum().alias("inf"),
            (pl.col("bias") * pl.col("markedness")).sum().alias("mark"),
        )
        .sort("g")
    )
    nonempty = tables.sum(axis=(1, 2)) > 0
    np.testing.assert_allclose(
        m["informedness"][nonempty], agg["inf"].to_numpy()[nonempty], rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        m["markedness"][nonempty], agg["mark"].to_numpy()[nonempty], rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("k", [2, 3, 7])
def test_long_frame_and_pickle_round_trip(k):
    import pickle

    from tests.helpers import sweep_frame

    t = be.ContingencyTable.from_frame(sweep_frame(n_classes=k), by=["run", "fold"])
    assert be.ContingencyTable.from_long(t.to_long(), by=["run", "fold"]).equals(t)
    assert be.ContingencyTable.from_long(
        t.to_long(nonzero=True), by=["run", "fold"], classes=t.classes.to_list()
    ).equals(t)
    assert pickle.loads(pickle.dumps(t)).equals(t)


@pytest.mark.parametrize("name", ["_r", "_p", "_g", "_c", "_v"])
def test_from_long_reads_only_its_own_columns(name):
    # from_long joined helper columns of these names into the frame: a user's column of that name
    # was read in their place (wrong counts), or clashed (polars' DuplicateError)
    long = pl.DataFrame({"run": [1, 1, 2], "real": [0, 1, 1], "predicted": [0, 1, 0], "count": [3, 4, 5]})
    expected = np.zeros((2, 2, 2), dtype=np.int64)
    np.add.at(expected, (long["run"].to_numpy() - 1, long["real"].to_numpy(), long["predicted"].to_numpy()),
              long["count"].to_numpy())  # fmt: skip
    got = be.ContingencyTable.from_long(long.with_columns(pl.lit(1).alias(name)), by="run")
    np.testing.assert_array_equal(got.counts, expected)
    keyed = be.ContingencyTable.from_frame(
        pl.DataFrame({name: [1, 1, 2], "label": [0, 1, 1], "prediction": [0, 1, 0]}), by=name
    )
    assert be.ContingencyTable.from_long(keyed.to_long(), by=name).equals(keyed)


def test_an_unkeyed_table_of_no_group_round_trips():
    empty = pl.DataFrame({"label": [], "prediction": []}, schema={"label": pl.Int64, "prediction": pl.Int64})
    t = be.ContingencyTable.from_frame(empty, classes=[0, 1])
    back = be.ContingencyTable.from_long(t.to_long(), classes=[0, 1])
    assert len(t) == len(back) == 0 and back.equals(t)


def test_equal_tables_have_equal_dtypes():
    # Int32 and Int64 classes compared equal although + refuses to merge them
    c = np.array([[[1, 0], [0, 1]]])
    a = be.ContingencyTable(pl.DataFrame({"run": [1]}), pl.Series([0, 1]), c)
    assert not a.equals(be.ContingencyTable(pl.DataFrame({"run": [1]}), pl.Series([0, 1], dtype=pl.Int32), c))
    keys32 = pl.DataFrame({"run": [1]}, schema={"run": pl.Int32})
    assert not a.equals(be.ContingencyTable(keys32, pl.Series([0, 1]), c))
    assert a.equals(be.ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], c))


def test_a_table_shares_no_keys_or_classes_with_its_caller():
    keys, classes = pl.DataFrame({"run": [1, 2]}), pl.Series("class", [0, 1])
    t = be.ContingencyTable(keys, classes, np.ones((2, 2, 2), int))
    keys[0, "run"] = 2
    classes[0] = 5
    t.classes[0] = 9
    t.keys[1, "run"] = 7
    assert t.keys["run"].to_list() == [1, 2] and t.classes.to_list() == [0, 1]
    assert len(t + t) == 2
