"""The command line can do what Python can (issue 23 §2): options, commands, inputs and messages."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import batcheval as be
from batcheval.inference.intervals import JACCARD_MEASURES, interval_measures
from tests.cli_run import run_cli


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("parity")
    rng = np.random.default_rng(5)
    n = 600
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    score = rng.random(n) + 0.6 * y
    df = pl.DataFrame({"run": np.repeat([1, 2, 3], n // 3), "label": y, "prediction": pred, "score": score})
    (root / "dir").mkdir()
    df.head(300).write_parquet(root / "dir" / "a.parquet")
    df.tail(300).write_parquet(root / "dir" / "b.parquet")
    df.write_parquet(root / "all.parquet")
    nulls = df.with_columns(
        pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("score")).alias("score"),
        pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("label")).alias("label"),
    )
    nulls.write_parquet(root / "nulls.parquet")
    df.head(0).write_csv(root / "empty.csv")
    return root, df, nulls


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"batcheval {be.__version__}"


def test_measures_lists_every_measure_with_its_interval():
    proc = run_cli("measures")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines()[1:]}
    assert set(rows) == set(be.BINARY_MEASURES) | set(be.MULTICLASS_MEASURES)
    for name, line in rows.items():
        k = 3 if name in be.MULTICLASS_MEASURES else 2
        expected = (
            "closed form" if name in interval_measures(k) or (k == 2 and name in JACCARD_MEASURES)
            or name == "weighted_recall"  # accuracy, at any K
            else "bootstrap" if name in interval_measures(k, "bootstrap") else "none"
        )  # fmt: skip
        assert expected in line, line
    assert "specificity" in rows["inverse_recall"]
    # binary mcc is correlation and takes its closed form (it was listed as "bootstrap" only)
    assert "closed form (2), bootstrap (K)" in rows["mcc"]
    # so are binary macro_informedness and macro_markedness informedness and markedness
    assert "closed form (2), bootstrap (K)" in rows["macro_informedness"]
    assert "closed form (2), bootstrap (K)" in rows["macro_markedness"]
    # a "2" must not read as "unavailable with K classes": the help says how to get it
    assert "evaluate --per-class gives it" in run_cli("measures", "--help").stdout
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    binary = be.evaluate(
        y_true=y, y_pred=np.where(rng.random(80) < 0.8, y, 1 - y), measures=["mcc", "phi"], ci=0.9
    )
    assert (
        binary.select("mcc_ci_low", "mcc_ci_high").rows() == binary.select("phi_ci_low", "phi_ci_high").rows()
    )


def test_directory_ci_and_classes_match_the_library(data, tmp_path):
    root, df, _ = data
    out = tmp_path / "o.parquet"
    proc = run_cli("evaluate", str(root / "dir"), "--by", "run", "--measures", "informedness,f1,specificity",
                "--ci", "0.9", "--seed", "3", "--n-boot", "200", "--classes", "0,1",
                "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(df, by="run", measures=["informedness", "f1", "specificity"], ci=0.9, seed=3,
                           n_boot=200, classes=[0, 1])  # fmt: skip
    assert pl.read_parquet(out).equals(expected)
    sub = df.filter(pl.col("run") == 1)
    assert expected["specificity"][0] == pytest.approx(
        skm.recall_score(sub["label"], sub["prediction"], pos_label=0), abs=1e-12
    )


def test_sweep_beta_and_auc_drop_nulls(data, tmp_path):
    root, _, nulls = data
    out = tmp_path / "s.parquet"
    proc = run_cli("sweep", str(root / "nulls.parquet"), "--by", "run", "--thresholds", "0.5,0.9",
                "--measures", "f_beta", "--beta", "2", "--drop-nulls", "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "dropped 4 of 600 rows" in proc.stderr
    kept = nulls.drop_nulls()
    sub = kept.filter(pl.col("run") == 1)
    got = pl.read_parquet(out).filter(pl.col("run") == 1, pl.col("threshold") == 0.5)["f_beta"][0]
    assert got == pytest.approx(skm.fbeta_score(sub["label"], sub["score"] >= 0.5, beta=2), abs=1e-12)
    proc = run_cli("auc", str(root / "nulls.parquet"), "--drop-nulls", "-o", str(tmp_path / "a.parquet"))
    assert proc.returncode == 0, proc.stderr
    auc = pl.read_parquet(tmp_path / "a.parquet")["roc_auc"][0]
    assert auc == pytest.approx(skm.roc_auc_score(kept["label"], kept["score"]), abs=1e-12)
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "batcheval: warning: dropped 4 of 600 rows with a null 'score' or 'label'"
    assert not any(".py" in line for line in lines)  # no library source line


def test_sweep_measures_all_and_the_default_its_help_names(data, tmp_path):
    # the help said "default: all binary" while the command gave SWEEP_MEASURES' eight, and
    # --measures all was refused ("unknown measure 'all'"): be.sweep(measures="all") had no flag
    from batcheval.scores.sweep import SWEEP_MEASURES

    root, df, _ = data
    shown = " ".join(run_cli("sweep", "--help", columns=80).stdout.split())
    assert f"(default: {', '.join(SWEEP_MEASURES)})" in shown
    assert "all binary" not in shown
    docs = " ".join((Path(__file__).parents[1] / "docs" / "cli.md").read_text().split())
    assert f"({', '.join(SWEEP_MEASURES)})" in docs and "`--measures all`" in docs
    out = tmp_path / "default.parquet"
    proc = run_cli("sweep", str(root / "all.parquet"), "--by", "run", "--thresholds", "0.5", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).columns == ["run", "threshold", "n", "tp", "fp", "fn", "tn", *SWEEP_MEASURES]
    out = tmp_path / "all.parquet"
    proc = run_cli("sweep", str(root / "all.parquet"), "--by", "run", "--thresholds", "0.5",
                   "--measures", "all", "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = pl.read_parquet(out)
    assert got.equals(be.sweep(df, by="run", thresholds=[0.5], measures="all"))
    assert set(be.BINARY_MEASURES) - set(got.columns) == {"f_beta"}  # f_beta only with --beta
    sub = df.filter(pl.col("run") == 1)
    row = got.filter(pl.col("run") == 1)
    predicted = sub["score"] >= 0.5
    assert row["correlation"][0] == pytest.approx(skm.matthews_corrcoef(sub["label"], predicted), abs=1e-12)
    assert row["kappa_cohen"][0] == pytest.approx(skm.cohen_kappa_score(sub["label"], predicted), abs=1e-12)
    assert row["jaccard"][0] == pytest.approx(skm.jaccard_score(sub["label"], predicted), abs=1e-12)
    # "all" is a name of its own: beside other names it is still an unknown measure
    bad = run_cli("sweep", str(root / "all.parquet"), "--thresholds", "0.5", "--measures", "all,f1")
    assert bad.returncode == 2 and "unknown measure 'all'" in bad.stderr


def test_thresholds_of_a_signed_integer_is_one_threshold(tmp_path):
    # "-1" was read as a count ("--thresholds as a count must be at least 1, got -1") and "+3" as
    # three thresholds, although a count is unsigned and margins often have negative thresholds
    rng = np.random.default_rng(11)
    label = rng.integers(0, 2, 200)
    df = pl.DataFrame({"run": np.repeat([1, 2], 100), "label": label, "score": rng.normal(size=200) + label})
    df.write_parquet(tmp_path / "margins.parquet")
    for text, threshold in (("-1", -1.0), ("+3", 3.0), ("-2", -2.0), ("-0", 0.0)):
        out = tmp_path / "one.parquet"
        proc = run_cli("sweep", str(tmp_path / "margins.parquet"), "--by", "run", "--thresholds", text,
                       "--measures", "recall", "-o", str(out))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        got = pl.read_parquet(out)
        assert got["threshold"].to_list() == [threshold, threshold]
        for run, row in zip((1, 2), got.iter_rows(named=True), strict=True):
            sub = df.filter(pl.col("run") == run)
            y, predicted = sub["label"].to_numpy() == 1, sub["score"].to_numpy() >= threshold
            assert (row["tp"], row["fp"], row["fn"]) == (
                np.sum(y & predicted),
                np.sum(~y & predicted),
                np.sum(y & ~predicted),
            )
    # an unsigned integer is still a count: linspace(min, max, T) over the scores, in every group
    out = tmp_path / "count.parquet"
    proc = run_cli("sweep", str(tmp_path / "margins.parquet"), "--by", "run", "--thresholds", "3",
                   "--measures", "recall", "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    grid = np.linspace(df["score"].min(), df["score"].max(), 3).tolist()
    assert pl.read_parquet(out)["threshold"].to_list() == grid + grid
    proc = run_cli("sweep", str(tmp_path / "margins.parquet"), "--thresholds", "0")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "batcheval: error: --thresholds as a count must be at least 1, got 0"


def test_a_list_that_starts_with_a_negative_number_is_a_value(tmp_path):
    # "--thresholds -1,0,1" and "--classes -1,1" were refused by argparse ("argument --thresholds:
    # expected one argument"): it reads only -1 and -0.5 as values, and -1,0,1 as an unknown option
    rng = np.random.default_rng(12)
    label = np.where(rng.integers(0, 2, 200) == 1, 1, -1)
    df = pl.DataFrame({
        "run": np.repeat([1, 2], 100), "label": label,
        "prediction": np.where(rng.random(200) < 0.8, label, -label), "score": rng.normal(size=200) + label,
    })  # fmt: skip
    path, out = tmp_path / "margins.parquet", tmp_path / "o.parquet"
    df.write_parquet(path)
    proc = run_cli("sweep", str(path), "--by", "run", "--thresholds", "-1,0,1", "--measures", "recall",
                   "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = pl.read_parquet(out)
    assert got["threshold"].to_list() == [-1.0, 0.0, 1.0] * 2
    for row in got.iter_rows(named=True):
        sub = df.filter(pl.col("run") == row["run"])
        y, predicted = sub["label"].to_numpy() == 1, sub["score"].to_numpy() >= row["threshold"]
        assert (row["tp"], row["fp"], row["fn"]) == (
            np.sum(y & predicted), np.sum(~y & predicted), np.sum(y & ~predicted)
        )  # fmt: skip
    proc = run_cli("evaluate", str(path), "--by", "run", "--classes", "-1,0,1", "--measures", "accuracy",
                   "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = pl.read_parquet(out)
    assert got.equals(be.evaluate(df, by="run", classes=[-1, 0, 1], measures=["accuracy"]))
    for run, accuracy in got.select("run", "accuracy").iter_rows():
        sub = df.filter(pl.col("run") == run)
        assert accuracy == np.mean(sub["label"].to_numpy() == sub["prediction"].to_numpy())
    proc = run_cli("leaderboard", str(path), "--classes", "-1,1", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.leaderboard(df, classes=[-1, 1], seed=0))
    png = tmp_path / "roc.png"
    proc = run_cli("plot", str(path), "--by", "run", "--thresholds", "-1,0,1", "-o", str(png))
    assert proc.returncode == 0, proc.stderr
    assert png.stat().st_size > 0 and f"wrote {png} (roc, 2 lines)" in proc.stderr
    # an option is still an option: a misspelt one is refused as before
    assert run_cli("sweep", str(path), "--thresholds", "-x").returncode == 2


def test_drop_nonfinite_reports_its_rows(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("label,score\n0,0.1\n1,NaN\n1,0.8\n0,0.3\n1,inf\n")
    proc = run_cli("auc", str(path), "--drop-nonfinite")
    assert proc.returncode == 0, proc.stderr
    assert "batcheval: warning: dropped 2 rows with a NaN or infinite score in column 'score'" in proc.stderr


def _three_class_scores(path: Path, seed: int) -> pl.DataFrame:
    """Two runs of 150 rows: a label of 3 classes and their probabilities p0, p1, p2, written to ``path``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 300)
    p = rng.dirichlet(np.ones(3), 300) + 0.5 * np.eye(3)[y]
    p = p / p.sum(axis=1, keepdims=True)  # probabilities, as scikit-learn's multiclass AUC wants
    df = pl.DataFrame({"run": np.repeat([1, 2], 150), "label": y, **{f"p{k}": p[:, k] for k in range(3)}})
    df.write_parquet(path)
    return df


def test_auc_averages_by_name_and_old_name(tmp_path):
    df = _three_class_scores(tmp_path / "mc.parquet", seed=8)
    out = tmp_path / "a.parquet"
    proc = run_cli("auc", str(tmp_path / "mc.parquet"), "--by", "run", "--score", "p0,p1,p2",
                "--averages", "macro_roc_auc,pr_auc_prevalence_weighted", "-o", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    got = pl.read_parquet(out).sort("run")
    assert got.columns == ["run", "n", "macro_roc_auc", "pr_auc_prevalence_weighted"]
    for run in (1, 2):
        part = df.filter(pl.col("run") == run)
        yy, pp = part["label"].to_numpy(), part.select("p0", "p1", "p2").to_numpy()
        row = got.filter(pl.col("run") == run).row(0, named=True)
        assert row["macro_roc_auc"] == pytest.approx(skm.roc_auc_score(yy, pp, multi_class="ovr"), abs=1e-12)
        assert row["pr_auc_prevalence_weighted"] == pytest.approx(
            skm.average_precision_score(np.eye(3)[yy], pp, average="weighted"), abs=1e-12
        )
    proc = run_cli("auc", str(tmp_path / "mc.parquet"), "--score", "p0,p1,p2", "--averages", "macro_auc")
    assert proc.returncode == 2 and "unknown average 'macro_auc' (did you mean" in proc.stderr


def _printed_table(text: str) -> dict[str, list[str]]:
    """The columns of a table as the CLI prints it (polars' box drawing), by header."""
    rows = [[cell.strip() for cell in line.strip("│").split("┆")] for line in text.splitlines()
            if line.startswith("│")]  # fmt: skip
    return {name: [row[i] for row in rows[1:]] for i, name in enumerate(rows[0])}


def test_auc_of_multiclass_scores_prints_its_areas_in_a_narrow_terminal(tmp_path, monkeypatch, capsys):
    # at 80 (or 150) columns the six averages were trimmed away: the table held run and n, and the note
    # said to pick columns with --measures, which auc does not have
    from batcheval.cli.main import main

    df = _three_class_scores(tmp_path / "mc.parquet", seed=11)
    monkeypatch.setenv("COLUMNS", "80")
    args = ["auc", str(tmp_path / "mc.parquet"), "--by", "run", "--score", "p0,p1,p2"]

    def sklearn_auc(run: int, **kwargs) -> str:
        part = df.filter(pl.col("run") == run)
        yy, pp = part["label"].to_numpy(), part.select("p0", "p1", "p2").to_numpy()
        return f"{skm.roc_auc_score(yy, pp, **kwargs):.4f}"

    assert main(args) == 0
    out, err = capsys.readouterr()
    table = _printed_table(out)
    assert table["run"] == ["1", "2"]
    assert table["macro_roc_auc"] == [sklearn_auc(r, multi_class="ovr", average="macro") for r in (1, 2)]
    assert "macro_pr_auc" in table and max(len(line) for line in out.splitlines()) <= 80
    assert "pick them with --averages, or write them all with -o FILE" in err and "--measures" not in err

    # --averages picks the columns, as --measures does elsewhere: they print whole, however wide
    chosen = "macro_roc_auc,prevalence_weighted_roc_auc,bias_weighted_roc_auc,macro_pr_auc"
    assert main([*args, "--averages", chosen]) == 0
    out, err = capsys.readouterr()
    table = _printed_table(out)
    assert list(table) == ["run", "n", *chosen.split(",")] and "showing" not in err
    assert table["prevalence_weighted_roc_auc"] == [
        sklearn_auc(r, multi_class="ovr", average="weighted") for r in (1, 2)
    ]

    # binary and per-class areas have no flag that picks columns: the note offers -o alone
    monkeypatch.setenv("COLUMNS", "60")
    assert main([*args, "--per-class"]) == 0
    out, err = capsys.readouterr()
    assert "showing" in err and "pick them" not in err and "write them all with -o FILE" in err
    binary = df.with_columns(label=(pl.col("label") == 2).cast(pl.Int8), score=pl.col("p2"))
    binary.write_parquet(tmp_path / "binary.parquet")
    assert main(["auc", str(tmp_path / "binary.parquet"), "--by", "run"]) == 0
    out, err = capsys.readouterr()
    assert "showing" in err and "pick them" not in err
    part = binary.filter(pl.col("run") == 1)
    assert _printed_table(out)["roc_auc"][0] == f"{skm.roc_auc_score(part['label'], part['score']):.4f}"


def test_auc_per_class_writes_what_be_auc_returns(tmp_path):
    # be.auc(per_class=True) had no flag: the CLI gave only the averages of multiclass scores
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 300)
    p = rng.dirichlet(np.ones(3), 300) + 0.5 * np.eye(3)[y]
    df = pl.DataFrame({"run": np.repeat([1, 2], 150), "label": y, **{f"p{k}": p[:, k] for k in range(3)}})
    df.write_parquet(tmp_path / "mc.parquet")
    out = tmp_path / "a.parquet"
    args = ["auc", str(tmp_path / "mc.parquet"), "--by", "run", "--score", "p0,p1,p2", "--per-class"]
    proc = run_cli(*args, "--measure", "f_beta", "--beta", "2", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    expected = be.auc(df, "run", score=["p0", "p1", "p2"], per_class=True, measure="f_beta", beta=2.0)
    got = pl.read_parquet(out)
    assert got.equals(expected)
    assert got.columns[:2] == ["run", "class"] and got.height == 6
    for run, k in ((1, 0), (2, 2)):
        part = df.filter(pl.col("run") == run)
        row = got.filter(pl.col("run") == run, pl.col("class") == k).row(0, named=True)
        yy, pk = part["label"].to_numpy() == k, part[f"p{k}"].to_numpy()
        assert row["roc_auc"] == pytest.approx(skm.roc_auc_score(yy, pk), abs=1e-12)
        assert row["best_f_beta"] == pytest.approx(
            skm.fbeta_score(yy, pk >= row["best_threshold"], beta=2), abs=1e-12
        )
    assert run_cli(*args, "-o", str(out)).returncode == 0
    assert pl.read_parquet(out).equals(be.auc(df, "run", score=["p0", "p1", "p2"], per_class=True))
    refused = run_cli("auc", str(tmp_path / "mc.parquet"), "--score", "p0", "--per-class")
    message = "--per-class returns one row per class of multiclass scores (a list of score columns); "
    assert refused.returncode == 2 and message + "--score 'p0' is one binary score" in refused.stderr
    refused = run_cli("auc", str(tmp_path / "mc.parquet"), "--score", "p0,p1,p2", "--measure", "f1")
    assert refused.returncode == 2
    assert "have no best threshold (--per-class gives one for each class)" in refused.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["evaluate", "{root}/all.parquet", "--positive", "7"],
            "--positive 7 is not one of the classes [0, 1]",
        ),
        (["auc", "{root}/nulls.parquet"], "pass --drop-nulls to skip those rows"),
        (["evaluate", "{root}/nulls.parquet"], "pass --drop-nulls"),
        (["evaluate", "{root}/all.parquet", "--measures", "specifity"], "did you mean 'specificity'"),
        (["evaluate", "{root}/all.parquet", "--ci", "1.5"], "--ci must be a confidence level"),
        (["evaluate", "{root}/all.parquet", "--ci", "0.9", "--ci-method", "x"], "unknown --ci-method 'x'"),
    ],
)
def test_errors_speak_in_flags(data, args, needle):
    root, _, _ = data
    proc = run_cli(*[a.format(root=root) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("batcheval: error:"), proc.stderr
    assert needle in lines[0]
    assert "lazy frame" not in lines[0] and "=True" not in lines[0]


def test_printed_output_p_values_width_and_empty_input(data):
    root, df, _ = data
    proc = run_cli("evaluate", str(root / "all.parquet"), "--by", "run", "--measures",
                "informedness,markedness,correlation,kappa_cohen,accuracy,p_chi2_kb,p_fisher,alpha_sbb",
                columns=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = be.evaluate(df, by="run", measures=["p_chi2_kb"])["p_chi2_kb"][0]
    mantissa, exponent = re.search(r"(\d\.\d)e-(\d+)", proc.stdout).groups()
    assert float(f"{mantissa}e-{exponent}") == pytest.approx(expected, rel=0.06)
    assert "0.0000" not in proc.stdout
    # captured (piped) output: no column cut or squeezed to the 60-column terminal
    header = next(line for line in proc.stdout.splitlines() if "informedness" in line)
    assert "kappa_cohen" in header and "alpha_sbb" in header and "…" not in proc.stdout
    proc = run_cli("evaluate", str(root / "empty.csv"), "--measures", "informedness")
    assert proc.returncode == 0, proc.stderr
    assert "0 rows" in proc.stderr


def test_example_and_cluster_flags(tmp_path):
    """evaluate had no --example although its pooling warning said to pass one; neither command had
    --cluster. Each example scored under 3 seeds with the same prediction and counted once is the
    data without the repeats (the identity of batcheval.inference.clustered)."""
    rng = np.random.default_rng(11)
    n = 90
    one = pl.DataFrame(
        {"example": np.arange(n), "passage": np.arange(n) // 3, "label": rng.integers(0, 2, n)}
    )
    one = one.with_columns(
        prediction=pl.when(pl.lit(rng.random(n) < 0.75)).then("label").otherwise(1 - pl.col("label"))
    )
    tripled = pl.concat([one.with_columns(seed=pl.lit(s), run=pl.lit(1)) for s in range(3)])
    tripled.write_parquet(tmp_path / "t.parquet")
    names = ["informedness", "recall", "p_informedness"]
    out = tmp_path / "o.parquet"
    proc = run_cli("evaluate", str(tmp_path / "t.parquet"), "--by", "run,seed", "--pool", "seed",
                   "--ci", "0.95", "--measures", ",".join(names), "--example", "example",
                   "-o", str(out))  # fmt: skip
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    alone = be.evaluate(one, measures=names, ci=0.95, example="example")
    got = pl.read_parquet(out)
    for col in ("informedness_ci_low", "informedness_ci_high", "recall_ci_low", "p_informedness"):
        assert got[col][0] == pytest.approx(alone[col][0], rel=1e-12), col
    # without --example the warning names the flag that exists
    proc = run_cli("evaluate", str(tmp_path / "t.parquet"), "--by", "run,seed", "--pool", "seed",
                   "--ci", "0.95", "--measures", "informedness")  # fmt: skip
    assert "Pass --example (the column that identifies an example)" in proc.stderr
    for command in (["evaluate", "--by", "run", "--ci", "0.95"], ["leaderboard"]):
        flags = ["--pool", "seed", "--example", "example", "--cluster", "passage", "-o", str(out)]
        proc = run_cli(command[0], str(tmp_path / "t.parquet"), *command[1:], *flags)
        assert proc.returncode == 0, proc.stderr
        api = be.evaluate if command[0] == "evaluate" else be.leaderboard
        kwargs = {"by": "run", "ci": 0.95} if command[0] == "evaluate" else {"run": "run"}
        expected = api(tripled, pool="seed", example="example", cluster="passage", **kwargs)
        assert pl.read_parquet(out).equals(expected)
    bad = tripled.with_columns(
        passage=pl.when(pl.col("seed") == 2).then(pl.col("passage") + 1).otherwise("passage")
    )
    bad.write_parquet(tmp_path / "bad.parquet")
    flags = ["--by", "run", "--ci", "0.95", "--example", "example", "--cluster", "passage"]
    proc = run_cli("evaluate", str(tmp_path / "bad.parquet"), *flags)
    assert proc.returncode == 2
    assert proc.stderr.startswith("batcheval: error: --cluster passage varies within example {'example': ")


def test_classes_options_and_counts_as_the_api_takes_them(tmp_path):
    # stop 43: --positive 1 of string labels "1"/"2" became the integer 1 ("not one of the
    # classes"), "007" became 7; leaderboard had no --drop-nulls though its null error named it;
    # --top 0 or -2 was taken; sweep --thresholds 0.5 was refused (only "0.5," worked)
    rng = np.random.default_rng(2)
    n = 120
    y = rng.integers(0, 2, n)
    df = pl.DataFrame({
        "run": np.repeat([1, 2, 3], n // 3),
        "label": np.where(y == 1, "007", "1"),
        "prediction": np.where((rng.random(n) < 0.8) == (y == 1), "007", "1"),
        "score": rng.random(n) + 0.5 * y,
    })  # fmt: skip
    path, out = tmp_path / "s.parquet", tmp_path / "o.parquet"
    df.write_parquet(path)
    for positive in ("1", "007"):
        proc = run_cli("evaluate", str(path), "--by", "run", "--positive", positive, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        assert pl.read_parquet(out).equals(be.evaluate(df, by="run", positive=positive))
    proc = run_cli(
        "sweep", str(path), "--by", "run", "--thresholds", "0.5", "--positive", "007", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.sweep(df, by="run", thresholds=[0.5], positive="007"))
    nulls = df.with_columns(prediction=pl.when(pl.int_range(n) % 10 == 0).then(None).otherwise("prediction"))
    nulls.write_parquet(path)
    proc = run_cli("leaderboard", str(path), "--drop-nulls", "-o", str(out))
    assert proc.returncode == 0 and "dropped 12 of 120 rows" in proc.stderr, proc.stderr
    with pytest.warns(be.BatchevalWarning, match="dropped 12 of 120 rows"):
        expected = be.leaderboard(nulls, drop_nulls=True)
    assert pl.read_parquet(out).equals(expected)
    for top in ("0", "-2"):
        proc = run_cli("leaderboard", str(path), "--drop-nulls", "--top", top)
        assert proc.returncode == 2 and "must be a whole number of at least 1" in proc.stderr


def test_positive_of_float_labels_takes_its_float_spelling(tmp_path):
    # labels written as 0.0/1.0 (pandas writes them so after a NaN): --positive 1.0 was "not a class"
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60).astype(float)
    df = pl.DataFrame(
        {"run": np.repeat([1, 2], 30), "label": y, "prediction": np.where(rng.random(60) < 0.7, y, 1 - y)}
    )
    path, out = tmp_path / "f.csv", tmp_path / "o.parquet"
    df.write_csv(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "--positive", "1.0", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_parquet(out).equals(be.evaluate(df, by="run", positive=1))


def test_measures_says_which_p_value_alpha_sbb_calibrates():
    # the list said p_chi2_kb, which differs a hundredfold here; alpha_sbb is computed from p_informedness
    y = [1] * 30 + [0] * 70
    pred = [1] * 20 + [0] * 10 + [1] * 15 + [0] * 55
    row = be.evaluate(y_true=y, y_pred=pred, measures=["p_informedness", "p_chi2_kb", "alpha_sbb"]).row(
        0, named=True
    )
    p = row["p_informedness"]
    bound = -np.e * p * np.log(p) if p < 1 / np.e else 0.5  # Sellke, Bayarri and Berger (2001)
    assert row["alpha_sbb"] == pytest.approx(1 / (1 + 1 / bound))
    rows = {line.split()[0]: line for line in run_cli("measures").stdout.splitlines()[1:]}
    assert "P(null | p_informedness)" in rows["alpha_sbb"]
    assert "not a calibrated test" in rows["p_chi2_kb"]


def test_help_names_the_inputs_and_directions_each_command_takes(tmp_path):
    # leaderboard, compare and ranks --help left out the directory each reads, and leaderboard's
    # --lower-is-better named the p-values and alpha_sbb, by which it cannot rank
    def help_text(command: str) -> str:
        proc = run_cli(command, "--help")
        assert proc.returncode == 0, proc.stderr
        return " ".join(proc.stdout.split())

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 400)
    preds = pl.DataFrame({"run": np.repeat([1, 2], 200), "fold": np.tile(np.repeat([0, 1, 2, 3], 50), 2),
                          "label": y, "prediction": np.where(rng.random(400) < 0.8, y, 1 - y)})  # fmt: skip
    correct = (pl.col("label") == pl.col("prediction")).mean()
    folds = preds.group_by("run", "fold").agg(accuracy=correct).sort("run", "fold")
    p_values = np.tile([0.1, 0.4, 0.7], 4) + rng.random(12) * 0.2  # method a lowest on every dataset
    scores = pl.DataFrame({"method": ["a", "b", "c"] * 4, "dataset": np.repeat([1, 2, 3, 4], 3),
                           "p_informedness": p_values})  # fmt: skip
    for name, frame in (("preds", preds), ("folds", folds), ("scores", scores)):
        (tmp_path / name).mkdir()
        frame.head(frame.height // 2).write_parquet(tmp_path / name / "a.parquet")
        frame.tail(frame.height - frame.height // 2).write_parquet(tmp_path / name / "b.parquet")
    runs = [
        ("leaderboard", "preds", ["--run", "run"], be.leaderboard(preds, run="run", seed=0)),
        ("compare", "folds", ["--measure", "accuracy"], be.compare(folds, measure="accuracy")),
        ("ranks", "scores", ["--measure", "p_informedness"],
         be.rank_methods(scores, measure="p_informedness").ranks),
    ]  # fmt: skip
    for command, name, args, expected in runs:
        assert "a parquet, csv or ipc file, a directory of them, or a quoted glob" in help_text(command)
        out = tmp_path / f"{command}.parquet"
        proc = run_cli(command, str(tmp_path / name), *args, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        assert pl.read_parquet(out).equals(expected), command  # the directory is read as the frame
    # ranks reads a p-value column lowest first, as its help says
    assert pl.read_parquet(tmp_path / "ranks.parquet")["method"].to_list() == ["a", "b", "c"]
    for command in ("compare", "ranks"):
        assert "the p-values and alpha_sbb are lower-is-better" in help_text(command)
    board_help = help_text("leaderboard")
    assert "p-values" not in board_help and "alpha_sbb" not in board_help
    assert "fallout, miss_rate, lr_minus and conditional_entropy (or an alias of one)" in board_help
    for measure in ("p_informedness", "alpha_sbb"):
        with pytest.raises(be.UnknownMeasureError, match="cannot rank runs"):
            be.leaderboard(preds, run="run", measure=measure)
    args = ("--run", "run", "--measure", "fpr", "-o", str(out))
    board = run_cli("leaderboard", str(tmp_path / "preds"), *args)
    assert board.returncode == 0, board.stderr  # an alias of fallout ranks lowest first
    fallout = preds.group_by("run").agg(fpr=((pl.col("prediction") == 1) & (pl.col("label") == 0)).sum()
                                        / (pl.col("label") == 0).sum()).sort("fpr")  # fmt: skip
    assert pl.read_parquet(out)["run"].to_list() == fallout["run"].to_list()


def test_auc_pool_and_ci_and_sweep_score_range_are_flags(data, tmp_path, capsys):
    # be.auc(pool=, ci=) and be.sweep(score_range=) had no flags: "unrecognized arguments"
    from batcheval.cli.main import main

    root, df, _ = data
    src, out = str(root / "all.parquet"), tmp_path / "o.parquet"
    folded = df.with_columns(fold=pl.int_range(pl.len()) % 3)
    folded.write_parquet(tmp_path / "folded.parquet")
    assert (
        main(["auc", str(tmp_path / "folded.parquet"), "--by", "run,fold", "--pool", "fold", "-o", str(out)])
        == 0
    )
    pooled = pl.read_parquet(out).sort("run")
    for run, got in zip(pooled["run"], pooled["roc_auc"], strict=True):
        sub = df.filter(pl.col("run") == run)
        assert got == pytest.approx(skm.roc_auc_score(sub["label"], sub["score"]), abs=1e-12)
    assert main(["auc", src, "--by", "run", "--ci", "0.9", "-o", str(out)]) == 0
    assert pl.read_parquet(out).equals(be.auc(df, by="run", ci=0.9))
    assert main(["sweep", src, "--by", "run", "--thresholds", "5", "--score-range=-1,3", "-o", str(out)]) == 0
    swept = pl.read_parquet(out)
    assert sorted(set(swept["threshold"])) == [-1.0, 0.0, 1.0, 2.0, 3.0]
    recall = swept.filter(pl.col("run") == 1, pl.col("threshold") == 1.0)["recall"][0]
    sub = df.filter(pl.col("run") == 1)
    assert recall == pytest.approx(skm.recall_score(sub["label"], sub["score"] >= 1.0), abs=1e-12)
    capsys.readouterr()
    assert main(["sweep", src, "--score-range", "1"]) == 2
    assert "--score-range takes low,high such as 0,1; got '1'" in capsys.readouterr().err
    assert main(["sweep", src, "--score-range", "1,0"]) == 2
    assert "--score-range must be finite with low <= high" in capsys.readouterr().err
