"""Charts render to non-trivial PNGs with their guides, labels and legends."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import batcheval as be
from tests.test_sweep import scored_frame


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("chart", sorted(be.CHARTS))
def test_every_chart_renders(tmp_path, chart):
    df = scored_frame(n_runs=4, n_folds=1, rows=60, seed=31)
    frame = be.curves(df, by="run", kind=chart)
    path = tmp_path / f"{chart}.png"
    fig = be.plot(frame, path=path)
    ax = fig.axes[0]
    assert be.CHARTS[chart][0] in ax.get_xlabel() and be.CHARTS[chart][1] in ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [f"run={r}" for r in range(4)] == [x.split(" (")[0] for x in labels if x.startswith("run=")]
    assert path.stat().st_size > 10_000
    from matplotlib import image

    pixels = image.imread(path)
    assert pixels.shape[0] > 300 and pixels.std() > 0.05  # not a blank canvas


def test_choose_chart_and_errors():
    frame = be.curves(scored_frame(n_runs=2, n_folds=1), by="run", kind=["roc", "pr"])
    with pytest.raises(ValueError, match=r"choose one with chart="):
        be.plot(frame)
    with pytest.raises(ValueError, match=r"chart 'bird' is not in the frame"):
        be.plot(frame, chart="bird")
    assert be.plot(frame, chart="pr").axes[0].get_title() == "precision-recall curves"


def test_roc_and_pr_lines_close_and_their_legend_areas_match_scikit_learn():
    from sklearn.metrics import average_precision_score, roc_auc_score

    df = scored_frame(n_runs=3, n_folds=1, rows=80, seed=4)
    for chart, reference, tag in (("roc", roc_auc_score, "AUC"), ("pr", average_precision_score, "AP")):
        ax = be.plot(be.curves(df, by="run", kind=chart)).axes[0]
        runs = [line for line in ax.get_lines() if line.get_label().startswith("run=")]
        assert [line.get_label().split(" (")[0] for line in runs] == ["run=0", "run=1", "run=2"]
        for r, line in enumerate(runs):
            sub = df.filter(pl.col("run") == r)
            x, y = line.get_xdata(), line.get_ydata()
            assert x[0] == 0.0 and (y[0] == 0.0 if chart == "roc" else True)
            assert x[-1] == 1.0 and (y[-1] == 1.0 if chart == "roc" else True)
            expected = reference(sub["label"].to_numpy(), sub["score"].to_numpy())
            assert f"({tag} {expected:.3f})" in line.get_label()
            if chart == "pr":  # the chance line sits at the prevalence
                chance = [t for t in ax.get_legend().get_texts() if t.get_text().startswith("chance")]
                assert chance and "prevalence" in chance[0].get_text()


def test_numeric_settings_sort_numerically_and_bird_is_clipped_with_a_note():
    import numpy as np

    rng = np.random.default_rng(0)
    df = pl.concat(
        pl.DataFrame({"depth": d, "label": rng.integers(0, 2, 100), "score": rng.random(100)})
        for d in (75, 1, 25, 5)
    )
    ax = be.plot(be.curves(df, by="depth", kind="roc")).axes[0]
    names = [
        line.get_label().split(" (")[0] for line in ax.get_lines() if line.get_label().startswith("depth")
    ]
    assert names == ["depth=1", "depth=5", "depth=25", "depth=75"]
    ax = be.plot(be.curves(df, by="depth", kind="bird")).axes[0]
    lo, hi = ax.get_ylim()
    ys = np.concatenate([line.get_ydata() for line in ax.get_lines() if line.get_label().startswith("depth")])
    beyond = int(((ys < lo) | (ys > hi)).sum()) + int(
        sum(((line.get_xdata() < ax.get_xlim()[0]) | (line.get_xdata() > ax.get_xlim()[1])).sum()
            for line in ax.get_lines() if line.get_label().startswith("depth"))
    )  # fmt: skip
    if beyond:
        assert "drawn at the axes' edge" in ax.get_title()


def test_forest_plot_says_level_pairing_and_how_many_runs():
    from batcheval.examples.synthetic import make_sweep

    board = be.leaderboard(make_sweep(n_runs=12, rows_per_fold=60), pool="fold", ci=0.9)
    fig = be.plot(board, top=5)
    ax = fig.axes[0]
    assert ax.get_title().splitlines() == [
        "informedness: top 5 of 12 runs, 90% intervals",
        "unpaired tests against the leader (no example ids)",
    ]
    leader = [t.get_text() for t in ax.get_yticklabels() if t.get_text().endswith("(leader)")]
    assert leader == [f"{board['run'][0]} (leader)"]
    assert fig.get_size_inches()[1] < be.plot(board, top=12).get_size_inches()[1]


def test_pr_curves_on_a_shared_grid_leave_out_thresholds_above_a_groups_scores():
    # a grid's thresholds above a group's top score predict nothing positive, so precision is
    # NaN there: drawn and summed it made the legend read "AP nan" (stop 43). The legend's AP is
    # that of the defined points, by hand: step interpolation from recall 0
    import numpy as np

    df = pl.DataFrame(
        {"run": [0] * 4 + [1] * 4, "label": [0, 1] * 4, "score": [0.1, 0.9, 0.3, 1.0, 0.1, 0.5, 0.2, 0.4]}
    )
    frame = be.curves(df, by="run", kind="pr", thresholds=5)
    assert frame.filter(pl.col("run") == 1)["y"].is_nan().any()  # the case: undefined precision
    ax = be.plot(frame).axes[0]
    for r, line in enumerate(ln for ln in ax.get_lines() if ln.get_label().startswith("run=")):
        part = frame.filter((pl.col("run") == r) & pl.col("y").is_not_nan()).sort(
            "threshold", descending=True
        )
        x, y = part["x"].to_numpy(), part["y"].to_numpy()
        ap = float(np.sum(np.diff(np.concatenate(([0.0], x))) * y))
        assert line.get_label() == f"run={r} (grid area {ap:.3f})" and np.isfinite(line.get_ydata()).all()


def _constant_run_board() -> tuple[pl.DataFrame, pl.DataFrame]:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 100
    y = rng.integers(0, 2, n)
    runs = [
        pl.DataFrame({"run": f"r{i}", "example": np.arange(n), "label": y,
                      "prediction": np.where(rng.random(n) < 0.7 + 0.05 * i, y, 1 - y)})
        for i in range(3)
    ]  # fmt: skip
    # predicts no positive: its precision is undefined and its rank null
    const = pl.DataFrame(
        {"run": "const", "example": np.arange(n), "label": y, "prediction": np.zeros(n, int)}
    )
    df = pl.concat([*runs, const])
    return df, be.leaderboard(df, run="run", example="example", measure="precision")


def test_forest_plot_leaves_out_a_run_whose_measure_is_undefined_and_stars_rank_one():
    from sklearn.metrics import precision_score

    df, board = _constant_run_board()
    precision = {
        r: precision_score(g["label"], g["prediction"], zero_division=np.nan)
        for (r,), g in df.partition_by("run", as_dict=True).items()
    }
    defined = sorted((r for r in precision if not np.isnan(precision[r])), key=lambda r: -precision[r])
    ax = be.plot(board).axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == [f"{defined[0]} (leader)", *defined[1:]]
    assert ax.get_title().splitlines()[-1] == "1 run with an undefined precision not drawn: const"
    star = [line for line in ax.get_lines() if line.get_label() == "leader"]
    assert star[0].get_xdata().tolist() == pytest.approx([precision[defined[0]]])


def test_by_that_leaves_several_curves_in_a_line_is_refused_and_pooling_gives_the_pooled_auc():
    from sklearn.metrics import roc_auc_score

    df = scored_frame(n_runs=2, n_folds=5, rows=60, seed=3)
    folds = be.curves(df, by=["run", "fold"], kind="roc")
    message = (
        "by=['run'] puts several curves in one line: the frame's key column ['fold'] takes more than one "
        "value within a group; name every key (by=['run', 'fold']) or pool them when making the frame: "
        "be.curves(..., pool=['fold'])"
    )
    with pytest.raises(be.errors.InvalidArgumentError, match=re.escape(message)):
        be.plot(folds, by="run")
    assert len([ln for ln in be.plot(folds).axes[0].get_lines() if ln.get_label().startswith("run=")]) == 10
    ax = be.plot(be.curves(df, by=["run", "fold"], kind="roc", pool="fold"), by="run").axes[0]
    for r, line in enumerate(ln for ln in ax.get_lines() if ln.get_label().startswith("run=")):
        sub = df.filter(pl.col("run") == r)
        assert line.get_label() == f"run={r} (AUC {roc_auc_score(sub['label'], sub['score']):.3f})"


def test_by_class_on_a_multiclass_frame_of_several_runs_is_refused():
    rng = np.random.default_rng(5)
    df = pl.DataFrame({"run": np.repeat([0, 1], 60), "label": rng.integers(0, 3, 120)}).with_columns(
        pl.Series("score", rng.dirichlet(np.ones(3), 120).tolist())
    )
    frame = be.curves(df, by="run", kind="roc")
    assert {"run", "class"} <= set(frame.columns)
    with pytest.raises(be.errors.InvalidArgumentError, match=r"key column \['run'\] takes more than one"):
        be.plot(frame, by="class")
    # the hint to pool 'class' failed: the one-vs-rest step makes that column, be.curves cannot pool it
    message = "name every key (by=['run', 'class'])"
    with pytest.raises(be.errors.InvalidArgumentError, match=re.escape(message) + "$"):
        be.plot(frame, by="run")
    with pytest.raises(be.ColumnNotFoundError, match="pool column 'class' not found"):
        be.curves(df, by="run", kind="roc", pool="class")


def _runs(k: int, name=str) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    return pl.concat(
        pl.DataFrame({"run": name(i), "label": (y := rng.integers(0, 2, 40)), "score": y + rng.random(40)})
        for i in range(k)
    )


def _inside(fig, artist) -> bool:
    box = artist.get_window_extent(fig.canvas.get_renderer())
    return box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.width + 0.5 and box.y1 <= fig.bbox.height + 0.5


def test_forty_lines_and_long_names_fit_the_figure_with_distinct_entries_and_a_full_size_axes():
    few = be.plot(be.curves(_runs(3), by="run", kind="roc"))
    axes_inches = few.axes[0].get_window_extent().width / few.dpi
    for name in (
        str,
        lambda i: f"gradient_boosting_classifier_with_a_long_configuration_name_number_{i:02d}",
    ):
        fig = be.plot(be.curves(_runs(40, name), by="run", kind="roc"))
        ax = fig.axes[0]
        legend = ax.get_legend()
        fig.canvas.draw()
        assert _inside(fig, legend) and _inside(fig, ax.title) and _inside(fig, ax.xaxis.label)
        # the axes keep the size they have beside a short legend
        assert ax.get_window_extent().width / fig.dpi == pytest.approx(axes_inches, rel=0.02)
        runs = [ln for ln in ax.get_lines() if ln.get_label().startswith("run=")]
        assert len(runs) == 40 and len(legend.get_texts()) == 41  # and "chance"
        assert len({(ln.get_color(), ln.get_linestyle()) for ln in runs}) == 40
        labels = [ln.get_label() for ln in runs]
        assert len(set(labels)) == 40 and all(len(t.split(" (AUC")[0]) <= 60 for t in labels)
    assert labels[7].startswith("run=gradient_boosting") and "…" in labels[7]
    assert labels[7].split(" (AUC")[0].endswith("number_07")


def test_plot_names_the_argument_and_value_it_cannot_use():
    from batcheval.errors import ColumnNotFoundError, InvalidArgumentError

    df = scored_frame(n_runs=2, n_folds=1, rows=40, seed=2)
    frame = be.curves(df, by="run", kind="roc")
    board = be.leaderboard(
        pl.DataFrame({"run": [0] * 4 + [1] * 4, "label": [0, 1] * 4, "prediction": [0, 1, 1, 1, 0, 0, 1, 1]}),
        run="run",
    )
    ranks = be.rank_methods(
        pl.DataFrame({"method": ["a", "b"] * 3, "dataset": [1, 1, 2, 2, 3, 3], "score": [1, 2, 3, 1, 2, 4]})
    )
    cases = [
        (lambda: be.plot(frame, chart="rocc"), InvalidArgumentError, "chart='rocc' is not a chart; choose"),
        (lambda: be.plot(frame.head(0)), InvalidArgumentError, "curves= is empty"),
        (lambda: be.plot(be.evaluate(df.with_columns(prediction=pl.col("score") > 0), by="run")),
         ColumnNotFoundError, "curves= has no column 'chart': not a be.curves frame"),
        (lambda: be.plot(frame, by="fold"), ColumnNotFoundError, "by= column 'fold' not found"),
        (lambda: be.plot(frame, top=3), InvalidArgumentError, "got top=3"),
        (lambda: be.plot(board, chart="roc"), InvalidArgumentError, "got chart='roc'"),
        (lambda: be.plot(ranks, chart="roc"), InvalidArgumentError, "got chart='roc'"),
        (lambda: be.plot([1, 2]), InvalidArgumentError, "curves= takes a be.curves or be.leaderboard frame"),
    ]  # fmt: skip
    for call, error, message in cases:
        with pytest.raises(error, match=re.escape(message)):
            call()
    expected = [ln.get_label() for ln in be.plot(frame).axes[0].get_lines()]
    for other in (frame.lazy(), frame.to_pandas()):
        assert [ln.get_label() for ln in be.plot(other).axes[0].get_lines()] == expected


def test_bird_without_smoothing_draws_and_counts_its_infinite_points_at_the_edge():
    from matplotlib.lines import Line2D

    rng = np.random.default_rng(0)
    df = pl.concat(
        pl.DataFrame({"run": r, "label": (y := rng.integers(0, 2, 60)), "score": y * 0.8 + rng.random(60)})
        for r in range(3)
    )
    frame = be.curves(df, by="run", kind="bird", smoothing=0)
    x, y = frame["x"].to_numpy(), frame["y"].to_numpy()
    assert np.isinf(y).sum() > 0  # fpr 0 without smoothing: y = -log2(tpr/0)
    ax = be.plot(frame).axes[0]
    (lo_x, hi_x), (lo_y, hi_y) = ax.get_xlim(), ax.get_ylim()
    beyond = ~np.isnan(x) & ~np.isnan(y) & ((x < lo_x) | (x > hi_x) | (y < lo_y) | (y > hi_y))
    assert beyond.sum() >= np.isinf(y).sum()
    assert ax.get_title().splitlines()[-1] == f"{beyond.sum()} extreme points drawn at the axes' edge (▲)"
    # the triangles of each curve, in its colour, and one legend entry for all of them
    assert len([ln for ln in ax.get_lines() if ln.get_label().startswith("beyond the axes")]) == 1
    edges = [ln for ln in ax.get_lines() if ln.get_label() == "_beyond the axes"]
    ex, ey = (np.concatenate([getter(ln) for ln in edges]) for getter in (Line2D.get_xdata, Line2D.get_ydata))
    assert len(ex) == beyond.sum() and np.isfinite(ey).all() and ((ey >= lo_y) & (ey <= hi_y)).all()


def test_pr_legend_gives_ap_only_for_a_curve_that_reaches_recall_one():
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(0)
    df = pl.DataFrame({"label": (y := rng.integers(0, 2, 60)), "score": y * 0.3 + rng.random(60)})
    ap = average_precision_score(df["label"], df["score"])
    every_score = sorted(set(df["score"].to_list()))
    for thresholds, label in (
        ([0.5], "pr (AP n/a)"),  # stops at recall < 1: the step sum was 0.589, not AP
        ([2.0, 3.0], "pr (AP n/a)"),  # above every score: nothing predicted positive (was "AP 0.000")
        (every_score, f"pr (grid area {ap:.3f})"),  # a list: the frame cannot tell it holds every score
        ("exact", f"pr (AP {ap:.3f})"),
    ):
        ax = be.plot(be.curves(df, kind="pr", thresholds=thresholds)).axes[0]
        assert [ln.get_label() for ln in ax.get_lines() if ln.get_label().startswith("pr")] == [label]


def test_pr_legend_on_a_threshold_grid_is_no_average_precision():
    # a grid's step sum was labelled "AP 0.827" where average precision is 0.908
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(0)
    df = pl.DataFrame({"run": rng.choice(["a", "b", "c"], 300), "label": rng.integers(0, 2, 300)})
    df = df.with_columns(score=pl.col("label") * 0.5 + pl.Series(rng.random(300)))
    for thresholds, tag in ((5, "grid area"), ("exact", "AP")):
        ax = be.plot(be.curves(df, by="run", kind="pr", thresholds=thresholds)).axes[0]
        runs = [ln for ln in ax.get_lines() if ln.get_label().startswith("run=")]
        for r, line in zip("abc", runs, strict=True):
            part = df.filter(pl.col("run") == r)
            assert line.get_label().startswith(f"run={r} ({tag} ")
            if tag == "AP":
                ap = average_precision_score(part["label"], part["score"])
                assert line.get_label() == f"run={r} (AP {ap:.3f})"
            else:
                assert float(line.get_label()[:-1].split()[-1]) < average_precision_score(
                    part["label"], part["score"]
                )


def test_roc_legend_on_a_threshold_grid_is_no_auc_and_a_one_class_group_has_none():
    # a grid's trapezoid area was labelled "AUC" (0.750 on thresholds [0.5] for roc_auc_score's 0.8125
    # in the report), and a group of one class read "AUC nan" where the PR legend says "AP n/a"
    from sklearn.metrics import roc_auc_score

    label = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    score = np.array([0.1, 0.4, 0.35, 0.8, 0.38, 0.6, 0.9, 0.85])
    one = pl.DataFrame({"run": ["a"] * 8, "label": label, "score": score})
    only = pl.DataFrame({"run": ["b"] * 3, "label": [0, 0, 0], "score": [0.2, 0.5, 0.7]})
    df = pl.concat([one, only])
    auc = roc_auc_score(label, score)
    assert auc == 0.8125
    ax = be.plot(be.curves(df, by="run", kind="roc")).axes[0]
    assert [ln.get_label() for ln in ax.get_lines() if ln.get_label().startswith("run=")] == [
        f"run=a (AUC {auc:.3f})",
        "run=b (one class: no curve, AUC n/a)",
    ]
    for thresholds in ([0.5], [0.25, 0.5, 0.75]):
        # the grid's ROC by hand: (0, 0), each threshold's (fpr, tpr), (1, 1), summed as trapezoids
        fpr = [0.0, *(float(np.mean(score[label == 0] >= t)) for t in sorted(thresholds, reverse=True)), 1.0]
        tpr = [0.0, *(float(np.mean(score[label == 1] >= t)) for t in sorted(thresholds, reverse=True)), 1.0]
        area = float(np.trapezoid(tpr, fpr))
        assert f"{area:.3f}" != f"{auc:.3f}"
        ax = be.plot(be.curves(df, by="run", kind="roc", thresholds=thresholds)).axes[0]
        assert [ln.get_label() for ln in ax.get_lines() if ln.get_label().startswith("run=")] == [
            f"run=a (grid area {area:.3f})",
            "run=b (one class: no curve, AUC n/a)",
        ]


def test_pr_chance_line_is_the_prevalence_and_a_one_class_group_has_no_ap():
    # the chance line took the precision at the lowest threshold when recall was 1 there: 0.6 on a
    # grid whose lowest threshold leaves rows out, for a prevalence of 0.3; a group of positives
    # only stretched the band to 1 and read "AP 1.000"
    labels = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    df = pl.DataFrame({"label": labels, "score": [0.9, 0.8, 0.6, 0.7, 0.5, 0.2, 0.1, 0.1, 0.05, 0.0]})
    ax = be.plot(be.curves(df, kind="pr", thresholds=[0.3, 0.55, 0.75])).axes[0]
    (chance,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("chance")]
    assert chance.get_label() == f"chance (prevalence {np.mean(labels):.3g})"
    assert np.allclose(chance.get_ydata(), np.mean(labels))
    rng = np.random.default_rng(0)
    a = pl.DataFrame({"run": ["a"] * 40, "label": rng.integers(0, 2, 40), "score": rng.random(40)})
    z = pl.DataFrame({"run": ["z"] * 5, "label": [1] * 5, "score": [0.1, 0.2, 0.3, 0.4, 0.5]})
    ax = be.plot(be.curves(pl.concat([a, z]), by="run", kind="pr")).axes[0]
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert f"chance (prevalence {a['label'].mean():.3g})" in labels
    assert "run=z (AP n/a)" in labels


def test_a_path_savefig_cannot_write_is_refused_before_anything_is_drawn(tmp_path):
    # a missing directory raised a bare FileNotFoundError after the drawing, an unknown extension
    # matplotlib's ValueError "Format 'xyz' is not supported", and a directory IsADirectoryError
    import matplotlib.pyplot as plt

    from batcheval.errors import InvalidArgumentError

    (tmp_path / "dir.png").mkdir()
    (tmp_path / "charts").mkdir()  # no extension: it was written as charts.png beside the directory
    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    curves = be.curves(_runs(3), by="run", kind="roc")
    missing, folder = tmp_path / "nodir" / "b.png", str(tmp_path / "dir.png")
    for path, message in (
        (missing, f"path={str(missing)!r} cannot be written: no directory {str(tmp_path / 'nodir')!r}"),
        (folder, f"path={folder!r} cannot be written: it is a directory"),
        (tmp_path / "charts", f"path={str(tmp_path / 'charts')!r} cannot be written: it is a directory"),
        ("b.xyz", "path='b.xyz' cannot be written: matplotlib writes no '.xyz' files; use one of .avif, "),
        (5, "path= takes a file path (a str or a pathlib.Path), got 5"),
    ):
        for frame in (board, curves, _ranks(4)):
            plt.close("all")
            with pytest.raises(InvalidArgumentError, match="^" + re.escape(message)):
                be.plot(frame, path=path)
            assert plt.get_fignums() == []  # refused before a figure was made
    assert not (tmp_path / "charts.png").exists()
    for path in (tmp_path / "b.PDF", tmp_path / "noext"):  # an extension in capitals; none: PNG
        be.plot(board, path=path)
    assert (tmp_path / "b.PDF").read_bytes()[:4] == b"%PDF"
    assert (tmp_path / "noext.png").read_bytes()[:4] == b"\x89PNG"


def test_top_takes_a_numpy_integer_and_ax_must_be_one_axes():
    # the forest plot refused top=np.int64(3) ("top must be a positive integer, got np.int64(3)")
    # where the CD diagram took it, and ax="x" or an array of axes raised a bare AttributeError
    import matplotlib.pyplot as plt

    from batcheval.errors import InvalidArgumentError

    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    ranked = board.filter(pl.col("rank").is_not_null()).sort("rank", maintain_order=True)
    for top in (np.int64(2), np.int32(2), np.uint8(2)):
        ticks = [t.get_text() for t in be.plot(board, top=top).axes[0].get_yticklabels()]
        assert [t.removesuffix(" (leader)") for t in ticks] == ranked["run"].head(2).to_list()
        assert be.plot(_ranks(5), top=top).axes[0].get_title().startswith("5 methods (the best 2 shown)")
    for top in (True, np.bool_(True), np.int64(0), 2.0):
        with pytest.raises(
            InvalidArgumentError, match=re.escape(f"top must be a positive integer, got {top!r}")
        ):
            be.plot(board, top=top)
    _, axes = plt.subplots(1, 2)
    for frame in (board, be.curves(_runs(2), by="run", kind="roc"), _ranks(4)):
        for ax, kind in (("x", "str"), (axes, "ndarray"), (plt.gcf(), "Figure")):
            message = f"ax= takes one matplotlib Axes (as from fig, ax = plt.subplots()), got a {kind}"
            with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
                be.plot(frame, ax=ax)
        assert be.plot(frame, ax=axes[0]).axes[0] is axes[0]


def test_boards_stacked_into_one_frame_are_refused_with_the_column_to_filter():
    # the demo's leaderboard.parquet (pl.concat of two datasets' boards) drew as one board: two
    # "(leader)" stars, duplicate labels and a leader line at one of them
    from batcheval.errors import InvalidArgumentError
    from batcheval.examples.synthetic import make_sweep

    a, b = (be.leaderboard(make_sweep(n_runs=6, rows_per_fold=60, seed=s), pool="fold") for s in (1, 2))
    leaders = [float(x.filter(pl.col("rank") == 1)["informedness"][0]) for x in (a, b)]
    assert leaders[0] != leaders[1]
    stacked = pl.concat([a.with_columns(dataset=pl.lit("iris")), b.with_columns(dataset=pl.lit("wine"))])
    assert be.plot(stacked.filter(pl.col("dataset") == "iris")).axes[0].get_xlabel() == "informedness"
    message = (
        f"the frame holds several leaderboards: 2 runs of rank 1 with different informedness "
        f"({leaders[0]:.4g}, {leaders[1]:.4g}); a forest plot draws one board: filter one first, "
        "e.g. board.filter(pl.col('dataset') == 'iris')"
    )
    with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
        be.plot(stacked)
    # the dataset as the first key column: told apart by it among the leaders
    keyed = stacked.select("dataset", pl.exclude("dataset"))
    with pytest.raises(
        InvalidArgumentError, match=re.escape("board.filter(pl.col('dataset') == 'iris')") + "$"
    ):
        be.plot(keyed)
    # the same board twice: one leader value, but every run named twice
    run = a.sort("rank")["run"][0]
    message = (
        f"the frame holds several leaderboards: the run run={run!r} appears in 2 rows; a forest plot "
        "draws one board: filter the rows of one board first"
    )
    with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
        be.plot(pl.concat([a, a]).sort("rank"))


def test_plot_refuses_a_list_of_charts_and_a_by_or_title_of_another_kind():
    # TypeErrors before: unhashable type: 'list', 'int' object is not iterable, int + str
    frame = be.curves(scored_frame(n_runs=2, n_folds=1, rows=40, seed=2), by="run", kind=["roc", "pr"])
    for kwargs, message in (
        (dict(chart=["roc"]), "chart= takes one chart name (be.plot draws one chart: call it once per "
         "chart), got ['roc']"),
        (dict(chart="roc", by=1), "by= takes a column name or a list of them, got 1"),
        (dict(chart="roc", by=["run", 2]), "by= takes a column name or a list of them, got ['run', 2]"),
        (dict(chart="roc", title=5), "title= takes a string, got 5"),
    ):  # fmt: skip
        with pytest.raises(be.errors.InvalidArgumentError, match=re.escape(message)):
            be.plot(frame, **kwargs)


def test_bird_sign_note_is_a_subtitle_not_a_box_over_the_curves():
    df = scored_frame(n_runs=2, n_folds=1, rows=60, seed=7)
    ax = be.plot(be.curves(df, by="run", kind="bird")).axes[0]
    assert len(ax.texts) == 0  # nothing drawn over the data
    assert ax.get_title().splitlines()[1] == "more informed ↓ (better): y = −log2(tpr/fpr) < 0 when tpr > fpr"


def test_forest_title_prints_a_level_with_its_digits():
    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run", ci=0.975)
    assert be.plot(board).axes[0].get_title().startswith("informedness: top 3 of 3 runs, 97.5% intervals")


def test_forest_level_not_strictly_between_0_and_1_is_refused_naming_level_before_drawing():
    # level=95 was titled "9500% intervals", nan "nan% intervals", and "0.9" raised a bare TypeError
    import matplotlib.pyplot as plt

    from batcheval.errors import InvalidArgumentError
    from batcheval.plot.forest import plot_leaderboard

    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    for level, shown in ((95, "95"), (float("nan"), "nan"), ("0.9", "'0.9'"), (0, "0"), (1.0, "1.0"),
                         (True, "True"), (-0.5, "-0.5")):  # fmt: skip
        plt.close("all")
        message = f"level must be a confidence level strictly between 0 and 1, got {shown}"
        message += "; for 95 % give level=0.95" if level == 95 else ""
        with pytest.raises(InvalidArgumentError, match="^" + re.escape(message) + "$"):
            plot_leaderboard(board, level=level)
        assert plt.get_fignums() == []
    for level, text in ((0.8, "80%"), (np.float32(0.5), "50%")):
        title = plot_leaderboard(board, level=level).axes[0].get_title()
        assert title.startswith(f"informedness: top 3 of 3 runs, {text} intervals")


def test_forest_paired_takes_true_or_false_only():
    # paired="no" was read as paired (any truthy value was): the subtitle said "paired tests"
    import matplotlib.pyplot as plt

    from batcheval.errors import InvalidArgumentError
    from batcheval.plot.forest import plot_leaderboard

    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    for paired, shown in (("no", "'no'"), (2, "2"), (np.nan, "nan")):
        plt.close("all")
        message = f"paired takes True or False, got {shown}"
        with pytest.raises(InvalidArgumentError, match="^" + re.escape(message)):
            plot_leaderboard(board, paired=paired)
        assert plt.get_fignums() == []
    subtitle = {p: plot_leaderboard(board, paired=p).axes[0].get_title().splitlines()[1] for p in (0, 1)}
    assert subtitle[0].startswith("unpaired") and subtitle[1].startswith("paired")


def test_forest_legend_of_a_short_board_clears_the_x_label_and_lists_only_what_is_drawn():
    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    for top in (1, 2):
        fig = be.plot(board, top=top)
        ax = fig.axes[0]
        fig.canvas.draw()
        legend = ax.get_legend()
        box, label = (a.get_window_extent(fig.canvas.get_renderer()) for a in (legend, ax.xaxis.label))
        assert not box.overlaps(label) and _inside(fig, legend)
        drawn = {ln.get_label() for ln in ax.get_lines() if len(ln.get_xdata()) and ln.get_label()[0] != "_"}
        assert {t.get_text() for t in legend.get_texts()} == drawn
    assert [t.get_text() for t in be.plot(board, top=1).axes[0].get_legend().get_texts()] == ["leader"]


def _ranks(k: int, name=lambda i: f"m{i}") -> be.RankResult:
    rng = np.random.default_rng(0)
    return be.rank_methods(
        pl.DataFrame(
            {
                "method": [name(i) for i in range(k)] * 12,
                "dataset": np.repeat(np.arange(12), k),
                "score": rng.random(12 * k) + np.tile(np.arange(k), 12) * 0.02,
            }
        )
    )


def test_cd_diagram_ticks_and_title_with_top():
    ax = be.plot(_ranks(40)).axes[0]
    ticks = [t.get_text() for t in ax.texts if t.get_text().isdigit()]
    assert ticks == ["1", "5", "10", "15", "20", "25", "30", "35", "40"]
    assert (
        be.plot(_ranks(40), top=10)
        .axes[0]
        .get_title()
        .startswith("40 methods (the best 10 shown), 12 datasets")
    )
    assert be.plot(_ranks(6)).axes[0].get_title().startswith("6 methods, 12 datasets")


def test_cd_diagram_draws_as_many_methods_as_top_asks_beyond_the_default_40():
    # top=45 drew 40 (min(top, 40)) under a title of "the best 40 shown"
    res = _ranks(50)

    def drawn(fig):
        return [t.get_text() for t in fig.axes[0].texts if re.fullmatch(r"m\d+ \(\d+\.\d\d\)", t.get_text())]

    fig = be.plot(res, top=45)
    assert drawn(fig) == [
        f"{m} ({r:.2f})" for m, r in res.ranks.head(45).select("method", "mean_rank").rows()
    ]
    assert fig.axes[0].get_title().startswith("50 methods (the best 45 shown), 12 datasets")
    fig = be.plot(res, top=60)  # more than there are: all of them
    assert len(drawn(fig)) == 50 and fig.axes[0].get_title().startswith("50 methods, 12 datasets")
    with pytest.raises(
        be.errors.InvalidArgumentError,
        match=re.escape("50 methods are too many for one diagram by default (at most 40); give top= (top=50"),
    ):
        be.plot(res)


def test_a_top_beyond_the_largest_int64_draws_every_run_or_method():
    # top=2**70 raised OverflowError (int too big to convert) in polars' head, where top=60 of 50
    # methods draws them all
    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    ranked = board.filter(pl.col("rank").is_not_null()).sort("rank", maintain_order=True)
    ax = be.plot(board, top=2**70).axes[0]
    assert [t.get_text().removesuffix(" (leader)") for t in ax.get_yticklabels()] == ranked["run"].to_list()
    assert f": top 3 of {board.height} runs" in ax.get_title() and board.height == 3
    res = _ranks(5)
    texts = [t.get_text() for t in be.plot(res, top=2**70).axes[0].texts]
    assert [t for t in texts if re.fullmatch(r"m\d \(\d\.\d\d\)", t)] == [
        f"{m} ({r:.2f})" for m, r in res.ranks.select("method", "mean_rank").rows()
    ]


def test_cd_diagram_refuses_anything_but_a_rank_methods_result():
    # plot_cd, the documented entry point, raised a bare AttributeError ('DataFrame' ... 'n_methods')
    from batcheval.plot.cd import plot_cd

    for bad, kind in ((pl.DataFrame({"method": ["a"], "mean_rank": [1.0]}), "DataFrame"), (None, "NoneType")):
        with pytest.raises(
            be.errors.InvalidArgumentError,
            match=re.escape(f"result= takes what be.rank_methods returns (a RankResult), got {kind}"),
        ):
            plot_cd(bad)


def test_cd_diagram_saves_long_method_names_whole(tmp_path):
    from matplotlib import image

    fig = be.plot(
        _ranks(6, lambda i: f"method_with_a_rather_long_descriptive_name_{i:02d}"), path=tmp_path / "cd.png"
    )
    renderer = fig.canvas.get_renderer()
    names = [t.get_window_extent(renderer) for t in fig.axes[0].texts if "descriptive" in t.get_text()]
    span = (max(b.x1 for b in names) - min(b.x0 for b in names)) / fig.dpi * 120  # pixels at the saved dpi
    assert image.imread(tmp_path / "cd.png").shape[1] >= span


def test_a_callers_own_tight_layout_keeps_the_legend_on_the_figure():
    # the demo draws on its own axes, then calls tight_layout and saves without a tight box
    import matplotlib.pyplot as plt

    df, _ = _constant_run_board()
    board = be.leaderboard(df.filter(pl.col("run") != "const"), run="run")
    for frame in (board, be.curves(_runs(12), by="run", kind="roc")):
        fig, ax = plt.subplots(figsize=(8, 6.4))
        be.plot(frame, ax=ax)
        fig.tight_layout()
        fig.canvas.draw()
        assert _inside(fig, ax.get_legend()) and _inside(fig, ax.title)


def test_the_plot_modules_named_in_the_docs_import_as_written():
    # be.plot's docstring named batcheval.plot.forest.plot_leaderboard and batcheval.plot.cd.plot_cd,
    # module paths that do not import: the package root binds the function plot over the subpackage
    # (public API, kept). The docs now write the imports that work
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    texts = {
        "be.plot": be.plot.__doc__,
        "docs/architecture.md": (root / "docs" / "architecture.md").read_text(),
    }
    named = set()
    for where, text in texts.items():
        assert not re.search(r"batcheval\.plot\.(forest|cd)\.plot_", text), where
        named |= set(re.findall(r"from batcheval\.plot\.\w+ import \w+", text))
    assert named == {
        "from batcheval.plot.forest import plot_leaderboard",
        "from batcheval.plot.cd import plot_cd",
    }
    code = "; ".join(sorted(named)) + "; print(plot_leaderboard.__module__, plot_cd.__module__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["batcheval.plot.forest", "batcheval.plot.cd"]
    # and the form they warn against still fails, as they say
    old = "import batcheval.plot.forest as forest"
    done = subprocess.run([sys.executable, "-c", old], capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "ImportError" in done.stderr


_LONG_TITLE = (
    "ROC of the gradient-boosted classifier sweep on the held-out validation split of the 2026 benchmark "
    "with class weighting enabled and the learning rate decayed over 400 rounds of boosting, seeds 0-9"
)


def test_a_long_title_is_wrapped_within_the_axes_with_every_word_kept(tmp_path):
    # it ran off both sides: fig.savefig cut it, path= saved a figure twice as wide around it
    board = be.leaderboard(_runs(3).with_columns(prediction=(pl.col("score") > 1).cast(pl.Int64)), run="run")
    drawings = {
        "roc": lambda title: be.plot(be.curves(_runs(3), by="run", kind="roc"), title=title),
        "bird": lambda title: be.plot(be.curves(_runs(3), by="run", kind="bird"), title=title),
        "forest": lambda title: be.plot(board, title=title),
        "cd": lambda title: be.plot(_ranks(5), title=title),
    }
    for chart, draw in drawings.items():
        fig = draw(_LONG_TITLE)
        ax = fig.axes[0]
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        title = ax.get_title()
        assert title.count("\n") >= 1, chart
        # the user's words, in order, on lines no wider than the axes (a chart's own subtitle follows)
        assert " ".join(title.split("\n")).startswith(_LONG_TITLE), chart
        assert ax.title.get_window_extent(renderer).width <= ax.get_window_extent(renderer).width + 1, chart
        assert _inside(fig, ax.title), chart
        assert draw("a short title").axes[0].get_title().split("\n")[0] == "a short title", chart
    # saved with path=: no wider than the same chart with a short title
    wide, short = tmp_path / "wide.png", tmp_path / "short.png"
    be.plot(be.curves(_runs(3), by="run", kind="roc"), title=_LONG_TITLE, path=wide)
    be.plot(be.curves(_runs(3), by="run", kind="roc"), title="a short title", path=short)
    import matplotlib.image as mpimg

    assert mpimg.imread(wide).shape[1] <= mpimg.imread(short).shape[1] + 2
