"""What a chart shows, read back from its artists: missing intervals, long names, clipped points,
one-class groups, and labels that stay on the returned figure (found by looking at the PNGs)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be


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
