"""The command line on small files: in this process (`tests.cli_run.run_cli`), and as a fresh
`python -m batcheval` where the process itself is what is tested (exit codes, tracebacks, the
entry point)."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import batcheval as be
from tests.cli_run import run_cli, run_cli_process
from tests.helpers import sweep_frame

ROOT = Path(__file__).resolve().parent.parent


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
    args = ("--by", "run,fold", "--pool", "fold", "-o", str(out))
    proc = run_cli("evaluate", str(root / f"preds.{ext}"), *args)
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(df, by=["run", "fold"], pool="fold")
    assert pl.read_parquet(out).equals(expected)


def test_evaluate_prints_a_table(files):
    root, _ = files
    proc = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run", "--measures", "informedness,f1")
    assert proc.returncode == 0, proc.stderr
    assert "informedness" in proc.stdout and "shape: (6," in proc.stdout


def test_leaderboard_prints_the_ranking_columns_and_writes_them_all(files):
    root, df = files
    proc = run_cli("leaderboard", str(root / "preds.parquet"), "--run", "run", "--pool", "fold")
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[2]
    assert [c.strip() for c in header.strip("│ ").split("┆")] == [
        "run", "rank", "informedness", "informedness_ci_low", "informedness_ci_high",
        "p_vs_leader", "could_be_best", "rank_ci_low", "rank_ci_high",
    ]  # fmt: skip
    assert "showing 9 of" in proc.stderr
    out = root / "board.parquet"
    args = ("leaderboard", str(root / "preds.parquet"), "--run", "run", "--pool", "fold")
    written = run_cli(*args, "-o", str(out))
    assert written.returncode == 0, written.stderr
    expected = be.leaderboard(df, run="run", pool="fold", seed=0)
    assert pl.read_parquet(out).equals(expected)


def test_leaderboard_top_beyond_the_largest_int64_keeps_every_row(files, tmp_path):
    # --top 99999999999999999999999 was "internal error: OverflowError" from polars' head
    root, df = files
    out, png = tmp_path / "board.parquet", tmp_path / "board.png"
    args = ("leaderboard", str(root / "preds.parquet"), "--run", "run", "--pool", "fold")
    proc = run_cli(*args, "--top", "99999999999999999999999", "-o", str(out), "--plot", str(png))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.leaderboard(df, run="run", pool="fold", seed=0))
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_an_empty_leaderboard_shows_and_writes_the_columns_of_the_measure_as_asked(files):
    # a --filter that keeps nothing gave fallout* columns for --measure fpr: the terminal table left
    # out every measure column, and the written file had another schema than a run with rows
    root, _ = files
    args = ("leaderboard", str(root / "preds.parquet"), "--run", "run", "--pool", "fold", "--measure", "fpr")
    proc = run_cli(*args, "--filter", "run > 99")
    assert proc.returncode == 0, proc.stderr
    header = [c.strip() for c in proc.stdout.splitlines()[2].strip("│ ").split("┆")]
    assert header[2:5] == ["fpr", "fpr_ci_low", "fpr_ci_high"]
    for name, extra in (("empty.csv", ("--filter", "run > 99")), ("full.csv", ())):
        assert run_cli(*args, *extra, "-o", str(root / name)).returncode == 0
    assert pl.read_csv(root / "empty.csv").columns == pl.read_csv(root / "full.csv").columns


def test_leaderboard_plot_of_no_rows_names_the_option(files, tmp_path):
    # docs/cli.md: messages name flags, not Python keywords; it said "board= is empty: the
    # leaderboard frame has no runs to draw", a keyword the user never gave
    root, _ = files
    png = tmp_path / "e.png"
    args = ("leaderboard", str(root / "preds.parquet"), "--pool", "fold", "--plot", str(png))
    for extra in (("--filter", "run > 99"), ("--filter", "run > 99", "-o", str(tmp_path / "e.csv"))):
        proc = run_cli_process(*args, *extra)
        assert proc.returncode == 2 and proc.stdout == ""
        (line,) = proc.stderr.strip().splitlines()
        assert line == f"batcheval: error: --plot {str(png)!r}: nothing to plot: no rows left"
        assert not png.exists() and not (tmp_path / "e.csv").exists()
    doc = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert "`leaderboard --plot FILE`, with `--plot 'FILE': nothing to plot: no rows left`" in doc


def test_bad_input_exits_nonzero_with_one_line(files):
    root, _ = files
    proc = run_cli_process("evaluate", str(root / "preds.parquet"), "--by", "run,seed")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("batcheval: error:") and "'seed' not found" in line
    assert "['run', 'fold', 'label', 'prediction']" in line
    missing = run_cli_process("evaluate", str(root / "nope.parquet"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert "Traceback" not in proc.stderr + missing.stderr


def test_debug_shows_the_traceback(files):
    root, _ = files
    proc = run_cli_process("--debug", "evaluate", str(root / "preds.parquet"), "--by", "seed")
    assert proc.returncode != 0 and "Traceback" in proc.stderr
    # bad input stays exit 2 (1 is a bug, docs/cli.md), as without --debug
    plain = run_cli_process("evaluate", str(root / "preds.parquet"), "--by", "seed")
    assert proc.returncode == plain.returncode == 2
    assert "ColumnNotFoundError: key column 'seed' not found" in proc.stderr.splitlines()[-1]


def test_synthetic_demo_runs():
    proc = run_cli("demo", "--synthetic", "--runs", "20")
    assert proc.returncode == 0, proc.stderr
    assert "ranked" in proc.stdout and "informedness" in proc.stdout


def test_demo_refuses_the_options_the_chosen_demo_would_ignore(tmp_path, monkeypatch):
    # --synthetic ran its sweep and exited 0 without a word on --out, --quick and --n-jobs, and the
    # scikit-learn demo ignored --runs; neither demo may start here
    import batcheval.examples.sklearn_sweep
    import batcheval.examples.synthetic

    def ran(*args, **kwargs):
        raise AssertionError("the demo ran")

    monkeypatch.setattr(batcheval.examples.sklearn_sweep, "run", ran)
    monkeypatch.setattr(batcheval.examples.synthetic, "main", ran)
    out = tmp_path / "syn_out"
    proc = run_cli("demo", "--synthetic", "--runs", "20", "--out", str(out), "--quick", "--n-jobs", "1")
    assert proc.returncode == 2
    assert proc.stderr == (
        f"batcheval: error: --out {str(out)!r}, --quick, --n-jobs 1 apply to the scikit-learn demo, not to "
        "--synthetic, which fits no model and writes no file; leave them out\n"
    )
    proc = run_cli("demo", "--synthetic", "--quick")
    assert proc.returncode == 2
    assert proc.stderr == (
        "batcheval: error: --quick applies to the scikit-learn demo, not to --synthetic, which fits no "
        "model and writes no file; leave it out\n"
    )
    proc = run_cli("demo", "--runs", "20", "--out", str(out))
    assert proc.returncode == 2
    assert proc.stderr == (
        "batcheval: error: --runs 20 applies to --synthetic only: the scikit-learn demo fits its own grid "
        "of runs; leave it out or add --synthetic\n"
    )
    assert not out.exists()


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
    proc = run_cli(
        "sweep", str(root / "scores.parquet"), "--by", "run,fold", "--thresholds", "0,0.5,1", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.sweep(df, by=["run", "fold"], thresholds=[0, 0.5, 1]))
    out = root / "auc.csv"
    proc = run_cli("auc", str(root / "scores.parquet"), "--by", "run", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.auc(df, by="run")
    np.testing.assert_allclose(
        pl.read_csv(out)["roc_auc"].to_numpy(), expected["roc_auc"].to_numpy(), rtol=1e-12
    )
    bad = run_cli("sweep", str(root / "scores.parquet"), "--score", "nope")
    assert bad.returncode == 2 and "score column 'nope' not found" in bad.stderr


# ---- every subcommand: help with examples ---------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "sweep", "auc", "plot", "leaderboard", "demo", "measures"])
def test_every_subcommand_has_help_with_examples(command):
    proc = run_cli(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert "examples:" in proc.stdout
    assert f"batcheval {command} " in proc.stdout.split("examples:")[1]


def test_top_level_help_lists_the_subcommands():
    proc = run_cli_process("--help")
    assert proc.returncode == 0
    for command in ("evaluate", "sweep", "auc", "plot", "demo"):
        assert command in proc.stdout


# ---- inputs: globs, csv and ipc; outputs: every format, or a table ---------------------------


@pytest.mark.parametrize("ext", ["parquet", "csv", "ipc"])
def test_a_glob_concatenates_the_files(files, tmp_path, ext):
    _, df = files
    parts = df.partition_by("run", maintain_order=True)
    for i, part in enumerate(parts):
        getattr(part, f"write_{ext}")(tmp_path / f"part{i}.{ext}")
    out = tmp_path / "out.parquet"
    proc = run_cli("evaluate", str(tmp_path / f"part*.{ext}"), "--by", "run,fold", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.evaluate(df, by=["run", "fold"]))


@pytest.mark.parametrize("other", ["csv", "arrow"])
def test_a_directory_of_files_of_several_types_reads_as_be_evaluate_reads_it(tmp_path, other):
    # docs/cli.md: a directory is "every parquet, ipc or csv file under it, as be.evaluate reads one";
    # a parquet file beside a csv or .arrow one was refused ("it holds files of several types")
    first = pl.DataFrame({"run": [1, 1, 1], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    second = pl.DataFrame({"run": [2, 2], "label": [0, 1], "prediction": [1, 1]})
    folder = tmp_path / "d"
    folder.mkdir()
    first.write_parquet(folder / "part-0.parquet")
    (second.write_csv if other == "csv" else second.write_ipc)(folder / f"part-1.{other}")
    out = tmp_path / "out.parquet"
    proc = run_cli("evaluate", str(folder), "--by", "run", "--measures", "accuracy", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    got = pl.read_parquet(out)
    assert got.equals(be.evaluate(str(folder), by="run", measures=["accuracy"]))
    assert got.select("run", "accuracy").rows() == [(1, 2 / 3), (2, 0.5)]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a relaxed concat made both runs one Float64 run 9007199254740992.0 (n = 10, one row)
        (pl.Series("run", [2**53, 2**53 + 1] * 5), pl.Series("run", [3.0, 3.0])),
        # and split the run 0.1 into two rows, Float32's 0.1 and Float64's
        (pl.Series("run", [0.1] * 10, dtype=pl.Float32), pl.Series("run", [0.1, 0.1])),
    ],
)
@pytest.mark.parametrize("command", [("evaluate",), ("sweep", "--thresholds", "0.5")])
def test_a_glob_whose_files_give_a_key_two_numeric_types_is_refused_as_the_api_refuses_it(
    tmp_path, first, second, command
):
    a = pl.DataFrame({"label": [0, 1] * 5, "prediction": [0, 1, 1, 1, 0] * 2, "score": [0.2, 0.7] * 5})
    a = a.with_columns(first)
    b = pl.DataFrame({"label": [1, 0], "prediction": [1, 0], "score": [0.9, 0.1]}).with_columns(second)
    a.write_parquet(tmp_path / "a.parquet")
    b.write_parquet(tmp_path / "b.parquet")
    glob = str(tmp_path / "*.parquet")
    api = be.evaluate if command[0] == "evaluate" else functools.partial(be.sweep, thresholds=[0.5])
    with pytest.raises(be.errors.SourceError, match=f"key column 'run' is {second.dtype}, not {first.dtype}"):
        api(glob, by="run")
    proc = run_cli(*command[:1], glob, *command[1:], "--by", "run")
    assert proc.returncode == 2, proc.stdout
    b_path, a_path = str(tmp_path / "b.parquet"), str(tmp_path / "a.parquet")
    assert proc.stderr == (
        f"batcheval: error: cannot read {glob!r}: key column 'run' is {second.dtype} in {b_path!r} but "
        f"{first.dtype} in {a_path!r}; a key column must have one type in every file (integers of any width "
        "combine), or its values would merge or split in a cast\n"
    )


def test_a_glob_whose_files_give_a_score_or_label_two_numeric_types_reads_as_one_frame(tmp_path):
    # only keys are held to one type: scores of Float32 and Float64, labels of Int64 and whole
    # Float64 read as the API's streamed sources read them
    a = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "score": [0.25, 0.75, 0.5, 0.5]})
    b = a.with_columns(pl.col("label").cast(pl.Float64), pl.col("score").cast(pl.Float32), run=pl.lit(2))
    a.write_parquet(tmp_path / "a.parquet")
    b.write_parquet(tmp_path / "b.parquet")
    out = tmp_path / "out.ipc"
    proc = run_cli("sweep", str(tmp_path / "*.parquet"), "--by", "run", "--thresholds", "0.5", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.sweep(pl.concat([a, b], how="vertical_relaxed"), by="run", thresholds=[0.5])
    assert pl.read_ipc(out).equals(expected)
    assert expected.equals(be.sweep(str(tmp_path / "*.parquet"), by="run", thresholds=[0.5]))


def test_a_glob_of_integer_and_float_labels_keeps_integers_float64_cannot_hold(tmp_path):
    # the relaxed concat made labels 2**53 and predictions 2**53 + 1 one Float64 class: accuracy 1.0
    from sklearn.metrics import accuracy_score

    label, prediction = [2**53, 2**53, 1], [2**53 + 1, 2**53 + 1, 1]
    pl.DataFrame({"run": [1, 1], "label": label[:2], "prediction": prediction[:2]}).write_parquet(
        tmp_path / "a.parquet"
    )
    pl.DataFrame({"run": [1], "label": [1.0], "prediction": [1.0]}).write_parquet(tmp_path / "b.parquet")
    glob, out = str(tmp_path / "*.parquet"), tmp_path / "out.csv"
    proc = run_cli("evaluate", glob, "--by", "run", "--measures", "accuracy", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = accuracy_score(label, prediction)
    assert expected == pytest.approx(1 / 3)
    assert pl.read_csv(out)["accuracy"].to_list() == [expected]
    assert be.evaluate(glob, by="run", measures=["accuracy"])["accuracy"].to_list() == [expected]
    # a float file that is no whole number leaves no type that holds every value: refused, named
    pl.DataFrame({"run": [1], "label": [1.0], "prediction": [0.5]}).write_parquet(tmp_path / "b.parquet")
    proc = run_cli("evaluate", glob, "--by", "run", "--measures", "accuracy")
    assert proc.returncode == 2, proc.stdout
    a_path, b_path = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    assert proc.stderr == (
        f"batcheval: error: cannot read {glob!r}: column 'prediction' is Int64 in {a_path!r} but Float64 in "
        f"{b_path!r}; Float64 cannot hold 9007199254740993 (in {a_path!r}) exactly, nor Int64 0.5 (in "
        f"{b_path!r}); cast the column to one type in every file\n"
    )


def test_a_glob_of_uint64_and_signed_labels_reads_as_int64_as_the_api_counts_them(tmp_path):
    # "column 'label' is Int8 in 'p1.parquet' but UInt64 in 'p0.parquet'", exit 2, where the API counts
    # the glob: UInt64 and Int8 combine only as Int128, but the API counts labels within int64
    from sklearn.metrics import accuracy_score

    label, prediction = [0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1]
    for i, dtype in enumerate([pl.UInt64, pl.Int8]):
        part = {
            "run": [1, 2, 2],
            "label": label[3 * i : 3 * i + 3],
            "prediction": prediction[3 * i : 3 * i + 3],
        }
        pl.DataFrame(part).with_columns(pl.col("label", "prediction").cast(dtype)).write_parquet(
            tmp_path / f"p{i}.parquet"
        )
    glob, out = str(tmp_path / "p*.parquet"), tmp_path / "out.csv"
    proc = run_cli("evaluate", glob, "--by", "run", "--measures", "accuracy", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    runs = np.array([1, 2, 2, 1, 2, 2])
    expected = [accuracy_score(np.array(label)[runs == r], np.array(prediction)[runs == r]) for r in (1, 2)]
    assert pl.read_csv(out)["accuracy"].to_list() == expected
    assert be.evaluate(glob, by="run", measures=["accuracy"])["accuracy"].to_list() == expected
    # a UInt64 label beyond int64 fits no type of both files: refused, named (the API refuses it too)
    pl.DataFrame({"run": [1], "label": [2**63], "prediction": [1]}).with_columns(
        pl.col("label", "prediction").cast(pl.UInt64)
    ).write_parquet(tmp_path / "p0.parquet")
    proc = run_cli("evaluate", glob, "--by", "run", "--measures", "accuracy")
    assert proc.returncode == 2, proc.stdout
    p0, p1 = str(tmp_path / "p0.parquet"), str(tmp_path / "p1.parquet")
    assert proc.stderr == (
        f"batcheval: error: cannot read {glob!r}: column 'label' is Int8 in {p1!r} but UInt64 in {p0!r}, "
        f"which combine as Int64 only where every UInt64 value fits in it, and {2**63} (in {p0!r}) does "
        "not; cast the column to one type in every file\n"
    )
    with pytest.raises(be.InvalidLabelError, match=f"holds {2**63}, which does not fit in int64"):
        be.evaluate(glob, by="run", measures=["accuracy"])


@pytest.mark.parametrize("ext", ["parquet", "csv"])
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_a_glob_with_a_file_whose_key_is_all_null_reads_its_rows_as_a_group_of_nulls(tmp_path, order, ext):
    # "column 'fold' is Null in 'p1.parquet' but Int64 in 'p0.parquet'": refused, where the API counts it;
    # a csv's column with no value reads as String, not Null, and was refused as String
    frames = [
        pl.DataFrame(
            {"run": [0, 1, 0, 1], "fold": [0, 0, 1, 1], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]}
        ),
        pl.DataFrame({"run": [0, 1], "fold": [None, None], "label": [1, 1], "prediction": [1, 0]}),
    ]
    write = {"parquet": pl.DataFrame.write_parquet, "csv": pl.DataFrame.write_csv}[ext]
    ordered = [frames[i] for i in order]
    for i, frame in enumerate(ordered):
        write(frame, tmp_path / f"p{i}.{ext}")
    out = tmp_path / "out.ipc"
    proc = run_cli("evaluate", str(tmp_path / f"p*.{ext}"), "--by", "run,fold", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(pl.concat(ordered, how="vertical_relaxed"), by=["run", "fold"])
    assert pl.read_ipc(out).equals(expected)
    assert expected.filter(pl.col("fold").is_null())["n"].to_list() == [1, 1]
    # a third file's String fold is checked against the typed file's Int64, not the all-null one's
    write(frames[0].with_columns(fold=pl.lit("x")), tmp_path / f"p2.{ext}")
    typed = tmp_path / f"p{order.index(0)}.{ext}"
    proc = run_cli("evaluate", str(tmp_path / f"p*.{ext}"), "--by", "run,fold")
    assert proc.returncode == 2
    assert (
        f"key column 'fold' is String in {str(tmp_path / f'p2.{ext}')!r} but Int64 in {str(typed)!r}"
        in proc.stderr
    )


@pytest.mark.parametrize("ext", ["csv", "json", "ipc"])
def test_every_output_format_round_trips(files, tmp_path, ext):
    root, df = files
    out = tmp_path / f"scores.{ext}"
    proc = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "wrote 6 rows" in proc.stderr
    back = {"csv": pl.read_csv, "json": pl.read_json, "ipc": pl.read_ipc}[ext](out)
    expected = be.evaluate(df, by="run")
    assert sorted(back.columns) == sorted(expected.columns)
    # the informedness of each run, from scikit-learn: 2 * balanced accuracy - 1
    from sklearn.metrics import balanced_accuracy_score

    for run, part in df.group_by("run"):
        want = 2 * balanced_accuracy_score(part["label"], part["prediction"]) - 1
        got = back.filter(pl.col("run") == run[0])["informedness"].item()
        assert got == pytest.approx(want, abs=1e-12)


def test_a_wide_result_prints_its_headline_columns(files):
    root, df = files
    proc = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run,fold", "--pool", "fold")
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(df, by=["run", "fold"], pool="fold")
    assert f"showing 14 of {expected.width} columns" in proc.stderr  # at most 14 when it fits
    header = next(line for line in proc.stdout.splitlines() if "informedness" in line)
    for column in ("run", "n_pooled", "informedness", "informedness_std", "f1", "accuracy", "p_informedness"):
        assert f" {column} " in header
    for value in expected["informedness"]:
        assert f"{value:.4f}" in proc.stdout  # printed to 4 decimals
    args = ("--by", "run,fold", "--pool", "fold")
    narrow = run_cli("evaluate", str(root / "preds.parquet"), *args, columns=80)
    assert narrow.returncode == 0
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80
    assert " informedness " in narrow.stdout and "p_informedness" not in narrow.stdout


def test_chosen_measures_print_whole(files):
    root, _ = files
    proc = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run", "--measures", "recall,precision")
    assert proc.returncode == 0 and "showing" not in proc.stderr
    assert "recall" in proc.stdout and "precision" in proc.stdout and "informedness" not in proc.stdout


def test_filter_keeps_matching_rows(files, tmp_path):
    root, df = files
    out = tmp_path / "f.parquet"
    proc = run_cli("evaluate", str(root / "preds.csv"), "--by", "run", "--filter", "fold < 2 AND run >= 3",
                "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    kept = df.filter((pl.col("fold") < 2) & (pl.col("run") >= 3))
    assert pl.read_parquet(out).equals(be.evaluate(kept, by="run"))


# ---- plot ------------------------------------------------------------------------------------


def test_plot_writes_a_png(scored, tmp_path):
    root, df = scored
    out = tmp_path / "roc.png"
    proc = run_cli(
        "plot", str(root / "scores.parquet"), "--by", "run", "--filter", "run IN (1, 2)", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "roc, 2 lines" in proc.stderr
    bird = tmp_path / "bird.png"
    proc = run_cli("plot", str(root / "scores.parquet"), "--by", "run,fold", "--pool", "fold",
                   "--chart", "bird", "--thresholds", "21", "-o", str(bird))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert bird.stat().st_size > 1000 and f"bird, {df['run'].n_unique()} lines" in proc.stderr


# ---- bad input: exit 2, one line, no traceback -------------------------------------------------


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    (root / "corrupt.parquet").write_text("not a parquet file")
    (root / "notes.txt").write_text("x")
    many = pl.DataFrame(
        {"run": np.arange(100).repeat(4), "label": [0, 1] * 200, "score": np.linspace(0, 1, 400)}
    )
    many.write_parquet(root / "many.parquet")
    (root / "empty_dir").mkdir()
    (root / "dir.csv").mkdir()  # a directory named like an output file
    (root / "dir.png").mkdir()
    return root


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["evaluate", "{root}/absent.parquet"], "no such file"),
        (["evaluate", "{root}/absent*.parquet"], "no file matches"),
        (["evaluate", "{root}/notes.txt"], "unknown file type '.txt'"),
        (["evaluate", "{root}/corrupt.parquet"], "cannot read"),
        (["evaluate", "{root}/empty_dir"], "holds no parquet, ipc or csv files"),
        (["evaluate", "{preds}", "--measures", "informedness,nonsense"], "unknown measure 'nonsense'"),
        (["evaluate", "{preds}", "--label", "nope"], "'nope' not found"),
        (["evaluate", "{preds}", "--filter", "fold <"], "cannot parse --filter"),
        (["evaluate", "{preds}", "--filter", "foo = 1"], "--filter 'foo = 1': unable to find column"),
        (["evaluate", "{preds}", "-o", "{root}/out.xlsx"], "unknown file type '.xlsx'"),
        (["evaluate", "{preds}", "-o", "{root}/no/such/dir/out.csv"], "no directory"),
        (["sweep", "{root}/many.parquet", "--thresholds", "lots"], "--thresholds must be"),
        (["auc", "{preds}"], "score column 'score' not found"),
        (["plot", "{root}/many.parquet", "--by", "run"], "too many for one chart"),
        (["plot", "{root}/many.parquet", "-o", "{root}/chart.pdf"], "written as a .png"),
        # the output is checked before the input is read, let alone swept
        (["plot", "{root}/absent.parquet", "-o", "{root}/no/such/dir/roc.png"], "no directory"),
        (["plot", "{preds}", "--by", "run", "-o", "{root}/no/such/dir/roc.png"], "no directory"),
        (["leaderboard", "{root}/absent.parquet", "--plot", "{root}/no/such/dir/board.png"], "no directory"),
        (["leaderboard", "{preds}", "--plot", "{root}/board.pdf"], "written as a .png"),
        (["ranks", "{root}/absent.parquet", "--plot", "{root}/no/such/dir/cd.png"], "no directory"),
        (["evaluate", "{preds}", "-o", "{root}/empty_dir"], "unknown file type"),
        (["evaluate", "{preds}", "-o", "{root}/dir.csv"], "'{root}/dir.csv': it is a directory"),
        # a chart's -o or --plot naming a directory: "[Errno 21] Is a directory" after the work
        (["plot", "{root}/absent.parquet", "-o", "{root}/dir.png"], "'{root}/dir.png': it is a directory"),
        (["leaderboard", "{root}/absent.parquet", "--plot", "{root}/dir.png"], "dir.png': it is a directory"),
        (["ranks", "{root}/absent.parquet", "--plot", "{root}/dir.png"], "dir.png': it is a directory"),
    ],
)
def test_bad_input(files, bad_files, args, needle):
    root, _ = files
    argv = [a.format(root=bad_files, preds=root / "preds.parquet") for a in args]
    proc = run_cli(*argv)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("batcheval: error:"), proc.stderr
    assert needle.format(root=bad_files) in lines[0]
    assert proc.stdout == ""


def test_debug_after_the_subcommand_shows_the_traceback(bad_files):
    proc = run_cli_process("evaluate", str(bad_files / "corrupt.parquet"), "--debug")
    assert proc.returncode != 0 and "Traceback" in proc.stderr


def test_usage_errors_exit_2(files):
    root, _ = files
    proc = run_cli("plot", str(root / "preds.parquet"), "--chart", "pie")
    assert proc.returncode == 2 and "invalid choice: 'pie'" in proc.stderr
    for runs in ("0", "-5"):  # a raw "index 0 is out of bounds" / "negative dimensions" before
        proc = run_cli("demo", "--synthetic", "--runs", runs)
        assert proc.returncode == 2 and "--runs: must be a whole number of at least 1" in proc.stderr


@pytest.mark.parametrize(
    ("command", "args", "option", "values"),
    [
        ("evaluate", ["--by", "run", "--by", "fold"], "--by", "('run', then 'fold')"),
        ("evaluate", ["--by", "run", "--pool", "fold", "--pool", "seed"], "--pool", "('fold', then 'seed')"),
        ("leaderboard", ["--measure", "informedness", "--measure", "kappa"], "--measure",
         "('informedness', then 'kappa')"),
        ("evaluate", ["-o", "a.csv", "--output", "b.csv"], "-o/--output", "('a.csv', then 'b.csv')"),
    ],
)  # fmt: skip
def test_a_one_value_option_given_twice_is_refused(files, command, args, option, values):
    # argparse kept the last: --by run --by fold grouped by fold alone and printed a table of it
    root, _ = files
    proc = run_cli(command, str(root / "preds.parquet"), *args)
    assert proc.returncode == 2 and proc.stdout == ""
    last = proc.stderr.strip().splitlines()[-1]
    assert last == (f"batcheval {command}: error: argument {option}: given twice {values}; give it once, "
                    "as one comma-separated list where it takes several")  # fmt: skip


def test_an_option_repeated_with_its_own_value_is_taken_once(files):
    root, _ = files
    once = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run", "--measures", "informedness")
    twice = run_cli("evaluate", str(root / "preds.parquet"), "--by", "run", "--by", "run", "--measures",
                    "informedness")  # fmt: skip
    assert once.returncode == twice.returncode == 0, twice.stderr
    assert twice.stdout == once.stdout and "informedness" in once.stdout


def test_a_decimal_class_column_is_read_as_the_integers_it_holds(tmp_path):
    # a parquet file written by duckdb or Spark with DECIMAL class codes was refused with a polars
    # cast, which no option of the command line makes
    from decimal import Decimal

    ints = tmp_path / "ints.parquet"
    path = tmp_path / "decimal.parquet"
    codes = pl.DataFrame({"run": [1, 1, 1, 2], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 1]})
    codes.write_parquet(ints)
    cents = pl.Series("label", [Decimal(v) for v in ("0.00", "1.00", "1.00", "0.00")], pl.Decimal(10, 2))
    codes.with_columns(cents).write_parquet(path)
    want = run_cli("evaluate", str(ints), "--by", "run", "--measures", "informedness,recall")
    got = run_cli("evaluate", str(path), "--by", "run", "--measures", "informedness,recall")
    assert want.returncode == got.returncode == 0, got.stderr
    assert got.stdout == want.stdout and "informedness" in got.stdout
    # a fraction is refused naming the value, not truncated to a class
    halves = [Decimal(v) for v in ("0.00", "1.50", "1.00", "0.00")]
    halves = pl.Series("my label", halves, dtype=pl.Decimal(10, 2))
    codes.with_columns(halves).write_parquet(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "--label", "my label")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (
        "batcheval: error: label column 'my label' (Decimal(precision=10, scale=2)) holds 1 value with a "
        "fraction (first: 1.50); class labels must be whole numbers, booleans or strings"
    )


def test_a_run_list_naming_a_column_twice_is_named_as_the_flag(files):
    root, _ = files
    proc = run_cli("leaderboard", str(root / "preds.parquet"), "--run", "run,run")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "batcheval: error: column 'run' is named twice in --run run,run"


@pytest.mark.parametrize(
    ("command", "args", "tail"),
    [
        ("leaderboard", ["--measures", "kappa"], "--measures kappa; did you mean --measure?"),
        ("evaluate", ["--by", "run", "--mesures", "kappa"], "--mesures kappa; did you mean --measures?"),
        ("evaluate", ["--by", "run", "--mesures=kappa"], "--mesures=kappa; did you mean --measures?"),
        ("evaluate", ["--by", "run", "--zzz", "3"], "--zzz 3; see batcheval evaluate --help"),
    ],
)
def test_an_unknown_option_is_named_by_its_command_with_the_one_meant(files, command, args, tail):
    # argparse printed the top-level usage and "batcheval: error: unrecognized arguments: --measures
    # kappa", which says neither which command refused it nor that leaderboard takes one --measure
    root, _ = files
    proc = run_cli(command, str(root / "preds.parquet"), *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"usage: batcheval {command} ")
    assert (
        proc.stderr.strip().splitlines()[-1] == f"batcheval {command}: error: unrecognized arguments: {tail}"
    )


# ---- demo ------------------------------------------------------------------------------------


def test_demo_runs_the_sklearn_sweep(tmp_path):
    # the full sweep's cache (minutes of fitting) and its results outlive a smoke test in the same
    # folder: --quick wrote its scores, sweep, auc, leaderboard and charts over the full demo's, so
    # that docs/comparing.md's ranks found no data set and `batcheval ranks` printed other ranks
    full = pl.DataFrame({"dataset": ["stand-in"], "run": [0]})
    full.write_parquet(tmp_path / "predictions.parquet")
    kept = ("scores.parquet", "sweep.parquet", "auc.parquet", "leaderboard.parquet", "cd.png",
            "f1_vs_informedness.png", "breast_cancer_rare_roc.png")  # fmt: skip
    for i, name in enumerate(kept):
        (tmp_path / name).write_bytes(b"full demo %d" % i)
    proc = run_cli("demo", "--quick", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "top 5 by informedness" in proc.stdout and "Spearman" in proc.stdout
    assert "× 1 seed × 5 folds" in proc.stdout + proc.stderr  # the quick sweep's one seed, not "1 seeds"
    # the board shows the selection-valid columns, and no p-value as 0.000
    assert (
        "could_be_best | rank_ci_low | rank_ci_high" in proc.stdout and "tied_with_leader" not in proc.stdout
    )
    assert "| 0.000 " not in proc.stdout.split("leaderboard by informedness")[1].split("could be the best")[0]
    quick = tmp_path / "quick"
    assert f"to {quick}/" in proc.stdout  # it says where its files went
    for name in ("predictions_quick.parquet", *kept):
        assert (quick / name).exists(), name
    runs = pl.read_parquet(quick / "predictions_quick.parquet").select("dataset", "run").n_unique()
    assert pl.read_parquet(quick / "scores.parquet").height == runs == 40
    assert pl.read_parquet(tmp_path / "predictions.parquet").equals(full)
    for i, name in enumerate(kept):
        assert (tmp_path / name).read_bytes() == b"full demo %d" % i, name
    assert not (tmp_path / "predictions_quick.parquet").exists()


def test_the_package_and_the_cli_work_without_sklearn(files, tmp_path):
    root, df = files
    out = tmp_path / "s.parquet"
    preds = str(root / "preds.parquet")
    code = (
        "import sys; sys.modules['sklearn'] = None  # any import of sklearn now fails\n"
        "import batcheval.cli\n"
        f"assert batcheval.cli.main(['evaluate', {preds!r}, '--by', 'run', '-o', {str(out)!r}]) == 0\n"
        f"sys.exit(batcheval.cli.main(['demo', '--quick', '--out', {str(tmp_path)!r}]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert pl.read_parquet(out).equals(be.evaluate(df, by="run"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == (
        "batcheval: error: the demo needs scikit-learn and matplotlib: pip install 'batcheval[demo]'"
    )


def test_a_csv_whose_column_changes_type_after_a_hundred_rows_is_read(tmp_path):
    # polars infers a csv's types from 100 rows: "baseline" at row 200 failed a column read as integers
    rows = [(str(i % 3) if i < 200 else "baseline", i % 2, (i // 2) % 2) for i in range(300)]
    df = pl.DataFrame(rows, schema=["run", "label", "prediction"], orient="row")
    path, out = tmp_path / "late.csv", tmp_path / "out.parquet"
    df.write_csv(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).sort("run").equals(be.evaluate(df, by="run").sort("run"))
    assert be.evaluate(str(path), by="run").sort("run").equals(be.evaluate(df, by="run").sort("run"))
    late = pl.DataFrame([(str(i % 3) if i < 10_200 else "x", 0, 1) for i in range(10_300)],
                        schema=["run", "label", "prediction"], orient="row")  # fmt: skip
    late.write_csv(path)
    with pytest.raises(
        be.SourceError, match=r"could not parse `x`.*first 10,000 rows: convert it to parquet"
    ):
        be.evaluate(str(path), by="run")


@pytest.mark.parametrize(
    "args",
    [
        ("sweep",),
        ("auc",),
        ("evaluate",),
        ("sweep", "--thresholds", "exact"),
        ("sweep", "--positive", "1"),
        ("auc", "--positive", "yes", "--classes", "no,yes"),
        ("evaluate", "--positive", "1"),
        ("evaluate", "--classes", "a,b", "--per-class"),
    ],
)
def test_a_header_only_csv_gives_an_empty_table_in_every_command(tmp_path, args):
    # docs/cli.md: an empty input prints an empty table and says 0 rows. A header-only csv reads
    # every column as text: sweep (default thresholds) refused the default positive ("--positive 1 is
    # not one of the classes: label column 'label' holds String values", a flag never given), and
    # evaluate --positive 1 said "--positive '1' is not one of the classes []"
    path = tmp_path / "hdr.csv"
    path.write_text("run,label,prediction,score\n")
    proc = run_cli(args[0], str(path), "--by", "run", *args[1:])
    assert proc.returncode == 0, proc.stderr
    assert "0 rows: the input has no rows" in proc.stderr and "positive" not in proc.stderr
    assert proc.stdout.startswith("shape: (0, ")
    # as a --filter that keeps nothing of a file with rows does
    no, yes = ("no", "yes") if "yes" in args else ("a", "b") if "a,b" in args else (0, 1)
    (tmp_path / "rows.csv").write_text(f"run,label,prediction,score\na,{no},{no},0.2\na,{yes},{yes},0.7\n")
    proc = run_cli(args[0], str(tmp_path / "rows.csv"), "--by", "run", *args[1:], "--filter", "run = 'z'")
    assert proc.returncode == 0, proc.stderr
    assert "0 rows: the input has no rows" in proc.stderr and proc.stdout.startswith("shape: (0, ")


@pytest.mark.parametrize(
    "args",
    [
        ("sweep", "--thresholds", "3"),
        ("sweep", "--thresholds", "0.2,0.5"),
        ("sweep", "--thresholds", "exact"),
        ("sweep", "--thresholds", "3", "--pool", "fold"),
        ("auc",),
    ],
)
def test_no_rows_without_keys_print_an_empty_table_in_sweep_and_auc(tmp_path, args):
    # docs/cli.md: a result with no rows prints its empty table and says 0 rows (evaluate, sweep, auc).
    # Without --by, sweep printed a row of n = 0 at each of 3 made-up thresholds (0, 0.5, 1) and auc
    # one row of n = 0; the empty result has the columns and dtypes of one with rows
    rows = tmp_path / "rows.csv"
    rows.write_text("fold,label,score\n0,0,0.1\n0,1,0.9\n1,0,0.2\n1,1,0.8\n")
    header = tmp_path / "hdr.csv"
    header.write_text("fold,label,score\n")
    proc = run_cli(args[0], str(rows), *args[1:], "-o", str(tmp_path / "full.parquet"))
    assert proc.returncode == 0, proc.stderr
    full = pl.read_parquet(tmp_path / "full.parquet")
    assert full.height >= 1
    for source, extra in ((rows, ("--filter", "fold = 9")), (header, ())):
        proc = run_cli(args[0], str(source), *args[1:], *extra)
        assert proc.returncode == 0, proc.stderr
        assert "0 rows: the input has no rows" in proc.stderr
        assert proc.stdout.startswith("shape: (0, ")
    proc = run_cli(
        args[0], str(rows), *args[1:], "--filter", "fold = 9", "-o", str(tmp_path / "none.parquet")
    )
    assert proc.returncode == 0, proc.stderr
    empty = pl.read_parquet(tmp_path / "none.parquet")
    assert empty.height == 0 and empty.schema == full.schema
    assert pl.concat([full, empty]).height == full.height


def test_a_header_only_csv_has_nothing_to_plot(tmp_path):
    # it said "score column 'score' has dtype String; scores must be numeric"
    path = tmp_path / "hdr.csv"
    path.write_text("run,label,prediction,score\n")
    for extra in ((), ("--positive", "1"), ("--thresholds", "11")):
        proc = run_cli("plot", str(path), "--by", "run", "-o", str(tmp_path / "h.png"), *extra)
        assert proc.returncode == 2
        assert proc.stderr.strip().splitlines()[-1] == "batcheval: error: nothing to plot: no rows left"
        assert not (tmp_path / "h.png").exists()


@pytest.mark.parametrize(
    ("args", "header", "message"),
    [
        (("compare", "--run", "run", "--fold", "fold", "--measure", "accuracy"), "run,fold,accuracy",
         "the frame has no rows to compare"),
        (("compare", "--run", "run", "--fold", "fold", "--measure", "accuracy"), "run,fold,label,prediction",
         "the frame has no rows to compare"),
        (("ranks", "--method", "model", "--dataset", "dataset", "--measure", "informedness"),
         "model,dataset,informedness", "ranking methods needs at least 2 datasets, got 0"),
    ],
)  # fmt: skip
def test_compare_and_ranks_of_no_rows_exit_2_as_docs_cli_says(tmp_path, args, header, message):
    # docs/cli.md said a result with no rows prints its empty table; it names these two, as plot, with
    # the messages they give
    path = tmp_path / "hdr.csv"
    path.write_text(header + "\n")
    proc = run_cli(args[0], str(path), *args[1:])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines()[-1] == f"batcheval: error: {message}"
    doc = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert f"`{args[0]}` says `{message}`" in doc


def test_no_command_prints_the_commands():
    # it printed only "error: the following arguments are required: COMMAND"
    proc = run_cli()
    assert proc.returncode == 2
    assert "evaluate" in proc.stderr and "leaderboard" in proc.stderr and "usage: batcheval" in proc.stderr


def test_read_errors_name_the_file_not_a_lazy_frame(tmp_path):
    # "batcheval: error: lazy frame: ComputeError: ..." once, and a glob's raw polars error
    rows = ["run,label,prediction", *(f"{i % 3},{i % 2},{i // 2 % 2}" for i in range(15_000)), "x,1,0"]
    (tmp_path / "badrow.csv").write_text("\n".join(rows) + "\n")
    done = run_cli("evaluate", str(tmp_path / "badrow.csv"), "--by", "run")
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"batcheval: error: cannot read {str(tmp_path / 'badrow.csv')!r}: ComputeError"
    )
    assert "lazy frame" not in done.stderr
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "a.csv").write_text("run,label,prediction\n1,0,1\n")
    (tmp_path / "g" / "b.csv").write_text("run,label,prediction\n1,0,1,5,6\n")
    done = run_cli("evaluate", str(tmp_path / "g" / "*.csv"), "--by", "run")
    assert done.returncode == 2
    assert done.stderr.startswith(f"batcheval: error: cannot read {str(tmp_path / 'g' / 'b.csv')!r}: ")
    # a --filter that fails in the scan is named with the file: the file itself reads well
    (tmp_path / "f.csv").write_text("run,label,prediction\na,0,1\nb,1,1\n")
    done = run_cli("evaluate", str(tmp_path / "f.csv"), "--by", "run", "--filter", "CAST(run AS INT) > 0")
    assert done.returncode == 2
    what = f"cannot read {str(tmp_path / 'f.csv')!r} or apply --filter 'CAST(run AS INT) > 0' to it: "
    assert done.stderr.startswith(f"batcheval: error: {what}")


def test_messages_name_flags_of_test_and_pool(tmp_path):
    # docs/cli.md: "Messages name flags, not Python keywords"; test= was rewritten only at the start
    # of a message, a list of pooled columns showed as a Python list, and a pooled column that is
    # not in the file was a "key column"
    cv = pl.DataFrame(
        [
            (r, s, f, 0.5 + 0.01 * ((r * 7 + s * 3 + f) % 5))
            for r in range(3)
            for s in range(4)
            for f in range(2)
        ],
        schema=["run", "seed", "fold", "accuracy"],
        orient="row",
    )
    cv.write_csv(tmp_path / "cv.csv")
    proc = run_cli("compare", str(tmp_path / "cv.csv"), "--run", "run", "--repeat", "seed", "--fold", "fold",
                   "--measure", "accuracy", "--test", "t", "--test-fraction", "0.2")  # fmt: skip
    assert proc.returncode != 0
    assert proc.stderr.strip() == (
        "batcheval: error: --test-fraction applies to --test corrected_t and --test bayes only, not --test t"
    )
    preds = sweep_frame(n_runs=2, n_folds=2, rows_per_group=20).with_columns(seed=pl.col("fold"))
    preds.write_parquet(tmp_path / "preds.parquet")
    path = str(tmp_path / "preds.parquet")
    proc = run_cli("evaluate", path, "--by", "run,seed", "--pool", "seed", "--measures", "informedness",
                   "--ci", "0.95")  # fmt: skip
    assert proc.returncode == 0
    assert "batcheval: warning: --pool seed pools groups that may repeat the same examples" in proc.stderr
    # without --ci too: p_informedness counts every row as well (it did not warn)
    proc = run_cli("evaluate", path, "--by", "run,seed", "--pool", "seed", "--measures",
                   "informedness,p_informedness")  # fmt: skip
    assert proc.returncode == 0
    assert "batcheval: warning: --pool seed pools groups that may repeat the same examples" in proc.stderr
    proc = run_cli("evaluate", path, "--by", "run,seed", "--pool", "seed", "--measures", "informedness")
    assert proc.returncode == 0 and "warning" not in proc.stderr
    proc = run_cli("evaluate", path, "--by", "run", "--pool", "folds")
    assert proc.returncode != 0
    assert proc.stderr.strip().startswith("batcheval: error: pool column 'folds' not found;")


@pytest.mark.parametrize("call", ["evaluate", "sweep", "auc"])
def test_a_misspelt_pool_column_is_a_pool_column(call):
    # evaluate, sweep and auc said "key column 'folds' not found" (the leaderboard "pool column")
    df = pl.DataFrame(
        {"run": [1, 1, 2, 2], "fold": [0, 1, 0, 1], "label": [0, 1, 0, 1], "prediction": [0, 1, 1, 1],
         "score": [0.1, 0.9, 0.6, 0.8]}
    )  # fmt: skip
    with pytest.raises(be.ColumnNotFoundError) as err:
        getattr(be, call)(df, by="run", pool="folds")
    assert str(err.value) == (
        "pool column 'folds' not found; the frame has columns ['run', 'fold', 'label', 'prediction', 'score']"
    )
    with pytest.raises(be.ColumnNotFoundError) as err:
        getattr(be, call)(df.lazy(), by="run", pool="folds")
    assert str(err.value).startswith("pool column 'folds' not found")


def test_an_output_that_is_an_input_is_refused_before_any_work(tmp_path):
    # -o naming the predictions replaced them with the results ("wrote 3 rows"), and the next run
    # failed with "label column 'label' not found"; one inside the input directory or glob was read
    # as predictions by the next run
    folder = tmp_path / "runs"
    folder.mkdir()
    frame = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})
    preds = folder / "preds.parquet"
    frame.write_parquet(preds)
    before = preds.read_bytes()
    glob = f"{folder}/*.parquet"
    cases = [
        (str(preds), str(preds), "it is the input file"),
        (str(preds), f"{folder}/../runs/preds.parquet", "it is the input file"),
        (str(folder), str(folder / "scores.csv"), f"the input {str(folder)!r} would read it as predictions"),
        (glob, str(folder / "scores.parquet"), f"the input {glob!r} would read it as predictions"),
    ]
    for source, output, why in cases:
        for command in (["evaluate", source, "--by", "run"], ["leaderboard", source]):
            proc = run_cli(*command, "-o", output)
            assert proc.returncode == 2 and proc.stdout == "", proc.stderr
            assert proc.stderr.strip() == (
                f"batcheval: error: cannot write {output!r}: {why}; write the result to another file"
            )
    # review: "**" also matches no directory (d/**/*.parquet reads d/out.parquet), and "*" never
    # crosses a "/" (d/*.parquet does not read d/sub/out.parquet, which was refused)
    deep = f"{folder}/**/*.parquet"
    proc = run_cli("evaluate", deep, "--by", "run", "-o", str(folder / "out.parquet"))
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"batcheval: error: cannot write {str(folder / 'out.parquet')!r}: the input {deep!r} would read it "
        "as predictions; write the result to another file"
    )
    assert preds.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["preds.parquet"]
    (folder / "sub").mkdir()
    beside = folder / "sub" / "out.parquet"
    proc = run_cli("evaluate", glob, "--by", "run", "-o", str(beside))
    assert proc.returncode == 0 and pl.read_parquet(beside)["n"].to_list() == [2, 2]
    beside.unlink()
    (folder / "sub").rmdir()
    # beside the input, outside the glob, is fine, and holds evaluate's result
    out = folder / "scores.csv"
    proc = run_cli("evaluate", glob, "--by", "run", "--measures", "informedness", "-o", str(out))
    assert proc.returncode == 0 and proc.stderr.strip() == f"wrote 2 rows × 7 columns to {out}"
    assert (
        pl.read_csv(out)["informedness"].to_list() == be.evaluate(frame, by="run")["informedness"].to_list()
    )


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [("evaluate", "--by", ""), ("evaluate", "--by", ","), ("evaluate", "--by", "run,"),
     ("evaluate", "--measures", ""), ("evaluate", "--measures", "informedness,,f1"),
     ("evaluate", "--pool", ""), ("leaderboard", "--run", ""), ("leaderboard", "--example", ",")],
)  # fmt: skip
def test_an_empty_name_in_a_list_option_is_refused(files, command, option, value):
    # dropped: --by "" pooled every row into one group and --measures "" gave every measure, where
    # --measures "," gave none and by="" in Python is a missing column
    root, _ = files
    proc = run_cli(command, str(root / "preds.parquet"), f"{option}={value}")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().endswith(
        f"error: argument {option}: {value!r} holds an empty name; give names separated by commas, "
        f"such as {option} a,b, or leave {option} out"
    )
    # without the option: the default, as before
    assert run_cli(command, str(root / "preds.parquet")).returncode == 0


def test_a_key_column_named_as_an_option_keeps_its_value_in_messages(tmp_path):
    # "run=1 lacks seed=3" (a fold column named seed) read "run=1 lacks --seed 3", an option compare
    # does not have: only the option names of a message are rewritten, not a key column's values
    rows = [(run, seed, 0.7 + 0.01 * seed) for run in (0, 1) for seed in range(4) if (run, seed) != (1, 3)]
    path = tmp_path / "p.parquet"
    pl.DataFrame(rows, schema=["run", "seed", "accuracy"], orient="row").write_parquet(path)
    try:
        be.compare(pl.read_parquet(path), run="run", fold="seed", measure="accuracy")
    except be.BatchevalError as exc:
        expected = str(exc)
    assert "lacks seed=3" in expected
    proc = run_cli("compare", str(path), "--run", "run", "--fold", "seed", "--measure", "accuracy")
    assert proc.returncode == 2
    assert proc.stderr == f"batcheval: error: {expected}\n"


def test_an_option_named_like_a_key_column_is_still_named_as_the_option(tmp_path):
    # --by seed beside --seed 3: the warning is about the option, "--seed 3 sets how intervals are
    # made", not "seed=3"; and the key columns of one main() call do not stay for the next
    from batcheval.cli.main import cli_message, main

    path = tmp_path / "s.csv"
    pl.DataFrame({"seed": [1, 2], "label": [0, 1], "prediction": [1, 1]}).write_csv(path)
    proc = run_cli("evaluate", str(path), "--by", "seed", "--seed", "3", "--measures", "accuracy")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("batcheval: warning: --seed 3 sets how intervals are made")
    text = "ci_method='bootstrap', seed=3 set how intervals are made"
    before = cli_message(text)
    assert before == "--ci-method 'bootstrap', --seed 3 set how intervals are made"
    assert main(["compare", str(path), "--run", "seed", "--fold", "label", "--measure", "accuracy"]) == 2
    assert cli_message(text) == before
