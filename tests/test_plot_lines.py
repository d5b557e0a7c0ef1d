"""What a curve chart's lines are: one curve each, drawn as its legend's area counts it, told apart by
name, named by key columns."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _runs(ax, prefix: str = "run=") -> list:
    return [ln for ln in ax.get_lines() if ln.get_label().startswith(prefix)]


def test_curve_frames_stacked_with_concat_are_refused_not_drawn_as_one_zigzag_line():
    # the same two runs on two datasets, stacked: one zigzag line per run, its legend 'run=a (AUC 0.812)'
    # where the two curves' AUCs are 0.62 and 0.991
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    data, frames = [], []
    for ds in range(2):
        y = rng.integers(0, 2, 60)
        s = y * (0.3 + 0.4 * ds) + rng.random(60)
        df = pl.DataFrame({"run": np.repeat(["a", "b"], 30), "label": y, "score": s})
        data.append(df)
        frames.append(be.curves(df, by="run", kind="roc"))
    prevalence = [float(np.mean(df.filter(pl.col("run") == "a")["label"].to_numpy())) for df in data]
    assert prevalence[0] != prevalence[1]
    message = (
        f"curves= holds several curves in the line run='a': its prevalence takes 2 values "
        f"({prevalence[0]:.4g}, {prevalence[1]:.4g}); frames stacked with pl.concat need a column that "
        "tells them apart, added before stacking (frame.with_columns(dataset=pl.lit('iris'))): a key "
        "column, it names each curve's line; or filter one first"
    )
    with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
        be.plot(pl.concat(frames))
    # told apart as the message says: a line per run and dataset, each with scikit-learn's AUC
    named = pl.concat(f.with_columns(dataset=pl.lit(f"d{i}")) for i, f in enumerate(frames))
    labels = [ln.get_label() for ln in _runs(be.plot(named).axes[0])]
    expected = []
    for run in "ab":
        for i, df in enumerate(data):
            part = df.filter(pl.col("run") == run)
            auc = roc_auc_score(part["label"], part["score"])
            expected.append(f"run={run}, dataset=d{i} (AUC {auc:.3f})")
    assert labels == expected


def test_key_less_frames_and_smoothings_and_grids_stacked_are_refused_with_what_gives_them_away():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    # two models on the same examples: one prevalence, one s, thresholds apart; the fallout falls back
    first, second = (pl.DataFrame({"label": y, "score": y * k + rng.random(50)}) for k in (0.2, 0.6))
    stacked = pl.concat([be.curves(first, kind="roc"), be.curves(second, kind="roc")])
    x = stacked["x"].to_numpy()[np.argsort(-stacked["threshold"].to_numpy(), kind="stable")]
    i = int(np.flatnonzero(np.diff(x) < 0)[0])
    t = np.sort(stacked["threshold"].to_numpy())[::-1]
    why = (
        f"its x (fallout) falls from {x[i]:.4g} to {x[i + 1]:.4g} as the threshold falls from "
        f"{t[i]:.4g} to {t[i + 1]:.4g}, which one curve's never does"
    )
    cases = [
        (stacked, why),
        (
            pl.concat([be.curves(first, kind="bird", smoothing=s) for s in (0, 1)]),
            "its s takes 2 values (0, 1)",
        ),
        (
            pl.concat([be.curves(first, kind="pr", thresholds=[0.25, 0.5, 0.75])] * 2),
            "its threshold 0.25 appears in 2 rows",
        ),
    ]
    for frame, why in cases:
        message = f"curves= holds several curves in the one line of a frame without key columns: {why}; "
        with pytest.raises(InvalidArgumentError, match="^" + re.escape(message)):
            be.plot(frame)
    for frame in (be.curves(first, kind="roc"), be.curves(second, kind="pr", thresholds=5)):
        assert len(_runs(be.plot(frame).axes[0], frame["chart"][0])) == 1  # one curve is drawn


def _drawn(line) -> tuple[np.ndarray, np.ndarray]:
    """The vertices matplotlib draws for ``line``: its points joined in its drawstyle."""
    from matplotlib.cbook import STEP_LOOKUP_MAP

    x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    return STEP_LOOKUP_MAP[line.get_drawstyle()](x, y)


def test_pr_lines_are_steps_whose_area_is_scikit_learns_average_precision():
    # straight lines between the points: an area of 0.365 under a legend of AP 0.489, and precisions
    # between two points (0.25 at recall 0.8) that no threshold gives
    from sklearn.metrics import average_precision_score, precision_recall_curve

    y = np.array([0, 1, 1, 0, 0, 0, 0, 0, 0, 1])
    rng = np.random.default_rng(3)
    df = pl.concat(
        [
            pl.DataFrame({"run": "a", "label": y, "score": np.linspace(1, 0.1, 10)}),
            pl.DataFrame(
                {"run": "b", "label": (z := rng.integers(0, 2, 80)), "score": z * 0.4 + rng.random(80)}
            ),
        ]
    )
    for thresholds in ("exact", 7):
        ax = be.plot(be.curves(df, by="run", kind="pr", thresholds=thresholds)).axes[0]
        for run, line in zip("ab", _runs(ax), strict=True):
            part = df.filter(pl.col("run") == run)
            label, score = part["label"].to_numpy(), part["score"].to_numpy()
            dx, dy = _drawn(line)
            area = float(np.trapezoid(dy, dx))
            if thresholds == "exact":
                ap = average_precision_score(label, score)
                assert line.get_label() == f"run={run} (AP {ap:.3f})"
                assert area == pytest.approx(ap, abs=1e-12)
                # every step's height is a precision some threshold gives
                precision, _, _ = precision_recall_curve(label, score)
                flat = dy[1:][np.diff(dx) > 0]
                assert np.isin(np.round(flat, 12), np.round(precision, 12)).all()
            else:  # the grid's steps: the area is the legend's grid area
                assert line.get_label() == f"run={run} (grid area {area:.3f})"


def test_legend_names_that_differ_only_in_the_middle_stay_apart_and_each_names_its_own_curve():
    # cut in the middle, all three read 'run=experiment=baseline_transf…enalty=l2_solver=lbfgs_seed=0'
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    settings = ("0.01", "1", "100")
    names = [f"experiment=baseline_transformer_large_C={c}_penalty=l2_solver=lbfgs_seed=0" for c in settings]
    df = pl.DataFrame({"run": np.repeat(names, 30), "label": rng.integers(0, 2, 90), "score": rng.random(90)})
    ax = be.plot(be.curves(df, by="run", kind="roc")).axes[0]
    labels = [ln.get_label() for ln in ax.get_lines() if "(AUC " in ln.get_label()]
    shown = [label.split(" (AUC ")[0] for label in labels]
    assert len(set(shown)) == 3 and all(len(name) <= 60 for name in shown)
    for c, name in zip(settings, names, strict=True):
        part = df.filter(pl.col("run") == name)
        (label,) = [t for t in labels if f"_C={c}_" in t]
        assert label.endswith(f" (AUC {roc_auc_score(part['label'], part['score']):.3f})")


def test_by_a_point_column_is_refused_naming_the_key_columns():
    # by="threshold" drew a one-point 'curve' per threshold, each with an AUC of its own
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"run": np.repeat(["a", "b"], 30), "label": rng.integers(0, 2, 60)}).with_columns(
        score=pl.Series(np.round(rng.random(60), 1))
    )
    for by, keys in ((None, []), ("run", ["run"])):
        frame = be.curves(df, by=by, kind="roc")
        for column in ("threshold", "x", "y", "s", "prevalence", "exact"):
            message = (
                f"by= column {column!r} is a point column of the curves, not a key column: a line is named "
                f"by key columns; the frame's key columns are {keys}"
            )
            with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
                be.plot(frame, by=column if by is None else [by, column])
    with pytest.raises(
        be.ColumnNotFoundError, match=re.escape("by= column 'fold' not found; the frame's key")
    ):
        be.plot(be.curves(df, by="run", kind="roc"), by="fold")


def test_by_naming_a_column_twice_is_refused_as_evaluate_refuses_it():
    # polars' DuplicateError ('projections contained duplicate output name') came out of partition_by
    from batcheval.errors import DuplicateColumnError

    rng = np.random.default_rng(0)
    df = pl.DataFrame(
        {"run": np.repeat(["a", "b"], 20), "fold": np.tile([0, 1], 20), "label": rng.integers(0, 2, 40)}
    ).with_columns(score=pl.Series(rng.random(40)))
    frame = be.curves(df, by=["run", "fold"], kind="roc")
    for by, name in (
        (["run", "run"], "run"),
        (("run", "fold", "run"), "run"),
        (["fold", "run", "fold"], "fold"),
    ):
        message = f"column {name!r} is named twice in by={list(by)!r}"
        with pytest.raises(DuplicateColumnError, match="^" + re.escape(message) + "$"):
            be.plot(frame, by=by)
    with pytest.raises(DuplicateColumnError, match=r"^column 'run' is named twice"):
        be.evaluate(df.with_columns(prediction=pl.col("score") > 0.5), by=["run", "run"])
