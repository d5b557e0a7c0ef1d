"""``evaluate(..., align="hungarian")``: cluster ids mapped to classes (spec §7, paper 001).

Expected values come from brute-force enumeration of every matching
(``tests/reference/selection.py``), from :func:`scipy.optimize.linear_sum_assignment`
on scikit-learn's contingency matrix, and from scikit-learn's measures on the
predictions renamed by the reference mapping.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from sklearn import metrics
from sklearn.metrics.cluster import contingency_matrix

import batcheval as be
from batcheval.labels.align import align_frame, assign
from tests.reference.naive import binary_reference, multiclass_reference
from tests.reference.selection import (
    aligned_table,
    best_matchings,
    cross_table,
    diagonal,
    lexicographic_first,
    retained_rows,
)


def _frame_from_table(
    table: np.ndarray, ids: list[object], classes: list[object], run: int = 0
) -> pl.DataFrame:
    labels, preds = [], []
    for c, cls in enumerate(classes):
        for i, pid in enumerate(ids):
            labels += [cls] * int(table[c, i])
            preds += [pid] * int(table[c, i])
    return pl.DataFrame({"run": [run] * len(labels), "label": labels, "prediction": preds})


cross_tables = st.tuples(st.integers(1, 4), st.integers(1, 6)).flatmap(
    lambda ck: st.lists(st.integers(0, 6), min_size=ck[0] * ck[1], max_size=ck[0] * ck[1]).map(
        lambda v, ck=ck: np.array(v, dtype=np.int64).reshape(ck)
    )
)


# -- the assignment itself ------------------------------------------------------------------


@given(cross_tables)
def test_kernel_finds_the_brute_force_optimum_and_breaks_ties_lexicographically(table):
    top, winners = best_matchings(table)
    got = assign(table[None])[0]
    assert diagonal(table, got) == top
    assert tuple(got) == lexicographic_first(winners)


@given(cross_tables)
def test_scipy_fallback_reaches_the_same_optimum(table):
    top, winners = best_matchings(table)
    got = assign(table[None], dp_limit=0)[0]
    assert diagonal(table, got) == top
    assert tuple(got) in winners
    assert np.count_nonzero(got >= 0) == min(table.shape)


def test_vectorised_kernel_agrees_with_linear_sum_assignment_over_many_groups():
    rng = np.random.default_rng(0)
    for c, k in ((2, 2), (3, 5), (5, 3), (4, 8), (10, 10), (1, 6)):
        w = rng.integers(0, 1000, (300, c, k))  # a wide count range makes ties rare
        got = assign(w)
        for g in range(len(w)):
            rows, cols = linear_sum_assignment(w[g], maximize=True)
            assert diagonal(w[g], got[g]) == w[g][rows, cols].sum()
            assert np.count_nonzero(got[g] >= 0) == min(c, k)
            if max(c, k) <= 8:  # the brute force's one winner, when there is one
                winners = best_matchings(w[g])[1]
                if len(winners) == 1:
                    assert tuple(got[g].tolist()) == winners[0]


def test_groups_too_large_for_the_kernel_use_scipy_within_one_call():
    # 12 classes exceed the subset-DP limit; the small groups in the same call still use the kernel
    rng = np.random.default_rng(1)
    frames = []
    for run, (n_cls, n_ids) in enumerate([(12, 12), (12, 14), (12, 9)]):
        y = rng.integers(0, n_cls, 600)
        ids = np.where(rng.uniform(size=600) < 0.7, (y * 7 + run) % n_ids, rng.integers(0, n_ids, 600))
        frames.append(pl.DataFrame({"run": run, "label": y, "prediction": ids}))
    df = pl.concat(frames)
    out = be.evaluate(df, by="run", align="hungarian", measures=["accuracy"]).sort("run")
    for row in out.to_dicts():
        part = df.filter(pl.col("run") == row["run"])
        m = contingency_matrix(part["label"].to_numpy(), part["prediction"].to_numpy())
        rows, cols = linear_sum_assignment(m, maximize=True)
        assert round(row["accuracy"] * row["n"]) == m[rows, cols].sum()
        assert row["n"] + row["abstained"] == part.height
        # among the best diagonals, the ids kept are those of the most examples
        best_rows, keeps = linear_sum_assignment(m * (m.sum() + 1) + m.sum(axis=0), maximize=True)
        assert m[best_rows, keeps].sum() == m[rows, cols].sum()
        assert row["n"] == m[:, keeps].sum() >= m[:, cols].sum()


# -- evaluate(align=) ------------------------------------------------------------------------


@given(cross_tables)
def test_aligned_counts_equal_the_brute_force_table(table):
    c, k = table.shape
    assume(table.sum() > 0)
    classes = [f"class{i}" for i in range(c)]
    ids = [10 * i + 3 for i in range(k)]  # arbitrary, sparse ids
    df = _frame_from_table(table, ids, classes)
    aligned, held = align_frame(df, None, "label", "prediction", classes=classes)
    present = table.sum(axis=0) > 0
    held_rows = np.flatnonzero(table.sum(axis=1) > 0)
    own = table[held_rows][:, present]  # a group's own ids and classes only
    top, winners = best_matchings(own)
    best = [int(held_rows[m]) if m >= 0 else -1 for m in lexicographic_first(winners)]
    expected, dropped = aligned_table(table[:, present], best)
    assert np.trace(aligned.counts[0]) == top
    assert aligned.counts[0].tolist() == expected.tolist()
    assert held.abstained.tolist() == [dropped]
    kept_ids = [pid for pid, p in zip(ids, present, strict=True) if p]
    assert held.mapping.select("predicted", "class").rows() == [
        (pid, classes[m] if m >= 0 else None) for pid, m in zip(kept_ids, best, strict=True)
    ]


def test_a_group_is_aligned_over_its_own_classes():
    # class "c" of run 2 (or of classes=) used to take run 1's third cluster: its 2 examples became
    # errors (accuracy 4/6) instead of a catch-all cluster's abstentions (accuracy 4/4)
    run1 = pl.DataFrame(
        {"run": [1] * 6, "label": ["a", "a", "b", "b", "a", "b"], "prediction": [0, 0, 1, 1, 2, 2]}
    )
    run2 = pl.DataFrame({"run": [2] * 3, "label": ["a", "b", "c"], "prediction": [0, 1, 2]})
    cols = ["n", "abstained", "accuracy", "macro_recall"]
    alone = be.evaluate(run1, align="hungarian", measures=["accuracy", "macro_recall"]).select(cols)
    both = be.evaluate(
        pl.concat([run1, run2]), by="run", align="hungarian", measures=["accuracy", "macro_recall"]
    )
    named = be.evaluate(
        run1, align="hungarian", classes=["a", "b", "c"], measures=["accuracy", "macro_recall"]
    )
    assert alone.rows() == [(4, 2, 1.0, 1.0)]
    assert both.sort("run").select(cols).rows() == [(4, 2, 1.0, 1.0), (3, 0, 1.0, 1.0)]
    assert named.select(cols).rows() == alone.rows()


def test_which_clusters_are_left_out_does_not_depend_on_the_solver():
    # 10 ids go to the subset DP, 11 to scipy; they broke the diagonal's ties differently, leaving out
    # clusters of different sizes (n 15 against 16, accuracy 0.533 against 0.5)
    weights = np.array([[2, 2, 0, 3, 2], [3, 2, 1, 0, 2], [3, 0, 2, 1, 0]])
    rows = [(c, 100 + i) for c in range(3) for i in range(5) for _ in range(weights[c, i])]
    outs = []
    for extra in (5, 6):
        r = rows + [(0, 200 + j) for j in range(extra)]
        df = pl.DataFrame({"label": [x[0] for x in r], "prediction": [x[1] for x in r]})
        outs.append(be.evaluate(df, align="hungarian", measures=["accuracy"]))
        top, _ = best_matchings(weights)  # the extra ids hold one example each: never on the diagonal
        assert outs[-1]["accuracy"][0] * outs[-1]["n"][0] == pytest.approx(top)
    assert outs[0].select("n", "accuracy").rows() == outs[1].select("n", "accuracy").rows()
    assert outs[0]["mapping"][0].to_list()[:5] == outs[1]["mapping"][0].to_list()[:5]
    assert assign(weights[None]).tolist() == assign(weights[None], dp_limit=0).tolist()


def test_measures_after_alignment_equal_sklearn_on_the_renamed_predictions():
    rng = np.random.default_rng(2)
    frames, truth = [], {}
    for run in range(12):
        n_cls, n_ids = 3, int(rng.integers(2, 6))
        y = rng.choice(["x", "y", "z"], 150)
        code = np.searchsorted(["x", "y", "z"], y)
        perm = rng.permutation(max(n_cls, n_ids))
        skill = rng.uniform(0.3, 0.95)
        ids = np.where(rng.uniform(size=150) < skill, perm[code] % n_ids, rng.integers(0, n_ids, 150)) + 100
        frames.append(pl.DataFrame({"run": run, "label": y, "prediction": ids}))
        truth[run] = (y, ids)
    df = pl.concat(frames)
    out = be.evaluate(df, by="run", align="hungarian", classes=["x", "y", "z"]).sort("run")
    for row in out.to_dicts():
        y, ids = truth[row["run"]]
        table, id_list = cross_table(y, ids, ["x", "y", "z"])
        _, winners = best_matchings(table)
        if len(winners) > 1:
            continue  # a tied optimum: only the matched diagonal is pinned down (tested above)
        mapping = {pid: ["x", "y", "z"][c] for pid, c in zip(id_list, winners[0], strict=True) if c >= 0}
        keep = np.array([pid in mapping for pid in ids])
        yk, pk = y[keep], np.array([mapping[p] for p in ids[keep]])
        assert row["n"] == keep.sum()
        assert row["retained"] == pytest.approx(keep.mean(), rel=1e-15)
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(yk, pk), rel=1e-15)
        assert row["mcc"] == pytest.approx(metrics.matthews_corrcoef(yk, pk), rel=1e-12, abs=1e-15)
        assert row["kappa_cohen"] == pytest.approx(metrics.cohen_kappa_score(yk, pk), rel=1e-12, abs=1e-15)
        ref = multiclass_reference(aligned_table(table, winners[0])[0])
        assert row["informedness"] == pytest.approx(ref["informedness"], rel=1e-12, abs=1e-15)
        assert row["informedness_overall"] == pytest.approx(ref["informedness"] * keep.mean(), rel=1e-12)
        got = {d["predicted"]: d["class"] for d in row["mapping"]}
        assert got == {pid: mapping.get(pid) for pid in id_list}


@given(cross_tables, st.randoms(use_true_random=False))
def test_renaming_the_predicted_ids_changes_nothing_but_the_mapping(table, random):
    assume(table.sum() > 0)
    c, k = table.shape
    classes = list(range(c))
    ids = list(range(k))
    new = random.sample(range(-50, 50), k)
    df = _frame_from_table(table, ids, classes)
    renamed = df.with_columns(pl.col("prediction").replace_strict(ids, new, return_dtype=pl.Int64))
    a = be.evaluate(df, align="hungarian", classes=classes, measures=["accuracy", "informedness"])
    b = be.evaluate(renamed, align="hungarian", classes=classes, measures=["accuracy", "informedness"])
    # the matched diagonal never depends on the names
    assert round(a["accuracy"][0] * a["n"][0]) == round(b["accuracy"][0] * b["n"][0])
    if len(best_matchings(table[:, table.sum(axis=0) > 0])[1]) == 1:
        assert a.drop("mapping").equals(b.drop("mapping"))
        back = dict(zip(new, ids, strict=True))
        pairs_a = {(d["predicted"], d["class"]) for d in a["mapping"][0]}
        pairs_b = {(back[d["predicted"]], d["class"]) for d in b["mapping"][0]}
        assert pairs_a == pairs_b


def test_fewer_clusters_than_classes_keeps_every_example():
    df = pl.DataFrame({"label": [0, 0, 1, 1, 2, 2], "prediction": ["p", "p", "q", "q", "q", "p"]})
    out = be.evaluate(df, align="hungarian", measures=["accuracy"])
    table, id_list = cross_table(df["label"].to_list(), df["prediction"].to_list(), [0, 1, 2])
    top, _ = best_matchings(table)
    assert out.select("n", "abstained", "retained").rows() == [(6, 0, 1.0)]
    assert out["accuracy"][0] == pytest.approx(top / 6, rel=1e-15)
    assert all(d["class"] is not None for d in out["mapping"][0])
    assert [d["predicted"] for d in out["mapping"][0]] == id_list


def test_abstain_ids_are_left_out_of_the_assignment():
    # DBSCAN marks noise -1: those rows are abstentions, the rest is aligned as usual
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    ids = np.where(rng.uniform(size=400) < 0.8, 1 - y, rng.integers(-1, 3, 400))
    df = pl.DataFrame({"run": rng.integers(0, 4, 400), "label": y, "prediction": ids})
    out = be.evaluate(df, by="run", align="hungarian", abstain=-1).sort("run")
    for row in out.to_dicts():
        part = df.filter(pl.col("run") == row["run"])
        kept = retained_rows(part, "prediction", [-1])
        table, id_list = cross_table(kept["label"].to_list(), kept["prediction"].to_list(), [0, 1])
        top, winners = best_matchings(table)
        matched = [pid for pid, m in zip(id_list, lexicographic_first(winners), strict=True) if m >= 0]
        n = kept.filter(pl.col("prediction").is_in(matched)).height
        assert row["n"] == n
        assert row["abstained"] == part.height - n
        assert row["tp"] + row["tn"] == top
        assert -1 not in [d["predicted"] for d in row["mapping"]]
        aligned = aligned_table(table, lexicographic_first(winners))[0]
        assert row["informedness"] == pytest.approx(binary_reference(aligned)["informedness"], abs=1e-15)


def test_pooling_sums_the_tables_aligned_per_fold():
    rng = np.random.default_rng(4)
    frames = []
    for run in range(3):
        for fold in range(3):
            y = rng.integers(0, 3, 90)
            perm = rng.permutation(4)  # each fold names its clusters afresh
            ids = np.where(rng.uniform(size=90) < 0.8, perm[y], perm[3])
            frames.append(pl.DataFrame({"run": run, "fold": fold, "label": y, "prediction": ids}))
    df = pl.concat(frames)
    out = be.evaluate(df, by=["run", "fold"], pool="fold", align="hungarian").sort("run")
    for row in out.to_dicts():
        total, dropped_total = np.zeros((3, 3), dtype=np.int64), 0
        for fold in range(3):
            part = df.filter((pl.col("run") == row["run"]) & (pl.col("fold") == fold))
            table, _ = cross_table(part["label"].to_list(), part["prediction"].to_list(), [0, 1, 2])
            _, winners = best_matchings(table)
            aligned, dropped = aligned_table(table, lexicographic_first(winners))
            total += aligned
            dropped_total += dropped
        ref = multiclass_reference(total)
        assert row["n"] == total.sum()
        assert row["abstained"] == dropped_total
        assert row["informedness"] == pytest.approx(ref["informedness"], rel=1e-12, abs=1e-15)
        assert row["retained"] == pytest.approx(total.sum() / (total.sum() + dropped_total), rel=1e-15)
        assert sorted({d["fold"] for d in row["mapping"]}) == [0, 1, 2]


def test_per_class_rows_repeat_the_group_mapping():
    df = pl.DataFrame({"run": [1] * 4, "label": [0, 0, 1, 1], "prediction": [5, 5, 6, 7]})
    out = be.evaluate(df, by="run", align="hungarian", per_class=True, measures=["recall"])
    assert out["class"].to_list() == [0, 1]
    assert out["mapping"][0].to_list() == out["mapping"][1].to_list()


# -- bad input ----------------------------------------------------------------------------------


def test_unknown_align_method_is_an_error():
    df = pl.DataFrame({"label": [0, 1], "prediction": [3, 4]})
    with pytest.raises(be.BatchevalError, match=r"align='kmeans' is not a known method") as info:
        be.evaluate(df, align="kmeans")
    assert isinstance(info.value, ValueError)


def test_label_outside_classes_is_an_error():
    df = pl.DataFrame({"y": [0, 1, 2], "prediction": [3, 4, 4]})
    with pytest.raises(
        be.InvalidLabelError, match=r"label column 'y' has values outside classes=\[0, 1\]: \[2\]"
    ):
        be.evaluate(df, label="y", align="hungarian", classes=[0, 1])


def test_null_cluster_ids_are_an_error_unless_dropped():
    df = pl.DataFrame({"label": [0, 1, 1], "prediction": [3, None, 4]})
    with pytest.raises(be.NullValuesError, match=r"prediction column 'prediction' has 1 null value"):
        be.evaluate(df, align="hungarian")
    with pytest.warns(be.BatchevalWarning, match="dropped 1"):
        out = be.evaluate(df, align="hungarian", drop_nulls=True, measures=["accuracy"])
    assert out["n"].to_list() == [2]


@pytest.mark.parametrize("label", [[0, 1], ["cat", "dog"], [None, None]])
def test_an_all_null_prediction_column_aligns_as_without_align(label):
    # a column of nulls only has dtype Null, still Null once drop_nulls emptied it, and refused
    # as a dtype ("has dtype Null; labels and predictions must be integer, ...")
    df = pl.DataFrame({"label": label, "prediction": [None, None]})
    assert df.schema["prediction"] == pl.Null
    with pytest.raises(be.NullValuesError) as caught:
        be.evaluate(df, align="hungarian", measures=["accuracy"])
    # the count checks the labels first, as without align=
    column = "label column 'label'" if label[0] is None else "prediction column 'prediction'"
    message = f"{column} has 2 null values out of 2; pass drop_nulls=True to skip those rows"
    assert str(caught.value) == message
    typed = df.with_columns(pl.col(pl.Null).cast(pl.Int64))  # the same nulls in an integer column
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 2 rows"):
        out = be.evaluate(df, align="hungarian", drop_nulls=True, measures=["accuracy"])
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 2 rows"):
        expected = be.evaluate(typed, align="hungarian", drop_nulls=True, measures=["accuracy"])
    assert out.height == 0 and out.columns == expected.columns
    assert {"abstained", "mapping", "accuracy"} <= set(out.columns)


def test_missing_prediction_column_is_an_error():
    df = pl.DataFrame({"label": [0, 1]})
    with pytest.raises(be.ColumnNotFoundError, match=r"prediction column 'cluster' not found"):
        be.evaluate(df, prediction="cluster", align="hungarian")


@pytest.mark.parametrize("by", ["run", None])
def test_an_empty_frame_of_string_labels_aligns_to_an_empty_result(by):
    # polars returned the empty String label column unchanged from replace_strict with nothing to
    # replace, and numpy then raised "Cannot cast array data from dtype('O') to dtype('int64')"
    df = pl.DataFrame({"run": [1, 2], "label": ["cat", "dog"], "prediction": [7, 3]})
    empty = df.filter(pl.col("run") > 5)
    as_integers = be.evaluate(
        empty.with_columns(label=pl.lit(0)), by=by, align="hungarian", measures=["accuracy"]
    )
    for frame, kwargs in [
        (empty, {}),
        (empty.with_columns(pl.col("prediction").cast(pl.String)), {}),
        (
            pl.DataFrame({"run": [1, 2], "label": [None, "dog"], "prediction": [7, None]}),
            {"drop_nulls": True},
        ),
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", be.BatchevalWarning)  # the rows drop_nulls drops
            out = be.evaluate(frame, by=by, align="hungarian", measures=["accuracy"], **kwargs)
        assert out.height == 0 == as_integers.height
        assert out.columns == as_integers.columns


@pytest.mark.parametrize(
    ("dtype", "abstain"), [(pl.Int64, [-1, 2**64]), (pl.Int64, [-1, -(2**70)]), (pl.UInt8, [255, -1, 300])]
)
def test_abstain_values_the_id_column_cannot_hold_mark_nothing(dtype, abstain):
    # polars refused pred.is_in([-1, 2**64]) as a list of mixed Int64/Int128 with a raw TypeError;
    # without align= such a value simply never occurs
    marker = abstain[0]
    df = pl.DataFrame(
        {"label": [1, 1, 0, 0], "prediction": [7, 7, 3, marker]}, schema_overrides={"prediction": dtype}
    )
    out = be.evaluate(df, align="hungarian", abstain=abstain, measures=["accuracy"])
    # ids 7 -> 1 and 3 -> 0 match every answered row; the marked row is abstained
    assert out.select("n", "abstained", "accuracy").rows() == [(3, 1, 1.0)]
    assert out.equals(be.evaluate(df, align="hungarian", abstain=marker, measures=["accuracy"]))


@pytest.mark.parametrize(
    ("dtype", "classes"),
    [
        (pl.Int64, [0, 1, 2.0]),  # a whole float, as check_classes accepts
        (pl.Int64, [np.int8(0), np.float64(1.0), 2]),
        (pl.Int8, [0, 1, 300]),  # a class the labels' dtype cannot hold
        (pl.UInt8, [-1, 0, 1]),
        (pl.UInt8, [0, 1, 2]),  # fits: the classes keep the labels' dtype
    ],
)
def test_classes_are_taken_as_evaluate_takes_them_without_align(dtype, classes):
    # align_frame kept 2.0 as a float and built the classes in the labels' own dtype, so
    # align="hungarian" raised a builtin TypeError (2.0) or a polars InvalidOperationError (300
    # beside Int8, -1 beside UInt8) where evaluate without align= accepts all of them
    labels = [0, 0, 0, 1, 1, 1, 1, 0]
    ids = [7, 7, 3, 3, 3, 3, 7, 9]  # 9 is a catch-all cluster: one abstention
    df = pl.DataFrame({"run": [1] * 8, "label": labels, "prediction": ids}, schema_overrides={"label": dtype})
    table, id_list = cross_table(labels, ids, [0, 1])
    rows, cols = linear_sum_assignment(table, maximize=True)
    mapping = {id_list[c]: int(r) for r, c in zip(rows, cols, strict=True)}
    assert mapping == {7: 0, 3: 1}  # the independent matching the aligned table must equal
    keep = [i in mapping for i in ids]
    renamed = pl.DataFrame(
        {
            "run": [1] * sum(keep),
            "label": [y for y, k in zip(labels, keep, strict=True) if k],
            "prediction": [mapping[i] for i in ids if i in mapping],
        },
        schema_overrides={"label": dtype, "prediction": dtype},
    )
    measures = ["accuracy", "informedness", "macro_f1"]
    plain = be.evaluate(renamed, by="run", classes=classes, measures=measures, per_class=True)
    aligned = be.evaluate(df, by="run", align="hungarian", classes=classes, measures=measures, per_class=True)
    assert aligned.select(plain.columns).equals(plain)
    assert aligned["abstained"].unique().to_list() == [1]
    pairs = {(d["predicted"], d["class"]) for d in aligned["mapping"][0]}
    assert pairs == {(7, 0), (3, 1), (9, None)}
    # the identity matching (ids already the class values) gives the plain path's result
    same = be.evaluate(
        renamed, by="run", align="hungarian", classes=classes, measures=measures, per_class=True
    )
    assert same.select(plain.columns).equals(plain)
