"""Charts render to non-trivial PNGs with their guides, labels and legends."""

from __future__ import annotations

import pytest

import batcheval as be
from tests.test_sweep import scored_frame


@pytest.mark.parametrize("chart", sorted(be.CHARTS))
def test_every_chart_renders(tmp_path, chart):
    df = scored_frame(n_runs=4, n_folds=1, rows=60, seed=31)
    frame = be.curves(df, by="run", kind=chart)
    path = tmp_path / f"{chart}.png"
    fig = be.plot(frame, path=path)
    ax = fig.axes[0]
    assert ax.get_xlabel() == be.CHARTS[chart][0] and ax.get_ylabel() == be.CHARTS[chart][1]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [f"run={r}" for r in range(4)] == [x for x in labels if x.startswith("run=")]
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
    assert be.plot(frame, chart="pr").axes[0].get_title() == "PR chart"
