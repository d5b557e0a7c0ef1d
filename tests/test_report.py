"""be.report and be.plot_confusion: one table, checked against scikit-learn."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import batcheval as be
from batcheval.inference.intervals import intervals

RNG = np.random.default_rng(8)
NAMES = np.array(["cat", "dog", "emu"])
Y = NAMES[RNG.integers(0, 3, 400)]
P = np.where(RNG.random(400) < 0.6, Y, NAMES[RNG.integers(0, 3, 400)])


def _rows(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines()[2:] if line.strip()}


def test_report_matches_classification_report_and_intervals():
    text = be.report(pl.DataFrame({"label": Y, "prediction": P}))
    rows = _rows(text)
    ref = skm.classification_report(Y, P, output_dict=True)
    for c in NAMES:
        precision, recall, f1 = (float(v) for v in rows[c][:3])
        assert precision == pytest.approx(ref[c]["precision"], abs=5e-4)
        assert recall == pytest.approx(ref[c]["recall"], abs=5e-4)
        assert f1 == pytest.approx(ref[c]["f1-score"], abs=5e-4)
        assert int(rows[c][-1]) == ref[c]["support"]
        yc, pc = Y == c, P == c
        informedness = skm.balanced_accuracy_score(yc, pc, adjusted=True)
        assert float(rows[c][3]) == pytest.approx(informedness, abs=5e-4)
        counts = skm.confusion_matrix(yc, pc)[None]
        low, high = intervals(counts, ["informedness"], 0.95)["informedness"]
        assert rows[c][4] == f"[{low[0]:.3f}," and rows[c][5] == f"{high[0]:.3f}]"
    assert float(rows["accuracy"][0]) == pytest.approx(ref["accuracy"], abs=5e-4)
    macro = rows["macro"][1:4]
    assert [float(v) for v in macro] == pytest.approx(
        [ref["macro avg"][k] for k in ("precision", "recall", "f1-score")], abs=5e-4
    )
    weighted = rows["weighted"][1:4]
    assert [float(v) for v in weighted] == pytest.approx(
        [ref["weighted avg"][k] for k in ("precision", "recall", "f1-score")], abs=5e-4
    )
    assert be.report(y_true=Y, y_pred=P) == text


def test_report_rejects_many_groups():
    t = be.ContingencyTable.from_frame(
        pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [0, 1]}), by="run"
    )
    with pytest.raises(be.InvalidArgumentError, match=r"holds 2 groups: pool or filter first"):
        be.report(t)


def test_plot_confusion_refuses_a_path_it_cannot_write_before_drawing(tmp_path):
    # FileNotFoundError and matplotlib's "Format 'xyz' is not supported" after the drawing
    import matplotlib.pyplot as plt

    plt.close("all")
    (tmp_path / "dir.png").mkdir()
    missing, bad, folder = tmp_path / "nodir" / "c.png", str(tmp_path / "c.xyz"), str(tmp_path / "dir.png")
    for path, message in (
        (missing, f"path={str(missing)!r} cannot be written: no directory {str(tmp_path / 'nodir')!r}"),
        (bad, f"path={bad!r} cannot be written: matplotlib writes no '.xyz' files; use one of "),
        (folder, f"path={folder!r} cannot be written: it is a directory"),
    ):
        with pytest.raises(be.errors.InvalidArgumentError, match="^" + re.escape(message)):
            be.plot_confusion(y_true=Y, y_pred=P, path=path)
        assert plt.get_fignums() == []


@pytest.mark.parametrize("draw", [be.report, be.plot_confusion])
def test_a_null_label_and_classes_of_a_table_are_named_for_what_a_report_takes(draw):
    """A null label's message said "pass drop_nulls=True", which neither function takes; classes=
    with a ContingencyTable was ignored without a word."""
    df = pl.DataFrame({"label": [0, 1, None], "prediction": [0, 1, 1]})
    with pytest.raises(be.NullValuesError, match=r"1 null value out of 3; a report counts every row") as err:
        draw(df)
    assert "drop_nulls" not in str(err.value)
    table = be.ContingencyTable.from_frame(df.drop_nulls())
    with pytest.raises(be.InvalidArgumentError, match=r"classes=\[0, 1, 2\] applies to a frame"):
        draw(table, classes=[0, 1, 2])


@pytest.mark.parametrize("draw", [be.report, be.plot_confusion])
@pytest.mark.parametrize(
    ("classes", "error", "message"),
    [
        (5, be.InvalidArgumentError, "classes= takes a list of class values, got 5"),
        ("01", be.InvalidArgumentError, "classes= takes a list of class values, got the string '01'"),
        ([[0], [1]], be.InvalidLabelError, "classes= holds [0] (list), but {} holds integer values"),
    ],
)
def test_classes_of_a_table_are_checked_as_a_frames_are(draw, classes, error, message):
    # with a table, set(classes) raised TypeError ('int' object is not iterable, unhashable type:
    # 'list'), and "01" was read as the classes '0' and '1'
    table = be.ContingencyTable(pl.DataFrame(), [0, 1], [[[3, 1], [2, 4]]])
    with pytest.raises(error, match="^" + re.escape(message.format("this ContingencyTable")) + "$"):
        draw(table, classes=classes)
    with pytest.raises(error, match="^" + re.escape(message.format("y_true=")) + "$"):  # the frame path
        draw(y_true=[0, 1], y_pred=[0, 1], classes=classes)


@pytest.mark.parametrize("title", [1, ["a"], b"x"])
def test_a_confusion_title_that_is_no_string_is_named_as_plot_names_it(title):
    # plot_confusion drew 1, ['a'] or an object's repr as the title, where be.plot refuses them
    from batcheval.plot.cd import plot_cd
    from batcheval.plot.forest import plot_leaderboard

    message = f"title= takes a string, got {title!r}"
    frame = pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "label": [0, 1] * 4, "prediction": [0, 1, 1, 1] * 2})
    ranks = be.rank_methods(pl.DataFrame({"method": ["a", "b"] * 3, "dataset": [1, 1, 2, 2, 3, 3],
                                          "score": [0.1, 0.2, 0.3, 0.5, 0.4, 0.6]}))  # fmt: skip
    curves = be.curves({"label": [0, 1, 1], "score": [0.2, 0.8, 0.6]})
    for draw in (lambda: be.plot_confusion(y_true=[0, 1, 1], y_pred=[0, 1, 0], title=title),
                 lambda: plot_leaderboard(be.leaderboard(frame, n_boot=20, seed=1), title=title),
                 lambda: plot_cd(ranks, title=title), lambda: be.plot(curves, title=title)):  # fmt: skip
        with pytest.raises(be.errors.InvalidArgumentError) as err:
            draw()
        assert str(err.value) == message
    fig = be.plot_confusion(y_true=[0, 1, 1], y_pred=[0, 1, 0], title="mine")
    assert fig._suptitle.get_text() == "mine"


def test_confusion_heatmap_shows_counts_and_row_shares(tmp_path):
    fig = be.plot_confusion(y_true=Y, y_pred=P, path=tmp_path / "c.png")
    counts_ax, shares_ax = fig.axes[:2]
    expected = skm.confusion_matrix(Y, P, labels=NAMES)
    np.testing.assert_array_equal(counts_ax.get_images()[0].get_array(), expected)
    np.testing.assert_allclose(
        shares_ax.get_images()[0].get_array(), skm.confusion_matrix(Y, P, labels=NAMES, normalize="true")
    )
    assert [t.get_text() for t in counts_ax.get_xticklabels()] == list(NAMES)
    assert (tmp_path / "c.png").stat().st_size > 10_000


def test_a_heatmap_of_a_thousand_classes_stays_a_drawable_size(tmp_path):
    # its panels grew 0.45 inch a class: 905 × 452 inches at 1,000 classes, which matplotlib's
    # renderer could not allocate (std::bad_alloc)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 1000, 20_000)
    p = np.where(rng.random(20_000) < 0.6, y, rng.integers(0, 1000, 20_000))
    fig = be.plot_confusion(y_true=y, y_pred=p, path=tmp_path / "c.png")
    assert max(fig.get_size_inches()) <= 2 * 12.0 + 1.2
    counts_ax = fig.axes[0]
    np.testing.assert_array_equal(counts_ax.get_images()[0].get_array(), skm.confusion_matrix(y, p))
    names = [t.get_text() for t in counts_ax.get_xticklabels()]
    assert names == [str(c) for c in range(0, 1000, 25)]  # every 25th class: 40 names
    assert (tmp_path / "c.png").stat().st_size > 10_000


@pytest.mark.parametrize("draw", [be.report, be.plot_confusion])
def test_an_empty_frame_is_refused_by_name(draw):
    empty = pl.DataFrame(
        {"label": pl.Series([], dtype=pl.Int64), "prediction": pl.Series([], dtype=pl.Int64)}
    )
    assert be.evaluate(empty).height == 0  # no table to report on
    message = "the frame is empty: a report or confusion matrix needs at least one example"
    for call in (lambda: draw(empty), lambda: draw(y_true=[], y_pred=[])):
        with pytest.raises(be.errors.InvalidArgumentError, match=message):
            call()


@pytest.mark.parametrize("draw", [be.report, be.plot_confusion])
def test_a_table_of_no_examples_is_refused_as_an_empty_frame_is(draw):
    # one group of no classes: plot_confusion raised "range() arg 3 must not be zero" and the report
    # was empty; one group of zero counts: an all-NaN report, "confusion matrix of 0 examples"
    no_classes = be.ContingencyTable(pl.DataFrame({"r": [1, 2]}), [], np.zeros((2, 0, 0), int)).pool("r")
    no_examples = be.ContingencyTable(pl.DataFrame(), [0, 1], [[[0, 0], [0, 0]]])
    no_groups = be.ContingencyTable.from_frame(pl.DataFrame({"label": [0], "prediction": [0]}).clear())
    message = (
        "this ContingencyTable holds no examples: a report or confusion matrix needs at least one example"
    )
    for table in (no_classes, no_examples, no_groups):
        assert table.n == int(np.sum(table.counts)) == 0 and len(table) <= 1
        with pytest.raises(be.errors.InvalidArgumentError, match="^" + re.escape(message) + "$"):
            draw(table)


def test_report_prints_a_level_with_its_digits():
    header = be.report(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], ci=0.999).splitlines()[0]
    assert "informedness (99.9% CI)" in header and "markedness (99.9% CI)" in header


@pytest.mark.filterwarnings("error::RuntimeWarning")  # float16's 100 * level overflowed to inf
def test_report_and_the_forest_plot_read_a_float16_or_fraction_level_as_its_float():
    # a float16 level printed "nan% CI" and a Fraction raised TypeError (unsupported format string)
    from fractions import Fraction

    import matplotlib

    matplotlib.use("Agg")
    from batcheval.plot.forest import plot_leaderboard

    y_true, y_pred = [0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 1]
    for given, same in ((np.float16(0.75), 0.75), (Fraction(9, 10), 0.9)):
        text = be.report(y_true=y_true, y_pred=y_pred, ci=given)
        shown = f"{round(100 * same)}% CI"  # 0.75 and 0.9 exactly: float16 holds 0.75
        assert f"informedness ({shown})" in text.splitlines()[0], text
        assert text == be.report(y_true=y_true, y_pred=y_pred, ci=same)
        frame = pl.DataFrame({"run": ["a"] * 8 + ["b"] * 8, "label": y_true * 2, "prediction": y_pred * 2})
        board = be.leaderboard(frame, ci=given, n_boot=20, seed=1)
        assert board.metadata["ci"] == same and type(board.metadata["ci"]) is float
        assert f"{round(100 * same)}% intervals" in plot_leaderboard(board).axes[0].get_title()
        titled = plot_leaderboard(be.leaderboard(frame, n_boot=20, seed=1), level=given)
        assert f"{round(100 * same)}% intervals" in titled.axes[0].get_title()


@pytest.mark.parametrize("ci", [1.0, 0, -0.5, None, True, "0.95", float("nan")])
def test_report_names_a_bad_level_ci_as_evaluate_does(ci):
    # report handed ci to intervals(), whose parameter is level: "level must be ...", after counting;
    # its docstring takes a level strictly between 0 and 1 (None is no level: a report has intervals)
    message = f"ci must be a confidence level strictly between 0 and 1, got {ci!r}"
    frame = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})
    with pytest.raises(be.errors.InvalidArgumentError) as err:
        be.report(frame, ci=ci)
    assert str(err.value) == message
    if ci is not None:  # evaluate's ci=None means no intervals
        with pytest.raises(be.errors.InvalidArgumentError) as same:
            be.evaluate(frame, ci=ci)
        assert str(same.value) == message
    # checked before the labels are read: a null label is not what is reported
    with pytest.raises(be.errors.InvalidArgumentError) as first:
        be.report(y_true=[0, None], y_pred=[0, 1], ci=ci)
    assert str(first.value) == message


def test_report_digits_are_checked_and_a_value_that_rounds_to_zero_has_no_minus():
    with pytest.raises(
        be.errors.InvalidArgumentError, match=r"digits= must be a non-negative integer, got -1"
    ):
        be.report(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], digits=-1)
    # informedness of this table is -0.04 (plain arithmetic: recall 0.48 + specificity 0.48 - 1)
    y_true = [1] * 25 + [0] * 25
    y_pred = [1] * 12 + [0] * 13 + [1] * 13 + [0] * 12
    assert skm.recall_score(y_true, y_pred) + skm.recall_score(y_true, y_pred, pos_label=0) - 1 < 0
    text = be.report(y_true=y_true, y_pred=y_pred, digits=0)
    assert "-0" not in text and "0 [" in text


def test_report_digits_beyond_a_float64s_are_named():
    # digits=2**70 raised the format's ValueError "Too many decimal digits in format string"
    for digits in (1075, 2**70):
        with pytest.raises(be.errors.InvalidArgumentError) as err:
            be.report(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], digits=digits)
        assert str(err.value) == f"digits= must be at most 1074, got {digits}"
    # the most: the exact decimal expansion of the smallest float64, 2**-1074, has 1074 places
    assert len(f"{np.nextafter(0.0, 1.0):.1100f}".split(".")[1].rstrip("0")) == 1074
    text = be.report(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], digits=1074)
    assert f"{0.75:.1074f}" in text  # accuracy 3/4 as Python formats it


def test_macro_row_leaves_out_a_named_class_without_examples():
    # classes=[..., 3] with no example of 3: its informedness and markedness read 0 by convention,
    # and the macro row counted them (0.750 for a perfect classifier)
    y = ["a", "a", "b", "b", "c", "c"]
    text = be.report(pl.DataFrame({"label": y, "prediction": y}), classes=["a", "b", "c", "d"])
    macro = _rows(text)["macro"]
    assert [float(v) for v in macro[1:6]] == [1.0] * 5
    informedness = [skm.balanced_accuracy_score(np.equal(y, c), np.equal(y, c), adjusted=True) for c in "abc"]
    assert float(macro[4]) == pytest.approx(np.mean(informedness))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")  # zero_division="warn"
def test_report_columns_are_sklearns_with_zero_division_nan_but_for_the_documented_weighted_precision():
    # the docstring said the precision column was scikit-learn's without saying which zero_division,
    # or that its weighted avg is NaN where no class with real examples is predicted (0.0 in sklearn)
    doc = " ".join(be.report.__doc__.split())
    assert "classification_report(..., zero_division=np.nan)" in doc
    assert "where no class with real examples is ever predicted, the ``weighted avg`` precision is NaN" in doc
    assert "gives 0.0 (1.0 under ``zero_division=1.0``)" in doc
    rng = np.random.default_rng(41)
    departures = 0
    for _ in range(150):
        k, n = int(rng.integers(2, 5)), int(rng.integers(1, 6))
        y_true, y_pred = rng.integers(0, k, n).tolist(), rng.integers(0, k, n).tolist()
        labels = sorted(set(y_true) | set(y_pred) | ({k} if rng.random() < 0.3 else set()))
        rows = _rows(be.report(y_true=y_true, y_pred=y_pred, classes=labels, digits=9))
        ref = skm.classification_report(y_true, y_pred, labels=labels, output_dict=True, zero_division=np.nan)
        for name, key, first in [*((str(c), str(c), 0) for c in labels), ("macro", "macro avg", 1),
                                 ("weighted", "weighted avg", 1)]:  # fmt: skip
            got = [float(v) for v in rows[name][first : first + 3]]
            want = [ref[key][m] for m in ("precision", "recall", "f1-score")]
            never_predicted = not set(y_true) & set(y_pred)
            if key == "weighted avg" and never_predicted:
                departures += 1
                assert np.isnan(got[0])
                for zero_division, value in [(np.nan, 0.0), ("warn", 0.0), (0.0, 0.0), (1.0, 1.0)]:
                    other = skm.classification_report(
                        y_true, y_pred, labels=labels, output_dict=True, zero_division=zero_division
                    )
                    assert other[key]["precision"] == value
                got, want = got[1:], want[1:]
            assert got == pytest.approx(want, abs=5e-10, nan_ok=True)
        weighted = be.evaluate(y_true=y_true, y_pred=y_pred, classes=labels, measures=["weighted_precision"])[
            "weighted_precision"
        ][0]
        assert float(rows["weighted"][1]) == pytest.approx(weighted, abs=5e-10, nan_ok=True)
    assert departures > 10


def test_binary_report_intervals_are_evaluates_per_class_bit_for_bit():
    """The docstring's promise, to the last digit: a binary report's class rows take the intervals
    of evaluate(per_class=True), which come from positive=0 and 1 of the table as counted (the
    report's class 0 took the table reoriented for it, an ulp off after evaluate changed)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.8, y, 1 - y)
    text = be.report(y_true=y, y_pred=p, digits=20)
    per = be.evaluate(pl.DataFrame({"label": y, "prediction": p}), ci=0.95, per_class=True)
    for c in (0, 1):
        row = next(line for line in text.splitlines() if line.split() and line.split()[0] == str(c))
        for m in ("informedness", "markedness"):
            low, high = per[f"{m}_ci_low"][c], per[f"{m}_ci_high"][c]
            assert f"[{low:.20f}, {high:.20f}]" in row, (c, m)


def test_confusion_title_groups_the_thousands():
    """The count of a large test set reads at a glance: 12,345, not 12345."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 12_345)
    fig = be.plot_confusion(y_true=y, y_pred=np.where(rng.random(12_345) < 0.7, y, 0))
    assert (
        fig._suptitle.get_text()
        == f"confusion matrix of {len(y):,} examples"
        == "confusion matrix of 12,345 examples"
    )
