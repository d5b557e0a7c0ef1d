"""`batcheval compare` and `batcheval ranks`: the same numbers as the Python API, errors as exit code 2."""

from __future__ import annotations

import polars as pl

import batcheval as be
from batcheval.cli.main import main
from tests.test_compare import cv_frame
from tests.test_ranks import frame_of, scores


def test_compare_writes_what_be_compare_returns(tmp_path):
    df = cv_frame(seed=8)
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    argv = [str(src), "--repeat", "repeat", "--measure", "accuracy", "--reference", "0"]
    assert main(["compare", *argv, "--test", "bayes", "--rope=-0.01,0.02", "-o", str(out)]) == 0
    expected = be.compare(
        df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=(-0.01, 0.02)
    )
    assert pl.read_parquet(out).equals(expected)


def test_compare_bad_rope_exits_2(tmp_path, capsys):
    src = tmp_path / "cv.parquet"
    cv_frame().write_parquet(src)
    code = main(["compare", str(src), "--measure", "accuracy", "--repeat", "repeat", "--test", "bayes",
                 "--rope", "0.1,-0.1"])  # fmt: skip
    assert code == 2
    assert "rope= low 0.1 is greater than high -0.1" in capsys.readouterr().err


def test_ranks_writes_ranks_pairs_and_diagram(tmp_path, capsys):
    df = frame_of(scores(12, 5, 9))
    src = tmp_path / "s.csv"
    df.write_csv(src)
    out, pairs, png = tmp_path / "r.csv", tmp_path / "p.parquet", tmp_path / "cd.png"
    argv = ["ranks", str(src), "--pairwise", str(pairs), "--plot", str(png), "-o", str(out)]
    assert main(argv) == 0
    res = be.rank_methods(df)
    assert pl.read_csv(out).equals(res.ranks)
    assert pl.read_parquet(pairs).equals(res.pairwise)
    assert png.stat().st_size > 0
    assert f"Friedman chi2 = {res.friedman_chi2:.4g}" in capsys.readouterr().err


def test_ranks_one_dataset_exits_2(tmp_path, capsys):
    src = tmp_path / "s.parquet"
    frame_of(scores(1, 4, 0)).write_parquet(src)
    assert main(["ranks", str(src)]) == 2
    assert "at least 2 datasets, got 1" in capsys.readouterr().err
