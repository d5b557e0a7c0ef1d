"""The command line, run as a user would: a subprocess on small files."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import batcheval as be
from tests.helpers import sweep_frame


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "batcheval", *args], check=False, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    df = sweep_frame(n_runs=6, n_folds=3, rows_per_group=20)
    df.write_parquet(root / "preds.parquet")
    df.write_csv(root / "preds.csv")
    df.write_ipc(root / "preds.ipc")
    return root, df


@pytest.mark.parametrize("ext", ["parquet", "csv", "ipc"])
def test_evaluate_writes_the_same_frame_as_the_library(files, ext):
    root, df = files
    out = root / f"out_{ext}.parquet"
    proc = _run("evaluate", str(root / f"preds.{ext}"), "--by", "run,fold", "--pool", "fold", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(df, by=["run", "fold"], pool="fold")
    assert pl.read_parquet(out).equals(expected)


def test_evaluate_prints_a_table(files):
    root, _ = files
    proc = _run("evaluate", str(root / "preds.parquet"), "--by", "run", "--measures", "informedness,f1")
    assert proc.returncode == 0, proc.stderr
    assert "informedness" in proc.stdout and "shape: (6," in proc.stdout


def test_bad_input_exits_nonzero_with_one_line(files):
    root, _ = files
    proc = _run("evaluate", str(root / "preds.parquet"), "--by", "run,seed")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip() == "batcheval: error: key column 'seed' not found; the frame has columns "
        "['run', 'fold', 'label', 'prediction']"
    )
    missing = _run("evaluate", str(root / "nope.parquet"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert "Traceback" not in proc.stderr + missing.stderr


def test_debug_shows_the_traceback(files):
    root, _ = files
    proc = _run("--debug", "evaluate", str(root / "preds.parquet"), "--by", "seed")
    assert proc.returncode != 0 and "Traceback" in proc.stderr


def test_demo_runs():
    proc = _run("demo", "--runs", "20")
    assert proc.returncode == 0, proc.stderr
    assert "ranked" in proc.stdout and "informedness" in proc.stdout


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    from tests.test_sweep import scored_frame

    root = tmp_path_factory.mktemp("cli_scores")
    df = scored_frame(n_runs=4, n_folds=2, rows=30, seed=41)
    df.write_parquet(root / "scores.parquet")
    return root, df


def test_sweep_and_auc_subcommands(scored):
    root, df = scored
    out = root / "sweep.parquet"
    proc = _run(
        "sweep", str(root / "scores.parquet"), "--by", "run,fold", "--thresholds", "0,0.5,1", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.sweep(df, by=["run", "fold"], thresholds=[0, 0.5, 1]))
    out = root / "auc.csv"
    proc = _run("auc", str(root / "scores.parquet"), "--by", "run", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.auc(df, by="run")
    np.testing.assert_allclose(
        pl.read_csv(out)["roc_auc"].to_numpy(), expected["roc_auc"].to_numpy(), rtol=1e-12
    )
    bad = _run("sweep", str(root / "scores.parquet"), "--score", "nope")
    assert bad.returncode == 2 and "score column 'nope' not found" in bad.stderr
