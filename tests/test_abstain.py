"""``evaluate(..., abstain=)``: measures on the retained rows, discounted by n/N (spec §7, paper 001).

Expected values come from scikit-learn or from the naive reference applied to
the frame with the abstained rows filtered out by polars, and retained
fractions from plain polars group counts.
"""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics

import batcheval as be
from tests.helpers import sweep_frame
from tests.reference.counting import count_groups
from tests.reference.naive import binary_reference, multiclass_reference
from tests.reference.selection import retained_rows


def _with_abstentions(df: pl.DataFrame, value: object, seed: int, column: str = "prediction") -> pl.DataFrame:
    """Replace a run-dependent share (0–60%) of predictions by ``value``."""
    rng = np.random.default_rng(seed)
    runs = df.get_column("run").to_numpy()
    rate = rng.uniform(0, 0.6, runs.max() + 1)[runs]
    hit = rng.uniform(size=df.height) < rate
    return df.with_columns(
        pl.when(pl.Series(hit)).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
    )


def _group_sizes(df: pl.DataFrame, by: list[str]) -> dict[tuple, int]:
    return {tuple(r[:-1]): r[-1] for r in df.group_by(by).len().rows()}


def test_binary_measures_equal_sklearn_on_the_retained_rows():
    df = _with_abstentions(sweep_frame(n_runs=15, n_folds=3, rows_per_group=60, seed=3), -1, seed=4)
    out = be.evaluate(df, by=["run", "fold"], abstain=-1)
    kept = retained_rows(df, "prediction", [-1])
    totals, kept_sizes = _group_sizes(df, ["run", "fold"]), _group_sizes(kept, ["run", "fold"])
    assert out.height == len(totals)
    for row in out.to_dicts():
        key = (row["run"], row["fold"])
        part = kept.filter((pl.col("run") == key[0]) & (pl.col("fold") == key[1]))
        y, p = part["label"].to_numpy(), part["prediction"].to_numpy()
        retained = kept_sizes.get(key, 0) / totals[key]
        assert row["n"] == kept_sizes.get(key, 0)
        assert row["abstained"] == totals[key] - kept_sizes.get(key, 0)
        assert row["retained"] == pytest.approx(retained, rel=1e-15)
        informedness = metrics.balanced_accuracy_score(y, p, adjusted=True)
        recall = metrics.recall_score(y, p, zero_division=np.nan)
        assert row["informedness"] == pytest.approx(informedness, rel=1e-12, abs=1e-15)
        assert row["recall"] == pytest.approx(recall, rel=1e-14, nan_ok=True)
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(y, p), rel=1e-15)
        assert row["kappa_cohen"] == pytest.approx(metrics.cohen_kappa_score(y, p), rel=1e-12, abs=1e-15)
        assert row["informedness_overall"] == pytest.approx(informedness * retained, rel=1e-12, abs=1e-15)
        assert row["recall_overall"] == pytest.approx(recall * retained, rel=1e-14, nan_ok=True)


def test_multiclass_string_labels_against_the_naive_reference():
    base = sweep_frame(n_runs=10, n_folds=2, rows_per_group=80, n_classes=4, seed=5)
    names = ["ant", "bee", "cat", "dog"]
    df = base.with_columns(
        pl.col("label").replace_strict(range(4), names, return_dtype=pl.String),
        pl.col("prediction").replace_strict(range(4), names, return_dtype=pl.String),
    )
    df = _with_abstentions(df, "?", seed=6)
    df = _with_abstentions(df, "pass", seed=7)
    out = be.evaluate(df, by=["run", "fold"], abstain=["?", "pass"]).sort("run", "fold")
    kept = retained_rows(df, "prediction", ["?", "pass"])
    keys, classes, tables = count_groups(kept, ["run", "fold"], "label", "prediction", classes=names)
    totals = _group_sizes(df, ["run", "fold"])
    assert classes == names
    for row, key, table in zip(out.to_dicts(), keys, tables, strict=True):
        assert (row["run"], row["fold"]) == key
        ref = multiclass_reference(table)
        retained = table.sum() / totals[key]
        assert row["retained"] == pytest.approx(retained, rel=1e-15)
        for name in ("informedness", "weighted_recall", "macro_recall", "bias_weighted_informedness"):
            assert row[name] == pytest.approx(ref[name], rel=1e-12, abs=1e-15), name
            assert row[f"{name}_overall"] == pytest.approx(ref[name] * retained, rel=1e-12, abs=1e-15), name
        for name in ("mcc", "kappa_cohen", "markedness", "accuracy"):
            assert row[name] == pytest.approx(ref[name], rel=1e-12, abs=1e-15), name
            assert f"{name}_overall" not in row


def test_pooled_retained_fraction_is_the_pooled_counts():
    df = _with_abstentions(sweep_frame(n_runs=12, n_folds=4, rows_per_group=30, seed=8), 9, seed=9)
    out = be.evaluate(df, by=["run", "fold"], pool="fold", abstain=9).sort("run")
    kept = retained_rows(df, "prediction", [9])
    keys, _, tables = count_groups(kept, ["run"], "label", "prediction", classes=[0, 1])
    totals = _group_sizes(df, ["run"])
    for row, key, table in zip(out.to_dicts(), keys, tables, strict=True):
        assert (row["run"],) == key
        retained = table.sum() / totals[key]
        ref = binary_reference(table)
        assert row["n"] == table.sum()
        assert row["abstained"] == totals[key] - table.sum()
        assert row["retained"] == pytest.approx(retained, rel=1e-15)
        assert row["informedness"] == pytest.approx(ref["informedness"], rel=1e-12, abs=1e-15)
        assert row["informedness_overall"] == pytest.approx(
            ref["informedness"] * retained, rel=1e-12, abs=1e-15
        )


def test_per_class_rows_discount_each_class_recall():
    df = _with_abstentions(
        sweep_frame(n_runs=6, n_folds=1, rows_per_group=90, n_classes=3, seed=10), -5, seed=11
    )
    out = be.evaluate(df, by="run", abstain=-5, per_class=True, measures=["recall", "informedness"])
    kept = retained_rows(df, "prediction", [-5])
    totals, kept_sizes = _group_sizes(df, ["run"]), _group_sizes(kept, ["run"])
    for row in out.to_dicts():
        part = kept.filter(pl.col("run") == row["run"])
        y, p = part["label"].to_numpy() == row["class"], part["prediction"].to_numpy() == row["class"]
        retained = kept_sizes[(row["run"],)] / totals[(row["run"],)]
        recall = metrics.recall_score(y, p, zero_division=np.nan)
        assert row["retained"] == pytest.approx(retained, rel=1e-15)
        assert row["recall_overall"] == pytest.approx(recall * retained, rel=1e-14, nan_ok=True)


def test_recall_overall_is_population_recall_when_abstention_ignores_the_class():
    # paper 001's n/N discount is exact when every class loses the same share of its examples
    rng = np.random.default_rng(12)
    frames = []
    for run in range(8):
        quarters = int(rng.integers(0, 4))
        for cls, size in ((0, 40), (1, 60)):
            pred = np.where(rng.uniform(size=size) < 0.7, cls, 1 - cls)
            pred[rng.permutation(size)[: size // 4 * quarters]] = -1
            frames.append(
                pl.DataFrame({"run": np.full(size, run), "label": np.full(size, cls), "prediction": pred})
            )
    df = pl.concat(frames)
    out = be.evaluate(df, by="run", abstain=-1, measures=["recall"])
    assert out.height == 8
    for row in out.to_dicts():
        part = df.filter(pl.col("run") == row["run"])
        # abstentions counted as misses: the whole-population recall
        population = metrics.recall_score(part["label"].to_numpy() == 1, part["prediction"].to_numpy() == 1)
        assert row["recall_overall"] == pytest.approx(population, rel=1e-14)


def test_a_group_with_only_abstentions_keeps_its_row():
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "prediction": [0, 1, -1, -1]})
    out = be.evaluate(df, by="run", abstain=-1, measures=["informedness", "recall"]).sort("run")
    assert out["n"].to_list() == [2, 0]
    assert out["abstained"].to_list() == [0, 2]
    assert out["retained"].to_list() == [1.0, 0.0]
    assert out["informedness"].to_list()[0] == binary_reference(np.array([[1, 0], [0, 1]]))["informedness"]
    assert math.isnan(out["informedness"][1])  # no retained example: the retained table is empty
    # over the whole population it answered nothing: sklearn's recall of "never predicted 1" is 0
    population = metrics.recall_score([0, 1], [-1, -1], labels=[1], average="macro")
    assert out["recall_overall"][1] == population == 0.0
    assert out["informedness_overall"][1] == 0.0


def test_drop_nulls_and_abstain_together():
    df = pl.DataFrame({"label": [0, 1, 1, 0, None], "prediction": [0, 1, -1, None, 1]})
    with pytest.warns(be.BatchevalWarning, match="dropped 2"):
        out = be.evaluate(df, abstain=-1, drop_nulls=True, measures=["accuracy"])
    assert out.select("n", "abstained").rows() == [(2, 1)]


@pytest.mark.parametrize("label", [[0, 1], [None, None]])
def test_an_all_null_prediction_column_beside_abstain_is_refused_or_dropped_as_without_it(label):
    # a column of nulls only has dtype Null, which abstain= refused as a dtype ("has dtype Null;
    # labels and predictions must be integer, ...") before the count could refuse or drop its nulls
    df = pl.DataFrame({"label": label, "prediction": [None, None]})
    assert df.schema["prediction"] == pl.Null
    with pytest.raises(be.NullValuesError) as caught:
        be.evaluate(df, abstain=-1, measures=["accuracy"])
    # the count checks the labels first, as without abstain=
    column = "label column 'label'" if label[0] is None else "prediction column 'prediction'"
    message = f"{column} has 2 null values out of 2; pass drop_nulls=True to skip those rows"
    assert str(caught.value) == message
    typed = df.with_columns(pl.col(pl.Null).cast(pl.Int64))  # the same nulls in an integer column
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 2 rows"):
        out = be.evaluate(df, abstain=-1, drop_nulls=True, measures=["accuracy"])
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 2 rows"):
        expected = be.evaluate(typed, abstain=-1, drop_nulls=True, measures=["accuracy"])
    assert out.height == 0 and out.columns == expected.columns
    assert {"abstained", "retained", "accuracy"} <= set(out.columns)


small_frames = st.integers(2, 4).flatmap(
    lambda k: st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1, max_size=60
    ).map(lambda rows: pl.DataFrame(rows, schema=["run", "label", "prediction"], orient="row"))
)


@given(small_frames, st.sampled_from([-1, 99, [-3, 1000]]))
def test_no_abstentions_equals_plain_evaluate(df, abstain):
    plain = be.evaluate(df, by="run")
    held = be.evaluate(df, by="run", abstain=abstain)
    assert held["abstained"].to_list() == [0] * plain.height
    assert held["retained"].to_list() == [1.0] * plain.height
    assert held.select(plain.columns).equals(plain)
    for name in ("informedness", "recall"):
        if name in plain.columns:
            assert held[f"{name}_overall"].equals(plain[name].alias(f"{name}_overall"))


@given(small_frames, st.data())
def test_overall_is_the_retained_measure_times_the_retained_share(df, data):
    k = max(df["label"].max(), df["prediction"].max()) + 1
    mask = data.draw(st.lists(st.booleans(), min_size=df.height, max_size=df.height))
    df = df.with_columns(
        pl.when(pl.Series(mask)).then(-1).otherwise(pl.col("prediction")).alias("prediction")
    )
    out = be.evaluate(df, by="run", abstain=-1, classes=list(range(max(k, 2))), measures=["informedness"])
    kept = retained_rows(df, "prediction", [-1])
    totals, kept_sizes = _group_sizes(df, ["run"]), _group_sizes(kept, ["run"])
    for row in out.to_dicts():
        n = kept_sizes.get((row["run"],), 0)
        part = kept.filter(pl.col("run") == row["run"])
        _, _, tables = count_groups(part, [], "label", "prediction", classes=list(range(max(k, 2))))
        if n == 0:  # abstained on everything: the whole-population figure is 0
            assert row["informedness_overall"] == 0.0
            continue
        ref = binary_reference(tables[0]) if tables.shape[1] == 2 else multiclass_reference(tables[0])
        expected = ref["informedness"] * n / totals[(row["run"],)]
        assert row["informedness_overall"] == pytest.approx(expected, rel=1e-12, abs=1e-15)


# -- bad input ----------------------------------------------------------------------------


def test_label_equal_to_an_abstain_value_is_an_error():
    df = pl.DataFrame({"y": [0, 1, -1], "yhat": [0, -1, 1]})
    with pytest.raises(
        be.InvalidLabelError, match=r"label column 'y' has 1 value equal to the abstain value -1"
    ):
        be.evaluate(df, label="y", prediction="yhat", abstain=-1)


def test_abstain_value_inside_classes_is_an_error():
    df = pl.DataFrame({"label": [0, 1], "prediction": [0, 2]})
    with pytest.raises(be.InvalidLabelError, match=r"abstain value 2 is also one of classes=\[0, 1, 2\]"):
        be.evaluate(df, abstain=2, classes=[0, 1, 2])


@pytest.mark.parametrize(
    ("classes", "error", "message"),
    [
        (3, be.InvalidArgumentError, "classes= takes a list of class values, got 3"),
        ("ab", be.InvalidArgumentError, "classes= takes a list of class values, got the string 'ab'"),
        (
            [[0], [1]],
            be.InvalidLabelError,
            "classes= holds [0] (list), but label column 'label' holds integer values",
        ),
    ],
)
def test_malformed_classes_beside_abstain_are_refused_as_without_it(classes, error, message):
    # the abstain clash test made a set of classes= before it was checked: a raw TypeError
    # ("'int' object is not iterable", "unhashable type: 'list'"), and a string split into characters
    df = pl.DataFrame({"label": [0, 1, 1], "prediction": [0, 1, -1]})
    for abstain in (None, -1):
        with pytest.raises(error) as caught:
            be.evaluate(df, measures=["accuracy"], classes=classes, abstain=abstain)
        assert type(caught.value) is error and str(caught.value) == message


@pytest.mark.parametrize(
    ("column", "abstain", "message"),
    [
        ([0, 1], "none", r"abstain value 'none' \(str\) cannot occur in prediction column 'prediction'"),
        ([0, 1], 0.5, r"abstain value 0.5 \(float\) cannot occur in prediction column 'prediction'"),
        (["a", "b"], -1, r"abstain value -1 \(int\) cannot occur in prediction column 'prediction'"),
        ([0, 1], [None], r"abstain value None cannot mark a prediction in column 'prediction'"),
    ],
)
def test_abstain_values_the_column_cannot_hold(column, abstain, message):
    df = pl.DataFrame({"label": column, "prediction": column})
    with pytest.raises(be.InvalidLabelError, match=message):
        be.evaluate(df, abstain=abstain)


@pytest.mark.parametrize("abstain", [[], ()])
def test_an_empty_abstain_list_is_a_bad_argument(abstain):
    # an InvalidLabelError before, though no label value is wrong, and the message hid the value
    df = pl.DataFrame({"label": [0, 1], "prediction": [0, 1]})
    with pytest.raises(
        be.InvalidArgumentError, match=re.escape("abstain= must hold at least one value, got []; give one")
    ):
        be.evaluate(df, abstain=abstain)


@pytest.mark.parametrize("value", [-1.0, np.float64(-1.0), np.float32(-1.0), [np.float16(-1), 7.0]])
def test_whole_float_abstain_value_matches_integer_predictions(value):
    # np.float32 is no Python float: it was refused as "cannot occur" in an Int64 column
    df = pl.DataFrame({"label": [0, 1, 1], "prediction": [0, 1, -1]})
    out = be.evaluate(df, abstain=value, measures=["accuracy"])
    assert out.select("n", "abstained").rows() == [(2, 1)]


@pytest.mark.parametrize(
    ("label", "prediction", "value"),
    [
        ([0, 1, 1, 0], [0, 1, -1, 1], np.array(-1)),
        ([0, 1, 1, 0], [0, 1, -1, 1], np.array(-1.0)),
        (["a", "b", "b", "a"], ["a", "b", "none", "b"], np.array("none")),
    ],
)
def test_a_zero_dimensional_array_is_one_abstain_value(label, prediction, value):
    # np.array(-1) is an Iterable that cannot be iterated: a raw TypeError ("iteration over a
    # 0-d array"), where np.int64(-1) was taken as one value
    df = pl.DataFrame({"label": label, "prediction": prediction})
    out = be.evaluate(df, abstain=value, measures=["accuracy"])
    kept = [i for i, p in enumerate(prediction) if p != value.item()]
    expected = metrics.accuracy_score([label[i] for i in kept], [prediction[i] for i in kept])
    assert out.select("n", "abstained").rows() == [(len(kept), len(label) - len(kept))]
    assert out["accuracy"].item() == expected


def test_abstain_values_are_not_reported_as_classes():
    # abstain values were appended to classes= for the count, so its errors blamed classes=:
    # "classes= holds 18446744073709551616, which does not fit in int64", or values "outside
    # classes=[0, 1, 1000]" for an Int8 column
    df = pl.DataFrame({"label": [1, 1, 0, 0], "prediction": [1, -1, 0, -1]})
    out = be.evaluate(df, abstain=[-1, 2**64], classes=[0, 1], measures=["accuracy"])
    # 2 rows answered, both right; 2 abstained
    assert out.select("n", "abstained", "accuracy").rows() == [(2, 2, 1.0)]
    assert out.equals(be.evaluate(df, abstain=-1, classes=[0, 1], measures=["accuracy"]))
    narrow = pl.DataFrame(
        {"label": [1, 1, 0, 0], "prediction": [1, 2, 0, 1]}, schema={"label": pl.Int8, "prediction": pl.Int8}
    )
    with pytest.raises(be.InvalidLabelError) as caught:
        be.evaluate(narrow, abstain=1000, classes=[0, 1])
    assert str(caught.value) == "prediction column 'prediction' has 1 value(s) outside classes=[0, 1]: [2]"
    with pytest.raises(be.InvalidLabelError) as caught:
        be.evaluate(narrow, abstain=[-1, 1000], classes=[0, 1])
    assert str(caught.value) == (
        "prediction column 'prediction' has 1 value(s) outside classes=[0, 1] and abstain=[-1]: [2]"
    )
    with pytest.raises(be.InvalidLabelError) as caught:
        be.evaluate(df.with_columns(label=pl.Series([1, 5, 0, 0])), abstain=-1, classes=[0, 1])
    assert str(caught.value) == "label column 'label' has 1 value(s) outside classes=[0, 1]: [5]"


def test_a_uint64_abstain_marker_beyond_int64_is_abstained():
    # 2**64 - 1 was counted as an extra class and refused: "prediction column 'prediction' (UInt64)
    # holds 18446744073709551615, which does not fit in int64", where align= accepted it
    none = 2**64 - 1
    df = pl.DataFrame(
        {"run": [1, 1, 1, 2, 2], "label": [1, 1, 0, 0, 1], "prediction": [1, none, 0, none, none]},
        schema={"run": pl.Int64, "label": pl.UInt64, "prediction": pl.UInt64},
    )
    out = be.evaluate(df, by="run", abstain=none, measures=["accuracy", "recall"])
    # run 1: rows 1 and 3 answered, both right, row 2 abstained; run 2 abstained on both rows
    assert out.select("run", "n", "abstained").rows() == [(1, 2, 1), (2, 0, 2)]
    assert out["accuracy"][0] == 1.0 and out["recall_overall"].to_list() == [pytest.approx(2 / 3), 0.0]
    run1 = df.filter(pl.col("run") == 1)
    aligned = be.evaluate(run1, align="hungarian", abstain=none, measures=["accuracy"])
    assert aligned.select("n", "abstained", "accuracy").rows() == [(2, 1, 1.0)]
    plain = be.evaluate(run1, abstain=[none, -1], classes=[0, 1], measures=["accuracy"])
    assert plain.select("n", "abstained", "accuracy", "tp", "fn", "fp", "tn").rows() == [
        (2, 1, 1.0, 1, 0, 0, 1)
    ]
    labelled = df.with_columns(label=pl.Series([1, none, 0, 0, 1], dtype=pl.UInt64))
    with pytest.raises(
        be.InvalidLabelError,
        match=rf"^label column 'label' has 1 value equal to the abstain value {none}; an abstain value",
    ):
        be.evaluate(labelled, by="run", abstain=none)
    with pytest.raises(
        be.InvalidLabelError, match=rf"'prediction' \(UInt64\) holds {none - 1}, which does not fit"
    ):
        be.evaluate(
            df.with_columns(prediction=pl.Series([1, none, none - 1, 0, 0], dtype=pl.UInt64)), abstain=none
        )
