"""`batcheval compare` and `batcheval ranks`: the same numbers as the Python API, errors as exit code 2."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.cli.main import main
from tests.cli_run import run_cli
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


def test_a_two_sided_rope_needs_no_equals_sign(tmp_path):
    # "--rope -0.01,0.02" was refused by argparse ("argument --rope: expected one argument"): only
    # "--rope=-0.01,0.02" worked, as the help said
    df = cv_frame(seed=8)
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    argv = [str(src), "--repeat", "repeat", "--measure", "accuracy", "--reference", "0", "--test", "bayes"]
    assert main(["compare", *argv, "--rope", "-0.01,0.02", "-o", str(out)]) == 0
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
    assert "--rope low 0.1 is greater than high -0.1" in capsys.readouterr().err


def test_compare_names_a_mistyped_label_column(tmp_path, capsys):
    # "--label lbl" was answered "measure column 'informedness' not found", a column never named
    src = tmp_path / "p.csv"
    pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "repeat": [0] * 8, "fold": [0, 0, 1, 1] * 2,
                  "y": [0, 1, 0, 1] * 2, "prediction": [0, 1, 1, 1, 0, 0, 0, 1]}).write_csv(src)  # fmt: skip
    assert main(["compare", str(src), "--repeat", "repeat", "--label", "lbl"]) == 2
    err = capsys.readouterr().err
    assert "label column 'lbl' not found" in err and "informedness" not in err


def test_compare_default_rope_works_with_every_test(tmp_path):
    # --rope defaults to "0", which the tests without a ROPE must take as no rope, not refuse
    df = cv_frame(n_runs=3, n_repeats=5, n_folds=2, seed=3)
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    for test in ("corrected_t", "t", "5x2cv"):
        argv = [str(src), "--repeat", "repeat", "--measure", "accuracy", "--reference", "0", "--test", test]
        assert main(["compare", *argv, "-o", str(out)]) == 0
        expected = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test=test)
        assert pl.read_parquet(out).equals(expected)


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


def test_ranks_with_a_control_writes_its_comparisons_with_the_ranks(tmp_path):
    # with -o the Holm comparisons were neither printed nor written
    df = frame_of(scores(12, 5, 9))
    src, out = tmp_path / "s.parquet", tmp_path / "r.parquet"
    df.write_parquet(src)
    res = be.rank_methods(df, control="m001")
    assert main(["ranks", str(src), "--control", "m001", "-o", str(out)]) == 0
    got = pl.read_parquet(out)
    assert got.select(res.ranks.columns).equals(res.ranks)
    compared = got.filter(pl.col("p_holm").is_not_null())
    assert compared.select(res.control.columns).sort("method").equals(res.control.sort("method"))
    assert got.filter(pl.col("method") == "m001")["p_holm"].to_list() == [None]


def test_ranks_one_dataset_exits_2(tmp_path, capsys):
    src = tmp_path / "s.parquet"
    frame_of(scores(1, 4, 0)).write_parquet(src)
    assert main(["ranks", str(src)]) == 2
    assert "at least 2 datasets, got 1" in capsys.readouterr().err


def test_compare_drops_null_predictions_when_asked(tmp_path):
    # its null-label error said "pass drop_nulls=True", which compare did not take (stop 43)
    rng = np.random.default_rng(3)
    n = 240
    df = pl.DataFrame({"run": np.repeat([0, 1], n // 2), "fold": np.tile(np.repeat([0, 1, 2, 3], n // 8), 2),
                       "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)})  # fmt: skip
    holed = df.with_columns(prediction=pl.when(pl.int_range(n) % 20 == 0).then(None).otherwise("prediction"))
    with pytest.raises(be.NullValuesError, match="drop_nulls=True"):
        be.compare(holed, measure="accuracy")
    with pytest.warns(be.BatchevalWarning, match="dropped 12 of 240 rows"):
        got = be.compare(holed, measure="accuracy", drop_nulls=True)
    assert got.equals(be.compare(holed.drop_nulls(), measure="accuracy"))
    path, out = tmp_path / "p.parquet", tmp_path / "o.parquet"
    holed.write_parquet(path)
    proc = run_cli("compare", str(path), "--measure", "accuracy", "--drop-nulls", "-o", str(out))
    assert proc.returncode == 0 and "dropped 12 of 240 rows" in proc.stderr, proc.stderr
    assert pl.read_parquet(out).equals(got)


def test_reference_and_control_are_read_in_their_columns_dtypes(tmp_path, capsys):
    # "01" and "007" were read as the numbers 1 and 7, and a run of two columns could not be named
    df = cv_frame(seed=8).with_columns(
        run=pl.col("run").cast(pl.String).str.zfill(2), params=pl.lit("p")
    )  # fmt: skip
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    first = df["run"].min()
    argv = ["compare", str(src), "--run", "run,params", "--repeat", "repeat", "--measure", "accuracy"]
    assert main([*argv, "--reference", f"{first},p", "-o", str(out)]) == 0
    expected = be.compare(df, ["run", "params"], repeat="repeat", measure="accuracy", reference=(first, "p"))
    assert pl.read_parquet(out).equals(expected)
    assert main([*argv, "--reference", first]) == 2
    assert "names 1 value for the 2 columns ['run', 'params']" in capsys.readouterr().err
    ranks = frame_of(scores(6, 3, 2)).with_columns(method=pl.col("method").str.replace("m", "0"))
    ranks.write_parquet(src)
    assert main(["ranks", str(src), "--control", "0001", "-o", str(out)]) == 0
    control = be.rank_methods(ranks, control="0001").control
    assert pl.read_parquet(out).filter(pl.col("p_holm").is_not_null()).select(control.columns).equals(control)


def test_reference_names_a_run_whose_value_holds_commas(tmp_path, capsys):
    # the demo's params hold commas: --reference "logreg,C=1, class_weight=None" of --run model,params
    # was refused as "names 3 values for the 2 columns ['model', 'params']"
    params = ["C=1, class_weight=None", "C=1, class_weight=balanced", "max_depth=1"]
    df = cv_frame(n_runs=3, seed=8).with_columns(
        model=pl.col("run").replace_strict({0: "logreg", 1: "logreg", 2: "tree"}),
        params=pl.col("run").replace_strict(dict(enumerate(params))),
    )  # fmt: skip
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    argv = ["compare", str(src), "--run", "model,params", "--repeat", "repeat", "--measure", "accuracy"]
    assert main([*argv, "--reference", "logreg,C=1, class_weight=None", "-o", str(out)]) == 0
    expected = be.compare(df, ["model", "params"], repeat="repeat", measure="accuracy",
                          reference=("logreg", "C=1, class_weight=None"))  # fmt: skip
    got = pl.read_parquet(out)
    assert got.equals(expected)
    assert set(got.select("reference_model", "reference_params").rows()) == {("logreg", params[0])}
    mean = df.filter(pl.col("run") == 0)["accuracy"].mean()
    assert got["mean_reference"].to_list() == pytest.approx([mean, mean], rel=1e-12)
    # a run without commas in its values is named as before
    assert main([*argv, "--reference", "tree,max_depth=1", "-o", str(out)]) == 0
    assert set(pl.read_parquet(out).select("reference_model", "reference_params").rows()) == {
        ("tree", "max_depth=1")
    }
    capsys.readouterr()
    assert main([*argv, "--reference", "logreg,C=2, class_weight=None"]) == 2
    assert capsys.readouterr().err == (
        "batcheval: error: --reference 'logreg,C=2, class_weight=None' names 3 values for the 2 columns "
        "['model', 'params'], and matches no run's values joined by commas; give one per column, "
        "comma-separated\n"
    )
    # two runs whose values join to the same text: refused, not one of them picked
    tied = cv_frame(n_runs=2, seed=8).with_columns(
        a=pl.col("run").replace_strict({0: "x,y", 1: "x"}), b=pl.col("run").replace_strict({0: "z", 1: "y,z"})
    )  # fmt: skip
    tied.write_parquet(src)
    assert main([*argv[:2], "--run", "a,b", *argv[4:], "--reference", "x,y,z"]) == 2
    assert capsys.readouterr().err == (
        "batcheval: error: --reference 'x,y,z' names 2 runs of the columns ['a', 'b']: ('x,y', 'z'), "
        "('x', 'y,z'); pick one with --filter\n"
    )


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--test", "bayes", "--rope=-0.01"], "--rope half-width must be finite and >= 0, got -0.01"),
        (["--test-fraction", "2"], "--test-fraction must lie in (0, 1), got 2.0"),
        (["--rope", "0.01"], "--rope 0.01 applies to --test bayes only, not --test corrected_t"),
        # a two-sided --rope as typed, not as the tuple be.compare was given: "--rope (-0.01, 0.02)"
        (
            ["--test", "t", "--rope=-0.01,0.02"],
            "error: --rope -0.01,0.02 applies to --test bayes only, not --test t",
        ),
        (
            ["--rope=-1e-2,2e-2"],
            "error: --rope -1e-2,2e-2 applies to --test bayes only, not --test corrected_t",
        ),
        (["--test", "bayes", "--rope=nan,0.1"], "error: --rope bounds must be finite, got nan,0.1\n"),
        (
            ["--test", "bayes", "--rope=0.1,0.2,0.3"],
            "error: --rope takes a half-width such as 0.01 or low,high; got '0.1,0.2,0.3'\n",
        ),
        (["--all-pairs", "--reference", "0"], "--reference has no meaning with --all-pairs; leave it out"),
        (["--test", "5x2cv"], "(give --repeat)"),
    ],
)
def test_compare_errors_name_flags_not_keywords(tmp_path, capsys, extra, needle):
    # docs/cli.md: messages name flags, not Python keywords; these said rope=, pairs='all', repeat=, ...
    src = tmp_path / "cv.parquet"
    cv_frame().filter(pl.col("repeat") == 0).drop("repeat").write_parquet(src)
    assert main(["compare", str(src), "--measure", "accuracy", *extra]) == 2
    assert needle in capsys.readouterr().err


def test_ranks_errors_name_flags_not_keywords(tmp_path, capsys):
    src = tmp_path / "s.parquet"
    frame_of(scores(6, 3, 2)).filter(
        ~((pl.col("method") == "m002") & (pl.col("dataset") == 1))
    ).write_parquet(src)
    assert main(["ranks", str(src)]) == 2
    assert "pass --drop-incomplete to drop them" in capsys.readouterr().err
    frame_of(scores(6, 3, 2)).write_parquet(src)
    assert main(["ranks", str(src), "--alpha", "2"]) == 2
    assert "--alpha must lie in (0, 1), got 2.0" in capsys.readouterr().err


def test_reference_and_control_name_a_date_or_datetime_run(tmp_path, capsys):
    # text never equals a date: "--reference 2020-01-01" was "not in the frame" and listed that very run
    import datetime as dt

    df = cv_frame(seed=8)
    days = {r: dt.date(2020, 1, 1 + i) for i, r in enumerate(sorted(df["run"].unique()))}
    df = df.with_columns(run=pl.col("run").replace_strict(days, return_dtype=pl.Date))
    src, out = tmp_path / "cv.parquet", tmp_path / "out.parquet"
    df.write_parquet(src)
    argv = ["compare", str(src), "--repeat", "repeat", "--measure", "accuracy"]
    assert main([*argv, "--reference", "2020-01-02", "-o", str(out)]) == 0
    expected = be.compare(df, repeat="repeat", measure="accuracy", reference=dt.date(2020, 1, 2))
    assert pl.read_parquet(out).equals(expected)
    assert set(expected["reference_run"]) == {dt.date(2020, 1, 2)}
    # a zoned datetime: the text is read in the column's zone
    zoned = df.with_columns(run=pl.col("run").cast(pl.Datetime("us")).dt.replace_time_zone("Europe/Berlin"))
    zoned.write_parquet(src)
    assert main([*argv, "--reference", "2020-01-03 00:00", "-o", str(out)]) == 0
    first = zoned["run"].unique().sort()[2]
    assert pl.read_parquet(out).equals(
        be.compare(zoned, repeat="repeat", measure="accuracy", reference=first)
    )
    capsys.readouterr()
    assert main([*argv, "--reference", "2020-13-01"]) == 2
    assert capsys.readouterr().err == (
        "batcheval: error: --reference '2020-13-01' does not read as a value of 'run' "
        "(Datetime(time_unit='us', time_zone='Europe/Berlin')): give it as ISO 8601, "
        "e.g. 2020-01-31 13:45:00\n"
    )
    ranks = frame_of(scores(6, 3, 2))
    methods = sorted(ranks["method"].unique())
    ranks = ranks.with_columns(
        method=pl.col("method").replace_strict({m: dt.date(2021, 5, 1 + i) for i, m in enumerate(methods)})
    )
    ranks.write_parquet(src)
    assert main(["ranks", str(src), "--control", "2021-05-02", "-o", str(out)]) == 0
    control = be.rank_methods(ranks, control=dt.date(2021, 5, 2)).control
    assert pl.read_parquet(out).filter(pl.col("p_holm").is_not_null()).select(control.columns).equals(control)
