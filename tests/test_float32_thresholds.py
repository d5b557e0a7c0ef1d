"""Float32 scores against the thresholds a user names: compared as polars compares them.

Widened to float64, the Float32 score 0.7 is 0.699999988 and counted below the threshold 0.7,
where ``pl.col("score") >= 0.7`` counts it at or above. The counts here come from polars'
own filter on the Float32 column."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be


def polars_counts(df: pl.DataFrame, thresholds: list[float]) -> list[tuple]:
    rows = []
    for (g,), sub in sorted(df.group_by(["g"]), key=lambda x: x[0]):
        for t in sorted(set(thresholds)):
            above = sub.filter(pl.col("score") >= t)
            tp = above.filter(pl.col("label") == 1).height
            rows.append((g, t, tp, above.height - tp))
    return rows


@pytest.mark.parametrize(("n_rows", "n_groups"), [(3_000, 5), (400_000, 20_000)])
def test_named_thresholds_count_as_polars_filters(n_rows, n_groups):
    rng = np.random.default_rng(n_groups)
    df = pl.DataFrame({
        "g": rng.integers(0, n_groups, n_rows), "label": rng.integers(0, 2, n_rows),
        "score": pl.Series(rng.integers(0, 20, n_rows) / 20, dtype=pl.Float32),
    })  # fmt: skip
    # 0.3 and 0.30000001 round to one float32; ±1e39 lie beyond float32's range
    thresholds = [0.05, 0.3, 0.30000001, 0.7, 0.95, 1e39, -1e39]
    out = be.sweep(df, by="g", thresholds=thresholds).sort("g", "threshold")
    if n_groups > 100:  # the radix path: check a sample of groups against the filter
        keep = rng.choice(n_groups, 40, replace=False)
        out, df = out.filter(pl.col("g").is_in(keep)), df.filter(pl.col("g").is_in(keep))
    assert out.select("g", "threshold", "tp", "fp").rows() == polars_counts(df, thresholds)


def test_score_range_ends_count_as_polars_filters():
    score = pl.Series([0.7, 0.7, 0.2], dtype=pl.Float32)
    df = pl.DataFrame({"g": [0, 0, 0], "label": [1, 1, 0], "score": score})
    out = be.sweep(df, by="g", thresholds=2, score_range=(0.7, 1.0))
    assert out.select("g", "threshold", "tp", "fp").rows() == polars_counts(df, [0.7, 1.0])
    # the float64 column of the same numbers was right before, and stays so
    wide = df.with_columns(pl.col("score").cast(pl.Float64).round(6))
    assert be.sweep(wide, by="g", thresholds=[0.7])["tp"].to_list() == [2]


def test_a_streamed_count_of_thresholds_is_the_frame_in_memory(tmp_path):
    """A streamed source passes the scan's score range on, which read as a grid the user named:
    its Float32 scores were compared with the grid rounded to float32, the frame in memory's with
    the grid itself, and the two counted differently."""
    rng = np.random.default_rng(5)
    df = pl.DataFrame({
        "g": rng.integers(0, 3, 4_000), "label": rng.integers(0, 2, 4_000),
        "score": pl.Series(rng.integers(0, 1000, 4_000) / 999, dtype=pl.Float32),
    })  # fmt: skip
    df.write_parquet(tmp_path / "scores.parquet")
    expected = be.sweep(df, by="g", thresholds=1000).sort("g", "threshold")
    got = be.sweep(str(tmp_path / "scores.parquet"), by="g", thresholds=1000).sort("g", "threshold")
    assert got.select("g", "threshold", "tp", "fp").equals(expected.select("g", "threshold", "tp", "fp"))


def test_one_vs_rest_float32_scores_count_as_polars_filters():
    """The classes' Float32 score columns were widened to Float64 before the sweep, so the score
    0.7 of class 1 counted below the threshold 0.7."""
    rng = np.random.default_rng(2)
    label = rng.integers(0, 3, 600)
    cols = {f"s{c}": pl.Series(rng.integers(0, 11, 600) / 10, dtype=pl.Float32) for c in range(3)}
    df = pl.DataFrame({"label": label, **cols})
    thresholds = [0.3, 0.7, 0.9]
    out = be.sweep(df, label="label", score=list(cols), thresholds=thresholds).sort("class", "threshold")
    expected = []
    for c in range(3):
        for t in thresholds:
            above = df.filter(pl.col(f"s{c}") >= t)
            tp = above.filter(pl.col("label") == c).height
            expected.append((c, t, tp, above.height - tp))
    assert out.select("class", "threshold", "tp", "fp").rows() == expected
