"""What a chart shows, read back from its artists: missing intervals, long names, clipped points,
one-class groups, and labels that stay on the returned figure (found by looking at the PNGs)."""

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


def _inside(fig, artist) -> bool:
    box = artist.get_window_extent(fig.canvas.get_renderer())
    return (
        box.x0 >= -0.5
        and box.y0 >= -0.5
        and box.x1 <= fig.bbox.width + 0.5
        and box.y1 <= fig.bbox.height + 0.5
    )


# --- the forest plot -------------------------------------------------------------------------------


def _one_class_board(measure: str) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    df = pl.concat(
        pl.DataFrame({"run": r, "label": [0] * 50, "prediction": (rng.random(50) < q).astype(int)})
        for r, q in (("a", 0.1), ("b", 0.3), ("c", 0.0))
    )
    return be.leaderboard(df, measure=measure)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("measure", ["informedness", "markedness"])
def test_forest_marks_a_missing_interval_and_names_its_runs(measure):
    # a NaN interval end was dropped by hlines, so the point alone read as a certain value
    board = _one_class_board(measure)
    missing = board.filter(pl.col(f"{measure}_ci_low").is_nan() | pl.col(f"{measure}_ci_high").is_nan())
    assert missing.height >= 1  # informedness of one class: all three; markedness: the constant run c
    ax = be.plot(board).axes[0]
    rows = {t.get_text().removesuffix(" (leader)"): t.get_position()[1] for t in ax.get_yticklabels()}
    dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert sorted(float(ln.get_ydata()[0]) for ln in dotted) == sorted(rows[r] for r in missing["run"])
    for ln in dotted:  # across the whole axes: the value could be anywhere
        assert list(ln.get_xdata()) == [0, 1]
    n = missing.height
    names = "; ".join(missing["run"].to_list())
    assert ax.get_title().splitlines()[-1] == (
        f"{n} run{'s' if n > 1 else ''} without an interval (undefined; dotted): {names}"
    )
    assert "no interval (undefined)" in [t.get_text() for t in ax.get_legend().get_texts()]
    # the bars that are drawn are exactly the finite intervals
    drawn = ax.collections[0].get_segments()
    finite = board.filter(~pl.col(f"{measure}_ci_low").is_nan() & ~pl.col(f"{measure}_ci_high").is_nan())
    assert sorted((s[0][0], s[1][0]) for s in drawn) == sorted(
        zip(finite[f"{measure}_ci_low"], finite[f"{measure}_ci_high"], strict=True)
    )


def _named_board(names: list[str]) -> pl.DataFrame:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 120)
    return be.leaderboard(
        pl.concat(
            pl.DataFrame(
                {"name": n, "label": y, "prediction": np.where(rng.random(120) < 0.6 + 0.04 * i, y, 1 - y)}
            )
            for i, n in enumerate(names)
        ),
        run="name",
    )


@pytest.mark.filterwarnings("ignore")
def test_forest_with_long_run_names_keeps_wide_axes_and_every_name_on_the_figure():
    # 60-character names: tight_layout gave the axes 151 px of an 871 px figure, two x ticks
    names = [f"gradient_boosting_lr=0.0001_depth={i}_".ljust(60, "z") for i in range(8)]
    fig = be.plot(_named_board(names))
    fig.canvas.draw()
    ax = fig.axes[0]
    assert ax.get_window_extent().width >= 4.5 * fig.dpi  # inches of axes, whatever the names
    labels = ax.get_yticklabels()
    assert {t.get_text().removesuffix(" (leader)") for t in labels} == set(
        names
    )  # whole: cut, two look alike
    for artist in [*labels, ax.title, ax.yaxis.label, ax.get_legend()]:
        assert _inside(fig, artist), artist


@pytest.mark.filterwarnings("ignore")
def test_forest_cuts_names_over_60_characters_in_the_middle_when_they_stay_distinct():
    names = [f"{i}_" + "x" * 100 + f"_{i}" for i in range(4)]
    fig = be.plot(_named_board(names))
    fig.canvas.draw()
    ticks = [t.get_text().removesuffix(" (leader)") for t in fig.axes[0].get_yticklabels()]
    assert sorted(ticks) == sorted(n[:30] + "…" + n[-29:] for n in names)
    assert fig.axes[0].get_window_extent().width >= 4.5 * fig.dpi


def test_forest_of_an_empty_board_is_refused():
    board = _named_board(["a", "b"])
    with pytest.raises(
        InvalidArgumentError, match=re.escape("board= is empty: the leaderboard frame has no runs to draw")
    ):
        be.plot(board.head(0))


@pytest.mark.filterwarnings("ignore")
def test_forest_of_many_runs_has_no_blank_band_above_the_leader():
    # the default 5% margins left about 0.05 · (n − 1) empty rows above the leader and below the last run
    board = _named_board([f"r{i:02d}" for i in range(60)])
    ax = be.plot(board, top=60).axes[0]
    rows = sorted(t.get_position()[1] for t in ax.get_yticklabels())
    low, high = ax.get_ylim()
    assert high - rows[-1] == pytest.approx(0.6) and rows[0] - low == pytest.approx(0.6)


# --- the critical-difference diagram ---------------------------------------------------------------


def _rank_frame(names: list[str], seed: int = 3) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (m, f"d{d}", 0.5 + 0.02 * i + rng.normal(0, 0.05)) for d in range(12) for i, m in enumerate(names)
    ]
    return pl.DataFrame(rows, schema=["method", "dataset", "score"], orient="row")


def test_cd_diagram_returned_figure_holds_every_method_name():
    # only path= saved with bbox_inches="tight": the figure returned cut all 7 thirty-character names
    import matplotlib.pyplot as plt

    names = [f"method_{i}_".ljust(30, "q") for i in range(7)]
    res = be.rank_methods(_rank_frame(names))
    fig = be.plot(res, chart="cd")
    fig.canvas.draw()
    ax = fig.axes[0]
    expected = {f"{m} ({r:.2f})" for m, r in res.ranks.select(res.method, "mean_rank").iter_rows()}
    assert expected <= {t.get_text() for t in ax.texts}
    for artist in [*ax.texts, ax.title]:
        assert _inside(fig, artist), artist.get_text()
    # the rank axis 1..7 keeps its length beside the names
    assert np.diff(ax.transData.transform([(1, 0), (7, 0)])[:, 0])[0] >= 4.0 * fig.dpi
    # on a caller's smaller axes the names are cut in the middle, still distinct, and stay on the figure
    fig, ax = plt.subplots(figsize=(6, 4))
    be.plot(res, ax=ax)
    fig.canvas.draw()
    labels = [t for t in ax.texts if t.get_text().startswith("method_")]
    assert len({t.get_text().split(" (")[0] for t in labels}) == 7 and all(
        "…" in t.get_text() for t in labels
    )
    for artist in [*ax.texts, ax.title]:
        assert _inside(fig, artist), artist.get_text()
    axis = np.diff(ax.transData.transform([(1, 0), (7, 0)])[:, 0])[0]
    assert axis >= 0.25 * ax.get_window_extent().width


def test_cd_diagram_on_a_callers_axes_keeps_the_rank_axis_with_names_that_differ_in_the_middle():
    # a sweep's names differ only in the middle: the middle cut made them alike, so they were kept
    # whole, the x limits followed them to (-38.5, -26.5), the rank axis, bars and lines were clipped
    # away, and two names and the title ran past the figure (in a grid the axes shrank to a third)
    import matplotlib.pyplot as plt

    names = [f"logistic_regression_C={c}_penalty=l2_solver=lbfgs" for c in (0.01, 0.1, 1, 10)]
    x = np.random.default_rng(0).normal(size=(4, 6))
    res = be.rank_methods(
        pl.DataFrame({"method": np.repeat(names, 6), "dataset": list(range(6)) * 4, "score": x.ravel()})
    )
    one = plt.subplots(figsize=(6, 3))
    grid = plt.subplots(2, 1, figsize=(6, 6))
    grid[1][1].plot([1, 2])
    for fig, ax in (one, (grid[0], grid[1][0])):
        be.plot(res, chart="cd", ax=ax)
        fig.canvas.draw()
        lo, hi = ax.get_xlim()
        assert lo < 1 and hi > 4, (lo, hi)
        for artist in [*ax.texts, ax.title]:
            assert _inside(fig, artist), artist.get_text()
        shown = [t.get_text()[:-7] for t in ax.texts if re.search(r" \(\d\.\d\d\)$", t.get_text())]
        assert len(set(shown)) == 4
        for c in ("0.01", "0.1", "1", "10"):  # each shows the part in which they differ
            assert sum(f"C={c}_" in s for s in shown) == 1, (c, shown)
        axis = np.diff(ax.transData.transform([(1, 0), (4, 0)])[:, 0])[0]
        assert axis >= 0.25 * ax.get_window_extent().width
        assert ax.get_window_extent().width >= 0.75 * fig.bbox.width  # not squeezed by tight_layout


def test_names_with_dollar_signs_are_drawn_letter_for_letter_in_every_chart():
    # two '$' made matplotlib parse the text between them as mathtext: ValueError '5_to_' from the CD
    # diagram, the forest plot, the curve legend and the confusion heatmap (the CLI printed only that)
    from matplotlib import cbook

    dollar, other = "budget_$5_to_$10", "budget_$10_to_$20"
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    runs = pl.concat(
        pl.DataFrame({"$run$": name, "example": np.arange(100), "label": y,
                      "prediction": np.where(rng.random(100) < 0.7 + 0.05 * i, y, 1 - y)})
        for i, name in enumerate([dollar, other, "base"])
    )  # fmt: skip
    scores = pl.concat(
        pl.DataFrame({"run": name, "label": (t := rng.integers(0, 2, 40)), "score": t + rng.random(40)})
        for name in (dollar, other)
    )
    ranks = pl.DataFrame({
        "method": [dollar, other, "baseline"] * 4, "dataset": np.repeat(np.arange(4), 3),
        "score": [0.9, 0.8, 0.7, 0.85, 0.86, 0.6, 0.7, 0.65, 0.5, 0.92, 0.9, 0.91],
    })  # fmt: skip
    figures = {
        "cd": be.plot(be.rank_methods(ranks), chart="cd"),
        "forest": be.plot(be.leaderboard(runs, run="$run$")),
        "roc": be.plot(be.curves(scores, by="run", kind="roc")),
        "confusion": be.plot_confusion(
            pl.DataFrame({"label": [dollar, other] * 5, "prediction": [dollar, dollar] * 5}),
            "label",
            "prediction",
        ),
    }
    for chart, fig in figures.items():
        fig.canvas.draw()
        texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")) if "$" in t.get_text()]
        assert any(r"budget_\$5_to_\$10" in t for t in texts), (chart, texts)
        assert not any(cbook.is_math_text(t) for t in texts), (chart, texts)
    assert r"\$run\$" in figures["forest"].axes[0].get_ylabel()


def test_cd_diagram_of_all_tied_methods_joins_them_with_a_bar_not_a_dot():
    # every score 0.5: ranks 3.0 and one clique, drawn from 2.988 to 3.012 on a 1..5 axis
    df = pl.DataFrame(
        [(f"m{i}", f"d{d}", 0.5) for d in range(8) for i in range(5)],
        schema=["method", "dataset", "score"],
        orient="row",
    )
    res = be.rank_methods(df)
    assert res.ranks["mean_rank"].to_list() == [3.0] * 5
    ax = be.plot(res, chart="cd").axes[0]
    (bar,) = [ln for ln in ax.get_lines() if ln.get_linewidth() == 4]
    x0, x1 = sorted(bar.get_xdata())
    assert x1 - x0 >= 0.08 * 4 - 1e-9 and (x0 + x1) / 2 == pytest.approx(3.0)
    # an ordinary diagram: each bar still reaches both ends of its group (ranks within CD of each other)
    res = be.rank_methods(_rank_frame([f"m{i}" for i in range(7)]))
    ranks = res.ranks["mean_rank"].to_numpy()
    ax = be.plot(res, chart="cd").axes[0]
    for bar in (ln for ln in ax.get_lines() if ln.get_linewidth() == 4):
        x0, x1 = sorted(bar.get_xdata())
        inside = ranks[(ranks >= x0) & (ranks <= x1)]
        assert len(inside) >= 2 and inside.max() - inside.min() < res.cd


# --- the confusion heatmap -------------------------------------------------------------------------


def _no_neighbours_overlap(fig, texts_by_cell: dict) -> bool:
    r = fig.canvas.get_renderer()
    boxes = {ij: t.get_window_extent(r) for ij, t in texts_by_cell.items() if t.get_text()}
    return not any(boxes[(i, j)].overlaps(boxes[(i, j + 1)]) for (i, j) in boxes if (i, j + 1) in boxes)


def _cells(ax) -> dict:
    return {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in ax.texts}


def test_confusion_heatmap_with_long_class_names_keeps_its_cells_readable_and_its_labels_on_the_figure():
    # 33-character names: two 126-pixel heatmaps in an 1100-pixel figure, shares run together
    # ("0.680.020.09"), the second panel's title cut at the right
    from sklearn.metrics import confusion_matrix

    rng = np.random.default_rng(4)
    names = np.array([f"class_long_name_{i}_".ljust(33, "w") for i in range(6)])
    y = rng.integers(0, 6, 300)
    p = np.where(rng.random(300) < 0.7, y, rng.integers(0, 6, 300))
    fig = be.plot_confusion(y_true=names[y], y_pred=names[p])
    fig.canvas.draw()
    expected = confusion_matrix(names[y], names[p], labels=sorted(names))
    shares = expected / expected.sum(axis=1, keepdims=True)
    for ax, values, fmt in ((fig.axes[0], expected, "{:.0f}"), (fig.axes[1], shares, "{:.2f}")):
        assert ax.get_window_extent().width >= 6 * 0.45 * fig.dpi - 1  # at least 0.45 inch a class
        cells = _cells(ax)
        assert {ij: t.get_text() for ij, t in cells.items()} == {
            (i, j): fmt.format(values[i, j]) for i in range(6) for j in range(6)
        }
        assert _no_neighbours_overlap(fig, cells)
        for artist in [
            *ax.get_xticklabels(),
            *ax.get_yticklabels(),
            ax.title,
            ax.xaxis.label,
            ax.yaxis.label,
        ]:
            assert _inside(fig, artist), artist
    assert _inside(fig, fig._suptitle)
    # the names were unique only in the middle, so they are shown whole
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == sorted(names)


def test_confusion_heatmap_of_large_counts_writes_them_compactly_without_overlap():
    # 20 classes of 7-digit counts: neighbouring numbers ran together ("13224877845218653...")
    rng = np.random.default_rng(9)
    k = 20
    counts = np.where(
        np.eye(k, dtype=bool), rng.integers(100_000, 3_000_000, (k, k)), rng.integers(10_000, 900_000, (k, k))
    )
    rows = [(i, j, int(counts[i, j])) for i in range(k) for j in range(k)]
    table = be.ContingencyTable.from_long(
        pl.DataFrame(rows, schema=["real", "predicted", "count"], orient="row")
    )
    fig = be.plot_confusion(table)
    fig.canvas.draw()
    cells = _cells(fig.axes[0])
    unit = {"k": 1e3, "M": 1e6, "G": 1e9}
    for (i, j), t in cells.items():  # three significant digits of the count
        text = t.get_text()
        value = float(text[:-1]) * unit[text[-1]] if text[-1] in unit else float(text)
        assert value == pytest.approx(counts[i, j], rel=5e-3), (i, j, text)
    assert _no_neighbours_overlap(fig, cells) and _no_neighbours_overlap(fig, _cells(fig.axes[1]))
    for artist in (*fig.axes[0].get_xticklabels(), fig.axes[1].title):
        assert _inside(fig, artist)


# --- BIRD ------------------------------------------------------------------------------------------


def test_bird_marks_a_one_class_group_on_the_chance_line_as_roc_marks_it_n_a():
    df = pl.DataFrame(
        {
            "run": ["a"] * 4 + ["b"] * 4,
            "label": [1, 1, 1, 1, 0, 1, 0, 1],
            "score": [0.1, 0.2, 0.3, 0.4, 0.1, 0.6, 0.3, 0.8],
        }
    )
    roc = be.plot(be.curves(df, by="run", kind="roc")).axes[0]
    assert [ln.get_label() for ln in roc.get_lines() if ln.get_label().startswith("run=a")] == [
        "run=a (one class: no curve, AUC n/a)"
    ]
    ax = be.plot(be.curves(df, by="run", kind="bird")).axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("run=a")]
    assert line.get_label() == "run=a (one class: no information)"
    assert list(line.get_ydata()) == [0.0] * 4  # on the chance line, as evaluate's informedness 0
    assert [ln.get_label() for ln in ax.get_lines() if ln.get_label().startswith("run=b")] == ["run=b"]


@pytest.mark.parametrize("chart", sorted(be.CHARTS))
def test_a_one_class_line_says_what_is_drawn_of_it(chart):
    # a group of one class whose chart has no defined point (a ROC's fallout of positives alone, a
    # BOC's too) kept a legend entry with a line of its colour and nothing in the axes to match it
    rng = np.random.default_rng(3)
    mixed = pl.DataFrame({"run": ["mixed"] * 30, "label": rng.integers(0, 2, 30), "score": rng.random(30)})
    only = {
        c: pl.DataFrame({"run": [f"only{c}"] * 5, "label": [c] * 5, "score": rng.random(5)}) for c in (0, 1)
    }
    frame = be.curves(pl.concat([mixed, *only.values()]), by="run", kind=chart)
    ax = be.plot(frame).axes[0]
    lines = {ln.get_label().split(" ")[0]: ln for ln in ax.get_lines() if ln.get_label().startswith("run=")}
    assert lines["run=mixed"].get_label().startswith("run=mixed")
    assert "one class" not in lines["run=mixed"].get_label()
    for c in (0, 1):
        line = lines[f"run=only{c}"]
        x, y = (np.asarray(v, dtype=float) for v in (line.get_xdata(), line.get_ydata()))
        points = frame.filter(pl.col("run") == f"only{c}")
        defined = bool((points["x"].is_finite() & points["y"].is_finite()).any())
        # the label follows what the frame defines, and the axes hold exactly that
        assert bool((np.isfinite(x) & np.isfinite(y)).any()) == defined
        label = line.get_label().removeprefix(f"run=only{c}")
        if not defined:
            assert label == {
                "roc": " (one class: no curve, AUC n/a)",
                "pr": " (one class: no curve, AP n/a)",
            }.get(chart, " (one class: no curve)")
        elif chart in ("boc", "bift", "bprd"):
            assert label == " (one class: informedness 0)"
            assert np.all(y[np.isfinite(y)] == 0.0)
        elif chart == "bird":
            assert label == " (one class: no information)"
        else:
            assert label in ("", " (AP n/a)")  # lift of positives alone; pr of positives alone


def test_bird_keeps_every_point_of_a_curve_with_few_thresholds_and_colours_clipped_points_by_curve():
    # pooled 2nd-98th percentiles over five runs of 1,000 scores put two of a 4-leaf tree's four points
    # (its most informed: y = -8.81, -8.94) beyond the axes, as grey triangles among the others' tails
    from matplotlib.colors import same_color

    rng = np.random.default_rng(12)
    n = 1000
    y = rng.integers(0, 2, n)
    runs = [
        pl.DataFrame({"run": f"weak{r}", "label": y, "score": rng.random(n) + 0.15 * y}) for r in range(5)
    ]
    leaf = np.where(y == 1, rng.choice([0.9, 0.8], n, p=[0.9, 0.1]), rng.choice([0.1, 0.2], n, p=[0.9, 0.1]))
    frame = be.curves(
        pl.concat([*runs, pl.DataFrame({"run": "tree", "label": y, "score": leaf})]), by="run", kind="bird"
    )
    ax = be.plot(frame).axes[0]
    (lo_x, hi_x), (lo_y, hi_y) = ax.get_xlim(), ax.get_ylim()
    tree = frame.filter(pl.col("run") == "tree")
    assert tree.height == 4 and tree["y"].min() < -8.9
    assert ((tree["x"] >= lo_x) & (tree["x"] <= hi_x) & (tree["y"] >= lo_y) & (tree["y"] <= hi_y)).all()
    curves = {ln.get_label(): ln for ln in ax.get_lines() if ln.get_label().startswith("run=")}
    edges = [ln for ln in ax.get_lines() if ln.get_label() == "_beyond the axes"]
    total = 0
    for (run,), part in frame.partition_by("run", as_dict=True).items():
        x, yy = part["x"].to_numpy(), part["y"].to_numpy()
        beyond = int(((x < lo_x) | (x > hi_x) | (yy < lo_y) | (yy > hi_y)).sum())
        mine = [ln for ln in edges if same_color(ln.get_color(), curves[f"run={run}"].get_color())]
        assert sum(len(ln.get_xdata()) for ln in mine) == beyond, run
        total += beyond
    assert (
        total > 0 and ax.get_title().splitlines()[-1] == f"{total} extreme points drawn at the axes' edge (▲)"
    )


def test_a_callers_layout_engine_is_kept_and_lays_out_the_legend():
    # tight_layout replaced a caller's constrained layout ("The figure layout has changed to tight",
    # the engine left a placeholder), for curve charts and forest plots alike
    import warnings

    import matplotlib.pyplot as plt
    from matplotlib.layout_engine import ConstrainedLayoutEngine, TightLayoutEngine

    board = be.leaderboard(
        pl.DataFrame({"run": np.repeat([0, 1, 2], 8), "label": [0, 1] * 12,
                      "prediction": [0, 1, 1, 1, 0, 0, 1, 1] * 3}),
        run="run",
    )  # fmt: skip
    rng = np.random.default_rng(2)
    df = pl.DataFrame({"run": np.repeat(["a", "b", "c"], 40), "label": rng.integers(0, 2, 120)})
    curves = be.curves(df.with_columns(score=pl.Series(rng.random(120))), by="run", kind="roc")
    for layout, engine in (("constrained", ConstrainedLayoutEngine), ("tight", TightLayoutEngine)):
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), layout=layout)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            be.plot(curves, ax=axes[0])
            be.plot(board, ax=axes[1])
            fig.canvas.draw()
        assert type(fig.get_layout_engine()) is engine
        renderer = fig.canvas.get_renderer()
        for ax, other in ((axes[0], axes[1]), (axes[1], axes[0])):
            legend = ax.get_legend()
            assert _inside(fig, legend) and _inside(fig, ax.title)
            assert not legend.get_window_extent(renderer).overlaps(other.get_window_extent(renderer))
        plt.close(fig)
    # a figure without an engine is still laid out tightly, without a word
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.plot(curves, ax=axes[0])
    assert type(fig.get_layout_engine()).__name__ in ("NoneType", "PlaceHolderLayoutEngine")


def test_bird_shows_every_curves_most_informed_point_and_clips_only_far_outliers():
    # the 2nd-98th percentiles cut the few most selective thresholds of every curve: 14 of 900 points,
    # the best model's most informed one among them, were triangles at the axes' edge
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    frame = be.curves(
        pl.concat(
            pl.DataFrame({"model": name, "label": y, "score": rng.random(n) + shift * y})
            for name, shift in (("weak", 0.3), ("fair", 0.8), ("strong", 1.5))
        ),
        by="model",
        kind="bird",
    )
    ax = be.plot(frame).axes[0]
    (lo_x, hi_x), (lo_y, hi_y) = ax.get_xlim(), ax.get_ylim()
    for (model,), part in frame.partition_by("model", as_dict=True).items():
        x, yy = part["x"].to_numpy(), part["y"].to_numpy()
        best = int(np.argmin(yy))
        assert lo_x <= x[best] <= hi_x and lo_y <= yy[best] <= hi_y, model
        # every point inside its own curve's far fences (3 IQR past the quartiles) is in view
        inside = np.ones(len(x), dtype=bool)
        for v in (x, yy):
            q1, q3 = np.percentile(v, [25, 75])
            inside &= (v >= q1 - 3 * (q3 - q1)) & (v <= q3 + 3 * (q3 - q1))
        assert ((x[inside] >= lo_x) & (x[inside] <= hi_x) & (yy[inside] >= lo_y) & (yy[inside] <= hi_y)).all()


def test_charts_on_a_callers_subplots_keep_every_title_inside_the_figure():
    # each chart wrapped its title at its axes' width, then the next chart's tight_layout narrowed the
    # earlier axes: the ROC title began 21 px left of the figure and savefig cut it
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(9)
    frames = []
    for r in range(3):
        y = (rng.random(60) < 0.4).astype(int)
        name = f"gradient boosting, learning rate 0.{r + 1}, depth {r + 3}"  # a legend wider than the axes
        frames.append(pl.DataFrame({"run": name, "label": y, "score": rng.normal(size=60) + 0.5 * r * y}))
    df = pl.concat(frames)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    be.plot(be.curves(df, by="run", kind="roc"), ax=axes[0])
    be.plot(be.curves(df, by="run", kind="bird"), ax=axes[1])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        box = ax.title.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height, ax.get_title()
        # the legend under the x label, inside the figure: beside each chart, the legends of long run
        # names left the axes 42 px wide and their titles a word a line
        legend = ax.get_legend().get_window_extent(renderer)
        assert 0 <= legend.x0 and legend.x1 <= fig.bbox.width and legend.y0 >= 0
        assert legend.y1 <= ax.xaxis.label.get_window_extent(renderer).y0
        assert ax.get_window_extent(renderer).width > 0.3 * fig.bbox.width
    assert axes[0].get_title() == "ROC curves: true positive rate against false positive rate"
    plt.close(fig)
